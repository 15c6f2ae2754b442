//! Games against the engine: create, move, take back, resign, offer a
//! draw, name, list, export; the engine's moves (asked for on the
//! WebSocket) and the leaderboard. Every change is stored at once.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use axum::extract::{Path, Query, State};
use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde::Deserialize;
use serde_json::{json, Value};

use super::board::{self, outcome_parts, replay_line, Line};
use super::db::{GameRecord, Status};
use super::engine::{self, Level, SearchSpec, Ticket};
use super::http::{ApiError, JsonBody};
use super::AppState;
use crate::notation::movetext::parse_move;
use crate::notation::pdn::{has_international_results, result_string};
use crate::rules::{Color, Rules};
use crate::search::Limits;
use crate::tools::stats::{format_elo, los, rating_list, Score};
use crate::{with_rules, Variant};

/// Longest name on a leaderboard.
pub const MAX_NAME: usize = 40;
/// Most games in one page of the list.
pub const MAX_LIST: usize = 200;
/// How long the engine thinks about a draw offer.
const DRAW_THINK: Duration = Duration::from_millis(200);
/// The engine accepts a draw when its score is at most this (centi-men).
const DRAW_ACCEPT_CP: i64 = 20;

/// Checks a player's name: 1 to 40 characters, no control characters.
pub fn check_name(name: &str) -> Result<String, String> {
    let n = name.trim();
    if n.is_empty() {
        return Err("name is empty".into());
    }
    if n.chars().count() > MAX_NAME {
        return Err(format!("name is over {MAX_NAME} characters"));
    }
    if n.chars().any(char::is_control) {
        return Err("name has control characters".into());
    }
    Ok(n.to_string())
}

/// The engine's colour in a game.
fn engine_colour(g: &GameRecord) -> Color {
    g.human.flip()
}

/// The players' names: White's, then Black's.
fn player_names(g: &GameRecord) -> (String, String) {
    let human = g.name.clone().unwrap_or_else(|| "Anonymous".to_string());
    let engine = g.level.engine_name();
    match g.human {
        Color::White => (human, engine),
        Color::Black => (engine, human),
    }
}

/// Ends a game with `winner` (`None`: a draw) for `reason`.
fn finish(g: &mut GameRecord, winner: Option<Color>, reason: &str) {
    g.status = Status::Finished;
    g.winner = winner;
    g.result =
        Some(result_string(has_international_results(g.variant.game_type()), winner).to_string());
    g.reason = Some(reason.to_string());
}

fn replay<R: Rules>(g: &GameRecord) -> Result<Line<R>, ApiError> {
    replay_line::<R>(Some(&g.start_fen), &g.moves)
        .map_err(|e| ApiError::internal(format!("game {} does not replay: {e}", g.id)))
}

/// The game object of the API.
pub fn game_json(g: &GameRecord) -> Result<Value, ApiError> {
    with_rules!(g.variant, R => {
        let line = replay::<R>(g)?;
        let to_move = line.game.position().side();
        Ok(json!({
            "id": g.id,
            "variant": g.variant.name(),
            "start_fen": g.start_fen,
            "human": board::colour_name(g.human),
            "level": g.level.to_json(),
            "engine_name": g.level.engine_name(),
            "name": g.name,
            "moves": g.moves,
            "scores": g.scores,
            "status": g.status.name(),
            "result": g.result,
            "reason": g.reason,
            "engine_to_move": g.status == Status::Playing && to_move != g.human,
            "created": g.created,
            "updated": g.updated,
            "position": board::position_json(g.variant, &line),
        }))
    })
}

/// A game's summary for lists.
fn summary(g: &GameRecord) -> Value {
    let (white, black) = player_names(g);
    json!({
        "id": g.id,
        "variant": g.variant.name(),
        "white": white,
        "black": black,
        "result": g.result,
        "reason": g.reason,
        "status": g.status.name(),
        "plies": g.moves.len(),
        "created": g.created,
        "updated": g.updated,
    })
}

/// Plays `text` in game `g` for the engine (`by_engine`) or the human,
/// with `score` for the list of scores; the game ends when the move ends
/// it.
fn play<R: Rules>(
    g: &mut GameRecord,
    text: &str,
    by_engine: bool,
    score: Value,
) -> Result<(), ApiError> {
    if g.status == Status::Finished {
        return Err(ApiError::conflict(format!(
            "game {} is over ({})",
            g.id,
            g.reason.as_deref().unwrap_or("finished")
        )));
    }
    let mut line = replay::<R>(g)?;
    let side = line.game.position().side();
    if by_engine != (side != g.human) {
        return Err(ApiError::conflict(if by_engine {
            format!("game {}: it is not the engine's turn", g.id)
        } else {
            format!("game {}: it is the engine's turn", g.id)
        }));
    }
    let pos = *line.game.position();
    let mv = parse_move(&pos, text).map_err(|e| ApiError::bad(e.to_string()))?;
    line.game.play(&mv);
    g.moves.push(board::move_text(&pos, &mv));
    g.scores.push(score);
    if let Some(o) = line.game.outcome() {
        let (winner, reason) = outcome_parts(&line.game, o);
        finish(g, winner, &reason);
    }
    Ok(())
}

/// A game id from the path.
fn game_id(text: &str) -> Result<i64, ApiError> {
    text.parse()
        .map_err(|_| ApiError::not_found(format!("no game '{text}': ids are whole numbers")))
}

fn not_found(id: i64) -> ApiError {
    ApiError::not_found(format!("no game {id}"))
}

/// Changes game `id` by `f` and answers with the game stored.
fn change(
    state: &AppState,
    id: i64,
    f: impl FnOnce(&mut GameRecord) -> Result<(), ApiError>,
) -> Result<GameRecord, ApiError> {
    match state.db.update(id, f).map_err(ApiError::internal)? {
        None => Err(not_found(id)),
        Some(r) => r,
    }
}

/// The body of `POST /api/games`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NewGame {
    variant: String,
    fen: Option<String>,
    human: String,
    level: Value,
    name: Option<String>,
}

/// `POST /api/games`.
pub async fn create(
    State(state): State<Arc<AppState>>,
    JsonBody(req): JsonBody<NewGame>,
) -> Result<Response, ApiError> {
    let variant = board::variant(&req.variant).map_err(ApiError::bad)?;
    let human =
        board::parse_colour(&req.human).map_err(|e| ApiError::bad(format!("human: {e}")))?;
    let level = Level::from_json(&req.level).map_err(ApiError::bad)?;
    let name = match req.name.as_deref().filter(|n| !n.trim().is_empty()) {
        Some(n) => Some(check_name(n).map_err(ApiError::bad)?),
        None => None,
    };
    let start_fen = with_rules!(variant, R => {
        let line = replay_line::<R>(req.fen.as_deref(), &[]).map_err(ApiError::bad)?;
        if let Some(o) = line.game.outcome() {
            let (_, why) = outcome_parts(&line.game, o);
            return Err(ApiError::bad(format!("the game would be over at once ({why})")));
        }
        for c in [Color::White, Color::Black] {
            if line.start.count(c) == 0 {
                return Err(ApiError::bad(format!(
                    "the game would be over at once ({} has no pieces)",
                    if c == Color::White { "White" } else { "Black" }
                )));
            }
        }
        crate::notation::fen::write_fen(&line.start)
    });
    let rec = GameRecord {
        id: 0,
        variant,
        start_fen,
        human,
        level,
        name,
        moves: Vec::new(),
        scores: Vec::new(),
        status: Status::Playing,
        result: None,
        reason: None,
        winner: None,
        created: String::new(),
        updated: String::new(),
    };
    let stored = state.db.create(&rec).map_err(ApiError::internal)?;
    Ok((StatusCode::CREATED, Json(game_json(&stored)?)).into_response())
}

/// `GET /api/games/{id}`.
pub async fn get_game(
    State(state): State<Arc<AppState>>,
    Path(id): Path<String>,
) -> Result<Json<Value>, ApiError> {
    let id = game_id(&id)?;
    let g = state
        .db
        .load(id)
        .map_err(ApiError::internal)?
        .ok_or_else(|| not_found(id))?;
    Ok(Json(game_json(&g)?))
}

/// The body of `POST /api/games/{id}/move`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MoveRequest {
    r#move: String,
}

/// `POST /api/games/{id}/move`.
pub async fn human_move(
    State(state): State<Arc<AppState>>,
    Path(id): Path<String>,
    JsonBody(req): JsonBody<MoveRequest>,
) -> Result<Json<Value>, ApiError> {
    let id = game_id(&id)?;
    let g = change(
        &state,
        id,
        |g| with_rules!(g.variant, R => play::<R>(g, &req.r#move, false, Value::Null)),
    )?;
    Ok(Json(game_json(&g)?))
}

/// Stops the engine's search in game `id`, if one runs, and drops its
/// move.
fn stop_search(state: &AppState, id: i64) {
    let t = state
        .searching
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .remove(&id);
    if let Some(t) = t {
        t.drop_result();
    }
}

/// `POST /api/games/{id}/takeback`.
pub async fn takeback(
    State(state): State<Arc<AppState>>,
    Path(id): Path<String>,
) -> Result<Json<Value>, ApiError> {
    let id = game_id(&id)?;
    let g = change(&state, id, |g| {
        if g.status == Status::Finished {
            return Err(ApiError::conflict(format!("game {id} is over")));
        }
        with_rules!(g.variant, R => {
            let line = replay::<R>(g)?;
            // The side to move before each move: is any of them the human's?
            let mut pos = line.start;
            let mut sides = Vec::new();
            for m in line.game.moves() {
                sides.push(pos.side());
                pos.play(m);
            }
            if !sides.contains(&g.human) {
                return Err(ApiError::conflict(format!("game {id}: no move of yours to take back")));
            }
            while let Some(side) = sides.pop() {
                g.moves.pop();
                g.scores.pop();
                if side == g.human {
                    break;
                }
            }
            Ok(())
        })
    })?;
    stop_search(&state, id);
    Ok(Json(game_json(&g)?))
}

/// `POST /api/games/{id}/resign`.
pub async fn resign(
    State(state): State<Arc<AppState>>,
    Path(id): Path<String>,
) -> Result<Json<Value>, ApiError> {
    let id = game_id(&id)?;
    let g = change(&state, id, |g| {
        if g.status == Status::Finished {
            return Err(ApiError::conflict(format!("game {id} is over")));
        }
        let winner = engine_colour(g);
        finish(g, Some(winner), "resignation");
        Ok(())
    })?;
    stop_search(&state, id);
    Ok(Json(game_json(&g)?))
}

/// `POST /api/games/{id}/draw`: the engine searches briefly and accepts
/// when it is not clearly better.
pub async fn draw(
    State(state): State<Arc<AppState>>,
    Path(id): Path<String>,
) -> Result<Json<Value>, ApiError> {
    let id = game_id(&id)?;
    let g = state
        .db
        .load(id)
        .map_err(ApiError::internal)?
        .ok_or_else(|| not_found(id))?;
    if g.status == Status::Finished {
        return Err(ApiError::conflict(format!("game {id} is over")));
    }
    let slot = state
        .pool
        .slot(|_| {})
        .await
        .map_err(|e| ApiError(StatusCode::SERVICE_UNAVAILABLE, e))?;
    let spec = SearchSpec {
        variant: g.variant,
        start_fen: g.start_fen.clone(),
        moves: g.moves.clone(),
        limits: Limits::movetime(DRAW_THINK),
        multipv: 1,
        book: false,
    };
    let found = engine::search(
        state.pool.clone(),
        slot,
        spec,
        Ticket::new(),
        Box::new(|_| {}),
    )
    .await
    .map_err(ApiError::internal)?;
    let white_cp = found
        .and_then(|o| o.score)
        .and_then(|s| s["cp"].as_i64())
        .unwrap_or(0);
    let engine_cp = if engine_colour(&g) == Color::White {
        white_cp
    } else {
        -white_cp
    };
    let accepted = engine_cp <= DRAW_ACCEPT_CP;
    let g = if accepted {
        let g = change(&state, id, |g| {
            if g.status == Status::Finished {
                return Err(ApiError::conflict(format!("game {id} is over")));
            }
            finish(g, None, "draw agreed");
            Ok(())
        })?;
        stop_search(&state, id);
        g
    } else {
        g
    };
    Ok(Json(
        json!({ "accepted": accepted, "game": game_json(&g)? }),
    ))
}

/// The body of `POST /api/games/{id}/name`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NameRequest {
    name: String,
}

/// `POST /api/games/{id}/name`.
pub async fn set_name(
    State(state): State<Arc<AppState>>,
    Path(id): Path<String>,
    JsonBody(req): JsonBody<NameRequest>,
) -> Result<Json<Value>, ApiError> {
    let id = game_id(&id)?;
    let name = check_name(&req.name).map_err(ApiError::bad)?;
    let g = change(&state, id, |g| {
        g.name = Some(name);
        Ok(())
    })?;
    Ok(Json(game_json(&g)?))
}

/// `GET /api/games?variant=&finished=&limit=&offset=`.
pub async fn list(
    State(state): State<Arc<AppState>>,
    Query(q): Query<HashMap<String, String>>,
) -> Result<Json<Value>, ApiError> {
    if let Some(k) = q
        .keys()
        .find(|k| !["variant", "finished", "limit", "offset"].contains(&k.as_str()))
    {
        return Err(ApiError::bad(format!(
            "unknown parameter '{k}' (expected variant, finished, limit, offset)"
        )));
    }
    let variant = match q.get("variant").filter(|v| !v.is_empty()) {
        Some(v) => Some(board::variant(v).map_err(ApiError::bad)?),
        None => None,
    };
    let finished = match q.get("finished").map(String::as_str) {
        None | Some("") => None,
        Some("true") => Some(true),
        Some("false") => Some(false),
        Some(other) => {
            return Err(ApiError::bad(format!(
                "finished must be true or false, not '{other}'"
            )))
        }
    };
    let number = |k: &str, default: usize| -> Result<usize, ApiError> {
        match q.get(k) {
            None => Ok(default),
            Some(t) => t
                .parse()
                .map_err(|_| ApiError::bad(format!("{k} must be a whole number, not '{t}'"))),
        }
    };
    let limit = number("limit", 50)?;
    if limit == 0 || limit > MAX_LIST {
        return Err(ApiError::bad(format!("limit must be from 1 to {MAX_LIST}")));
    }
    let offset = number("offset", 0)?;
    let (games, total) = state
        .db
        .list(variant, finished, limit, offset)
        .map_err(ApiError::internal)?;
    let list: Vec<Value> = games.iter().map(summary).collect();
    Ok(Json(json!({ "games": list, "total": total })))
}

/// The game as PDN, its scores as comments.
pub fn game_pdn(g: &GameRecord) -> Result<String, ApiError> {
    let (white, black) = player_names(g);
    let date = g
        .created
        .get(..10)
        .unwrap_or("????-??-??")
        .replace('-', ".");
    let tags = vec![
        ("Event".to_string(), "kondavo serve".to_string()),
        ("Site".to_string(), "kondavo".to_string()),
        ("Date".to_string(), date),
        ("White".to_string(), white),
        ("Black".to_string(), black),
        (
            "Result".to_string(),
            g.result.clone().unwrap_or_else(|| "*".to_string()),
        ),
    ];
    let result = g.result.clone().unwrap_or_else(|| "*".to_string());
    with_rules!(g.variant, R => {
        let line = replay::<R>(g)?;
        Ok(board::export_pdn(&line, &tags, &g.scores, &result))
    })
}

/// A PDN download.
pub fn pdn_response(text: String, filename: &str) -> Response {
    (
        [
            (
                header::CONTENT_TYPE,
                "text/plain; charset=utf-8".to_string(),
            ),
            (
                header::CONTENT_DISPOSITION,
                format!("attachment; filename=\"{filename}\""),
            ),
        ],
        text,
    )
        .into_response()
}

/// `GET /api/games/{id}/pdn`.
pub async fn pdn(
    State(state): State<Arc<AppState>>,
    Path(id): Path<String>,
) -> Result<Response, ApiError> {
    let id = game_id(&id)?;
    let g = state
        .db
        .load(id)
        .map_err(ApiError::internal)?
        .ok_or_else(|| not_found(id))?;
    Ok(pdn_response(game_pdn(&g)?, &format!("kondavo-{id}.pdn")))
}

/// `GET /api/leaderboard/{variant}`: Elo of the named players and the
/// engine levels they played, from every finished game with a name.
pub async fn leaderboard(
    State(state): State<Arc<AppState>>,
    Path(variant): Path<String>,
) -> Result<Json<Value>, ApiError> {
    let v = board::variant(&variant).map_err(ApiError::bad)?;
    let games = state.db.rated_games(v).map_err(ApiError::internal)?;
    Ok(Json(ratings(v, &games)))
}

/// The leaderboard of `games`.
pub fn ratings(v: Variant, games: &[GameRecord]) -> Value {
    // Players by (is the engine, name): a person named like an engine
    // level is still a person.
    let mut players: Vec<(bool, String)> = Vec::new();
    let mut index = |p: (bool, String)| match players.iter().position(|q| *q == p) {
        Some(i) => i,
        None => {
            players.push(p);
            players.len() - 1
        }
    };
    let mut results = Vec::new();
    for g in games {
        let human = (false, g.name.clone().unwrap_or_default());
        let engine = (true, g.level.engine_name());
        let (w, b) = match g.human {
            Color::White => (index(human), index(engine)),
            Color::Black => (index(engine), index(human)),
        };
        let points = match g.winner {
            Some(Color::White) => 1.0,
            Some(Color::Black) => 0.0,
            None => 0.5,
        };
        results.push((w, b, points));
    }
    let mut scores = vec![Score::default(); players.len()];
    for &(w, b, p) in &results {
        // White's points are 1, 0.5 or 0.
        let (ws, bs) = if p > 0.75 {
            ((1, 0, 0), (0, 0, 1))
        } else if p < 0.25 {
            ((0, 0, 1), (1, 0, 0))
        } else {
            ((0, 1, 0), (0, 1, 0))
        };
        for (i, (win, d, l)) in [(w, ws), (b, bs)] {
            scores[i].wins += win;
            scores[i].draws += d;
            scores[i].losses += l;
        }
    }
    let mut list: Vec<Value> = rating_list(players.len(), &results)
        .into_iter()
        .map(|r| {
            let (engine, name) = &players[r.player];
            let s = scores[r.player];
            json!({
                "name": name,
                "engine": engine,
                "elo": (r.elo * 10.0).round() / 10.0,
                "error95": (r.error95 * 10.0).round() / 10.0,
                "elo_text": format_elo(r.elo, r.error95),
                "games": r.games,
                "wins": s.wins,
                "draws": s.draws,
                "losses": s.losses,
                "score": r.score,
                "los": los(&s),
            })
        })
        .collect();
    list.sort_by(|a, b| {
        let e = |x: &Value| x["elo"].as_f64().unwrap_or(0.0);
        e(b).total_cmp(&e(a))
    });
    json!({ "variant": v.name(), "games": games.len(), "players": list })
}

/// Removes a game's search from the registry when it ends, however it
/// ends.
struct Registered<'a> {
    state: &'a AppState,
    id: i64,
    ticket: Arc<Ticket>,
}

impl Drop for Registered<'_> {
    fn drop(&mut self) {
        let mut map = self
            .state
            .searching
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        if map
            .get(&self.id)
            .is_some_and(|t| Arc::ptr_eq(t, &self.ticket))
        {
            map.remove(&self.id);
        }
    }
}

/// The engine moves in game `id`: queued for a slot if need be, searched
/// (or played from the book), stored. `send` gets the socket's messages:
/// `queued`, `started`, each `info`, and `move`. An error is a sentence
/// for the socket's `error` message.
pub async fn engine_move(
    state: Arc<AppState>,
    id: i64,
    ticket: Arc<Ticket>,
    send: Arc<dyn Fn(Value) + Send + Sync>,
) -> Result<(), String> {
    let g = state
        .db
        .load(id)
        .map_err(|e| e.to_string())?
        .ok_or_else(|| format!("no game {id}"))?;
    if g.status == Status::Finished {
        return Err(format!("game {id} is over"));
    }
    let side =
        with_rules!(g.variant, R => replay::<R>(&g).map_err(|e| e.1)?.game.position().side());
    if side == g.human {
        return Err(format!("game {id}: it is not the engine's turn"));
    }
    {
        let mut map = state.searching.lock().unwrap_or_else(|e| e.into_inner());
        if map.contains_key(&id) {
            return Err(format!("game {id}: the engine is thinking already"));
        }
        map.insert(id, ticket.clone());
    }
    let _registered = Registered {
        state: &state,
        id,
        ticket: ticket.clone(),
    };
    let queued = send.clone();
    let slot = state
        .pool
        .slot(move |ahead| queued(json!({ "type": "queued", "position": ahead })))
        .await?;
    send(json!({ "type": "started", "kind": "go", "game": id }));
    let spec = SearchSpec {
        variant: g.variant,
        start_fen: g.start_fen.clone(),
        moves: g.moves.clone(),
        limits: g.level.limits(),
        multipv: 1,
        book: true,
    };
    let info_send = send.clone();
    let found = engine::search(
        state.pool.clone(),
        slot,
        spec,
        ticket.clone(),
        Box::new(move |mut v| {
            v["type"] = json!("info");
            v["kind"] = json!("go");
            v["game"] = json!(id);
            info_send(v);
        }),
    )
    .await?;
    let Some(found) = found else {
        return Ok(());
    };
    if ticket.is_dropped() {
        return Ok(());
    }
    let Some(best) = found.best else {
        return Err(format!("game {id}: the engine found no move"));
    };
    let before = g.moves.clone();
    let score = found.score.clone().unwrap_or(Value::Null);
    let stored = match state.db.update(id, |g| {
        if g.moves != before || ticket.is_dropped() || g.status == Status::Finished {
            // Taken back, resigned or drawn meanwhile: the move is stale.
            return Err(None);
        }
        with_rules!(g.variant, R => play::<R>(g, &best, true, if found.book { Value::Null } else { score.clone() }))
            .map_err(Some)
    }) {
        Err(e) => return Err(e),
        Ok(None) => return Err(format!("no game {id}")),
        Ok(Some(Err(None))) => return Ok(()),
        Ok(Some(Err(Some(e)))) => return Err(e.1),
        Ok(Some(Ok(g))) => g,
    };
    let state_json = game_json(&stored).map_err(|e| e.1)?;
    send(json!({
        "type": "move",
        "game": id,
        "move": best,
        "score": score,
        "book": found.book,
        "game_state": state_json,
    }));
    Ok(())
}
