//! perft: counts the leaves of the legal move tree, to check the move
//! generator against published numbers and to measure its speed.
//!
//! The last ply is bulk-counted (the moves of each node at depth 1 are
//! counted, not played). With more than one thread the root moves are
//! split over a rayon pool; the counts do not change.

use std::time::Instant;

use rayon::prelude::*;

use crate::movegen::{count_legal, generate_dups, MoveList};
use crate::notation::movetext::move_to_pdn;
use crate::position::Position;
use crate::rules::Rules;

/// Leaves of the move tree of depth `depth` below `pos`.
pub fn perft<R: Rules, const KEEP_DUPS: bool>(pos: &Position<R>, depth: u32) -> u64 {
    match depth {
        0 => 1,
        1 => count_legal::<R, KEEP_DUPS>(pos),
        _ => {
            let mut list = MoveList::new();
            generate_dups::<R, KEEP_DUPS>(pos, &mut list);
            list.iter()
                .map(|m| {
                    let mut child = *pos;
                    child.play_with::<false>(m);
                    perft::<R, KEEP_DUPS>(&child, depth - 1)
                })
                .sum()
        }
    }
}

/// As [`perft`], with the root moves shared among rayon's threads.
pub fn perft_parallel<R: Rules, const KEEP_DUPS: bool>(pos: &Position<R>, depth: u32) -> u64 {
    if depth < 3 {
        return perft::<R, KEEP_DUPS>(pos, depth);
    }
    let mut list = MoveList::new();
    generate_dups::<R, KEEP_DUPS>(pos, &mut list);
    list.par_iter()
        .map(|m| perft::<R, KEEP_DUPS>(&pos.played(m), depth - 1))
        .sum()
}

/// Per-root-move counts at `depth`, with each move in PDN notation.
pub fn divide<R: Rules>(pos: &Position<R>, depth: u32, keep_dups: bool) -> Vec<(String, u64)> {
    let mut list = MoveList::new();
    if keep_dups {
        generate_dups::<R, true>(pos, &mut list);
    } else {
        generate_dups::<R, false>(pos, &mut list);
    }
    list.iter()
        .map(|m| {
            let child = pos.played(m);
            let d = depth.saturating_sub(1);
            let n = if keep_dups {
                perft_parallel::<R, true>(&child, d)
            } else {
                perft_parallel::<R, false>(&child, d)
            };
            (move_to_pdn(pos, m), n)
        })
        .collect()
}

/// Options of one perft run.
#[derive(Clone, Debug)]
pub struct PerftOptions {
    /// Deepest depth counted.
    pub depth: u32,
    /// Print the count of each root move at the last depth.
    pub divide: bool,
    /// Threads (1 = sequential).
    pub threads: usize,
    /// Count capture routes with the same from, to and captured set
    /// separately.
    pub keep_duplicates: bool,
}

/// One result line: depth, leaves, seconds.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PerftLine {
    /// Depth counted.
    pub depth: u32,
    /// Leaves.
    pub nodes: u64,
    /// Seconds taken.
    pub seconds: f64,
}

impl std::fmt::Display for PerftLine {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let nps = if self.seconds > 0.0 {
            self.nodes as f64 / self.seconds
        } else {
            0.0
        };
        write!(
            f,
            "depth={} nodes={} time={:.3} nps={:.0}",
            self.depth, self.nodes, self.seconds, nps
        )
    }
}

/// Runs perft at depths 1..=`opts.depth`, calling `out` with each line of
/// output (divide lines first, then one line per depth). Depth 0 counts
/// the one empty path: `depth=0 nodes=1`.
pub fn run<R: Rules>(pos: &Position<R>, opts: &PerftOptions, out: &mut (dyn FnMut(String) + Send)) {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(opts.threads.max(1))
        .build();
    let mut go = || {
        if opts.depth == 0 {
            out(PerftLine {
                depth: 0,
                nodes: 1,
                seconds: 0.0,
            }
            .to_string());
            return;
        }
        if opts.divide {
            let t = Instant::now();
            let rows = divide(pos, opts.depth, opts.keep_duplicates);
            let total: u64 = rows.iter().map(|r| r.1).sum();
            for (m, n) in &rows {
                out(format!("{m}: {n}"));
            }
            out(format!("moves={} total={total}", rows.len()));
            out(PerftLine {
                depth: opts.depth,
                nodes: total,
                seconds: t.elapsed().as_secs_f64(),
            }
            .to_string());
            return;
        }
        for d in 1..=opts.depth {
            let t = Instant::now();
            let nodes = match (opts.threads > 1, opts.keep_duplicates) {
                (false, false) => perft::<R, false>(pos, d),
                (false, true) => perft::<R, true>(pos, d),
                (true, false) => perft_parallel::<R, false>(pos, d),
                (true, true) => perft_parallel::<R, true>(pos, d),
            };
            out(PerftLine {
                depth: d,
                nodes,
                seconds: t.elapsed().as_secs_f64(),
            }
            .to_string());
        }
    };
    match pool {
        Ok(pool) => pool.install(go),
        Err(_) => go(),
    }
}
