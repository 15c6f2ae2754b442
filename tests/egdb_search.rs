//! The search with endgame databases: exact scores of won and drawn
//! positions, a winning move whose reply is lost in the tables, the
//! `--egdb-path` option of `analyse`, and the Hub's `egdb-path` parameter.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;
use std::time::Duration;

use kondavo::egdb::build::build;
use kondavo::egdb::Wdl;
use kondavo::eval::Evaluate;
use kondavo::notation::fen::parse_fen;
use kondavo::rules::English;
use kondavo::search::threads::Searcher;
use kondavo::search::{plies_to_end, Limits, SearchResult, EGDB_WIN};
use kondavo::tools::search::{job, score_text};
use kondavo::Variant;

mod common;

/// The English tables up to 3 pieces, built once per test run, and
/// installed for the search.
fn english_tables() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let d = std::env::temp_dir().join(format!("kondavo-egdb-search-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        build::<English>(&d, 3, false, &mut |_| {}).unwrap();
        assert_eq!(kondavo::egdb::install(Variant::English, &d, 0), Ok(3));
        d
    })
}

fn search(fen: &str, depth: i32) -> SearchResult {
    english_tables();
    let pos = parse_fen::<English>(fen).unwrap();
    let mut s = Searcher::<English>::new(1, 8);
    s.search(&job(pos, Limits::depth(depth), 1), &mut |_| {})
}

/// The tables' value of `fen` for its side to move.
fn table(fen: &str) -> (Wdl, u8) {
    english_tables();
    let db = English::egdb().get().expect("tables installed");
    db.probe(&parse_fen::<English>(fen).unwrap()).unwrap()
}

/// The number that follows the first `key` in `text`, if any.
fn number_after(text: &str, key: &str) -> Option<u64> {
    let rest = &text[text.find(key)? + key.len()..];
    let end = rest
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(rest.len());
    rest[..end].parse().ok()
}

/// King against king with the opposition (Lasker's diagram 88): White to
/// play wins in 9 plies by 32-27, Black to play draws.
#[test]
fn a_won_position_scores_the_tables_win_and_keeps_it() {
    assert_eq!(table("W:WK32:BK26"), (Wdl::Win, 9));
    for depth in [1, 4, 9] {
        let r = search("W:WK32:BK26", depth);
        assert_eq!(r.score, EGDB_WIN - 9, "depth {depth}");
        assert_eq!(plies_to_end(r.score), Some(9));
        assert_eq!(score_text(r.score), "win 9");
        let pos = parse_fen::<English>("W:WK32:BK26").unwrap();
        let child = pos.played(&r.best.unwrap());
        let db = English::egdb().get().unwrap();
        assert_eq!(db.probe(&child), Some((Wdl::Loss, 8)), "depth {depth}");
        assert!(r.egdb_hits > 0);
    }
    // Two kings against one in the double corner: a longer win, three
    // pieces, every reply of the lone king searched.
    let (w, d) = table("W:WK19,K23:BK32");
    assert_eq!(w, Wdl::Win);
    let r = search("W:WK19,K23:BK32", 6);
    assert_eq!(r.score, EGDB_WIN - d as i32);
    let pos = parse_fen::<English>("W:WK19,K23:BK32").unwrap();
    let child = pos.played(&r.best.unwrap());
    let db = English::egdb().get().unwrap();
    assert_eq!(db.probe(&child), Some((Wdl::Loss, d - 1)));
}

#[test]
fn a_drawn_position_scores_zero_and_a_lost_one_the_loss() {
    assert_eq!(table("B:WK32:BK26").0, Wdl::Draw);
    assert_eq!(search("B:WK32:BK26", 8).score, 0);
    // Kings locked in the single corner: drawn with two kings against one.
    assert_eq!(table("W:WK3,K4:BK11").0, Wdl::Draw);
    assert_eq!(search("W:WK3,K4:BK11", 8).score, 0);
    let (w, d) = table("B:WK19,K23:BK32");
    assert_eq!(w, Wdl::Loss);
    let r = search("B:WK19,K23:BK32", 6);
    assert_eq!(r.score, -(EGDB_WIN - d as i32));
    assert_eq!(score_text(r.score), format!("loss {d}"));
}

#[test]
fn analyse_shows_the_tables_value() {
    let dir = english_tables().to_string_lossy().to_string();
    let (out, err, ok) = common::kondavo(&[
        "analyse",
        "--egdb-path",
        &dir,
        "--variant",
        "english",
        "--fen",
        "W:WK32:BK26",
        "--depth",
        "4",
    ]);
    assert!(ok, "{err}");
    assert!(out.contains("\"egdb\":\"win 9\""), "{out}");
    assert!(out.contains("\"win\":9"), "{out}");
    assert!(out.contains("\"bestmove\":\"32-27\""), "{out}");
    let hits = number_after(&out, "\"egdb_hits\":");
    assert!(hits.is_some_and(|n| n > 0), "{out}");
    // Out of range: no `egdb` field.
    let (out, _, ok) = common::kondavo(&[
        "analyse",
        "--egdb-path",
        &dir,
        "--variant",
        "english",
        "--depth",
        "2",
    ]);
    assert!(ok && !out.contains("egdb"), "{out}");
    // A directory without the tables is a clear error.
    let (_, err, ok) = common::kondavo(&[
        "search",
        "--egdb-path",
        "/nonexistent/kondavo-egdb",
        "--variant",
        "english",
        "--depth",
        "2",
    ]);
    assert!(!ok && err.contains("not found"), "{err}");
}

/// Sends `input` to `kondavo hub` one line at a time, waiting after each
/// `go` for its `done`; returns every output line.
fn hub_session(input: &[&str]) -> Vec<String> {
    let mut child = Command::new(env!("CARGO_BIN_EXE_kondavo"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let rx = common::line_channel(child.stdout.take().unwrap());
    let mut stdin = child.stdin.take().unwrap();
    let mut lines = Vec::new();
    for cmd in input {
        writeln!(stdin, "{cmd}").unwrap();
        stdin.flush().unwrap();
        let until = match *cmd {
            c if c.starts_with("go") => Some("done"),
            "init" => Some("ready"),
            "hub" => Some("wait"),
            _ => None,
        };
        if let Some(until) = until {
            loop {
                let l = rx
                    .recv_timeout(Duration::from_secs(30))
                    .unwrap_or_else(|_| panic!("no '{until}' after {cmd}: {lines:?}"));
                let end = l.starts_with(until);
                lines.push(l);
                if end {
                    break;
                }
            }
        }
    }
    writeln!(stdin, "quit").unwrap();
    drop(stdin);
    let _ = child.wait();
    lines.extend(rx.try_iter());
    lines
}

#[test]
fn the_hub_loads_the_tables_and_refuses_a_missing_directory() {
    let dir = english_tables().to_string_lossy().to_string();
    let path = format!("set-param name=egdb-path value=\"{dir}\"");
    let lines = hub_session(&[
        "hub",
        "set-param name=variant value=english",
        &path,
        "init",
        "pos fen=\"W:WK32:BK26\"",
        "level depth=4",
        "go think",
    ]);
    assert!(
        lines.iter().any(|l| l.starts_with("param name=egdb-path")),
        "{lines:?}"
    );
    assert!(
        lines
            .iter()
            .any(|l| l == "info string endgame databases: 3 pieces of english loaded"),
        "{lines:?}"
    );
    // The line keeps the Hub's field order; the database hits (all
    // threads) come after the principal variation.
    let info = lines
        .iter()
        .find(|l| l.contains("score=99.91"))
        .unwrap_or_else(|| panic!("{lines:?}"));
    assert!(info.starts_with("info depth="), "{info}");
    let hits = number_after(info, " egdb-hits=");
    assert!(hits.is_some_and(|n| n > 0), "{info}");
    assert!(info.find(" pv=").unwrap() < info.find(" egdb-hits=").unwrap());
    assert!(
        lines.iter().any(|l| l.starts_with("done move=32-27")),
        "{lines:?}"
    );

    // A missing directory: an error, and the engine plays on without.
    let lines = hub_session(&[
        "init",
        "set-param name=egdb-path value=/nonexistent/kondavo-egdb",
        "set-param name=egdb-pieces value=9",
        "level depth=2",
        "go think",
    ]);
    let errors: Vec<&String> = lines.iter().filter(|l| l.starts_with("error")).collect();
    assert_eq!(errors.len(), 2, "{lines:?}");
    assert!(errors[0].contains("egdb-path") && errors[0].contains("not found"));
    assert!(errors[1].contains("egdb-pieces"));
    assert!(
        lines.iter().any(|l| l.starts_with("done move=")),
        "{lines:?}"
    );
}
