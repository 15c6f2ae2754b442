//! The games database: one SQLite file (compiled in with rusqlite's
//! `bundled` feature), one row per game, written after every change in
//! its own transaction so that a killed server loses nothing.

use std::path::Path;
use std::sync::Mutex;

use rusqlite::{params, Connection, OptionalExtension, Row};
use serde_json::Value;

use super::engine::Level;
use crate::rules::Color;
use crate::Variant;

/// Whether a game goes on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Status {
    /// Moves are still played.
    Playing,
    /// The game has a result.
    Finished,
}

impl Status {
    /// `"playing"` or `"finished"`.
    pub fn name(self) -> &'static str {
        match self {
            Status::Playing => "playing",
            Status::Finished => "finished",
        }
    }
}

/// One game as stored.
#[derive(Clone, Debug)]
pub struct GameRecord {
    /// Row id, the game's id in the API.
    pub id: i64,
    /// Rule set.
    pub variant: Variant,
    /// The start position (FEN).
    pub start_fen: String,
    /// The human's colour; the engine has the other.
    pub human: Color,
    /// The engine's strength.
    pub level: Level,
    /// The human's name, for the leaderboard.
    pub name: Option<String>,
    /// Moves in PDN.
    pub moves: Vec<String>,
    /// One score object or null per move (White's view).
    pub scores: Vec<Value>,
    /// Playing or finished.
    pub status: Status,
    /// The result string once finished.
    pub result: Option<String>,
    /// Why it ended.
    pub reason: Option<String>,
    /// The winner (`None`: a draw, or still playing).
    pub winner: Option<Color>,
    /// Creation time, UTC, ISO 8601.
    pub created: String,
    /// Last change, UTC, ISO 8601.
    pub updated: String,
}

/// The database: one connection, used by one request at a time (every
/// statement is short).
#[derive(Debug)]
pub struct Db {
    conn: Mutex<Connection>,
}

const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS games (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    variant TEXT NOT NULL,
    start_fen TEXT NOT NULL,
    human TEXT NOT NULL,
    level TEXT NOT NULL,
    name TEXT,
    moves TEXT NOT NULL,
    scores TEXT NOT NULL,
    status TEXT NOT NULL,
    result TEXT,
    reason TEXT,
    winner TEXT,
    created TEXT NOT NULL,
    updated TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS games_variant ON games (variant, status);
";

/// The current time, as SQLite writes it.
const NOW: &str = "strftime('%Y-%m-%dT%H:%M:%SZ', 'now')";

fn colour_of(text: &str) -> Option<Color> {
    match text {
        "white" => Some(Color::White),
        "black" => Some(Color::Black),
        _ => None,
    }
}

fn colour_text(c: Color) -> &'static str {
    super::board::colour_name(c)
}

fn record(row: &Row) -> rusqlite::Result<GameRecord> {
    let text = |i: usize| row.get::<_, String>(i);
    let bad = |i: usize, what: &str| {
        rusqlite::Error::FromSqlConversionFailure(
            i,
            rusqlite::types::Type::Text,
            format!("stored {what} does not read").into(),
        )
    };
    let variant: Variant = text(1)?.parse().map_err(|_| bad(1, "variant"))?;
    let human = colour_of(&text(3)?).ok_or_else(|| bad(3, "colour"))?;
    let level_json: Value = serde_json::from_str(&text(4)?).map_err(|_| bad(4, "level"))?;
    let level = Level::from_json(&level_json).map_err(|_| bad(4, "level"))?;
    let moves: Vec<String> = serde_json::from_str(&text(6)?).map_err(|_| bad(6, "moves"))?;
    let scores: Vec<Value> = serde_json::from_str(&text(7)?).map_err(|_| bad(7, "scores"))?;
    let status = if text(8)? == "finished" {
        Status::Finished
    } else {
        Status::Playing
    };
    Ok(GameRecord {
        id: row.get(0)?,
        variant,
        start_fen: text(2)?,
        human,
        level,
        name: row.get(5)?,
        moves,
        scores,
        status,
        result: row.get(9)?,
        reason: row.get(10)?,
        winner: row
            .get::<_, Option<String>>(11)?
            .as_deref()
            .and_then(colour_of),
        created: text(12)?,
        updated: text(13)?,
    })
}

const COLUMNS: &str = "id, variant, start_fen, human, level, name, moves, scores, status, \
                       result, reason, winner, created, updated";

impl Db {
    /// Opens (or creates) the database at `path`; an error names it.
    pub fn open(path: &Path) -> Result<Db, String> {
        let what = |e: rusqlite::Error| format!("database {}: {e}", path.display());
        let conn = Connection::open(path).map_err(what)?;
        // WAL: a write is one append, and a process killed mid-write
        // leaves the last committed state.
        conn.pragma_update(None, "journal_mode", "WAL")
            .map_err(what)?;
        conn.pragma_update(None, "synchronous", "NORMAL")
            .map_err(what)?;
        conn.busy_timeout(std::time::Duration::from_secs(5))
            .map_err(what)?;
        conn.execute_batch(SCHEMA).map_err(what)?;
        Ok(Db {
            conn: Mutex::new(conn),
        })
    }

    /// Runs `f` on the connection, alone.
    fn with<T>(&self, f: impl FnOnce(&Connection) -> rusqlite::Result<T>) -> Result<T, String> {
        let conn = self.conn.lock().unwrap_or_else(|e| e.into_inner());
        f(&conn).map_err(|e| format!("database: {e}"))
    }

    /// Stores a new game; returns it with its id and times.
    pub fn create(&self, g: &GameRecord) -> Result<GameRecord, String> {
        let id = self.with(|c| {
            c.execute(
                &format!(
                    "INSERT INTO games (variant, start_fen, human, level, name, moves, scores, \
                     status, result, reason, winner, created, updated) \
                     VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, {NOW}, {NOW})"
                ),
                params![
                    g.variant.name(),
                    g.start_fen,
                    colour_text(g.human),
                    g.level.to_json().to_string(),
                    g.name,
                    serde_json::to_string(&g.moves).unwrap_or_else(|_| "[]".into()),
                    serde_json::to_string(&g.scores).unwrap_or_else(|_| "[]".into()),
                    g.status.name(),
                    g.result,
                    g.reason,
                    g.winner.map(colour_text),
                ],
            )?;
            Ok(c.last_insert_rowid())
        })?;
        self.load(id)?
            .ok_or_else(|| format!("database: game {id} vanished"))
    }

    /// The game `id`, if stored.
    pub fn load(&self, id: i64) -> Result<Option<GameRecord>, String> {
        self.with(|c| {
            c.query_row(
                &format!("SELECT {COLUMNS} FROM games WHERE id = ?1"),
                [id],
                record,
            )
            .optional()
        })
    }

    /// Changes game `id` by `f` with no other change in between, and stores
    /// it; `f`'s error leaves it as it was. Returns the game stored, or
    /// `None` when there is no such game.
    pub fn update<E>(
        &self,
        id: i64,
        f: impl FnOnce(&mut GameRecord) -> Result<(), E>,
    ) -> Result<Option<Result<GameRecord, E>>, String> {
        let conn = self.conn.lock().unwrap_or_else(|e| e.into_inner());
        let err = |e: rusqlite::Error| format!("database: {e}");
        let found = conn
            .query_row(
                &format!("SELECT {COLUMNS} FROM games WHERE id = ?1"),
                [id],
                record,
            )
            .optional()
            .map_err(err)?;
        let Some(mut g) = found else {
            return Ok(None);
        };
        if let Err(e) = f(&mut g) {
            return Ok(Some(Err(e)));
        }
        conn.execute(
            &format!(
                "UPDATE games SET name = ?2, moves = ?3, scores = ?4, status = ?5, result = ?6, \
                 reason = ?7, winner = ?8, updated = {NOW} WHERE id = ?1"
            ),
            params![
                id,
                g.name,
                serde_json::to_string(&g.moves).unwrap_or_else(|_| "[]".into()),
                serde_json::to_string(&g.scores).unwrap_or_else(|_| "[]".into()),
                g.status.name(),
                g.result,
                g.reason,
                g.winner.map(colour_text),
            ],
        )
        .map_err(err)?;
        let stored = conn
            .query_row(
                &format!("SELECT {COLUMNS} FROM games WHERE id = ?1"),
                [id],
                record,
            )
            .map_err(err)?;
        Ok(Some(Ok(stored)))
    }

    /// Games, newest first, filtered by variant and state, and how many
    /// match in all.
    pub fn list(
        &self,
        variant: Option<Variant>,
        finished: Option<bool>,
        limit: usize,
        offset: usize,
    ) -> Result<(Vec<GameRecord>, usize), String> {
        let v = variant.map(|v| v.name().to_string());
        let s = finished.map(|f| if f { "finished" } else { "playing" });
        let filter = "(?1 IS NULL OR variant = ?1) AND (?2 IS NULL OR status = ?2)";
        self.with(|c| {
            let total: i64 = c.query_row(
                &format!("SELECT COUNT(*) FROM games WHERE {filter}"),
                params![v, s],
                |r| r.get(0),
            )?;
            let mut stmt = c.prepare(&format!(
                "SELECT {COLUMNS} FROM games WHERE {filter} ORDER BY id DESC LIMIT ?3 OFFSET ?4"
            ))?;
            let rows = stmt
                .query_map(params![v, s, limit as i64, offset as i64], record)?
                .collect::<rusqlite::Result<Vec<_>>>()?;
            Ok((rows, total as usize))
        })
    }

    /// The finished games of a variant whose human gave a name.
    pub fn rated_games(&self, variant: Variant) -> Result<Vec<GameRecord>, String> {
        self.with(|c| {
            let mut stmt = c.prepare(&format!(
                "SELECT {COLUMNS} FROM games WHERE variant = ?1 AND status = 'finished' \
                 AND name IS NOT NULL AND name <> '' ORDER BY id"
            ))?;
            let rows = stmt
                .query_map([variant.name()], record)?
                .collect::<rusqlite::Result<Vec<_>>>()?;
            Ok(rows)
        })
    }
}
