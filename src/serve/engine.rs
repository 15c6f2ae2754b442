//! The engine behind the page: searches through the Hub's
//! [`Session`], on blocking threads, under a global cap with a bounded
//! queue, each stoppable from the request that started it.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::{json, Value};
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

use super::board::{self, Line};
use crate::book::{Chooser, DEFAULT_MARGIN};
use crate::notation::fen::write_fen;
use crate::position::Position;
use crate::protocol::hubpos::{move_to_hub, parse_hub_move};
use crate::protocol::session::{new_session, Session};
use crate::protocol::tokenize;
use crate::rules::{Color, Rules};
use crate::search::Limits;
use crate::{with_rules, Variant};

/// Longest search the page may ask for, in milliseconds.
pub const MAX_MOVETIME_MS: u64 = 60_000;
/// Shortest search time, in milliseconds.
pub const MIN_MOVETIME_MS: u64 = 10;
/// Deepest fixed-depth search.
pub const MAX_DEPTH: i32 = 40;
/// Node budgets allowed.
pub const NODES_RANGE: (u64, u64) = (1000, 100_000_000);
/// Most lines of a multi-PV analysis.
pub const MAX_MULTIPV: usize = 10;
/// An analysis without a limit stops after this long.
pub const INFINITE_CAP: Duration = Duration::from_secs(30 * 60);

/// The engine's strength in a game: time, depth or nodes per move.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Level {
    /// Milliseconds per move.
    MoveTime(u64),
    /// Fixed depth in plies.
    Depth(i32),
    /// Nodes per move.
    Nodes(u64),
}

impl Level {
    /// Reads `{"movetime_ms": n}`, `{"depth": n}` or `{"nodes": n}`,
    /// checking the bounds.
    pub fn from_json(v: &Value) -> Result<Level, String> {
        let obj = v
            .as_object()
            .ok_or("level must be an object such as {\"movetime_ms\": 1000}")?;
        if obj.len() != 1 {
            return Err("level must have exactly one of movetime_ms, depth, nodes".into());
        }
        let num = |k: &str| -> Result<u64, String> {
            obj[k]
                .as_u64()
                .ok_or_else(|| format!("level.{k} must be a whole number"))
        };
        if obj.contains_key("movetime_ms") {
            let n = num("movetime_ms")?;
            check_movetime(n)?;
            Ok(Level::MoveTime(n))
        } else if obj.contains_key("depth") {
            let n = num("depth")?;
            check_depth(n)?;
            Ok(Level::Depth(n as i32))
        } else if obj.contains_key("nodes") {
            let n = num("nodes")?;
            if !(NODES_RANGE.0..=NODES_RANGE.1).contains(&n) {
                return Err(format!(
                    "level.nodes {n} is out of range ({} to {})",
                    NODES_RANGE.0, NODES_RANGE.1
                ));
            }
            Ok(Level::Nodes(n))
        } else {
            Err("level must have one of movetime_ms, depth, nodes".into())
        }
    }

    /// The level as JSON, as [`Level::from_json`] reads it.
    pub fn to_json(self) -> Value {
        match self {
            Level::MoveTime(n) => json!({ "movetime_ms": n }),
            Level::Depth(n) => json!({ "depth": n }),
            Level::Nodes(n) => json!({ "nodes": n }),
        }
    }

    /// The engine's name at this level, for leaderboards and PDN.
    pub fn engine_name(self) -> String {
        match self {
            Level::MoveTime(ms) if ms % 1000 == 0 => format!("kondavo {}s", ms / 1000),
            Level::MoveTime(ms) => format!("kondavo {ms}ms"),
            Level::Depth(d) => format!("kondavo depth {d}"),
            Level::Nodes(n) => format!("kondavo {n} nodes"),
        }
    }

    /// The search limits of a move.
    pub fn limits(self) -> Limits {
        match self {
            Level::MoveTime(ms) => Limits::movetime(Duration::from_millis(ms)),
            Level::Depth(d) => Limits::depth(d),
            Level::Nodes(n) => Limits::nodes(n),
        }
    }
}

/// Checks a `movetime_ms`.
pub fn check_movetime(n: u64) -> Result<(), String> {
    if (MIN_MOVETIME_MS..=MAX_MOVETIME_MS).contains(&n) {
        Ok(())
    } else {
        Err(format!(
            "movetime_ms {n} is out of range ({MIN_MOVETIME_MS} to {MAX_MOVETIME_MS})"
        ))
    }
}

/// Checks a `depth`.
pub fn check_depth(n: u64) -> Result<(), String> {
    if (1..=MAX_DEPTH as u64).contains(&n) {
        Ok(())
    } else {
        Err(format!("depth {n} is out of range (1 to {MAX_DEPTH})"))
    }
}

/// One search's stop switch, shared by the request that started it and
/// the thread that runs it. A stop before the search starts cancels it.
#[derive(Debug, Default)]
pub struct Ticket {
    cancelled: AtomicBool,
    /// The search's result is not wanted (its socket closed, or the game
    /// moved on): nothing is played.
    dropped: AtomicBool,
    handle: Mutex<Option<crate::search::threads::SearchHandle>>,
}

impl Ticket {
    /// A new switch, not stopped.
    pub fn new() -> Arc<Ticket> {
        Arc::new(Ticket::default())
    }

    /// Stops the search (or keeps it from starting); the engine keeps the
    /// best move found so far.
    pub fn stop(&self) {
        let guard = self.handle.lock().unwrap_or_else(|e| e.into_inner());
        self.cancelled.store(true, Ordering::SeqCst);
        if let Some(h) = guard.as_ref() {
            h.stop();
        }
    }

    /// Stops the search and drops its result.
    pub fn drop_result(&self) {
        self.dropped.store(true, Ordering::SeqCst);
        self.stop();
    }

    /// Whether the result is to be dropped.
    pub fn is_dropped(&self) -> bool {
        self.dropped.load(Ordering::SeqCst)
    }

    /// Arms `session`'s stop flag for a search unless stopped already;
    /// false when the search is not to start.
    fn arm(&self, session: &dyn Session) -> bool {
        let mut guard = self.handle.lock().unwrap_or_else(|e| e.into_inner());
        if self.cancelled.load(Ordering::SeqCst) {
            return false;
        }
        let h = session.handle();
        h.arm();
        *guard = Some(h);
        true
    }
}

/// The searches' slots, their queue and the sessions kept between
/// searches.
#[derive(Debug)]
pub struct Pool {
    slots: Arc<Semaphore>,
    /// Concurrent searches allowed.
    pub max: usize,
    /// Searches allowed to wait for a slot.
    pub max_queue: usize,
    waiting: AtomicUsize,
    running: Arc<AtomicUsize>,
    hash_mib: usize,
    sessions: Mutex<HashMap<Variant, Vec<Box<dyn Session>>>>,
    chooser: Mutex<Chooser>,
    /// Whether games play from the embedded opening books.
    pub book: bool,
}

impl std::fmt::Debug for dyn Session {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Session({})", self.variant())
    }
}

/// A search slot, held while a search runs.
#[derive(Debug)]
pub struct Slot {
    _permit: OwnedSemaphorePermit,
    running: Arc<AtomicUsize>,
}

impl Drop for Slot {
    fn drop(&mut self) {
        self.running.fetch_sub(1, Ordering::SeqCst);
    }
}

/// Counts a waiting search while it waits, even when its task is dropped.
struct Waiting<'a>(&'a AtomicUsize);

impl Drop for Waiting<'_> {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::SeqCst);
    }
}

impl Pool {
    /// `max` concurrent searches, `max_queue` waiting, sessions of
    /// `hash_mib` MiB.
    pub fn new(max: usize, max_queue: usize, hash_mib: usize, book: bool) -> Pool {
        Pool {
            slots: Arc::new(Semaphore::new(max.max(1))),
            max: max.max(1),
            max_queue,
            waiting: AtomicUsize::new(0),
            running: Arc::new(AtomicUsize::new(0)),
            hash_mib,
            sessions: Mutex::new(HashMap::new()),
            chooser: Mutex::new(Chooser::new(DEFAULT_MARGIN, crate::book::clock_seed())),
            book,
        }
    }

    /// The hash table size of each search, in MiB.
    pub fn hash_mib(&self) -> usize {
        self.hash_mib
    }

    /// Searches running and waiting.
    pub fn load(&self) -> (usize, usize) {
        (
            self.running.load(Ordering::SeqCst),
            self.waiting.load(Ordering::SeqCst),
        )
    }

    /// A search slot: at once when one is free; else, when the queue has
    /// room, `queued` is told how many searches are ahead and the slot
    /// comes when free; else an error saying the server is busy.
    pub async fn slot(&self, queued: impl FnOnce(usize)) -> Result<Slot, String> {
        let permit = match self.slots.clone().try_acquire_owned() {
            Ok(p) => p,
            Err(_) => {
                let ahead = self.waiting.fetch_add(1, Ordering::SeqCst);
                let guard = Waiting(&self.waiting);
                if ahead >= self.max_queue {
                    return Err(format!(
                        "the server is busy: {ahead} searches wait already; try again later"
                    ));
                }
                queued(ahead + self.running.load(Ordering::SeqCst).min(self.max));
                let p = self
                    .slots
                    .clone()
                    .acquire_owned()
                    .await
                    .map_err(|_| "the server is shutting down".to_string())?;
                drop(guard);
                p
            }
        };
        self.running.fetch_add(1, Ordering::SeqCst);
        Ok(Slot {
            _permit: permit,
            running: self.running.clone(),
        })
    }

    fn take_session(&self, v: Variant) -> Result<Box<dyn Session>, String> {
        let kept = self
            .sessions
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get_mut(&v)
            .and_then(Vec::pop);
        match kept {
            Some(s) => Ok(s),
            None => new_session(v, 1, self.hash_mib),
        }
    }

    fn put_session(&self, s: Box<dyn Session>) {
        let mut map = self.sessions.lock().unwrap_or_else(|e| e.into_inner());
        let list = map.entry(s.variant()).or_default();
        // Sessions beyond the slots would only hold memory.
        if list.len() < self.max {
            list.push(s);
        }
    }
}

/// What to search: a variant's position after moves, and how.
#[derive(Clone, Debug)]
pub struct SearchSpec {
    /// The rule set.
    pub variant: Variant,
    /// The start position (FEN).
    pub start_fen: String,
    /// Moves from it, in any notation the engine reads.
    pub moves: Vec<String>,
    /// Limits; none at all is an analysis until stopped (capped).
    pub limits: Limits,
    /// Lines searched.
    pub multipv: usize,
    /// Play from the opening book when it has the position.
    pub book: bool,
}

/// The end of a search.
#[derive(Clone, Debug)]
pub struct SearchOutcome {
    /// The best move in PDN (from [`board::move_text`]), if any.
    pub best: Option<String>,
    /// The score of the best line (White's view), when the search gave one.
    pub score: Option<Value>,
    /// Whether the move came from the book.
    pub book: bool,
}

/// A search's messages: each `info` as JSON (without `type`).
pub type InfoSink = Box<dyn FnMut(Value) + Send>;

/// Runs a search on a blocking thread through a [`Session`], under a slot
/// already held. `info` gets each Hub info line, turned into JSON with
/// the line in PDN and the score from White's view. `None` when the
/// ticket stopped it before it began.
pub async fn search(
    pool: Arc<Pool>,
    slot: Slot,
    spec: SearchSpec,
    ticket: Arc<Ticket>,
    info: InfoSink,
) -> Result<Option<SearchOutcome>, String> {
    tokio::task::spawn_blocking(move || {
        let _slot = slot;
        with_rules!(spec.variant, R => search_blocking::<R>(&pool, &spec, &ticket, info))
    })
    .await
    .map_err(|e| format!("search failed: {e}"))?
}

fn search_blocking<R: Rules>(
    pool: &Pool,
    spec: &SearchSpec,
    ticket: &Ticket,
    mut info: InfoSink,
) -> Result<Option<SearchOutcome>, String> {
    let line: Line<R> = board::replay_line(Some(&spec.start_fen), &spec.moves)?;
    let root = *line.game.position();
    let hub_moves: Vec<String> = line.game.moves().iter().map(move_to_hub::<R>).collect();
    let mut session = pool.take_session(spec.variant)?;
    if let Err(e) = session.set_position(
        None,
        Some(&write_fen(&line.start)),
        Some(&hub_moves.join(" ")),
    ) {
        pool.put_session(session);
        return Err(e);
    }
    let mut last_score: Option<Value> = None;
    let mut handle_line = |text: &str, book: bool, last: &mut Option<Value>| {
        if let Some(v) = info_json::<R>(&root, text, book) {
            if v["multipv"].as_u64().unwrap_or(1) == 1 {
                *last = Some(v["score"].clone());
            }
            info(v);
        }
    };
    if spec.book && pool.book {
        if let Some(book) = crate::book::embedded::book(spec.variant) {
            let pick = {
                let mut chooser = pool.chooser.lock().unwrap_or_else(|e| e.into_inner());
                session.book_move(&book, &mut chooser)
            };
            if let Some((info_line, done)) = pick {
                handle_line(&info_line, true, &mut last_score);
                let best = done_move::<R>(&root, &done);
                pool.put_session(session);
                return Ok(Some(SearchOutcome {
                    best,
                    score: last_score,
                    book: true,
                }));
            }
        }
    }
    if !ticket.arm(session.as_ref()) {
        pool.put_session(session);
        return Ok(None);
    }
    let mut limits = spec.limits.clone();
    let unlimited = limits.depth.is_none()
        && limits.nodes.is_none()
        && limits.movetime.is_none()
        && limits.time.is_none();
    if unlimited {
        limits.movetime = Some(INFINITE_CAP);
    }
    let done = session.go(
        limits,
        false,
        spec.multipv.clamp(1, MAX_MULTIPV),
        Instant::now(),
        &mut |l| handle_line(&l, false, &mut last_score),
    );
    pool.put_session(session);
    Ok(Some(SearchOutcome {
        best: done_move::<R>(&root, &done),
        score: last_score,
        book: false,
    }))
}

/// The move of a Hub `done` line, in PDN.
fn done_move<R: Rules>(root: &Position<R>, done: &str) -> Option<String> {
    let cmd = tokenize(done).ok()?;
    let mv = parse_hub_move(root, cmd.get("move")?).ok()?;
    Some(board::move_text(root, &mv))
}

/// A Hub score (`0.35`, `-99.93` for a loss in 7 plies) for the side to
/// move `side`, as a score object from White's view.
pub fn hub_score_json(text: &str, side: Color) -> Option<Value> {
    let x: f64 = text.parse().ok()?;
    if !x.is_finite() {
        return None;
    }
    let sign = if side == Color::White { 1.0 } else { -1.0 };
    let white = x * sign;
    if x.abs() > 90.0 {
        let plies = (10_000.0 - (x.abs() * 100.0).round()) as i64;
        let who = if white > 0.0 { "White" } else { "Black" };
        return Some(json!({
            "cp": if white > 0.0 { 10000 } else { -10000 },
            "win_in": if white > 0.0 { plies } else { -plies },
            "text": format!("{who} wins in {plies}"),
        }));
    }
    let cp = (white * 100.0).round() as i64;
    Some(json!({
        "cp": cp,
        "win_in": null,
        "text": format!("{:+.2}", cp as f64 / 100.0),
    }))
}

/// A Hub `info` line as the page's JSON: the line in PDN from `root`, the
/// score from White's view. `None` for a line that does not read.
fn info_json<R: Rules>(root: &Position<R>, text: &str, book: bool) -> Option<Value> {
    let cmd = tokenize(text).ok()?;
    if cmd.name != "info" {
        return None;
    }
    let num = |k: &str| cmd.get(k).and_then(|v| v.parse::<f64>().ok());
    let mut p = *root;
    let mut pv = Vec::new();
    for t in cmd.get("pv").unwrap_or("").split_whitespace() {
        let Ok(m) = parse_hub_move(&p, t) else { break };
        pv.push(board::move_text(&p, &m));
        p.play(&m);
    }
    let nodes = num("nodes").unwrap_or(0.0);
    let secs = num("time").unwrap_or(0.0);
    let nps = if secs > 0.0 { nodes / secs } else { 0.0 };
    Some(json!({
        "depth": num("depth").unwrap_or(0.0) as i64,
        "score": hub_score_json(cmd.get("score")?, root.side())?,
        "pv": pv,
        "multipv": num("multipv").unwrap_or(1.0) as i64,
        "nodes": nodes as u64,
        "nps": nps.round() as u64,
        "time_ms": (secs * 1000.0).round() as u64,
        "book": book,
    }))
}
