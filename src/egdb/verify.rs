//! Rechecks every stored value against the position's children.
//!
//! A value passes when it is what its children's stored values give
//! ([`super::Minimax`]): a win in `d` has a child lost in `d - 1` and none
//! lost sooner; a loss in `d` has only children won by the opponent, the
//! longest in `d - 1` (a loss in 0 has no legal move); a draw has no lost
//! child and at least one drawn child. Because every distance must match,
//! a table that passes is the exact solution, not just a consistent one.

use rayon::prelude::*;

use super::index::{Layout, Signature};
use super::probe::Egdb;
use super::{is_capped, value_from_children, value_text};
use crate::movegen::MoveList;
use crate::notation::fen::write_fen;
use crate::rules::Rules;

/// Positions checked per signature, for the report.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Checked {
    /// The signature.
    pub sig: Signature,
    /// Its positions.
    pub positions: u64,
}

/// Checks every table of `db` with up to `max_pieces` pieces. The first
/// disagreement found is an error naming the position (FEN), its stored
/// value and the value its children give.
pub fn verify<R: Rules>(db: &Egdb<R>, max_pieces: u32) -> Result<Vec<Checked>, String> {
    let mut out = Vec::new();
    for sig in Signature::all(max_pieces) {
        let values = db
            .values(sig)
            .ok_or_else(|| format!("{} table {sig} is not loaded", R::NAME))?;
        let layout = Layout::<R>::new(sig);
        let bad = (0..layout.size() as usize)
            .into_par_iter()
            .with_min_len(4096)
            .find_map_first(|i| {
                let pos = layout.position(i as u64);
                let stored = values[i];
                let mut list = MoveList::new();
                let expected = match value_from_children(&pos, &mut list, |c| db.value(c)) {
                    Some(v) => v,
                    None => {
                        return Some(format!("{}: a child's table is missing", write_fen(&pos)))
                    }
                };
                let agree = stored == expected
                    || (is_capped(stored) && is_capped(expected) && (stored ^ expected) & 1 == 0);
                (!agree).then(|| {
                    format!(
                        "{} table {sig}, position {} ({}): stored {}, its children give {}",
                        R::NAME,
                        i,
                        write_fen(&pos),
                        value_text(stored),
                        value_text(expected)
                    )
                })
            });
        if let Some(e) = bad {
            return Err(e);
        }
        out.push(Checked {
            sig,
            positions: layout.size(),
        });
    }
    Ok(out)
}
