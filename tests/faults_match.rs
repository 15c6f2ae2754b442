//! Faults of `kondavo match` and `kondavo selfplay`: a PDN cut in the
//! middle of a game and resumed, a Hub engine that writes bytes that are
//! not UTF-8, and `selfplay --resume` with other settings than the file's.
#![cfg(unix)]

mod common;
use common::kondavo;
use kondavo::notation::pdn::parse_pdn;

/// A fresh directory for one test.
fn dir(test: &str) -> String {
    let d = std::env::temp_dir().join(format!("kondavo-faults-{}-{test}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d.to_string_lossy().to_string()
}

/// A short English match of in-process engines at tiny node limits.
fn small_match(pdn: &str, games: &str, resume: bool) -> (String, String, bool) {
    let mut args = vec![
        "match",
        "--variant",
        "english",
        "--games",
        games,
        "--max-plies",
        "40",
        "--a",
        "kondavo:nodes=300",
        "--b",
        "kondavo:nodes=200",
        "--pdn",
        pdn,
    ];
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
