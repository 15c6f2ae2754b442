//! Evaluation for Italian draughts.

use super::learned::Slot;
use super::{evaluate_with, short_king_endgame, Evaluate, Weights};
use crate::position::Position;
use crate::rules::Italian;

/// Short kings that men cannot capture: a king is worth a little more than
/// in English (about 1.5 men).
const WEIGHTS: Weights = Weights {
    man: 100,
    king: 150,
    advance_open: [0, 0, 1, 2, 3, 5, 8, 0, 0, 0],
    advance_end: [0, 2, 5, 8, 12, 17, 24, 0, 0, 0],
    centre: 4,
    back_rank: 9,
    supported: 3,
    king_mobility: 3,
    runaway: 30,
    balance: 2,
    man_mobility: 1,
};

/// The learned weights, when the build has them.
static LEARNED: Slot = Slot::new();

/// The endgame databases in use.
static EGDB: crate::egdb::Slot<Italian> = crate::egdb::Slot::new();

impl Evaluate for Italian {
    const WEIGHTS: Weights = WEIGHTS;

    fn slot() -> &'static Slot {
        &LEARNED
    }

    fn egdb() -> &'static crate::egdb::Slot<Self> {
        &EGDB
    }

    fn evaluate(pos: &Position<Self>) -> i32 {
        evaluate_with(pos, 4, short_king_endgame)
    }
}
