//! Evaluation for Spanish draughts.

use super::learned::{Slot, Start};
use super::{evaluate_with, flying8_endgame, Evaluate};
use crate::position::Position;
use crate::rules::Spanish;

/// Generation 0: as Brazilian (flying kings, worth two and a half men).
const START: Start = Start {
    man: 100,
    king: 250,
    advance_open: [0, 1, 2, 4, 6, 9, 14, 0, 0, 0],
    advance_end: [0, 3, 7, 12, 18, 26, 36, 0, 0, 0],
    centre: 6,
    runaway: 40,
    king_mobility: 2,
};

/// The learned weights in use.
static LEARNED: Slot = Slot::new();

/// The endgame databases in use.
static EGDB: crate::egdb::Slot<Spanish> = crate::egdb::Slot::new();

impl Evaluate for Spanish {
    const START: Start = START;

    fn slot() -> &'static Slot {
        &LEARNED
    }

    fn egdb() -> &'static crate::egdb::Slot<Self> {
        &EGDB
    }

    fn evaluate(pos: &Position<Self>) -> i32 {
        evaluate_with(pos, flying8_endgame)
    }
}
