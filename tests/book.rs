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

/// `kondavo hub` on pipes.
struct Hub {
    child: std::process::Child,
    stdin: Option<std::process::ChildStdin>,
    lines: std::sync::mpsc::Receiver<String>,
}

impl Hub {
    fn start() -> Hub {
        use std::io::BufRead;
        let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_kondavo"))
            .arg("hub")
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::null())
            .spawn()
            .expect("start kondavo");
        let stdout = child.stdout.take().unwrap();
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            for l in std::io::BufReader::new(stdout)
                .lines()
                .map_while(Result::ok)
            {
                if tx.send(l).is_err() {
                    break;
                }
            }
        });
        Hub {
            stdin: child.stdin.take(),
            child,
            lines: rx,
        }
    }

    fn send(&mut self, line: &str) {
        use std::io::Write;
        let stdin = self.stdin.as_mut().unwrap();
        writeln!(stdin, "{line}").unwrap();
        stdin.flush().unwrap();
    }

    /// The lines up to and including the first that starts with `prefix`.
    fn until(&mut self, prefix: &str) -> Vec<String> {
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
        let mut got = Vec::new();
        loop {
            let left = deadline.saturating_duration_since(std::time::Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(l) => {
                    let end = l.starts_with(prefix);
                    got.push(l);
                    if end {
                        return got;
                    }
                }
                Err(_) => panic!("no line starting with '{prefix}'; got {got:#?}"),
            }
        }
    }

    /// `go think` from `pos`: the lines up to `done`.
    fn go(&mut self, pos: &str) -> Vec<String> {
        self.send(pos);
        self.send("go think");
        self.until("done")
    }

    fn quit(mut self) {
        self.send("quit");
        drop(self.stdin.take());
        let status = self.child.wait().unwrap();
        assert!(status.success(), "{status}");
    }
}

/// The value of `name=` in a Hub line.
fn value<'a>(line: &'a str, name: &str) -> Option<&'a str> {
    line.split_whitespace()
        .find_map(|w| w.strip_prefix(&format!("{name}=")))
}

/// A Russian book of 30 positions, built once per test that asks.
fn russian_book(name: &str) -> PathBuf {
    let out = temp_dir(name).join("russian.kdb");
    run_build(&out, 30);
    out
}

#[test]
fn a_book_move_is_answered_at_once_with_depth_0() {
    let path = russian_book("hub-depth0");
    let book = Book::open(&path).unwrap();
    let start = Position::<Russian>::start();
    let hub_moves: Vec<String> = book
        .moves(&start)
        .iter()
        .map(|m| kondavo::protocol::hubpos::move_to_hub::<Russian>(&m.mv))
        .collect();
    let mut e = Hub::start();
    e.send("hub");
    let params = e.until("wait");
    for p in [
        "param name=book value=true type=bool",
        "param name=book-margin value=4 type=int min=0 max=1000",
        "param name=book-ply value=4 type=int min=0 max=200",
        "param name=book-depth value=0 type=int min=0 max=40",
        "param name=book-path value=\"\" type=string",
    ] {
        assert!(params.iter().any(|l| l == p), "{p} in {params:#?}");
    }
    e.send("set-param name=variant value=russian");
    e.send(&format!(
        "set-param name=book-path value=\"{}\"",
        path.display()
    ));
    e.send("set-param name=book-margin value=0");
    e.send("init");
    e.until("ready");
    // A clock of an hour, and the answer comes with depth 0 and no nodes.
    e.send("level time=3600 inc=0");
    let lines = e.go("pos start");
    let info = &lines[lines.len() - 2];
    assert!(info.starts_with("info depth=0 "), "{lines:#?}");
    assert_eq!(value(info, "nodes"), Some("0"));
    let score: f64 = value(info, "score").unwrap().parse().unwrap();
    assert_eq!((score * 100.0).round() as i32, book.moves(&start)[0].score);
    let done = lines.last().unwrap();
    // Margin 0: the best book move (or one tied with it).
    let mv = value(done, "move").unwrap();
    assert!(hub_moves.contains(&mv.to_string()), "{done} {hub_moves:?}");
    assert_eq!(value(info, "pv"), Some(mv));
    assert!(value(done, "ponder").is_some(), "{done}");
    // `hub` shows the path in use.
    e.send("hub");
    let params = e.until("wait");
    let shown = format!(
        "param name=book-path value=\"{}\" type=string",
        path.display()
    );
    let shown_plain = format!("param name=book-path value={} type=string", path.display());
    assert!(
        params.iter().any(|l| *l == shown || *l == shown_plain),
        "{params:#?}"
    );
    // Out of the book, the engine searches.
    e.send("level depth=2");
    let lines = e.go("pos fen=\"W:Wc1,e1:Ba7\"");
    assert!(
        lines.iter().any(|l| l.starts_with("info depth=1 ")),
        "{lines:#?}"
    );
    e.quit();
}

#[test]
fn book_off_gives_a_searched_move() {
    let path = russian_book("hub-off");
    let mut e = Hub::start();
    e.send("set-param name=variant value=russian");
    e.send(&format!(
        "set-param name=book-path value=\"{}\"",
        path.display()
    ));
    e.send("set-param name=book value=off");
    e.send("level depth=3");
    let lines = e.go("pos start");
    assert!(
        lines.iter().all(|l| !l.starts_with("info depth=0 ")),
        "{lines:#?}"
    );
    assert!(
        lines.iter().any(|l| l.starts_with("info depth=3 ")),
        "{lines:#?}"
    );
    assert!(value(lines.last().unwrap(), "move").is_some());
    // On again: from the book.
    e.send("set-param name=book value=true");
    e.send("level depth=3");
    let lines = e.go("pos start");
    assert!(lines[0].starts_with("info depth=0 "), "{lines:#?}");
    e.quit();
}

/// The moves the Hub plays from the start, `n` times, with `seed`.
fn choices(path: &std::path::Path, seed: u64, n: usize) -> Vec<String> {
    let mut e = Hub::start();
    e.send("set-param name=variant value=russian");
    e.send(&format!(
        "set-param name=book-path value=\"{}\"",
        path.display()
    ));
    e.send("set-param name=book-margin value=1000");
    e.send(&format!("set-param name=book-seed value={seed}"));
    let mut out = Vec::new();
    for _ in 0..n {
        let lines = e.go("pos start");
        assert!(lines[0].starts_with("info depth=0 "), "{lines:#?}");
        out.push(value(lines.last().unwrap(), "move").unwrap().to_string());
    }
    e.quit();
    out
}

#[test]
fn the_same_seed_gives_the_same_book_choices() {
    let path = russian_book("hub-seed");
    let a = choices(&path, 12345, 12);
    assert_eq!(a, choices(&path, 12345, 12));
    // With a margin past every score, all seven first moves come up.
    let distinct: std::collections::HashSet<&String> = a.iter().collect();
    assert!(distinct.len() >= 3, "{a:?}");
    assert_ne!(a, choices(&path, 54321, 12));
}

#[test]
fn a_bad_book_is_refused_and_the_engine_plays_on() {
    let dir = temp_dir("hub-bad");
    let good = russian_book("hub-bad-good");
    let mut cut = std::fs::read(&good).unwrap();
    cut.truncate(cut.len() - 7);
    let bad = dir.join("cut.kdb");
    std::fs::write(&bad, &cut).unwrap();
    let mut e = Hub::start();
    e.send("set-param name=variant value=russian");
    e.send(&format!(
        "set-param name=book-path value=\"{}\"",
        good.display()
    ));
    e.send(&format!(
        "set-param name=book-path value=\"{}\"",
        bad.display()
    ));
    e.send("ping");
    let lines = e.until("pong");
    assert_eq!(lines.len(), 2, "{lines:#?}");
    assert!(
        lines[0].starts_with("error message=\"set-param book-path: ")
            && lines[0].contains("cut.kdb")
            && lines[0].contains("truncated")
            && lines[0].contains("stays"),
        "{lines:#?}"
    );
    // The good book stays in use.
    let lines = e.go("pos start");
    assert!(lines[0].starts_with("info depth=0 "), "{lines:#?}");
    // A file that is not there: refused, and `go` still moves.
    e.send("set-param name=book-path value=/nonexistent/book.kdb");
    e.send("set-param name=book value=off");
    e.send("level depth=2");
    let lines = e.go("pos start");
    assert!(lines[0].starts_with("error message="), "{lines:#?}");
    assert!(lines[0].contains("not found"), "{lines:#?}");
    assert!(value(lines.last().unwrap(), "move").is_some(), "{lines:#?}");
    e.quit();
}

#[test]
fn search_plays_from_the_book_only_when_asked() {
    let path = russian_book("search");
    let p = path.to_string_lossy();
    let (text, err, ok) = common::kondavo(&[
        "search",
        "--variant",
        "russian",
        "--book-path",
        &p,
        "--depth",
        "3",
    ]);
    assert!(ok, "{err}");
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 2, "{text}");
    assert!(
        lines[0].starts_with("book move=") && lines[0].ends_with(" depth=0"),
        "{text}"
    );
    assert!(lines[1].starts_with("bestmove "), "{text}");
    let (text, _, ok) = common::kondavo(&[
        "search",
        "--variant",
        "russian",
        "--book",
        "off",
        "--book-path",
        &p,
        "--depth",
        "3",
    ]);
    assert!(ok);
    assert!(text.lines().any(|l| l.starts_with("depth=3 ")), "{text}");
    assert!(!text.contains("book move="), "{text}");
    // A damaged book: the reason, and exit status 1.
    let dir = temp_dir("search-bad");
    let bad = dir.join("bad.kdb");
    let mut bytes = std::fs::read(&path).unwrap();
    bytes[100] ^= 1;
    std::fs::write(&bad, bytes).unwrap();
    let (_, err, ok) = common::kondavo(&[
        "search",
        "--variant",
        "russian",
        "--book-path",
        &bad.to_string_lossy(),
        "--depth",
        "1",
    ]);
    assert!(!ok);
    assert!(err.contains("bad.kdb") && err.contains("checksum"), "{err}");
}

/// What `kondavo match` sends a Hub engine, copied by `tee` on its way.
fn match_input(name: &str, b_options: &[&str]) -> String {
    let dir = temp_dir(name);
    let copy = dir.join("input.txt");
    let openings = dir.join("openings.txt");
    std::fs::write(
        &openings,
        "B:W18,21,23,24,25,26,27,28,29,30,31,32:B1,2,3,4,5,6,7,8,9,10,11,12\n",
    )
    .unwrap();
    let engine = format!(
        "sh -c 'tee {} | {} hub'",
        copy.display(),
        env!("CARGO_BIN_EXE_kondavo")
    );
    let mut args = vec![
        "match".to_string(),
        "--variant".into(),
        "russian".into(),
        "--games".into(),
        "2".into(),
        "--openings".into(),
        openings.to_string_lossy().into_owned(),
        "--a".into(),
        "kondavo:depth=1".into(),
        "--b".into(),
        engine,
        "--b-option".into(),
        "depth=1".into(),
        "--max-plies".into(),
        "6".into(),
        "--engine-log".into(),
        dir.join("engines.log").to_string_lossy().into_owned(),
    ];
    for o in b_options {
        args.push("--b-option".into());
        args.push(o.to_string());
    }
    let args: Vec<&str> = args.iter().map(|s| s.as_str()).collect();
    let (text, err, ok) = common::kondavo(&args);
    assert!(ok, "{text}\n{err}");
    std::fs::read_to_string(copy).unwrap()
}

#[test]
fn match_turns_the_books_of_hub_engines_off_unless_asked() {
    let sent = match_input("match-off", &[]);
    let init = sent.find("\ninit\n").expect("init sent");
    let off = sent
        .find("set-param name=book value=false\n")
        .unwrap_or_else(|| panic!("{sent}"));
    assert!(off < init, "{sent}");
    assert!(!sent.contains("value=true"), "{sent}");
    let sent = match_input("match-on", &["book=on"]);
    assert!(sent.contains("set-param name=book value=true\n"), "{sent}");
    assert!(!sent.contains("name=book value=false"), "{sent}");
}

/// The positions of an embedded book, found by walking its moves from the
/// roots it was built from (the start position, and for English every
/// three-move ballot): (position keys with entries reached, and whether
/// every entry of each was a legal move there).
fn walk_book<R: kondavo::eval::Evaluate>(book: &Book) -> (usize, Vec<String>) {
    use kondavo::notation::fen::write_fen;
    let mut roots = vec![Position::<R>::start()];
    if R::NAME == "english" {
        for o in kondavo::tools::openings::load_openings::<R>("english-3move").unwrap() {
            roots.push(o.position());
        }
    }
    let mut seen = std::collections::HashSet::new();
    let mut faults = Vec::new();
    let mut stack = roots;
    while let Some(pos) = stack.pop() {
        let entries = book.entries_of(pos.key());
        if entries.is_empty() || !seen.insert(pos.key()) {
            continue;
        }
        let moves = book.moves(&pos);
        if moves.len() != entries.len() {
            faults.push(format!(
                "{}: {} entries, {} legal moves among them",
                write_fen(&pos),
                entries.len(),
                moves.len()
            ));
        }
        let mut list = MoveList::new();
        generate(&pos, &mut list);
        if moves.len() != list.len() {
            faults.push(format!(
                "{}: {} of {} legal moves in the book",
                write_fen(&pos),
                moves.len(),
                list.len()
            ));
        }
        for m in &moves {
            stack.push(pos.played(&m.mv));
        }
    }
    (seen.len(), faults)
}

#[test]
fn every_move_of_every_shipped_book_is_legal_in_its_position() {
    for v in Variant::ALL {
        let book = kondavo::book::embedded::check(v)
            .unwrap_or_else(|e| panic!("{e}"))
            .unwrap_or_else(|| panic!("no embedded {v} book (books/{v}.kdb)"));
        let (reached, faults) = kondavo::with_rules!(v, R => walk_book::<R>(&book));
        assert!(faults.is_empty(), "{v}: {faults:#?}");
        // Every position of the book is reached from its roots: no entry
        // stands for a position the engine cannot be in.
        assert_eq!(reached, book.positions(), "{v}");
        assert!(book.positions() >= 100, "{v}: {}", book.positions());
        let bytes = kondavo::book::embedded::bytes(v.name()).unwrap().len();
        assert!(bytes <= 1 << 20, "{v}: {bytes} bytes");
        // The first moves from the start position are book moves.
        let start_moves = kondavo::with_rules!(v, R => book.moves(&Position::<R>::start()).len());
        assert!(start_moves > 0, "{v}");
    }
}

#[test]
fn english_knows_the_first_move_after_every_three_move_ballot() {
    use kondavo::rules::English;
    let book = kondavo::book::embedded::book(Variant::English).expect("embedded English book");
    let ballots = kondavo::tools::openings::load_openings::<English>("english-3move").unwrap();
    assert!(ballots.len() >= 150);
    for o in &ballots {
        let pos = o.position();
        assert!(
            !book.moves(&pos).is_empty(),
            "{}",
            kondavo::notation::fen::write_fen(&pos)
        );
    }
}

#[test]
fn the_embedded_book_is_the_default() {
    // Hub: at the start position of each variant, a book move.
    let mut e = Hub::start();
    for name in ["normal", "english", "turkish", "italian"] {
        e.send(&format!("set-param name=variant value={name}"));
        e.send("level depth=30");
        let lines = e.go("pos start");
        assert!(lines[0].starts_with("info depth=0 "), "{name}: {lines:#?}");
    }
    e.quit();
    // book show without --book reads it too.
    let (text, err, ok) = common::kondavo(&["book", "show", "--variant", "russian"]);
    assert!(ok, "{err}");
    assert_eq!(text.lines().count(), 7, "{text}");
    let (text, _, ok) = common::kondavo(&[
        "book",
        "show",
        "--variant",
        "russian",
        "--fen",
        "W:Wc1,e1:Ba7",
    ]);
    assert!(ok);
    assert_eq!(text.trim(), "no book move in this position");
    // An in-process match engine plays from it only with book=on.
    use kondavo::tools::players::{EngineSpec, InternalPlayer};
    let on = EngineSpec::parse("kondavo:book=on").unwrap();
    assert!(InternalPlayer::<Russian>::new(&on).has_book());
    assert_eq!(on.default_name(), "kondavo:book=on");
    let off = EngineSpec::parse("kondavo").unwrap();
    assert!(!InternalPlayer::<Russian>::new(&off).has_book());
}

/// A DXP Follower given a game where it plays White: its first MOVE, and
/// how long it took to come.
fn dxp_first_move(args: &[&str]) -> (String, std::time::Duration) {
    use std::io::{BufRead, Read, Write};
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_kondavo"))
        .args(["dxp", "--port", "0", "--once", "--hash", "1"])
        .args(args)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut err = std::io::BufReader::new(child.stderr.take().unwrap());
    let mut line = String::new();
    err.read_line(&mut line).unwrap();
    let port: u16 = line
        .trim()
        .rsplit(':')
        .next()
        .and_then(|p| p.parse().ok())
        .unwrap_or_else(|| panic!("no port in {line:?}"));
    let mut s = std::net::TcpStream::connect(("127.0.0.1", port)).unwrap();
    let started = std::time::Instant::now();
    s.write_all(format!("R01{:<32}W000000A\0", "book test").as_bytes())
        .unwrap();
    let mut buf = Vec::new();
    let mut msgs = Vec::new();
    while msgs.len() < 2 {
        let mut chunk = [0u8; 256];
        let n = s.read(&mut chunk).unwrap();
        assert!(n > 0, "connection closed after {msgs:?}");
        buf.extend_from_slice(&chunk[..n]);
        while let Some(i) = buf.iter().position(|&b| b == 0) {
            let m: Vec<u8> = buf.drain(..=i).take(i).collect();
            msgs.push(String::from_utf8(m).unwrap());
        }
    }
    let took = started.elapsed();
    let _ = child.kill();
    let _ = child.wait();
    assert!(msgs[0].starts_with('A'), "{msgs:?}");
    (msgs[1].clone(), took)
}

#[test]
fn dxp_plays_book_moves_at_once_when_told_to() {
    let book = kondavo::book::embedded::book(Variant::International).expect("embedded book");
    let start = Position::<International>::start();
    let best = book.moves(&start)[0].score;
    let top: Vec<String> = book
        .moves(&start)
        .iter()
        .filter(|m| m.score == best)
        .map(|m| kondavo::protocol::dxp::move_message(&m.mv, 0))
        .collect();
    // Ten seconds a move, yet the book's move comes at once.
    let (msg, took) = dxp_first_move(&["--movetime", "10", "--book", "on", "--book-margin", "0"]);
    assert!(top.contains(&msg), "{msg} not among {top:?}");
    assert!(took < std::time::Duration::from_secs(5), "{took:?}");
    // --book off: the move is searched (and takes its time).
    let (msg, took) = dxp_first_move(&["--movetime", "0.5", "--book", "off"]);
    assert!(msg.starts_with('M'), "{msg}");
    assert!(took >= std::time::Duration::from_millis(400), "{took:?}");
}

/// A match from the start position, an engine with its book (a margin of
/// 0.1 man, the default book-ply, a fixed seed) against one without: of
/// the first 20 games, in International no two begin with the same 10
/// plies; in English at least 16 do not, and none is played three times
/// (five first moves lie within 0.1 man of the best, and past the fourth
/// ply the book plays its best move, so a few lines come twice).
#[test]
fn a_match_from_the_start_position_varies_its_first_ten_plies() {
    let exe = env!("CARGO_BIN_EXE_kondavo");
    for (variant, min_distinct) in [("english", 16), ("international", 20)] {
        let dir = temp_dir(&format!("vary-{variant}"));
        let pdn = dir.join("games.pdn");
        let book = format!(
            "cmd={exe} hub,name=book,book=on,param.book-margin=10,param.book-seed=7,nodes=3000"
        );
        let plain = format!("cmd={exe} hub,name=plain,nodes=3000");
        let pdn_arg = pdn.to_string_lossy().into_owned();
        let args = [
            "match",
            "--variant",
            variant,
            "--games",
            "20",
            "--opening-plies",
            "0",
            "--max-plies",
            "12",
            "--pdn",
            &pdn_arg,
            "--a",
            &book,
            "--b",
            &plain,
        ];
        let (out, err, ok) = common::kondavo(&args);
        assert!(ok, "{out}\n{err}");
        let text = std::fs::read_to_string(&pdn).unwrap();
        let games: Vec<_> = kondavo::notation::pdn::parse_pdn(&text)
            .into_iter()
            .map(|g| g.unwrap())
            .collect();
        assert_eq!(games.len(), 20);
        let starts: Vec<String> = games
            .iter()
            .map(|g| {
                assert!(
                    g.moves.len() >= 10,
                    "{variant}: a game of {} plies",
                    g.moves.len()
                );
                g.moves[..10].join(" ")
            })
            .collect();
        let mut distinct = starts.clone();
        distinct.sort();
        distinct.dedup();
        assert!(
            distinct.len() >= min_distinct,
            "{variant}: {} distinct starts of 20, want {min_distinct}: {starts:?}",
            distinct.len()
        );
        for d in &distinct {
            let n = starts.iter().filter(|s| *s == d).count();
            assert!(n <= 2, "{variant}: {n} games begin {d}");
        }
    }
}
