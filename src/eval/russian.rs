//! Evaluation for Russian draughts (shashki).

use super::learned::{Slot, Start};
use super::{evaluate_with, flying8_endgame, Evaluate};
use crate::position::Position;
use crate::rules::Russian;

/// Generation 0: as Brazilian, but men crowned in passing make advanced men
/// and runaways worth a little more.
const START: Start = Start {
    man: 100,
    king: 250,
    advance_open: [0, 1, 2, 4, 7, 10, 16, 0, 0, 0],
    advance_end: [0, 3, 7, 12, 18, 27, 38, 0, 0, 0],
    centre: 6,
    runaway: 45,
    king_mobility: 2,
};

/// The learned weights in use.
static LEARNED: Slot = Slot::new();

/// The endgame databases in use.
static EGDB: crate::egdb::Slot<Russian> = crate::egdb::Slot::new();

impl Evaluate for Russian {
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
