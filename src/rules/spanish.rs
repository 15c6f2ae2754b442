//! Spanish draughts (damas españolas).
//!
//! Sources: `shared/seeds/003_*.txt`; `shared/RULES.md`;
//! `shared/reference/perft.md` §4 (dctl `spanish.hpp`, realidad-simulada.es
//! numbering, mindsports and tkabber rules pages).

use super::{MidCapturePromotion, Numbering, Precedence, Rules};
use crate::geometry::Diag8;

/// Spanish draughts: flying kings, men capture forward only, most pieces then
/// most kings.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Spanish;

impl Rules for Spanish {
    /// 8x8, the board turned as in Italian (lower-right corner playable;
    /// federation, RULES.md). A mirror of the English board: only the
    /// numbering differs.
    type Geo = Diag8;
    const NAME: &'static str = "spanish";
    /// PDN 3.0 GameType 24: numeric from White's lower right.
    const GAME_TYPE: &'static str = "24,W,8,8,N1,1";
    // White moves first (seed 003 "Quân sáng"): the default.
    // Men move and capture diagonally forward only (seed 003): the defaults.
    /// Kings fly and capture from a distance (seed 003 "Hậu ăn từ xa").
    const FLYING_KINGS: bool = true;
    /// Most pieces, then most kings (seed 003: "Khi hai chuỗi ăn dài bằng
    /// nhau, bạn phải chọn chuỗi ăn được nhiều quân hậu hơn").
    const PRECEDENCE: Precedence = Precedence::QuantityThenKings;
    /// A man reaching the last row during a capture is crowned and stops
    /// (seed 003 "Quân hậu").
    const MID_CAPTURE_PROMOTION: MidCapturePromotion = MidCapturePromotion::EndsMove;
    /// 50 moves each without a capture or a man moved (seed 003 "Hòa").
    const DRAW_MOVES: Option<u32> = Some(50);
    /// 1-32 from White's lower-right corner, right to left, bottom to top;
    /// White on 1-12, Black on 21-32.
    const NUMBERING: Numbering = Numbering::TurnedBottomRight;
}
