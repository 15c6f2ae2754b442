//! Endgame databases: win, loss or draw, and the distance to the end of the
//! game, for every position with few pieces, by retrograde analysis.
//!
//! One file per material signature ([`Signature`]: White's men and kings,
//! Black's men and kings) holds one byte per position with White to move,
//! in the order of the dense index of [`index`]. A position with Black to
//! move is the colour-flipped position ([`flip`]: board turned 180 degrees,
//! colours exchanged) with White to move, so only one side to move is
//! stored.
//!
//! Values are exact game-theoretic values under the variant's move rules:
//! captures are compulsory (the move generator decides which), a side with
//! no piece or no legal move has lost, and repetition is a draw. The N-move
//! and endgame draw rules are not part of the values. The distance is in
//! plies to the end of the game with best play (the winner hurries, the
//! loser delays).
//!
//! - [`index`]: the numbering of the positions of a signature;
//! - [`build`]: the retrograde solver, signature after signature;
//! - [`file`]: the file format (header, run-length payload, checksum);
//! - [`probe`]: [`Egdb`], the tables in memory, probed by the search;
//! - [`verify`]: rechecks every stored value against its children;
//! - [`slot`]: the tables the search uses, per variant.

pub mod build;
pub mod file;
pub mod index;
pub mod probe;
pub mod slot;
pub mod verify;

pub use index::{Layout, Signature, MAX_PIECES};
pub use probe::{held_pieces, Egdb};
pub use slot::{install, installed_pieces, uninstall, Slot};

use crate::geometry::{bit_index, Bitboard, Geometry};
use crate::movegen::{generate, MoveList};
use crate::position::Position;
use crate::rules::{Color, Rules};

/// The value of a position for the side to move.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Wdl {
    /// The side to move wins.
    Win,
    /// Neither side can force a win.
    Draw,
    /// The side to move loses.
    Loss,
}

impl Wdl {
    /// The value for the other side.
    pub fn opposite(self) -> Wdl {
        match self {
            Wdl::Win => Wdl::Loss,
            Wdl::Draw => Wdl::Draw,
            Wdl::Loss => Wdl::Win,
        }
    }

    /// `win`, `draw` or `loss`.
    pub fn name(self) -> &'static str {
        match self {
            Wdl::Win => "win",
            Wdl::Draw => "draw",
            Wdl::Loss => "loss",
        }
    }
}

impl std::fmt::Display for Wdl {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// One stored value: 0 is a draw; `b > 0` is the distance `d = b - 1` in
/// plies, a win when odd and a loss when even (the side to move wins in an
/// odd number of plies and loses in an even number). Distances past
/// [`MAX_DISTANCE`] are stored as [`MAX_DISTANCE`] (a win) or
/// `MAX_DISTANCE + 1` (a loss): the result stays exact, the distance is then
/// a lower bound.
pub type Value = u8;

/// The draw value.
pub const DRAW: Value = 0;

/// The largest distance a win is stored with exactly; losses go one further.
pub const MAX_DISTANCE: u32 = 253;

/// The value of a win (`win == true`) or loss in `d` plies; `d` must be odd
/// for a win and even for a loss.
#[inline(always)]
pub fn encode(win: bool, d: u32) -> Value {
    debug_assert_eq!(d % 2 == 1, win, "a win takes an odd number of plies");
    let cap = if win { MAX_DISTANCE } else { MAX_DISTANCE + 1 };
    (d.min(cap) + 1) as Value
}

/// The result and distance of a value.
#[inline(always)]
pub fn decode(v: Value) -> (Wdl, u32) {
    match v {
        DRAW => (Wdl::Draw, 0),
        _ => {
            let d = v as u32 - 1;
            (if d % 2 == 1 { Wdl::Win } else { Wdl::Loss }, d)
        }
    }
}

/// True when the value's distance was capped (a lower bound, not exact).
#[inline(always)]
pub fn is_capped(v: Value) -> bool {
    v as u32 > MAX_DISTANCE
}

/// A value as text: `win 7`, `loss 0`, `draw`.
pub fn value_text(v: Value) -> String {
    match decode(v) {
        (Wdl::Draw, _) => "draw".to_string(),
        (w, d) => format!("{w} {d}{}", if is_capped(v) { "+" } else { "" }),
    }
}

/// The value for the side to move given its children's values (each for
/// the side to move in the child), `None` for no legal move: the smallest
/// win through a lost child, else a draw if a child is drawn, else a loss
/// after the longest win of the opponent (or at once, with no move).
#[derive(Clone, Copy, Debug, Default)]
pub struct Minimax {
    best_win: Option<u32>,
    longest_loss: Option<u32>,
    draw: bool,
}

impl Minimax {
    /// Takes one child's value into account.
    #[inline(always)]
    pub fn add(&mut self, child: Value) {
        match decode(child) {
            (Wdl::Loss, d) => self.best_win = Some(self.best_win.map_or(d + 1, |w| w.min(d + 1))),
            (Wdl::Win, d) => {
                self.longest_loss = Some(self.longest_loss.map_or(d + 1, |l| l.max(d + 1)))
            }
            (Wdl::Draw, _) => self.draw = true,
        }
    }

    /// The value of the parent.
    #[inline(always)]
    pub fn value(&self) -> Value {
        if let Some(w) = self.best_win {
            encode(true, w)
        } else if self.draw {
            DRAW
        } else {
            encode(false, self.longest_loss.unwrap_or(0))
        }
    }
}

/// Turns a board 180 degrees: square `s` goes to `NUM_SQUARES - 1 - s`. On
/// every layout of [`crate::geometry`] that is reversing the bits up to the
/// last square's bit.
#[inline(always)]
pub fn turn<G: Geometry>(b: Bitboard) -> Bitboard {
    let last = bit_index(G::bit(G::NUM_SQUARES - 1)) as u32;
    b.reverse_bits() >> (63 - last)
}

/// The colour-flipped position: the board turned 180 degrees, White's
/// pieces become Black's and the other side moves. Its value is the value
/// of `pos`.
#[inline(always)]
pub fn flip<R: Rules>(pos: &Position<R>) -> Position<R> {
    Position::from_parts(
        turn::<R::Geo>(pos.pieces(Color::Black)),
        turn::<R::Geo>(pos.pieces(Color::White)),
        turn::<R::Geo>(pos.kings()),
        pos.side().flip(),
    )
}

/// The position reflected left to right (see [`Geometry::mirror`]), the
/// same side to move. Where [`Geometry::MIRRORS`], its value is the value
/// of `pos`.
#[inline(always)]
pub fn mirror<R: Rules>(pos: &Position<R>) -> Position<R> {
    Position::from_parts(
        R::Geo::mirror(pos.pieces(Color::White)),
        R::Geo::mirror(pos.pieces(Color::Black)),
        R::Geo::mirror(pos.kings()),
        pos.side(),
    )
}

/// `pos` with White to move: itself or its flip.
#[inline(always)]
pub fn white_to_move<R: Rules>(pos: &Position<R>) -> Position<R> {
    if pos.side() == Color::White {
        *pos
    } else {
        flip(pos)
    }
}

/// The value of `pos` from its children's values, each given by `lookup`
/// (a child in any side to move; `None` stops with `None`).
pub fn value_from_children<R: Rules>(
    pos: &Position<R>,
    list: &mut MoveList,
    mut lookup: impl FnMut(&Position<R>) -> Option<Value>,
) -> Option<Value> {
    generate(pos, list);
    let mut mm = Minimax::default();
    for mv in list.iter() {
        mm.add(lookup(&pos.played(mv))?);
    }
    Some(mm.value())
}

/// The variant's directory under a database directory.
pub fn variant_dir<R: Rules>(dir: &std::path::Path) -> std::path::PathBuf {
    dir.join(R::NAME)
}

/// The file of one signature.
pub fn table_path<R: Rules>(dir: &std::path::Path, sig: Signature) -> std::path::PathBuf {
    variant_dir::<R>(dir).join(format!("{}.egdb", sig.name()))
}

/// Checks that `dir` is a directory: an error says that it is not found,
/// that it is a file, or why it cannot be read.
pub fn check_dir(dir: &std::path::Path) -> Result<(), String> {
    match std::fs::metadata(dir) {
        Ok(m) if m.is_dir() => Ok(()),
        Ok(m) if m.is_file() => Err(format!("{} is a file, not a directory", dir.display())),
        Ok(_) => Err(format!("{} is not a directory", dir.display())),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Err(format!(
            "endgame database directory {} not found",
            dir.display()
        )),
        Err(e) => Err(format!("cannot read {}: {e}", dir.display())),
    }
}
