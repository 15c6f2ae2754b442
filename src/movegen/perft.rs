//! perft: counts the leaves of the legal move tree, to check the move
//! generator against published numbers and to measure its speed.
//!
//! The last ply is bulk-counted (the moves of each node at depth 1 are
//! counted, not played). [`perft_parallel`] splits the root moves over the
//! current rayon pool; the counts do not change. The `perft` command and
//! the Hub's stoppable count are built on these.

use rayon::prelude::*;

use super::{count_legal, generate_dups, Move, MoveList};
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

/// Each root move with the leaves below it at `depth` (each subtree
/// counted with [`perft_parallel`]), in generation order.
pub fn divide<R: Rules>(pos: &Position<R>, depth: u32, keep_dups: bool) -> Vec<(Move, u64)> {
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
            (*m, n)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::{English, International};

    #[test]
    fn divide_splits_perft_by_root_move() {
        let pos = Position::<International>::start();
        let rows = divide(&pos, 4, false);
        assert_eq!(rows.len(), 9);
        assert_eq!(rows.iter().map(|r| r.1).sum::<u64>(), 4265);
        for (m, n) in &rows {
            assert_eq!(*n, perft::<International, false>(&pos.played(m), 3));
        }
        let pos = Position::<English>::start();
        let rows = divide(&pos, 3, true);
        assert_eq!(rows.iter().map(|r| r.1).sum::<u64>(), 302);
        assert_eq!(perft_parallel::<English, true>(&pos, 6), 36_768);
    }
}
