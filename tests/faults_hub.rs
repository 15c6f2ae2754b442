//! The Hub's endgame databases without `init`, `go` with a mode it does not
//! know, endgame table files named in every error (missing, unreadable, a
//! file where a directory belongs), and `egdb verify` of every table a
//! directory holds.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::Receiver;
use std::time::{Duration, Instant};

use kondavo::egdb::build::build;
use kondavo::egdb::table_path;
use kondavo::rules::English;

mod common;

const WAIT: Duration = Duration::from_secs(30);

/// A fresh directory holding the English tables up to 3 pieces (16 files).
fn english_tables(name: &str) -> PathBuf {
    let d = common::fresh_dir("kondavo-faults-hub", name);
    build::<English>(&d, 3, false, &mut |_| {}).unwrap();
    d
}

/// The file of signature `sig` (e.g. `"2001"`) in `dir`.
fn table(dir: &Path, sig: &str) -> PathBuf {
    table_path::<English>(dir, sig.parse().unwrap())
}

fn text(p: &Path) -> String {
    p.to_string_lossy().into_owned()
}

/// Whether file permissions deny reads to this process (not so for root):
/// a file made unreadable is read back or not.
fn permissions_deny_reads(dir: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    let probe = dir.join("permission-probe");
    std::fs::write(&probe, b"x").unwrap();
    std::fs::set_permissions(&probe, std::fs::Permissions::from_mode(0o000)).unwrap();
    let denied = std::fs::read(&probe).is_err();
    std::fs::set_permissions(&probe, std::fs::Permissions::from_mode(0o644)).unwrap();
    std::fs::remove_file(&probe).unwrap();
    denied
}

fn chmod(p: &Path, mode: u32) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(p, std::fs::Permissions::from_mode(mode)).unwrap();
}

/// `kondavo hub` on pipes.
struct Hub {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<String>,
}

impl Hub {
    fn start() -> Hub {
        let mut child = Command::new(env!("CARGO_BIN_EXE_kondavo"))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("start kondavo");
        Hub {
            stdin: child.stdin.take(),
            lines: common::line_channel(child.stdout.take().unwrap()),
            child,
        }
    }

    /// `kondavo hub` playing English, with `egdb-path` set to `dir`.
    fn english_with_tables(dir: &Path) -> Hub {
        let mut e = Hub::start();
        e.send("set-param name=variant value=english");
        e.send(&set_path(&text(dir)));
        e
    }

    fn send(&mut self, line: &str) {
        let stdin = self.stdin.as_mut().unwrap();
        writeln!(stdin, "{line}").unwrap();
        stdin.flush().unwrap();
    }

    /// The lines up to and including the first that starts with `prefix`.
    fn until(&mut self, prefix: &str) -> Vec<String> {
        let deadline = Instant::now() + WAIT;
        let mut got = Vec::new();
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
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

    /// `go think`: the lines up to and including `done`.
    fn think(&mut self) -> Vec<String> {
        self.send("go think");
        self.until("done")
    }

    /// King against king (`W:WK32:BK26`, White wins by 32-27) searched with
    /// `go think` to `depth`: the lines up to and including `done`.
    fn think_kings(&mut self, depth: u32) -> Vec<String> {
        self.send("pos fen=\"W:WK32:BK26\"");
        self.send(&format!("level depth={depth}"));
        self.think()
    }

    /// `hub`'s line for the parameter `egdb-path`.
    fn egdb_path_param(&mut self) -> String {
        self.send("hub");
        self.until("wait")
            .into_iter()
            .find(|l| l.starts_with("param name=egdb-path "))
            .expect("hub lists egdb-path")
    }

    fn quit(mut self) {
        self.send("quit");
        drop(self.stdin.take());
        let status = self.child.wait().unwrap();
        assert!(status.success(), "{status}");
    }
}

/// `set-param name=egdb-path` with `dir` quoted.
fn set_path(dir: &str) -> String {
    format!("set-param name=egdb-path value=\"{dir}\"")
}

/// `egdb-path` set and `go` sent without `init`: the tables load at `go`,
/// and the search uses them.
#[test]
fn go_without_init_loads_the_tables() {
    let dir = english_tables("noinit");
    let mut e = Hub::english_with_tables(&dir);
    let lines = e.think_kings(4);
    assert!(
        lines
            .iter()
            .any(|l| l == "info string endgame databases: 3 pieces of english loaded"),
        "{lines:#?}"
    );
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("info depth=") && l.contains(" egdb-hits=")),
        "{lines:#?}"
    );
    assert!(!lines.iter().any(|l| l.starts_with("error")), "{lines:#?}");
    assert!(
        lines.last().unwrap().starts_with("done move=32-27"),
        "{lines:#?}"
    );
    let want = format!("param name=egdb-path value={} type=string", text(&dir));
    assert_eq!(e.egdb_path_param(), want);
    // Loaded once: the next go says nothing more about the tables.
    let lines = e.think();
    assert!(
        !lines.iter().any(|l| l.contains("endgame databases")),
        "{lines:#?}"
    );
    e.quit();
    let _ = std::fs::remove_dir_all(&dir);
}

/// A damaged table met at `go` without `init`: an error naming the file,
/// the search still answers `done`, the engine serves on, and `hub` shows
/// no path (no tables are in use).
#[test]
fn go_without_init_reports_a_damaged_table_and_still_searches() {
    let dir = english_tables("damaged");
    let bad = table(&dir, "1101");
    let bytes = std::fs::read(&bad).unwrap();
    std::fs::write(&bad, &bytes[..bytes.len() / 2]).unwrap();
    let mut e = Hub::english_with_tables(&dir);
    let lines = e.think_kings(3);
    let errors: Vec<&String> = lines.iter().filter(|l| l.starts_with("error")).collect();
    assert_eq!(errors.len(), 1, "{lines:#?}");
    assert!(
        errors[0].contains("go: ") && errors[0].contains(&text(&bad)),
        "{lines:#?}"
    );
    assert!(
        lines.last().unwrap().starts_with("done move="),
        "{lines:#?}"
    );
    assert!(!lines.iter().any(|l| l.contains("egdb-hits")), "{lines:#?}");
    e.send("ping");
    assert_eq!(e.until("pong"), ["pong"]);
    assert_eq!(
        e.egdb_path_param(),
        "param name=egdb-path value=\"\" type=string"
    );
    // The failure is reported once, not at every go.
    let lines = e.think();
    assert!(!lines.iter().any(|l| l.starts_with("error")), "{lines:#?}");
    // Repaired and set again, the tables load at the next go.
    std::fs::write(&bad, &bytes).unwrap();
    e.send(&set_path(&text(&dir)));
    let lines = e.think();
    assert!(
        lines
            .iter()
            .any(|l| l == "info string endgame databases: 3 pieces of english loaded"),
        "{lines:#?}"
    );
    assert!(
        lines.last().unwrap().starts_with("done move=32-27"),
        "{lines:#?}"
    );
    e.quit();
    let _ = std::fs::remove_dir_all(&dir);
}

/// A directory refused at `set-param` (missing, or a file): `hub` shows
/// the path in use (none), not the refused value, and the tables loaded
/// before are no longer used.
#[test]
fn hub_shows_the_path_in_use_after_a_refused_one() {
    let dir = english_tables("refused");
    let mut e = Hub::english_with_tables(&dir);
    e.send("init");
    let lines = e.until("ready");
    assert!(
        lines
            .iter()
            .any(|l| l.contains("3 pieces of english loaded")),
        "{lines:#?}"
    );
    let file = table(&dir, "0101");
    for (refused, needle) in [
        (text(&dir.join("nowhere")), "not found".to_string()),
        (
            text(&file),
            format!("{} is a file, not a directory", text(&file)),
        ),
    ] {
        e.send(&set_path(&text(&dir)));
        e.send(&set_path(&refused));
        e.send("ping");
        let lines = e.until("pong");
        let errors: Vec<&String> = lines.iter().filter(|l| l.starts_with("error")).collect();
        assert!(
            errors.len() == 1
                && errors[0].starts_with("error message=\"set-param egdb-path: ")
                && errors[0].contains(&needle),
            "{lines:#?}"
        );
        assert_eq!(
            e.egdb_path_param(),
            "param name=egdb-path value=\"\" type=string"
        );
        let lines = e.think_kings(3);
        assert!(!lines.iter().any(|l| l.contains("egdb-hits")), "{lines:#?}");
    }
    e.quit();
    let _ = std::fs::remove_dir_all(&dir);
}

/// `go` with a mode protocol.md does not list is an error naming it, with
/// one bare `done` and no search; the next valid `go` searches.
#[test]
fn go_with_an_unknown_mode_is_an_error() {
    let mut e = Hub::start();
    e.send("pos start");
    e.send("level depth=2");
    for (go, word) in [
        ("go analyse", "'analyse'"),
        ("go foo", "'foo'"),
        ("go think=5", "think"),
        ("go think analyze", "one of"),
    ] {
        e.send(go);
        let lines = e.until("done");
        assert_eq!(lines.len(), 2, "{go}: {lines:#?}");
        assert!(
            lines[0].starts_with("error message=\"go: ") && lines[0].contains(word),
            "{go}: {lines:#?}"
        );
        assert_eq!(lines[1], "done", "{go}");
        e.send("ping");
        assert_eq!(e.until("pong"), ["pong"], "{go}: no search runs");
    }
    let lines = e.think();
    assert!(
        lines.iter().any(|l| l.starts_with("info depth=")),
        "{lines:#?}"
    );
    assert!(
        lines.last().unwrap().starts_with("done move="),
        "{lines:#?}"
    );
    // A bare go thinks, as in Scan.
    e.send("go");
    let lines = e.until("done");
    assert!(
        lines.last().unwrap().starts_with("done move="),
        "{lines:#?}"
    );
    e.quit();
}

/// `kondavo search` with the tables of `dir`: stderr and success.
fn search_with(dir: &str) -> (String, bool) {
    let (_, err, ok) = common::kondavo(&[
        "search",
        "--egdb-path",
        dir,
        "--variant",
        "english",
        "--depth",
        "2",
    ]);
    (err, ok)
}

/// A missing table of a set is named, whatever its piece count, by the
/// command line and by the Hub.
#[test]
fn a_missing_table_is_named() {
    let dir = english_tables("missing");
    for sig in ["2001", "0101"] {
        let gone = table(&dir, sig);
        let bytes = std::fs::read(&gone).unwrap();
        std::fs::remove_file(&gone).unwrap();
        let (err, ok) = search_with(&text(&dir));
        assert!(
            !ok && err.contains(&format!("{} is missing", text(&gone))),
            "{sig}: {err}"
        );
        let mut e = Hub::english_with_tables(&dir);
        e.send("init");
        let lines = e.until("ready");
        assert!(
            lines
                .iter()
                .any(|l| l.starts_with("error message=\"init: ") && l.contains(&text(&gone))),
            "{sig}: {lines:#?}"
        );
        e.quit();
        std::fs::write(&gone, bytes).unwrap();
    }
    let (err, ok) = search_with(&text(&dir));
    assert!(ok && err.contains("3 pieces"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// An unreadable table, or tables directory, is named with the system's
/// reason.
#[test]
fn an_unreadable_table_is_named_with_the_reason() {
    let dir = english_tables("unreadable");
    if !permissions_deny_reads(&dir) {
        eprintln!("permissions do not deny reads here (root?): skipped");
        let _ = std::fs::remove_dir_all(&dir);
        return;
    }
    let locked = table(&dir, "1010");
    chmod(&locked, 0o000);
    let (err, ok) = search_with(&text(&dir));
    assert!(
        !ok && err.contains(&text(&locked)) && err.to_lowercase().contains("permission denied"),
        "{err}"
    );
    let (out, err, ok) = common::kondavo(&common::egdb_args(
        "verify",
        "english",
        &["--dir", &text(&dir)],
    ));
    assert!(
        !ok && err.contains(&text(&locked)) && err.to_lowercase().contains("permission denied"),
        "{out}\n{err}"
    );
    chmod(&locked, 0o644);
    let vdir = dir.join("english");
    chmod(&vdir, 0o000);
    let (err, ok) = search_with(&text(&dir));
    chmod(&vdir, 0o755);
    assert!(
        !ok && err.contains(&text(&vdir)) && err.to_lowercase().contains("permission denied"),
        "{err}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// A file where the tables' directory belongs is called a file.
#[test]
fn a_file_for_a_directory_is_called_a_file() {
    let dir = english_tables("file");
    let file = table(&dir, "0110");
    let want = format!("{} is a file, not a directory", text(&file));
    let (err, ok) = search_with(&text(&file));
    assert!(!ok && err.contains(&want), "{err}");
    let f = text(&file);
    for args in [
        common::egdb_args("verify", "english", &["--dir", &f]),
        common::egdb_args("verify", "english", &["--pieces", "3", "--dir", &f]),
        common::egdb_args("probe", "english", &["--fen", "W:WK32:BK26", "--dir", &f]),
    ] {
        let (out, err, ok) = common::kondavo(&args);
        assert!(!ok && err.contains(&want), "{args:?}: {out}\n{err}");
    }
    // The Hub given it on the command line says so at init.
    let mut child = Command::new(env!("CARGO_BIN_EXE_kondavo"))
        .args(["--egdb-path", &text(&file), "hub"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(b"init\nquit\n")
        .unwrap();
    let out = child.wait_with_output().unwrap();
    let out = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.contains("error message=\"init: ") && out.contains(&want),
        "{out}"
    );
    assert!(out.contains("ready"), "{out}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// `egdb verify` without `--pieces` verifies every table the directory
/// holds, says which, and names a damaged one.
#[test]
fn verify_without_pieces_checks_every_table_held() {
    let dir = english_tables("verify");
    let d = text(&dir);
    let (out, err, ok) = common::kondavo(&["egdb", "verify", "--variant", "english", "--dir", &d]);
    assert!(ok, "{out}\n{err}");
    assert!(
        out.contains(&format!(
            "verifying english tables of 2 to 3 pieces in {d}: 16 files"
        )),
        "{out}"
    );
    assert!(
        out.contains("english up to 3 pieces: 16 tables, 199520 positions, every value agrees"),
        "{out}"
    );
    let bad = table(&dir, "0201");
    let mut bytes = std::fs::read(&bad).unwrap();
    let mid = bytes.len() / 2;
    bytes[mid] ^= 0x20;
    std::fs::write(&bad, &bytes).unwrap();
    let (out, err, ok) = common::kondavo(&["egdb", "verify", "--variant", "english", "--dir", &d]);
    assert!(
        !ok && err.contains(&text(&bad)) && err.contains("checksum"),
        "{out}\n{err}"
    );
    // A directory without the variant's tables.
    let (out, err, ok) = common::kondavo(&["egdb", "verify", "--variant", "italian", "--dir", &d]);
    assert!(
        !ok && err.contains("no italian endgame tables in"),
        "{out}\n{err}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}
