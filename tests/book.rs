//! Opening books: the file round-trips, a truncated or damaged book is
//! refused with the reason (and the engine plays on without it), every
//! move of every shipped book is legal in its position, the Hub answers a
//! book move at once with depth 0, the same seed makes the same choices,
//! `book=off` searches, and `kondavo book build` resumes a killed build.

use std::path::PathBuf;

use kondavo::book::{entry_of, Book, Entry};
use kondavo::movegen::{generate, MoveList};
use kondavo::position::Position;
use kondavo::rules::{International, Russian};
use kondavo::Variant;

mod common;

/// A fresh temporary directory for one test.
fn temp_dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("kondavo-book-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// A two-position Russian book: the start position's moves, and the
/// replies to the first of them.
fn small_book() -> Book {
    let start = Position::<Russian>::start();
    let mut list = MoveList::new();
    generate(&start, &mut list);
    let mut entries: Vec<Entry> = list
        .iter()
        .enumerate()
        .map(|(i, m)| entry_of(&start, m, 20 - 5 * i as i32))
        .collect();
    let after = start.played(&list[0]);
    let mut replies = MoveList::new();
    generate(&after, &mut replies);
    entries.extend(replies.iter().map(|m| entry_of(&after, m, -20)));
    Book::new(Variant::Russian, entries)
}

#[test]
fn a_book_file_round_trips() {
    let dir = temp_dir("round-trip");
    let path = dir.join("r.kdb");
    let book = small_book();
    let size = book.write(&path).unwrap();
    assert_eq!(size, std::fs::metadata(&path).unwrap().len());
    let back = Book::open(&path).unwrap();
    assert_eq!(back, book);
    assert_eq!(back.positions(), 2);
    let start = Position::<Russian>::start();
    let moves = back.moves(&start);
    assert_eq!(moves.len(), 7);
    assert_eq!(moves[0].score, 20);
    // Written again, the bytes are the same.
    assert_eq!(std::fs::read(&path).unwrap(), back.to_bytes());
    // A Russian book has nothing for International positions, and is
    // refused where an International book is wanted.
    assert!(back.moves(&Position::<International>::start()).is_empty());
    let err = Book::open_for(&path, Variant::International).unwrap_err();
    assert!(err.contains("holds russian positions"), "{err}");
}

#[test]
fn truncated_or_damaged_books_are_refused_with_the_reason() {
    let dir = temp_dir("damaged");
    let bytes = small_book().to_bytes();
    let cases: Vec<(&str, Vec<u8>, &str)> = vec![
        ("cut.kdb", bytes[..bytes.len() - 30].to_vec(), "truncated"),
        ("short.kdb", bytes[..10].to_vec(), "too short"),
        (
            "flipped.kdb",
            {
                let mut b = bytes.clone();
                b[70] ^= 4;
                b
            },
            "checksum mismatch",
        ),
        (
            "magic.kdb",
            {
                let mut b = bytes.clone();
                b[0] = b'X';
                b
            },
            "not a kondavo book",
        ),
    ];
    for (name, data, reason) in cases {
        let path = dir.join(name);
        std::fs::write(&path, data).unwrap();
        let err = Book::open(&path).unwrap_err();
        assert!(err.contains(name) && err.contains(reason), "{name}: {err}");
    }
    let err = Book::open(&dir.join("absent.kdb")).unwrap_err();
    assert!(err.contains("not found"), "{err}");
    let err = Book::open(&dir).unwrap_err();
    assert!(err.contains("is a directory"), "{err}");
}
