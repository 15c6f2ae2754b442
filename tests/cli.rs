//! The command line refuses wrong options with an error naming the option,
//! and its defaults do what the help says.

mod common;
use common::kondavo;

/// Each of these must fail, naming the option on stderr, and print nothing
/// that looks like a result on stdout.
#[test]
fn zero_negative_and_nonsense_values_are_refused() {
    let cases: &[(&[&str], &str)] = &[
        (&["search", "--threads", "0"], "--threads"),
        (&["search", "--hash", "0"], "--hash"),
        (&["search", "--depth", "0"], "--depth"),
        (&["search", "--depth", "-3"], "--depth"),
        (&["search", "--depth", "500"], "--depth"),
        (&["search", "--movetime", "-1"], "--movetime"),
        (&["search", "--movetime", "0"], "--movetime"),
        (&["search", "--movetime", "nan"], "--movetime"),
        (&["search", "--nodes", "0"], "--nodes"),
        (&["analyse", "--multipv", "0"], "--multipv"),
        (&["analyse", "--depth", "-1"], "--depth"),
        (&["analyse", "--threads", "0"], "--threads"),
        (&["bench", "--threads", "0"], "--threads"),
        (&["bench", "--hash", "0"], "--hash"),
        (&["search", "--hash", "99999999999"], "--hash"),
        (&["analyse", "--hash", "4000000000"], "--hash"),
        (&["dxp", "--hash", "4000000000"], "--hash"),
        (&["bench", "--depth", "-2"], "--depth"),
        (&["perft", "--threads", "0"], "--threads"),
        (&["perft", "--depth", "-1"], "--depth"),
        (&["match", "--games", "0"], "--games"),
        (&["match", "--concurrency", "0"], "--concurrency"),
        (&["match", "--movetime", "-1"], "--movetime"),
        (&["match", "--max-plies", "0"], "--max-plies"),
        (&["dxp", "--threads", "0"], "--threads"),
        (&["dxp", "--hash", "0"], "--hash"),
        (&["dxp", "--movetime", "-1"], "--movetime"),
        (&["dxp", "--games", "0"], "--games"),
    ];
    for (args, option) in cases {
        let (out, err, ok) = kondavo(args);
        assert!(!ok, "{args:?} was accepted: {out}");
        assert!(
            err.contains(option),
            "{args:?}: error does not name {option}: {err}"
        );
        assert!(!out.contains("bestmove"), "{args:?} searched: {out}");
    }
}

#[test]
fn movetime_minus_one_says_what_is_wrong() {
    let (_, err, ok) = kondavo(&["search", "--movetime", "-1"]);
    assert!(!ok);
    assert!(err.contains("positive"), "{err}");
}

#[test]
fn perft_depth_zero_counts_the_empty_path() {
    let (out, err, ok) = kondavo(&["perft", "--depth", "0"]);
    assert!(ok, "{err}");
    assert!(
        out.lines().any(|l| l.starts_with("depth=0 nodes=1 ")),
        "{out}"
    );
    let (out, err, ok) = kondavo(&["perft", "--depth", "0", "--divide"]);
    assert!(ok, "{err}");
    assert!(
        out.lines().any(|l| l.starts_with("depth=0 nodes=1 ")),
        "{out}"
    );
}

#[test]
fn annotate_needs_a_pdn() {
    let (out, err, ok) = kondavo(&[
        "analyse",
        "--fen",
        "W:W31-50:B1-20",
        "--annotate",
        "never-written.pdn",
        "--depth",
        "2",
    ]);
    assert!(!ok, "--annotate with --fen was accepted: {out}");
    assert!(err.contains("--pdn"), "{err}");
    assert!(!std::path::Path::new("never-written.pdn").exists());
}

#[test]
fn analyse_without_a_position_analyses_the_start() {
    for (variant, start_move) in [("international", "-"), ("english", "-")] {
        let (out, err, ok) = kondavo(&["analyse", "--variant", variant, "--depth", "4"]);
        assert!(ok, "{variant}: {err}");
        let lines: Vec<&str> = out.lines().collect();
        assert_eq!(lines.len(), 1, "{variant}: {out}");
        assert!(
            lines[0].starts_with('{') && lines[0].ends_with('}'),
            "{out}"
        );
        assert!(lines[0].contains("\"bestmove\""), "{out}");
        assert!(lines[0].contains(start_move), "{out}");
        assert!(!lines[0].contains("error"), "{out}");
    }
}
