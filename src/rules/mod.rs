//! The rules trait and the seven rule sets, one file each.
//!
//! A rule set is a zero-sized type implementing [`Rules`]: associated
//! constants say how it differs from the defaults, so each variant's file
//! reads as its rule book. Move generation, the position type and notation
//! are generic over `R: Rules` and monomorphised per variant.

use crate::geometry::{Bitboard, Dir, Geometry};

mod brazilian;
mod english;
mod international;
mod italian;
mod russian;
mod spanish;
mod turkish;

pub use brazilian::Brazilian;
pub use english::English;
pub use international::International;
pub use italian::Italian;
pub use russian::Russian;
pub use spanish::Spanish;
pub use turkish::Turkish;

/// A side: White (light) or Black (dark).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Color {
    /// The light pieces; they start at the bottom of the board.
    White = 0,
    /// The dark pieces; they start at the top of the board.
    Black = 1,
}

impl Color {
    /// The other side.
    #[inline(always)]
    pub const fn flip(self) -> Color {
        match self {
            Color::White => Color::Black,
            Color::Black => Color::White,
        }
    }

    /// 0 for White, 1 for Black.
    #[inline(always)]
    pub const fn index(self) -> usize {
        self as usize
    }

    /// `W` or `B`, as in FEN.
    pub const fn letter(self) -> char {
        match self {
            Color::White => 'W',
            Color::Black => 'B',
        }
    }
}

/// Which capture a player must choose when several are possible.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Precedence {
    /// Any capture (the chain must still be completed).
    Free,
    /// The capture taking the most pieces (men and kings count one each).
    Quantity,
    /// Most pieces, then most kings among them.
    QuantityThenKings,
    /// Italian order: most pieces; then capture with a king; then most
    /// kings; then the capture meeting a king earliest.
    Italian,
}

/// What happens to a man that reaches the far row in the middle of a capture.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MidCapturePromotion {
    /// It is promoted and the move ends there, even if it could jump on.
    EndsMove,
    /// It goes on capturing as a man; it is crowned only if the move ends
    /// on the far row.
    PassThrough,
    /// It is crowned at once and goes on capturing as a king.
    ContinueAsKing,
}

/// How squares are written in move text and FEN.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Numbering {
    /// Numbers from the top-left playable square as White sees the board,
    /// left to right, top to bottom (English, International).
    TopLeft,
    /// Board turned so the lower-right corner is playable; numbers from
    /// Black's corner, left to right, top to bottom (Italian).
    TurnedTopLeft,
    /// Board turned as Italian; numbers from White's lower-right corner,
    /// right to left, bottom to top (Spanish).
    TurnedBottomRight,
    /// Chess-like coordinates `a1`..`h8`, a1 at White's lower left.
    Algebraic,
}

/// One variant's rules. See each implementor's file for its sources.
pub trait Rules: Copy + Default + Send + Sync + std::fmt::Debug + 'static {
    /// The board.
    type Geo: Geometry;

    /// Canonical lower-case name (`international`, `english`, ...).
    const NAME: &'static str;
    /// PDN 3.0 `GameType` tag value.
    const GAME_TYPE: &'static str;
    /// Side that moves first from the start position.
    const FIRST_TO_MOVE: Color = Color::White;
    /// Rows of men each side starts with (diagonal boards).
    const START_ROWS: usize = 3;
    /// Men each side starts with.
    const MEN_PER_SIDE: u32 = (Self::START_ROWS * Self::Geo::WIDTH / 2) as u32;

    /// Men capture backwards as well as forwards.
    const MEN_CAPTURE_BACKWARD: bool = false;
    /// Men may capture kings (false only in Italian).
    const MEN_CAPTURE_KINGS: bool = true;
    /// Kings move and capture at any distance.
    const FLYING_KINGS: bool = false;
    /// Which capture must be chosen.
    const PRECEDENCE: Precedence = Precedence::Free;
    /// Promotion of a man reaching the far row during a capture.
    const MID_CAPTURE_PROMOTION: MidCapturePromotion = MidCapturePromotion::EndsMove;
    /// Captured pieces leave the board one by one as they are jumped
    /// (Turkish) instead of at the end of the move.
    const IMMEDIATE_REMOVAL: bool = false;
    /// A king may not reverse direction (turn 180 degrees) between two
    /// jumps of one capture.
    const NO_180_TURN: bool = false;

    /// Perft convention when duplicate routes are kept: a flying king that
    /// captures, lands, and captures again straight on along the same line
    /// counts one route per landing square when true (kish, whose numbers
    /// are the published Turkish perft), one route in all when false (dctl,
    /// the source of the other variants' tables). It changes nothing else.
    const KEEP_DUPS_EACH_LANDING: bool = false;

    /// N-move rule: the game is drawn after this many moves by each side
    /// with no capture and no man moved; `None` when the variant has none.
    const DRAW_MOVES: Option<u32>;

    /// Extra draw rule for small endgames: given the men and kings of the
    /// two sides (White's, then Black's), the number of moves each side may
    /// make after the last capture before the game is drawn. None by
    /// default.
    #[inline(always)]
    fn endgame_draw_moves(_white: (u32, u32), _black: (u32, u32)) -> Option<u32> {
        None
    }

    /// The name of the rule behind [`Rules::endgame_draw_moves`], for game
    /// records.
    const ENDGAME_RULE: &'static str = "endgame rule";

    /// How squares are written.
    const NUMBERING: Numbering;
    /// Separator between squares of a capture in move text.
    const CAPTURE_SEPARATOR: char = 'x';
    /// Numeric square numbers accepted in FEN for an algebraic variant
    /// (Russian and Brazilian FENs from other tools use English numbers).
    const ACCEPTS_NUMERIC_FEN: bool = false;

    /// Directions a man of `c` moves in (without capturing); "forward".
    #[inline(always)]
    fn man_move_dirs(c: Color) -> &'static [Dir] {
        // Diagonal boards: up-left and up-right for White, down for Black.
        match c {
            Color::White => &[0, 1],
            Color::Black => &[2, 3],
        }
    }

    /// Directions a man of `c` captures in.
    #[inline(always)]
    fn man_capture_dirs(c: Color) -> &'static [Dir] {
        if Self::MEN_CAPTURE_BACKWARD {
            &[0, 1, 2, 3]
        } else {
            Self::man_move_dirs(c)
        }
    }

    /// Squares where a man of `c` is promoted.
    #[inline(always)]
    fn promotion_row(c: Color) -> Bitboard {
        match c {
            Color::White => Self::Geo::TOP_ROW,
            Color::Black => Self::Geo::BOTTOM_ROW,
        }
    }

    /// Squares (bitboards for White and Black men) of the start position.
    fn start_men() -> (Bitboard, Bitboard) {
        start_rows::<Self::Geo>(Self::START_ROWS)
    }
}

/// The first `n` rows from each side's edge: Black at the top, White at the
/// bottom, returned as (white, black).
pub fn start_rows<G: Geometry>(n: usize) -> (Bitboard, Bitboard) {
    let (mut white, mut black) = (0, 0);
    for s in 0..G::NUM_SQUARES {
        let (_, rank) = G::coords(s);
        if rank < n {
            white |= G::bit(s);
        } else if rank >= G::HEIGHT - n {
            black |= G::bit(s);
        }
    }
    (white, black)
}
