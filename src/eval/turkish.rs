//! Evaluation for Turkish draughts.
//!
//! Men move forward and sideways, so structure is about files: a man with a
//! friend behind it cannot be jumped from the front, and men side by side
//! cannot be jumped sideways. Kings fly along ranks and files like rooks and
//! are worth about three men.

use super::learned::Slot;
use super::{for_side_to_move, masks, material, shared_terms, simplify_bonus, Evaluate, Weights};
use crate::geometry::{Geometry, Ortho8};
use crate::position::Position;
use crate::rules::{Color, Turkish};

const WEIGHTS: Weights = Weights {
    man: 100,
    king: 300,
    advance_open: [0, 0, 0, 2, 4, 7, 12, 0, 0, 0],
    advance_end: [0, 0, 3, 8, 14, 22, 34, 0, 0, 0],
    centre: 3,
    back_rank: 0,
    supported: 4,
    king_mobility: 2,
    runaway: 40,
    balance: 1,
    man_mobility: 0,
};

/// Per pair of own men side by side on a rank (no sideways capture through
/// them).
const SIDE_BY_SIDE: i32 = 3;

/// The learned weights, when the build has them.
static LEARNED: Slot = Slot::new();

/// The endgame databases in use.
static EGDB: crate::egdb::Slot<Turkish> = crate::egdb::Slot::new();

impl Evaluate for Turkish {
    const WEIGHTS: Weights = WEIGHTS;

    fn slot() -> &'static Slot {
        &LEARNED
    }

    fn egdb() -> &'static crate::egdb::Slot<Self> {
        &EGDB
    }

    fn evaluate(pos: &Position<Self>) -> i32 {
        let mut s = match LEARNED.get::<Self>() {
            Some(l) => l.white_score(pos),
            None => {
                let m = masks::<Ortho8>();
                let lead =
                    material(pos, &WEIGHTS, Color::White) - material(pos, &WEIGHTS, Color::Black);
                let mut s = lead + shared_terms(pos, m);
                for (c, sign) in [(Color::White, 1), (Color::Black, -1)] {
                    let men = pos.men(c);
                    let pairs = (men & Ortho8::step(men, 1)).count_ones() as i32;
                    s += sign * SIDE_BY_SIDE * pairs;
                }
                s + simplify_bonus(pos, lead, 3)
            }
        };
        // King against king: no way to force a capture.
        let (wm, wk) = super::counts(pos, Color::White);
        let (bm, bk) = super::counts(pos, Color::Black);
        if wm + bm == 0 && wk == bk {
            s /= 16;
        }
        for_side_to_move(pos, s)
    }
}
