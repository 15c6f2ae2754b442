//! Russian draughts (shashki), also played in Ukraine.
//!
//! Sources: `shared/seeds/002_*.txt`; `shared/RULES.md`;
//! `shared/reference/perft.md` §7 (dctl `russian.hpp`, FMJD-64 art. 4.6).

use super::{MidCapturePromotion, Numbering, Rules};
use crate::geometry::Diag8;

/// Russian draughts: flying kings, men capture backwards, free choice of
/// capture, promotion in the middle of a capture continuing as a king.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Russian;

impl Rules for Russian {
    /// 8x8, dark squares, a1 dark.
    type Geo = Diag8;
    const NAME: &'static str = "russian";
    /// PDN 3.0 GameType 25: algebraic, `:` between capture squares.
    const GAME_TYPE: &'static str = "25,W,8,8,A0,0";
    // White moves first (seed 002 "Quân sáng"): the default.
    /// Men capture forwards and backwards (seed 002 "tiến và lùi").
    const MEN_CAPTURE_BACKWARD: bool = true;
    /// Flying kings (seed 002 "Hậu ăn từ xa").
    const FLYING_KINGS: bool = true;
    // Any capture may be chosen (seed 002 "chọn nước nào cũng được"): the
    // default `Precedence::Free`; the chain must still be completed.
    /// A man reaching the last row during a capture is crowned at once and
    /// goes on capturing as a king (seed 002).
    const MID_CAPTURE_PROMOTION: MidCapturePromotion = MidCapturePromotion::ContinueAsKing;
    /// 15 moves each without a capture or a man moved (seed 002 "Hòa").
    const DRAW_MOVES: Option<u32> = Some(15);
    /// Algebraic a1..h8.
    const NUMBERING: Numbering = Numbering::Algebraic;
    /// `c3:e5:c7` (PDN GameType 25; dctl `jumpsep = ':'`).
    const CAPTURE_SEPARATOR: char = ':';
    /// Other tools write Russian FENs with English numbers (1 = b8).
    const ACCEPTS_NUMERIC_FEN: bool = true;
}
