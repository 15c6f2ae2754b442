//! Evaluation for Italian draughts.

use super::learned::{Slot, Start};
use super::{evaluate_with, short_king_endgame, Evaluate};
use crate::position::Position;
use crate::rules::Italian;

/// Generation 0: short kings that men cannot capture, so a king is worth a
/// little more than in English (about 1.5 men).
const START: Start = Start {
    man: 100,
    king: 150,
    advance_open: [0, 0, 1, 2, 3, 5, 8, 0, 0, 0],
    advance_end: [0, 2, 5, 8, 12, 17, 24, 0, 0, 0],
    centre: 4,
    runaway: 30,
    king_mobility: 3,
};

/// The learned weights in use.
static LEARNED: Slot = Slot::new();

/// The endgame databases in use.
static EGDB: crate::egdb::Slot<Italian> = crate::egdb::Slot::new();

impl Evaluate for Italian {
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
