//! A closed pipe on standard output or standard error ends every command
//! quietly with status 141 (what a shell reports for a process killed by
//! SIGPIPE), never with a panic or an abort: `kondavo perft | head -1`,
//! and a Hub GUI that closes its end of the engine's output.

use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

mod common;
use common::KONDAVO;

/// The status of a process ended by a write to a pipe nobody reads.
const BROKEN_PIPE: i32 = 141;

/// Waits up to `limit` for `child` to exit; kills it and fails past that.
fn wait_for(child: &mut Child, limit: Duration, what: &str) -> ExitStatus {
    let start = Instant::now();
    loop {
        if let Some(status) = child.try_wait().expect("try_wait") {
            return status;
        }
        if start.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            panic!("{what}: still running {limit:?} after its output was closed");
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// Standard error of an exited `child`, read whole.
fn stderr_of(child: &mut Child) -> String {
    let mut err = String::new();
    if let Some(mut e) = child.stderr.take() {
        e.read_to_string(&mut err).expect("read stderr");
    }
    err
}

/// Asserts the quiet end of a closed pipe: status 141 from `exit`, not a
/// signal, and no panic message.
fn assert_quiet_141(status: ExitStatus, err: &str, what: &str, empty_stderr: bool) {
    assert_eq!(
        status.code(),
        Some(BROKEN_PIPE),
        "{what}: {status:?}, stderr: {err:?}"
    );
    assert!(!err.contains("panicked"), "{what}: {err:?}");
    if empty_stderr {
        assert_eq!(err, "", "{what}: stderr");
    }
}

/// Runs kondavo with `args` and `input` on standard input, its standard
/// output a pipe whose read end was closed before it started: the first
/// line it writes meets a closed pipe whatever the timing.
fn run_with_closed_stdout(args: &[&str], input: &str) -> (ExitStatus, String) {
    let (reader, writer) = std::io::pipe().expect("pipe");
    drop(reader);
    let mut child = Command::new(KONDAVO)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(writer)
        .stderr(Stdio::piped())
        .spawn()
        .expect("run kondavo");
    {
        let mut stdin = child.stdin.take().expect("stdin");
        // The engine may already be gone: a failed write is no fault here.
        let _ = stdin.write_all(input.as_bytes());
    }
    let status = wait_for(&mut child, Duration::from_secs(120), &args.join(" "));
    let err = stderr_of(&mut child);
    (status, err)
}

/// Runs kondavo with `args`, reads the first line of its output, closes
/// the pipe and waits: commands that go on printing must then end.
fn close_after_one_line(args: &[&str]) -> (String, ExitStatus, String) {
    let mut child = Command::new(KONDAVO)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run kondavo");
    let mut first = String::new();
    {
        let mut out = BufReader::new(child.stdout.take().expect("stdout"));
        out.read_line(&mut first).expect("read the first line");
    }
    let status = wait_for(&mut child, Duration::from_secs(120), &args.join(" "));
    let err = stderr_of(&mut child);
    (first, status, err)
}

#[test]
fn every_printing_command_ends_with_141_on_a_closed_stdout() {
    let dir = common::fresh_dir("kondavo-pipe", "cmds");
    let egdb = dir.join("egdb").to_string_lossy().into_owned();
    let games = dir.join("games.txt").to_string_lossy().into_owned();
    let commands: Vec<Vec<&str>> = vec![
        vec!["moves"],
        vec!["moves", "--json", "--variant", "russian"],
        vec!["perft", "--depth", "5", "--divide"],
        vec!["perft", "--depth", "4", "--threads", "2"],
        vec!["search", "--depth", "6"],
        vec!["bench", "--variant", "english", "--depth", "4"],
        vec!["analyse", "--depth", "3"],
        common::egdb_args(
            "build",
            "english",
            &["--pieces", "2", "--dir", &egdb, "--threads", "1"],
        ),
        common::match_args(
            "english",
            "2",
            &[
                "--max-plies",
                "20",
                "--a",
                "kondavo:depth=1",
                "--b",
                "kondavo:depth=1",
            ],
        ),
        vec![
            "selfplay",
            "--variant",
            "english",
            "--games",
            "1",
            "--depth",
            "1",
            "--threads",
            "1",
            "--out",
            &games,
        ],
    ];
    for args in &commands {
        let (status, err) = run_with_closed_stdout(args, "");
        // match and selfplay may write progress lines on stderr.
        let quiet = !matches!(args[0], "match" | "selfplay");
        assert_quiet_141(status, &err, &args.join(" "), quiet);
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn perft_divide_ends_with_141_when_the_reader_goes_after_one_line() {
    // The header comes first; the counts of the root moves follow once the
    // whole depth is counted, so all of them meet the closed pipe.
    let (first, status, err) = close_after_one_line(&["perft", "--depth", "8", "--divide"]);
    assert!(first.starts_with("perft international"), "{first:?}");
    assert_quiet_141(status, &err, "perft --divide", true);
    // Without --divide a line per depth, the deeper ones later.
    let (first, status, err) = close_after_one_line(&["perft", "--depth", "9"]);
    assert!(first.starts_with("perft international"), "{first:?}");
    assert_quiet_141(status, &err, "perft", true);
}

#[test]
fn search_ends_with_141_when_the_reader_goes_after_one_line() {
    // A long search prints a line per iteration; it must stop at the
    // first one after the reader has gone, not run its 60 seconds.
    let start = Instant::now();
    let (first, status, err) = close_after_one_line(&["search", "--movetime", "60"]);
    assert!(!first.is_empty());
    assert_quiet_141(status, &err, "search", true);
    assert!(
        start.elapsed() < Duration::from_secs(30),
        "{:?}",
        start.elapsed()
    );
}

#[test]
fn bench_ends_with_141_when_the_reader_goes_after_one_line() {
    let (first, status, err) = close_after_one_line(&["bench", "--depth", "9"]);
    assert!(!first.is_empty());
    assert_quiet_141(status, &err, "bench", true);
}

#[test]
fn an_error_message_on_a_closed_stderr_ends_with_141() {
    let (reader, writer) = std::io::pipe().expect("pipe");
    drop(reader);
    let mut child = Command::new(KONDAVO)
        .args(["moves", "--fen", "not a position"])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(writer)
        .spawn()
        .expect("run kondavo");
    let status = wait_for(&mut child, Duration::from_secs(60), "moves --fen");
    let mut out = String::new();
    child
        .stdout
        .take()
        .unwrap()
        .read_to_string(&mut out)
        .unwrap();
    assert_eq!(status.code(), Some(BROKEN_PIPE), "{status:?}");
    assert_eq!(out, "");
}

#[test]
fn the_hub_ends_with_141_when_its_output_is_closed() {
    // A GUI that never reads: the first reply meets the closed pipe.
    let (status, err) = run_with_closed_stdout(&["hub"], "hub\ninit\nping\n");
    assert_quiet_141(status, &err, "hub, output closed at start", true);
}

/// The Hub reading on: the GUI closed the engine's output but not its
/// input, so only the closed pipe can end the engine.
fn hub_closed_after_one_line(input: &str, what: &str) {
    let mut child = Command::new(KONDAVO)
        .arg("hub")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run kondavo hub");
    let mut stdin = child.stdin.take().expect("stdin");
    stdin.write_all(b"hub\n").expect("send hub");
    stdin.flush().unwrap();
    let mut first = String::new();
    {
        let mut out = BufReader::new(child.stdout.take().expect("stdout"));
        out.read_line(&mut first).expect("read the first line");
    }
    assert!(first.starts_with("id "), "{first:?}");
    // stdin stays open until the engine has exited.
    let _ = stdin.write_all(input.as_bytes());
    let _ = stdin.flush();
    let start = Instant::now();
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        if start.elapsed() > Duration::from_secs(20) {
            let _ = child.kill();
            let _ = child.wait();
            panic!("{what}: the engine goes on with its output closed");
        }
        // Keep asking, as a GUI that does not know yet would.
        let _ = stdin.write_all(b"ping\n");
        let _ = stdin.flush();
        std::thread::sleep(Duration::from_millis(20));
    };
    drop(stdin);
    let err = stderr_of(&mut child);
    assert_quiet_141(status, &err, what, true);
}

#[test]
fn the_hub_ends_with_141_when_the_gui_closes_its_output() {
    hub_closed_after_one_line("", "hub, commands after the close");
}

#[test]
fn the_hub_ends_with_141_when_the_gui_closes_its_output_while_analysing() {
    // The search thread's info lines meet the closed pipe; no `ping` is
    // needed for the engine to notice (the loop above sends them anyway,
    // and they are served during the search).
    hub_closed_after_one_line("init\npos start\ngo analyze\n", "hub, analysing");
}
