//! The retrograde solver.
//!
//! Signatures are solved in units: a signature and its colour flip
//! together, since a quiet move of White's leads to a position with Black
//! to move, stored as the flipped position in the flipped signature. Units
//! come in [`Signature::all`]'s order, so every capture (fewer pieces) and
//! promotion (fewer men) leads into a unit solved before.
//!
//! Within a unit:
//!
//! 1. Every position's moves are generated (the move generator decides the
//!    capture rules). Children outside the unit (captures, promotions) are
//!    looked up in the solved tables; children inside it (king moves,
//!    non-promoting man moves) are counted. A position with a lost child
//!    outside is queued as a win one ply after that child's loss; a
//!    position with no child inside is settled at once (no move at all is
//!    a loss in 0).
//! 2. Queued positions are settled level by level, a level being a distance
//!    in plies. Settling a loss queues every predecessor as a win at the
//!    next level. Settling a win takes one from each predecessor's count
//!    of unsettled children; a predecessor whose count reaches zero has
//!    only won children inside the unit, and its value is recomputed from
//!    all its children: a loss is queued at its distance.
//! 3. What is never settled is a draw.
//!
//! On a board whose left-right mirror is a symmetry of the rules (Turkish),
//! a position and its mirror image share one entry, so about half the
//! positions are solved and the rest take their mirror image's value (see
//! [`solve_unit`]).
//!
//! Predecessors are generated loosely (each of the mover's kings slid back
//! along every line, each man stepped back against each of its move
//! directions, onto an empty square) and kept only when the move generator
//! confirms the quiet move is legal there: a predecessor with a capture
//! pending had no quiet move at all.

use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicU8, Ordering};
use std::time::Instant;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use rayon::prelude::*;

use super::file::{read_file, write_file};
use super::index::{Layout, Signature};
use super::probe::Egdb;
use super::{decode, encode, flip, mirror, table_path, Minimax, Value, Wdl};
use crate::geometry::{opposite, Bits, Geometry};
use crate::movegen::{generate, has_capture, MoveList};
use crate::position::Position;
use crate::rules::{Color, Rules};

/// What was done for one piece count.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PieceReport {
    /// Pieces on the board.
    pub pieces: u32,
    /// Signature files of this piece count.
    pub files: usize,
    /// Files solved now (the others were already present and valid).
    pub built: usize,
    /// Positions (White to move) in those files.
    pub positions: u64,
    /// Bytes of those files on disk.
    pub bytes: u64,
    /// Values in the files: wins, draws, losses for the side to move.
    pub wins: u64,
    /// Draws.
    pub draws: u64,
    /// Losses.
    pub losses: u64,
    /// The longest win or loss, in plies.
    pub longest: u32,
    /// Seconds spent solving, loading and writing this piece count.
    pub seconds: f64,
}

impl PieceReport {
    /// One line of text.
    pub fn line(&self) -> String {
        format!(
            "pieces {}: {} files ({} built), {} positions, {} bytes on disk ({:.1} % of one byte a position), \
             wins {} draws {} losses {}, longest {} plies, {:.1} s",
            self.pieces,
            self.files,
            self.built,
            self.positions,
            self.bytes,
            100.0 * self.bytes as f64 / self.positions.max(1) as f64,
            self.wins,
            self.draws,
            self.losses,
            self.longest,
            self.seconds
        )
    }
}

/// Whether some position of `sig` can lead, by any sequence of moves, to a
/// position of `d`: neither side ever gains men, nor pieces.
fn reaches(sig: Signature, d: Signature) -> bool {
    d.wm <= sig.wm
        && d.wm + d.wk <= sig.wm + sig.wk
        && d.bm <= sig.bm
        && d.bm + d.bk <= sig.bm + sig.bk
}

/// The signatures the positions of `targets` depend on, the targets
/// included, in solving order, closed under colour flip.
pub fn closure(targets: &[Signature]) -> Vec<Signature> {
    let max = targets.iter().map(|s| s.pieces()).max().unwrap_or(0);
    Signature::all(max)
        .into_iter()
        .filter(|d| {
            targets.iter().any(|&t| {
                reaches(t, *d)
                    || reaches(t, d.flipped())
                    || reaches(t.flipped(), *d)
                    || reaches(t.flipped(), d.flipped())
            })
        })
        .collect()
}

/// Builds (or loads, when present and valid) every table of `sigs`, which
/// must be in solving order and closed under what their positions lead to
/// ([`Signature::all`] or [`closure`]), into `dir/<variant>/`. Returns the
/// tables in memory and a report per piece count. `progress` draws a bar
/// on stderr when it is a terminal; `log` gets one line per unit.
pub fn build_signatures<R: Rules>(
    dir: &Path,
    sigs: &[Signature],
    progress: bool,
    log: &mut dyn FnMut(String),
) -> Result<(Egdb<R>, Vec<PieceReport>), String> {
    let mut store = Egdb::<R>::empty();
    let mut reports: Vec<PieceReport> = Vec::new();
    let total: u64 = sigs.iter().map(|&s| Layout::<R>::new(s).size()).sum();
    let bar = if progress {
        let b = ProgressBar::with_draw_target(Some(total), ProgressDrawTarget::stderr());
        b.set_style(
            ProgressStyle::with_template("{msg} [{bar:30}] {percent}% {elapsed_precise} eta {eta}")
                .unwrap_or_else(|_| ProgressStyle::default_bar()),
        );
        b
    } else {
        ProgressBar::hidden()
    };
    for (i, &sig) in sigs.iter().enumerate() {
        let twin = sig.flipped();
        if sigs[..i].contains(&twin) {
            continue; // solved with its twin
        }
        if twin != sig && !sigs.contains(&twin) {
            return Err(format!(
                "signature {sig} is listed without its colour flip {twin}"
            ));
        }
        let unit: Vec<Signature> = if twin == sig {
            vec![sig]
        } else {
            vec![sig, twin]
        };
        let start = Instant::now();
        bar.set_message(format!("{} {}", R::NAME, unit[0]));
        let loaded: Result<Vec<Vec<Value>>, String> = unit
            .iter()
            .map(|&s| {
                read_file(
                    &table_path::<R>(dir, s),
                    R::NAME,
                    s,
                    Layout::<R>::new(s).size(),
                )
            })
            .collect();
        let (tables, built) = match loaded {
            Ok(t) => (t, false),
            Err(_) => (solve_unit(&store, &unit, true)?, true),
        };
        let n = sig.pieces();
        if reports.last().map(|r| r.pieces) != Some(n) {
            reports.push(PieceReport {
                pieces: n,
                ..Default::default()
            });
        }
        let rep = reports.last_mut().expect("pushed above");
        for (&s, values) in unit.iter().zip(tables) {
            let path = table_path::<R>(dir, s);
            let bytes = if built {
                write_file(&path, R::NAME, s, &values)?
            } else {
                std::fs::metadata(&path).map(|m| m.len()).unwrap_or(0)
            };
            rep.files += 1;
            rep.built += built as usize;
            rep.positions += values.len() as u64;
            rep.bytes += bytes;
            for &v in &values {
                match decode(v) {
                    (Wdl::Win, d) => {
                        rep.wins += 1;
                        rep.longest = rep.longest.max(d);
                    }
                    (Wdl::Loss, d) => {
                        rep.losses += 1;
                        rep.longest = rep.longest.max(d);
                    }
                    (Wdl::Draw, _) => rep.draws += 1,
                }
            }
            bar.inc(values.len() as u64);
            store.insert(s, values);
        }
        let secs = start.elapsed().as_secs_f64();
        rep.seconds += secs;
        log(format!(
            "{} {}: {} in {:.2} s",
            R::NAME,
            unit.iter()
                .map(|s| s.name())
                .collect::<Vec<_>>()
                .join(" + "),
            if built { "solved" } else { "present" },
            secs
        ));
    }
    bar.finish_and_clear();
    Ok((store, reports))
}

/// Builds every table with up to `pieces` pieces (see
/// [`build_signatures`]).
pub fn build<R: Rules>(
    dir: &Path,
    pieces: u32,
    progress: bool,
    log: &mut dyn FnMut(String),
) -> Result<(Egdb<R>, Vec<PieceReport>), String> {
    if !(2..=super::MAX_PIECES).contains(&pieces) {
        return Err(format!(
            "endgame databases have 2 to {} pieces, not {pieces}",
            super::MAX_PIECES
        ));
    }
    build_signatures(dir, &Signature::all(pieces), progress, log)
}

/// A queued position: index, table of the unit (0 or 1), win or loss.
#[inline(always)]
fn entry(idx: u64, table: usize, win: bool) -> u64 {
    (idx << 2) | ((table as u64) << 1) | win as u64
}

#[inline(always)]
fn unpack(e: u64) -> (usize, usize, bool) {
    ((e >> 2) as usize, ((e >> 1) & 1) as usize, e & 1 != 0)
}

/// An entry found for a level, in one word (8 bytes a queued position, as
/// many positions of a unit can be): the level above bit 48 (an index has
/// fewer than 46 bits), the entry below.
#[inline(always)]
fn at_level(level: u32, e: u64) -> u64 {
    ((level as u64) << 48) | e
}

/// Files entries found by the threads (one list each, dropped as it is
/// read) under their levels.
fn file_found(buckets: &mut Vec<Vec<u64>>, found: Vec<Vec<u64>>) {
    for list in found {
        for q in list {
            let l = (q >> 48) as usize;
            if buckets.len() <= l {
                buckets.resize_with(l + 1, Vec::new);
            }
            buckets[l].push(q & ((1 << 48) - 1));
        }
    }
}

/// Calls `f` with every predecessor (flipped to White to move) of `x`
/// (White to move): the positions with Black to move from which a legal
/// quiet, non-promoting move of Black's leads to `x`.
#[inline]
pub fn for_each_predecessor<R: Rules>(x: &Position<R>, mut f: impl FnMut(&Position<R>)) {
    let empty = x.empty();
    let white = x.pieces(Color::White);
    let black = x.pieces(Color::Black);
    let kings = x.kings();
    let mut visit = |from: u64, to: u64, king: bool| {
        let moved = from | to;
        let p = Position::<R>::from_parts(
            white,
            black ^ moved,
            if king { kings ^ moved } else { kings },
            Color::Black,
        );
        // The move generator has the last word: with a capture pending
        // there is no quiet move.
        if has_capture(&p) {
            return;
        }
        #[cfg(debug_assertions)]
        {
            let mut list = MoveList::new();
            generate(&p, &mut list);
            let (f, t) = (from.trailing_zeros() as u8, to.trailing_zeros() as u8);
            debug_assert!(
                list.iter()
                    .any(|m| m.from == f && m.to == t && !m.is_capture() && !m.promote),
                "{p:?}: no quiet move {f} -> {t}"
            );
        }
        f(&flip(&p));
    };
    for k in Bits(x.kings_of(Color::Black)) {
        for d in 0..4 {
            let mut from = R::Geo::step(k, d) & empty;
            while from != 0 {
                visit(from, k, true);
                if !R::FLYING_KINGS {
                    break;
                }
                from = R::Geo::step(from, d) & empty;
            }
        }
    }
    let no_promo = !R::promotion_row(Color::Black);
    for m in Bits(x.men(Color::Black)) {
        for &d in R::man_move_dirs(Color::Black) {
            let from = R::Geo::step(m, opposite(d)) & empty & no_promo;
            if from != 0 {
                visit(from, m, false);
            }
        }
    }
}

/// How `p` stands to its mirror image `m` (equal when it is its own): the
/// one with the lower White pieces, then Black pieces, then kings, comes
/// first, and its index stands for both while the unit is solved. A few
/// word comparisons, where comparing the two indices would rank both.
#[inline(always)]
fn mirror_order<R: Rules>(p: &Position<R>, m: &Position<R>) -> std::cmp::Ordering {
    let key = |q: &Position<R>| (q.pieces(Color::White), q.pieces(Color::Black), q.kings());
    key(p).cmp(&key(m))
}

/// `p`'s mirror image and how `p` stands to it ([`mirror_order`]).
#[inline(always)]
fn mirror_pair<R: Rules>(p: &Position<R>) -> (Position<R>, std::cmp::Ordering) {
    let m = mirror(p);
    let order = mirror_order(p, &m);
    (m, order)
}

/// Solves the tables of one unit (a signature, and its flip when that
/// differs), given every table its captures and promotions lead to.
///
/// With `use_mirror`, on a board whose left-right mirror is a symmetry of
/// the rules ([`Geometry::MIRRORS`]), a position and its mirror image (same
/// signature, same table) share one entry, that of the one whose pieces
/// come first in [`mirror_order`], and only those entries are solved; the
/// other takes the value
/// when the entry is settled. A settled child then stands for itself and
/// its mirror image, so the count of a predecessor `p` (its moves into the
/// unit) drops by its moves into either: for each predecessor `p'` found
/// from a settled `x`, once, except that
/// - a symmetric `x` (its own mirror image) is reached from `p` and from
///   `p`'s mirror image by the same moves of `p`'s: only a `p'` that is
///   its class's entry counts;
/// - a symmetric `p'` with a non-symmetric `x` has as many moves into `x`'s
///   mirror image as into `x`, never found from it: it counts twice.
///
/// On the other boards, or without `use_mirror`, every position is solved.
pub fn solve_unit<R: Rules>(
    store: &Egdb<R>,
    unit: &[Signature],
    use_mirror: bool,
) -> Result<Vec<Vec<Value>>, String> {
    let sym = use_mirror && R::Geo::MIRRORS;
    let layouts: Vec<Layout<R>> = unit.iter().map(|&s| Layout::new(s)).collect();
    let values: Vec<Vec<AtomicU8>> = layouts
        .iter()
        .map(|l| (0..l.size()).map(|_| AtomicU8::new(0)).collect())
        .collect();
    let counts: Vec<Vec<AtomicU8>> = layouts
        .iter()
        .map(|l| (0..l.size()).map(|_| AtomicU8::new(0)).collect())
        .collect();
    let other = |t: usize| (t + 1) % unit.len();
    let missing = AtomicBool::new(false);
    // The table of a position (White to move) inside the unit.
    let table_of = |p: &Position<R>| {
        let s = Signature::of(p);
        unit.iter().position(|&u| u == s)
    };
    // The entry of a position of table `t` (its own index or its mirror
    // image's), and how the position stands to its mirror image.
    let class = |t: usize, p: &Position<R>| -> (u64, std::cmp::Ordering) {
        if !sym {
            return (layouts[t].index(p), std::cmp::Ordering::Less);
        }
        let (m, order) = mirror_pair(p);
        let entry = if order.is_gt() { &m } else { p };
        (layouts[t].index(entry), order)
    };
    // The value of any child: inside the unit from the tables being built
    // (settled values only are asked for), else from the solved ones.
    let lookup = |child: &Position<R>| -> Option<Value> {
        let p = super::white_to_move(child);
        match table_of(&p) {
            Some(t) => {
                let (i, _) = class(t, &p);
                Some(values[t][i as usize].load(Ordering::Acquire))
            }
            None => store.value(&p),
        }
    };

    // 1. Children outside the unit, counts of those inside.
    let mut buckets: Vec<Vec<u64>> = Vec::new();
    for (t, layout) in layouts.iter().enumerate() {
        let found: Vec<Vec<u64>> = (0..layout.size() as usize)
            .into_par_iter()
            .with_min_len(4096)
            .fold(Vec::new, |mut acc, i| {
                let idx = i as u64;
                let pos = layout.position(idx);
                if sym && mirror_pair(&pos).1.is_gt() {
                    return acc; // its mirror image's entry stands for it
                }
                let mut list = MoveList::new();
                generate(&pos, &mut list);
                let mut mm = Minimax::default();
                let mut inside = 0u32;
                for mv in list.iter() {
                    if mv.is_capture() || mv.promote {
                        match store.value(&pos.played(mv)) {
                            Some(v) => mm.add(v),
                            None => missing.store(true, Ordering::Relaxed),
                        }
                    } else {
                        inside += 1;
                    }
                }
                counts[t][i].store(inside.min(255) as u8, Ordering::Relaxed);
                match decode(mm.value()) {
                    (Wdl::Win, d) => acc.push(at_level(d, entry(idx, t, true))),
                    (Wdl::Loss, d) if inside == 0 => acc.push(at_level(d, entry(idx, t, false))),
                    _ => {}
                }
                acc
            })
            .collect();
        file_found(&mut buckets, found);
    }
    if missing.load(Ordering::Relaxed) {
        return Err(format!(
            "solving {}: a table its captures or promotions lead to is not loaded",
            unit[0]
        ));
    }

    // 2. Level by level.
    let mut level = 0usize;
    while level < buckets.len() {
        let entries = std::mem::take(&mut buckets[level]);
        let lv = level as u32;
        let found: Vec<Vec<u64>> = entries
            .par_iter()
            .with_min_len(256)
            .fold(Vec::new, |mut acc, &e| {
                let (idx, t, win) = unpack(e);
                let v = encode(win, lv);
                if values[t][idx]
                    .compare_exchange(0, v, Ordering::AcqRel, Ordering::Acquire)
                    .is_err()
                {
                    return acc;
                }
                let x = layouts[t].position(idx as u64);
                let mut x_symmetric = false;
                if sym {
                    let (m, order) = mirror_pair(&x);
                    x_symmetric = order.is_eq();
                    if !x_symmetric {
                        // The mirror image takes the value now.
                        let mi = layouts[t].index(&m) as usize;
                        values[t][mi].store(v, Ordering::Relaxed);
                    }
                }
                let pt = other(t);
                let mut list = MoveList::new();
                for_each_predecessor(&x, |p| {
                    let (pidx, order) = class(pt, p);
                    if !win {
                        acc.push(at_level(lv + 1, entry(pidx, pt, true)));
                        return;
                    }
                    // How many of the entry's moves this settles (see above).
                    let k = if !sym {
                        1
                    } else if x_symmetric {
                        u8::from(order.is_le())
                    } else if order.is_eq() {
                        2
                    } else {
                        1
                    };
                    if k == 0 {
                        return;
                    }
                    let pi = pidx as usize;
                    let before = counts[pt][pi].fetch_sub(k, Ordering::AcqRel);
                    debug_assert!(before >= k, "{p:?}: more settled moves than moves");
                    if before == k && values[pt][pi].load(Ordering::Acquire) == 0 {
                        let mut mm = Minimax::default();
                        generate(p, &mut list);
                        for mv in list.iter() {
                            match lookup(&p.played(mv)) {
                                Some(v) => mm.add(v),
                                None => missing.store(true, Ordering::Relaxed),
                            }
                        }
                        if let (Wdl::Loss, d) = decode(mm.value()) {
                            acc.push(at_level(d.max(lv + 1), entry(pidx, pt, false)));
                        }
                    }
                });
                acc
            })
            .collect();
        drop(entries);
        file_found(&mut buckets, found);
        buckets[level] = Vec::new();
        level += 1;
    }
    if missing.load(Ordering::Relaxed) {
        return Err(format!(
            "solving {}: a child's table is not loaded",
            unit[0]
        ));
    }
    Ok(values
        .into_iter()
        .map(|t| t.into_iter().map(AtomicU8::into_inner).collect())
        .collect())
}
