//! Evaluation: one file per variant behind the [`Evaluate`] trait.
//!
//! Scores are in centi-men (a man is 100) from the side to move's point of
//! view. This module holds the terms the variants share, computed for White
//! and mirrored for Black, with each variant choosing its own [`Weights`]
//! and adding its own terms (endgame knowledge, Turkish and short-king
//! specifics) in its file.

mod brazilian;
mod english;
mod international;
mod italian;
pub mod learned;
mod russian;
mod spanish;
mod turkish;

use std::sync::OnceLock;

use crate::geometry::{Bitboard, Bits, Geometry};
use crate::position::Position;
use crate::rules::{Color, Rules};

/// A rule set with an evaluation function.
pub trait Evaluate: Rules {
    /// Weights of the shared terms for this variant.
    const WEIGHTS: Weights;
    /// Static score of `pos` in centi-men for the side to move.
    fn evaluate(pos: &Position<Self>) -> i32;
    /// Where this variant's learned weights live.
    fn slot() -> &'static learned::Slot;
    /// Where this variant's endgame databases live while the search uses
    /// them.
    fn egdb() -> &'static crate::egdb::Slot<Self>;
}

/// Weights of the shared terms.
#[derive(Clone, Copy, Debug)]
pub struct Weights {
    /// Value of a man.
    pub man: i32,
    /// Value of a king.
    pub king: i32,
    /// Bonus per man by relative rank (0 = own back rank), in the opening.
    pub advance_open: [i32; 10],
    /// The same in the endgame.
    pub advance_end: [i32; 10],
    /// Per man on a central square.
    pub centre: i32,
    /// Per man on its own back rank while the opponent still has men.
    pub back_rank: i32,
    /// Per man with a piece of its own behind it on each back diagonal (or
    /// the edge): hard to take.
    pub supported: i32,
    /// Per square a king can move to.
    pub king_mobility: i32,
    /// Per man with no enemy piece able to stop it, by rank (relative).
    pub runaway: i32,
    /// Penalty per man of difference between the two wings.
    pub balance: i32,
    /// Per man able to move (tempo / not blocked).
    pub man_mobility: i32,
}

/// Masks a geometry's evaluation needs, built once.
#[derive(Debug)]
pub struct Masks {
    /// Central squares.
    pub centre: Bitboard,
    /// Left half (files below the middle) and right half.
    pub left: Bitboard,
    /// Right half.
    pub right: Bitboard,
    /// For each square bit and colour: squares in front of it (the cone a
    /// man must cross to promote) from which an enemy piece could stop it.
    pub cone: [[Bitboard; 64]; 2],
    /// The long diagonal (a1 to the far corner) on diagonal boards.
    pub long_diagonal: Bitboard,
    /// Rank (0 = bottom) of each bit index.
    pub rank_of: [u8; 64],
    /// For each direction, the squares whose step that way leaves the
    /// board.
    pub off_board: [Bitboard; 4],
    /// For each colour, the half of the board nearer the opponent.
    pub far_half: [Bitboard; 2],
    /// For each colour, bit planes of the relative rank (0 = own back
    /// rank): plane `k` holds the squares whose relative rank has bit `k`.
    pub rank_bits: [[Bitboard; 4]; 2],
}

impl Masks {
    /// Builds the masks of geometry `G`.
    pub fn new<G: Geometry>() -> Masks {
        let (w, h) = (G::WIDTH, G::HEIGHT);
        let mut m = Masks {
            centre: 0,
            left: 0,
            right: 0,
            cone: [[0; 64]; 2],
            long_diagonal: 0,
            rank_of: [0; 64],
            off_board: [0; 4],
            far_half: [0; 2],
            rank_bits: [[0; 4]; 2],
        };
        for s in 0..G::NUM_SQUARES {
            let b = G::bit(s);
            let (f, r) = G::coords(s);
            if f >= 2 && f + 2 < w && r >= 2 && r + 2 < h {
                m.centre |= b;
            }
            if f < w / 2 {
                m.left |= b;
            } else {
                m.right |= b;
            }
            if G::DIAGONAL && f == r {
                m.long_diagonal |= b;
            }
            m.rank_of[b.trailing_zeros() as usize] = r as u8;
            for (c, rel) in [(0, r), (1, h - 1 - r)] {
                if 2 * rel >= h {
                    m.far_half[c] |= b;
                }
                for k in 0..4 {
                    if rel >> k & 1 == 1 {
                        m.rank_bits[c][k] |= b;
                    }
                }
            }
            for d in 0..4 {
                if G::step(b, d) & G::SQUARES == 0 {
                    m.off_board[d] |= b;
                }
            }
        }
        for s in 0..G::NUM_SQUARES {
            let b = G::bit(s);
            let bi = b.trailing_zeros() as usize;
            let (f, r) = G::coords(s);
            for t in 0..G::NUM_SQUARES {
                let (tf, tr) = G::coords(t);
                let df = tf.abs_diff(f);
                // White: squares ahead within the widening cone (one extra
                // file of margin so a piece beside the path counts too).
                if tr > r && df <= tr - r + 1 {
                    m.cone[0][bi] |= G::bit(t);
                }
                if tr < r && df <= r - tr + 1 {
                    m.cone[1][bi] |= G::bit(t);
                }
            }
        }
        m
    }
}

/// Shared positional terms (material apart: see [`material`]) for White
/// minus Black, with the game phase blending the opening and endgame
/// advancement tables.
pub fn shared_terms<R: Evaluate>(pos: &Position<R>, masks: &Masks) -> i32 {
    let phase = learned::phase(pos);
    side_terms::<R, true>(pos, masks, phase) - side_terms::<R, false>(pos, masks, phase)
}

/// The shared terms of White (`WHITE`) or Black; the colour is a constant
/// so that every colour test folds away.
fn side_terms<R: Evaluate, const WHITE: bool>(pos: &Position<R>, masks: &Masks, phase: i32) -> i32 {
    let w = &R::WEIGHTS;
    let c = if WHITE { Color::White } else { Color::Black };
    let g_h = R::Geo::HEIGHT;
    let men = pos.men(c);
    let kings = pos.kings_of(c);
    let them = pos.pieces(c.flip());
    let their_men = pos.men(c.flip());
    let empty = pos.empty();
    let mut s = 0;

    // Advancement by relative rank, blended by phase: the per-rank tables
    // as bit planes built at compile time, so each is a few popcounts.
    let open = weighted_count(
        men,
        &const { rank_planes::<R>(&R::WEIGHTS.advance_open, WHITE) },
    );
    let end = weighted_count(
        men,
        &const { rank_planes::<R>(&R::WEIGHTS.advance_end, WHITE) },
    );
    s += (open * (256 - phase) + end * phase) / 256;

    s += w.centre * (men & masks.centre).count_ones() as i32;
    if their_men != 0 {
        let back = if c == Color::White {
            R::Geo::BOTTOM_ROW
        } else {
            R::Geo::TOP_ROW
        };
        s += w.back_rank * (men & back).count_ones() as i32 * (256 - phase) / 256;
    }

    // Men whose back diagonals (or the squares beside and behind, in
    // Turkish) are covered by own pieces or the board edge.
    if w.supported != 0 {
        let own_back = if c == Color::White {
            R::Geo::BOTTOM_ROW
        } else {
            R::Geo::TOP_ROW
        };
        let cover = pos.pieces(c);
        let back_dirs: &[usize] = match (R::Geo::DIAGONAL, c) {
            (true, Color::White) => &[2, 3],
            (true, Color::Black) => &[0, 1],
            (false, Color::White) => &[2],
            (false, Color::Black) => &[0],
        };
        let mut sup = men;
        for &d in back_dirs {
            sup &= shift_back::<R>(cover, d) | own_back | masks.off_board[d];
        }
        s += w.supported * sup.count_ones() as i32;
    }

    // Mobility of men (tempo: men that can still move).
    if w.man_mobility != 0 {
        let mut movable = 0;
        for &d in R::man_move_dirs(c) {
            movable |= shift_back::<R>(empty, d) & men;
        }
        s += w.man_mobility * movable.count_ones() as i32;
    }

    // King mobility.
    if w.king_mobility != 0 && kings != 0 {
        s += w.king_mobility * king_mobility::<R>(kings, empty);
    }

    // Runaway men: nothing of the enemy in the cone ahead.
    if w.runaway != 0 {
        // Only men in the opponent's half can be out of reach.
        let far_half = if c == Color::White {
            R::Geo::RANKS[g_h / 2..g_h].iter().fold(0, |a, r| a | r)
        } else {
            R::Geo::RANKS[..g_h / 2].iter().fold(0, |a, r| a | r)
        };
        for b in Bits(men & far_half) {
            let bi = b.trailing_zeros() as usize;
            if masks.cone[c.index()][bi] & them == 0 {
                let rank = R::Geo::coords(R::Geo::square(b)).1;
                let rel = if c == Color::White {
                    rank
                } else {
                    g_h - 1 - rank
                };
                s += w.runaway * (rel as i32 + 1) / g_h as i32 + w.runaway / 2;
            }
        }
    }

    // Wing balance.
    if w.balance != 0 {
        let l = (men & masks.left).count_ones() as i32;
        let r = (men & masks.right).count_ones() as i32;
        s -= w.balance * (l - r).abs() * (256 - phase) / 256;
    }
    s
}

/// Empty squares the `kings` can move to (one step for short kings).
pub fn king_mobility<R: Rules>(kings: Bitboard, empty: Bitboard) -> i32 {
    let mut n = 0;
    for k in Bits(kings) {
        for d in 0..4 {
            let mut sq = R::Geo::step(k, d) & empty;
            while sq != 0 {
                n += 1;
                if !R::FLYING_KINGS {
                    break;
                }
                sq = R::Geo::step(sq, d) & empty;
            }
        }
    }
    n
}

/// Bits of a per-rank value table (values 0..63 by relative rank) as
/// planes: plane `k` holds the squares whose value for White (`white`) or
/// Black has bit `k` set.
const fn rank_planes<R: Rules>(table: &[i32; 10], white: bool) -> [Bitboard; 6] {
    let h = R::Geo::HEIGHT;
    let mut planes = [0; 6];
    let mut r = 0;
    while r < h {
        let v = table[if white { r } else { h - 1 - r }];
        assert!(v >= 0 && v < 64, "rank values must be in 0..64");
        let mut k = 0;
        while k < 6 {
            if v >> k & 1 == 1 {
                planes[k] |= R::Geo::RANKS[r];
            }
            k += 1;
        }
        r += 1;
    }
    planes
}

/// Sum of the values of the squares of `b` in a table of [`rank_planes`].
#[inline(always)]
fn weighted_count(b: Bitboard, planes: &[Bitboard; 6]) -> i32 {
    let mut s = 0;
    for (k, &p) in planes.iter().enumerate() {
        s += ((b & p).count_ones() as i32) << k;
    }
    s
}

/// Squares `x` such that one step from `x` in direction `d` is in `b`.
#[inline(always)]
fn shift_back<R: Rules>(b: Bitboard, d: usize) -> Bitboard {
    R::Geo::step(b, d ^ 2)
}

/// The masks of geometry `G`, built on first use.
pub fn masks<G: Geometry>() -> &'static Masks {
    static DIAG8: OnceLock<Masks> = OnceLock::new();
    static DIAG10: OnceLock<Masks> = OnceLock::new();
    static ORTHO8: OnceLock<Masks> = OnceLock::new();
    let cell = match (G::DIAGONAL, G::NUM_SQUARES) {
        (true, 50) => &DIAG10,
        (true, _) => &DIAG8,
        _ => &ORTHO8,
    };
    cell.get_or_init(Masks::new::<G>)
}

/// The evaluation most variants use: the shared terms with the variant's
/// weights, a bonus of `per_piece` per piece traded off for the side ahead
/// in material, then the variant's endgame knowledge `endgame` (a function
/// of the position, the score so far from White's point of view, and the
/// masks).
pub fn evaluate_with<R: Evaluate>(
    pos: &Position<R>,
    per_piece: i32,
    endgame: fn(&Position<R>, i32, &Masks) -> i32,
) -> i32 {
    let m = masks::<R::Geo>();
    let mut s = match R::slot().get::<R>() {
        Some(l) => l.white_score(pos),
        None => {
            let w = &R::WEIGHTS;
            let lead = material(pos, w, Color::White) - material(pos, w, Color::Black);
            lead + shared_terms(pos, m) + simplify_bonus(pos, lead, per_piece)
        }
    };
    s = endgame(pos, s, m);
    for_side_to_move(pos, s)
}

/// Material of side `c` with the weights' piece values.
pub fn material<R: Rules>(pos: &Position<R>, w: &Weights, c: Color) -> i32 {
    w.man * pos.men(c).count_ones() as i32 + w.king * pos.kings_of(c).count_ones() as i32
}

/// From White's point of view to the side to move's.
#[inline(always)]
pub fn for_side_to_move<R: Rules>(pos: &Position<R>, white_score: i32) -> i32 {
    match pos.side() {
        Color::White => white_score,
        Color::Black => -white_score,
    }
}

/// Piece counts: (men, kings) of a side.
#[inline(always)]
pub fn counts<R: Rules>(pos: &Position<R>, c: Color) -> (u32, u32) {
    (pos.men(c).count_ones(), pos.kings_of(c).count_ones())
}

/// Rewards the side ahead in material for trading down: the same lead is
/// worth more with fewer pieces left.
pub fn simplify_bonus<R: Rules>(pos: &Position<R>, material_lead: i32, per_piece: i32) -> i32 {
    let pieces = pos.occupied().count_ones() as i32;
    let start = 2 * R::MEN_PER_SIDE as i32;
    material_lead.signum() * per_piece * (start - pieces).max(0)
}

/// Whether a side is down to one piece (a quick test before the lone-king
/// endgame rules count material).
#[inline(always)]
fn has_lone_piece<R: Rules>(pos: &Position<R>) -> bool {
    let single = |b: Bitboard| b != 0 && b & (b - 1) == 0;
    single(pos.pieces(Color::White)) || single(pos.pieces(Color::Black))
}

/// Scales a score towards a draw when the side ahead cannot win by force
/// with flying kings: a lone king against at most `max_strong` pieces is a
/// book draw once one of them is a king (and on 10x10 FMJD's endgame rule
/// ends it within 16 moves), so the score is divided by 16; against men
/// alone, which must still crown, by 4. Tactics that catch the lone king
/// are the search's business.
pub fn lone_king_draw<R: Rules>(pos: &Position<R>, score: i32, max_strong: u32) -> i32 {
    if !has_lone_piece(pos) {
        return score;
    }
    for c in [Color::White, Color::Black] {
        let (wm, wk) = counts(pos, c);
        let (sm, sk) = counts(pos, c.flip());
        if wm == 0 && wk == 1 && sm + sk <= max_strong {
            return if sk > 0 { score / 16 } else { score / 4 };
        }
    }
    score
}

/// Endgame knowledge for flying kings on 8x8 (Russian, Brazilian,
/// Spanish): a lone king draws against one or two kings; against three it
/// draws only while it holds the long diagonal (Petrov's triangle wins
/// otherwise), so the side with three kings is rewarded for taking the
/// diagonal and the lone king for keeping it.
pub fn flying8_endgame<R: Rules>(pos: &Position<R>, score: i32, masks: &Masks) -> i32 {
    if !has_lone_piece(pos) {
        return score;
    }
    for weak in [Color::White, Color::Black] {
        let strong = weak.flip();
        let (wm, wk) = counts(pos, weak);
        let (sm, sk) = counts(pos, strong);
        if wm != 0 || wk != 1 {
            continue;
        }
        let total = sm + sk;
        if total <= 2 {
            return score / 16;
        }
        if sm == 0 && sk == 3 {
            let weak_on = pos.kings_of(weak) & masks.long_diagonal != 0;
            let strong_on = pos.kings_of(strong) & masks.long_diagonal != 0;
            let sign = if strong == Color::White { 1 } else { -1 };
            return if weak_on {
                score / 16
            } else if strong_on {
                score + sign * 150
            } else {
                score / 2
            };
        }
    }
    score
}

/// Endgame knowledge for short kings (English, Italian): kings alone with
/// equal numbers cannot force anything.
pub fn short_king_endgame<R: Rules>(pos: &Position<R>, score: i32, _masks: &Masks) -> i32 {
    let (wm, wk) = counts(pos, Color::White);
    let (bm, bk) = counts(pos, Color::Black);
    if wm == 0 && bm == 0 && wk == bk {
        return score / 16;
    }
    score
}
