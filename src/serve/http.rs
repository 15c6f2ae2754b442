//! The HTTP side: the router, JSON bodies and errors, the static files
//! and the stateless endpoints. Handlers stay thin: the work is in
//! [`super::board`] and the other modules.

use std::sync::Arc;

use axum::body::Bytes;
use axum::extract::{DefaultBodyLimit, FromRequest, Path, Request, State};
use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use serde::de::DeserializeOwned;
use serde::Deserialize;
use serde_json::{json, Value};

use super::{analysis, board, games, statics, ws, AppState};

/// Largest request body of most endpoints.
pub const BODY_LIMIT: usize = 256 * 1024;
/// Largest request body of the PDN endpoints.
pub const PDN_BODY_LIMIT: usize = 1024 * 1024;

/// An error answer: a status and a sentence naming what was wrong, sent
/// as `{"error": ...}`.
#[derive(Debug)]
pub struct ApiError(pub StatusCode, pub String);

impl ApiError {
    /// 400: the request was wrong.
    pub fn bad(msg: impl Into<String>) -> Self {
        ApiError(StatusCode::BAD_REQUEST, msg.into())
    }
    /// 404: no such thing.
    pub fn not_found(msg: impl Into<String>) -> Self {
        ApiError(StatusCode::NOT_FOUND, msg.into())
    }
    /// 409: not now, in this state.
    pub fn conflict(msg: impl Into<String>) -> Self {
        ApiError(StatusCode::CONFLICT, msg.into())
    }
    /// 500: the server failed (the database).
    pub fn internal(msg: impl Into<String>) -> Self {
        ApiError(StatusCode::INTERNAL_SERVER_ERROR, msg.into())
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        (self.0, Json(json!({ "error": self.1 }))).into_response()
    }
}

/// A JSON request body: too large is a 413, JSON that does not read or
/// lacks a field a 400, each with `{"error": ...}` naming the problem.
#[derive(Debug)]
pub struct JsonBody<T>(pub T);

impl<S: Send + Sync, T: DeserializeOwned> FromRequest<S> for JsonBody<T> {
    type Rejection = ApiError;

    async fn from_request(req: Request, state: &S) -> Result<Self, Self::Rejection> {
        let bytes = Bytes::from_request(req, state).await.map_err(|r| {
            let status = r.status();
            if status == StatusCode::PAYLOAD_TOO_LARGE {
                ApiError(status, "request body too large".to_string())
            } else {
                ApiError(status, format!("request body: {}", r.body_text()))
            }
        })?;
        serde_json::from_slice(&bytes)
            .map(JsonBody)
            .map_err(|e| ApiError::bad(format!("request body is not the JSON expected: {e}")))
    }
}

/// The whole application.
pub fn router(state: Arc<AppState>) -> Router {
    let pdn_limit = DefaultBodyLimit::max(PDN_BODY_LIMIT);
    let api = Router::new()
        .route("/api/health", get(health))
        .route("/api/variants", get(variants))
        .route("/api/position", post(position))
        .route("/api/games", get(games::list).post(games::create))
        .route("/api/games/{id}", get(games::get_game))
        .route("/api/games/{id}/move", post(games::human_move))
        .route("/api/games/{id}/takeback", post(games::takeback))
        .route("/api/games/{id}/resign", post(games::resign))
        .route("/api/games/{id}/draw", post(games::draw))
        .route("/api/games/{id}/name", post(games::set_name))
        .route("/api/games/{id}/pdn", get(games::pdn))
        .route("/api/leaderboard/{variant}", get(games::leaderboard))
        .route("/api/pdn/parse", post(analysis::parse).layer(pdn_limit))
        .route("/api/pdn/export", post(analysis::export))
        .route(
            "/api/analyse-game",
            post(analysis::analyse_game).layer(pdn_limit),
        )
        .route("/api/ws", get(ws::upgrade));
    Router::new()
        .route("/", get(index))
        .route("/static/{*path}", get(static_file))
        .merge(api)
        .fallback(not_found)
        .method_not_allowed_fallback(wrong_method)
        .layer(DefaultBodyLimit::max(BODY_LIMIT))
        .with_state(state)
}

async fn index() -> Response {
    static_file(Path("index.html".to_string())).await
}

async fn static_file(Path(path): Path<String>) -> Response {
    match statics::file(&path) {
        Some(bytes) => (
            [
                (header::CONTENT_TYPE, statics::content_type(&path)),
                (header::CACHE_CONTROL, "no-cache"),
            ],
            bytes,
        )
            .into_response(),
        None => ApiError::not_found(format!("no file '{path}'")).into_response(),
    }
}

async fn not_found(req: Request) -> ApiError {
    ApiError::not_found(format!(
        "no such path: {} {}",
        req.method(),
        req.uri().path()
    ))
}

async fn wrong_method(req: Request) -> ApiError {
    ApiError(
        StatusCode::METHOD_NOT_ALLOWED,
        format!("{} is not allowed on {}", req.method(), req.uri().path()),
    )
}

async fn health(State(state): State<Arc<AppState>>) -> Json<Value> {
    let (running, queued) = state.pool.load();
    let egdb: Vec<&str> = state.options.egdb.iter().map(|v| v.name()).collect();
    Json(json!({
        "ok": true,
        "version": env!("CARGO_PKG_VERSION"),
        "searches": {
            "running": running,
            "queued": queued,
            "max": state.pool.max,
            "max_queue": state.pool.max_queue,
        },
        "egdb": egdb,
        "book": state.pool.book,
    }))
}

async fn variants() -> Json<Value> {
    Json(board::variants())
}

/// The body of `POST /api/position`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct PositionRequest {
    variant: String,
    fen: Option<String>,
    #[serde(default)]
    moves: Vec<String>,
}

async fn position(JsonBody(req): JsonBody<PositionRequest>) -> Result<Json<Value>, ApiError> {
    let v = board::variant(&req.variant).map_err(ApiError::bad)?;
    board::position(v, req.fen.as_deref(), &req.moves)
        .map(Json)
        .map_err(ApiError::bad)
}
