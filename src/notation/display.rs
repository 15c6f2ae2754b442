//! A board diagram for humans.
//!
//! ```text
//!    .  b  .  b  .  b  .  b      1  2  3  4
//!    ...
//! ```
//! White men `w`, White kings `W`, Black men `b`, Black kings `B`, empty
//! playable squares `.`, unplayable squares blank. Numeric variants show the
//! square numbers of each row on the right; algebraic ones show files and
//! ranks.

use super::square_name;
use crate::geometry::Geometry;
use crate::position::Position;
use crate::rules::{Color, Numbering, Rules};

/// Mirror of the displayed file for variants played on the turned board.
fn shown_file<R: Rules>(file: usize) -> usize {
    match R::NUMBERING {
        Numbering::TurnedTopLeft | Numbering::TurnedBottomRight => R::Geo::WIDTH - 1 - file,
        _ => file,
    }
}

/// The letter of what stands on square `s`, from `letters`: empty, white
/// man, white king, black man, black king.
pub fn piece_char<R: Rules>(pos: &Position<R>, s: usize, letters: [char; 5]) -> char {
    let b = R::Geo::bit(s);
    let king = usize::from(pos.kings() & b != 0);
    if pos.pieces(Color::White) & b != 0 {
        letters[1 + king]
    } else if pos.pieces(Color::Black) & b != 0 {
        letters[3 + king]
    } else {
        letters[0]
    }
}

/// Renders the position as text, White at the bottom.
pub fn diagram<R: Rules>(pos: &Position<R>) -> String {
    let w = R::Geo::WIDTH;
    let mut out = String::new();
    let algebraic = R::NUMBERING == Numbering::Algebraic;
    for rank in (0..R::Geo::HEIGHT).rev() {
        if algebraic {
            out.push_str(&format!("{:>2} ", rank + 1));
        }
        let mut numbers = Vec::new();
        for shown in 0..w {
            let file = shown_file::<R>(shown);
            match R::Geo::from_coords(file, rank) {
                Some(s) => {
                    let c = piece_char(pos, s, ['.', 'w', 'W', 'b', 'B']);
                    out.push_str(&format!(" {c} "));
                    numbers.push(square_name::<R>(s));
                }
                None => out.push_str("   "),
            }
        }
        if !algebraic {
            out.push_str("   ");
            for n in numbers {
                out.push_str(&format!("{n:>3}"));
            }
        }
        out.push('\n');
    }
    if algebraic {
        out.push_str("   ");
        for f in 0..w {
            out.push_str(&format!(" {} ", (b'a' + f as u8) as char));
        }
        out.push('\n');
    }
    let side = match pos.side() {
        Color::White => "White",
        Color::Black => "Black",
    };
    out.push_str(&format!(
        "{side} to move  FEN {}\n",
        super::fen::write_fen(pos)
    ));
    out
}
