//! The `perft` command: runs the counters of [`crate::movegen::perft`] at
//! each depth (or divided by root move) and words their results as lines.

use std::time::Instant;

use crate::movegen::perft::{divide, perft, perft_parallel};
use crate::notation::movetext::move_to_pdn;
use crate::position::Position;
use crate::rules::Rules;

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
                out(format!("{}: {n}", move_to_pdn(pos, m)));
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::English;

    #[test]
    fn divide_lines_name_each_root_move_in_pdn() {
        let opts = PerftOptions {
            depth: 3,
            divide: true,
            threads: 2,
            keep_duplicates: false,
        };
        let mut lines = Vec::new();
        run(&Position::<English>::start(), &opts, &mut |l| lines.push(l));
        assert_eq!(lines.len(), 7 + 2, "{lines:?}");
        assert_eq!(lines[0], "9-14: 40");
        assert_eq!(lines[3], "9-13: 48");
        assert_eq!(lines[7], "moves=7 total=302");
        assert!(lines[8].starts_with("depth=3 nodes=302 "), "{lines:?}");
    }
}
