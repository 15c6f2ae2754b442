//! Evaluation for International draughts (10x10).

use super::{
    for_side_to_move, lone_king_draw, masks, shared_terms, simplify_bonus, Evaluate, Weights,
};
use crate::position::Position;
use crate::rules::{Color, International};

/// A flying king on 10x10 is worth about three men (Scan's material
/// weights); men gain value as they advance, more so in the endgame.
const WEIGHTS: Weights = Weights {
    man: 100,
    king: 300,
    advance_open: [0, 0, 1, 2, 3, 4, 6, 8, 12, 0],
    advance_end: [0, 2, 4, 7, 10, 14, 19, 25, 34, 0],
    centre: 5,
    back_rank: 6,
    supported: 3,
    king_mobility: 2,
    runaway: 40,
    balance: 3,
    man_mobility: 1,
};

impl Evaluate for International {
    fn evaluate(pos: &Position<Self>) -> i32 {
        let m = masks::<<Self as crate::rules::Rules>::Geo>();
        let mut s = shared_terms(pos, &WEIGHTS, m);
        let lead = material(pos, Color::White) - material(pos, Color::Black);
        s += simplify_bonus(pos, lead, 2);
        // A lone king holds a draw against up to three kings (FMJD endgame
        // practice; four kings win).
        s = lone_king_draw(pos, s, 3);
        for_side_to_move(pos, s)
    }
}

fn material(pos: &Position<International>, c: Color) -> i32 {
    WEIGHTS.man * pos.men(c).count_ones() as i32
        + WEIGHTS.king * pos.kings_of(c).count_ones() as i32
}
