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

/// `kondavo book build` of Russian to `size` positions into `out`, depth
/// 6, one thread, the state written after every round.
fn build_args(out: &std::path::Path, size: usize) -> Vec<String> {
    [
        "book",
        "build",
        "--variant",
        "russian",
        "--depth",
        "6",
        "--threads",
        "1",
        "--save-every",
        "0",
        "--size",
        &size.to_string(),
        "--out",
        &out.to_string_lossy(),
    ]
    .iter()
    .map(|s| s.to_string())
    .collect()
}

fn run_build(out: &std::path::Path, size: usize) -> String {
    let args = build_args(out, size);
    let args: Vec<&str> = args.iter().map(|s| s.as_str()).collect();
    let (stdout, stderr, ok) = common::kondavo(&args);
    assert!(ok, "{stderr}");
    stdout
}

/// The number after `name=` in a line.
fn field(line: &str, name: &str) -> usize {
    line.split_whitespace()
        .find_map(|w| w.strip_prefix(&format!("{name}=")))
        .and_then(|v| v.parse().ok())
        .unwrap_or_else(|| panic!("no {name}= in {line:?}"))
}

#[test]
fn a_build_grows_a_book_with_a_legal_move_for_each_position() {
    let dir = temp_dir("build");
    let out = dir.join("r.kdb");
    let line = run_build(&out, 25);
    assert!(line.starts_with("book russian: positions="), "{line}");
    assert_eq!(field(&line, "positions"), 25);
    assert!(field(&line, "searches") > 25);
    assert!(line.contains("positions/min="), "{line}");
    assert!(!kondavo::tools::book::partial_path(&out).exists());
    let book = Book::open(&out).unwrap();
    assert_eq!(book.positions(), 25);
    // The start position is in the book, with every legal move.
    let start = Position::<Russian>::start();
    assert_eq!(book.moves(&start).len(), 7);
    // `book show` lists them best first.
    let (text, _, ok) = common::kondavo(&[
        "book",
        "show",
        "--variant",
        "russian",
        "--book",
        &out.to_string_lossy(),
        "--json",
    ]);
    assert!(ok);
    let scores: Vec<i64> = text
        .lines()
        .map(|l| {
            l.rsplit("\"score\":")
                .next()
                .unwrap()
                .trim_end_matches('}')
                .parse()
                .unwrap()
        })
        .collect();
    assert_eq!(scores.len(), 7, "{text}");
    assert!(scores.windows(2).all(|w| w[0] >= w[1]), "{text}");
    assert_eq!(scores[0], book.moves(&start)[0].score as i64);
}

#[test]
fn a_finished_build_grows_further_as_if_it_had_not_stopped() {
    let dir = temp_dir("grow");
    let once = dir.join("once.kdb");
    let twice = dir.join("twice.kdb");
    run_build(&once, 40);
    run_build(&twice, 15);
    let line = run_build(&twice, 40);
    assert_eq!(field(&line, "new"), 25, "{line}");
    assert_eq!(
        std::fs::read(&once).unwrap(),
        std::fs::read(&twice).unwrap()
    );
}

#[test]
fn a_killed_build_continues_from_its_partial_file() {
    let dir = temp_dir("killed");
    let out = dir.join("k.kdb");
    let partial = kondavo::tools::book::partial_path(&out);
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_kondavo"))
        .args(build_args(&out, 100_000))
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    while !partial.exists() {
        assert!(std::time::Instant::now() < deadline, "no partial file");
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    std::thread::sleep(std::time::Duration::from_millis(200));
    child.kill().unwrap();
    child.wait().unwrap();
    assert!(!out.exists());
    let saved = Book::open(&partial).unwrap().positions();
    assert!(saved > 0);
    // Continued to the size it had reached, it ends as a build that ran
    // straight to that size.
    let line = run_build(&out, saved);
    assert_eq!(field(&line, "searches"), 0, "{line}");
    assert!(!partial.exists());
    let straight = dir.join("straight.kdb");
    run_build(&straight, saved);
    assert_eq!(
        std::fs::read(&out).unwrap(),
        std::fs::read(&straight).unwrap()
    );
    // And grows on from there.
    let line = run_build(&out, saved + 5);
    assert_eq!(field(&line, "positions"), saved + 5, "{line}");
}
