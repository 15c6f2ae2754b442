//! A bounded load test on loopback: 50 clients at once, each with a socket
//! asking for an endless analysis and then fetching the page and positions.
//! The searches are capped and queued or refused with a message; the page
//! and `/api/position` still answer, each within a few seconds.

mod serve_support;

use std::sync::{Arc, Barrier};
use std::time::{Duration, Instant};

use serde_json::json;
use serve_support::{try_request, Server, TempDir};

const CLIENTS: usize = 50;
/// Requests of each client after its socket's request.
const ROUNDS: usize = 4;
/// Slowest answer allowed to one request while the server is loaded.
const SLOWEST: Duration = Duration::from_secs(5);

#[test]
fn fifty_clients_and_the_page_still_answers() {
    let dir = TempDir::new("load");
    let s = Server::fresh(&dir, &["--max-searches", "2", "--max-queue", "20"]);
    let addr = s.addr;
    let start = Instant::now();
    let barrier = Arc::new(Barrier::new(CLIENTS));
    let clients: Vec<_> = (0..CLIENTS)
        .map(|i| {
            let barrier = barrier.clone();
            std::thread::spawn(move || {
                let mut ws = serve_support::Ws::connect(addr);
                barrier.wait();
                let variant = ["international", "english", "turkish"][i % 3];
                ws.send(&json!({"type": "analyse", "variant": variant}));
                // The socket's first word: started, queued or refused.
                let first = ws.next(Duration::from_secs(30)).expect("an answer");
                let mut slowest = Duration::ZERO;
                for r in 0..ROUNDS {
                    let t = Instant::now();
                    let (path, method, body) = if r % 2 == 0 {
                        ("/", "GET", None)
                    } else {
                        (
                            "/api/position",
                            "POST",
                            Some(json!({"variant": variant, "moves": []}).to_string()),
                        )
                    };
                    let reply = try_request(
                        addr,
                        method,
                        path,
                        body.as_deref().map(str::as_bytes),
                        Duration::from_secs(30),
                    )
                    .unwrap_or_else(|e| panic!("client {i}: {method} {path}: {e}"));
                    assert_eq!(reply.status, 200, "client {i}: {path}");
                    slowest = slowest.max(t.elapsed());
                }
                (first, slowest, ws)
            })
        })
        .collect();
    let results: Vec<_> = clients
        .into_iter()
        .map(|c| c.join().expect("client"))
        .collect();
    let kinds = |k: &str| results.iter().filter(|(f, _, _)| f["type"] == k).count();
    let (started, queued, refused) = (kinds("started"), kinds("queued"), kinds("error"));
    assert_eq!(
        started + queued + refused,
        CLIENTS,
        "{:?}",
        results.iter().map(|r| &r.0).collect::<Vec<_>>()
    );
    assert!(started <= 2, "the cap holds: {started} started");
    assert!(queued <= 20, "the queue holds: {queued} queued");
    assert!(refused >= CLIENTS - 22, "{refused} refused");
    for (f, _, _) in results.iter().filter(|(f, _, _)| f["type"] == "error") {
        assert!(f["message"].as_str().unwrap().contains("busy"), "{f}");
    }
    let slowest = results.iter().map(|r| r.1).max().unwrap();
    assert!(slowest < SLOWEST, "slowest answer {slowest:?}");
    let (_, h) = s.get("/api/health");
    assert_eq!(h["searches"]["running"], 2);
    // All sockets closed: every search stops, nothing waits.
    for (_, _, ws) in results {
        ws.close();
    }
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let (_, h) = s.get("/api/health");
        if h["searches"]["running"] == 0 && h["searches"]["queued"] == 0 {
            break;
        }
        assert!(Instant::now() < deadline, "searches left: {h}");
        std::thread::sleep(Duration::from_millis(100));
    }
    assert!(start.elapsed() < Duration::from_secs(120));
}
