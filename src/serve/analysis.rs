//! PDN import and export, and the evaluation of a whole game by the code
//! path of `kondavo analyse` (for the page's evaluation graph).

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use axum::extract::State;
use axum::http::StatusCode;
use axum::response::Response;
use axum::Json;
use serde::Deserialize;
use serde_json::{json, Value};

use super::board::{self, outcome_parts, replay_line};
use super::engine::{check_depth, check_movetime};
use super::games::pdn_response;
use super::http::{ApiError, JsonBody};
use super::AppState;
use crate::game::Game;
use crate::notation::fen::write_fen;
use crate::notation::pdn::{game_variant, parse_pdn, write_pdn};
use crate::rules::{Color, Rules};
use crate::search::Limits;
use crate::tools::analyse::{run_analyse, AnalyseOptions};
use crate::{with_rules, Variant};

/// Most plies a game analysis covers.
pub const MAX_ANALYSE_PLIES: usize = 600;
/// Most search time one game analysis may ask for.
pub const MAX_ANALYSE_TIME: Duration = Duration::from_secs(300);
/// Search time per position when the request names none.
const DEFAULT_MOVETIME_MS: u64 = 200;

/// The body of `POST /api/pdn/parse`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ParseRequest {
    pdn: String,
    variant: Option<String>,
}

/// `POST /api/pdn/parse`.
pub async fn parse(JsonBody(req): JsonBody<ParseRequest>) -> Result<Json<Value>, ApiError> {
    let fallback = match req.variant.as_deref() {
        Some(v) => board::variant(v).map_err(ApiError::bad)?,
        None => Variant::International,
    };
    board::parse_pdn_games(&req.pdn, fallback)
        .map(Json)
        .map_err(ApiError::bad)
}

/// The body of `POST /api/pdn/export`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExportRequest {
    variant: String,
    fen: Option<String>,
    #[serde(default)]
    moves: Vec<String>,
    #[serde(default)]
    scores: Vec<Value>,
    #[serde(default)]
    tags: serde_json::Map<String, Value>,
    result: Option<String>,
}

/// `POST /api/pdn/export`.
pub async fn export(JsonBody(req): JsonBody<ExportRequest>) -> Result<Response, ApiError> {
    let v = board::variant(&req.variant).map_err(ApiError::bad)?;
    let mut tags = Vec::new();
    for (name, value) in &req.tags {
        let Some(text) = value.as_str() else {
            return Err(ApiError::bad(format!("tag '{name}' must be a string")));
        };
        if name.is_empty() || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
            return Err(ApiError::bad(format!(
                "tag name '{name}' must be letters, digits or '_'"
            )));
        }
        tags.push((name.clone(), text.to_string()));
    }
    let result = req.result.clone().unwrap_or_else(|| "*".to_string());
    if !tags.iter().any(|(n, _)| n == "Result") {
        tags.push(("Result".to_string(), result.clone()));
    }
    let text = with_rules!(v, R => {
        let line = replay_line::<R>(req.fen.as_deref(), &req.moves).map_err(ApiError::bad)?;
        board::export_pdn(&line, &tags, &req.scores, &result)
    });
    Ok(pdn_response(text, "kondavo-analysis.pdn"))
}

/// The body of `POST /api/analyse-game`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AnalyseRequest {
    variant: Option<String>,
    pdn: Option<String>,
    fen: Option<String>,
    moves: Option<Vec<String>>,
    game: Option<i64>,
    movetime_ms: Option<u64>,
    depth: Option<u64>,
}

/// A game to analyse: its variant, start and moves.
struct Target {
    variant: Variant,
    start_fen: String,
    moves: Vec<String>,
}

fn target(state: &AppState, req: &AnalyseRequest) -> Result<Target, ApiError> {
    let named = match req.variant.as_deref() {
        Some(v) => Some(board::variant(v).map_err(ApiError::bad)?),
        None => None,
    };
    let given = [
        req.pdn.is_some(),
        req.moves.is_some() || req.fen.is_some(),
        req.game.is_some(),
    ];
    if given.iter().filter(|&&b| b).count() != 1 {
        return Err(ApiError::bad(
            "give exactly one of: pdn, fen and moves, game",
        ));
    }
    if let Some(id) = req.game {
        let g = state
            .db
            .load(id)
            .map_err(ApiError::internal)?
            .ok_or_else(|| ApiError::not_found(format!("no game {id}")))?;
        return Ok(Target {
            variant: g.variant,
            start_fen: g.start_fen,
            moves: g.moves,
        });
    }
    if let Some(text) = &req.pdn {
        let games = parse_pdn(text);
        let g = match games.into_iter().next() {
            None => return Err(ApiError::bad("no game in the PDN text")),
            Some(Err(e)) => return Err(ApiError::bad(e.to_string())),
            Some(Ok(g)) => g,
        };
        let variant = game_variant(&g).or(named).unwrap_or(Variant::International);
        return with_rules!(variant, R => {
            let (start, played) = crate::notation::pdn::replay::<R>(&g)
                .map_err(|e| ApiError::bad(e.to_string()))?;
            Ok(Target {
                variant,
                start_fen: write_fen(&start),
                moves: played.iter().map(|(p, m)| board::move_text(p, m)).collect(),
            })
        });
    }
    let variant = named.ok_or_else(|| ApiError::bad("\"variant\" is missing"))?;
    let moves = req.moves.clone().unwrap_or_default();
    with_rules!(variant, R => {
        let line = replay_line::<R>(req.fen.as_deref(), &moves).map_err(ApiError::bad)?;
        Ok(Target {
            variant,
            start_fen: write_fen(&line.start),
            moves: board::moves_pdn(&line.start, line.game.moves()),
        })
    })
}

/// `POST /api/analyse-game`.
pub async fn analyse_game(
    State(state): State<Arc<AppState>>,
    JsonBody(req): JsonBody<AnalyseRequest>,
) -> Result<Json<Value>, ApiError> {
    let t = target(&state, &req)?;
    if t.moves.len() > MAX_ANALYSE_PLIES {
        return Err(ApiError::bad(format!(
            "the game has {} plies; at most {MAX_ANALYSE_PLIES} are analysed",
            t.moves.len()
        )));
    }
    let limits = match (req.movetime_ms, req.depth) {
        (Some(_), Some(_)) => return Err(ApiError::bad("give movetime_ms or depth, not both")),
        (_, Some(d)) => {
            check_depth(d).map_err(ApiError::bad)?;
            Limits::depth(d as i32)
        }
        (ms, None) => {
            let ms = ms.unwrap_or(DEFAULT_MOVETIME_MS);
            check_movetime(ms).map_err(ApiError::bad)?;
            let total = Duration::from_millis(ms) * (t.moves.len() as u32 + 1);
            if total > MAX_ANALYSE_TIME {
                return Err(ApiError::bad(format!(
                    "{} positions at {ms} ms is over {} s; ask for less time per move",
                    t.moves.len() + 1,
                    MAX_ANALYSE_TIME.as_secs()
                )));
            }
            Limits::movetime(Duration::from_millis(ms))
        }
    };
    let slot = state
        .pool
        .slot(|_| {})
        .await
        .map_err(|e| ApiError(StatusCode::SERVICE_UNAVAILABLE, e))?;
    let hash = state.pool.hash_mib();
    let variant = t.variant;
    let start_fen = t.start_fen.clone();
    let moves = t.moves.clone();
    let answer = tokio::task::spawn_blocking(move || {
        let _slot = slot;
        with_rules!(variant, R => analyse_blocking::<R>(variant, &start_fen, &moves, limits, hash))
    })
    .await
    .map_err(|e| ApiError::internal(format!("analysis failed: {e}")))?
    .map_err(ApiError::bad)?;
    if let Some(id) = req.game {
        let plies = answer["plies"].as_array().cloned().unwrap_or_default();
        let before = t.moves.clone();
        // The scores are kept when the game has not moved on meanwhile.
        let _ = state.db.update(id, |g| {
            if g.moves != before {
                return Err(());
            }
            g.scores = (0..g.moves.len())
                .map(|i| plies.get(i + 1).map_or(Value::Null, |p| p["score"].clone()))
                .collect();
            Ok(())
        });
    }
    Ok(Json(answer))
}

/// Names the temporary PDN files of analyses apart.
static FILES: AtomicU64 = AtomicU64::new(0);

/// Removes a file when dropped.
struct TempFile(std::path::PathBuf);

impl Drop for TempFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

/// Runs `kondavo analyse` on the game (written as a PDN file, as the
/// command reads it) and gathers its JSON lines per ply.
fn analyse_blocking<R: Rules>(
    variant: Variant,
    start_fen: &str,
    moves: &[String],
    limits: Limits,
    hash: usize,
) -> Result<Value, String> {
    let line = replay_line::<R>(Some(start_fen), moves)?;
    let pdn = write_pdn(&[], &line.start, line.game.moves(), "*");
    let file = TempFile(std::env::temp_dir().join(format!(
        "kondavo-serve-{}-{}.pdn",
        std::process::id(),
        FILES.fetch_add(1, Ordering::Relaxed)
    )));
    std::fs::write(&file.0, pdn).map_err(|e| format!("temporary file: {e}"))?;
    let opts = AnalyseOptions {
        variant,
        fens: Vec::new(),
        pdn: Some(file.0.display().to_string()),
        limits,
        multipv: 1,
        threads: 1,
        hash,
        annotate: None,
        weights: Vec::new(),
    };
    let mut found: Vec<Option<Value>> = vec![None; moves.len() + 1];
    let mut error = None;
    run_analyse(&opts, &mut |l| {
        let Ok(v) = serde_json::from_str::<Value>(&l) else {
            return;
        };
        if let Some(e) = v.get("error") {
            error = Some(e.as_str().unwrap_or("analysis failed").to_string());
        } else if let Some(p) = v["ply"].as_u64() {
            if let Some(slot) = found.get_mut(p as usize) {
                *slot = Some(v);
            }
        }
    })?;
    if let Some(e) = error {
        return Err(e);
    }
    let mut game = Game::new(line.start);
    let mut plies = Vec::new();
    for (k, searched) in found.iter().enumerate() {
        let pos = *game.position();
        let mut o = json!({
            "ply": k,
            "fen": write_fen(&pos),
            "played": moves.get(k),
            "score": null,
            "best": null,
            "pv": [],
            "depth": null,
        });
        if let Some(out) = game.outcome() {
            let (winner, reason) = outcome_parts(&game, out);
            o["outcome"] = json!({
                "result": crate::notation::pdn::result_string_for::<R>(winner),
                "winner": winner.map(board::colour_name),
                "reason": reason,
            });
        }
        if let Some(r) = searched {
            o["score"] = analyse_score(r, pos.side());
            o["best"] = r["bestmove"].clone();
            o["pv"] = r["pv"].clone();
            o["depth"] = r["depth"].clone();
        }
        plies.push(o);
        if let Some(mv) = line.game.moves().get(k) {
            game.play(mv);
        }
    }
    Ok(json!({
        "variant": variant.name(),
        "start_fen": start_fen,
        "plies": plies,
    }))
}

/// The score of a `kondavo analyse` line (centi-men for the side to move,
/// `win`/`loss` in plies) as a score object from White's view.
fn analyse_score(r: &Value, side: Color) -> Value {
    let sign = if side == Color::White { 1 } else { -1 };
    let plies = r["win"].as_i64().or_else(|| r["loss"].as_i64().map(|n| -n));
    match plies {
        Some(n) => {
            let n = n * sign;
            let who = if n > 0 { "White" } else { "Black" };
            json!({
                "cp": if n > 0 { 10000 } else { -10000 },
                "win_in": n,
                "text": format!("{who} wins in {}", n.abs()),
            })
        }
        None => {
            let cp = r["score"].as_i64().unwrap_or(0) * sign;
            json!({ "cp": cp, "win_in": null, "text": format!("{:+.2}", cp as f64 / 100.0) })
        }
    }
}
