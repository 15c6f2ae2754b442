//! The books built into the binary: every `books/<variant>.kdb` present at
//! build time (see `build.rs`), read once on first use.

use std::sync::{Arc, OnceLock};

use super::Book;
use crate::variant::Variant;

mod files {
    include!(concat!(env!("OUT_DIR"), "/books.rs"));
}

/// The embedded book file of variant `name` (`international`, `english`,
/// ...), if the build has one.
pub fn bytes(name: &str) -> Option<&'static [u8]> {
    files::EMBEDDED
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(_, b)| *b)
}

/// The embedded book of `variant`, if the build has one. A file that does
/// not read (a build defect: the tests read every embedded book) counts as
/// none, so the engine plays on without it; [`check`] says why.
pub fn book(variant: Variant) -> Option<Arc<Book>> {
    static CELLS: [OnceLock<Option<Arc<Book>>>; 7] = [const { OnceLock::new() }; 7];
    let i = Variant::ALL.iter().position(|&v| v == variant)?;
    CELLS[i]
        .get_or_init(|| check(variant).ok().flatten().map(Arc::new))
        .clone()
}

/// Reads the embedded book of `variant`: `Ok(None)` when the build has
/// none, an error naming what is wrong with it.
pub fn check(variant: Variant) -> Result<Option<Book>, String> {
    let Some(b) = bytes(variant.name()) else {
        return Ok(None);
    };
    let what = format!("embedded book books/{}.kdb", variant.name());
    let book = Book::from_bytes(b, &what)?;
    if book.variant() != variant {
        return Err(format!("{what} holds {} positions", book.variant().name()));
    }
    Ok(Some(book))
}
