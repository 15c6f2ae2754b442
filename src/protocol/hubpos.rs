//! Hub position strings and Hub move text, per variant.
//!
//! Hub was written for 10x10: `pos=` is the side to move (`W`/`B`) and one
//! character per playable square (`w`, `b`, `W`, `B`, `e`), and a move is
//! `from-to` or `fromxto` followed by `x` and every captured square. For the
//! 8x8 variants we use the layouts pydraughts 0.6.7 sends (the only client
//! that speaks Hub for them; `shared/reference/protocols.md` §4.3):
//!
//! | variant | `pos=` | square *s* of the string is | move numbers |
//! |---|---|---|---|
//! | international | 51 chars | square *s* | 1-50 |
//! | italian | 33 chars | Italian square *s* | Italian 1-32 |
//! | spanish | 33 chars | Spanish square *s* | Spanish 1-32 |
//! | english | 33 chars, colours and side letter swapped (`w` = Black) | English square 33 - *s* | English 1-32 |
//! | russian, brazilian | 33 chars | row-major from b8 (*s* = 1 is b8, 29 is a1) | a1 = 1, c1 = 2, ... h8 = 32 |
//! | turkish | 65 chars | row-major from a8 (*s* = 1 is a8, 64 is h1) | a1 = 1, b1 = 2, ... h8 = 64 |
//!
//! Spanish is not in pydraughts; it follows the Italian pattern in its own
//! numbering.

use crate::geometry::{Bits, Geometry};
use crate::movegen::{generate, Move, MoveList};
use crate::notation::parse_square;
use crate::position::Position;
use crate::rules::{Color, Rules};

/// True when the Hub string's colours are swapped (English: the side moving
/// first, Black, is written `w`).
fn swapped<R: Rules>() -> bool {
    R::NAME == "english"
}

/// Geometry square of character `s` (1-based) of a `pos=` string.
fn pos_index_to_square<R: Rules>(s: usize) -> Option<usize> {
    let n = R::Geo::NUM_SQUARES;
    if s == 0 || s > n {
        return None;
    }
    match R::NAME {
        "english" => Some(n - s),
        "italian" | "spanish" => parse_square::<R>(&s.to_string()).ok(),
        "turkish" => {
            let (r, k) = ((s - 1) / 8, (s - 1) % 8);
            Some((7 - r) * 8 + k)
        }
        // International, Russian, Brazilian: the geometry's own order.
        _ => Some(s - 1),
    }
}

/// Geometry square of a Hub move number.
pub fn hub_number_to_square<R: Rules>(v: usize) -> Option<usize> {
    let n = R::Geo::NUM_SQUARES;
    if v == 0 || v > n {
        return None;
    }
    match R::NAME {
        "italian" | "spanish" => parse_square::<R>(&v.to_string()).ok(),
        "russian" | "brazilian" => {
            let (rank, k) = ((v - 1) / 4, (v - 1) % 4);
            Some((7 - rank) * 4 + k)
        }
        // International, English (numbers are squares), Turkish (a1 = 1).
        _ => Some(v - 1),
    }
}

/// Hub move number of a geometry square.
pub fn square_to_hub_number<R: Rules>(s: usize) -> usize {
    (1..=R::Geo::NUM_SQUARES)
        .find(|&v| hub_number_to_square::<R>(v) == Some(s))
        .unwrap_or(0)
}

/// Hub number of a bit index.
fn bit_number<R: Rules>(bit: u8) -> usize {
    square_to_hub_number::<R>(R::Geo::square(1u64 << bit))
}

/// Reads a `pos=` string.
pub fn parse_hub_pos<R: Rules>(text: &str) -> Result<Position<R>, String> {
    let n = R::Geo::NUM_SQUARES;
    let chars: Vec<char> = text.chars().collect();
    if chars.len() != n + 1 {
        return Err(format!(
            "bad position: {} expects {} characters (side to move and {} squares), got {}",
            R::NAME,
            n + 1,
            n,
            chars.len()
        ));
    }
    let swap = swapped::<R>();
    let colour = |white: bool| {
        if white != swap {
            Color::White
        } else {
            Color::Black
        }
    };
    let side = match chars[0] {
        'W' | 'w' => colour(true),
        'B' | 'b' => colour(false),
        c => {
            return Err(format!(
                "bad position: side to move must be W or B, not '{c}'"
            ))
        }
    };
    let mut pieces = [0u64; 2];
    let mut kings = 0u64;
    for (i, &c) in chars[1..].iter().enumerate() {
        let sq = pos_index_to_square::<R>(i + 1).ok_or("bad position: square out of range")?;
        let b = R::Geo::bit(sq);
        match c {
            'e' | 'E' | '.' => {}
            'w' | 'W' | 'b' | 'B' => {
                let col = colour(c.eq_ignore_ascii_case(&'w'));
                pieces[col.index()] |= b;
                if c.is_ascii_uppercase() {
                    kings |= b;
                }
            }
            _ => {
                return Err(format!(
                    "bad position: character {} is '{c}', expected w, b, W, B or e",
                    i + 2,
                ))
            }
        }
    }
    for c in [Color::White, Color::Black] {
        let men = pieces[c.index()] & !kings;
        if men & R::promotion_row(c) != 0 {
            return Err("bad position: a man stands on its promotion row".to_string());
        }
    }
    let pos = Position::from_parts(pieces[0], pieces[1], kings, side);
    crate::notation::fen::check_piece_counts(&pos).map_err(|m| format!("bad position: {m}"))?;
    Ok(pos)
}

/// Writes a `pos=` string.
pub fn write_hub_pos<R: Rules>(pos: &Position<R>) -> String {
    let n = R::Geo::NUM_SQUARES;
    let swap = swapped::<R>();
    let letter = |c: Color| {
        if (c == Color::White) != swap {
            'w'
        } else {
            'b'
        }
    };
    let mut s = String::with_capacity(n + 1);
    s.push(letter(pos.side()).to_ascii_uppercase());
    for i in 1..=n {
        let sq = pos_index_to_square::<R>(i).unwrap_or(0);
        let b = R::Geo::bit(sq);
        let ch = [Color::White, Color::Black]
            .into_iter()
            .find(|&c| pos.pieces(c) & b != 0)
            .map(|c| {
                let l = letter(c);
                if pos.kings() & b != 0 {
                    l.to_ascii_uppercase()
                } else {
                    l
                }
            })
            .unwrap_or('e');
        s.push(ch);
    }
    s
}

/// Writes a move in Hub form: `from-to`, or `fromxto` then `x` and each
/// captured square (ascending).
pub fn move_to_hub<R: Rules>(mv: &Move) -> String {
    let from = bit_number::<R>(mv.from);
    let to = bit_number::<R>(mv.to);
    if !mv.is_capture() {
        return format!("{from}-{to}");
    }
    let mut caps: Vec<usize> = Bits(mv.captured)
        .map(|b| bit_number::<R>(b.trailing_zeros() as u8))
        .collect();
    caps.sort_unstable();
    let mut s = format!("{from}x{to}");
    for c in caps {
        s.push('x');
        s.push_str(&c.to_string());
    }
    s
}

/// Reads a Hub move and finds it among the legal moves: from, to and any
/// subset of the captured squares (in any order) must match exactly one
/// legal move, or the full captured set must match one.
pub fn parse_hub_move<R: Rules>(pos: &Position<R>, text: &str) -> Result<Move, String> {
    let t = text.trim();
    let tokens: Vec<&str> = t.split(['-', 'x', 'X', ':']).collect();
    if tokens.len() < 2
        || tokens
            .iter()
            .any(|s| s.is_empty() || !s.bytes().all(|c| c.is_ascii_digit()) || s.len() > 3)
    {
        return Err(format!(
            "bad move '{t}': expected numbers joined by '-' or 'x'"
        ));
    }
    let mut bits = Vec::with_capacity(tokens.len());
    for tok in &tokens {
        let v: usize = tok.parse().map_err(|_| format!("bad move '{t}'"))?;
        let sq =
            hub_number_to_square::<R>(v).ok_or_else(|| format!("bad move '{t}': no square {v}"))?;
        bits.push(R::Geo::bit(sq).trailing_zeros() as u8);
    }
    let (from, to) = (bits[0], bits[1]);
    let caps: u64 = bits[2..].iter().fold(0, |a, &b| a | 1u64 << b);
    let mut list = MoveList::new();
    generate(pos, &mut list);
    let candidates: Vec<Move> = list
        .iter()
        .filter(|m| m.from == from && m.to == to && m.captured & caps == caps)
        .copied()
        .collect();
    match candidates.len() {
        1 => Ok(candidates[0]),
        0 => Err(format!("illegal move '{t}'")),
        _ => match candidates.iter().find(|m| m.captured == caps) {
            Some(m) => Ok(*m),
            None => Err(format!("ambiguous move '{t}': list the captured squares")),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::notation::fen::parse_fen;
    use crate::rules::*;

    #[test]
    fn start_strings_are_pydraughts_layouts() {
        assert_eq!(
            write_hub_pos(&Position::<International>::start()),
            "Wbbbbbbbbbbbbbbbbbbbbeeeeeeeeeewwwwwwwwwwwwwwwwwwww"
        );
        let eight = "Wbbbbbbbbbbbbeeeeeeeewwwwwwwwwwww";
        assert_eq!(write_hub_pos(&Position::<English>::start()), eight);
        assert_eq!(write_hub_pos(&Position::<Italian>::start()), eight);
        assert_eq!(write_hub_pos(&Position::<Russian>::start()), eight);
        assert_eq!(
            write_hub_pos(&Position::<Turkish>::start()),
            "Weeeeeeeebbbbbbbbbbbbbbbbeeeeeeeeeeeeeeeewwwwwwwwwwwwwwwweeeeeeee"
        );
    }

    #[test]
    fn examples_from_the_reference() {
        // English FEN B:WK30:B5,K9 is WeeBeeeeeeeeeeeeeeeeeeeeWeeeweeee.
        let p = parse_fen::<English>("B:WK30:B5,K9").unwrap();
        assert_eq!(write_hub_pos(&p), "WeeBeeeeeeeeeeeeeeeeeeeeWeeeweeee");
        assert_eq!(
            parse_hub_pos::<English>("WeeBeeeeeeeeeeeeeeeeeeeeWeeeweeee").unwrap(),
            p
        );
        // Russian W:Wc3:Bf6: w at index 22, b at 11; replies 10-13 and 10-14.
        let p = parse_fen::<Russian>("W:Wc3:Bf6").unwrap();
        let s = write_hub_pos(&p);
        assert_eq!(s.chars().nth(22), Some('w'));
        assert_eq!(s.chars().nth(11), Some('b'));
        let mut list = MoveList::new();
        generate(&p, &mut list);
        let mut hub: Vec<String> = list.iter().map(move_to_hub::<Russian>).collect();
        hub.sort();
        assert_eq!(hub, ["10-13", "10-14"]);
        // Turkish first moves as pydraughts writes them.
        let t = Position::<Turkish>::start();
        assert!(parse_hub_move(&t, "20-28").is_ok());
    }

    #[test]
    fn captures_with_or_without_captured_squares() {
        let p = parse_fen::<International>("W:W28,32:B23").unwrap();
        let m = parse_hub_move(&p, "28x19x23").unwrap();
        assert_eq!(parse_hub_move(&p, "28x19").unwrap(), m);
        assert_eq!(move_to_hub::<International>(&m), "28x19x23");
        assert!(parse_hub_move(&p, "28x19x24").is_err());
        assert!(parse_hub_move(&p, "32-27").is_err());
        assert!(parse_hub_move(&p, "x").is_err());
    }
}
