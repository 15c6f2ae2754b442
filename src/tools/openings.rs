//! Openings for matches: a built-in generator of balanced openings per
//! variant, and readers for user-supplied lists (FENs, ballots of moves,
//! PDN games).

use std::time::Instant;

use crate::eval::Evaluate;
use crate::movegen::{generate, Move, MoveList};
use crate::notation::fen::parse_fen;
use crate::notation::movetext::parse_move;
use crate::notation::pdn::{parse_pdn, replay};
use crate::position::Position;
use crate::search::threads::Searcher;
use crate::search::{Job, Limits};

/// A start position and the moves that open the game from it.
#[derive(Clone, Debug, PartialEq)]
pub struct Opening<R: Evaluate> {
    /// Where the game record starts (its FEN tag).
    pub start: Position<R>,
    /// Moves played from `start` before the engines take over.
    pub moves: Vec<Move>,
}

impl<R: Evaluate> Opening<R> {
    /// The position the engines start from.
    pub fn position(&self) -> Position<R> {
        let mut p = self.start;
        for m in &self.moves {
            p.play(m);
        }
        p
    }
}

/// Depth of the balance check of generated openings.
const BALANCE_DEPTH: i32 = 6;

/// `count` openings of `plies` random moves from the start position whose
/// score, by a search of depth 6, stays within `max_cp` centi-men of
/// equality. Deterministic for a given seed; no two end in the same
/// position.
pub fn generate_openings<R: Evaluate>(
    count: usize,
    plies: usize,
    max_cp: i32,
    seed: u64,
) -> Vec<Opening<R>> {
    let mut rng = seed | 1;
    let mut next = move || {
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        rng
    };
    let mut out: Vec<Opening<R>> = Vec::new();
    let mut seen = rustc_hash::FxHashSet::default();
    let mut searcher = Searcher::<R>::new(1, 4);
    let mut tries = 0;
    while out.len() < count && tries < count * 200 + 1000 {
        tries += 1;
        let start = Position::<R>::start();
        let mut pos = start;
        let mut moves = Vec::new();
        let mut ok = true;
        for _ in 0..plies {
            let mut list = MoveList::new();
            generate(&pos, &mut list);
            if list.is_empty() {
                ok = false;
                break;
            }
            let mv = list[(next() % list.len() as u64) as usize];
            moves.push(mv);
            pos.play(&mv);
        }
        if !ok || !seen.insert(pos.key()) {
            continue;
        }
        let mut list = MoveList::new();
        generate(&pos, &mut list);
        if list.is_empty() {
            continue;
        }
        let job = Job {
            root: pos,
            history: Vec::new(),
            reversible: 0,
            limits: Limits::depth(BALANCE_DEPTH),
            multipv: 1,
            start: Instant::now(),
            ponder: false,
        };
        let r = searcher.search(&job, &mut |_| {});
        if r.score.abs() <= max_cp {
            out.push(Opening { start, moves });
        }
    }
    out
}

/// Reads openings from text: a PDN file (every game gives its start
/// position and all its moves), or one opening per line, either a FEN or a
/// ballot of moves from the start position (`09-13 21-17 05-09`, move
/// numbers and a leading ballot number are skipped). Blank lines and lines
/// starting with `#` are ignored. Errors name the line.
pub fn read_openings<R: Evaluate>(text: &str) -> Result<Vec<Opening<R>>, String> {
    if text.trim_start().starts_with('[') {
        let mut out = Vec::new();
        for (i, g) in parse_pdn(text).into_iter().enumerate() {
            let g = g.map_err(|e| format!("opening game {}: {e}", i + 1))?;
            let (start, played) =
                replay::<R>(&g).map_err(|e| format!("opening game {}: {e}", i + 1))?;
            out.push(Opening {
                start,
                moves: played.into_iter().map(|(_, m)| m).collect(),
            });
        }
        return Ok(out);
    }
    let mut out = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        if line.contains(':')
            && (line.starts_with(['W', 'B', 'w', 'b', '?']) || line.starts_with('"'))
        {
            let p = parse_fen::<R>(line).map_err(|e| format!("openings line {}: {e}", n + 1))?;
            out.push(Opening {
                start: p,
                moves: Vec::new(),
            });
            continue;
        }
        let start = Position::<R>::start();
        let mut pos = start;
        let mut moves = Vec::new();
        for (k, tok) in line.split_whitespace().enumerate() {
            // Ballot numbers ("001") and move numbers ("1.", "1...").
            let is_number = tok
                .trim_end_matches('.')
                .bytes()
                .all(|c| c.is_ascii_digit())
                && !tok.contains(['-', 'x', ':']);
            if is_number && (k == 0 || tok.ends_with('.')) {
                continue;
            }
            let mv = parse_move(&pos, tok).map_err(|e| format!("openings line {}: {e}", n + 1))?;
            moves.push(mv);
            pos.play(&mv);
        }
        out.push(Opening { start, moves });
    }
    if out.is_empty() {
        return Err("no openings in the file".into());
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::{English, International, Russian};

    #[test]
    fn generated_openings_are_distinct_and_balanced() {
        let o = generate_openings::<Russian>(6, 4, 60, 7);
        assert_eq!(o.len(), 6);
        let keys: rustc_hash::FxHashSet<u64> = o.iter().map(|x| x.position().key()).collect();
        assert_eq!(keys.len(), 6);
        assert!(o.iter().all(|x| x.moves.len() == 4));
        assert_eq!(generate_openings::<Russian>(6, 4, 60, 7), o);
    }

    #[test]
    fn ballots_and_fens() {
        let o =
            read_openings::<English>("# ACF\n001 09-13 21-17 05-09\n\nB:W21-32:B1-12\n").unwrap();
        assert_eq!(o.len(), 2);
        assert_eq!(o[0].moves.len(), 3);
        assert!(o[1].moves.is_empty());
        let e = read_openings::<International>("32-28 32-28\n").unwrap_err();
        assert!(e.contains("line 1"), "{e}");
    }
}
