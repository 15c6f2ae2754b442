//! The databases the search uses: one [`Slot`] per variant, set between
//! searches and read once at the start of each (the search then probes its
//! own reference, without locks).

use std::path::Path;
use std::sync::{Arc, RwLock};

use super::{held_pieces, Egdb};
use crate::eval::Evaluate;
use crate::rules::Rules;
use crate::variant::Variant;

/// Where a variant's databases live while in use.
#[derive(Debug)]
pub struct Slot<R: Rules>(RwLock<Option<Arc<Egdb<R>>>>);

impl<R: Rules> Slot<R> {
    /// An empty slot.
    pub const fn new() -> Self {
        Slot(RwLock::new(None))
    }

    /// The databases, if any.
    pub fn get(&self) -> Option<Arc<Egdb<R>>> {
        self.0.read().unwrap_or_else(|e| e.into_inner()).clone()
    }

    /// Replaces the databases (`None`: none). Searches already running keep
    /// the ones they started with.
    pub fn set(&self, db: Option<Arc<Egdb<R>>>) {
        *self.0.write().unwrap_or_else(|e| e.into_inner()) = db;
    }
}

impl<R: Rules> Default for Slot<R> {
    fn default() -> Self {
        Slot::new()
    }
}

/// Loads the tables of `variant` with up to `pieces` pieces (0: as many as
/// `dir` holds, see [`held_pieces`]) from `dir` and gives them to the
/// search; returns the piece count loaded. A missing, unreadable or damaged
/// file is an error naming it, and the variant's slot is left empty (the
/// search goes on without databases).
pub fn install(variant: Variant, dir: &Path, pieces: u32) -> Result<u32, String> {
    crate::with_rules!(variant, R => {
        let slot = <R as Evaluate>::egdb();
        slot.set(None);
        let n = if pieces == 0 { held_pieces::<R>(dir)? } else { pieces };
        let db = Egdb::<R>::open(dir, n)?;
        slot.set(Some(Arc::new(db)));
        Ok(n)
    })
}

/// Takes the databases of `variant` away from the search.
pub fn uninstall(variant: Variant) {
    crate::with_rules!(variant, R => <R as Evaluate>::egdb().set(None))
}

/// The largest piece count of the databases in use for `variant`, 0 when
/// there are none.
pub fn installed_pieces(variant: Variant) -> u32 {
    crate::with_rules!(variant, R => <R as Evaluate>::egdb().get().map_or(0, |d| d.max_pieces()))
}
