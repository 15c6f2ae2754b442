//! `kondavo match` and `kondavo analyse` through the binary: small matches
//! at tiny time controls (one against an external Hub engine process),
//! rating lists, resuming, SPRT, and analysis of a small PDN.

mod common;
use common::kondavo;

fn tmp(name: &str) -> String {
    let dir = std::env::temp_dir().join(format!("kondavo-tools-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name).to_string_lossy().to_string()
}

/// The documented last line: `score=<fraction for A>` and
/// `elo=<diff> +/- <margin>`.
fn parse_result(stdout: &str) -> (f64, f64, f64, u32) {
    let last = stdout.lines().last().expect("output");
    let field = |k: &str| -> String {
        let i = last.find(k).unwrap_or_else(|| panic!("no {k} in '{last}'"));
        last[i + k.len()..]
            .split_whitespace()
            .next()
            .unwrap()
            .to_string()
    };
    let games: u32 = field("games=").parse().unwrap();
    let score: f64 = field("score=").parse().unwrap();
    let elo: f64 = field("elo=").parse().unwrap();
    let margin: f64 = field("+/- ").parse().unwrap();
    (score, elo, margin, games)
}

/// kondavo in-process against kondavo as an external Hub process: every
/// game ends, the PDN has one game per round with GameType and FEN tags.
#[test]
fn match_against_an_external_hub_engine() {
    let pdn = tmp("ext.pdn");
    let ext = format!("{} hub", env!("CARGO_BIN_EXE_kondavo"));
    let (out, err, ok) = kondavo(&[
        "match",
        "--variant",
        "international",
        "--games",
        "4",
        "--movetime",
        "0.01",
        "--concurrency",
        "2",
        "--max-plies",
        "120",
        "--a",
        "kondavo",
        "--b",
        &ext,
        "--pdn",
        &pdn,
    ]);
    assert!(ok, "{out}\n{err}");
    let (score, _elo, margin, games) = parse_result(&out);
    assert_eq!(games, 4);
    assert!((0.0..=1.0).contains(&score) && margin >= 0.0);
    let text = std::fs::read_to_string(&pdn).unwrap();
    assert_eq!(text.matches("[Event ").count(), 4);
    assert_eq!(text.matches("[GameType \"20,W,10,10,N2,0\"]").count(), 4);
    assert_eq!(text.matches("[FEN ").count(), 4);
    for r in 1..=4 {
        assert!(
            text.contains(&format!("[Round \"{r}\"]")),
            "round {r} missing"
        );
    }
    // Results in the International convention.
    assert!(
        text.contains("[Result \"2-0\"]")
            || text.contains("[Result \"0-2\"]")
            || text.contains("[Result \"1-1\"]")
    );
}

/// An engine that cannot start stops the match before any game: an error,
/// a failing exit status, and no result line (more cases in
/// tests/matchrun.rs).
#[test]
fn an_engine_that_cannot_start_stops_the_match() {
    let pdn = tmp("crash.pdn");
    let (out, err, ok) = kondavo(&[
        "match",
        "--variant",
        "english",
        "--games",
        "2",
        "--movetime",
        "0.01",
        "--a",
        "kondavo:depth=2",
        "--b",
        "/nonexistent/engine hub",
        "--pdn",
        &pdn,
        "--engine-log",
        &tmp("crash.log"),
    ]);
    assert!(!ok, "{out}\n{err}");
    assert!(!out.contains("result"), "{out}");
    assert!(
        err.contains("engine B (/nonexistent/engine hub) cannot play: cannot start"),
        "{err}"
    );
}

/// Stronger settings beat weaker ones clearly; the SPRT stops early.
#[test]
fn sprt_stops_a_lopsided_match() {
    let (out, err, ok) = kondavo(&[
        "match",
        "--variant",
        "russian",
        "--games",
        "200",
        "--movetime",
        "0.01",
        "--a",
        "kondavo:depth=6",
        "--b",
        "kondavo:depth=1",
        "--sprt",
        "0,200,0.05,0.05",
    ]);
    assert!(ok, "{out}\n{err}");
    assert!(out.contains("status=AcceptH1"), "{out}");
    let (score, elo, _, games) = parse_result(&out);
    assert!(games < 200 && score > 0.7 && elo > 100.0, "{out}");
}

/// Three engines: a round robin prints a rating list with each engine once.
#[test]
fn round_robin_rating_list() {
    let (out, err, ok) = kondavo(&[
        "match",
        "--variant",
        "turkish",
        "--games",
        "2",
        "--movetime",
        "0.01",
        "--engine",
        "kondavo:depth=5",
        "--engine",
        "kondavo:depth=3",
        "--engine",
        "kondavo:depth=1",
        "--max-plies",
        "150",
    ]);
    assert!(ok, "{out}\n{err}");
    assert!(out.contains("rating list (turkish, 6 games)"), "{out}");
    let list: Vec<&str> = out
        .lines()
        .skip_while(|l| !l.starts_with("rating list"))
        .collect();
    for name in ["kondavo:depth=5", "kondavo:depth=3", "kondavo:depth=1"] {
        assert_eq!(list.iter().filter(|l| l.contains(name)).count(), 1, "{out}");
    }
}

/// A killed run is continued from its PDN: finished games are kept and
/// counted, the rest are played.
#[test]
fn resume_continues_from_the_pdn() {
    let pdn = tmp("resume.pdn");
    let args = |games: &str| {
        vec![
            "match".to_string(),
            "--variant".into(),
            "italian".into(),
            "--games".into(),
            games.into(),
            "--movetime".into(),
            "0.01".into(),
            "--a".into(),
            "kondavo:depth=3".into(),
            "--b".into(),
            "kondavo:depth=2".into(),
            "--pdn".into(),
            pdn.clone(),
            "--max-plies".into(),
            "100".into(),
        ]
    };
    let first: Vec<String> = args("2");
    let (out, _, ok) = kondavo(&first.iter().map(String::as_str).collect::<Vec<_>>());
    assert!(ok);
    assert_eq!(parse_result(&out).3, 2);
    let mut second = args("4");
    second.push("--resume".into());
    let (out, err, ok) = kondavo(&second.iter().map(String::as_str).collect::<Vec<_>>());
    assert!(ok, "{out}\n{err}");
    assert!(out.contains("resume: 2 games already played"), "{out}");
    assert_eq!(parse_result(&out).3, 4);
    let text = std::fs::read_to_string(&pdn).unwrap();
    assert_eq!(text.matches("[Event ").count(), 4);
}

/// Analysis of a small PDN: one JSON object per position with the
/// documented fields, a broken game reported as an error object, and the
/// batch goes on.
#[test]
fn analyse_a_small_pdn() {
    let pdn = tmp("an.pdn");
    std::fs::write(
        &pdn,
        "[GameType \"20\"]\n1. 32-28 19-23 2. 28x19 14x23 *\n\n[GameType \"20\"]\n1. 32-28 32-27 *\n\n\
         [GameType \"25\"]\n[FEN \"W:Wc3:Bf6\"]\n1. c3-d4 *\n",
    )
    .unwrap();
    let (out, err, ok) = kondavo(&[
        "analyse",
        "--pdn",
        &pdn,
        "--depth",
        "5",
        "--multipv",
        "2",
        "--json",
    ]);
    assert!(ok, "{err}");
    let lines: Vec<&str> = out.lines().collect();
    // Game 1: 5 positions; game 2: the 2 positions before its illegal
    // move, then an error; game 3 (Russian): 2 positions.
    assert_eq!(lines.len(), 10, "{out}");
    for l in lines.iter().take(5) {
        for field in [
            "\"fen\":",
            "\"bestmove\":",
            "\"score\":",
            "\"depth\":",
            "\"nodes\":",
            "\"pv\":[",
            "\"lines\":[",
        ] {
            assert!(l.contains(field), "{field} missing in {l}");
        }
        assert!(l.starts_with('{') && l.ends_with('}'));
    }
    // The forced recapture after 28x19 is found.
    assert!(
        lines[3].contains("\"bestmove\":\"14x23\"") || lines[3].contains("\"bestmove\":\"13x24\""),
        "{}",
        lines[3]
    );
    assert!(lines[6].contains("\"game\":2,\"ply\":1"), "{}", lines[6]);
    assert!(
        lines[7].starts_with("{\"error\":") && lines[7].contains("game 2"),
        "{}",
        lines[7]
    );
    assert!(lines[8].contains("\"fen\":\"W:Wc3:Bf6\""), "{}", lines[8]);
    assert!(lines[8].contains("\"game\":3"));
}

/// Analysis of FENs, bad ones included, and decisive scores.
#[test]
fn analyse_fens() {
    let (out, _, ok) = kondavo(&[
        "analyse",
        "--variant",
        "international",
        "--fen",
        "W:W28,32:B23",
        "--fen",
        "W:W99",
        "--depth",
        "4",
        "--json",
    ]);
    assert!(ok);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 2);
    assert!(
        lines[0].contains("\"bestmove\":\"28x19\"") && lines[0].contains("\"win\":1"),
        "{}",
        lines[0]
    );
    assert!(
        lines[1].contains("\"error\":") && lines[1].contains("W:W99"),
        "{}",
        lines[1]
    );
}
