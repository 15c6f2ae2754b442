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
    /// The variant's N-move rule (N moves by each side with no capture and
    /// no man moved), or its endgame rule (International: FMJD 6.4-6.5).
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

/// The counters the draw rules need: plies since the last capture or man
/// move (N-move rule, repetition window) and plies since the last capture
/// (endgame rules such as FMJD 6.4).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DrawCounters {
    /// Plies since the last capture or man step forward.
    pub reversible: u32,
    /// Plies since the last capture.
    pub since_capture: u32,
}

impl DrawCounters {
    /// The counters after `mv` is played in `pos`.
    #[inline(always)]
    pub fn after<R: Rules>(self, pos: &Position<R>, mv: &Move) -> Self {
        DrawCounters {
            reversible: if pos.is_irreversible(mv) {
                0
            } else {
                self.reversible + 1
            },
            since_capture: if mv.is_capture() {
                0
            } else {
                self.since_capture + 1
            },
        }
    }

    /// Whether `pos`, reached with these counters, is drawn by the
    /// variant's N-move rule or its endgame rule.
    #[inline(always)]
    pub fn move_rule_draw<R: Rules>(self, pos: &Position<R>) -> bool {
        if let Some(n) = R::DRAW_MOVES {
            if self.reversible >= 2 * n {
                return true;
            }
        }
        let counts = |c: Color| (pos.men(c).count_ones(), pos.kings_of(c).count_ones());
        match R::endgame_draw_moves(counts(Color::White), counts(Color::Black)) {
            Some(n) => self.since_capture >= 2 * n,
            None => false,
        }
    }
}

/// A game: the current position and what the draw rules need to know.
#[derive(Clone, Debug)]
pub struct Game<R: Rules> {
    pos: Position<R>,
    /// Keys of earlier positions, oldest first.
    history: Vec<u64>,
    counters: DrawCounters,
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
            counters: DrawCounters::default(),
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

    /// Plies played since the variant's start position, or `None` when the
    /// game began elsewhere (a FEN, a position after a capture).
    pub fn plies_from_start(&self) -> Option<usize> {
        let first = self.history.first().copied().unwrap_or(self.pos.key());
        (first == Position::<R>::start().key()).then_some(self.moves.len())
    }

    /// Keys of the positions before the current one, oldest first.
    pub fn history(&self) -> &[u64] {
        &self.history
    }

    /// Plies since the last capture or man move.
    pub fn reversible_plies(&self) -> u32 {
        self.counters.reversible
    }

    /// The draw counters of the current position.
    pub fn counters(&self) -> DrawCounters {
        self.counters
    }

    /// Plays a legal move (the caller has checked it is legal).
    pub fn play(&mut self, mv: &Move) {
        self.counters = self.counters.after(&self.pos, mv);
        self.history.push(self.pos.key());
        self.pos.play(mv);
        self.moves.push(*mv);
    }

    /// How many times the current position has occurred, this one included.
    pub fn repetitions(&self) -> usize {
        let key = self.pos.key();
        let window = (self.counters.reversible as usize).min(self.history.len());
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
        if self.counters.move_rule_draw(&self.pos) {
            return Some(Outcome::Draw(DrawReason::MoveRule));
        }
        None
    }
}
