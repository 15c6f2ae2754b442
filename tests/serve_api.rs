//! `kondavo serve`'s HTTP API (docs/web-api.md), endpoint by endpoint,
//! against the built binary on a free loopback port: static files,
//! variants, positions, games, PDN, analysis, leaderboard, and bad input
//! answered with a clear error while the server keeps serving.

mod serve_support;

use std::collections::{BTreeSet, HashSet};

use serde_json::{json, Value};
use serve_support::{engine_moves, Server, TempDir};

/// Every file under `web/`, relative path first.
fn web_files(dir: &std::path::Path, prefix: &str, out: &mut Vec<(String, std::path::PathBuf)>) {
    for e in std::fs::read_dir(dir).expect("web/") {
        let e = e.expect("entry");
        let name = e.file_name().to_string_lossy().into_owned();
        if name.starts_with('.') || name == "node_modules" {
            continue;
        }
        let p = e.path();
        if p.is_dir() {
            web_files(&p, &format!("{prefix}{name}/"), out);
        } else {
            out.push((format!("{prefix}{name}"), p));
        }
    }
}

#[test]
fn page_and_static_files_are_embedded_with_their_types() {
    let dir = TempDir::new("static");
    let s = Server::fresh(&dir, &[]);
    let index = s.req("GET", "/", None);
    assert_eq!(index.status, 200);
    assert!(index
        .header("content-type")
        .unwrap()
        .starts_with("text/html"));
    let on_disk = std::fs::read(concat!(env!("CARGO_MANIFEST_DIR"), "/web/index.html")).unwrap();
    assert!(index.body == on_disk, "/ is not web/index.html");
    let mut files = Vec::new();
    web_files(
        std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/web")),
        "",
        &mut files,
    );
    assert!(!files.is_empty());
    for (name, path) in &files {
        let r = s.req("GET", &format!("/static/{name}"), None);
        assert_eq!(r.status, 200, "{name}");
        assert!(
            r.body == std::fs::read(path).unwrap(),
            "{name}: not the file in web/"
        );
        let ct = r.header("content-type").unwrap_or("");
        let want = match name.rsplit('.').next().unwrap() {
            "js" => "text/javascript",
            "css" => "text/css",
            "json" => "application/json",
            "html" => "text/html",
            "png" => "image/png",
            "svg" => "image/svg+xml",
            _ => "",
        };
        assert!(ct.starts_with(want), "{name}: {ct}");
    }
    let r = s.req("GET", "/static/no-such-file.js", None);
    assert_eq!(r.status, 404);
    assert!(r.json()["error"]
        .as_str()
        .unwrap()
        .contains("no-such-file.js"));
    let r = s.req("GET", "/api/no-such-thing", None);
    assert_eq!(r.status, 404);
    assert!(r.json()["error"]
        .as_str()
        .unwrap()
        .contains("/api/no-such-thing"));
    let (st, h) = s.get("/api/health");
    assert_eq!(st, 200);
    assert_eq!(h["ok"], true);
    assert!(h["searches"]["max"].as_u64().unwrap() >= 1);
}

#[test]
fn variants_give_each_board_in_its_own_geometry_and_numbering() {
    let dir = TempDir::new("variants");
    let s = Server::fresh(&dir, &[]);
    let (st, v) = s.get("/api/variants");
    assert_eq!(st, 200);
    let list = v["variants"].as_array().unwrap();
    let names: Vec<&str> = list.iter().map(|x| x["name"].as_str().unwrap()).collect();
    assert_eq!(
        names,
        [
            "international",
            "english",
            "italian",
            "brazilian",
            "spanish",
            "russian",
            "turkish"
        ]
    );
    let at = |variant: &str, square: &str| -> (u64, u64) {
        let x = list.iter().find(|x| x["name"] == variant).unwrap();
        let sq = x["squares"]
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["name"] == square)
            .unwrap_or_else(|| panic!("{variant} has no square {square}"));
        (sq["row"].as_u64().unwrap(), sq["col"].as_u64().unwrap())
    };
    for x in list {
        let name = x["name"].as_str().unwrap();
        let (rows, cols) = (x["rows"].as_u64().unwrap(), x["cols"].as_u64().unwrap());
        let squares = x["squares"].as_array().unwrap();
        let want = match name {
            "international" => 50,
            "turkish" => 64,
            _ => 32,
        };
        assert_eq!(squares.len(), want, "{name}");
        let cells: HashSet<(u64, u64)> = squares
            .iter()
            .map(|s| (s["row"].as_u64().unwrap(), s["col"].as_u64().unwrap()))
            .collect();
        assert_eq!(cells.len(), want, "{name}: two squares on one cell");
        assert!(cells.iter().all(|&(r, c)| r < rows && c < cols), "{name}");
        let labels: HashSet<&str> = squares
            .iter()
            .map(|s| s["name"].as_str().unwrap())
            .collect();
        assert_eq!(labels.len(), want, "{name}: names repeat");
        // The start position from the page's FEN has the variant's men.
        let (st, p) = s.post(
            "/api/position",
            &json!({"variant": name, "fen": x["start_fen"]}),
        );
        assert_eq!(st, 200, "{name}: {p}");
        let men = if name == "international" {
            40
        } else if name == "turkish" {
            32
        } else {
            24
        };
        assert_eq!(p["pieces"].as_array().unwrap().len(), men, "{name}");
        assert_eq!(x["diagonal"], name != "turkish", "{name}");
    }
    // Each variant's numbering where White sees it.
    assert_eq!(at("international", "1"), (0, 1));
    assert_eq!(at("international", "50"), (9, 8));
    assert_eq!(at("english", "1"), (0, 1));
    assert_eq!(at("english", "32"), (7, 6));
    // Italian 1 is Black's corner a8, turned board: lower right dark.
    assert_eq!(at("italian", "1"), (0, 0));
    assert_eq!(at("italian", "32"), (7, 7));
    // Spanish 1 is White's lower-right corner h1.
    assert_eq!(at("spanish", "1"), (7, 7));
    assert_eq!(at("russian", "a1"), (7, 0));
    assert_eq!(at("brazilian", "h8"), (0, 7));
    assert_eq!(at("turkish", "a1"), (7, 0));
    assert_eq!(at("turkish", "h8"), (0, 7));
}

/// The move texts of a position answer.
fn texts(p: &Value) -> BTreeSet<String> {
    p["legal"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["text"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn positions_list_the_engines_legal_moves_with_every_route() {
    let dir = TempDir::new("position");
    let s = Server::fresh(&dir, &[]);
    let cases = [
        ("international", None),
        ("english", None),
        ("italian", None),
        ("brazilian", None),
        ("spanish", None),
        ("russian", None),
        ("turkish", None),
        ("international", Some("W:W22:B7,8,17,18")),
        ("english", Some("W:W31:B18,19,26,27")),
        ("russian", Some("W:Wc3,a1:Bd4,f6")),
        ("international", Some("W:WK46:B23")),
        ("turkish", Some("W:Wc6:Bc7,d8,f8")),
    ];
    for (variant, fen) in cases {
        let (st, p) = s.post("/api/position", &json!({"variant": variant, "fen": fen}));
        assert_eq!(st, 200, "{variant} {fen:?}: {p}");
        let want: BTreeSet<String> = engine_moves(variant, fen)
            .into_iter()
            .map(|m| m.pdn)
            .collect();
        assert_eq!(texts(&p), want, "{variant} {fen:?}");
        // Every text plays exactly its entry's move.
        for e in p["legal"].as_array().unwrap() {
            let (st, after) = s.post(
                "/api/position",
                &json!({"variant": variant, "fen": fen, "moves": [e["text"]]}),
            );
            assert_eq!(st, 200, "{variant} {e}: {after}");
            let path = e["path"].as_array().unwrap();
            assert_eq!(path.first(), Some(&e["from"]));
            assert_eq!(path.last(), Some(&e["to"]));
            let taken: Vec<&Value> = e["captured"].as_array().unwrap().iter().collect();
            let occupied: HashSet<&str> = after["pieces"]
                .as_array()
                .unwrap()
                .iter()
                .map(|x| x["square"].as_str().unwrap())
                .collect();
            for c in taken {
                assert!(
                    !occupied.contains(c.as_str().unwrap()),
                    "{variant} {e}: {c} still there"
                );
            }
            assert!(occupied.contains(e["to"].as_str().unwrap()));
        }
    }
    // Two routes of one move: the ring capture, both ways round.
    let (_, p) = s.post(
        "/api/position",
        &json!({"variant": "international", "fen": "W:W22:B7,8,17,18"}),
    );
    let legal = p["legal"].as_array().unwrap();
    assert_eq!(legal.len(), 2);
    assert_eq!(legal[0]["text"], legal[1]["text"]);
    assert_ne!(legal[0]["path"], legal[1]["path"]);
    assert_eq!(legal[0]["path"].as_array().unwrap().len(), 5);
    // Two moves with the same start and end: their texts give the route.
    let (_, p) = s.post(
        "/api/position",
        &json!({"variant": "english", "fen": "W:W31:B18,19,26,27"}),
    );
    assert_eq!(
        texts(&p),
        BTreeSet::from(["31x22x15".to_string(), "31x24x15".to_string()])
    );
    // Promotion: a man crowned says so, a king's capture does not.
    let (_, p) = s.post(
        "/api/position",
        &json!({"variant": "english", "fen": "W:W10:B7,8"}),
    );
    let e = &p["legal"][0];
    assert_eq!(
        (e["text"].as_str(), e["promotes"].as_bool()),
        (Some("10x3"), Some(true))
    );
    let (_, p) = s.post(
        "/api/position",
        &json!({"variant": "international", "fen": "W:WK46:B23"}),
    );
    assert!(p["legal"]
        .as_array()
        .unwrap()
        .iter()
        .all(|e| e["promotes"] == false));
    // Moves played: the FEN, the side to move and the PDN of the moves.
    let (st, p) = s.post(
        "/api/position",
        &json!({"variant": "international", "moves": ["32-28", "18-24"]}),
    );
    assert_eq!(st, 400, "{p}");
    let (st, p) = s.post(
        "/api/position",
        &json!({"variant": "international", "moves": ["32-28", "19-23", "28x19"]}),
    );
    assert_eq!(st, 200);
    assert_eq!(p["to_move"], "black");
    assert_eq!(p["ply"], 3);
    assert_eq!(p["moves_pdn"], json!(["32-28", "19-23", "28x19"]));
    assert_eq!(p["outcome"], Value::Null);
}

#[test]
fn the_end_of_a_game_and_its_reason() {
    let dir = TempDir::new("outcome");
    let s = Server::fresh(&dir, &[]);
    // The last black piece taken.
    let (_, p) = s.post(
        "/api/position",
        &json!({"variant": "english", "fen": "W:W10:B7", "moves": ["10x3"]}),
    );
    assert_eq!(p["outcome"]["winner"], "white");
    assert_eq!(p["outcome"]["reason"], "no pieces");
    assert_eq!(p["outcome"]["result"], "1-0");
    assert!(p["legal"].as_array().unwrap().is_empty());
    // Blocked: no moves.
    let (_, p) = s.post(
        "/api/position",
        &json!({"variant": "english", "fen": "B:W5,6,10:B1"}),
    );
    assert_eq!(p["outcome"]["reason"], "no moves");
    assert_eq!(p["outcome"]["winner"], "white");
    // Kings shuffling: threefold repetition.
    let shuffle = ["29-25", "1-5", "25-29", "5-1"];
    let mut moves: Vec<&str> = Vec::new();
    for _ in 0..2 {
        moves.extend(shuffle);
    }
    let (_, p) = s.post(
        "/api/position",
        &json!({"variant": "english", "fen": "W:WK29,K30:BK1,K2", "moves": moves}),
    );
    assert_eq!(
        p["outcome"]["reason"], "threefold repetition",
        "{}",
        p["outcome"]
    );
    assert_eq!(p["outcome"]["result"], "1/2-1/2");
    assert_eq!(p["outcome"]["winner"], Value::Null);
    // A move after the end is refused, naming why.
    moves.push("29-25");
    let (st, p) = s.post(
        "/api/position",
        &json!({"variant": "english", "fen": "W:WK29,K30:BK1,K2", "moves": moves}),
    );
    assert_eq!(st, 400);
    assert!(p["error"].as_str().unwrap().contains("over"), "{p}");
}

#[test]
fn bad_input_is_a_clear_error_and_the_server_keeps_serving() {
    let dir = TempDir::new("bad");
    let s = Server::fresh(&dir, &[]);
    let bad = |body: &str, words: &[&str]| {
        let r = s.req("POST", "/api/position", Some(body));
        assert_eq!(r.status, 400, "{body}: {}", r.text());
        let e = r.json()["error"].as_str().unwrap().to_string();
        for w in words {
            assert!(e.contains(w), "{body}: '{e}' lacks '{w}'");
        }
    };
    bad(r#"{"variant":"klingon"}"#, &["klingon"]);
    bad(r#"{"variant":"english","fen":"W:W99:B1"}"#, &["FEN", "99"]);
    bad(r#"{"variant":"english","fen":"Q:W1"}"#, &["FEN"]);
    bad(
        r#"{"variant":"english","moves":["11-15","11-15"]}"#,
        &["move 2", "11-15"],
    );
    bad(
        r#"{"variant":"english","moves":["banana"]}"#,
        &["move 1", "banana"],
    );
    bad(r#"{"variant":"turkish","moves":["12-13"]}"#, &["move 1"]);
    bad(r#"{"variant":"english","moves":"11-15"}"#, &["JSON"]);
    bad(r#"{"variant":"english""#, &["JSON"]);
    bad(r#"{"variant":"english","colour":"red"}"#, &["colour"]);
    bad("", &["JSON"]);
    // Over the body limit: 413 with a JSON error.
    let big = format!(
        r#"{{"variant":"english","fen":"{}"}}"#,
        "W".repeat(300 * 1024)
    );
    let r = s.req("POST", "/api/position", Some(&big));
    assert_eq!(r.status, 413, "{}", r.text());
    assert!(r.json()["error"].as_str().unwrap().contains("too large"));
    // Too many moves.
    let many: Vec<&str> = std::iter::repeat_n("46-41", 2001).collect();
    let (st, p) = s.post(
        "/api/position",
        &json!({"variant": "international", "moves": many}),
    );
    assert_eq!(st, 400);
    assert!(p["error"].as_str().unwrap().contains("2000"), "{p}");
    // A wrong method is named.
    let r = s.req("GET", "/api/position", None);
    assert_eq!(r.status, 405);
    assert!(r.json()["error"].as_str().unwrap().contains("GET"));
    let r = s.req("DELETE", "/api/games", None);
    assert_eq!(r.status, 405);
    assert!(r.json()["error"].as_str().unwrap().contains("DELETE"));
    // Still serving.
    let (st, p) = s.post("/api/position", &json!({"variant": "english"}));
    assert_eq!(st, 200);
    assert_eq!(texts(&p).len(), 7);
    assert_eq!(s.req("GET", "/", None).status, 200);
}

/// Creates a game; returns it.
fn new_game(s: &Server, body: Value) -> Value {
    let (st, g) = s.post("/api/games", &body);
    assert_eq!(st, 201, "{body}: {g}");
    g
}

#[test]
fn games_are_played_taken_back_resigned_named_listed_and_exported() {
    let dir = TempDir::new("games");
    let s = Server::fresh(&dir, &[]);
    let g = new_game(
        &s,
        json!({"variant": "international", "human": "white", "level": {"depth": 2}}),
    );
    let id = g["id"].as_i64().unwrap();
    assert_eq!(g["status"], "playing");
    assert_eq!(g["engine_to_move"], false);
    assert_eq!(g["engine_name"], "kondavo depth 2");
    assert_eq!(g["position"]["legal"].as_array().unwrap().len(), 9);
    // An illegal move is named; the game is unchanged.
    let (st, e) = s.post(&format!("/api/games/{id}/move"), &json!({"move": "32-26"}));
    assert_eq!(st, 400);
    assert!(e["error"].as_str().unwrap().contains("32-26"), "{e}");
    let (st, g) = s.post(&format!("/api/games/{id}/move"), &json!({"move": "32-28"}));
    assert_eq!(st, 200, "{g}");
    assert_eq!(g["moves"], json!(["32-28"]));
    assert_eq!(g["engine_to_move"], true);
    // Not the human's turn now.
    let (st, e) = s.post(&format!("/api/games/{id}/move"), &json!({"move": "19-23"}));
    assert_eq!(st, 409, "{e}");
    // Take back: the human to move again from the start.
    let (st, g) = s.post(&format!("/api/games/{id}/takeback"), &json!({}));
    assert_eq!(st, 200, "{g}");
    assert_eq!(g["moves"], json!([]));
    assert_eq!(g["engine_to_move"], false);
    let (st, _) = s.post(&format!("/api/games/{id}/takeback"), &json!({}));
    assert_eq!(st, 409);
    // Resign: the engine wins, the game is over.
    let (st, g) = s.post(&format!("/api/games/{id}/resign"), &json!({}));
    assert_eq!(st, 200);
    assert_eq!(g["status"], "finished");
    assert_eq!(g["result"], "0-2");
    assert_eq!(g["reason"], "resignation");
    let (st, _) = s.post(&format!("/api/games/{id}/move"), &json!({"move": "32-28"}));
    assert_eq!(st, 409);
    let (st, _) = s.post(&format!("/api/games/{id}/resign"), &json!({}));
    assert_eq!(st, 409);
    // A name afterwards, for the leaderboard; a bad name is refused.
    let (st, _) = s.post(&format!("/api/games/{id}/name"), &json!({"name": "  "}));
    assert_eq!(st, 400);
    let (st, _) = s.post(
        &format!("/api/games/{id}/name"),
        &json!({"name": "x".repeat(41)}),
    );
    assert_eq!(st, 400);
    let (st, g) = s.post(&format!("/api/games/{id}/name"), &json!({"name": "Anna"}));
    assert_eq!(st, 200);
    assert_eq!(g["name"], "Anna");
    // A won game from a set-up position: the last piece taken.
    let g2 = new_game(
        &s,
        json!({"variant": "english", "fen": "W:W10:B7", "human": "white",
               "level": {"movetime_ms": 100}, "name": "Anna"}),
    );
    let id2 = g2["id"].as_i64().unwrap();
    let (_, g2) = s.post(&format!("/api/games/{id2}/move"), &json!({"move": "10x3"}));
    assert_eq!(g2["status"], "finished");
    assert_eq!(g2["result"], "1-0");
    assert_eq!(g2["reason"], "no pieces");
    // Listing per variant and state.
    let (_, l) = s.get("/api/games?variant=international&finished=true");
    assert_eq!(l["total"], 1);
    assert_eq!(l["games"][0]["id"], id);
    assert_eq!(l["games"][0]["white"], "Anna");
    assert_eq!(l["games"][0]["black"], "kondavo depth 2");
    let (_, l) = s.get("/api/games");
    assert_eq!(l["total"], 2);
    assert_eq!(l["games"][0]["id"], id2, "newest first");
    let (st, _) = s.get("/api/games?finished=maybe");
    assert_eq!(st, 400);
    let (st, _) = s.get("/api/games?variant=chess");
    assert_eq!(st, 400);
    let (st, _) = s.get("/api/games?limit=100000");
    assert_eq!(st, 400);
    // Unknown games.
    assert_eq!(s.get("/api/games/99999").0, 404);
    assert_eq!(s.get("/api/games/abc").0, 404);
    // Export: PDN that reads back to the same moves and result.
    let r = s.req("GET", &format!("/api/games/{id2}/pdn"), None);
    assert_eq!(r.status, 200);
    assert!(r.header("content-disposition").unwrap().contains(".pdn"));
    let pdn = r.text();
    assert!(pdn.contains("[White \"Anna\"]"), "{pdn}");
    assert!(pdn.contains("[Result \"1-0\"]"), "{pdn}");
    let (st, parsed) = s.post("/api/pdn/parse", &json!({"pdn": pdn}));
    assert_eq!(st, 200);
    assert_eq!(parsed["games"][0]["variant"], "english");
    assert_eq!(parsed["games"][0]["moves"], json!(["10x3"]));
    assert_eq!(parsed["games"][0]["start_fen"], g2["start_fen"]);
    // Bad game requests.
    let bad = [
        json!({"variant": "english", "human": "green", "level": {"depth": 2}}),
        json!({"variant": "english", "human": "white", "level": {"depth": 0}}),
        json!({"variant": "english", "human": "white", "level": {"movetime_ms": 5}}),
        json!({"variant": "english", "human": "white", "level": {"depth": 2, "nodes": 5000}}),
        json!({"variant": "english", "human": "white", "level": {"depth": 2}, "fen": "W:W10"}),
        json!({"variant": "english", "human": "white"}),
    ];
    for b in bad {
        let (st, e) = s.post("/api/games", &b);
        assert_eq!(st, 400, "{b}: {e}");
        assert!(e["error"].as_str().is_some_and(|t| !t.is_empty()));
    }
}

#[test]
fn draw_offers_are_judged_by_the_engines_score() {
    let dir = TempDir::new("draw");
    let s = Server::fresh(&dir, &[]);
    // The engine (Black) is five men up: it declines.
    let g = new_game(
        &s,
        json!({"variant": "english", "fen": "W:W32:B1,2,3,4,5,6", "human": "white",
               "level": {"depth": 4}}),
    );
    let id = g["id"].as_i64().unwrap();
    let (st, d) = s.post(&format!("/api/games/{id}/draw"), &json!({}));
    assert_eq!(st, 200, "{d}");
    assert_eq!(d["accepted"], false);
    assert_eq!(d["game"]["status"], "playing");
    // The engine (Black) is five men down: it accepts.
    let g = new_game(
        &s,
        json!({"variant": "english", "fen": "W:W32,31,30,29,28,27:B1", "human": "white",
               "level": {"depth": 4}}),
    );
    let id = g["id"].as_i64().unwrap();
    let (_, d) = s.post(&format!("/api/games/{id}/draw"), &json!({}));
    assert_eq!(d["accepted"], true, "{d}");
    assert_eq!(d["game"]["status"], "finished");
    assert_eq!(d["game"]["reason"], "draw agreed");
    assert_eq!(d["game"]["result"], "1/2-1/2");
    let (st, _) = s.post(&format!("/api/games/{id}/draw"), &json!({}));
    assert_eq!(st, 409);
}

#[test]
fn the_leaderboard_rates_named_players_and_engine_levels_as_match_does() {
    let dir = TempDir::new("leaderboard");
    let s = Server::fresh(&dir, &[]);
    let finish_by_capture = |name: Option<&str>, level: Value| {
        let g = new_game(
            &s,
            json!({"variant": "english", "fen": "W:W10:B7", "human": "white",
                   "level": level, "name": name}),
        );
        let id = g["id"].as_i64().unwrap();
        let (_, g) = s.post(&format!("/api/games/{id}/move"), &json!({"move": "10x3"}));
        assert_eq!(g["result"], "1-0");
    };
    let resign = |name: &str, level: Value| {
        let g = new_game(
            &s,
            json!({"variant": "english", "human": "black", "level": level, "name": name}),
        );
        let id = g["id"].as_i64().unwrap();
        let (_, g) = s.post(&format!("/api/games/{id}/resign"), &json!({}));
        assert_eq!(g["result"], "1-0", "the engine has White");
    };
    finish_by_capture(Some("Anna"), json!({"depth": 3}));
    finish_by_capture(Some("Anna"), json!({"depth": 3}));
    resign("Anna", json!({"depth": 3}));
    resign("Bob", json!({"depth": 3}));
    finish_by_capture(Some("Bob"), json!({"movetime_ms": 1000}));
    // Without a name, a game is kept but not rated.
    finish_by_capture(None, json!({"depth": 3}));
    let (st, l) = s.get("/api/leaderboard/english");
    assert_eq!(st, 200, "{l}");
    assert_eq!(l["games"], 5);
    let players = l["players"].as_array().unwrap();
    let find = |n: &str| players.iter().find(|p| p["name"] == n).unwrap().clone();
    let anna = find("Anna");
    assert_eq!(
        (
            anna["wins"].as_u64(),
            anna["draws"].as_u64(),
            anna["losses"].as_u64()
        ),
        (Some(2), Some(0), Some(1))
    );
    assert_eq!(anna["engine"], false);
    let d3 = find("kondavo depth 3");
    assert_eq!(d3["engine"], true);
    assert_eq!(d3["games"], 4);
    assert_eq!(
        (d3["wins"].as_u64(), d3["losses"].as_u64()),
        (Some(2), Some(2))
    );
    // The same ratings `kondavo match` computes from these games (players
    // in order of first appearance: Anna, depth 3, Bob, 1s).
    let results = [
        (0, 1, 1.0),
        (0, 1, 1.0),
        (1, 0, 1.0),
        (1, 2, 1.0),
        (2, 3, 1.0),
    ];
    let want = kondavo::tools::stats::rating_list(4, &results);
    for (i, n) in ["Anna", "kondavo depth 3", "Bob", "kondavo 1s"]
        .iter()
        .enumerate()
    {
        let got = find(n)["elo"].as_f64().unwrap();
        assert!(
            (got - want[i].elo).abs() < 0.06,
            "{n}: {got} vs {}",
            want[i].elo
        );
    }
    let elos: Vec<f64> = players.iter().map(|p| p["elo"].as_f64().unwrap()).collect();
    assert!(
        elos.windows(2).all(|w| w[0] >= w[1]),
        "best first: {elos:?}"
    );
    let (st, _) = s.get("/api/leaderboard/chess");
    assert_eq!(st, 400);
    let (_, empty) = s.get("/api/leaderboard/turkish");
    assert_eq!(empty["players"], json!([]));
}

#[test]
fn pdn_is_parsed_with_errors_named_and_exported_with_scores() {
    let dir = TempDir::new("pdn");
    let s = Server::fresh(&dir, &[]);
    let text =
        "[Event \"a\"]\n[GameType \"20\"]\n\n1. 32-28 19-23 2. 28x19 14x23 {a comment} *\n\n\
                [Event \"b\"]\n[GameType \"21\"]\n\n1. 11-15 23-19 2. 8-11 22-17 1-0\n\n\
                [Event \"c\"]\n\n1. 32-28 19-24 2. 28x17 *\n";
    let (st, p) = s.post("/api/pdn/parse", &json!({"pdn": text}));
    assert_eq!(st, 200, "{p}");
    let games = p["games"].as_array().unwrap();
    assert_eq!(games.len(), 3);
    assert_eq!(games[0]["variant"], "international");
    assert_eq!(
        games[0]["moves"],
        json!(["32-28", "19-23", "28x19", "14x23"])
    );
    assert_eq!(games[0]["comments"][3], "a comment");
    assert_eq!(games[1]["variant"], "english");
    assert_eq!(
        games[1]["moves"],
        json!(["11-15", "23-19", "8-11", "22-17"])
    );
    assert_eq!(games[1]["result"], "1-0");
    assert_eq!(games[1]["tags"]["Event"], "b");
    // The third has an illegal move: named, with the moves before it.
    let e = games[2]["error"].as_str().unwrap();
    assert!(e.contains("28x17"), "{e}");
    assert_eq!(games[2]["moves"], json!(["32-28", "19-24"]));
    // Errors.
    let (st, e) = s.post("/api/pdn/parse", &json!({"pdn": "   "}));
    assert_eq!(st, 400, "{e}");
    let (st, _) = s.post("/api/pdn/parse", &json!({"pdn": text, "variant": "chess"}));
    assert_eq!(st, 400);
    let big = json!({"pdn": "1. 32-28 ".repeat(150_000)});
    let (st, e) = s.post("/api/pdn/parse", &big);
    assert_eq!(st, 413, "{e}");
    // A large PDN under the PDN limit is read.
    let many = "[GameType \"20\"]\n\n1. 32-28 19-23 *\n\n".repeat(12_000);
    assert!(many.len() > 300 * 1024 && many.len() < 1000 * 1024);
    let (st, p) = s.post("/api/pdn/parse", &json!({"pdn": many}));
    assert_eq!(st, 200);
    assert_eq!(p["games"].as_array().unwrap().len(), 12_000);
    // Export with scores as comments.
    let r = s.req(
        "POST",
        "/api/pdn/export",
        Some(
            &json!({"variant": "international", "moves": ["32-28", "19-23"],
                    "scores": [{"cp": 12, "win_in": null, "text": "+0.12"}, null],
                    "tags": {"White": "Anna", "Black": "Bob"}, "result": "*"})
            .to_string(),
        ),
    );
    assert_eq!(r.status, 200);
    let out = r.text();
    assert!(out.contains("[White \"Anna\"]"), "{out}");
    assert!(out.contains("1. 32-28 {+0.12} 19-23 *"), "{out}");
    let r = s.req(
        "POST",
        "/api/pdn/export",
        Some(&json!({"variant": "international", "moves": ["32-26"]}).to_string()),
    );
    assert_eq!(r.status, 400);
    assert!(r.json()["error"].as_str().unwrap().contains("32-26"));
}

#[test]
fn a_whole_game_is_analysed_for_the_graph_and_its_scores_exported() {
    let dir = TempDir::new("analyse");
    let s = Server::fresh(&dir, &[]);
    let moves = ["11-15", "23-19", "8-11", "22-17"];
    let (st, a) = s.post(
        "/api/analyse-game",
        &json!({"variant": "english", "moves": moves, "depth": 3}),
    );
    assert_eq!(st, 200, "{a}");
    let plies = a["plies"].as_array().unwrap();
    assert_eq!(plies.len(), moves.len() + 1);
    for (k, p) in plies.iter().enumerate() {
        assert_eq!(p["ply"], k);
        assert_eq!(p["played"].as_str(), moves.get(k).copied());
        assert!(p["score"]["cp"].is_i64(), "{p}");
        assert!(p["best"].is_string(), "{p}");
        assert_eq!(p["depth"], 3);
    }
    // A PDN game; a decisive end has its outcome and no score.
    let (st, a) = s.post(
        "/api/analyse-game",
        &json!({"pdn": "[GameType \"21\"]\n[FEN \"W:W10:B7\"]\n\n1. 10x3 1-0\n", "depth": 2}),
    );
    assert_eq!(st, 200, "{a}");
    assert_eq!(a["variant"], "english");
    let plies = a["plies"].as_array().unwrap();
    assert_eq!(plies.len(), 2);
    assert_eq!(plies[0]["best"], "10x3");
    assert!(
        plies[0]["score"]["win_in"].as_i64().unwrap() > 0,
        "White wins"
    );
    assert_eq!(plies[1]["score"], Value::Null);
    assert_eq!(plies[1]["outcome"]["reason"], "no pieces");
    // A stored game: the scores are kept and exported.
    let g = new_game(
        &s,
        json!({"variant": "international", "human": "white", "level": {"depth": 2}}),
    );
    let id = g["id"].as_i64().unwrap();
    s.post(&format!("/api/games/{id}/move"), &json!({"move": "32-28"}));
    let (st, _) = s.post("/api/analyse-game", &json!({"game": id, "depth": 2}));
    assert_eq!(st, 200);
    let (_, g) = s.get(&format!("/api/games/{id}"));
    assert!(g["scores"][0]["text"].is_string(), "{g}");
    let pdn = s.req("GET", &format!("/api/games/{id}/pdn"), None).text();
    let text = g["scores"][0]["text"].as_str().unwrap();
    assert!(pdn.contains(&format!("32-28 {{{text}}}")), "{pdn}");
    // Bad requests.
    for b in [
        json!({"variant": "english", "moves": ["11-17"]}),
        json!({"variant": "international", "moves": ["32-28", "19-23", "28x19", "14x23", "37-32"],
               "movetime_ms": 60000}),
        json!({"variant": "english", "moves": moves, "depth": 99}),
        json!({"variant": "english", "moves": moves, "pdn": "1. 11-15 *"}),
        json!({"pdn": "[GameType \"21\"]\n\n1. 11-17 *"}),
        json!({"game": 12345}),
    ] {
        let (st, e) = s.post("/api/analyse-game", &b);
        assert!(st == 400 || st == 404, "{b}: {st} {e}");
        assert!(e["error"].is_string());
    }
}
