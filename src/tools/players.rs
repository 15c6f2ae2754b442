//! Players for matches: kondavo's own search in-process, or any engine
//! speaking Hub in a child process.
//!
//! An engine is described by one string (protocol.md, "Match"):
//! - `kondavo` or `kondavo:<options>`: kondavo's search in this process;
//! - `cmd=<command line>,<options>`: a Hub engine with options;
//! - anything else: a Hub engine's command line (`dame hub`).
//!
//! Options are `key=value` separated by commas (a value may be quoted with
//! `'` or `"` to hold commas): `name`, `threads`, `hash`, `depth`, `nodes`,
//! `history` (`reversible` or `game`) and `param.<name>` (sent to a Hub
//! engine as `set-param`).

use std::fs::File;
use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{channel, Receiver, RecvTimeoutError};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crate::eval::Evaluate;
use crate::movegen::Move;
use crate::position::Position;
use crate::protocol::hub::hub_variant_name;
use crate::protocol::hubpos::{move_to_hub, parse_hub_move, write_hub_pos};
use crate::protocol::{quote, tokenize};
use crate::search::threads::{Searcher, DEFAULT_HASH_MIB};
use crate::search::{Job, Limits, WIN, WIN_BOUND};
use crate::Variant;

/// Which moves a Hub engine is sent with each position.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum History {
    /// The position after the last capture or man move, and the moves
    /// since (as lidraughts sends): enough for the repetition rule.
    #[default]
    Reversible,
    /// The game's initial position and every move since (as pydraughts
    /// sends), for engines that keep their own game history.
    Game,
}

/// Where an engine runs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EngineKind {
    /// kondavo's search in this process.
    Internal,
    /// A Hub engine started with this command line.
    External {
        /// Program and arguments.
        argv: Vec<String>,
    },
}

/// An engine and its options.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EngineSpec {
    /// In-process or a child process.
    pub kind: EngineKind,
    /// The name in tables and PDN tags; by default the engine's `id name=`
    /// (external) or `kondavo` with its non-default options (internal).
    pub name: Option<String>,
    /// Search threads (internal default 1; sent as `set-param name=threads`
    /// to an external engine when given).
    pub threads: Option<usize>,
    /// Hash MiB (internal default [`DEFAULT_HASH_MIB`]; sent as
    /// `set-param name=hash` to an external engine when given).
    pub hash: Option<usize>,
    /// Fixed depth per move instead of the time control.
    pub depth: Option<i32>,
    /// Fixed nodes per move instead of the time control.
    pub nodes: Option<u64>,
    /// The moves sent with each position (external engines).
    pub history: History,
    /// Other parameters, sent in this order as `set-param` (external).
    pub params: Vec<(String, String)>,
    /// Play from the engine's opening book (`book=on`); off when not given,
    /// as the match supplies the openings.
    pub book: Option<bool>,
    /// This engine's own clock (`tc=10+0.1`) instead of the match's, for
    /// time-odds games.
    pub tc: Option<TimeControl>,
}

/// Removes one pair of matching quotes around `v`.
fn unquote(v: &str) -> &str {
    let v = v.trim();
    for q in ['\'', '"'] {
        if v.len() >= 2 && v.starts_with(q) && v.ends_with(q) {
            return &v[1..v.len() - 1];
        }
    }
    v
}

/// Splits `key=value,key=value` on commas outside quotes.
fn split_options(text: &str) -> Result<Vec<(String, String)>, String> {
    let mut items = Vec::new();
    let mut cur = String::new();
    let mut quote_char: Option<char> = None;
    for c in text.chars() {
        match (quote_char, c) {
            (Some(q), c) if c == q => {
                quote_char = None;
                cur.push(c);
            }
            (None, '\'' | '"') => {
                quote_char = Some(c);
                cur.push(c);
            }
            (None, ',') => items.push(std::mem::take(&mut cur)),
            _ => cur.push(c),
        }
    }
    if quote_char.is_some() {
        return Err(format!("unterminated quote in '{text}'"));
    }
    items.push(cur);
    items
        .into_iter()
        .filter(|s| !s.trim().is_empty())
        .map(|kv| {
            let (k, v) = kv
                .split_once('=')
                .ok_or_else(|| format!("engine option '{}' must be key=value", kv.trim()))?;
            Ok((k.trim().to_string(), v.trim().to_string()))
        })
        .collect()
}

impl EngineSpec {
    fn new(kind: EngineKind) -> Self {
        EngineSpec {
            kind,
            name: None,
            threads: None,
            hash: None,
            depth: None,
            nodes: None,
            history: History::Reversible,
            params: Vec::new(),
            book: None,
            tc: None,
        }
    }

    /// Reads an engine description (see the module documentation).
    pub fn parse(text: &str) -> Result<EngineSpec, String> {
        let t = text.trim();
        if t.is_empty() {
            return Err("empty engine command".into());
        }
        if t == "kondavo" {
            return Ok(EngineSpec::new(EngineKind::Internal));
        }
        if let Some(opts) = t.strip_prefix("kondavo:") {
            let mut spec = EngineSpec::new(EngineKind::Internal);
            spec.apply(opts)?;
            return Ok(spec);
        }
        if t.starts_with("cmd=") {
            let mut items = split_options(t)?.into_iter();
            let (_, cmd) = items.next().ok_or("empty engine command")?;
            let mut spec = EngineSpec::new(EngineKind::External {
                argv: split_command(&cmd)?,
            });
            for (k, v) in items {
                spec.set(&k, &v)?;
            }
            return Ok(spec);
        }
        Ok(EngineSpec::new(EngineKind::External {
            argv: split_command(t)?,
        }))
    }

    /// Applies options given as `key=value[,key=value...]`.
    pub fn apply(&mut self, options: &str) -> Result<(), String> {
        for (k, v) in split_options(options)? {
            self.set(&k, &v)?;
        }
        Ok(())
    }

    /// Sets one option.
    fn set(&mut self, key: &str, value: &str) -> Result<(), String> {
        let v = unquote(value);
        let bad = |what: &str| format!("engine option {key}={value}: {what}");
        fn int<T: std::str::FromStr + PartialOrd>(v: &str, lo: T, hi: T) -> Option<T> {
            v.parse().ok().filter(|n| *n >= lo && *n <= hi)
        }
        match key {
            "name" => {
                if v.trim().is_empty() {
                    return Err(bad("the name is empty"));
                }
                self.name = Some(v.trim().to_string());
            }
            "threads" => {
                self.threads = Some(int(v, 1, 256).ok_or_else(|| bad("expected 1 to 256"))?)
            }
            "hash" => {
                self.hash =
                    Some(int(v, 1, usize::MAX).ok_or_else(|| bad("expected a number of MiB"))?);
                if let Some(mib) = self.hash {
                    crate::tt::check_hash_mib(mib).map_err(|e| bad(&e))?;
                }
            }
            "depth" => self.depth = Some(int(v, 1, 120).ok_or_else(|| bad("expected 1 to 120"))?),
            "nodes" => {
                self.nodes =
                    Some(int(v, 1, u64::MAX).ok_or_else(|| bad("expected a positive count"))?)
            }
            "history" => {
                self.history = match v {
                    "reversible" => History::Reversible,
                    "game" => History::Game,
                    _ => return Err(bad("expected 'reversible' or 'game'")),
                }
            }
            "book" => {
                self.book = Some(match v {
                    "on" | "true" => true,
                    "off" | "false" => false,
                    _ => return Err(bad("expected 'on' or 'off'")),
                })
            }
            "tc" => match v.parse::<TimeControl>() {
                Ok(tc @ TimeControl::Clock { .. }) => self.tc = Some(tc),
                Ok(_) => return Err(bad("expected a clock, <base>+<inc> in seconds")),
                Err(e) => return Err(bad(&e)),
            },
            "cmd" => return Err(bad("cmd= must come first, as in cmd=\"dame hub\",hash=64")),
            _ => {
                let Some(param) = key.strip_prefix("param.") else {
                    return Err(format!(
                        "unknown engine option '{key}' (name, threads, hash, depth, nodes, tc, history, book, param.<name>)"
                    ));
                };
                if self.kind == EngineKind::Internal {
                    return Err(bad(
                        "param.<name> is for Hub engines; kondavo takes threads, hash, depth, nodes, tc, book",
                    ));
                }
                let plain = |c: char| !c.is_control() && !c.is_whitespace() && c != '=' && c != '"';
                if param.is_empty() || !param.chars().all(plain) {
                    return Err(bad("a parameter name is one word"));
                }
                self.params.push((param.to_string(), v.to_string()));
            }
        }
        Ok(())
    }

    /// The name when neither `name=` nor the engine gives one: `kondavo`
    /// with its non-default options, or the program's file name.
    pub fn default_name(&self) -> String {
        match &self.kind {
            EngineKind::Internal => {
                let mut opts = Vec::new();
                if let Some(t) = self.threads.filter(|&t| t != 1) {
                    opts.push(format!("threads={t}"));
                }
                if let Some(h) = self.hash.filter(|&h| h != DEFAULT_HASH_MIB) {
                    opts.push(format!("hash={h}"));
                }
                if let Some(d) = self.depth {
                    opts.push(format!("depth={d}"));
                }
                if let Some(n) = self.nodes {
                    opts.push(format!("nodes={n}"));
                }
                if let Some(tc) = &self.tc {
                    opts.push(format!("tc={}", tc.tag()));
                }
                if self.book == Some(true) {
                    opts.push("book=on".into());
                }
                if opts.is_empty() {
                    "kondavo".into()
                } else {
                    format!("kondavo:{}", opts.join(","))
                }
            }
            EngineKind::External { argv } => std::path::Path::new(&argv[0])
                .file_name()
                .map(|f| f.to_string_lossy().to_string())
                .unwrap_or_else(|| argv[0].clone()),
        }
    }

    /// The command line of an external engine, `kondavo` for the internal
    /// one.
    pub fn command(&self) -> String {
        match &self.kind {
            EngineKind::Internal => "kondavo (in-process)".into(),
            EngineKind::External { argv } => argv.join(" "),
        }
    }

    /// Whether moves are searched to a fixed depth or node count instead
    /// of by the clock.
    pub fn fixed_limits(&self) -> bool {
        self.depth.is_some() || self.nodes.is_some()
    }
}

/// Splits a command line on blanks, honouring single and double quotes.
pub fn split_command(t: &str) -> Result<Vec<String>, String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut quote: Option<char> = None;
    let mut any = false;
    for c in t.chars() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), c) => cur.push(c),
            (None, '"') | (None, '\'') => {
                quote = Some(c);
                any = true;
            }
            (None, c) if c.is_whitespace() => {
                if any || !cur.is_empty() {
                    out.push(std::mem::take(&mut cur));
                    any = false;
                }
            }
            (None, c) => cur.push(c),
        }
    }
    if quote.is_some() {
        return Err(format!("unterminated quote in '{t}'"));
    }
    if any || !cur.is_empty() {
        out.push(cur);
    }
    if out.is_empty() {
        return Err("empty engine command".into());
    }
    Ok(out)
}

/// The time control of a game.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TimeControl {
    /// Fixed time per move.
    PerMove(Duration),
    /// A clock per player: base time and increment per move.
    Clock {
        /// Starting time.
        base: Duration,
        /// Added after each move.
        inc: Duration,
    },
}

impl TimeControl {
    /// The PDN `TimeControl` tag's text: `5+0.05`, or `0.1/move`.
    pub fn tag(&self) -> String {
        match self {
            TimeControl::PerMove(t) => format!("{}/move", t.as_secs_f64()),
            TimeControl::Clock { base, inc } => {
                format!("{}+{}", base.as_secs_f64(), inc.as_secs_f64())
            }
        }
    }
}

impl std::str::FromStr for TimeControl {
    type Err = String;
    /// `<base>+<inc>` in seconds (`5+0.05`), or `<base>` alone.
    fn from_str(s: &str) -> Result<Self, String> {
        let num = |x: &str| -> Result<Duration, String> {
            let v: f64 = x
                .trim()
                .parse()
                .map_err(|_| format!("time control '{s}': '{x}' is not a number of seconds"))?;
            if !v.is_finite() || !(0.0..=1e9).contains(&v) {
                return Err(format!(
                    "time control '{s}': '{x}' must be a non-negative number"
                ));
            }
            Ok(Duration::from_secs_f64(v))
        };
        match s.split_once('+') {
            Some((b, i)) => Ok(TimeControl::Clock {
                base: num(b)?,
                inc: num(i)?,
            }),
            None => Ok(TimeControl::Clock {
                base: num(s)?,
                inc: Duration::ZERO,
            }),
        }
    }
}

/// Why a player produced no move; each loses the game by forfeit.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PlayerError {
    /// The engine sent something that is not a legal move (what it sent).
    Illegal(String),
    /// The engine did not move in time but still answers.
    TimeForfeit(String),
    /// The engine cannot start, exited, or stopped answering: it is
    /// restarted for its next game and the failure counts towards
    /// `--max-failures`.
    Failure(String),
}

impl PlayerError {
    /// Whether the engine itself failed (not only this move).
    pub fn is_failure(&self) -> bool {
        matches!(self, PlayerError::Failure(_))
    }
}

impl std::fmt::Display for PlayerError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            PlayerError::Illegal(m) | PlayerError::TimeForfeit(m) | PlayerError::Failure(m) => {
                write!(f, "{m}")
            }
        }
    }
}

/// A move and the score the player gave it (centi-men, side to move; wins
/// as in the search), when it reported one.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Played {
    /// The move.
    pub mv: Move,
    /// The engine's score for it.
    pub score: Option<i32>,
}

/// Something that plays moves.
pub trait Player<R: Evaluate>: Send {
    /// Starts the engine (process and handshake) if it is not running.
    fn start(&mut self) -> Result<(), PlayerError> {
        Ok(())
    }
    /// The name the engine gave for itself (`id name=`), once started.
    fn id_name(&self) -> Option<String> {
        None
    }
    /// A new game starts (an engine that died since is restarted).
    fn new_game(&mut self) -> Result<(), PlayerError>;
    /// Chooses a move in the position reached from `start` by `moves`, with
    /// `limits` (clock or move time). `history`/`reversible` describe the
    /// game history for the draw rules.
    fn think(
        &mut self,
        start: &Position<R>,
        moves: &[Move],
        history: &[u64],
        reversible: u32,
        limits: &Limits,
    ) -> Result<Played, PlayerError>;
}

/// Default margin added to a move's time before the mover loses on time,
/// for process and pipe latency outside its control.
pub const DEFAULT_TIME_MARGIN: Duration = Duration::from_millis(200);

/// How long a Hub engine gets to answer `stop` after its time ran out
/// before it is taken for hung and killed.
pub const STOP_WAIT: Duration = Duration::from_secs(2);

/// How long a move at a fixed depth or node count may take before the
/// engine is taken for hung.
pub const FIXED_SEARCH_LIMIT: Duration = Duration::from_secs(600);

/// kondavo's own search.
#[derive(Debug)]
pub struct InternalPlayer<R: Evaluate> {
    searcher: Searcher<R>,
    hash_mib: usize,
    depth: Option<i32>,
    nodes: Option<u64>,
    /// The embedded book, with `book=on`.
    book: Option<std::sync::Arc<crate::book::Book>>,
    chooser: crate::book::Chooser,
}

/// Seed of an in-process engine's choice among book moves: fixed, so a
/// match replays (with one game at a time).
const BOOK_SEED: u64 = 1;

impl<R: Evaluate> InternalPlayer<R> {
    /// A player for an internal spec (threads 1 and the usual hash unless
    /// given).
    pub fn new(spec: &EngineSpec) -> Self {
        let hash_mib = spec.hash.unwrap_or(DEFAULT_HASH_MIB);
        InternalPlayer {
            searcher: Searcher::new(spec.threads.unwrap_or(1), hash_mib),
            hash_mib,
            depth: spec.depth,
            nodes: spec.nodes,
            book: if spec.book == Some(true) {
                R::NAME
                    .parse::<Variant>()
                    .ok()
                    .and_then(crate::book::embedded::book)
            } else {
                None
            },
            chooser: crate::book::Chooser::new(crate::book::DEFAULT_MARGIN, BOOK_SEED),
        }
    }

    /// Whether it plays from a book.
    pub fn has_book(&self) -> bool {
        self.book.is_some()
    }
}

impl<R: Evaluate> InternalPlayer<R> {
    /// The size of its hash table in MiB.
    pub fn hash_mib(&self) -> usize {
        self.hash_mib
    }
}

impl<R: Evaluate> Player<R> for InternalPlayer<R> {
    fn new_game(&mut self) -> Result<(), PlayerError> {
        self.searcher.clear();
        Ok(())
    }

    fn think(
        &mut self,
        start: &Position<R>,
        moves: &[Move],
        history: &[u64],
        reversible: u32,
        limits: &Limits,
    ) -> Result<Played, PlayerError> {
        let mut root = *start;
        for m in moves {
            root.play(m);
        }
        if let Some(book) = &self.book {
            let ply = (start.key() == Position::<R>::start().key())
                .then_some(moves.len())
                .or_else(|| root.opening_plies());
            if let Some(bm) = self.chooser.choose(book, &root, ply) {
                return Ok(Played {
                    mv: bm.mv,
                    score: Some(bm.score),
                });
            }
        }
        let mut limits = limits.clone();
        if self.depth.is_some() || self.nodes.is_some() {
            limits = Limits {
                depth: self.depth,
                nodes: self.nodes,
                ..Default::default()
            };
        }
        let job = Job {
            root,
            history: history.to_vec(),
            reversible,
            limits,
            multipv: 1,
            start: Instant::now(),
            ponder: false,
        };
        let r = self.searcher.search(&job, &mut |_| {});
        match r.best {
            Some(mv) => Ok(Played {
                mv,
                score: Some(r.score),
            }),
            None => Err(PlayerError::Failure(
                "no move in a position with legal moves".into(),
            )),
        }
    }
}

/// The file external engines' standard error goes to, one line per line
/// written, prefixed by the engine and its process id; start and exit
/// events are logged too.
#[derive(Debug)]
pub struct EngineLog {
    file: Mutex<File>,
}

impl EngineLog {
    /// Opens `path`, emptied unless `append`.
    pub fn open(path: &str, append: bool) -> Result<Arc<EngineLog>, String> {
        let file = std::fs::OpenOptions::new()
            .create(true)
            .write(true)
            .append(append)
            .truncate(!append)
            .open(path)
            .map_err(|e| format!("engine log {path}: {e}"))?;
        Ok(Arc::new(EngineLog {
            file: Mutex::new(file),
        }))
    }

    /// Writes one line (errors writing the log are ignored: the log must
    /// not stop a match).
    pub fn line(&self, who: &str, text: &str) {
        if let Ok(mut f) = self.file.lock() {
            let _ = writeln!(f, "[{who}] {text}");
            let _ = f.flush();
        }
    }
}

/// What every Hub engine of a match is given.
#[derive(Clone, Debug)]
pub struct HubConfig {
    /// Rule set, sent as `set-param name=variant`.
    pub variant: Variant,
    /// Margin added to the time of a move before the engine is sent `stop`.
    pub time_margin: Duration,
    /// Limit on each of `hub` → `wait`, `init` → `ready` and `ping` →
    /// `pong`.
    pub start_timeout: Duration,
    /// Where standard error goes (nowhere when `None`).
    pub log: Option<Arc<EngineLog>>,
}

/// What the engine answered to `hub`.
#[derive(Clone, Debug, Default)]
struct Declared {
    name: Option<String>,
    /// Parameter names and their `values=` (enums).
    params: Vec<(String, Option<String>)>,
}

/// A Hub engine in a child process.
#[derive(Debug)]
pub struct HubPlayer {
    spec: EngineSpec,
    argv: Vec<String>,
    cfg: HubConfig,
    child: Option<Child>,
    stdin: Option<ChildStdin>,
    lines: Option<Receiver<String>>,
    declared: Declared,
    /// The last `error` line of the engine, for the reason of an illegal
    /// move that follows it.
    last_error: Option<String>,
}

impl HubPlayer {
    /// Starts nothing yet: the process starts with [`Player::start`] or at
    /// the first game.
    pub fn new(spec: &EngineSpec, cfg: &HubConfig) -> Self {
        let argv = match &spec.kind {
            EngineKind::External { argv } => argv.clone(),
            EngineKind::Internal => vec!["kondavo".into(), "hub".into()],
        };
        HubPlayer {
            spec: spec.clone(),
            argv,
            cfg: cfg.clone(),
            child: None,
            stdin: None,
            lines: None,
            declared: Declared::default(),
            last_error: None,
        }
    }

    /// Label of log lines: `name=` or the program's file name, and the
    /// process id.
    fn who(&self) -> String {
        let name = self
            .spec
            .name
            .clone()
            .unwrap_or_else(|| self.spec.default_name());
        match &self.child {
            Some(c) => format!("{name} {}", c.id()),
            None => name,
        }
    }

    fn log(&self, text: &str) {
        if let Some(log) = &self.cfg.log {
            log.line(&self.who(), text);
        }
    }

    fn running(&mut self) -> bool {
        match self.child.as_mut() {
            Some(c) => matches!(c.try_wait(), Ok(None)),
            None => false,
        }
    }

    /// `" (exit status: ...)"` once the process has ended (waiting a
    /// little for it), else empty.
    fn exit_note(&mut self) -> String {
        let Some(c) = self.child.as_mut() else {
            return String::new();
        };
        let deadline = Instant::now() + Duration::from_millis(300);
        loop {
            match c.try_wait() {
                Ok(Some(st)) => return format!(" ({st})"),
                Ok(None) if Instant::now() < deadline => {
                    std::thread::sleep(Duration::from_millis(5))
                }
                _ => return String::new(),
            }
        }
    }

    /// A failure: the process is ended, so the next game restarts it.
    fn fail(&mut self, what: &str) -> PlayerError {
        let note = self.exit_note();
        let text = format!("{what}{note}");
        self.log(&text);
        self.stop();
        PlayerError::Failure(text)
    }

    /// Writes a line; false when the engine's input is closed.
    fn write_line(&mut self, line: &str) -> bool {
        match self.stdin.as_mut() {
            Some(stdin) => writeln!(stdin, "{line}")
                .and_then(|_| stdin.flush())
                .is_ok(),
            None => false,
        }
    }

    fn send(&mut self, line: &str) -> Result<(), PlayerError> {
        if self.write_line(line) {
            Ok(())
        } else {
            Err(self.fail(&format!("the engine exited before reading '{line}'")))
        }
    }

    /// The next line before `deadline`: `Ok(None)` on timeout, a failure
    /// when the engine's output ended.
    fn recv(
        &mut self,
        deadline: Instant,
        waiting_for: &str,
    ) -> Result<Option<String>, PlayerError> {
        let Some(rx) = self.lines.as_ref() else {
            return Err(self.fail("the engine is not running"));
        };
        match rx.recv_timeout(deadline.saturating_duration_since(Instant::now())) {
            Ok(l) => {
                if l.starts_with("error") {
                    self.log(&format!("stdout: {l}"));
                    self.last_error = Some(l.clone());
                }
                Ok(Some(l))
            }
            Err(RecvTimeoutError::Timeout) => Ok(None),
            Err(RecvTimeoutError::Disconnected) => {
                Err(self.fail(&format!("the engine exited while {waiting_for}")))
            }
        }
    }

    /// Reads lines until one whose command is `word`, within the start
    /// timeout; `error` lines are failures (a parameter was refused).
    fn expect(&mut self, word: &str, after: &str) -> Result<(), PlayerError> {
        let deadline = Instant::now() + self.cfg.start_timeout;
        let waiting = format!("waiting for '{word}' after '{after}'");
        loop {
            let Some(l) = self.recv(deadline, &waiting)? else {
                return Err(self.fail(&format!(
                    "no '{word}' within {:.1} s after '{after}'",
                    self.cfg.start_timeout.as_secs_f64()
                )));
            };
            let Ok(cmd) = tokenize(&l) else { continue };
            match cmd.name.as_str() {
                w if w == word => return Ok(()),
                "error" if after != "ping" => {
                    return Err(self.fail(&format!("answered '{l}' during the handshake")))
                }
                "id" if word == "wait" => self.declared.name = cmd.get("name").map(printable),
                "param" if word == "wait" => {
                    if let Some(n) = cmd.get("name") {
                        self.declared
                            .params
                            .push((n.to_string(), cmd.get("values").map(str::to_string)));
                    }
                }
                _ => {}
            }
        }
    }

    fn declares(&self, name: &str) -> bool {
        self.declared.params.iter().any(|(n, _)| n == name)
    }

    fn declared_list(&self) -> String {
        let names: Vec<&str> = self
            .declared
            .params
            .iter()
            .map(|(n, _)| n.as_str())
            .collect();
        if names.is_empty() {
            "none".into()
        } else {
            names.join(", ")
        }
    }

    /// The `set-param` lines for the variant and the options, or why the
    /// engine cannot play with them.
    fn settings(&self) -> Result<Vec<String>, String> {
        let mut out = Vec::new();
        let variant = self.cfg.variant;
        match self.declared.params.iter().find(|(n, _)| n == "variant") {
            Some((_, values)) => {
                let value = match values {
                    Some(list) => list
                        .split_whitespace()
                        .find(|v| v.parse::<Variant>() == Ok(variant))
                        .map(str::to_string)
                        .ok_or_else(|| {
                            format!("the engine does not play {variant} (its variants: {list})")
                        })?,
                    None => hub_variant_name(variant).to_string(),
                };
                out.push(format!("set-param name=variant value={}", quote(&value)));
            }
            None if variant != Variant::International => {
                return Err(format!(
                    "the engine declares no 'variant' parameter, so it plays International draughts only, not {variant}"
                ))
            }
            None => {}
        }
        for (name, value) in [("threads", self.spec.threads), ("hash", self.spec.hash)] {
            if let Some(v) = value {
                if !self.declares(name) {
                    return Err(format!(
                        "the engine declares no '{name}' parameter (it declares: {}); use param.<name>=<value>",
                        self.declared_list()
                    ));
                }
                out.push(format!("set-param name={name} value={v}"));
            }
        }
        // The match supplies the openings: the engine's own book is off
        // unless asked for (Scan writes bools as true and false).
        if self.declares("book") {
            let on = self.spec.book == Some(true);
            out.push(format!("set-param name=book value={on}"));
        }
        for (name, value) in &self.spec.params {
            out.push(format!("set-param name={name} value={}", quote(value)));
        }
        Ok(out)
    }

    /// Starts the process and runs the handshake: `hub` up to `wait`, the
    /// `set-param` lines, `init` up to `ready`.
    fn launch(&mut self) -> Result<(), PlayerError> {
        self.stop();
        self.declared = Declared::default();
        self.last_error = None;
        let mut child = Command::new(&self.argv[0])
            .args(&self.argv[1..])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(if self.cfg.log.is_some() {
                Stdio::piped()
            } else {
                Stdio::null()
            })
            .spawn()
            .map_err(|e| {
                let text = format!("cannot start '{}': {e}", self.argv.join(" "));
                self.log(&text);
                PlayerError::Failure(text)
            })?;
        let stdout = child.stdout.take();
        let stderr = child.stderr.take();
        self.stdin = child.stdin.take();
        self.child = Some(child);
        self.log(&format!("started '{}'", self.argv.join(" ")));
        let (tx, rx) = channel();
        if let Some(stdout) = stdout {
            std::thread::spawn(move || {
                let mut reader = BufReader::new(stdout);
                while let Some(line) = read_lossy_line(&mut reader) {
                    if tx.send(line).is_err() {
                        break;
                    }
                }
            });
        }
        if let (Some(stderr), Some(log)) = (stderr, self.cfg.log.clone()) {
            let who = self.who();
            std::thread::spawn(move || {
                let mut reader = BufReader::new(stderr);
                let mut buf = Vec::new();
                loop {
                    buf.clear();
                    match reader.by_ref().take(1 << 20).read_until(b'\n', &mut buf) {
                        Ok(0) | Err(_) => break,
                        Ok(_) => {
                            let text = String::from_utf8_lossy(&buf);
                            log.line(&who, &format!("stderr: {}", text.trim_end()));
                        }
                    }
                }
            });
        }
        self.lines = Some(rx);
        // A program that exits at once may have closed its input already:
        // its ended output then says so.
        self.write_line("hub");
        self.expect("wait", "hub")?;
        let settings = self.settings().map_err(|e| self.fail(&e))?;
        for line in settings {
            self.send(&line)?;
        }
        self.send("init")?;
        self.expect("ready", "init")?;
        Ok(())
    }

    fn stop(&mut self) {
        if let Some(stdin) = self.stdin.as_mut() {
            let _ = writeln!(stdin, "quit").and_then(|_| stdin.flush());
        }
        self.stdin = None;
        if let Some(mut c) = self.child.take() {
            let deadline = Instant::now() + Duration::from_millis(500);
            let mut status = None;
            while Instant::now() < deadline {
                if let Ok(Some(st)) = c.try_wait() {
                    status = Some(st);
                    break;
                }
                std::thread::sleep(Duration::from_millis(5));
            }
            if status.is_none() {
                let _ = c.kill();
                status = c.wait().ok();
            }
            if let (Some(log), Some(st)) = (&self.cfg.log, status) {
                log.line(
                    &format!("{} {}", self.who(), c.id()),
                    &format!("exited ({st})"),
                );
            }
        }
        self.lines = None;
    }

    /// The `pos` line for the position reached from `start` by `moves`.
    fn pos_line<R: Evaluate>(&self, start: &Position<R>, moves: &[Move]) -> String {
        let (base, tail) = match self.spec.history {
            History::Game => (*start, moves),
            History::Reversible => {
                let mut base = *start;
                let mut from = 0;
                let mut pos = *start;
                for (i, m) in moves.iter().enumerate() {
                    let irreversible = pos.is_irreversible(m);
                    pos.play(m);
                    if irreversible {
                        base = pos;
                        from = i + 1;
                    }
                }
                (base, &moves[from..])
            }
        };
        if tail.is_empty() {
            format!("pos pos={}", write_hub_pos(&base))
        } else {
            let hub: Vec<String> = tail.iter().map(move_to_hub::<R>).collect();
            format!(
                "pos pos={} moves=\"{}\"",
                write_hub_pos(&base),
                hub.join(" ")
            )
        }
    }
}

impl Drop for HubPlayer {
    fn drop(&mut self) {
        self.stop();
    }
}

/// The longest line read from an engine at once; a longer one arrives in
/// pieces (and is most likely ignored), so an engine cannot fill memory.
const MAX_LINE: u64 = 1 << 20;

/// The next line of an engine's output without its line end, `None` once
/// the output ends or cannot be read. Bytes that are not UTF-8 (a Latin-1
/// name, say) become U+FFFD: the engine plays on.
fn read_lossy_line(reader: &mut impl BufRead) -> Option<String> {
    let mut buf = Vec::new();
    match reader.by_ref().take(MAX_LINE).read_until(b'\n', &mut buf) {
        Ok(0) | Err(_) => None,
        Ok(_) => {
            while buf.last().is_some_and(|&b| b == b'\n' || b == b'\r') {
                buf.pop();
            }
            Some(String::from_utf8_lossy(&buf).into_owned())
        }
    }
}

/// `text` with its control characters escaped (`\u{1b}`), for a name
/// shown on the terminal and written to the PDN.
fn printable(text: &str) -> String {
    text.chars()
        .map(|c| {
            if c.is_control() {
                c.escape_debug().to_string()
            } else {
                c.to_string()
            }
        })
        .collect()
}

/// Reads a Hub score (men) into centi-men, wins as search scores.
fn hub_score(text: &str) -> Option<i32> {
    let men: f64 = text.parse().ok().filter(|m: &f64| m.is_finite())?;
    let x = (men * 100.0).round().clamp(-1e6, 1e6) as i32;
    Some(if x > 9000 {
        WIN - (10_000 - x).max(0)
    } else if x < -9000 {
        -WIN + (10_000 + x).max(0)
    } else {
        x.clamp(-WIN_BOUND, WIN_BOUND)
    })
}

fn secs(d: Duration) -> String {
    format!("{:.3}", d.as_secs_f64())
}

impl<R: Evaluate> Player<R> for HubPlayer {
    fn start(&mut self) -> Result<(), PlayerError> {
        if self.running() {
            return Ok(());
        }
        self.launch()
    }

    fn id_name(&self) -> Option<String> {
        self.declared.name.clone()
    }

    fn new_game(&mut self) -> Result<(), PlayerError> {
        if !self.running() {
            if self.child.is_some() {
                let note = self.exit_note();
                self.log(&format!(
                    "found not running before a game{note}; restarting"
                ));
            }
            self.launch()?;
        }
        self.last_error = None;
        self.send("new-game")?;
        self.send("ping")?;
        self.expect("pong", "ping")
    }

    fn think(
        &mut self,
        start: &Position<R>,
        moves: &[Move],
        _history: &[u64],
        _reversible: u32,
        limits: &Limits,
    ) -> Result<Played, PlayerError> {
        if !self.running() {
            return Err(self.fail("the engine is not running"));
        }
        let mut pos = *start;
        for m in moves {
            pos.play(m);
        }
        let line = self.pos_line(start, moves);
        self.send(&line)?;
        // Hub adds the increment before every move: the clock goes without.
        let budget = if self.spec.fixed_limits() {
            if let Some(d) = self.spec.depth {
                self.send(&format!("level depth={d}"))?;
            }
            if let Some(n) = self.spec.nodes {
                self.send(&format!("level nodes={n}"))?;
            }
            FIXED_SEARCH_LIMIT
        } else {
            match (limits.time, limits.movetime) {
                (Some(t), _) => {
                    let clock = t.saturating_sub(limits.inc);
                    self.send(&format!(
                        "level time={} inc={}",
                        secs(clock),
                        secs(limits.inc)
                    ))?;
                    t
                }
                (None, Some(mt)) => {
                    self.send(&format!("level move-time={}", secs(mt)))?;
                    mt
                }
                _ => {
                    self.send("level move-time=1")?;
                    Duration::from_secs(1)
                }
            }
        };
        self.last_error = None;
        let started = Instant::now();
        self.send("go think")?;
        let mut deadline = started + budget + self.cfg.time_margin;
        let mut stopped = false;
        let mut score = None;
        loop {
            let Some(line) = self.recv(deadline, "thinking")? else {
                if stopped {
                    return Err(self.fail(&format!(
                        "no 'done' {:.1} s after 'stop' (hung)",
                        STOP_WAIT.as_secs_f64()
                    )));
                }
                self.send("stop")?;
                stopped = true;
                deadline = Instant::now() + STOP_WAIT;
                continue;
            };
            let Ok(cmd) = tokenize(&line) else { continue };
            match cmd.name.as_str() {
                "info" => {
                    if let Some(s) = cmd.get("score").and_then(hub_score) {
                        score = Some(s);
                    }
                }
                "done" => {
                    if stopped {
                        return Err(PlayerError::TimeForfeit(format!(
                            "no move within {:.3} s (and a margin of {:.3} s)",
                            budget.as_secs_f64(),
                            self.cfg.time_margin.as_secs_f64()
                        )));
                    }
                    let note = match &self.last_error {
                        Some(e) => format!(" (after the engine said: {e})"),
                        None => String::new(),
                    };
                    let Some(text) = cmd.get("move").map(str::to_string) else {
                        return Err(PlayerError::Illegal(format!(
                            "sent '{line}' without a move{note}"
                        )));
                    };
                    return match parse_hub_move(&pos, &text) {
                        Ok(mv) => Ok(Played { mv, score }),
                        Err(_) => Err(PlayerError::Illegal(format!(
                            "sent '{text}', not a legal move{note}"
                        ))),
                    };
                }
                _ => {}
            }
        }
    }
}

/// Builds a player for `spec`.
pub fn make_player<R: Evaluate>(spec: &EngineSpec, cfg: &HubConfig) -> Box<dyn Player<R>> {
    match spec.kind {
        EngineKind::Internal => Box::new(InternalPlayer::<R>::new(spec)),
        EngineKind::External { .. } => Box::new(HubPlayer::new(spec, cfg)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn external(argv: &[&str]) -> EngineSpec {
        EngineSpec::new(EngineKind::External {
            argv: argv.iter().map(|s| s.to_string()).collect(),
        })
    }

    #[test]
    fn engine_specs() {
        let s = EngineSpec::parse("kondavo:threads=2,depth=5").unwrap();
        assert_eq!(s.kind, EngineKind::Internal);
        assert_eq!((s.threads, s.depth, s.hash), (Some(2), Some(5), None));
        assert_eq!(s.default_name(), "kondavo:threads=2,depth=5");
        let s = EngineSpec::parse("kondavo:tc=10+0.1").unwrap();
        assert_eq!(
            s.tc,
            Some(TimeControl::Clock {
                base: Duration::from_secs(10),
                inc: Duration::from_millis(100)
            })
        );
        assert_eq!(s.default_name(), "kondavo:tc=10+0.1");
        assert!(EngineSpec::parse("kondavo:tc=0.1/move").is_err());
        assert!(EngineSpec::parse("kondavo:tc=fast").is_err());
        assert_eq!(
            EngineSpec::parse("dame hub").unwrap(),
            external(&["dame", "hub"])
        );
        assert_eq!(
            EngineSpec::parse("'/opt/my engine/bin' hub --x \"a b\"").unwrap(),
            external(&["/opt/my engine/bin", "hub", "--x", "a b"])
        );
        assert!(EngineSpec::parse("kondavo:depth=0").is_err());
        assert!(EngineSpec::parse("kondavo:colour=red").is_err());
        assert!(EngineSpec::parse("kondavo:param.x=1").is_err());
        assert!(EngineSpec::parse("  ").is_err());
        assert!(EngineSpec::parse("x 'y").is_err());
    }

    #[test]
    fn option_lists_reach_external_engines() {
        let s = EngineSpec::parse(
            "cmd='/opt/my engine' hub,name=\"Dame, 2\",hash=64,threads=2,param.book=false,param.tt-size=24,history=game,depth=7",
        )
        .unwrap();
        let mut want = external(&["/opt/my engine", "hub"]);
        want.name = Some("Dame, 2".into());
        want.hash = Some(64);
        want.threads = Some(2);
        want.depth = Some(7);
        want.history = History::Game;
        want.params = vec![
            ("book".into(), "false".into()),
            ("tt-size".into(), "24".into()),
        ];
        assert_eq!(s, want);
        let mut t = EngineSpec::parse("dame hub").unwrap();
        t.apply("hash=32").unwrap();
        t.apply("param.x=a b").unwrap();
        assert_eq!(t.hash, Some(32));
        assert_eq!(t.params, vec![("x".to_string(), "a b".to_string())]);
        assert!(t.apply("hash").is_err());
        assert!(t.apply("history=all").is_err());
        assert!(t.apply("param.=1").is_err());
        assert!(t.apply("cmd=x").is_err());
        assert_eq!(t.default_name(), "dame");
    }

    #[test]
    fn the_in_process_engine_has_the_usual_hash() {
        let s = EngineSpec::parse("kondavo").unwrap();
        assert_eq!(s.default_name(), "kondavo");
        let p = InternalPlayer::<crate::rules::International>::new(&s);
        assert_eq!(p.hash_mib(), DEFAULT_HASH_MIB);
        let s = EngineSpec::parse("kondavo:hash=16").unwrap();
        assert_eq!(s.default_name(), "kondavo:hash=16");
    }

    #[test]
    fn positions_are_sent_with_the_chosen_history() {
        use crate::notation::fen::parse_fen;
        use crate::notation::movetext::parse_move;
        use crate::rules::International;
        let cfg = HubConfig {
            variant: Variant::International,
            time_margin: DEFAULT_TIME_MARGIN,
            start_timeout: Duration::from_secs(1),
            log: None,
        };
        let start = parse_fen::<International>("W:W28,K46:B23,K1").unwrap();
        let mut pos = start;
        let mut moves = Vec::new();
        for m in ["28x19", "1-7", "46-41", "7-1"] {
            let mv = parse_move(&pos, m).unwrap();
            pos.play(&mv);
            moves.push(mv);
        }
        let mut after_capture = start;
        after_capture.play(&moves[0]);
        let mut spec = EngineSpec::parse("engine").unwrap();
        let reversible = HubPlayer::new(&spec, &cfg).pos_line(&start, &moves);
        assert_eq!(
            reversible,
            format!(
                "pos pos={} moves=\"1-7 46-41 7-1\"",
                write_hub_pos(&after_capture)
            )
        );
        spec.apply("history=game").unwrap();
        let game = HubPlayer::new(&spec, &cfg).pos_line(&start, &moves);
        assert_eq!(
            game,
            format!(
                "pos pos={} moves=\"28x19x23 1-7 46-41 7-1\"",
                write_hub_pos(&start)
            )
        );
        assert_eq!(
            HubPlayer::new(&spec, &cfg).pos_line(&start, &[]),
            format!("pos pos={}", write_hub_pos(&start))
        );
    }

    #[test]
    fn time_controls() {
        assert_eq!(
            "5+0.05".parse::<TimeControl>().unwrap(),
            TimeControl::Clock {
                base: Duration::from_secs(5),
                inc: Duration::from_millis(50)
            }
        );
        assert!("x+1".parse::<TimeControl>().is_err());
        assert!("-1".parse::<TimeControl>().is_err());
        assert!("inf".parse::<TimeControl>().is_err());
    }

    #[test]
    fn engine_output_is_read_lossily() {
        let mut r =
            std::io::Cursor::new(b"id name=Dam\xe9\r\ninfo string caf\xe9\n\x1bdone".to_vec());
        assert_eq!(read_lossy_line(&mut r).unwrap(), "id name=Dam\u{FFFD}");
        assert_eq!(read_lossy_line(&mut r).unwrap(), "info string caf\u{FFFD}");
        assert_eq!(read_lossy_line(&mut r).unwrap(), "\u{1b}done");
        assert_eq!(read_lossy_line(&mut r), None);
        assert_eq!(printable("Dam\u{FFFD}\u{1b}[2J"), "Dam\u{FFFD}\\u{1b}[2J");
    }

    #[test]
    fn hub_scores() {
        assert_eq!(hub_score("0.25"), Some(25));
        assert_eq!(hub_score("99.95"), Some(WIN - 5));
        assert_eq!(hub_score("-99.90"), Some(-WIN + 10));
        assert_eq!(hub_score("1e300"), Some(WIN));
        assert_eq!(hub_score("NaN"), None);
        assert_eq!(hub_score("x"), None);
    }
}
