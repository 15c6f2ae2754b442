//! Faults of `analyse`, PDN reading, `--weights`, `train` and FEN reading:
//! a broken game in a PDN file keeps the file's game numbers, an illegal
//! move still analyses the positions before it and an annotated file keeps
//! the game, a Latin-1 PDN is read; weights for another variant than the
//! one searched are refused, a file that is no weights file is named so and
//! nothing of it reaches the terminal raw; `train --out` never overwrites a
//! data file and a diverging fit writes nothing; a FEN with more pieces
//! than the start position gives a side is refused, in the Hub too.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use kondavo::eval::learned::starting;
use kondavo::eval::Evaluate;
use kondavo::notation::fen::parse_fen;
use kondavo::notation::pdn::parse_pdn;
use kondavo::rules::{English, International, Rules, Turkish};

mod common;
use common::kondavo;

/// A fresh temporary directory for one test.
fn tmp_dir(name: &str) -> PathBuf {
    common::fresh_dir("kondavo-faults", name)
}

fn path(p: &Path) -> &str {
    p.to_str().unwrap()
}

// ---------------------------------------------------------------------------
// PDN files in analyse

/// A good International game named `event`: 5 positions to analyse.
fn good_game(event: &str) -> String {
    format!("[Event \"{event}\"]\n[GameType \"20\"]\n1. 32-28 19-23 2. 28x19 14x23 2-0\n\n")
}

/// Five games, the third one `third`.
fn five_games(third: &str) -> String {
    format!(
        "{}{}{third}\n\n{}{}",
        good_game("one"),
        good_game("two"),
        good_game("four"),
        good_game("five")
    )
}

/// The `"game":N` of each analysed position and the error lines.
fn games_and_errors(out: &str) -> (Vec<usize>, Vec<String>) {
    let mut games = Vec::new();
    let mut errors = Vec::new();
    for l in out.lines() {
        if l.starts_with("{\"error\":") {
            errors.push(l.to_string());
        } else if let Some(i) = l.find("\"game\":") {
            let n: String = l[i + 7..]
                .chars()
                .take_while(char::is_ascii_digit)
                .collect();
            games.push(n.parse().unwrap());
        }
    }
    (games, errors)
}

fn analyse_pdn(file: &Path, extra: &[&str]) -> (String, String, bool) {
    let mut args = vec![
        "analyse",
        "--pdn",
        path(file),
        "--depth",
        "1",
        "--hash",
        "1",
    ];
    args.extend_from_slice(extra);
    kondavo(&args)
}

/// A syntax error in game 3 of five: games 4 and 5 keep their numbers and
/// the only error is game 3's, whatever the error (an unclosed comment full
/// of result-like words used to make seven games of it).
#[test]
fn a_broken_game_keeps_the_numbers_of_the_games_after_it() {
    let dir = tmp_dir("numbers");
    let broken = [
        (
            "unclosed comment",
            "[Event \"three\"]\n[GameType \"20\"]\n1. 32-28 {unclosed: 1-0 is not sure, 2-0 may be, \
             1-1 or 0-2 or even 0-1 * who knows\n19-23 2. 28x19 14x23 2-0",
        ),
        (
            "unclosed tag",
            "[Event \"three]\n[White \"x\"]\n[GameType \"20\"]\n1. 32-28 19-23 2-0",
        ),
        (
            "bad word",
            "[Event \"three\"]\n[GameType \"20\"]\n1. 32-28 @@@ 19-23 2. 28x19 2-0",
        ),
        (
            "unclosed variation",
            "[Event \"three\"]\n[GameType \"20\"]\n1. 32-28 (1. 33-29 2-0 (nested 0-2\n19-23 *",
        ),
        (
            "stray quote",
            "[Event \"three\"]\n[GameType \"20\"]\n1. 32-28 \"oops 19-23 2-0",
        ),
    ];
    for (what, third) in broken {
        let text = five_games(third);
        // The reader: five entries numbered 1 to 5, the third an error.
        let read = parse_pdn(&text);
        assert_eq!(read.len(), 5, "{what}: {read:#?}");
        for (k, r) in read.iter().enumerate() {
            match r {
                Ok(g) => {
                    assert_ne!(k, 2, "{what}: game 3 read: {g:?}");
                    assert_eq!(g.number, k + 1, "{what}");
                    assert_eq!(g.moves.len(), 4, "{what}: game {}", k + 1);
                }
                Err(e) => {
                    assert_eq!(k, 2, "{what}: {e}");
                    assert_eq!(e.game, 3, "{what}: {e}");
                }
            }
        }
        // analyse: games 1, 2, 4 and 5, five positions each, one error.
        let file = dir.join("five.pdn");
        std::fs::write(&file, &text).unwrap();
        let (out, err, ok) = analyse_pdn(&file, &[]);
        assert!(ok, "{what}: {err}");
        let (games, errors) = games_and_errors(&out);
        let mut want = Vec::new();
        for g in [1, 2, 4, 5] {
            want.extend([g; 5]);
        }
        assert_eq!(games, want, "{what}: {out}");
        assert_eq!(errors.len(), 1, "{what}: {errors:#?}");
        assert!(errors[0].contains("game 3"), "{what}: {}", errors[0]);
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// An illegal move in game 3: its positions before the move are analysed,
/// then an error names game 3, the move number and the move.
#[test]
fn an_illegal_move_analyses_the_positions_before_it() {
    let dir = tmp_dir("illegal");
    // 2. 28-22 is illegal: after 19-23 the capture 28x19 is compulsory.
    let third = "[Event \"three\"]\n[GameType \"20\"]\n1. 32-28 19-23 2. 28-22 17-21 2-0";
    let file = dir.join("illegal.pdn");
    std::fs::write(&file, five_games(third)).unwrap();
    let (out, err, ok) = analyse_pdn(&file, &[]);
    assert!(ok, "{err}");
    let lines: Vec<&str> = out.lines().collect();
    let (games, errors) = games_and_errors(&out);
    let mut want = vec![1; 5];
    want.extend([2; 5]);
    want.extend([3; 3]);
    want.extend([4; 5]);
    want.extend([5; 5]);
    assert_eq!(games, want, "{out}");
    assert_eq!(errors.len(), 1, "{errors:#?}");
    // The error comes right after game 3's positions (plies 0, 1, 2).
    assert!(lines[12].contains("\"game\":3,\"ply\":2"), "{}", lines[12]);
    let e = lines[13];
    assert!(e.starts_with("{\"error\":"), "{e}");
    for part in ["game 3", "move 2", "28-22"] {
        assert!(e.contains(part), "{part} missing in {e}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// `--annotate` keeps every game: a game with an illegal move and a game
/// with a syntax error are written as the file has them, with a comment
/// saying why they are not annotated; the others are annotated.
#[test]
fn annotate_keeps_the_games_it_cannot_annotate() {
    let dir = tmp_dir("annotate");
    let illegal = "[Event \"three\"]\n[GameType \"20\"]\n1. 32-28 19-23 2. 28-22 17-21 2-0";
    let broken = "[Event \"three\"]\n[GameType \"20\"]\n1. 32-28 @@@ 19-23 2-0";
    for (what, third) in [("illegal move", illegal), ("syntax error", broken)] {
        let file = dir.join("in.pdn");
        let dest = dir.join("out.pdn");
        let _ = std::fs::remove_file(&dest);
        std::fs::write(&file, five_games(third)).unwrap();
        let (out, err, ok) = analyse_pdn(&file, &["--annotate", path(&dest)]);
        assert!(ok, "{what}: {err}");
        assert!(out.contains("game 3"), "{what}: {out}");
        let written = std::fs::read_to_string(&dest).unwrap();
        let games = parse_pdn(&written);
        assert_eq!(games.len(), 5, "{what}: {written}");
        let events: Vec<String> = games
            .iter()
            .map(|g| match g {
                Ok(g) => g.tag("Event").unwrap_or("").to_string(),
                Err(e) => format!("error {e}"),
            })
            .collect();
        assert_eq!(events[0], "one", "{what}: {written}");
        assert_eq!(events[3], "four", "{what}: {written}");
        assert_eq!(events[4], "five", "{what}: {written}");
        // Game 3 is there, with the reason, and is not annotated.
        let at = written.find("\"three\"").expect("game 3 written");
        let end = written.find("\"four\"").unwrap();
        let three = &written[at..end];
        assert!(three.contains("not annotated"), "{what}: {three}");
        assert!(!three.contains("%eval"), "{what}: {three}");
        assert!(three.contains("19-23"), "{what}: {three}");
        if what == "illegal move" {
            let g = games[2].as_ref().expect("game 3 reads back");
            assert_eq!(g.moves, ["32-28", "19-23", "28-22", "17-21"]);
            assert!(g.comments.iter().any(|(_, c)| c.contains("28-22")));
        }
        for k in [0, 1, 3, 4] {
            let g = games[k].as_ref().unwrap();
            assert!(
                g.comments.iter().any(|(_, c)| c.contains("%eval")),
                "{what}: game {} not annotated",
                k + 1
            );
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// A PDN in Latin-1 (a byte that is not UTF-8) is read, the byte as the
/// character of the same code point.
#[test]
fn a_latin1_pdn_is_read() {
    let dir = tmp_dir("latin1");
    let file = dir.join("latin1.pdn");
    let dest = dir.join("out.pdn");
    let mut bytes = b"[Event \"one\"]\n[White \"Jos".to_vec();
    bytes.push(0xE9);
    bytes.extend_from_slice(b"\"]\n[GameType \"20\"]\n1. 32-28 19-23 *\n");
    std::fs::write(&file, &bytes).unwrap();
    let (out, err, ok) = analyse_pdn(&file, &[]);
    assert!(ok, "{err}");
    let (games, errors) = games_and_errors(&out);
    assert_eq!(games, [1, 1, 1], "{out}");
    assert!(errors.is_empty(), "{errors:?}");
    let (_, err, ok) = analyse_pdn(&file, &["--annotate", path(&dest)]);
    assert!(ok, "{err}");
    let written = std::fs::read_to_string(&dest).unwrap();
    assert!(written.contains("[White \"Jos\u{e9}\"]"), "{written}");
    let _ = std::fs::remove_dir_all(&dir);
}

// ---------------------------------------------------------------------------
// --weights

/// Weights for English with a search of International: an error naming
/// both, from a file and from `start:`; with the right variant, no error.
#[test]
fn weights_for_another_variant_are_refused() {
    let dir = tmp_dir("weights-variant");
    let file = dir.join("english.kdw");
    std::fs::write(&file, starting::<English>(&English::START).to_bytes()).unwrap();
    for w in [path(&file), "start:english"] {
        let (out, err, ok) = kondavo(&[
            "--weights",
            w,
            "search",
            "--variant",
            "international",
            "--depth",
            "1",
        ]);
        assert!(!ok, "{w}: accepted: {out}");
        assert!(
            err.contains("english") && err.contains("international"),
            "{w}: {err}"
        );
        assert!(out.is_empty(), "{w}: searched anyway: {out}");
        // analyse: the FEN's variant, then a PDN's games' variants.
        let (_, err, ok) = kondavo(&["--weights", w, "analyse", "--depth", "1"]);
        assert!(
            !ok && err.contains("english") && err.contains("international"),
            "{err}"
        );
    }
    let (_, err, ok) = kondavo(&[
        "--weights",
        path(&file),
        "search",
        "--variant",
        "english",
        "--depth",
        "1",
    ]);
    assert!(ok, "{err}");
    // A PDN of English games with English weights and no --variant: fine.
    let pdn = dir.join("english.pdn");
    std::fs::write(&pdn, "[GameType \"21\"]\n1. 11-15 *\n").unwrap();
    let (out, err, ok) = kondavo(&[
        "--weights",
        path(&file),
        "analyse",
        "--pdn",
        path(&pdn),
        "--depth",
        "1",
    ]);
    assert!(ok, "{err}");
    assert_eq!(out.lines().count(), 2, "{out}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// A file that is not a weights file is named so before anything else is
/// read from it, and no byte of it reaches the terminal raw.
#[test]
fn a_file_that_is_no_weights_file_is_named_and_not_echoed() {
    let dir = tmp_dir("weights-magic");
    let text = dir.join("notes.txt");
    std::fs::write(&text, "these are my notes about english draughts\n").unwrap();
    let (_, err, ok) = kondavo(&["--weights", path(&text), "search", "--depth", "1"]);
    assert!(!ok);
    assert!(err.contains("not a kondavo weights file"), "{err}");
    // Escapes everywhere, the variant name's place included.
    let esc = dir.join("esc.kdw");
    std::fs::write(&esc, b"\x1b[31m\x1b]0;x\x07\x1b[2J".repeat(8)).unwrap();
    let (out, err, ok) = kondavo(&["--weights", path(&esc), "search", "--depth", "1"]);
    assert!(!ok);
    assert!(err.contains("not a kondavo weights file"), "{err}");
    assert!(!err.contains('\x1b') && !out.contains('\x1b'), "{err:?}");
    // The magic, then escapes as the variant's name.
    let mut bytes = b"KDVW\x01\0\0\0\x01\0\0\0\x10".to_vec();
    bytes.extend_from_slice(&b"\x1b[31mhello\x1b[0m\x07".repeat(4));
    let named = dir.join("named.kdw");
    std::fs::write(&named, &bytes).unwrap();
    let (out, err, ok) = kondavo(&["--weights", path(&named), "search", "--depth", "1"]);
    assert!(!ok);
    assert!(err.contains("unknown variant"), "{err}");
    assert!(!err.contains('\x1b') && !out.contains('\x1b'), "{err:?}");
    assert!(!err.contains('\x07'), "{err:?}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// The Hub serves every variant: weights for English only and a search of
/// International say so in an `info string`, once.
#[test]
fn the_hub_says_when_the_weights_are_not_for_the_variant_searched() {
    let lines = hub(
        &["--weights", "start:english"],
        "hub\ninit\nlevel depth=1\ngo think\nping\n",
    );
    let told: Vec<&String> = lines
        .iter()
        .filter(|l| l.starts_with("info string --weights"))
        .collect();
    assert_eq!(told.len(), 1, "{lines:#?}");
    assert!(
        told[0].contains("english") && told[0].contains("normal"),
        "{}",
        told[0]
    );
    // English searches with them: nothing said.
    let lines = hub(
        &["--weights", "start:english"],
        "hub\nset-param name=variant value=english\ninit\nlevel depth=1\ngo think\nping\n",
    );
    assert!(!lines.iter().any(|l| l.contains("--weights")), "{lines:#?}");
}

/// Runs the Hub with `args`, sends `input` (which ends with `go` and
/// `ping`), waits for `done` and `pong`, quits; returns the output lines.
fn hub(args: &[&str], input: &str) -> Vec<String> {
    let mut child = Command::new(env!("CARGO_BIN_EXE_kondavo"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("start kondavo");
    let mut stdin = child.stdin.take().unwrap();
    let rx = common::line_channel(child.stdout.take().unwrap());
    stdin.write_all(input.as_bytes()).unwrap();
    stdin.flush().unwrap();
    let mut lines = Vec::new();
    let deadline = Instant::now() + Duration::from_secs(30);
    let finished = |lines: &[String]| {
        lines.iter().any(|l| l.starts_with("done"))
            && lines
                .last()
                .is_some_and(|l| l == "pong" || l.starts_with("done"))
            && lines.iter().filter(|l| *l == "pong").count() >= input.matches("ping").count()
    };
    while !finished(&lines) {
        let left = deadline.saturating_duration_since(Instant::now());
        match rx.recv_timeout(left) {
            Ok(l) => lines.push(l),
            Err(_) => panic!("no done and pong: {lines:#?}"),
        }
    }
    stdin.write_all(b"quit\n").unwrap();
    drop(stdin);
    child.wait().unwrap();
    lines.extend(rx.iter());
    lines
}

// ---------------------------------------------------------------------------
// train

/// A few English self-play games in `dir`.
fn selfplay_data(dir: &Path) -> PathBuf {
    let data = dir.join("games.kdsp");
    let (_, err, ok) = kondavo(&[
        "selfplay",
        "--variant",
        "english",
        "--games",
        "6",
        "--depth",
        "2",
        "--threads",
        "1",
        "--hash",
        "1",
        "--out",
        path(&data),
    ]);
    assert!(ok, "{err}");
    data
}

fn train(data: &str, out: &str, extra: &[&str]) -> (String, String, bool) {
    let mut args = vec![
        "train",
        "--variant",
        "english",
        "--data",
        data,
        "--out",
        out,
        "--epochs",
        "2",
        "--batch",
        "64",
        "--valid",
        "0.2",
    ];
    args.extend_from_slice(extra);
    kondavo(&args)
}

/// `--out` naming a data file, however spelled, is refused and the data
/// file is left as it was.
#[test]
fn train_never_writes_over_its_data() {
    let dir = tmp_dir("train-out");
    let data = selfplay_data(&dir);
    let before = std::fs::read(&data).unwrap();
    std::fs::create_dir_all(dir.join("sub")).unwrap();
    let link = dir.join("link.kdsp");
    #[cfg(unix)]
    std::os::unix::fs::symlink(&data, &link).unwrap();
    let spellings = [
        path(&data).to_string(),
        format!("{}/./games.kdsp", path(&dir)),
        format!("{}/sub/../games.kdsp", path(&dir)),
        path(&link).to_string(),
    ];
    for out in &spellings {
        if !Path::new(out).exists() {
            continue;
        }
        let (stdout, err, ok) = train(path(&data), out, &[]);
        assert!(!ok, "--out {out} accepted: {stdout}");
        assert!(err.contains("--out") && err.contains("data"), "{err}");
        assert_eq!(std::fs::read(&data).unwrap(), before, "--out {out}");
    }
    // Another file is written.
    let w = dir.join("w.kdw");
    let (_, err, ok) = train(path(&data), path(&w), &[]);
    assert!(ok, "{err}");
    assert!(w.exists());
    let _ = std::fs::remove_dir_all(&dir);
}

/// A learning rate that makes the loss NaN stops the run with an error
/// naming the epoch, and writes nothing.
#[test]
fn a_diverging_fit_writes_nothing() {
    let dir = tmp_dir("train-nan");
    let data = selfplay_data(&dir);
    let w = dir.join("w.kdw");
    let (out, err, ok) = train(path(&data), path(&w), &["--lr", "1e30"]);
    assert!(!ok, "accepted: {out}");
    assert!(err.contains("epoch 1"), "{err}");
    assert!(err.contains("NaN") || err.contains("inf"), "{err}");
    assert!(!w.exists(), "a weights file was written");
    let left: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(left, ["games.kdsp"], "files left: {left:?}");
    // --lr itself must be a positive number.
    for lr in ["--lr=nan", "--lr=inf", "--lr=0", "--lr=-1"] {
        let (_, err, ok) = train(path(&data), path(&w), &[lr]);
        assert!(!ok && err.contains("--lr"), "{lr}: {err}");
    }
    assert!(!w.exists());
    let _ = std::fs::remove_dir_all(&dir);
}

// ---------------------------------------------------------------------------
// FEN piece counts

/// More pieces of a colour than the start position gives it: an error
/// naming the count and the limit. The start counts themselves are fine.
#[test]
fn a_fen_with_too_many_pieces_is_refused() {
    let e = parse_fen::<English>("W:W20-32:B1-12").unwrap_err().0;
    assert!(
        e.contains("white has 13 pieces") && e.contains("English starts with 12"),
        "{e}"
    );
    let e = parse_fen::<English>("B:W21-32:B1-13").unwrap_err().0;
    assert!(e.contains("black has 13 pieces"), "{e}");
    assert!(parse_fen::<English>("W:W21-32:B1-12").is_ok());
    assert!(parse_fen::<English>("W:WK1,21-31:B2-12,K32").is_ok());

    let e = parse_fen::<International>("W:W30-50:B1-20").unwrap_err().0;
    assert!(
        e.contains("white has 21 pieces") && e.contains("International starts with 20"),
        "{e}"
    );
    assert!(parse_fen::<International>("W:W31-50:B1-20").is_ok());

    let sixteen = "a2,b2,c2,d2,e2,f2,g2,h2,a3,b3,c3,d3,e3,f3,g3,h3";
    assert!(parse_fen::<Turkish>(&format!("W:W{sixteen}:Ba7")).is_ok());
    let e = parse_fen::<Turkish>(&format!("W:W{sixteen},a4:Ba7"))
        .unwrap_err()
        .0;
    assert!(
        e.contains("white has 17 pieces") && e.contains("Turkish starts with 16"),
        "{e}"
    );
    // Every variant: the start holds the limit exactly.
    for v in kondavo::Variant::ALL {
        kondavo::with_rules!(v, R => {
            let start = kondavo::position::Position::<R>::start();
            let fen = kondavo::notation::fen::write_fen(&start);
            assert!(parse_fen::<R>(&fen).is_ok(), "{}", <R as Rules>::NAME);
        });
    }

    // The command line.
    let (_, err, ok) = kondavo(&[
        "search",
        "--variant",
        "english",
        "--fen",
        "W:W20-32:B1-12",
        "--depth",
        "1",
    ]);
    assert!(!ok && err.contains("13") && err.contains("12"), "{err}");
}

/// The Hub: `pos` with too many pieces is an error naming them, and the
/// Hub goes on serving (`pos start` is taken and searched).
#[test]
fn the_hub_refuses_a_pos_with_too_many_pieces_and_goes_on() {
    let lines = hub(
        &[],
        "hub\nset-param name=variant value=english\ninit\n\
         pos fen=\"W:W20-32:B1-12\"\nping\npos start\nlevel depth=1\ngo think\nping\n",
    );
    let errors: Vec<&String> = lines.iter().filter(|l| l.starts_with("error")).collect();
    assert_eq!(errors.len(), 1, "{lines:#?}");
    assert!(
        errors[0].contains("white has 13 pieces") && errors[0].contains("12"),
        "{}",
        errors[0]
    );
    assert_eq!(
        lines.iter().filter(|l| *l == "pong").count(),
        2,
        "{lines:#?}"
    );
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("done move=") && !l.contains("move=*")),
        "no search after the error: {lines:#?}"
    );
}
