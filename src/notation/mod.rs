//! Notation: square names, FEN, move text and a board diagram, each in the
//! variant's own numbering and orientation.
//!
//! Internally every diagonal board is the English/International layout with
//! a1 dark (see [`crate::geometry`]). Italian and Spanish play on a board
//! turned so that the lower-right corner is dark; the rules are symmetric,
//! so we hold their positions mirrored left to right and only their square
//! numbers are converted here.

pub mod display;
pub mod fen;
pub mod movetext;
pub mod pdn;

use std::fmt;

use crate::geometry::Geometry;
use crate::rules::{Numbering, Rules};

/// What was wrong with a FEN, a square or a move text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NotationError(pub String);

impl fmt::Display for NotationError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for NotationError {}

/// Shorthand for building an error.
pub(crate) fn err<T>(msg: impl Into<String>) -> Result<T, NotationError> {
    Err(NotationError(msg.into()))
}

/// Playable squares per row of a diagonal board.
fn half_width<G: Geometry>() -> usize {
    G::WIDTH / 2
}

/// The number (1-based) of geometry square `s` in a numeric scheme.
fn number_of<G: Geometry>(numbering: Numbering, s: usize) -> usize {
    let h = half_width::<G>();
    let (row, k) = (s / h, s % h);
    match numbering {
        Numbering::TopLeft | Numbering::Algebraic => s + 1,
        Numbering::TurnedTopLeft => row * h + (h - 1 - k) + 1,
        Numbering::TurnedBottomRight => (G::HEIGHT - 1 - row) * h + k + 1,
    }
}

/// Geometry square of number `n` (1-based) in a numeric scheme.
fn square_of_number<G: Geometry>(numbering: Numbering, n: usize) -> Option<usize> {
    if n == 0 || n > G::NUM_SQUARES {
        return None;
    }
    let h = half_width::<G>();
    let (row, k) = ((n - 1) / h, (n - 1) % h);
    Some(match numbering {
        Numbering::TopLeft | Numbering::Algebraic => n - 1,
        Numbering::TurnedTopLeft => row * h + (h - 1 - k),
        Numbering::TurnedBottomRight => (G::HEIGHT - 1 - row) * h + k,
    })
}

/// Algebraic name (`a1`) of geometry square `s`.
fn algebraic_of<G: Geometry>(s: usize) -> String {
    let (f, r) = G::coords(s);
    format!("{}{}", (b'a' + f as u8) as char, r + 1)
}

/// Name of geometry square `s` in the variant's notation: a number, or
/// algebraic coordinates.
pub fn square_name<R: Rules>(s: usize) -> String {
    match R::NUMBERING {
        Numbering::Algebraic => algebraic_of::<R::Geo>(s),
        n => number_of::<R::Geo>(n, s).to_string(),
    }
}

/// Name of the square at a bit index of the geometry's layout.
pub fn bit_name<R: Rules>(bit: u8) -> String {
    square_name::<R>(R::Geo::square(1u64 << bit))
}

/// Parses a square in the variant's notation (numbers may have leading
/// zeros; algebraic variants that accept numeric FENs also take English
/// numbers). Returns the geometry square index.
pub fn parse_square<R: Rules>(text: &str) -> Result<usize, NotationError> {
    let t = text.trim();
    if t.is_empty() {
        return err("empty square");
    }
    let first = t.as_bytes()[0];
    if first.is_ascii_alphabetic() {
        if R::NUMBERING != Numbering::Algebraic {
            return err(format!(
                "square '{t}': {} squares are numbers 1-{}",
                R::NAME,
                R::Geo::NUM_SQUARES
            ));
        }
        let b = t.as_bytes();
        let file = b[0].to_ascii_lowercase().wrapping_sub(b'a') as usize;
        if t.len() < 2 || t.len() > 3 || !t[1..].bytes().all(|c| c.is_ascii_digit()) {
            return err(format!("square '{t}' is not a square name"));
        }
        let rank: usize = t[1..]
            .parse()
            .map_err(|_| NotationError(format!("square '{t}' is not a square name")))?;
        return match rank
            .checked_sub(1)
            .and_then(|r| R::Geo::from_coords(file, r))
        {
            Some(s) => Ok(s),
            None => err(format!(
                "square '{t}' is not a playable square of {}",
                R::NAME
            )),
        };
    }
    if !t.bytes().all(|c| c.is_ascii_digit()) || t.len() > 4 {
        return err(format!("square '{t}' is not a square name"));
    }
    let n: usize = t
        .parse()
        .map_err(|_| NotationError(format!("square '{t}'")))?;
    if R::NUMBERING == Numbering::Algebraic && !R::ACCEPTS_NUMERIC_FEN {
        return err(format!(
            "square '{t}': {} squares are written a1-h8",
            R::NAME
        ));
    }
    match square_of_number::<R::Geo>(R::NUMBERING, n) {
        Some(s) => Ok(s),
        None => err(format!(
            "square {n} is off the board (1-{})",
            R::Geo::NUM_SQUARES
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::*;

    fn round_trip<R: Rules>() {
        for s in 0..R::Geo::NUM_SQUARES {
            assert_eq!(
                parse_square::<R>(&square_name::<R>(s)),
                Ok(s),
                "{}",
                R::NAME
            );
        }
    }

    #[test]
    fn squares_round_trip() {
        round_trip::<English>();
        round_trip::<Italian>();
        round_trip::<Spanish>();
        round_trip::<International>();
        round_trip::<Russian>();
        round_trip::<Brazilian>();
        round_trip::<Turkish>();
    }

    #[test]
    fn italian_numbers_on_the_turned_board() {
        // Italian 1 is a8 (Black's corner), 30 is d1, 27 e2, 23 f3: on our
        // mirrored board these are English 4 (h8), 31 (e1), 26 (d2), 22 (c3).
        let sq = |t| parse_square::<Italian>(t).unwrap();
        assert_eq!(sq("1"), 3);
        assert_eq!(sq("30"), 30);
        assert_eq!(sq("27"), 25);
        assert_eq!(sq("23"), 21);
    }

    #[test]
    fn spanish_numbers_from_white_lower_right() {
        // Spanish 1 is h1 (White's lower right), 32 is a8; mirrored these are
        // English 29 (a1) and 4 (h8).
        assert_eq!(parse_square::<Spanish>("1").unwrap(), 28);
        assert_eq!(parse_square::<Spanish>("4").unwrap(), 31);
        assert_eq!(parse_square::<Spanish>("32").unwrap(), 3);
    }

    #[test]
    fn russian_accepts_algebraic_and_english_numbers() {
        assert_eq!(parse_square::<Russian>("a1").unwrap(), 28);
        assert_eq!(parse_square::<Russian>("29").unwrap(), 28);
        assert_eq!(parse_square::<Russian>("h8").unwrap(), 3);
        assert!(parse_square::<Russian>("a2").is_err());
        assert!(parse_square::<Turkish>("12").is_err());
        assert!(parse_square::<International>("51").is_err());
        assert!(parse_square::<International>("0").is_err());
    }
}
