//! PDN FEN: `TURN:COLOUR[K]sq,...:COLOUR[K]sq,...`.
//!
//! Reading follows PDN 3.0 (`wiegerw/pdn` `doc/fen.rst`) liberally: turn
//! `W`, `B` or `?` (the variant's first player), sections in any order or
//! missing, `K` before a king, numeric ranges (`31-50`), algebraic squares
//! for algebraic variants (and English numbers for Russian and Brazilian,
//! as other tools write them), surrounding quotes, spaces and a trailing dot
//! ignored. A man on its own promotion row (White's on the top row, Black's
//! on the bottom row) is an error naming the square: it would have been
//! crowned. A side with more pieces than the variant's start position
//! gives it is an error naming the count and the limit. Writing gives one canonical form: `W` section then `B`, squares
//! in ascending notation order, kings prefixed `K`.

use super::{err, parse_square, square_name, NotationError};
use crate::geometry::{Bitboard, Geometry};
use crate::position::Position;
use crate::rules::{Color, Numbering, Rules};

/// Parses a FEN into a position of rule set `R`.
pub fn parse_fen<R: Rules>(text: &str) -> Result<Position<R>, NotationError> {
    let t: String = text
        .trim()
        .trim_matches('"')
        .chars()
        .filter(|c| !c.is_whitespace())
        .collect();
    let t = t.trim_end_matches('.');
    if t.is_empty() {
        return err("empty FEN");
    }
    if t.eq_ignore_ascii_case("start") || t.eq_ignore_ascii_case("startpos") {
        return Ok(Position::start());
    }
    let mut parts = t.split(':');
    let turn = parts.next().unwrap_or("");
    let side = match turn {
        "W" | "w" => Color::White,
        "B" | "b" => Color::Black,
        "?" => R::FIRST_TO_MOVE,
        _ => {
            return err(format!(
                "FEN '{text}': side to move must be W or B, not '{turn}'"
            ))
        }
    };
    let mut pieces: [Bitboard; 2] = [0, 0];
    let mut kings: Bitboard = 0;
    let mut seen = [false, false];
    for section in parts {
        let mut chars = section.chars();
        let colour = match chars.next() {
            Some('W') | Some('w') => Color::White,
            Some('B') | Some('b') => Color::Black,
            Some(c) => {
                return err(format!(
                    "FEN section '{section}' must start with W or B, not '{c}'"
                ))
            }
            None => continue,
        };
        if seen[colour.index()] {
            return err(format!("FEN has two {:?} sections", colour));
        }
        seen[colour.index()] = true;
        let body = chars.as_str();
        if body.is_empty() {
            continue;
        }
        for item in body.split(',') {
            if item.is_empty() {
                continue;
            }
            let (king, sq) = match item.strip_prefix(['K', 'k']) {
                Some(rest) => (true, rest),
                None => (false, item),
            };
            let squares = parse_squares::<R>(sq)?;
            for s in squares {
                let b = R::Geo::bit(s);
                if (pieces[0] | pieces[1]) & b != 0 {
                    return err(format!(
                        "FEN '{text}': square {} is given twice",
                        square_name::<R>(s)
                    ));
                }
                pieces[colour.index()] |= b;
                if king {
                    kings |= b;
                }
            }
        }
    }
    let pos = Position::from_parts(pieces[0], pieces[1], kings, side);
    if let Some((c, s)) = pos.man_on_promotion_row() {
        return err(format!(
            "FEN '{text}': the {} man on {} stands on its promotion row (a king there is K{})",
            if c == Color::White { "white" } else { "black" },
            square_name::<R>(s),
            square_name::<R>(s)
        ));
    }
    if let Err(m) = check_piece_counts(&pos) {
        return err(format!("FEN '{text}': {m}"));
    }
    Ok(pos)
}

/// Refuses a side with more pieces than the variant's start position
/// gives it: no game can reach such a position. The error names the
/// colour, its count and the limit, as "white has 13 pieces, English
/// starts with 12".
pub fn check_piece_counts<R: Rules>(pos: &Position<R>) -> Result<(), String> {
    let start = Position::<R>::start();
    for c in [Color::White, Color::Black] {
        let (n, limit) = (pos.count(c), start.count(c));
        if n > limit {
            let mut name = R::NAME.chars();
            let first = name.next().map(|f| f.to_ascii_uppercase());
            return Err(format!(
                "{} has {n} pieces, {}{} starts with {limit}",
                if c == Color::White { "white" } else { "black" },
                first.unwrap_or(' '),
                name.as_str()
            ));
        }
    }
    Ok(())
}

/// One FEN item: a square or a numeric range `a-b`.
fn parse_squares<R: Rules>(item: &str) -> Result<Vec<usize>, NotationError> {
    if let Some((a, b)) = item.split_once('-') {
        let numeric = |x: &str| !x.is_empty() && x.bytes().all(|c| c.is_ascii_digit());
        if !numeric(a) || !numeric(b) {
            return err(format!("FEN range '{item}' must be two square numbers"));
        }
        let (lo, hi): (usize, usize) = (
            a.parse().unwrap_or(usize::MAX),
            b.parse().unwrap_or(usize::MAX),
        );
        if hi > R::Geo::NUM_SQUARES || lo > R::Geo::NUM_SQUARES {
            return err(format!(
                "FEN range '{item}' goes past square {}",
                R::Geo::NUM_SQUARES
            ));
        }
        if lo > hi {
            return err(format!("FEN range '{item}' runs backwards"));
        }
        return (lo..=hi)
            .map(|n| parse_square::<R>(&n.to_string()))
            .collect();
    }
    Ok(vec![parse_square::<R>(item)?])
}

/// Writes a position as FEN in the variant's notation.
pub fn write_fen<R: Rules>(pos: &Position<R>) -> String {
    let mut out = String::new();
    out.push(pos.side().letter());
    for c in [Color::White, Color::Black] {
        out.push(':');
        out.push(c.letter());
        let mut squares: Vec<(usize, usize)> = (0..R::Geo::NUM_SQUARES)
            .filter(|&s| pos.pieces(c) & R::Geo::bit(s) != 0)
            .map(|s| (sort_key::<R>(s), s))
            .collect();
        squares.sort_unstable();
        let items: Vec<String> = squares
            .iter()
            .map(|&(_, s)| {
                let k = if pos.kings() & R::Geo::bit(s) != 0 {
                    "K"
                } else {
                    ""
                };
                format!("{k}{}", square_name::<R>(s))
            })
            .collect();
        out.push_str(&items.join(","));
    }
    out
}

/// Order of squares in written FENs: by number, or a1, c1, ... by rank
/// then file for algebraic variants.
fn sort_key<R: Rules>(s: usize) -> usize {
    match R::NUMBERING {
        Numbering::Algebraic => {
            let (f, r) = R::Geo::coords(s);
            r * 16 + f
        }
        n => super::number_of::<R::Geo>(n, s),
    }
}
