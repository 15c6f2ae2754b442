//! The learned evaluation: feature layout, symmetry, weights files, the
//! trainer and the self-play data.

mod common;

use common::XorShift;
use kondavo::eval::learned::{
    dense_terms, features, layout, phase, starting, Dense, Layout, Learned, BIG_ENTRIES, DENSE,
    ENTRIES, UNIT,
};
use kondavo::eval::Evaluate;
use kondavo::geometry::Geometry;
use kondavo::movegen::{generate, has_capture, side_has_capture, MoveList};
use kondavo::position::Position;
use kondavo::rules::*;
use kondavo::search::threads::Searcher;
use kondavo::tools::selfplay::{play_game, read_games, replay, run_selfplay, SelfplayOptions};
use kondavo::tools::train::{fit, Example, FitOptions, Problem};

/// Positions from random playouts of every length up to 80 plies.
fn positions<R: Rules>(seed: u64, count: usize) -> Vec<Position<R>> {
    let mut rng = XorShift::new(seed);
    let mut out = Vec::new();
    let mut list = MoveList::new();
    while out.len() < count {
        let mut pos = Position::<R>::start();
        for _ in 0..rng.below(80) {
            generate(&pos, &mut list);
            if list.is_empty() {
                break;
            }
            pos.play(&list[rng.below(list.len())]);
        }
        out.push(pos);
    }
    out
}

/// The position turned half a turn with the colours and the side to move
/// swapped.
fn mirror<R: Rules>(pos: &Position<R>, lay: &Layout) -> Position<R> {
    Position::from_parts(
        lay.rotate(pos.pieces(Color::Black)),
        lay.rotate(pos.pieces(Color::White)),
        lay.rotate(pos.kings()),
        pos.side().flip(),
    )
}

/// Random weights in centi-men, deterministic.
fn random_weights<R: Rules>(seed: u64) -> Vec<[f32; 2]> {
    random_weights_within::<R>(seed, 100.0)
}

/// Random weights in centi-men, uniform in [-max, max] (in steps of a
/// hundredth of `max`).
fn random_weights_within<R: Rules>(seed: u64, max: f32) -> Vec<[f32; 2]> {
    let mut rng = XorShift::new(seed);
    let mut r = || (rng.below(2001) as f32 - 1000.0) / 1000.0 * max;
    (0..layout::<R::Geo>().features())
        .map(|_| [r(), r()])
        .collect()
}

fn check_layout<G: Geometry>(windows: usize, big: usize) {
    let lay = layout::<G>();
    assert_eq!(lay.windows.len(), windows);
    let mut covered = 0;
    for (w, &m) in lay.windows.iter().enumerate() {
        assert_eq!(m.count_ones(), 8);
        assert_eq!(m & !G::SQUARES, 0);
        covered |= m;
        assert_eq!(lay.windows[lay.rotated[w]], lay.rotate(m));
    }
    assert_eq!(covered, G::SQUARES, "the windows cover the board");
    assert_eq!(lay.big.len(), big);
    for (w, &m) in lay.big.iter().enumerate() {
        assert_eq!(m.count_ones(), 12);
        assert_eq!(m & !G::SQUARES, 0);
        assert_eq!(lay.big[lay.big_rotated[w]], lay.rotate(m));
    }
    // The king windows read the small windows' squares.
    assert_eq!(lay.king_base(), lay.big_base() + big * BIG_ENTRIES);
    assert_eq!(lay.dense_base(), lay.king_base() + windows * ENTRIES);
    for s in 0..G::NUM_SQUARES {
        let (f, r) = G::coords(s);
        let t = G::from_coords(G::WIDTH - 1 - f, G::HEIGHT - 1 - r).expect("a square");
        assert_eq!(lay.rotate(G::bit(s)), G::bit(t), "square {s}");
    }
}

#[test]
fn windows_cover_each_board_and_turn_into_each_other() {
    check_layout::<<International as Rules>::Geo>(16, 6);
    check_layout::<<English as Rules>::Geo>(9, 6);
    check_layout::<<Turkish as Rules>::Geo>(21, 6);
}

/// A position and its mirror get the same score for the side to move: the
/// evaluation in use, random learned weights and the starting weights.
fn check_symmetry<R: Evaluate>() {
    let lay = layout::<R::Geo>();
    let random =
        Learned::from_float::<R::Geo>(R::NAME, &random_weights::<R>(7), 120.0, "test").unwrap();
    let start = starting::<R>(&R::START);
    let mut feats = Vec::new();
    for learned in [&random, &start] {
        let float_w = learned.to_float();
        for pos in positions::<R>(11, 300) {
            let m = mirror(&pos, lay);
            assert_eq!(R::evaluate(&pos), R::evaluate(&m), "{} evaluate", R::NAME);
            let a = learned.white_score(&pos);
            let b = learned.white_score(&m);
            assert_eq!(a, -b, "{} learned score and its mirror", R::NAME);
            // The integer score agrees with the sparse features the trainer
            // sees (up to rounding).
            features(&pos, &mut feats);
            let p = phase(&pos) as f32 / 256.0;
            let f: f32 = feats
                .iter()
                .map(|&(i, v)| {
                    v * (float_w[i as usize][0] * (1.0 - p) + float_w[i as usize][1] * p)
                })
                .sum();
            assert!(
                (f - a as f32).abs() <= 2.0 + f.abs() * 1e-4,
                "{}: features give {f}, the evaluation {a}",
                R::NAME
            );
        }
    }
}

#[test]
fn mirrored_positions_score_the_same_in_every_variant() {
    check_symmetry::<International>();
    check_symmetry::<English>();
    check_symmetry::<Italian>();
    check_symmetry::<Brazilian>();
    check_symmetry::<Spanish>();
    check_symmetry::<Russian>();
    check_symmetry::<Turkish>();
}

/// Index of window `mask` read digit by digit from its lowest square: 1
/// where `own` has the square, 2 where `theirs` has it, 0 elsewhere.
fn slow_digits(own: u64, theirs: u64, mask: u64) -> usize {
    let (mut index, mut power) = (0, 1);
    for bit in 0..64 {
        let b = 1u64 << bit;
        if mask & b == 0 {
            continue;
        }
        if own & b != 0 {
            index += power;
        } else if theirs & b != 0 {
            index += 2 * power;
        }
        power *= 3;
    }
    index
}

/// Index of window `mask` read for White: 0 empty or a king, 1 a white
/// man, 2 a black man.
fn slow_index<R: Rules>(pos: &Position<R>, mask: u64) -> usize {
    slow_digits(pos.men(Color::White), pos.men(Color::Black), mask)
}

/// Index of king window `mask` read for White: 0 empty or a man, 1 a
/// white king, 2 a black king.
fn slow_king_index<R: Rules>(pos: &Position<R>, mask: u64) -> usize {
    slow_digits(pos.kings_of(Color::White), pos.kings_of(Color::Black), mask)
}

/// The score of `pos` for White under the float weights `w`, computed the
/// slow way: every window of the board read for White on the board and on
/// its mirror (White's reading of the mirror is Black's reading), every
/// king window holding a king the same way, and the king term counted
/// from the kings.
fn slow_score<R: Evaluate>(pos: &Position<R>, w: &[[f32; 2]]) -> f32 {
    let lay = layout::<R::Geo>();
    let m = mirror(pos, lay);
    let p = phase(pos) as f32 / 256.0;
    let value = |i: usize| w[i][0] * (1.0 - p) + w[i][1] * p;
    let mut s = 0.0;
    for (k, &mask) in lay.windows.iter().enumerate() {
        s += value(k * ENTRIES + slow_index(pos, mask));
        s -= value(k * ENTRIES + slow_index(&m, mask));
    }
    for (k, &mask) in lay.big.iter().enumerate() {
        s += value(lay.big_base() + k * BIG_ENTRIES + slow_index(pos, mask));
        s -= value(lay.big_base() + k * BIG_ENTRIES + slow_index(&m, mask));
    }
    for (k, &mask) in lay.windows.iter().enumerate() {
        let own = slow_king_index(pos, mask);
        if own != 0 {
            s += value(lay.king_base() + k * ENTRIES + own);
        }
        let theirs = slow_king_index(&m, mask);
        if theirs != 0 {
            s -= value(lay.king_base() + k * ENTRIES + theirs);
        }
    }
    let has_king = |c: Color| (pos.kings_of(c) != 0) as i32 as f32;
    s += value(lay.dense_base() + Dense::HasKing as usize)
        * (has_king(Color::White) - has_king(Color::Black));
    let balance = |c: Color| slow_balance(pos, c) as f32;
    s += value(lay.dense_base() + Dense::Balance as usize)
        * (balance(Color::White) - balance(Color::Black));
    let threatened = |c: Color| slow_king_threatened(pos, c) as f32;
    s += value(lay.dense_base() + Dense::KingThreatened as usize)
        * (threatened(Color::White) - threatened(Color::Black));
    // The older dense terms, as the trainer sees them.
    let d = dense_terms(pos);
    for (k, &v) in d.iter().enumerate().take(Dense::HasKing as usize) {
        let v = if k == Dense::Tempo as usize {
            v as f32 / R::Geo::HEIGHT as f32
        } else {
            v as f32
        };
        s += v * value(lay.dense_base() + k);
    }
    s
}

/// The balance term of side `c`, square by square: the absolute value of
/// the sum over its men of twice the file less the width less one.
fn slow_balance<R: Rules>(pos: &Position<R>, c: Color) -> i32 {
    let width = R::Geo::WIDTH as i32;
    let mut skew = 0;
    for s in 0..R::Geo::NUM_SQUARES {
        if pos.men(c) & R::Geo::bit(s) != 0 {
            skew += 2 * R::Geo::coords(s).0 as i32 - (width - 1);
        }
    }
    skew.abs()
}

/// Side `c`'s king moves onto a square where an enemy man would capture
/// the king, walked square by square: for each move's square, an enemy man
/// next to it in one of the directions men capture in, with the square
/// beyond empty (before the king leaves its own square), where the
/// variant's men may take kings.
fn slow_king_threatened<R: Rules>(pos: &Position<R>, c: Color) -> i32 {
    if !R::MEN_CAPTURE_KINGS {
        return 0;
    }
    let (empty, enemy) = (pos.empty(), pos.men(c.flip()));
    let threatened = |t: u64| {
        R::man_capture_dirs(c.flip()).iter().any(|&d| {
            let from = R::Geo::step(t, kondavo::geometry::opposite(d));
            let beyond = R::Geo::step(t, d);
            from & enemy != 0 && beyond & empty != 0
        })
    };
    let mut n = 0;
    for s in 0..R::Geo::NUM_SQUARES {
        let k = R::Geo::bit(s);
        if pos.kings_of(c) & k == 0 {
            continue;
        }
        for d in 0..4 {
            let mut t = R::Geo::step(k, d);
            while t & empty != 0 {
                n += threatened(t) as i32;
                if !R::FLYING_KINGS {
                    break;
                }
                t = R::Geo::step(t, d);
            }
        }
    }
    n
}

/// `body` (a weights file without its checksum) with its FNV-1a checksum
/// appended.
fn with_checksum(mut body: Vec<u8>) -> Vec<u8> {
    let sum = kondavo::eval::learned::fnv1a(&body);
    body.extend_from_slice(&sum.to_le_bytes());
    body
}

/// `back` holds the weights of `l` and scores random positions (`seed`)
/// the same.
fn assert_same_weights<R: Evaluate>(back: &Learned, l: &Learned, seed: u64) {
    assert_eq!(back.to_float(), l.to_float());
    for pos in positions::<R>(seed, 100) {
        assert_eq!(back.white_score(&pos), l.white_score(&pos));
    }
}

/// The evaluation's windows (small, big and king windows) and king term
/// agree with the slow computation on random positions under random
/// weights: weights of up to a man, which the evaluation reads from its
/// fused tables, and weights of up to 30 men, whose differences do not
/// fit them, so that it reads the weights as stored. Then with the
/// balance, the threatened king term or both at zero, which the
/// evaluation skips.
fn check_against_slow<R: Evaluate>() {
    for (max, fused) in [(100.0, true), (3000.0, false)] {
        let w = random_weights_within::<R>(13, max);
        let l = Learned::from_float::<R::Geo>(R::NAME, &w, 120.0, "test").unwrap();
        assert_eq!(l.reads_fused(), fused, "{}: weights within {max}", R::NAME);
        check_learned_against_slow::<R>(&l);
    }
    let base = layout::<R::Geo>().dense_base();
    for zero in [
        &[Dense::Balance][..],
        &[Dense::KingThreatened],
        &[Dense::Balance, Dense::KingThreatened],
    ] {
        let mut w = random_weights_within::<R>(19, 100.0);
        for &d in zero {
            w[base + d as usize] = [0.0; 2];
        }
        let l = Learned::from_float::<R::Geo>(R::NAME, &w, 120.0, "test").unwrap();
        check_learned_against_slow::<R>(&l);
    }
}

fn check_learned_against_slow<R: Evaluate>(l: &Learned) {
    let w = l.to_float();
    let mut kings = 0;
    for pos in positions::<R>(17, 300) {
        kings += (pos.kings() != 0) as usize;
        let slow = slow_score(&pos, &w);
        let fast = l.white_score(&pos) as f32;
        assert!(
            (slow - fast).abs() <= 2.0 + slow.abs() * 1e-4,
            "{}: slow {slow}, evaluation {fast}",
            R::NAME
        );
    }
    assert!(kings > 10, "{}: positions with kings: {kings}", R::NAME);
}

#[test]
fn big_windows_king_windows_and_the_king_term_match_a_slow_computation_in_every_variant() {
    check_against_slow::<International>();
    check_against_slow::<English>();
    check_against_slow::<Italian>();
    check_against_slow::<Brazilian>();
    check_against_slow::<Spanish>();
    check_against_slow::<Russian>();
    check_against_slow::<Turkish>();
}

/// The starting weights' score, computed square by square: material,
/// each man's value by its relative rank (opening and endgame tables
/// blended by the phase) plus the centre bonus, runaways and king mobility.
fn starting_sum<R: Evaluate>(pos: &Position<R>) -> f64 {
    let s = &R::START;
    let (w, h) = (R::Geo::WIDTH, R::Geo::HEIGHT);
    let (mut fixed, mut open, mut end) = (0i64, 0i64, 0i64);
    for (c, sign) in [(Color::White, 1i64), (Color::Black, -1)] {
        let men = pos.men(c);
        fixed += sign
            * (s.man as i64 * men.count_ones() as i64
                + s.king as i64 * pos.kings_of(c).count_ones() as i64);
        for sq in 0..R::Geo::NUM_SQUARES {
            if men & R::Geo::bit(sq) == 0 {
                continue;
            }
            let (f, r) = R::Geo::coords(sq);
            assert_ne!(men & R::Geo::RANKS[r], 0, "square {sq} on rank {r}");
            let rel = if c == Color::White { r } else { h - 1 - r };
            let centre = if f >= 2 && f + 2 < w && r >= 2 && r + 2 < h {
                s.centre as i64
            } else {
                0
            };
            open += sign * (s.advance_open[rel] as i64 + centre);
            end += sign * (s.advance_end[rel] as i64 + centre);
        }
    }
    let d = dense_terms(pos);
    fixed += s.runaway as i64 * d[Dense::Runaways as usize] as i64
        + s.king_mobility as i64 * d[Dense::KingMobility as usize] as i64;
    let p = phase(pos) as i64;
    fixed as f64 + (open * (256 - p) + end * p) as f64 / 256.0
}

fn check_starting<R: Evaluate>() {
    let start = starting::<R>(&R::START);
    assert_eq!(start.variant, R::NAME);
    assert_eq!(
        start.scale,
        kondavo::tools::train::FitOptions::default().scale
    );
    let dense = &start.to_float()[layout::<R::Geo>().dense_base()..];
    assert_eq!(dense[Dense::Men as usize], [R::START.man as f32; 2]);
    assert_eq!(dense[Dense::Kings as usize], [R::START.king as f32; 2]);
    for t in [Dense::LongDiagonalKings, Dense::Tempo, Dense::SideToMove] {
        assert_eq!(dense[t as usize], [0.0; 2], "{}: {t:?}", R::NAME);
    }
    let mut seen = [0; 3];
    for pos in positions::<R>(23, 400) {
        let want = starting_sum(&pos);
        let got = start.white_score(&pos);
        // Every square is covered by one, two or four windows, so each
        // window's share of a man's value is a whole number of 1/UNIT
        // centi-men and the weights hold it exactly: the only difference is
        // white_score's one division, rounding towards zero.
        assert!(
            (got as f64 - want).abs() < 1.0,
            "{}: starting weights give {got}, the square-by-square sum {want}",
            R::NAME
        );
        let d = dense_terms(&pos);
        seen[0] += (phase(&pos) > 128) as usize;
        seen[1] += (d[Dense::Runaways as usize] != 0) as usize;
        seen[2] += (d[Dense::KingMobility as usize] != 0) as usize;
    }
    // The playouts reach endgames, runaway men and kings.
    assert!(seen.iter().all(|&n| n >= 10), "{}: {seen:?}", R::NAME);
}

#[test]
fn starting_weights_score_material_advancement_centre_runaways_and_mobility() {
    check_starting::<International>();
    check_starting::<English>();
    check_starting::<Italian>();
    check_starting::<Brazilian>();
    check_starting::<Spanish>();
    check_starting::<Russian>();
    check_starting::<Turkish>();
}

/// `--weights start:<variant>` plays with generation 0: the same analysis
/// as the starting vector written to a file and installed as one, and not
/// the shipped weights'; an unknown variant is refused by name.
#[test]
fn weights_start_installs_generation_zero() {
    let dir = std::env::temp_dir().join(format!("kondavo-start-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("english-0.kdw");
    std::fs::write(&file, starting::<English>(&English::START).to_bytes()).unwrap();
    // After 12-16 24-20 8-12 27-24 10-14 23-18 (Black wins a king for a man
    // a dozen plies on).
    let fen = "B:W18,20,21,22,24,25,26,28,29,30,31,32:B1,2,3,4,5,6,7,9,11,12,14,16";
    let analyse = |weights: &[&str]| {
        let mut args = weights.to_vec();
        args.extend([
            "analyse",
            "--variant",
            "english",
            "--fen",
            fen,
            "--depth",
            "6",
        ]);
        let (out, err, ok) = common::kondavo(&args);
        assert!(ok, "{err}");
        // The line without the timing.
        let v: Vec<&str> = out
            .split(',')
            .filter(|f| !f.starts_with("\"time\""))
            .collect();
        v.join(",")
    };
    let start = analyse(&["--weights", "start:english"]);
    assert!(start.contains("\"score\":"), "{start}");
    assert_eq!(start, analyse(&["--weights", file.to_str().unwrap()]));
    assert_ne!(start, analyse(&[]), "the shipped weights differ");
    let (_, err, ok) = common::kondavo(&["--weights", "start:draughts", "moves"]);
    assert!(!ok && err.contains("unknown variant 'draughts'"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn weights_files_round_trip_and_bad_ones_are_refused() {
    let w = random_weights::<International>(3);
    let l =
        Learned::from_float::<<International as Rules>::Geo>("international", &w, 150.0, "gen 1")
            .unwrap();
    let bytes = l.to_bytes();
    let back = Learned::from_bytes::<International>(&bytes).unwrap();
    assert_eq!(back.to_float(), l.to_float());
    assert_eq!(back.description, "gen 1");
    assert_eq!(back.scale, 150.0);
    for pos in positions::<International>(5, 50) {
        assert_eq!(back.white_score(&pos), l.white_score(&pos));
    }
    // Weights survive quantisation to 1/UNIT centi-man, but for each king
    // window's empty entry (no king in it), which has no weight.
    let lay = layout::<<International as Rules>::Geo>();
    let empty_kings: Vec<usize> = (0..lay.windows.len())
        .map(|k| lay.king_base() + k * ENTRIES)
        .collect();
    for (i, (a, b)) in w.iter().zip(back.to_float()).enumerate() {
        if empty_kings.contains(&i) {
            assert_eq!(b, [0.0; 2]);
        } else {
            assert!((a[0] - b[0]).abs() <= 0.5 / UNIT as f32 + 1e-6);
        }
    }
    let err = |b: &[u8]| Learned::from_bytes::<International>(b).unwrap_err();
    assert!(
        err(&bytes[..bytes.len() - 100]).contains("checksum")
            || err(&bytes[..bytes.len() - 100]).contains("truncated")
    );
    assert!(err(&bytes[..30]).contains("truncated"));
    let mut flipped = bytes.clone();
    flipped[1000] ^= 1;
    assert!(err(&flipped).contains("checksum"), "{}", err(&flipped));
    let mut magic = bytes.clone();
    magic[0] = b'X';
    assert!(err(&magic).contains("magic"));
    assert!(Learned::from_bytes::<Russian>(&bytes)
        .unwrap_err()
        .contains("international"));
    let mut longer = bytes.clone();
    longer.insert(500, 0);
    assert!(Learned::from_bytes::<International>(&longer).is_err());
    // Another variant with the same board: refused by name.
    let e = Learned::from_float::<<English as Rules>::Geo>(
        "english",
        &random_weights::<English>(1),
        90.0,
        "",
    )
    .unwrap()
    .to_bytes();
    assert!(Learned::from_bytes::<Italian>(&e)
        .unwrap_err()
        .contains("english"));
}

/// Every weights file the build embeds reads for its variant.
#[test]
fn embedded_weights_read() {
    fn check<R: Evaluate>() {
        if let Some(b) = kondavo::eval::learned::embedded_bytes(R::NAME) {
            Learned::from_bytes::<R>(b).unwrap_or_else(|e| panic!("{}: {e}", R::NAME));
        }
    }
    check::<International>();
    check::<English>();
    check::<Italian>();
    check::<Brazilian>();
    check::<Spanish>();
    check::<Russian>();
    check::<Turkish>();
}

/// Synthetic data from a known linear model: the fit finds its weights.
#[test]
fn trainer_recovers_known_weights() {
    const FEATURES: usize = 12;
    let truth: Vec<[f32; 2]> = (0..FEATURES)
        .map(|i| {
            let x = (i as f32 - 5.5) * 20.0;
            [x, -x / 2.0 + 30.0]
        })
        .collect();
    let scale = 100.0;
    let n = 200_000;
    let truth_ref = &truth;
    let get = move |i: usize, f: &mut Vec<(u32, f32)>| -> Example {
        let mut rng = XorShift::new(i as u64 + 1);
        f.clear();
        for _ in 0..4 {
            let k = rng.below(FEATURES) as u32;
            let v = if rng.below(2) == 0 { 1.0 } else { -1.0 };
            f.push((k, v));
        }
        let phase = rng.below(257) as f32 / 256.0;
        let sign = if rng.below(2) == 0 { 1.0 } else { -1.0 };
        let e: f32 = sign
            * f.iter()
                .map(|&(k, v)| {
                    v * (truth_ref[k as usize][0] * (1.0 - phase)
                        + truth_ref[k as usize][1] * phase)
                })
                .sum::<f32>();
        let p = 1.0 / (1.0 + (-e / scale).exp());
        let u = rng.below(1_000_000) as f32 / 1e6;
        Example {
            phase,
            sign,
            target: if u < p { 1.0 } else { 0.0 },
        }
    };
    let problem = Problem {
        n,
        features: FEATURES,
        get: &get,
        unpenalised: 0..usize::MAX,
    };
    let train: Vec<usize> = (0..n * 9 / 10).collect();
    let valid: Vec<usize> = (n * 9 / 10..n).collect();
    let opts = FitOptions {
        epochs: 12,
        lr: 2.0,
        batch: 4096,
        scale,
        ..Default::default()
    };
    let mut losses = Vec::new();
    let w = fit(
        &problem,
        vec![[0.0; 2]; FEATURES],
        &train,
        &valid,
        &opts,
        &mut |_, _, v| losses.push(v),
    );
    assert!(losses.last() < losses.first(), "{losses:?}");
    for (k, (got, want)) in w.iter().zip(&truth).enumerate() {
        for p in 0..2 {
            assert!(
                (got[p] - want[p]).abs() <= 12.0,
                "feature {k} phase {p}: {} against {}",
                got[p],
                want[p]
            );
        }
    }
    // Same seed, same weights.
    let again = fit(
        &problem,
        vec![[0.0; 2]; FEATURES],
        &train,
        &valid,
        &opts,
        &mut |_, _, _| {},
    );
    assert_eq!(w, again);
}

fn opts(out: &str, games: usize) -> SelfplayOptions {
    SelfplayOptions {
        games,
        nodes: None,
        depth: Some(2),
        threads: 2,
        opening_plies: 6,
        seed: 9,
        out: out.to_string(),
        resume: false,
        hash_mib: 1,
        max_plies: 120,
        adjudicate_cp: 800,
        adjudicate_plies: 4,
        progress: false,
    }
}

/// Self-play games re-read into legal, quiet positions, the side to move
/// alternating with the plies, and the results consistent.
fn check_selfplay<R: Evaluate>() {
    let o = opts("unused", 3);
    let mut s = Searcher::<R>::new(1, 1);
    for i in 0..3 {
        let g = play_game::<R>(i, &o, &mut s);
        assert!(g.plies.len() <= 120 + 6);
        assert!(g.result <= 2);
        let mut count = 0;
        let mut pos = Position::<R>::start();
        let mut list = MoveList::new();
        let mut sides = Vec::new();
        for &(m, _) in &g.plies {
            sides.push(pos.side());
            generate(&pos, &mut list);
            assert!(
                (m as usize) < list.len(),
                "{}: move index in range",
                R::NAME
            );
            pos.play(&list[m as usize]);
        }
        replay::<R>(&g, &mut |sample| {
            count += 1;
            assert!(!has_capture(&sample.pos));
            assert!(!side_has_capture(&sample.pos, sample.pos.side().flip()));
            assert!(sample.result <= 2);
            assert!(sides.contains(&sample.pos.side()));
        })
        .unwrap();
        assert!(count > 0, "{}: quiet positions", R::NAME);
        // A side left without pieces lost.
        if pos.pieces(Color::White) == 0 {
            assert_eq!(g.result, 0);
        }
        if pos.pieces(Color::Black) == 0 {
            assert_eq!(g.result, 2);
        }
        assert_eq!(pos.key(), g.final_key);
    }
}

#[test]
fn selfplay_games_replay_into_legal_quiet_positions() {
    check_selfplay::<International>();
    check_selfplay::<English>();
    check_selfplay::<Turkish>();
    check_selfplay::<Russian>();
}

#[test]
fn selfplay_files_resume_to_the_same_games() {
    let dir = std::env::temp_dir().join(format!("kondavo-selfplay-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let whole = dir.join("whole.kdsp").to_string_lossy().into_owned();
    let part = dir.join("part.kdsp").to_string_lossy().into_owned();
    let _ = std::fs::remove_file(&whole);
    let _ = std::fs::remove_file(&part);
    run_selfplay::<English>(&opts(&whole, 6), &mut |_| {}).unwrap();
    run_selfplay::<English>(&opts(&part, 4), &mut |_| {}).unwrap();
    // An existing file without --resume is refused.
    assert!(run_selfplay::<English>(&opts(&part, 6), &mut |_| {})
        .unwrap_err()
        .contains("--resume"));
    // A torn last record (killed run) is cut off on resume.
    let mut bytes = std::fs::read(&part).unwrap();
    bytes.extend_from_slice(&[0xA5, 40, 0, 1]);
    std::fs::write(&part, &bytes).unwrap();
    let mut o = opts(&part, 6);
    o.resume = true;
    run_selfplay::<English>(&o, &mut |_| {}).unwrap();
    let a = std::fs::read(&whole).unwrap();
    let b = std::fs::read(&part).unwrap();
    let (ga, _) = read_games::<English>(&a).unwrap();
    let (gb, _) = read_games::<English>(&b).unwrap();
    assert_eq!(ga.len(), 6);
    assert_eq!(ga, gb, "a resumed run writes the same games");
    assert_eq!(a, b);
    // Another variant's reader refuses the file.
    assert!(read_games::<Italian>(&a).is_err());
    let _ = std::fs::remove_dir_all(&dir);
}

/// A weights file of format 1 (layout 1: the small windows and seven dense
/// terms, every pair stored) reads into the current layout with the big
/// windows and the king term at zero, and scores as it did.
#[test]
fn format_one_weights_files_still_read() {
    type G = <English as Rules>::Geo;
    let lay = layout::<G>();
    let mut w = random_weights::<English>(5);
    for p in &mut w[lay.big_base()..lay.dense_base()] {
        *p = [0.0; 2];
    }
    for p in &mut w[lay.dense_base() + Dense::HasKing as usize..] {
        *p = [0.0; 2];
    }
    let l = Learned::from_float::<G>("english", &w, 90.0, "old").unwrap();
    let pairs = l.to_float();
    let q = |x: f32| ((x * UNIT as f32).round() as i16).to_le_bytes();
    let mut b = Vec::new();
    b.extend_from_slice(b"KDVW");
    b.extend_from_slice(&1u32.to_le_bytes());
    b.extend_from_slice(&1u32.to_le_bytes());
    b.push(7);
    b.extend_from_slice(b"english");
    for n in [lay.windows.len(), ENTRIES, 7] {
        b.extend_from_slice(&(n as u32).to_le_bytes());
    }
    b.extend_from_slice(&90f32.to_le_bytes());
    b.extend_from_slice(&3u16.to_le_bytes());
    b.extend_from_slice(b"old");
    let old = pairs[..lay.big_base()]
        .iter()
        .chain(&pairs[lay.dense_base()..lay.dense_base() + 7]);
    for p in old {
        b.extend_from_slice(&q(p[0]));
        b.extend_from_slice(&q(p[1]));
    }
    let b = with_checksum(b);
    let back = Learned::from_bytes::<English>(&b).unwrap();
    assert_same_weights::<English>(&back, &l, 9);
    assert_eq!(back.description, "old");
    // A format 1 file that says layout 2 is refused.
    let mut wrong = b.clone();
    wrong[8] = 2;
    assert!(Learned::from_bytes::<English>(&wrong)
        .unwrap_err()
        .contains("layout"));
}

/// A weights file of format 2 (layout 2: no king windows, five counts in
/// its header) reads with the king windows at zero and scores as written.
#[test]
fn format_two_weights_files_still_read() {
    type G = <English as Rules>::Geo;
    let lay = layout::<G>();
    let mut w = random_weights::<English>(6);
    for p in &mut w[lay.king_base()..lay.dense_base()] {
        *p = [0.0; 2];
    }
    // Layout 2's eight dense terms.
    for p in &mut w[lay.dense_base() + 8..] {
        *p = [0.0; 2];
    }
    // Some zero pairs, so that the file has gaps to skip.
    for p in w.iter_mut().step_by(3) {
        *p = [0.0; 2];
    }
    let l = Learned::from_float::<G>("english", &w, 90.0, "two").unwrap();
    let pairs = l.to_float();
    let q = |x: f32| ((x * UNIT as f32).round() as i16).to_le_bytes();
    let mut b = Vec::new();
    b.extend_from_slice(b"KDVW");
    b.extend_from_slice(&2u32.to_le_bytes());
    b.extend_from_slice(&2u32.to_le_bytes());
    b.push(7);
    b.extend_from_slice(b"english");
    for n in [lay.windows.len(), ENTRIES, lay.big.len(), BIG_ENTRIES, 8] {
        b.extend_from_slice(&(n as u32).to_le_bytes());
    }
    b.extend_from_slice(&90f32.to_le_bytes());
    b.extend_from_slice(&3u16.to_le_bytes());
    b.extend_from_slice(b"two");
    let old: Vec<[f32; 2]> = pairs[..lay.king_base()]
        .iter()
        .chain(&pairs[lay.dense_base()..lay.dense_base() + 8])
        .copied()
        .collect();
    let stored = old.iter().filter(|p| **p != [0.0; 2]).count() as u32;
    b.extend_from_slice(&stored.to_le_bytes());
    let mut gap = 0u64;
    for p in &old {
        if *p == [0.0; 2] {
            gap += 1;
            continue;
        }
        kondavo::eval::learned::push_gap(&mut b, gap);
        gap = 0;
        b.extend_from_slice(&q(p[0]));
        b.extend_from_slice(&q(p[1]));
    }
    let back = Learned::from_bytes::<English>(&with_checksum(b)).unwrap();
    assert_same_weights::<English>(&back, &l, 9);
    // Written again, it is a file of format 4 that reads the same.
    let again = Learned::from_bytes::<English>(&back.to_bytes()).unwrap();
    assert_eq!(again.to_float(), l.to_float());
    assert_eq!(&back.to_bytes()[4..12], &[4, 0, 0, 0, 4, 0, 0, 0]);
    // A format 2 file with layout 3's header is refused.
    let mut wrong = back.to_bytes();
    wrong[4] = 2;
    wrong[8] = 2;
    assert!(Learned::from_bytes::<English>(&wrong).is_err());
}

/// `train` fits the big and king windows, keeps the rare entries at zero
/// when told, and leaves every big and king window at zero with
/// `--big-windows off --king-windows off`.
#[test]
fn train_keeps_rare_or_all_big_window_entries_at_zero_when_told() {
    use kondavo::tools::train::{run_train, TrainOptions};
    let dir = std::env::temp_dir().join(format!("kondavo-bigwin-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let data = dir.join("g.kdsp").to_string_lossy().into_owned();
    run_selfplay::<English>(&opts(&data, 8), &mut |_| {}).unwrap();
    let lay = layout::<<English as Rules>::Geo>();
    let big_nonzero = |min: u32, on: bool| {
        let o = TrainOptions {
            data: vec![data.clone()],
            out: dir
                .join(format!("w{min}{on}.kdw"))
                .to_string_lossy()
                .into_owned(),
            init: None,
            valid: 0.25,
            scale: Some(100.0),
            fit: FitOptions {
                epochs: 2,
                ..FitOptions::default()
            },
            note: String::new(),
            man: None,
            big_windows: on,
            big_min_count: min,
            king_windows: on,
            king_min_count: min,
        };
        let l = run_train::<English>(&o, &mut |_| {}).unwrap();
        let w = l.to_float();
        let nonzero =
            |r: std::ops::Range<usize>| w[r].iter().filter(|p| p[0] != 0.0 || p[1] != 0.0).count();
        (
            nonzero(lay.big_base()..lay.king_base()),
            nonzero(lay.king_base()..lay.dense_base()),
        )
    };
    let (all, all_kings) = big_nonzero(0, true);
    let (common, common_kings) = big_nonzero(20, true);
    assert!(all > 0, "every entry fitted: {all} non-zero");
    assert!(common < all, "seen 20 times or more: {common} of {all}");
    assert!(
        all_kings > 0,
        "every king entry fitted: {all_kings} non-zero"
    );
    assert!(
        common_kings < all_kings,
        "king entries seen 20 times or more: {common_kings} of {all_kings}"
    );
    assert_eq!(big_nonzero(u32::MAX, true), (0, 0));
    assert_eq!(big_nonzero(0, false), (0, 0));
    std::fs::remove_dir_all(&dir).ok();
}

/// A weights file of format 3 (layout 3: eight dense terms) reads with
/// the balance and threatened king terms of layout 4 at zero, and scores
/// as written; a file of format 4 holds all of the dense terms.
#[test]
fn format_three_weights_files_read_with_layout_four_terms_at_zero() {
    type G = <International as Rules>::Geo;
    let lay = layout::<G>();
    let mut w = random_weights::<International>(7);
    for p in &mut w[lay.dense_base() + 8..] {
        *p = [0.0; 2];
    }
    let l = Learned::from_float::<G>("international", &w, 50.0, "three").unwrap();
    let four = l.to_bytes();
    assert_eq!(&four[4..12], &[4, 0, 0, 0, 4, 0, 0, 0]);
    // The dense count is the seventh count after the name.
    let at = 12 + 1 + "international".len() + 6 * 4;
    assert_eq!(four[at..at + 4], (DENSE as u32).to_le_bytes());
    // The same weights as a file of format 3: the two new terms are zero,
    // so not stored, and only the header differs.
    let mut three = four[..four.len() - 8].to_vec();
    three[4] = 3;
    three[8] = 3;
    three[at..at + 4].copy_from_slice(&8u32.to_le_bytes());
    let back = Learned::from_bytes::<International>(&with_checksum(three.clone())).unwrap();
    assert_same_weights::<International>(&back, &l, 11);
    // A file of format 4 with eight dense terms is refused.
    let mut short = three;
    short[4] = 4;
    short[8] = 4;
    assert!(Learned::from_bytes::<International>(&with_checksum(short))
        .unwrap_err()
        .contains("8 terms"));
}
