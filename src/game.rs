//! A game in progress: the position, its history, and the end and draw
//! rules (no pieces or no moves, threefold repetition, the variant's N-move
//! rule), for the search and the protocol to use.

use crate::movegen::{generate, Move, MoveList};
use crate::position::Position;
use crate::rules::{Color, Rules};

/// Why a game ended in a draw.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DrawReason {
    /// The same position (pieces and side to move) for the third time.
    Repetition,
    /// The variant's N-move rule: N moves by each side with no capture and
    /// no man moved.
    MoveRule,
}

/// How a game ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// This side won: the other has no pieces or no legal move.
    Win(Color),
    /// Drawn by rule.
    Draw(DrawReason),
}

/// A game: the current position and what the draw rules need to know.
#[derive(Clone, Debug)]
pub struct Game<R: Rules> {
    pos: Position<R>,
    /// Keys of earlier positions, oldest first.
    history: Vec<u64>,
    /// Plies since the last capture or man move.
    reversible: u32,
    moves: Vec<Move>,
}

impl<R: Rules> Default for Game<R> {
    fn default() -> Self {
        Self::new(Position::start())
    }
}

impl<R: Rules> Game<R> {
    /// A game starting from `pos`.
    pub fn new(pos: Position<R>) -> Self {
        Game {
            pos,
            history: Vec::new(),
            reversible: 0,
            moves: Vec::new(),
        }
    }

    /// The current position.
    pub fn position(&self) -> &Position<R> {
        &self.pos
    }

    /// Moves played since the start.
    pub fn moves(&self) -> &[Move] {
        &self.moves
    }

    /// Keys of the positions before the current one, oldest first.
    pub fn history(&self) -> &[u64] {
        &self.history
    }

    /// Plies since the last capture or man move.
    pub fn reversible_plies(&self) -> u32 {
        self.reversible
    }

    /// Plays a legal move (the caller has checked it is legal).
    pub fn play(&mut self, mv: &Move) {
        if self.pos.is_irreversible(mv) {
            self.reversible = 0;
        } else {
            self.reversible += 1;
        }
        self.history.push(self.pos.key());
        self.pos.play(mv);
        self.moves.push(*mv);
    }

    /// How many times the current position has occurred, this one included.
    pub fn repetitions(&self) -> usize {
        let key = self.pos.key();
        let window = (self.reversible as usize).min(self.history.len());
        1 + self.history[self.history.len() - window..]
            .iter()
            .rev()
            .skip(1)
            .step_by(2)
            .filter(|&&k| k == key)
            .count()
    }

    /// The outcome if the game is over, else `None`.
    pub fn outcome(&self) -> Option<Outcome> {
        let mut list = MoveList::new();
        generate(&self.pos, &mut list);
        if list.is_empty() {
            return Some(Outcome::Win(self.pos.side().flip()));
        }
        if self.repetitions() >= 3 {
            return Some(Outcome::Draw(DrawReason::Repetition));
        }
        if let Some(n) = R::DRAW_MOVES {
            if self.reversible >= 2 * n {
                return Some(Outcome::Draw(DrawReason::MoveRule));
            }
        }
        None
    }
}
