//! [`Egdb`]: the tables of one variant in memory, probed without locks or
//! allocation.

use std::io::ErrorKind;
use std::path::Path;

use super::file::decode_file;
use super::index::{Layout, Signature, MAX_PIECES};
use super::{check_dir, decode, encode, table_path, variant_dir, white_to_move, Value, Wdl};
use crate::position::Position;
use crate::rules::{Color, Rules};

/// One signature's values and numbering.
#[derive(Debug)]
struct Table<R: Rules> {
    layout: Layout<R>,
    values: Box<[Value]>,
}

/// The endgame tables of variant `R` with up to `max_pieces` pieces, held
/// in memory.
#[derive(Debug)]
pub struct Egdb<R: Rules> {
    max_pieces: u32,
    /// By [`Signature::code`].
    tables: Vec<Option<Table<R>>>,
}

impl<R: Rules> Egdb<R> {
    /// No tables yet.
    pub fn empty() -> Self {
        let mut tables = Vec::with_capacity(Signature::CODES);
        tables.resize_with(Signature::CODES, || None);
        Egdb {
            max_pieces: 0,
            tables,
        }
    }

    /// Loads every table with up to `max_pieces` pieces from `dir` (the
    /// files are under `dir/<variant>/`). A missing or damaged file is an
    /// error naming it.
    pub fn open(dir: &Path, max_pieces: u32) -> Result<Self, String> {
        if !(2..=MAX_PIECES).contains(&max_pieces) {
            return Err(format!(
                "endgame databases have 2 to {MAX_PIECES} pieces, not {max_pieces}"
            ));
        }
        check_dir(dir)?;
        let mut db = Self::empty();
        for sig in Signature::all(max_pieces) {
            let layout = Layout::<R>::new(sig);
            let path = table_path::<R>(dir, sig);
            let bytes = match std::fs::read(&path) {
                Ok(b) => b,
                Err(e) if e.kind() == ErrorKind::NotFound => {
                    return Err(format!(
                    "{} is missing (build it with `kondavo egdb build --variant {} --pieces {}`)",
                    path.display(),
                    R::NAME,
                    max_pieces
                ))
                }
                Err(e) => return Err(format!("cannot read {}: {e}", path.display())),
            };
            let what = path.display().to_string();
            let values = decode_file(&bytes, &what, R::NAME, sig, layout.size())?;
            db.insert(sig, values);
        }
        db.max_pieces = max_pieces;
        Ok(db)
    }

    /// Adds (or replaces) the table of `sig`, whose values must follow
    /// [`Layout`]'s order.
    pub fn insert(&mut self, sig: Signature, values: Vec<Value>) {
        let layout = Layout::new(sig);
        debug_assert_eq!(layout.size(), values.len() as u64);
        self.max_pieces = self.max_pieces.max(sig.pieces());
        self.tables[sig.code()] = Some(Table {
            layout,
            values: values.into_boxed_slice(),
        });
    }

    /// Whether the table of `sig` is held.
    pub fn has(&self, sig: Signature) -> bool {
        sig.pieces() <= MAX_PIECES && self.tables[sig.code()].is_some()
    }

    /// The values of `sig`, if held.
    pub fn values(&self, sig: Signature) -> Option<&[Value]> {
        if sig.pieces() > MAX_PIECES {
            return None;
        }
        self.tables[sig.code()].as_ref().map(|t| &t.values[..])
    }

    /// The largest piece count of the tables held.
    pub fn max_pieces(&self) -> u32 {
        self.max_pieces
    }

    /// The stored value of `pos` for its side to move, or `None` when its
    /// signature's table is not held. A side to move with no piece has
    /// lost; a position whose other side has no piece is not in any table.
    #[inline]
    pub fn value(&self, pos: &Position<R>) -> Option<Value> {
        let p = white_to_move(pos);
        if p.pieces(Color::White) == 0 {
            return Some(encode(false, 0));
        }
        let sig = Signature::of(&p);
        if sig.pieces() > self.max_pieces
            || sig.bm + sig.bk == 0
            || p.man_on_promotion_row().is_some()
        {
            return None;
        }
        let t = self.tables[sig.code()].as_ref()?;
        Some(t.values[t.layout.index(&p) as usize])
    }

    /// The result and distance in plies (capped at 255) of `pos` for its
    /// side to move, or `None` when it is out of range. Any position in
    /// range is answered, a capture pending or not.
    #[inline]
    pub fn probe(&self, pos: &Position<R>) -> Option<(Wdl, u8)> {
        self.value(pos).map(|v| {
            let (w, d) = decode(v);
            (w, d.min(255) as u8)
        })
    }
}

/// The largest piece count of the tables of variant `R` in `dir` (the
/// files under `dir/<variant>/`). Every table up to that count must be
/// there for [`Egdb::open`]; this only looks at the names. An error when
/// `dir` is not a readable directory or holds no table of `R`.
pub fn held_pieces<R: Rules>(dir: &Path) -> Result<u32, String> {
    check_dir(dir)?;
    let vdir = variant_dir::<R>(dir);
    let none = || {
        format!(
            "no {} endgame tables in {} (build them with `kondavo egdb build --variant {} --pieces N --dir {}`)",
            R::NAME,
            dir.display(),
            R::NAME,
            dir.display()
        )
    };
    let entries = match std::fs::read_dir(&vdir) {
        Ok(e) => e,
        Err(e) if e.kind() == ErrorKind::NotFound => return Err(none()),
        Err(e) => return Err(format!("cannot read {}: {e}", vdir.display())),
    };
    let mut n = 0;
    for entry in entries {
        let entry = entry.map_err(|e| format!("cannot read {}: {e}", vdir.display()))?;
        let name = entry.file_name();
        let sig = name
            .to_str()
            .and_then(|s| s.strip_suffix(".egdb"))
            .and_then(|s| s.parse::<Signature>().ok());
        if let Some(sig) = sig {
            n = n.max(sig.pieces());
        }
    }
    match n {
        0 => Err(none()),
        n => Ok(n),
    }
}
