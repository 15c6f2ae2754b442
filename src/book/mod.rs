//! Opening books: positions with their moves and scores, probed by
//! position key.
//!
//! A book is one file of fixed-size entries sorted by key, as Polyglot's
//! chess books are ([`mod@file`]): each entry is one move of one position and
//! its score in centi-men for the side to move, so a probe is a binary
//! search and a run of entries, with no index. The key is the position's
//! Zobrist key ([`Position::key`]): a constant table built at compile time
//! from fixed seeds, the same in every build and every run; the header
//! holds the key of the variant's start position, so a build whose keys
//! differ refuses the book instead of missing every position in it.
//!
//! A probe generates the legal moves and keeps only the book moves among
//! them (a move is its from and to squares and the set of pieces it
//! takes): a damaged or foreign entry can never be played.
//!
//! - [`mod@file`]: the format, its checks and the atomic write;
//! - [`tree`]: the tree a book is built from by drop-out expansion (the
//!   search that scores its leaves is the caller's, `kondavo book build`);
//! - [`embedded`]: the books built into the binary, one per variant.
//!
//! Play goes through a [`Chooser`]: a uniform choice among the book moves
//! within a margin of the best, from a seeded generator so that games can
//! be replayed.

pub mod embedded;
pub mod file;
pub mod tree;

use std::cmp::Ordering;
use std::path::Path;
use std::sync::Arc;

use crate::geometry::{Bits, Geometry};
use crate::movegen::{generate, Move, MoveList};
use crate::position::Position;
use crate::rules::Rules;
use crate::variant::Variant;

/// One move of one position.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Entry {
    /// The position's key.
    pub key: u64,
    /// Captured pieces: bit `s` for geometry square index `s`.
    pub captured: u64,
    /// Square index the piece moves from.
    pub from: u8,
    /// Square index it ends on.
    pub to: u8,
    /// Score of the move in centi-men, for the side to move.
    pub score: i16,
}

/// The order of entries in a file: by key, then best score first, then by
/// move (so that a book's bytes are a function of its contents).
pub fn entry_order(a: &Entry, b: &Entry) -> Ordering {
    a.key
        .cmp(&b.key)
        .then(b.score.cmp(&a.score))
        .then(a.from.cmp(&b.from))
        .then(a.to.cmp(&b.to))
        .then(a.captured.cmp(&b.captured))
}

/// Sorts entries into file order.
pub fn sort_entries(entries: &mut [Entry]) {
    entries.sort_unstable_by(entry_order);
}

/// The key of `variant`'s start position: written in every book's header
/// and checked on reading.
pub fn key_check(variant: Variant) -> u64 {
    crate::with_rules!(variant, R => Position::<R>::start().key())
}

/// A score clamped into an entry.
pub fn entry_score(score: i32) -> i16 {
    score.clamp(i16::MIN as i32 + 1, i16::MAX as i32) as i16
}

/// A move's squares as an entry stores them: (from, to, captured).
pub fn encode_move<R: Rules>(mv: &Move) -> (u8, u8, u64) {
    let sq = |bit: u8| <R::Geo as Geometry>::square(1u64 << bit) as u8;
    let mut captured = 0u64;
    for b in Bits(mv.captured) {
        captured |= 1u64 << <R::Geo as Geometry>::square(b);
    }
    (sq(mv.from), sq(mv.to), captured)
}

/// The entry of `mv` in `pos` with `score`.
pub fn entry_of<R: Rules>(pos: &Position<R>, mv: &Move, score: i32) -> Entry {
    let (from, to, captured) = encode_move::<R>(mv);
    Entry {
        key: pos.key(),
        captured,
        from,
        to,
        score: entry_score(score),
    }
}

/// A legal move the book knows, and its score (centi-men, side to move).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BookMove {
    /// The move.
    pub mv: Move,
    /// Its score.
    pub score: i32,
}

/// A book in memory: the entries of one variant, in file order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Book {
    variant: Variant,
    entries: Vec<Entry>,
}

impl Book {
    /// A book of `entries` (sorted here).
    pub fn new(variant: Variant, mut entries: Vec<Entry>) -> Self {
        sort_entries(&mut entries);
        Book { variant, entries }
    }

    /// Reads a book from a file's bytes (see [`file::decode`]); `what`
    /// names it in errors.
    pub fn from_bytes(bytes: &[u8], what: &str) -> Result<Self, String> {
        let (variant, entries) = file::decode(bytes, what)?;
        Ok(Book { variant, entries })
    }

    /// Reads and checks a book file. Errors name the file and what is
    /// wrong with it.
    pub fn open(path: &Path) -> Result<Self, String> {
        match std::fs::metadata(path) {
            Ok(m) if m.is_dir() => {
                return Err(format!(
                    "{} is a directory, not a book file",
                    path.display()
                ))
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return Err(format!("book file {} not found", path.display()))
            }
            _ => {}
        }
        let bytes =
            std::fs::read(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
        Self::from_bytes(&bytes, &path.display().to_string())
    }

    /// Reads a book file that must hold `variant`'s positions.
    pub fn open_for(path: &Path, variant: Variant) -> Result<Self, String> {
        let b = Self::open(path)?;
        if b.variant != variant {
            return Err(format!(
                "{} holds {} positions, not {variant}",
                path.display(),
                b.variant
            ));
        }
        Ok(b)
    }

    /// Writes the book atomically; returns its size in bytes.
    pub fn write(&self, path: &Path) -> Result<u64, String> {
        file::write(path, self.variant, &self.entries)
    }

    /// The file's bytes.
    pub fn to_bytes(&self) -> Vec<u8> {
        file::encode(self.variant, &self.entries)
    }

    /// The variant of the book's positions.
    pub fn variant(&self) -> Variant {
        self.variant
    }

    /// Every entry, in file order.
    pub fn entries(&self) -> &[Entry] {
        &self.entries
    }

    /// Number of positions (distinct keys).
    pub fn positions(&self) -> usize {
        let mut n = 0;
        let mut last = None;
        for e in &self.entries {
            if last != Some(e.key) {
                n += 1;
                last = Some(e.key);
            }
        }
        n
    }

    /// The entries of the position with `key`, best first.
    pub fn entries_of(&self, key: u64) -> &[Entry] {
        let lo = self.entries.partition_point(|e| e.key < key);
        let hi = lo + self.entries[lo..].partition_point(|e| e.key == key);
        &self.entries[lo..hi]
    }

    /// Plies the book goes on from `pos` along its best moves, at most
    /// `cap`: 0 where it has no move.
    pub fn line_depth<R: Rules>(&self, pos: &Position<R>, cap: u32) -> u32 {
        let mut pos = *pos;
        let mut depth = 0;
        while depth < cap {
            match self.moves(&pos).first() {
                Some(m) => pos.play(&m.mv),
                None => break,
            }
            depth += 1;
        }
        depth
    }

    /// The legal moves of `pos` the book holds, best first (an entry that
    /// matches no legal move is ignored). Empty when the book is of
    /// another variant.
    pub fn moves<R: Rules>(&self, pos: &Position<R>) -> Vec<BookMove> {
        if self.variant.name() != R::NAME {
            return Vec::new();
        }
        let found = self.entries_of(pos.key());
        if found.is_empty() {
            return Vec::new();
        }
        let mut list = MoveList::new();
        generate(pos, &mut list);
        let mut out: Vec<BookMove> = Vec::new();
        for e in found {
            let legal = list
                .iter()
                .find(|m| encode_move::<R>(m) == (e.from, e.to, e.captured));
            if let Some(mv) = legal {
                if !out.iter().any(|b| b.mv == *mv) {
                    out.push(BookMove {
                        mv: *mv,
                        score: e.score as i32,
                    });
                }
            }
        }
        out
    }

    /// The best book move of `pos`.
    pub fn best<R: Rules>(&self, pos: &Position<R>) -> Option<BookMove> {
        self.moves(pos).into_iter().next()
    }
}

/// SplitMix64: small, fast, and the same sequence on every machine.
fn splitmix(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut x = *state;
    x = (x ^ (x >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    x ^ (x >> 31)
}

/// A seed from the clock and the process, for a choice that differs from
/// run to run.
pub fn clock_seed() -> u64 {
    let t = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as u64);
    let mut s = t ^ ((std::process::id() as u64) << 32);
    splitmix(&mut s)
}

/// Default margin in centi-men (Scan's `book-margin` is 4 as well, on its
/// own scale). In English a match from the start position with a margin
/// of 10 lost Elo against the same engine without a book, where the
/// book's best moves alone won it (docs/book.md); 4 keeps a choice of two
/// first moves there, and of eight in International.
pub const DEFAULT_MARGIN: i32 = 4;

/// Default of [`Chooser::ply_limit`] (`book-ply`): the margin applies to
/// the first four plies, as Scan's default `book-ply`. A margin applied at
/// every book move adds up: four moves each up to 0.1 man worse than the
/// best cost as much as a lost tempo.
pub const DEFAULT_BOOK_PLY: usize = 4;

/// Default of [`Chooser::min_depth`]: the plies the book must go on past
/// a move, along its best line, for the move to be played. Near the end
/// of a book's lines its scores are single searches, shallower than the
/// engine's own search in a game; a move whose line goes on is scored by
/// the minimax of deeper searches.
pub const DEFAULT_MIN_DEPTH: u32 = 0;

/// Chooses among book moves: among those within `margin` centi-men of the
/// best, one this chooser has played least often in the position, at
/// random among those, with a seeded generator (the same seed and the same
/// positions give the same choices).
///
/// Counting what was played makes a long session (a match, a GUI's games)
/// go through the book's lines in turn: a uniform choice alone repeats a
/// line as soon as a few games have been played (two games of a book with
/// eight lines share one with odds of one in eight), while the least
/// played choice repeats none until every line within the margin has been
/// played.
#[derive(Clone, Debug)]
pub struct Chooser {
    margin: i32,
    /// Plies the book must go on past a move for the move to be played.
    min_depth: u32,
    /// Plies from the start position within which the margin applies.
    ply_limit: usize,
    state: u64,
    /// Times each book move was chosen: (position key, index of the move
    /// among the position's book moves).
    played: rustc_hash::FxHashMap<(u64, usize), u32>,
}

impl Chooser {
    /// A chooser with `margin` and `seed` (0: a seed from the clock).
    pub fn new(margin: i32, seed: u64) -> Self {
        let mut c = Chooser {
            margin,
            min_depth: DEFAULT_MIN_DEPTH,
            ply_limit: DEFAULT_BOOK_PLY,
            state: 0,
            played: Default::default(),
        };
        c.reseed(seed);
        c
    }

    /// Restarts the generator from `seed` (0: from the clock) and forgets
    /// what was played.
    pub fn reseed(&mut self, seed: u64) {
        self.state = if seed == 0 { clock_seed() } else { seed };
        self.played.clear();
    }

    /// The margin in centi-men.
    pub fn margin(&self) -> i32 {
        self.margin
    }

    /// Changes the margin.
    pub fn set_margin(&mut self, margin: i32) {
        self.margin = margin.max(0);
    }

    /// The plies the book must go on past a move (along its best line)
    /// for the move to be played.
    pub fn min_depth(&self) -> u32 {
        self.min_depth
    }

    /// Changes that depth.
    pub fn set_min_depth(&mut self, plies: u32) {
        self.min_depth = plies;
    }

    /// The plies from the start position within which the margin applies
    /// (`book-ply`); later, and where the plies are not known, only the
    /// moves of the best score are chosen among.
    pub fn ply_limit(&self) -> usize {
        self.ply_limit
    }

    /// Changes that limit.
    pub fn set_ply_limit(&mut self, plies: usize) {
        self.ply_limit = plies;
    }

    /// A book move for `pos`, or `None` when the book has none, or when
    /// the move is forced: a single legal move is left to the search, as
    /// Scan does, so that its score means something. The generator
    /// advances only when there is a choice to make.
    ///
    /// `ply` is the number of plies played since the start position, when
    /// the game began there: the margin applies only within the first
    /// [`Chooser::ply_limit`] plies.
    pub fn choose<R: Rules>(
        &mut self,
        book: &Book,
        pos: &Position<R>,
        ply: Option<usize>,
    ) -> Option<BookMove> {
        let moves = book.moves(pos);
        if moves.is_empty() {
            return None;
        }
        let mut list = MoveList::new();
        generate(pos, &mut list);
        if list.len() < 2 {
            return None;
        }
        let best = moves.first()?.score;
        let key = pos.key();
        let margin = if ply.is_some_and(|p| p < self.ply_limit) {
            self.margin
        } else {
            0
        };
        let near: Vec<(usize, BookMove)> = moves
            .into_iter()
            .enumerate()
            .filter(|(_, m)| m.score >= best.saturating_sub(margin))
            .filter(|(_, m)| book.line_depth(&pos.played(&m.mv), self.min_depth) >= self.min_depth)
            .collect();
        match near.len() {
            0 => return None,
            1 => return Some(near[0].1),
            _ => {}
        }
        let count = |i: usize| self.played.get(&(key, i)).copied().unwrap_or(0);
        let least = near.iter().map(|&(i, _)| count(i)).min()?;
        let fresh: Vec<(usize, BookMove)> = near
            .iter()
            .copied()
            .filter(|&(i, _)| count(i) == least)
            .collect();
        let (i, m) = fresh[(splitmix(&mut self.state) % fresh.len() as u64) as usize];
        *self.played.entry((key, i)).or_insert(0) += 1;
        Some(m)
    }
}

/// The book a face plays from: a file, or the variant's embedded book.
#[derive(Clone, Debug)]
pub enum Source {
    /// No book.
    Off,
    /// The book built into the binary for the variant, if any.
    Embedded,
    /// A book read from a file.
    File(Arc<Book>),
}

impl Source {
    /// The book for `variant`, if any.
    pub fn book(&self, variant: Variant) -> Option<Arc<Book>> {
        match self {
            Source::Off => None,
            Source::Embedded => embedded::book(variant),
            Source::File(b) if b.variant() == variant => Some(b.clone()),
            Source::File(_) => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::{English, International, Russian};

    fn sample<R: Rules>() -> (Position<R>, Vec<Entry>) {
        let pos = Position::<R>::start();
        let mut list = MoveList::new();
        generate(&pos, &mut list);
        let entries = list
            .iter()
            .enumerate()
            .map(|(i, m)| entry_of(&pos, m, 10 - 3 * i as i32))
            .collect();
        (pos, entries)
    }

    #[test]
    fn books_round_trip_and_probe_best_first() {
        let (pos, entries) = sample::<International>();
        let book = Book::new(Variant::International, entries.clone());
        let bytes = book.to_bytes();
        assert_eq!(bytes.len(), file::HEADER + file::ENTRY * entries.len() + 8);
        let back = Book::from_bytes(&bytes, "b").unwrap();
        assert_eq!(back, book);
        let moves = back.moves(&pos);
        assert_eq!(moves.len(), 9);
        assert!(moves.windows(2).all(|w| w[0].score >= w[1].score));
        assert_eq!(moves[0].score, 10);
        assert_eq!(back.positions(), 1);
        // Another variant's position is never found.
        assert!(back.moves(&Position::<Russian>::start()).is_empty());
    }

    #[test]
    fn illegal_entries_are_ignored() {
        let (pos, mut entries) = sample::<English>();
        // A move from an empty square, scored best: never offered.
        entries.push(Entry {
            key: pos.key(),
            captured: 0,
            from: 15,
            to: 16,
            score: 500,
        });
        let book = Book::new(Variant::English, entries);
        let moves = book.moves(&pos);
        assert_eq!(moves.len(), 7);
        assert!(moves.iter().all(|m| m.score < 500));
    }

    #[test]
    fn damage_and_truncation_are_refused_with_the_reason() {
        let (_, entries) = sample::<International>();
        let bytes = Book::new(Variant::International, entries).to_bytes();
        let err = Book::from_bytes(&bytes[..bytes.len() - 5], "b").unwrap_err();
        assert!(err.contains("truncated"), "{err}");
        let err = Book::from_bytes(&bytes[..20], "b").unwrap_err();
        assert!(err.contains("too short"), "{err}");
        for at in [0, 9, 13, 33, 41, 50, 70, bytes.len() - 1] {
            let mut bad = bytes.clone();
            bad[at] ^= 0x20;
            let err = Book::from_bytes(&bad, "b").unwrap_err();
            assert!(err.starts_with("b: "), "byte {at}: {err}");
        }
        let mut bad = bytes.clone();
        bad[60] ^= 1;
        assert!(Book::from_bytes(&bad, "b")
            .unwrap_err()
            .contains("checksum"));
    }

    #[test]
    fn a_forced_move_is_left_to_the_search() {
        let pos = crate::notation::fen::parse_fen::<International>("W:W28:B23,19").unwrap();
        let mut list = MoveList::new();
        generate(&pos, &mut list);
        assert_eq!(list.len(), 1);
        let book = Book::new(Variant::International, vec![entry_of(&pos, &list[0], 50)]);
        assert_eq!(book.moves(&pos).len(), 1);
        assert_eq!(Chooser::new(0, 1).choose(&book, &pos, Some(0)), None);
    }

    fn opening_plies_count_the_moves<R: Rules>() {
        let mut pos = Position::<R>::start();
        assert_eq!(pos.opening_plies(), Some(0));
        for ply in 1..=8 {
            let mut list = MoveList::new();
            generate(&pos, &mut list);
            // The last legal move, to vary the men that move.
            let before = pos.count(pos.side().flip());
            pos.play(&list[list.len() - 1]);
            if pos.count(pos.side()) != before {
                assert_eq!(pos.opening_plies(), None, "after a capture");
                return;
            }
            assert_eq!(pos.opening_plies(), Some(ply));
        }
    }

    #[test]
    fn the_opening_plies_are_read_off_the_position() {
        opening_plies_count_the_moves::<International>();
        opening_plies_count_the_moves::<crate::rules::English>();
        opening_plies_count_the_moves::<crate::rules::Italian>();
        opening_plies_count_the_moves::<crate::rules::Russian>();
    }

    #[test]
    fn a_move_whose_line_ends_too_soon_is_left_to_the_search() {
        // The start position's first two moves (10 and 7): behind the
        // first the book goes on for two plies along its best moves,
        // behind the second for none.
        let (start, mut entries) = sample::<International>();
        let mut list = MoveList::new();
        generate(&start, &mut list);
        let mut pos = start.played(&list[0]);
        for score in [5, 3] {
            let mut replies = MoveList::new();
            generate(&pos, &mut replies);
            entries.push(entry_of(&pos, &replies[0], score));
            pos.play(&replies[0]);
        }
        let book = Book::new(Variant::International, entries);
        assert_eq!(book.line_depth(&start, 10), 3);
        assert_eq!(book.line_depth(&start.played(&list[0]), 10), 2);
        assert_eq!(book.line_depth(&start.played(&list[0]), 1), 1);
        assert_eq!(book.line_depth(&start.played(&list[1]), 10), 0);
        let mut c = Chooser::new(3, 5);
        // Within the margin, 10 and 7; with no depth asked, both are played.
        let both: std::collections::HashSet<_> = (0..6)
            .map(|_| c.choose(&book, &start, Some(0)).unwrap().mv)
            .collect();
        assert_eq!(both.len(), 2);
        c.set_min_depth(2);
        for _ in 0..6 {
            assert_eq!(c.choose(&book, &start, Some(0)).unwrap().mv, list[0]);
        }
        c.set_min_depth(3);
        assert_eq!(
            c.choose(&book, &start, Some(0)),
            None,
            "no move has 3 plies of book behind it"
        );
    }

    #[test]
    fn the_chooser_keeps_to_the_margin_and_repeats_with_its_seed() {
        let (pos, entries) = sample::<International>();
        let book = Book::new(Variant::International, entries);
        let mut narrow = Chooser::new(0, 7);
        for _ in 0..20 {
            assert_eq!(narrow.choose(&book, &pos, Some(0)).unwrap().score, 10);
        }
        let picks = |seed| {
            let mut c = Chooser::new(7, seed);
            (0..40)
                .map(|_| c.choose(&book, &pos, Some(0)).unwrap())
                .collect::<Vec<_>>()
        };
        let a = picks(99);
        assert_eq!(a, picks(99));
        assert!(a.iter().all(|m| m.score >= 3));
        let distinct: std::collections::HashSet<_> = a.iter().map(|m| m.mv).collect();
        assert_eq!(distinct.len(), 3, "10, 7 and 4 are within 7 of the best");
        // Past the first plies, or with the plies unknown, only the best.
        let mut late = Chooser::new(7, 3);
        for ply in [Some(4), Some(30), None] {
            assert_eq!(late.choose(&book, &pos, ply).unwrap().score, 10);
        }
        // Each move is played once before any is played again.
        for round in a.chunks(3).take(13) {
            let moves: std::collections::HashSet<_> = round.iter().map(|m| m.mv).collect();
            assert_eq!(
                moves.len(),
                3,
                "a round of three choices repeated a move: {round:?}"
            );
        }
        // The order within rounds still depends on the seed.
        assert_ne!(a, picks(100));
    }

    /// The keys books are written with. A change here makes every book
    /// file unreadable (their headers say so): rebuild `books/` with it.
    #[test]
    fn position_keys_are_those_books_are_written_with() {
        let keys: Vec<u64> = Variant::ALL.iter().map(|&v| key_check(v)).collect();
        assert_eq!(
            keys,
            vec![
                0x41de_ec8e_f621_2b95, // international
                0x5348_2c72_66b6_99f0, // english
                0xcd14_aea3_70eb_0e3a, // italian
                0xcd14_aea3_70eb_0e3a, // brazilian
                0xcd14_aea3_70eb_0e3a, // spanish
                0xcd14_aea3_70eb_0e3a, // russian
                0xd414_6c41_5c48_1ee7, // turkish
            ],
            "{:016x?}",
            keys
        );
    }
}
