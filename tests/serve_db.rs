//! `kondavo serve`'s database and process: games survive a restart and a
//! kill -9 in the middle of a game; a port already taken is a clear error.

mod serve_support;

use std::process::{Command, Stdio};
use std::time::Duration;

use serde_json::json;
use serve_support::{Server, TempDir, KONDAVO};

#[test]
fn games_survive_a_restart_and_a_kill_in_the_middle_of_a_game() {
    let dir = TempDir::new("db");
    let db = dir.path("club.sqlite");
    let s = Server::start(&db, &["--book", "off"]);
    let (_, g) = s.post(
        "/api/games",
        &json!({"variant": "international", "human": "white", "level": {"depth": 3}, "name": "Anna"}),
    );
    let id = g["id"].as_i64().unwrap();
    let (_, done) = s.post(
        "/api/games",
        &json!({"variant": "english", "fen": "W:W10:B7", "human": "white", "level": {"depth": 3}}),
    );
    let done_id = done["id"].as_i64().unwrap();
    s.post(
        &format!("/api/games/{done_id}/move"),
        &json!({"move": "10x3"}),
    );
    // A few moves each way, the engine's through the socket.
    let mut ws = s.ws();
    let mut expected = Vec::new();
    for _ in 0..3 {
        let (_, g) = s.get(&format!("/api/games/{id}"));
        let mv = g["position"]["legal"][0]["text"]
            .as_str()
            .unwrap()
            .to_string();
        let (st, _) = s.post(&format!("/api/games/{id}/move"), &json!({"move": mv}));
        assert_eq!(st, 200);
        ws.send(&json!({"type": "go", "game": id}));
        let (m, _) = ws.until("move", Duration::from_secs(60));
        expected = m["game_state"]["moves"].as_array().unwrap().clone();
    }
    assert_eq!(expected.len(), 6);
    // The human moves, then the server is killed while the engine thinks.
    let (_, g) = s.get(&format!("/api/games/{id}"));
    let mv = g["position"]["legal"][0]["text"].clone();
    s.post(&format!("/api/games/{id}/move"), &json!({"move": mv}));
    expected.push(mv);
    s.post(&format!("/api/games/{id}/takeback"), &json!({}));
    expected.pop();
    let (_, g) = s.get(&format!("/api/games/{id}"));
    let mv = g["position"]["legal"][1]["text"].clone();
    s.post(&format!("/api/games/{id}/move"), &json!({"move": mv}));
    expected.push(mv);
    ws.send(&json!({"type": "analyse", "variant": "international"}));
    ws.until("info", Duration::from_secs(60));
    s.kill();
    // Restarted on the same file: everything is there, the game goes on.
    let s = Server::start(&db, &["--book", "off"]);
    let (st, g) = s.get(&format!("/api/games/{id}"));
    assert_eq!(st, 200, "{g}");
    assert_eq!(g["moves"].as_array().unwrap(), &expected);
    assert_eq!(g["status"], "playing");
    assert_eq!(g["name"], "Anna");
    assert_eq!(g["engine_to_move"], true);
    let (_, d) = s.get(&format!("/api/games/{done_id}"));
    assert_eq!(d["status"], "finished");
    assert_eq!(d["result"], "1-0");
    let mut ws = s.ws();
    ws.send(&json!({"type": "go", "game": id}));
    let (m, _) = ws.until("move", Duration::from_secs(60));
    assert_eq!(m["game_state"]["moves"].as_array().unwrap().len(), 8);
    // A plain stop and start keeps them too.
    drop(ws);
    drop(s);
    let s = Server::start(&db, &[]);
    let (_, l) = s.get("/api/games");
    assert_eq!(l["total"], 2);
    let (_, g) = s.get(&format!("/api/games/{id}"));
    assert_eq!(g["moves"].as_array().unwrap().len(), 8);
}

#[test]
fn a_port_in_use_is_a_clear_error() {
    let dir = TempDir::new("port");
    let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = taken.local_addr().unwrap().port().to_string();
    let out = Command::new(KONDAVO)
        .args(["serve", "--port", &port, "--db"])
        .arg(dir.path("g.sqlite"))
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains(&port) && err.contains("already in use"),
        "{err}"
    );
    // A database that cannot be opened is named too.
    let out = Command::new(KONDAVO)
        .args(["serve", "--port", "0", "--db"])
        .arg(dir.path("no/such/dir/g.sqlite"))
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("no/such/dir/g.sqlite"), "{err}");
}
