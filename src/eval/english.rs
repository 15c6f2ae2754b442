//! Evaluation for English draughts (checkers).

use super::{
    for_side_to_move, masks, shared_terms, short_king_endgame, simplify_bonus, Evaluate, Weights,
};
use crate::position::Position;
use crate::rules::{Color, English};

/// Short kings: a king is worth about 1.4 men. The back rank (the "bridge"
/// squares) keeps the opponent from crowning; men capture forward only.
const WEIGHTS: Weights = Weights {
    man: 100,
    king: 140,
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

impl Evaluate for English {
    fn evaluate(pos: &Position<Self>) -> i32 {
        let m = masks::<<Self as crate::rules::Rules>::Geo>();
        let mut s = shared_terms(pos, &WEIGHTS, m);
        let lead = material(pos, Color::White) - material(pos, Color::Black);
        s += simplify_bonus(pos, lead, 4);
        s = short_king_endgame(pos, s);
        for_side_to_move(pos, s)
    }
}

fn material(pos: &Position<English>, c: Color) -> i32 {
    WEIGHTS.man * pos.men(c).count_ones() as i32
        + WEIGHTS.king * pos.kings_of(c).count_ones() as i32
}
