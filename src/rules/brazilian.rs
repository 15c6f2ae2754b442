//! Brazilian draughts: International rules on the 8x8 board.
//!
//! Sources: `shared/RULES.md`; `shared/reference/perft.md` §6 (dctl defines
//! `brazilian = international`).

use super::{MidCapturePromotion, Numbering, Precedence, Rules};
use crate::geometry::Diag8;

/// Brazilian draughts: flying kings, men capture backwards, majority capture,
/// no promotion in passing.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Brazilian;

impl Rules for Brazilian {
    /// 8x8, dark squares, a1 dark.
    type Geo = Diag8;
    const NAME: &'static str = "brazilian";
    /// PDN 3.0 GameType 26: algebraic.
    const GAME_TYPE: &'static str = "26,W,8,8,A0,0";
    // White moves first: the default.
    /// Men capture backwards too (as International).
    const MEN_CAPTURE_BACKWARD: bool = true;
    /// Flying kings (as International).
    const FLYING_KINGS: bool = true;
    /// Most pieces must be taken; kings count one (as International).
    const PRECEDENCE: Precedence = Precedence::Quantity;
    /// Not promoted in passing (as International).
    const MID_CAPTURE_PROMOTION: MidCapturePromotion = MidCapturePromotion::PassThrough;
    /// 25 moves each without a capture or a man moved (RULES.md table,
    /// federation).
    const DRAW_MOVES: Option<u32> = Some(25);
    /// Algebraic a1..h8.
    const NUMBERING: Numbering = Numbering::Algebraic;
    /// Other tools write Brazilian FENs with English numbers (1 = b8).
    const ACCEPTS_NUMERIC_FEN: bool = true;
}
