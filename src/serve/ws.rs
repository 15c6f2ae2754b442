//! The WebSocket of a tab: the engine's moves in games and live
//! analysis, one search at a time per socket; closing the socket stops
//! its search.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use axum::extract::ws::{Message, WebSocket, WebSocketUpgrade};
use axum::extract::State;
use axum::response::Response;
use serde_json::{json, Value};
use tokio::sync::mpsc;
use tokio::task::JoinHandle;

use super::board;
use super::engine::{self, SearchSpec, Ticket, MAX_MULTIPV};
use super::games::engine_move;
use super::AppState;
use crate::search::Limits;

/// Largest message a client may send; a larger one gets an `error`.
pub const MESSAGE_LIMIT: usize = 64 * 1024;
/// Largest message the socket reads at all; past it the socket closes.
pub const HARD_LIMIT: usize = 1024 * 1024;

/// `GET /api/ws`.
pub async fn upgrade(ws: WebSocketUpgrade, State(state): State<Arc<AppState>>) -> Response {
    ws.max_message_size(HARD_LIMIT)
        .max_frame_size(HARD_LIMIT)
        .on_upgrade(move |socket| serve_socket(socket, state))
}

/// The search a socket runs.
struct Running {
    ticket: Arc<Ticket>,
    task: JoinHandle<()>,
}

impl Running {
    /// Stops it and forgets its result.
    fn cancel(self) {
        self.ticket.drop_result();
        self.task.abort();
    }
}

/// Numbers the searches of all sockets, so that a page can tell the
/// messages of a search it replaced from those of the new one.
static SEARCHES: AtomicU64 = AtomicU64::new(1);

async fn serve_socket(mut socket: WebSocket, state: Arc<AppState>) {
    let (tx, mut rx) = mpsc::unbounded_channel::<Value>();
    let mut running: Option<Running> = None;
    loop {
        tokio::select! {
            msg = socket.recv() => match msg {
                None | Some(Err(_)) | Some(Ok(Message::Close(_))) => break,
                Some(Ok(Message::Text(text))) => {
                    handle(&state, text.as_str(), &tx, &mut running);
                }
                Some(Ok(Message::Binary(_))) => {
                    let _ = tx.send(error("messages are JSON text, not binary"));
                }
                Some(Ok(_)) => {}
            },
            Some(out) = rx.recv() => {
                if socket.send(Message::Text(out.to_string().into())).await.is_err() {
                    break;
                }
            }
        }
    }
    if let Some(r) = running.take() {
        r.cancel();
    }
}

fn error(message: impl Into<String>) -> Value {
    json!({ "type": "error", "message": message.into() })
}

/// A sender for a task's messages, tagged with its search number.
fn sender(tx: &mpsc::UnboundedSender<Value>, search: u64) -> Arc<dyn Fn(Value) + Send + Sync> {
    let tx = tx.clone();
    Arc::new(move |mut v: Value| {
        if v["type"] != "error" {
            v["search"] = json!(search);
        }
        let _ = tx.send(v);
    })
}

fn handle(
    state: &Arc<AppState>,
    text: &str,
    tx: &mpsc::UnboundedSender<Value>,
    running: &mut Option<Running>,
) {
    if text.len() > MESSAGE_LIMIT {
        let _ = tx.send(error(format!(
            "message of {} bytes is over the limit of {MESSAGE_LIMIT} bytes",
            text.len()
        )));
        return;
    }
    let msg: Value = match serde_json::from_str(text) {
        Ok(v) => v,
        Err(e) => {
            let _ = tx.send(error(format!("message is not JSON: {e}")));
            return;
        }
    };
    let kind = msg["type"].as_str().unwrap_or("");
    match kind {
        "ping" => {
            let _ = tx.send(json!({ "type": "pong" }));
        }
        "stop" => {
            if let Some(r) = running.as_ref() {
                r.ticket.stop();
            }
        }
        "go" => {
            let Some(id) = msg["game"].as_i64() else {
                let _ = tx.send(error("go: \"game\" must be a game id"));
                return;
            };
            if let Some(r) = running.take() {
                r.cancel();
            }
            let ticket = Ticket::new();
            let send = sender(tx, SEARCHES.fetch_add(1, Ordering::Relaxed));
            let st = state.clone();
            let t = ticket.clone();
            let task = tokio::spawn(async move {
                if let Err(e) = engine_move(st, id, t, send.clone()).await {
                    send(error(e));
                }
            });
            *running = Some(Running { ticket, task });
        }
        "analyse" => match analyse_spec(&msg) {
            Err(e) => {
                let _ = tx.send(error(format!("analyse: {e}")));
            }
            Ok(spec) => {
                if let Some(r) = running.take() {
                    r.cancel();
                }
                let ticket = Ticket::new();
                let send = sender(tx, SEARCHES.fetch_add(1, Ordering::Relaxed));
                let st = state.clone();
                let t = ticket.clone();
                let task = tokio::spawn(async move {
                    if let Err(e) = analyse(st, spec, t, send.clone()).await {
                        send(error(e));
                    }
                });
                *running = Some(Running { ticket, task });
            }
        },
        "" => {
            let _ = tx.send(error("message has no \"type\""));
        }
        other => {
            let _ = tx.send(error(format!(
                "unknown message type '{other}' (expected go, analyse, stop or ping)"
            )));
        }
    }
}

/// Reads and checks an `analyse` request.
fn analyse_spec(msg: &Value) -> Result<SearchSpec, String> {
    let variant = board::variant(msg["variant"].as_str().ok_or("\"variant\" is missing")?)?;
    let fen = match &msg["fen"] {
        Value::Null => None,
        Value::String(s) => Some(s.as_str()),
        _ => return Err("\"fen\" must be a string".into()),
    };
    let moves: Vec<String> = match &msg["moves"] {
        Value::Null => Vec::new(),
        v => {
            serde_json::from_value(v.clone()).map_err(|_| "\"moves\" must be a list of strings")?
        }
    };
    let multipv = match &msg["multipv"] {
        Value::Null => 1,
        v => v
            .as_u64()
            .filter(|n| (1..=MAX_MULTIPV as u64).contains(n))
            .ok_or(format!("\"multipv\" must be from 1 to {MAX_MULTIPV}"))? as usize,
    };
    let mut limits = Limits::default();
    if let Some(v) = msg.get("movetime_ms").filter(|v| !v.is_null()) {
        let n = v.as_u64().ok_or("\"movetime_ms\" must be a whole number")?;
        engine::check_movetime(n)?;
        limits.movetime = Some(std::time::Duration::from_millis(n));
    }
    if let Some(v) = msg.get("depth").filter(|v| !v.is_null()) {
        let n = v.as_u64().ok_or("\"depth\" must be a whole number")?;
        engine::check_depth(n)?;
        limits.depth = Some(n as i32);
    }
    // The position is checked now, so that a bad one is answered at once.
    let start_fen = crate::with_rules!(variant, R => {
        let line = board::replay_line::<R>(fen, &moves)?;
        if let Some(o) = line.game.outcome() {
            let (_, why) = board::outcome_parts(&line.game, o);
            return Err(format!("the game is over there ({why})"));
        }
        crate::notation::fen::write_fen(&line.start)
    });
    Ok(SearchSpec {
        variant,
        start_fen,
        moves,
        limits,
        multipv,
        book: false,
    })
}

async fn analyse(
    state: Arc<AppState>,
    spec: SearchSpec,
    ticket: Arc<Ticket>,
    send: Arc<dyn Fn(Value) + Send + Sync>,
) -> Result<(), String> {
    let queued = send.clone();
    let slot = state
        .pool
        .slot(move |ahead| queued(json!({ "type": "queued", "position": ahead })))
        .await?;
    send(json!({ "type": "started", "kind": "analyse" }));
    let info = send.clone();
    let found = engine::search(
        state.pool.clone(),
        slot,
        spec,
        ticket.clone(),
        Box::new(move |mut v| {
            v["type"] = json!("info");
            v["kind"] = json!("analyse");
            info(v);
        }),
    )
    .await?;
    if !ticket.is_dropped() {
        send(json!({
            "type": "done",
            "kind": "analyse",
            "best": found.and_then(|f| f.best),
        }));
    }
    Ok(())
}
