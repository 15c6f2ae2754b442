//! Italian draughts (dama italiana).
//!
//! Sources: the Federazione Italiana Dama technical rules (article numbers as
//! in dctl's `italian.hpp`); `shared/seeds/000_*.txt` and `004_*.txt`;
//! `shared/RULES.md`; `shared/reference/perft.md` §3.

use super::{MidCapturePromotion, Numbering, Precedence, Rules};
use crate::geometry::Diag8;

/// Italian draughts: short kings, men capture forward only and never
/// capture kings, four-step capture precedence.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Italian;

impl Rules for Italian {
    /// 8x8, dark squares, the board turned so that the lower-right corner is
    /// dark (seed page 004: "ô góc dưới bên phải là ô tối"). The turn is a
    /// mirror image of the English board: the rules are symmetric, so only
    /// the numbering differs (see `NUMBERING`).
    type Geo = Diag8;
    const NAME: &'static str = "italian";
    /// PDN 3.0 GameType 22: White first, numeric from the top left, bottom
    /// left corner not playable.
    const GAME_TYPE: &'static str = "22,W,8,8,N2,1";
    // White moves first (seed 004): the default.
    /// Men may not capture kings (art. 5.3b; seed 000 "Quân thường không
    /// được ăn quân hậu").
    const MEN_CAPTURE_KINGS: bool = false;
    /// Precedence (art. 6.6-6.9; seed 004): (1) most pieces, (2) capture with
    /// a king, (3) most kings, (4) the capture meeting a king earliest,
    /// comparing the positions of all captured kings in order (dctl; RULES.md
    /// note).
    const PRECEDENCE: Precedence = Precedence::Italian;
    /// A man reaching the last row during a capture stops there and is
    /// crowned (seed 004 "Phong cấp").
    const MID_CAPTURE_PROMOTION: MidCapturePromotion = MidCapturePromotion::EndsMove;
    /// 50 moves each without a capture or a man moved (seed 000 "Hòa").
    const DRAW_MOVES: Option<u32> = Some(50);
    /// 1-32 from Black's corner, left to right, top to bottom, on the turned
    /// board: 1 = a8, 4 = g8, 29 = b1, 32 = h1 (seed 004).
    const NUMBERING: Numbering = Numbering::TurnedTopLeft;
}
