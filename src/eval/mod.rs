//! Evaluation: one file per variant behind the [`Evaluate`] trait.
//!
//! Scores are in centi-men (a man is 100) from the side to move's point of
//! view. Every variant scores a position with its learned weights
//! ([`learned`]), then applies its own endgame knowledge in its file; each
//! variant's file also holds its generation 0 ([`learned::Start`]), the
//! weights a fresh training run starts from.

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
    /// Generation 0 of this variant's learned weights.
    const START: learned::Start;
    /// Static score of `pos` in centi-men for the side to move.
    fn evaluate(pos: &Position<Self>) -> i32;
    /// Where this variant's learned weights live.
    fn slot() -> &'static learned::Slot;
    /// Where this variant's endgame databases live while the search uses
    /// them.
    fn egdb() -> &'static crate::egdb::Slot<Self>;
}

/// Masks a geometry's evaluation needs, built once.
#[derive(Debug)]
pub struct Masks {
    /// Central squares.
    pub centre: Bitboard,
    /// For each square bit and colour: squares in front of it (the cone a
    /// man must cross to promote) from which an enemy piece could stop it.
    pub cone: [[Bitboard; 64]; 2],
    /// The long diagonal (a1 to the far corner) on diagonal boards.
    pub long_diagonal: Bitboard,
    /// For each colour, the half of the board nearer the opponent.
    pub far_half: [Bitboard; 2],
    /// For each colour, bit planes of the relative rank (0 = own back
    /// rank): plane `k` holds the squares whose relative rank has bit `k`.
    pub rank_bits: [[Bitboard; 4]; 2],
    /// Bit planes of the file: plane `k` holds the squares whose file
    /// (0 = the left edge as White sees it) has bit `k`.
    pub file_bits: [Bitboard; 4],
}

impl Masks {
    /// Builds the masks of geometry `G`.
    pub fn new<G: Geometry>() -> Masks {
        let (w, h) = (G::WIDTH, G::HEIGHT);
        let mut m = Masks {
            centre: 0,
            cone: [[0; 64]; 2],
            long_diagonal: 0,
            far_half: [0; 2],
            rank_bits: [[0; 4]; 2],
            file_bits: [0; 4],
        };
        for s in 0..G::NUM_SQUARES {
            let b = G::bit(s);
            let (f, r) = G::coords(s);
            if f >= 2 && f + 2 < w && r >= 2 && r + 2 < h {
                m.centre |= b;
            }
            if G::DIAGONAL && f == r {
                m.long_diagonal |= b;
            }
            for k in 0..4 {
                if f >> k & 1 == 1 {
                    m.file_bits[k] |= b;
                }
            }
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

/// Empty squares the `kings` can move to (one step for short kings).
pub fn king_mobility<R: Rules>(kings: Bitboard, empty: Bitboard) -> i32 {
    king_moves_into::<R>(kings, empty, 0).0
}

/// The moves of `kings` to empty squares, counted square by square (one
/// step for short kings): all of them, and those onto `denied` squares.
#[inline]
pub fn king_moves_into<R: Rules>(kings: Bitboard, empty: Bitboard, denied: Bitboard) -> (i32, i32) {
    let (mut all, mut into) = (0, 0);
    for k in Bits(kings) {
        for d in 0..4 {
            let mut sq = R::Geo::step(k, d) & empty;
            while sq != 0 {
                all += 1;
                into += (sq & denied != 0) as i32;
                if !R::FLYING_KINGS {
                    break;
                }
                sq = R::Geo::step(sq, d) & empty;
            }
        }
    }
    (all, into)
}

/// The empty squares where a man of `c` would capture an enemy king that
/// stepped onto them: next to one of `c`'s men in a direction it captures
/// in, with an empty square beyond (none where men cannot take kings).
#[inline]
pub fn man_threats<R: Rules>(men: Bitboard, empty: Bitboard, c: Color) -> Bitboard {
    if !R::MEN_CAPTURE_KINGS {
        return 0;
    }
    let mut t = 0;
    for &d in R::man_capture_dirs(c) {
        t |= R::Geo::step(men, d) & R::Geo::step(empty, crate::geometry::opposite(d));
    }
    t & empty
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

/// The evaluation of every variant: the learned score, then the variant's
/// endgame knowledge `endgame` (a function of the position, the score so far
/// from White's point of view, and the masks).
pub fn evaluate_with<R: Evaluate>(
    pos: &Position<R>,
    endgame: fn(&Position<R>, i32, &Masks) -> i32,
) -> i32 {
    let s = R::slot().get::<R>().white_score(pos);
    for_side_to_move(pos, endgame(pos, s, masks::<R::Geo>()))
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
