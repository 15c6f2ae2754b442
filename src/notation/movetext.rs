//! Move text: PDN moves (`32-28`, `28x19`, `c3:e5`, full path only when a
//! capture is ambiguous) and moves listing every captured square
//! (`28x19x23`), in the variant's own square names.

use super::{bit_name, err, parse_square, NotationError};
use crate::geometry::Geometry;
use crate::movegen::{captures_with_paths, generate, Move, MoveList};
use crate::position::Position;
use crate::rules::Rules;

/// The routes (landing squares, bit indices) by which `mv` can be played.
fn routes<R: Rules>(pos: &Position<R>, mv: &Move) -> Vec<Vec<u8>> {
    let (list, paths) = captures_with_paths(pos);
    list.iter()
        .zip(paths)
        .filter(|(m, _)| *m == mv)
        .map(|(_, p)| p)
        .collect()
}

/// Writes a legal move of `pos` in PDN notation. A capture is written with
/// its start and end squares, or with its whole route when another legal
/// capture has the same start and end.
pub fn move_to_pdn<R: Rules>(pos: &Position<R>, mv: &Move) -> String {
    let from = bit_name::<R>(mv.from);
    let to = bit_name::<R>(mv.to);
    if !mv.is_capture() {
        return format!("{from}-{to}");
    }
    let sep = R::CAPTURE_SEPARATOR;
    let mut list = MoveList::new();
    generate(pos, &mut list);
    let ambiguous = list
        .iter()
        .any(|m| m.from == mv.from && m.to == mv.to && m != mv);
    if !ambiguous {
        return format!("{from}{sep}{to}");
    }
    let route = routes(pos, mv)
        .into_iter()
        .next()
        .unwrap_or_else(|| vec![mv.to]);
    let mut s = from;
    for b in route {
        s.push(sep);
        s.push_str(&bit_name::<R>(b));
    }
    s
}

/// Writes a move with every captured square, in the variant's own square
/// names: `from-to`, or `fromxto` followed by `x` and each captured square
/// in board order (the Hub form; the Hub protocol's own numbering is
/// `protocol::hubpos::move_to_hub`). `parse_move` reads it back.
pub fn move_with_captures<R: Rules>(mv: &Move) -> String {
    let from = bit_name::<R>(mv.from);
    let to = bit_name::<R>(mv.to);
    if !mv.is_capture() {
        return format!("{from}-{to}");
    }
    let mut s = format!("{from}x{to}");
    for b in crate::geometry::Bits(mv.captured) {
        s.push('x');
        s.push_str(&bit_name::<R>(b.trailing_zeros() as u8));
    }
    s
}

/// Reads a move in the variant's notation and finds it among the legal
/// moves of `pos`.
///
/// Accepted forms: `a-b`; captures `axb`, `a:b`, the full route
/// `axcxdxb` (any turning points or squares behind captured pieces, in
/// order), and the Hub form `axbxc1xc2...` listing captured squares. Leading
/// zeros are fine. An error names the problem: bad square, no such legal
/// move, or an ambiguous short form.
pub fn parse_move<R: Rules>(pos: &Position<R>, text: &str) -> Result<Move, NotationError> {
    let t = text.trim();
    if t.is_empty() {
        return err("empty move");
    }
    let is_capture = t.contains(['x', 'X', ':']);
    let tokens: Vec<&str> = t.split(['-', 'x', 'X', ':']).collect();
    if tokens.len() < 2 || tokens.iter().any(|s| s.is_empty()) {
        return err(format!(
            "move '{t}' must be squares joined by '-', 'x' or ':'"
        ));
    }
    if !is_capture && tokens.len() != 2 {
        return err(format!("move '{t}': a quiet move has two squares"));
    }
    let squares: Vec<u8> = tokens
        .iter()
        .map(|s| parse_square::<R>(s).map(|sq| R::Geo::bit(sq).trailing_zeros() as u8))
        .collect::<Result<_, _>>()
        .map_err(|e| NotationError(format!("move '{t}': {e}")))?;
    let mut legal = MoveList::new();
    generate(pos, &mut legal);
    let from = squares[0];
    let to = *squares.last().unwrap_or(&from);
    let mut found: Vec<Move> = Vec::new();
    let mut push = |m: Move| {
        if !found.contains(&m) {
            found.push(m);
        }
    };
    if !legal.iter().any(|m| m.is_capture()) {
        for m in legal.iter().filter(|m| m.from == from && m.to == to) {
            if tokens.len() == 2 {
                push(*m);
            }
        }
    } else {
        let (all, paths) = captures_with_paths(pos);
        for (m, path) in all.iter().zip(paths.iter()) {
            if !legal.contains(m) || m.from != from {
                continue;
            }
            // PDN: from, turning points (a subsequence of the route), to.
            if m.to == to && is_subsequence(&squares[1..squares.len() - 1], path) {
                push(*m);
            }
            // Hub: from, to, then captured squares.
            if squares.len() >= 2 && m.to == squares[1] {
                let caps = &squares[2..];
                if caps.iter().all(|&c| m.captured & (1u64 << c) != 0) {
                    push(*m);
                }
            }
        }
    }
    match found.len() {
        1 => Ok(found[0]),
        0 => {
            let kind = if legal.iter().any(|m| m.is_capture()) && !is_capture {
                " (a capture is compulsory)"
            } else {
                ""
            };
            err(format!("move '{t}' is not legal here{kind}"))
        }
        _ => err(format!(
            "move '{t}' is ambiguous: give the route or the captured squares"
        )),
    }
}

/// Whether `needle` appears in order within `hay` (not necessarily
/// contiguously).
fn is_subsequence(needle: &[u8], hay: &[u8]) -> bool {
    let mut it = hay.iter();
    needle.iter().all(|n| it.any(|h| h == n))
}

/// Writes a line of moves from `pos` in PDN notation, each move in the
/// position where it is played. Stops at the first move that is not legal
/// (a line from a stale table entry).
pub fn line_to_pdn<R: Rules>(pos: &Position<R>, line: &[Move]) -> Vec<String> {
    let mut p = *pos;
    let mut out = Vec::new();
    for mv in line {
        let mut legal = MoveList::new();
        generate(&p, &mut legal);
        if !legal.contains(mv) {
            break;
        }
        out.push(move_to_pdn(&p, mv));
        p.play(mv);
    }
    out
}
