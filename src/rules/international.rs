//! International draughts (10x10, FMJD; also called Polish).
//!
//! Sources: FMJD rules (article numbers as in dctl's `international.hpp`);
//! `shared/RULES.md`; `shared/reference/perft.md` §5.

use super::{MidCapturePromotion, Numbering, Precedence, Rules};
use crate::geometry::Diag10;

/// International draughts: 10x10, flying kings, men capture backwards,
/// majority capture.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct International;

impl Rules for International {
    /// 10x10, 50 dark squares, a dark square at each player's near left.
    type Geo = Diag10;
    const NAME: &'static str = "international";
    /// PDN 3.0 GameType 20.
    const GAME_TYPE: &'static str = "20,W,10,10,N2,0";
    /// 20 men each, on four rows (art. 2.4).
    const START_ROWS: usize = 4;
    // White moves first (art. 2.5): the default.
    /// Men capture forwards and backwards (art. 4.2).
    const MEN_CAPTURE_BACKWARD: bool = true;
    /// Kings fly along diagonals and capture from a distance (art. 3.9,
    /// 4.3).
    const FLYING_KINGS: bool = true;
    /// The capture taking the most pieces is compulsory; a king counts as
    /// one piece (art. 4.13).
    const PRECEDENCE: Precedence = Precedence::Quantity;
    /// A man passing the last row during a capture stays a man; it is
    /// promoted only if the move ends there (art. 4.14; rule position
    /// `W:W15:B9,10`).
    const MID_CAPTURE_PROMOTION: MidCapturePromotion = MidCapturePromotion::PassThrough;
    /// 25 moves each with kings only, no capture and no man moved (RULES.md
    /// table, federation).
    const DRAW_MOVES: Option<u32> = Some(25);
    /// 1-50 from the top left seen from White; Black on 1-20, White on 31-50.
    const NUMBERING: Numbering = Numbering::TopLeft;

    /// FMJD art. 6.4 and 6.5: against a lone king, three pieces of which
    /// at least one is a king (three kings, two kings and a man, a king and
    /// two men) are drawn after 16 moves each; two pieces with a king (two
    /// kings, king and man) or a king against the king after 5 moves each.
    const ENDGAME_RULE: &'static str = "FMJD endgame rule";

    fn endgame_draw_moves(white: (u32, u32), black: (u32, u32)) -> Option<u32> {
        let rule = |strong: (u32, u32), weak: (u32, u32)| -> Option<u32> {
            if weak != (0, 1) || strong.1 == 0 {
                return None;
            }
            match strong.0 + strong.1 {
                3 => Some(16),
                1 | 2 => Some(5),
                _ => None,
            }
        };
        rule(white, black).or_else(|| rule(black, white))
    }
}
