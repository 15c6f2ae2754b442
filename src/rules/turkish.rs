//! Turkish draughts (dama).
//!
//! Sources: `shared/RULES.md`; `shared/reference/perft.md` §9 (English
//! Wikipedia "Turkish draughts", Sanavesa/kish `RULES.md`, iggamecenter.com,
//! draughts.github.io).
//!
//! # Promotion in the middle of a capture
//!
//! Sources disagree about a man that reaches the far row and could still
//! jump sideways. Older English Wikipedia text says promotion happens "at
//! the end of the move"; kish `RULES.md` §7.2 says the man completes the
//! sequence as a man and is crowned at the end; draughts.github.io and later
//! Wikipedia wording say it "continues jumping" without saying as what. The
//! FMJD / Turkish federation text was not found. We follow RULES.md, which
//! takes the reading of the two public implementations that agree on the
//! published perft (kish 1.1.7, pydraughts 0.6.7): **the man finishes the
//! chain as a man (sideways jumps) and is crowned if it ends on the far
//! row** ([`MidCapturePromotion::PassThrough`]). A test in
//! `tests/rules_turkish.rs` pins this down.

use super::{start_rows, Color, MidCapturePromotion, Numbering, Precedence, Rules};
use crate::geometry::{Bitboard, Dir, Geometry, Ortho8};

/// Turkish draughts: all 64 squares, orthogonal moves, flying kings, captured
/// pieces removed as they are jumped.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Turkish;

impl Rules for Turkish {
    /// All 64 squares; pieces move along ranks and files.
    type Geo = Ortho8;
    const NAME: &'static str = "turkish";
    /// PDN 3.0 GameType 30.
    const GAME_TYPE: &'static str = "30,W,8,8,A0,0";
    // White moves first: the default.
    /// 16 men each (ranks 2-3 and 6-7).
    const MEN_PER_SIDE: u32 = 16;
    // Men move one square forward or sideways and capture forward or
    // sideways, never backward (all sources): see `man_move_dirs` below,
    // `MEN_CAPTURE_BACKWARD = false`.
    /// Kings fly along ranks and files and capture from a distance.
    const FLYING_KINGS: bool = true;
    /// The capture taking the most pieces is compulsory; men and kings count
    /// the same.
    const PRECEDENCE: Precedence = Precedence::Quantity;
    /// See the module documentation: finish as a man, crowned at the end.
    const MID_CAPTURE_PROMOTION: MidCapturePromotion = MidCapturePromotion::PassThrough;
    /// Captured pieces are removed one by one as they are jumped, so their
    /// squares can be crossed again (all sources agree).
    const IMMEDIATE_REMOVAL: bool = true;
    /// A king never turns 180 degrees between two jumps (all sources; RULES.md
    /// federation).
    const NO_180_TURN: bool = true;
    /// The published Turkish perft (kish) counts a straight-on continuation
    /// once per landing square when duplicates are kept.
    const KEEP_DUPS_EACH_LANDING: bool = true;
    /// No N-move rule is required (RULES.md table).
    const DRAW_MOVES: Option<u32> = None;
    /// Algebraic a1..h8 over all 64 squares.
    const NUMBERING: Numbering = Numbering::Algebraic;

    /// Forward (up for White) and sideways.
    #[inline(always)]
    fn man_move_dirs(c: Color) -> &'static [Dir] {
        match c {
            Color::White => &[0, 1, 3],
            Color::Black => &[2, 1, 3],
        }
    }

    /// 16 men each: White on ranks 2 and 3, Black on ranks 6 and 7; the back
    /// ranks start empty.
    fn start_men() -> (Bitboard, Bitboard) {
        let (w3, b3) = start_rows::<Ortho8>(3);
        (w3 & !Ortho8::BOTTOM_ROW, b3 & !Ortho8::TOP_ROW)
    }
}
