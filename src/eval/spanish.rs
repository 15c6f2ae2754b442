//! Evaluation for Spanish draughts.

use super::{
    flying8_endgame, for_side_to_move, masks, shared_terms, simplify_bonus, Evaluate, Weights,
};
use crate::position::Position;
use crate::rules::{Color, Spanish};

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

impl Evaluate for Spanish {
    fn evaluate(pos: &Position<Self>) -> i32 {
        let m = masks::<<Self as crate::rules::Rules>::Geo>();
        let mut s = shared_terms(pos, &WEIGHTS, m);
        let lead = material(pos, Color::White) - material(pos, Color::Black);
        s += simplify_bonus(pos, lead, 3);
        s = flying8_endgame(pos, s, m);
        for_side_to_move(pos, s)
    }
}

fn material(pos: &Position<Spanish>, c: Color) -> i32 {
    WEIGHTS.man * pos.men(c).count_ones() as i32
        + WEIGHTS.king * pos.kings_of(c).count_ones() as i32
}
