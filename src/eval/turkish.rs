//! Evaluation for Turkish draughts.
//!
//! Men move forward and sideways; kings fly along ranks and files like
//! rooks and are worth about three men.

use super::learned::{Slot, Start};
use super::{counts, evaluate_with, Evaluate, Masks};
use crate::position::Position;
use crate::rules::{Color, Turkish};

/// Generation 0: a rook-like flying king is worth about three men; men
/// gain value late as they advance.
const START: Start = Start {
    man: 100,
    king: 300,
    advance_open: [0, 0, 0, 2, 4, 7, 12, 0, 0, 0],
    advance_end: [0, 0, 3, 8, 14, 22, 34, 0, 0, 0],
    centre: 3,
    runaway: 40,
    king_mobility: 2,
};

/// The learned weights in use.
static LEARNED: Slot = Slot::new();

/// The endgame databases in use.
static EGDB: crate::egdb::Slot<Turkish> = crate::egdb::Slot::new();

impl Evaluate for Turkish {
    const START: Start = START;

    fn slot() -> &'static Slot {
        &LEARNED
    }

    fn egdb() -> &'static crate::egdb::Slot<Self> {
        &EGDB
    }

    fn evaluate(pos: &Position<Self>) -> i32 {
        evaluate_with(pos, king_against_king)
    }
}

/// King against king, as many on each side: no way to force a capture.
fn king_against_king(pos: &Position<Turkish>, score: i32, _masks: &Masks) -> i32 {
    let (wm, wk) = counts(pos, Color::White);
    let (bm, bk) = counts(pos, Color::Black);
    if wm + bm == 0 && wk == bk {
        score / 16
    } else {
        score
    }
}
