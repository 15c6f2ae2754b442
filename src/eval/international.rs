//! Evaluation for International draughts (10x10).

use super::learned::{Slot, Start};
use super::{evaluate_with, lone_king_draw, Evaluate, Masks};
use crate::position::Position;
use crate::rules::International;

/// Generation 0: a flying king on 10x10 is worth about three men (Scan's
/// material weights); men gain value as they advance, more so in the
/// endgame.
const START: Start = Start {
    man: 100,
    king: 300,
    advance_open: [0, 0, 1, 2, 3, 4, 6, 8, 12, 0],
    advance_end: [0, 2, 4, 7, 10, 14, 19, 25, 34, 0],
    centre: 5,
    runaway: 40,
    king_mobility: 2,
};

/// The learned weights in use.
static LEARNED: Slot = Slot::new();

/// The endgame databases in use.
static EGDB: crate::egdb::Slot<International> = crate::egdb::Slot::new();

impl Evaluate for International {
    const START: Start = START;

    fn slot() -> &'static Slot {
        &LEARNED
    }

    fn egdb() -> &'static crate::egdb::Slot<Self> {
        &EGDB
    }

    fn evaluate(pos: &Position<Self>) -> i32 {
        evaluate_with(pos, lone_king_endgame)
    }
}

/// A lone king holds a draw against up to three pieces (FMJD endgame
/// practice and art. 6.4-6.5; four kings win).
fn lone_king_endgame(pos: &Position<International>, score: i32, _masks: &Masks) -> i32 {
    lone_king_draw(pos, score, 3)
}
