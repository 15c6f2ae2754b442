//! `kondavo serve`'s WebSocket: the engine's moves in games, live
//! multi-PV analysis, stop, the search cap and its queue, bad and
//! oversized messages, and a closed socket stopping its search.

mod serve_support;

use std::time::{Duration, Instant};

use serde_json::{json, Value};
use serve_support::{Server, TempDir};

const LONG: Duration = Duration::from_secs(60);

#[test]
fn the_engine_moves_in_a_game_with_its_thinking_shown() {
    let dir = TempDir::new("ws-go");
    let s = Server::fresh(&dir, &["--book", "off"]);
    let (_, g) = s.post(
        "/api/games",
        &json!({"variant": "russian", "human": "black", "level": {"depth": 5}}),
    );
    let id = g["id"].as_i64().unwrap();
    assert_eq!(g["engine_to_move"], true);
    let mut ws = s.ws();
    ws.send(&json!({"type": "go", "game": id}));
    let (mv, before) = ws.until("move", LONG);
    assert!(before.iter().any(|m| m["type"] == "started"), "{before:?}");
    let infos: Vec<&Value> = before.iter().filter(|m| m["type"] == "info").collect();
    assert!(!infos.is_empty(), "{before:?}");
    for i in &infos {
        assert_eq!(i["game"], id);
        assert!(i["depth"].as_i64().unwrap() >= 1);
        assert!(i["score"]["text"].is_string());
        assert!(!i["pv"].as_array().unwrap().is_empty(), "{i}");
        assert_eq!(i["search"], mv["search"]);
    }
    // The move is the first move of the deepest line, stored in the game.
    let deepest = infos.last().unwrap();
    assert_eq!(mv["move"], deepest["pv"][0]);
    assert_eq!(mv["game_state"]["moves"], json!([mv["move"]]));
    assert_eq!(mv["game_state"]["engine_to_move"], false);
    assert!(mv["game_state"]["scores"][0]["text"].is_string());
    let (_, stored) = s.get(&format!("/api/games/{id}"));
    assert_eq!(stored["moves"], json!([mv["move"]]));
    // Not the engine's turn now: an error, the socket stays usable.
    ws.send(&json!({"type": "go", "game": id}));
    let (e, _) = ws.until("error", LONG);
    assert!(
        e["message"]
            .as_str()
            .unwrap()
            .contains("not the engine's turn"),
        "{e}"
    );
    ws.send(&json!({"type": "go", "game": 987654}));
    let (e, _) = ws.until("error", LONG);
    assert!(e["message"].as_str().unwrap().contains("987654"), "{e}");
    // The human answers, the engine replies, a takeback removes both.
    let reply = stored["position"]["legal"][0]["text"]
        .as_str()
        .unwrap()
        .to_string();
    let (st, g) = s.post(&format!("/api/games/{id}/move"), &json!({"move": reply}));
    assert_eq!(st, 200, "{g}");
    ws.send(&json!({"type": "go", "game": id}));
    let (mv2, _) = ws.until("move", LONG);
    assert_eq!(mv2["game_state"]["moves"].as_array().unwrap().len(), 3);
    let (_, g) = s.post(&format!("/api/games/{id}/takeback"), &json!({}));
    assert_eq!(g["moves"], json!([mv["move"]]));
    ws.send(&json!({"type": "ping"}));
    assert_eq!(ws.until("pong", LONG).0["type"], "pong");
}

#[test]
fn the_embedded_book_answers_at_once_in_play() {
    let dir = TempDir::new("ws-book");
    let s = Server::fresh(&dir, &[]);
    let (_, g) = s.post(
        "/api/games",
        &json!({"variant": "international", "human": "black", "level": {"movetime_ms": 20000}}),
    );
    let id = g["id"].as_i64().unwrap();
    let mut ws = s.ws();
    let t = Instant::now();
    ws.send(&json!({"type": "go", "game": id}));
    let (mv, _) = ws.until("move", LONG);
    assert_eq!(mv["book"], true, "{mv}");
    assert!(t.elapsed() < Duration::from_secs(10), "{:?}", t.elapsed());
    assert_eq!(mv["game_state"]["scores"][0], Value::Null);
}

#[test]
fn analysis_shows_several_lines_best_first_until_stopped() {
    let dir = TempDir::new("ws-analyse");
    let s = Server::fresh(&dir, &[]);
    let mut ws = s.ws();
    ws.send(&json!({"type": "analyse", "variant": "international", "multipv": 3}));
    let (started, _) = ws.until("started", LONG);
    assert_eq!(started["kind"], "analyse");
    // Infinite: infos go on; collect until one depth has all three lines.
    let deadline = Instant::now() + LONG;
    let mut by_depth: std::collections::BTreeMap<i64, Vec<Value>> = Default::default();
    let lines = loop {
        assert!(
            Instant::now() < deadline,
            "no depth with three lines: {by_depth:?}"
        );
        let m = ws.next(LONG).expect("info");
        assert_ne!(m["type"], "done", "an infinite analysis stopped by itself");
        if m["type"] != "info" {
            continue;
        }
        let d = m["depth"].as_i64().unwrap();
        let at = by_depth.entry(d).or_default();
        at.retain(|x| x["multipv"] != m["multipv"]);
        at.push(m);
        if d >= 3 && at.len() == 3 {
            let mut at = at.clone();
            at.sort_by_key(|x| x["multipv"].as_i64().unwrap());
            break at;
        }
    };
    let ranks: Vec<i64> = lines
        .iter()
        .map(|m| m["multipv"].as_i64().unwrap())
        .collect();
    assert_eq!(ranks, [1, 2, 3]);
    let firsts: Vec<&Value> = lines.iter().map(|m| &m["pv"][0]).collect();
    assert!(firsts[0] != firsts[1] && firsts[1] != firsts[2] && firsts[0] != firsts[2]);
    // Best first, from White's view (White to move).
    let cps: Vec<i64> = lines
        .iter()
        .map(|m| m["score"]["cp"].as_i64().unwrap())
        .collect();
    assert!(cps[0] >= cps[1] && cps[1] >= cps[2], "{cps:?}");
    let t = Instant::now();
    ws.send(&json!({"type": "stop"}));
    let (done, _) = ws.until("done", Duration::from_secs(10));
    assert!(t.elapsed() < Duration::from_secs(5));
    assert!(done["best"].is_string());
    // A fixed depth ends by itself; black to move gives White's view too.
    ws.send(&json!({"type": "analyse", "variant": "english", "fen": "B:W21,22,23,24,25,26,27,28,29,30,31,32:B1,2,3,4,5,6,7,8,9,10,11", "depth": 6}));
    let (done, before) = ws.until("done", LONG);
    let last = before
        .iter()
        .rev()
        .find(|m| m["type"] == "info")
        .expect("info");
    assert_eq!(last["depth"], 6);
    assert!(
        last["score"]["cp"].as_i64().unwrap() > 50,
        "White is a man up: {last}"
    );
    assert_eq!(done["best"], last["pv"][0]);
}

#[test]
fn bad_and_oversized_messages_get_an_error_and_the_socket_stays_open() {
    let dir = TempDir::new("ws-bad");
    let s = Server::fresh(&dir, &[]);
    let mut ws = s.ws();
    let cases: [(&str, &str); 9] = [
        ("not json", "not JSON"),
        (r#"{"kind":"go"}"#, "no \"type\""),
        (r#"{"type":"fly"}"#, "fly"),
        (r#"{"type":"go"}"#, "game"),
        (r#"{"type":"analyse","variant":"chess"}"#, "chess"),
        (
            r#"{"type":"analyse","variant":"english","fen":"W:W99"}"#,
            "FEN",
        ),
        (
            r#"{"type":"analyse","variant":"english","moves":["11-17"]}"#,
            "11-17",
        ),
        (
            r#"{"type":"analyse","variant":"english","multipv":50}"#,
            "multipv",
        ),
        (
            r#"{"type":"analyse","variant":"english","movetime_ms":999999}"#,
            "movetime_ms",
        ),
    ];
    for (text, word) in cases {
        ws.send_text(text);
        let (e, _) = ws.until("error", LONG);
        let msg = e["message"].as_str().unwrap();
        assert!(msg.contains(word), "{text}: '{msg}' lacks '{word}'");
    }
    let big = format!(r#"{{"type":"ping","pad":"{}"}}"#, "x".repeat(100 * 1024));
    ws.send_text(&big);
    let (e, _) = ws.until("error", LONG);
    assert!(e["message"].as_str().unwrap().contains("limit"), "{e}");
    ws.send(&json!({"type": "ping"}));
    ws.until("pong", LONG);
    // Past the hard cap the socket is closed; the server goes on.
    let huge = "x".repeat(2 * 1024 * 1024);
    let _ = ws.socket.send(tungstenite::Message::Text(huge.into()));
    let mut closed = false;
    for _ in 0..20 {
        match ws.socket.read() {
            Ok(tungstenite::Message::Close(_)) | Err(_) => {
                closed = true;
                break;
            }
            Ok(_) => {}
        }
    }
    assert!(closed);
    let mut ws2 = s.ws();
    ws2.send(&json!({"type": "ping"}));
    ws2.until("pong", LONG);
    assert_eq!(s.get("/api/variants").0, 200);
}

/// Searches running, as the server says.
fn running(s: &Server) -> u64 {
    s.get("/api/health").1["searches"]["running"]
        .as_u64()
        .unwrap()
}

#[test]
fn a_closed_socket_stops_its_search_and_the_cap_queues_or_refuses() {
    let dir = TempDir::new("ws-cap");
    let s = Server::fresh(&dir, &["--max-searches", "1", "--max-queue", "1"]);
    let mut a = s.ws();
    a.send(&json!({"type": "analyse", "variant": "international"}));
    a.until("info", LONG);
    assert_eq!(running(&s), 1);
    // A second search waits, a third is refused with a message.
    let mut b = s.ws();
    b.send(&json!({"type": "analyse", "variant": "english"}));
    let (q, _) = b.until("queued", LONG);
    assert_eq!(q["position"], 1);
    let mut c = s.ws();
    c.send(&json!({"type": "analyse", "variant": "english"}));
    let (e, _) = c.until("error", LONG);
    assert!(e["message"].as_str().unwrap().contains("busy"), "{e}");
    // The page still answers while the slot is taken.
    let t = Instant::now();
    assert_eq!(s.get("/api/variants").0, 200);
    assert_eq!(
        s.post("/api/position", &json!({"variant": "english"})).0,
        200
    );
    assert!(t.elapsed() < Duration::from_secs(2), "{:?}", t.elapsed());
    // Closing A's socket stops its search: B starts at once.
    let t = Instant::now();
    a.close();
    let (st, _) = b.until("started", Duration::from_secs(10));
    assert_eq!(st["kind"], "analyse");
    assert!(t.elapsed() < Duration::from_secs(5), "{:?}", t.elapsed());
    b.until("info", LONG);
    // Closing B too leaves no search running.
    b.close();
    let deadline = Instant::now() + Duration::from_secs(10);
    while running(&s) > 0 {
        assert!(Instant::now() < deadline, "a search outlived its socket");
        std::thread::sleep(Duration::from_millis(50));
    }
    // A queued search whose socket closes gives its place back.
    let mut d = s.ws();
    d.send(&json!({"type": "analyse", "variant": "international"}));
    d.until("info", LONG);
    let mut e1 = s.ws();
    e1.send(&json!({"type": "analyse", "variant": "english"}));
    e1.until("queued", LONG);
    e1.close();
    std::thread::sleep(Duration::from_millis(300));
    let mut f = s.ws();
    f.send(&json!({"type": "analyse", "variant": "english"}));
    let (q, _) = f.until("queued", LONG);
    assert_eq!(q["position"], 1, "{q}");
    d.close();
    f.until("started", Duration::from_secs(10));
}

#[test]
fn a_new_request_replaces_the_running_search_and_takeback_drops_the_engines_move() {
    let dir = TempDir::new("ws-replace");
    let s = Server::fresh(&dir, &["--book", "off"]);
    let mut ws = s.ws();
    ws.send(&json!({"type": "analyse", "variant": "international"}));
    let (first, _) = ws.until("info", LONG);
    let (_, g) = s.post(
        "/api/games",
        &json!({"variant": "english", "human": "white", "level": {"movetime_ms": 3000}}),
    );
    let id = g["id"].as_i64().unwrap();
    ws.send(&json!({"type": "go", "game": id}));
    let (started, _) = ws.until("started", LONG);
    assert_ne!(started["search"], first["search"]);
    assert_eq!(started["kind"], "go");
    // The human takes back while the engine thinks (nothing of theirs to
    // take back: refused) then resigns: no move comes.
    let (st, _) = s.post(&format!("/api/games/{id}/takeback"), &json!({}));
    assert_eq!(st, 409);
    let (st, g) = s.post(&format!("/api/games/{id}/resign"), &json!({}));
    assert_eq!(st, 200, "{g}");
    let deadline = Instant::now() + Duration::from_secs(5);
    while let Some(m) = ws.next(deadline.saturating_duration_since(Instant::now())) {
        assert_ne!(m["type"], "move", "{m}");
    }
    let (_, g) = s.get(&format!("/api/games/{id}"));
    assert_eq!(g["moves"], json!([]));
    assert_eq!(g["status"], "finished");
}
