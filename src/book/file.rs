//! The book file.
//!
//! Little-endian, in this order:
//!
//! | offset | size | field |
//! |-------:|-----:|-------|
//! | 0  | 8  | magic `KDVBOOK\0` |
//! | 8  | 4  | format version ([`VERSION`]) |
//! | 12 | 16 | variant name, zero padded |
//! | 28 | 4  | zero |
//! | 32 | 8  | number of entries `n` |
//! | 40 | 8  | key of the variant's start position ([`super::key_check`]) |
//! | 48 | 24 `n` | the entries, sorted by key, each position's best first |
//! | 48 + 24 `n` | 8 | [`checksum`] of every byte before it |
//!
//! An entry (24 bytes, Polyglot's idea with room for a capture's set):
//!
//! | offset | size | field |
//! |-------:|-----:|-------|
//! | 0  | 8 | position key ([`crate::position::Position::key`]) |
//! | 8  | 8 | captured pieces: bit `s` for square index `s` |
//! | 16 | 1 | from: square index |
//! | 17 | 1 | to: square index |
//! | 18 | 2 | score of the move, centi-men, side to move (signed) |
//! | 20 | 4 | zero |
//!
//! Square indices are the geometry's 0-based square order, not bit
//! positions of the internal layout, so a move reads back whatever the
//! bitboards' ghost squares become.

use std::path::Path;

use super::{key_check, Entry};
pub use crate::egdb::file::checksum;
use crate::variant::Variant;

/// The first eight bytes of every book.
pub const MAGIC: &[u8; 8] = b"KDVBOOK\0";
/// The format version this code writes and reads.
pub const VERSION: u32 = 1;
/// Bytes before the first entry.
pub const HEADER: usize = 48;
/// Bytes of one entry.
pub const ENTRY: usize = 24;

/// The whole file for `entries` of `variant`, which must be sorted
/// ([`super::sort_entries`]).
pub fn encode(variant: Variant, entries: &[Entry]) -> Vec<u8> {
    let mut out = Vec::with_capacity(HEADER + ENTRY * entries.len() + 8);
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&VERSION.to_le_bytes());
    let mut name = [0u8; 16];
    let n = variant.name().len().min(16);
    name[..n].copy_from_slice(&variant.name().as_bytes()[..n]);
    out.extend_from_slice(&name);
    out.extend_from_slice(&[0u8; 4]);
    out.extend_from_slice(&(entries.len() as u64).to_le_bytes());
    out.extend_from_slice(&key_check(variant).to_le_bytes());
    for e in entries {
        out.extend_from_slice(&e.key.to_le_bytes());
        out.extend_from_slice(&e.captured.to_le_bytes());
        out.push(e.from);
        out.push(e.to);
        out.extend_from_slice(&e.score.to_le_bytes());
        out.extend_from_slice(&[0u8; 4]);
    }
    let sum = checksum(&out);
    out.extend_from_slice(&sum.to_le_bytes());
    out
}

fn u64_at(b: &[u8], o: usize) -> u64 {
    let mut a = [0u8; 8];
    a.copy_from_slice(&b[o..o + 8]);
    u64::from_le_bytes(a)
}

/// Reads a whole book back, checking everything the header promises:
/// magic, version, variant, size, checksum, the key scheme, the order of
/// the entries and that every square is on the board. `what` names the
/// file in errors. Returns the variant and the entries.
pub fn decode(bytes: &[u8], what: &str) -> Result<(Variant, Vec<Entry>), String> {
    let bad = |m: String| Err(format!("{what}: {m}"));
    if bytes.len() < HEADER + 8 {
        return bad(format!(
            "{} bytes is too short for a book (the header alone is {} bytes): truncated?",
            bytes.len(),
            HEADER + 8
        ));
    }
    if &bytes[..8] != MAGIC {
        return bad("not a kondavo book (bad magic)".into());
    }
    let version = u32::from_le_bytes([bytes[8], bytes[9], bytes[10], bytes[11]]);
    if version != VERSION {
        return bad(format!(
            "book format version {version}, this build reads {VERSION}"
        ));
    }
    let n = u64_at(bytes, 32);
    let want = n
        .checked_mul(ENTRY as u64)
        .and_then(|x| x.checked_add((HEADER + 8) as u64));
    if want != Some(bytes.len() as u64) {
        return bad(format!(
            "the header says {n} entries, which take {} bytes, but the file has {} bytes: \
             truncated or damaged",
            want.map_or_else(|| "too many".to_string(), |w| w.to_string()),
            bytes.len()
        ));
    }
    let body = bytes.len() - 8;
    let stored = u64_at(bytes, body);
    let actual = checksum(&bytes[..body]);
    if stored != actual {
        return bad(format!(
            "checksum mismatch (stored {stored:016x}, computed {actual:016x}): the file is damaged"
        ));
    }
    let name_end = bytes[12..28].iter().position(|&b| b == 0).unwrap_or(16);
    let name = String::from_utf8_lossy(&bytes[12..12 + name_end]).into_owned();
    let Ok(variant) = name.parse::<Variant>() else {
        return bad(format!("unknown variant {name:?}"));
    };
    if bytes[28..32] != [0; 4] {
        return bad("reserved header bytes are not zero".into());
    }
    let check = u64_at(bytes, 40);
    if check != key_check(variant) {
        return bad(format!(
            "written with another position key scheme (start position key {check:016x}, \
             this build's is {:016x}): rebuild the book",
            key_check(variant)
        ));
    }
    let squares = crate::with_rules!(variant, R =>
        <<R as crate::rules::Rules>::Geo as crate::geometry::Geometry>::NUM_SQUARES);
    let on_board = if squares >= 64 {
        u64::MAX
    } else {
        (1u64 << squares) - 1
    };
    let mut entries = Vec::with_capacity(n as usize);
    for (i, c) in bytes[HEADER..body].chunks_exact(ENTRY).enumerate() {
        let e = Entry {
            key: u64_at(c, 0),
            captured: u64_at(c, 8),
            from: c[16],
            to: c[17],
            score: i16::from_le_bytes([c[18], c[19]]),
        };
        if c[20..24] != [0; 4] {
            return bad(format!("entry {i}: reserved bytes are not zero"));
        }
        if e.from as usize >= squares || e.to as usize >= squares || e.captured & !on_board != 0 {
            return bad(format!(
                "entry {i}: a square off the {squares}-square board"
            ));
        }
        if let Some(prev) = entries.last() {
            if super::entry_order(prev, &e) == std::cmp::Ordering::Greater {
                return bad(format!("entry {i} is out of order"));
            }
        }
        entries.push(e);
    }
    Ok((variant, entries))
}

/// Writes a book atomically (a temporary name beside it, then a rename).
/// Returns its size in bytes.
pub fn write(path: &Path, variant: Variant, entries: &[Entry]) -> Result<u64, String> {
    let bytes = encode(variant, entries);
    crate::files::write_whole(path, &bytes)?;
    Ok(bytes.len() as u64)
}
