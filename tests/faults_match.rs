//! Faults of `kondavo match` and `kondavo selfplay`: a PDN cut in the
//! middle of a game and resumed, a Hub engine that writes bytes that are
//! not UTF-8, and `selfplay --resume` with other settings than the file's.
#![cfg(unix)]

mod common;
use common::{kondavo, script};
use kondavo::notation::pdn::parse_pdn;

/// A fresh directory for one test.
fn dir(test: &str) -> String {
    common::fresh_dir("kondavo-faults", test)
        .to_string_lossy()
        .to_string()
}

/// A short English match of in-process engines at tiny node limits.
fn small_match(pdn: &str, games: &str, resume: bool) -> (String, String, bool) {
    let mut args = common::match_args(
        "english",
        games,
        &[
            "--max-plies",
            "40",
            "--a",
            "kondavo:nodes=300",
            "--b",
            "kondavo:nodes=200",
            "--pdn",
            pdn,
        ],
    );
    if resume {
        args.push("--resume");
    }
    kondavo(&args)
}

/// Every game of a match PDN is whole: `n` games that read without error,
/// rounds 1 to `n` once each, each ended by a result in its movetext (the
/// last word before the blank line) with as many moves as its PlyCount,
/// each after a blank line.
fn assert_whole_games(text: &str, n: usize) {
    let games = parse_pdn(text);
    assert_eq!(games.len(), n, "{text}");
    let mut rounds = Vec::new();
    for g in &games {
        let g = g.as_ref().unwrap_or_else(|e| panic!("{e}\n{text}"));
        let plies: usize = g.tag("PlyCount").unwrap().parse().unwrap();
        assert_eq!(g.moves.len(), plies, "game {}:\n{text}", g.number);
        assert!(g.result.is_some(), "{text}");
        rounds.push(g.tag("Round").unwrap().parse::<usize>().unwrap());
    }
    rounds.sort_unstable();
    assert_eq!(rounds, (1..=n).collect::<Vec<_>>(), "{text}");
    assert!(text.starts_with("[Event "), "{text}");
    assert!(
        text.ends_with("\n\n") && !text.ends_with("\n\n\n"),
        "{text:?}"
    );
    assert_eq!(text.matches("[Event ").count(), n, "{text}");
    assert_eq!(text.matches("\n\n[Event ").count(), n - 1, "{text}");
    for chunk in text.split("\n\n[Event ") {
        let movetext = chunk.trim_end().rsplit("\n\n").next().unwrap();
        let last = movetext.split_whitespace().last().unwrap();
        assert!(["1-0", "0-1", "1/2-1/2"].contains(&last), "{chunk}");
    }
}

/// A PDN cut in the middle of its last game (in a comment, in the tags,
/// just before the result) is resumed by cutting the torn game off,
/// keeping its bytes in `<pdn>.torn` and saying so; the games appended
/// follow after a blank line, and the file holds only whole games.
#[test]
fn resume_cuts_a_torn_last_game_off() {
    let d = dir("torn");
    let full = format!("{d}/full.pdn");
    let (out, err, ok) = small_match(&full, "4", false);
    assert!(ok, "{out}\n{err}");
    let text = std::fs::read_to_string(&full).unwrap();
    assert_whole_games(&text, 4);
    let last = text.rfind("[Event ").unwrap();
    let body = last + text[last..].find("\n\n").unwrap() + 2;
    let cuts = [
        // In the first comment: `... 1. 11-15 {[`.
        ("comment", body + text[body..].find('{').unwrap() + 2),
        // In the tags: `[White "kond`.
        ("tags", last + text[last..].find("[White ").unwrap() + 12),
        // Every move, but no result.
        ("result", text.trim_end().rfind(' ').unwrap() + 1),
    ];
    for (what, at) in cuts {
        let pdn = format!("{d}/{what}.pdn");
        std::fs::write(&pdn, &text[..at]).unwrap();
        let (out, err, ok) = small_match(&pdn, "6", true);
        assert!(ok, "{what}: {out}\n{err}");
        assert!(
            out.contains("resume: 3 games already played"),
            "{what}: {out}"
        );
        let torn_path = format!("{pdn}.torn");
        let cut = format!(
            "resume: cut a torn game off the end of {pdn}: game 4 (round 4), {} bytes from byte {last}; they are kept in {torn_path}",
            at - last
        );
        assert!(out.contains(&cut), "{what}: {out}");
        assert_eq!(
            std::fs::read_to_string(&torn_path).unwrap(),
            &text[last..at],
            "{what}"
        );
        let after = std::fs::read_to_string(&pdn).unwrap();
        assert!(after.starts_with(&text[..last]), "{what}: {after}");
        assert_whole_games(&after, 6);
        assert!(out.contains("result games=6 "), "{what}: {out}");
    }
}

/// A file whose last game is whole but lacks the blank line after it (or
/// any newline) loses nothing: the next game starts after a blank line.
#[test]
fn resume_after_a_whole_game_without_its_blank_line() {
    let d = dir("newline");
    let full = format!("{d}/full.pdn");
    let (out, err, ok) = small_match(&full, "2", false);
    assert!(ok, "{out}\n{err}");
    let text = std::fs::read_to_string(&full).unwrap();
    for (what, end) in [("none", ""), ("one", "\n")] {
        let pdn = format!("{d}/{what}.pdn");
        std::fs::write(&pdn, format!("{}{end}", text.trim_end())).unwrap();
        let (out, err, ok) = small_match(&pdn, "4", true);
        assert!(ok, "{what}: {out}\n{err}");
        assert!(
            out.contains("resume: 2 games already played"),
            "{what}: {out}"
        );
        assert!(!out.contains("torn"), "{what}: {out}");
        assert!(!std::path::Path::new(&format!("{pdn}.torn")).exists());
        let after = std::fs::read_to_string(&pdn).unwrap();
        assert!(after.starts_with(&text), "{what}: {after}");
        assert_whole_games(&after, 4);
    }
}

/// A Hub engine whose name and `info` lines hold a Latin-1 byte (0xE9, not
/// UTF-8) is read lossily and plays on: the games end normally, nothing is
/// forfeited, and its name is shown with U+FFFD in place of the byte.
#[test]
fn an_engine_writing_latin1_bytes_plays_on() {
    let d = dir("latin1");
    let pdn = format!("{d}/games.pdn");
    // `kondavo hub` behind a filter that adds `info string caf\xe9` before
    // each `done` and, in the second engine, renames it `Dam\xe9`.
    let filter = |name: &str, rename: bool| {
        let id = if rename {
            r#""id name="*) printf 'id name=Dam\351 version=1\n';;"#
        } else {
            ""
        };
        script(
            &d,
            name,
            &format!(
                r#"KONDAVO hub | while IFS= read -r line; do
  case "$line" in
    {id}
    "done"*) printf 'info string caf\351\n'; printf '%s\n' "$line";;
    *) printf '%s\n' "$line";;
  esac
done
"#
            ),
        )
    };
    let a = filter("cafe", false);
    let b = filter("dame", true);
    let (out, err, ok) = kondavo(&common::match_args(
        "english",
        "2",
        &[
            "--max-plies",
            "30",
            "--a",
            &a,
            "--a-option",
            "depth=2",
            "--b",
            &b,
            "--b-option",
            "depth=2",
            "--pdn",
            &pdn,
        ],
    ));
    assert!(ok, "{out}\n{err}");
    assert!(out.contains("result games=2 "), "{out}");
    assert!(
        !out.contains("forfeit") && !err.contains("forfeit"),
        "{out}\n{err}"
    );
    assert!(out.contains(&format!("engine A: kondavo ({a})")), "{out}");
    assert!(
        out.contains(&format!("engine B: Dam\u{FFFD} ({b})")),
        "{out}"
    );
    let text = std::fs::read_to_string(&pdn).unwrap();
    assert_eq!(text.matches("[Black \"Dam\u{FFFD}\"]").count(), 1, "{text}");
    assert_eq!(text.matches("[White \"Dam\u{FFFD}\"]").count(), 1, "{text}");
    assert!(!text.contains("forfeit"), "{text}");
    assert_whole_games(&text, 2);
}

/// `selfplay` with `extra` settings into `out`.
fn selfplay(out: &str, games: &str, extra: &[&str]) -> (String, String, bool) {
    let mut args = vec![
        "selfplay",
        "--variant",
        "english",
        "--games",
        games,
        "--threads",
        "1",
        "--out",
        out,
    ];
    args.extend_from_slice(extra);
    kondavo(&args)
}

/// `selfplay --resume` with other settings than the file was made with is
/// refused, naming each difference; with the same settings it continues.
#[test]
fn selfplay_resume_refuses_other_settings() {
    let d = dir("selfplay");
    let file = format!("{d}/games.kdsp");
    let made_with = ["--nodes", "300", "--max-plies", "30"];
    let (out, err, ok) = selfplay(&file, "2", &made_with);
    assert!(ok, "{out}\n{err}");
    let made = std::fs::read(&file).unwrap();
    let cases: [(&[&str], &[&str]); 5] = [
        (
            &["--nodes", "200", "--max-plies", "30"],
            &["was made with nodes=300, this run has nodes=200"],
        ),
        (
            &["--nodes", "300", "--max-plies", "30", "--seed", "7"],
            &["was made with seed=1, this run has seed=7"],
        ),
        (
            &["--depth", "3", "--max-plies", "30"],
            &[
                "was made with nodes=300, this run has nodes=none",
                "was made with depth=none, this run has depth=3",
            ],
        ),
        (
            &["--nodes", "300", "--max-plies", "31", "--hash", "16"],
            &[
                "was made with max-plies=30, this run has max-plies=31",
                "was made with hash=8, this run has hash=16",
            ],
        ),
        // Generation 0 instead of the built-in weights.
        (
            &[
                "--nodes",
                "300",
                "--max-plies",
                "30",
                "--weights",
                "start:english",
            ],
            &["was made with weights=", "this run has weights="],
        ),
    ];
    for (extra, why) in cases {
        let mut args = extra.to_vec();
        args.push("--resume");
        let (out, err, ok) = selfplay(&file, "3", &args);
        assert!(!ok, "{extra:?}: {out}");
        assert!(
            err.contains(&format!("--resume: {file} ")),
            "{extra:?}: {err}"
        );
        for w in why {
            assert!(err.contains(w), "{extra:?}: {err}");
        }
        assert_eq!(std::fs::read(&file).unwrap(), made, "{extra:?}: untouched");
    }
    // The variant too.
    let (_, err, ok) = kondavo(&[
        "selfplay",
        "--variant",
        "russian",
        "--games",
        "3",
        "--threads",
        "1",
        "--max-plies",
        "30",
        "--nodes",
        "300",
        "--out",
        &file,
        "--resume",
    ]);
    assert!(!ok);
    assert!(
        err.contains("was made with variant=english, this run has variant=russian"),
        "{err}"
    );
    assert!(!err.contains("weights"), "{err}");
    // The same settings: resumed.
    let mut again = made_with.to_vec();
    again.push("--resume");
    let (out, err, ok) = selfplay(&file, "3", &again);
    assert!(ok, "{out}\n{err}");
    assert!(out.contains("resuming"), "{out}");
    assert!(out.contains("selfplay games=3 "), "{out}");

    // The same three games in one run are the same bytes.
    let whole = format!("{d}/whole.kdsp");
    let (out, err, ok) = selfplay(&whole, "3", &made_with);
    assert!(ok, "{out}\n{err}");
    assert_eq!(
        std::fs::read(&whole).unwrap(),
        std::fs::read(&file).unwrap()
    );
}

/// A file of the first format (no settings recorded) is resumed with a
/// warning that its settings cannot be checked.
#[test]
fn selfplay_resume_of_a_file_without_settings_warns() {
    let d = dir("selfplay-old");
    let file = format!("{d}/games.kdsp");
    let (out, err, ok) = selfplay(&file, "2", &["--nodes", "300", "--max-plies", "30"]);
    assert!(ok, "{out}\n{err}");
    let bytes = std::fs::read(&file).unwrap();
    // Version 1: `KDSP`, 1, the variant; then the games.
    let first = bytes.iter().position(|&b| b == 0xA5).unwrap();
    let mut old = b"KDSP".to_vec();
    old.extend_from_slice(&1u32.to_le_bytes());
    old.push(7);
    old.extend_from_slice(b"english");
    old.extend_from_slice(&bytes[first..]);
    std::fs::write(&file, &old).unwrap();
    let (out, err, ok) = selfplay(
        &file,
        "3",
        &["--nodes", "200", "--max-plies", "30", "--resume"],
    );
    assert!(ok, "{out}\n{err}");
    assert!(
        out.contains(&format!(
            "warning: {file} does not record the settings it was made with"
        )),
        "{out}"
    );
    assert!(out.contains("selfplay games=3 "), "{out}");
    let after = std::fs::read(&file).unwrap();
    assert!(after.starts_with(&old));
}
