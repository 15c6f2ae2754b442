//! English draughts (checkers, American checkers).
//!
//! Sources: the World Checkers/Draughts Federation rules as numbered in
//! dctl's `checkers.hpp`; `shared/RULES.md`; `shared/reference/perft.md` §2.

use super::{Color, Numbering, Rules};
use crate::geometry::Diag8;

/// English draughts: short kings, men capture forward only, free choice of
/// capture.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct English;

impl Rules for English {
    /// 8x8, 32 dark squares, a dark square at each player's near left
    /// (single corner left, double corner right).
    type Geo = Diag8;
    const NAME: &'static str = "english";
    /// PDN 3.0 GameType 21: Black first, numeric, square 1 at the top left
    /// seen from White (wiegerw/pdn `gametype.rst`).
    const GAME_TYPE: &'static str = "21,B,8,8,N1,0";
    /// Black (dark) moves first (WCDF rule 1.4; RULES.md "federation").
    const FIRST_TO_MOVE: Color = Color::Black;
    // Men move and capture diagonally forward only (rules 1.12, 1.15): the
    // defaults. Kings move one square in all four directions (1.14): the
    // default `FLYING_KINGS = false`.
    // Any capture may be chosen, but it must be completed (1.20): the
    // default `Precedence::Free`.
    // A man reaching the king row by a capture is crowned and the move ends
    // (1.19): the default `MidCapturePromotion::EndsMove`.
    /// 40 moves each without a capture or a man moved (RULES.md table,
    /// federation).
    const DRAW_MOVES: Option<u32> = Some(40);
    /// 1-32 numbered from Black's side: 1 = b8 ... 32 = g1.
    const NUMBERING: Numbering = Numbering::TopLeft;
}
