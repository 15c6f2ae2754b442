//! Evaluation for English draughts (checkers).

use super::learned::{Slot, Start};
use super::{evaluate_with, short_king_endgame, Evaluate};
use crate::position::Position;
use crate::rules::English;

/// Generation 0: short kings, a king is worth about 1.4 men.
const START: Start = Start {
    man: 100,
    king: 140,
    advance_open: [0, 0, 1, 2, 3, 5, 8, 0, 0, 0],
    advance_end: [0, 2, 5, 8, 12, 17, 24, 0, 0, 0],
    centre: 4,
    runaway: 30,
    king_mobility: 3,
};

/// The learned weights in use.
static LEARNED: Slot = Slot::new();

/// The endgame databases in use.
static EGDB: crate::egdb::Slot<English> = crate::egdb::Slot::new();

impl Evaluate for English {
    const START: Start = START;

    fn slot() -> &'static Slot {
        &LEARNED
    }

    fn egdb() -> &'static crate::egdb::Slot<Self> {
        &EGDB
    }

    fn evaluate(pos: &Position<Self>) -> i32 {
        evaluate_with(pos, short_king_endgame)
    }
}
