//! `kondavo serve --egdb-path`: the endgame databases of every variant the
//! directory holds are loaded and used by the searches the page starts.

mod serve_support;

use std::process::Command;
use std::time::Duration;

use serde_json::{json, Value};
use serve_support::{Server, TempDir, KONDAVO};

/// The last `info` of a fixed-depth analysis of `fen` (English).
fn last_info(s: &Server, fen: &str) -> Value {
    let mut ws = s.ws();
    ws.send(&json!({"type": "analyse", "variant": "english", "fen": fen, "depth": 3}));
    let (_, before) = ws.until("done", Duration::from_secs(60));
    before
        .into_iter()
        .rev()
        .find(|m| m["type"] == "info")
        .expect("an info")
}

#[test]
fn the_endgame_databases_are_used_by_the_pages_searches() {
    let dir = TempDir::new("egdb");
    let tables = dir.path("tables");
    let built = Command::new(KONDAVO)
        .args([
            "egdb",
            "build",
            "--variant",
            "english",
            "--pieces",
            "3",
            "--dir",
        ])
        .arg(&tables)
        .output()
        .expect("egdb build");
    assert!(
        built.status.success(),
        "{}",
        String::from_utf8_lossy(&built.stderr)
    );
    // Two kings against a man: the tables know the win and its length.
    let fen = "W:WK14,K15:B28";
    let s = Server::start(
        &dir.path("with.sqlite"),
        &["--egdb-path", tables.to_str().unwrap()],
    );
    let (_, h) = s.get("/api/health");
    assert_eq!(h["egdb"], json!(["english"]));
    let info = last_info(&s, fen);
    assert_eq!(info["score"]["win_in"], 21, "{info}");
    assert_eq!(info["score"]["text"], "White wins in 21");
    drop(s);
    // Without them the same search sees no win.
    let s = Server::start(&dir.path("without.sqlite"), &[]);
    let info = last_info(&s, fen);
    assert_eq!(info["score"]["win_in"], Value::Null, "{info}");
    drop(s);
    // A directory without tables is refused, naming it.
    let empty = dir.path("empty");
    std::fs::create_dir_all(&empty).unwrap();
    let out = Command::new(KONDAVO)
        .args(["serve", "--port", "0", "--db"])
        .arg(dir.path("e.sqlite"))
        .arg("--egdb-path")
        .arg(&empty)
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("no endgame tables") && err.contains("empty"),
        "{err}"
    );
}
