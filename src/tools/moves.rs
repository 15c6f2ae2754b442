//! `kondavo moves`: the legal moves of a position, each with the text the
//! Hub protocol expects, its PDN text and its captured squares in the
//! variant's notation, as plain lines or JSON lines, for people writing
//! adapters and GUIs.
//!
//! [`legal_moves`] is the library form: no Hub session, no search.

use crate::geometry::{Bits, Geometry};
use crate::movegen::{captures_with_paths, generate, Move, MoveList};
use crate::notation::bit_name;
use crate::notation::fen::parse_fen;
use crate::notation::movetext::move_to_pdn;
use crate::position::Position;
use crate::protocol::hubpos::{move_to_hub, square_to_hub_number};
use crate::rules::Rules;
use crate::tools::analyse::json_string;
use crate::variant::Variant;
use crate::with_rules;

/// One legal move, described in every notation an adapter needs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MoveInfo {
    /// The move as Hub sends and reads it: `from-to`, or `fromxto`
    /// followed by `x` and each captured square, in the Hub numbering of
    /// the variant (`protocol::hubpos`).
    pub hub: String,
    /// The move in PDN, in the variant's notation: start and end squares,
    /// the whole route only when that is ambiguous.
    pub pdn: String,
    /// Start square, in the variant's notation.
    pub from: String,
    /// End square, in the variant's notation.
    pub to: String,
    /// Captured squares, in the variant's notation, in notation order
    /// (by number; by rank then file for algebraic variants).
    pub captured: Vec<String>,
    /// The squares the piece stands on, from start to end: the start, each
    /// landing square of a capture, the end (one route when several take
    /// the same pieces).
    pub route: Vec<String>,
    /// A man becomes a king.
    pub promotes: bool,
}

impl MoveInfo {
    /// The plain line: the Hub text, the PDN text, then the captured
    /// squares, separated by single spaces.
    pub fn line(&self) -> String {
        let mut s = format!("{} {}", self.hub, self.pdn);
        for c in &self.captured {
            s.push(' ');
            s.push_str(c);
        }
        s
    }

    /// One JSON object on one line.
    pub fn json(&self) -> String {
        let list = |v: &[String]| {
            let items: Vec<String> = v.iter().map(|x| json_string(x)).collect();
            format!("[{}]", items.join(","))
        };
        format!(
            "{{\"hub\":{},\"pdn\":{},\"from\":{},\"to\":{},\"captured\":{},\"route\":{},\"promotes\":{}}}",
            json_string(&self.hub),
            json_string(&self.pdn),
            json_string(&self.from),
            json_string(&self.to),
            list(&self.captured),
            list(&self.route),
            self.promotes
        )
    }
}

/// Order of squares in notation: by number, or by rank then file.
fn notation_key<R: Rules>(bit: u8) -> (usize, usize) {
    let s = R::Geo::square(1u64 << bit);
    let name = bit_name::<R>(bit);
    match name.parse::<usize>() {
        Ok(n) => (n, 0),
        Err(_) => {
            let (file, rank) = R::Geo::coords(s);
            (rank, file)
        }
    }
}

/// The legal moves of `pos`, ordered by the Hub numbers of their start,
/// end and captured squares.
pub fn legal_moves<R: Rules>(pos: &Position<R>) -> Vec<MoveInfo> {
    let mut list = MoveList::new();
    generate(pos, &mut list);
    let (all, paths) = captures_with_paths(pos);
    let hub_key = |m: &Move| {
        let num = |b: u8| square_to_hub_number::<R>(R::Geo::square(1u64 << b));
        let mut caps: Vec<usize> = Bits(m.captured)
            .map(|b| num(b.trailing_zeros() as u8))
            .collect();
        caps.sort_unstable();
        (num(m.from), num(m.to), caps)
    };
    let mut moves: Vec<Move> = list.iter().copied().collect();
    moves.sort_by_key(hub_key);
    moves
        .iter()
        .map(|m| {
            let mut captured: Vec<u8> =
                Bits(m.captured).map(|b| b.trailing_zeros() as u8).collect();
            captured.sort_by_key(|&b| notation_key::<R>(b));
            let landing = all
                .iter()
                .zip(&paths)
                .find(|(c, _)| *c == m)
                .map(|(_, p)| p.clone())
                .unwrap_or_else(|| vec![m.to]);
            let route = std::iter::once(m.from)
                .chain(landing)
                .map(bit_name::<R>)
                .collect();
            MoveInfo {
                hub: move_to_hub::<R>(m),
                pdn: move_to_pdn(pos, m),
                from: bit_name::<R>(m.from),
                to: bit_name::<R>(m.to),
                captured: captured.into_iter().map(bit_name::<R>).collect(),
                route,
                promotes: m.promote,
            }
        })
        .collect()
}

/// The legal moves of a FEN (the start position when `None`) in a variant.
pub fn legal_moves_of(variant: Variant, fen: Option<&str>) -> Result<Vec<MoveInfo>, String> {
    with_rules!(variant, R => {
        let pos: Position<R> = match fen {
            Some(f) => parse_fen::<R>(f).map_err(|e| format!("bad FEN: {e}"))?,
            None => Position::start(),
        };
        Ok(legal_moves(&pos))
    })
}

/// `kondavo moves`: one line per legal move, plain or JSON. A position
/// with no legal move prints nothing.
pub fn run_moves(
    variant: Variant,
    fen: Option<&str>,
    json: bool,
    out: &mut dyn FnMut(String),
) -> Result<(), String> {
    for m in legal_moves_of(variant, fen)? {
        out(if json { m.json() } else { m.line() });
    }
    Ok(())
}
