//! Helpers shared by the rules chapter tests (`tests/rules_*.rs`).
#![allow(dead_code)]

use kondavo::geometry::{Bitboard, Geometry};
use kondavo::movegen::{generate, MoveList};
use kondavo::notation::fen::parse_fen;
use kondavo::notation::movetext::{move_to_pdn, parse_move};
use kondavo::notation::parse_square;
use kondavo::position::Position;
use kondavo::rules::Rules;

/// Legal moves of `fen` in PDN, sorted.
pub fn moves<V: Rules>(fen: &str) -> Vec<String> {
    let pos = parse_fen::<V>(fen).unwrap_or_else(|e| panic!("{fen}: {e}"));
    let mut list = MoveList::new();
    generate(&pos, &mut list);
    let mut out: Vec<String> = list.iter().map(|m| move_to_pdn(&pos, m)).collect();
    out.sort();
    out
}

/// A move as the tables write it, without leading zeros on square numbers
/// (`08-02` becomes `8-2`).
pub fn norm(text: &str) -> String {
    let mut out = String::new();
    let mut num = String::new();
    for c in text.chars() {
        if c.is_ascii_digit() {
            num.push(c);
        } else {
            if !num.is_empty() {
                out.push_str(num.trim_start_matches('0'));
                num.clear();
            }
            out.push(c);
        }
    }
    out.push_str(num.trim_start_matches('0'));
    out
}

/// Asserts that the legal moves of `fen` are exactly `expected`.
pub fn assert_moves<V: Rules>(fen: &str, expected: &[&str]) {
    let mut want: Vec<String> = expected.iter().map(|m| norm(m)).collect();
    want.sort();
    assert_eq!(moves::<V>(fen), want, "legal moves of {fen}");
}

/// The position after playing `mv` in `fen`.
pub fn after<V: Rules>(fen: &str, mv: &str) -> Position<V> {
    let pos = parse_fen::<V>(fen).unwrap();
    let m = parse_move(&pos, mv).unwrap_or_else(|e| panic!("{fen} {mv}: {e}"));
    pos.played(&m)
}

/// The bit of a square named in the variant's notation.
pub fn bit<V: Rules>(name: &str) -> Bitboard {
    V::Geo::bit(parse_square::<V>(name).unwrap())
}
