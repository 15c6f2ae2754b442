//! Evaluation for Spanish draughts.

use super::learned::Slot;
use super::{evaluate_with, flying8_endgame, Evaluate, Weights};
use crate::position::Position;
use crate::rules::Spanish;

/// Men capture forward only, so a man left behind is weaker than in
/// Brazilian and the back rank guard matters more; flying kings.
const WEIGHTS: Weights = Weights {
    man: 100,
    king: 250,
    advance_open: [0, 1, 2, 4, 6, 9, 14, 0, 0, 0],
    advance_end: [0, 3, 7, 12, 18, 26, 36, 0, 0, 0],
    centre: 6,
    back_rank: 10,
    supported: 4,
    king_mobility: 2,
    runaway: 40,
    balance: 2,
    man_mobility: 1,
};

/// The learned weights, when the build has them.
static LEARNED: Slot = Slot::new();

/// The endgame databases in use.
static EGDB: crate::egdb::Slot<Spanish> = crate::egdb::Slot::new();

impl Evaluate for Spanish {
    const WEIGHTS: Weights = WEIGHTS;

    fn slot() -> &'static Slot {
        &LEARNED
    }

    fn egdb() -> &'static crate::egdb::Slot<Self> {
        &EGDB
    }

    fn evaluate(pos: &Position<Self>) -> i32 {
        evaluate_with(pos, 3, flying8_endgame)
    }
}
