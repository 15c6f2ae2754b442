//! The Hub protocol loop (Scan 3.1's Hub-2 dialect) on stdin/stdout. See
//! `protocol.md` for the specification; each command is one arm of
//! [`Hub::command`].
//!
//! A reader thread turns input into lines (any bytes: invalid UTF-8 is
//! replaced, never fatal) so that `stop`, `ping`, `ponder-hit` and `quit`
//! are served while a search or a perft count runs in its own thread. That
//! thread hands the session back before it prints `done` (or the perft
//! line), so a command that follows it always finds the engine idle.
//!
//! Every line goes out through [`Output::line`], which escapes control
//! characters: input quoted back in an error can never forge a reply.

use std::io::BufRead;
use std::sync::mpsc::{channel, Receiver, Sender};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use super::session::{new_session, Session};
use super::{quote, tokenize, Command, Output};
use crate::book::{Book, Chooser, DEFAULT_MARGIN};
use crate::search::threads::{SearchHandle, DEFAULT_HASH_MIB};
use crate::search::Limits;
use crate::tt::max_hash_mib;
use crate::Variant;

/// Engine name reported to `hub`.
pub const NAME: &str = "kondavo";
/// Longest input line kept; longer lines are cut and answered with an
/// error.
const MAX_LINE: usize = 1 << 20;
/// Time for `go think` when no `level` was given.
const DEFAULT_MOVE_TIME: Duration = Duration::from_secs(1);
/// Deepest `perft`.
const MAX_PERFT_DEPTH: u32 = 12;
/// Largest `book-ply`.
const MAX_BOOK_PLY: usize = 200;
/// Largest `book-depth`, in plies.
const MAX_BOOK_DEPTH: usize = 40;
/// Largest `book-margin`, in centi-men.
const MAX_BOOK_MARGIN: usize = 1000;

/// The most search threads: the processors this process may use (more
/// threads than processors only slow Lazy SMP down, and starve the threads
/// that read commands, so `stop` and `ping` would wait), at most 256.
pub fn max_threads() -> usize {
    std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .clamp(1, 256)
}

/// Drops `x` in a thread of its own: a session holds its hash table, and
/// giving gigabytes back to the system takes a while.
fn discard<T: Send + 'static>(x: T) {
    let _ = std::thread::Builder::new().spawn(move || drop(x));
}

/// Hub's name of a variant.
pub fn hub_variant_name(v: Variant) -> &'static str {
    match v {
        Variant::International => "normal",
        other => other.name(),
    }
}

enum Input {
    Line(String),
    TooLong,
    End,
}

/// Reads lines from `input` into the channel; the end of input (or an
/// error) sends `End`.
fn spawn_reader<I: BufRead + Send + 'static>(mut input: I, tx: Sender<Input>) {
    std::thread::spawn(move || {
        let mut buf = Vec::new();
        loop {
            buf.clear();
            match read_line_limited(&mut input, &mut buf) {
                Ok(0) => break,
                Ok(_) if buf.len() > MAX_LINE => {
                    if tx.send(Input::TooLong).is_err() {
                        return;
                    }
                }
                Ok(_) => {
                    let line = String::from_utf8_lossy(&buf)
                        .trim_end_matches(['\n', '\r'])
                        .to_string();
                    if tx.send(Input::Line(line)).is_err() {
                        return;
                    }
                }
                Err(_) => break,
            }
        }
        let _ = tx.send(Input::End);
    });
}

/// Reads one line, keeping at most `MAX_LINE + 1` bytes of it.
fn read_line_limited<I: BufRead>(input: &mut I, buf: &mut Vec<u8>) -> std::io::Result<usize> {
    let mut total = 0;
    loop {
        let chunk = input.fill_buf()?;
        if chunk.is_empty() {
            return Ok(total);
        }
        let (take, done) = match chunk.iter().position(|&b| b == b'\n') {
            Some(i) => (i + 1, true),
            None => (chunk.len(), false),
        };
        let room = (MAX_LINE + 1).saturating_sub(buf.len());
        buf.extend_from_slice(&chunk[..take.min(room)]);
        input.consume(take);
        total += take;
        if done {
            return Ok(total);
        }
    }
}

/// What runs beside the command loop.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Task {
    /// `go`: ends with `done`; `stop` asks it to end soon.
    Search,
    /// `perft`: ends with its count; `stop` abandons it silently.
    Perft,
}

/// A search or perft in progress: its thread, a handle to stop it, and the
/// channel that returns the session.
struct Running {
    task: Task,
    handle: SearchHandle,
    back: Receiver<Box<dyn Session>>,
    thread: Option<JoinHandle<()>>,
}

/// The protocol state.
pub struct Hub {
    out: Output,
    variant: Variant,
    threads: usize,
    hash: usize,
    ponder: bool,
    multipv: usize,
    session: Option<Box<dyn Session>>,
    running: Option<Running>,
    level: Limits,
    level_given: bool,
    /// The last `pos` was refused: `go` must not search the position before
    /// it as if it had been accepted.
    pos_refused: bool,
    quit: bool,
    /// `egdb-path` (empty: no databases) and `egdb-pieces` (0: as many as
    /// the directory holds).
    egdb_path: String,
    egdb_pieces: u32,
    /// The databases last loaded or tried: variant, path, pieces.
    egdb_loaded: Option<(Variant, String, u32)>,
    /// Loading `egdb_loaded` failed: no databases are in use.
    egdb_failed: bool,
    /// `init` was received: parameters that load files act at once (before
    /// it, they load at `init` or `go`).
    initialized: bool,
    /// Variants already told that `--weights` gave no weights for them.
    weights_told: Vec<Variant>,
    /// `book`: play book moves at `go think`.
    book: bool,
    /// `book-path` (empty: the variant's embedded book) and the book read
    /// from it.
    book_path: String,
    book_file: Option<Arc<Book>>,
    /// `book-seed` (0: from the clock) and the choice among book moves
    /// (`book-margin`).
    book_seed: u64,
    chooser: Chooser,
}

impl std::fmt::Debug for Hub {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Hub {{ variant: {} }}", self.variant)
    }
}

impl Hub {
    /// A fresh protocol state writing to `out`.
    pub fn new(out: Output) -> Self {
        Hub {
            out,
            variant: Variant::International,
            threads: 1,
            hash: DEFAULT_HASH_MIB.min(max_hash_mib()),
            ponder: false,
            multipv: 1,
            session: None,
            running: None,
            level: Limits::default(),
            level_given: false,
            pos_refused: false,
            quit: false,
            egdb_path: String::new(),
            egdb_pieces: 0,
            egdb_loaded: None,
            egdb_failed: false,
            initialized: false,
            weights_told: Vec::new(),
            book: true,
            book_path: String::new(),
            book_file: None,
            book_seed: 0,
            chooser: Chooser::new(DEFAULT_MARGIN, 0),
        }
    }

    /// The book `go think` plays from: the file of `book-path`, else the
    /// variant's embedded book; `None` with `book` off or no book.
    fn current_book(&self) -> Option<Arc<Book>> {
        if !self.book {
            return None;
        }
        match &self.book_file {
            Some(b) => Some(b.clone()).filter(|b| b.variant() == self.variant),
            None => crate::book::embedded::book(self.variant),
        }
    }

    /// Sets `egdb-path` and `egdb-pieces` before the loop starts (the
    /// command line's `--egdb-path` and `--egdb-pieces`); the databases
    /// load at `init` or the first `go`.
    pub fn with_egdb(mut self, path: &str, pieces: u32) -> Self {
        self.egdb_path = path.to_string();
        self.egdb_pieces = pieces;
        self
    }

    /// The databases the parameters name: variant, path, pieces (`None`:
    /// no path, no databases).
    fn egdb_wanted(&self) -> Option<(Variant, String, u32)> {
        (!self.egdb_path.is_empty())
            .then(|| (self.variant, self.egdb_path.clone(), self.egdb_pieces))
    }

    /// Loads the databases the parameters name for the current variant,
    /// unless they are loaded (or were tried) already. A failure is an
    /// error starting with `what`; the engine goes on without databases.
    fn sync_egdb(&mut self, what: &str) {
        let want = self.egdb_wanted();
        if want == self.egdb_loaded {
            return;
        }
        if let Some((v, _, _)) = self.egdb_loaded.take() {
            crate::egdb::uninstall(v);
        }
        self.egdb_loaded = want.clone();
        self.egdb_failed = false;
        if let Some((v, path, n)) = want {
            match crate::egdb::install(v, std::path::Path::new(&path), n) {
                Ok(n) => self.out.line(&format!(
                    "info string endgame databases: {} pieces of {} loaded",
                    n,
                    hub_variant_name(v)
                )),
                Err(e) => {
                    self.egdb_failed = true;
                    self.error(&format!("{what}: {e}"))
                }
            }
        }
    }

    /// `egdb-path` as `hub` shows it: empty when loading from it failed (no
    /// databases are in use), else the parameter (loaded, or to be loaded
    /// at `init` or `go`).
    fn egdb_path_shown(&self) -> &str {
        if self.egdb_failed && self.egdb_wanted() == self.egdb_loaded {
            ""
        } else {
            &self.egdb_path
        }
    }

    /// Runs the loop until `quit` or the end of `input`.
    pub fn run<I: BufRead + Send + 'static>(mut self, input: I) {
        let (tx, rx) = channel();
        spawn_reader(input, tx);
        while !self.quit {
            match rx.recv() {
                Ok(Input::Line(l)) => self.line(&l),
                Ok(Input::TooLong) => {
                    self.error(&format!("line longer than {MAX_LINE} bytes ignored"))
                }
                Ok(Input::End) | Err(_) => break,
            }
        }
        self.stop_search();
    }

    /// Writes `error message="..."`; the message may quote input (it is
    /// escaped on the way out).
    fn error(&self, msg: &str) {
        self.out.line(&format!("error message={}", quote(msg)));
    }

    /// Takes the session back from a finished search, if any.
    fn reap(&mut self) -> bool {
        if let Some(r) = &mut self.running {
            match r.back.try_recv() {
                Ok(s) => {
                    self.session = Some(s);
                    if let Some(t) = r.thread.take() {
                        let _ = t.join();
                    }
                    self.running = None;
                }
                Err(_) => return false,
            }
        }
        true
    }

    /// Stops a running search and waits for the session to come back.
    fn stop_search(&mut self) {
        if let Some(r) = self.running.take() {
            r.handle.stop();
            if let Ok(s) = r.back.recv() {
                self.session = Some(s);
            }
            if let Some(t) = r.thread {
                let _ = t.join();
            }
        }
    }

    /// The session, made on first use; `None` (after an error) when its
    /// hash table cannot be had.
    fn session(&mut self) -> Option<&mut Box<dyn Session>> {
        if self.session.is_none() {
            match new_session(self.variant, self.threads, self.hash) {
                Ok(s) => self.session = Some(s),
                Err(e) => self.error(&e),
            }
        }
        self.session.as_mut()
    }

    /// Handles one input line.
    pub fn line(&mut self, line: &str) {
        if line.trim().is_empty() {
            return;
        }
        let cmd = match tokenize(line) {
            Ok(c) => c,
            Err(e) => return self.error(&e),
        };
        let idle = self.reap();
        if !idle {
            self.command_while_running(&cmd);
            return;
        }
        self.command(&cmd);
    }

    /// One command while a search or perft runs: only `stop`, `ponder-hit`,
    /// `ping` and `quit` act.
    fn command_while_running(&mut self, cmd: &Command) {
        let Some(r) = &self.running else { return };
        let task = r.task;
        match cmd.name.as_str() {
            "stop" => {
                r.handle.stop();
                if task == Task::Perft {
                    // A count stops within milliseconds; wait for it, so the
                    // next command finds the engine idle.
                    self.stop_search();
                }
            }
            "ponder-hit" => r.handle.ponder_hit(),
            "ping" => self.out.line("pong"),
            "quit" => {
                self.stop_search();
                self.quit = true;
            }
            other => {
                let what = match task {
                    Task::Search => "a search",
                    Task::Perft => "perft",
                };
                self.error(&format!("'{other}' during {what}: send stop first"))
            }
        }
    }

    /// One command while no search runs.
    fn command(&mut self, cmd: &Command) {
        match cmd.name.as_str() {
            "hub" => self.cmd_hub(),
            "init" => {
                self.session();
                self.initialized = true;
                self.sync_egdb("init");
                self.out.line("ready");
            }
            "set-param" => self.cmd_set_param(cmd),
            "new-game" => {
                if let Some(s) = self.session() {
                    s.new_game();
                }
            }
            "pos" => self.cmd_pos(cmd),
            "level" => self.cmd_level(cmd),
            "go" => self.cmd_go(cmd),
            "ping" => self.out.line("pong"),
            "stop" | "ponder-hit" => {}
            "quit" => self.quit = true,
            // Extensions for people and scripts.
            "help" => self.cmd_help(),
            "d" | "display" => {
                if let Some(s) = self.session() {
                    let d = s.display();
                    for l in d.lines() {
                        self.out.line(&format!("info string {l}"));
                    }
                }
            }
            "eval" => {
                if let Some(s) = self.session() {
                    let e = s.eval();
                    self.out.line(&e);
                }
            }
            "perft" => self.cmd_perft(cmd),
            "fen" => {
                if let Some(s) = self.session() {
                    let (f, p) = (s.fen(), s.hub_pos());
                    self.out.line(&format!("fen fen={} pos={}", quote(&f), p));
                }
            }
            other => self.error(&format!("unknown command '{other}'")),
        }
    }

    fn cmd_hub(&self) {
        self.out.line(&format!(
            "id name={NAME} version={} author={} country=?",
            env!("CARGO_PKG_VERSION"),
            quote("the kondavo authors")
        ));
        self.out.line(&format!(
            "param name=variant value={} type=enum values={}",
            hub_variant_name(self.variant),
            quote(&Variant::ALL.map(hub_variant_name).join(" "))
        ));
        self.out.line(&format!(
            "param name=threads value={} type=int min=1 max={}",
            self.threads,
            max_threads()
        ));
        self.out.line(&format!(
            "param name=hash value={} type=int min=1 max={}",
            self.hash,
            max_hash_mib()
        ));
        self.out.line(&format!(
            "param name=ponder value={} type=bool",
            self.ponder
        ));
        self.out.line(&format!(
            "param name=multipv value={} type=int min=1 max=64",
            self.multipv
        ));
        self.out.line(&format!(
            "param name=egdb-path value={} type=string",
            quote(self.egdb_path_shown())
        ));
        self.out.line(&format!(
            "param name=egdb-pieces value={} type=int min=0 max={}",
            self.egdb_pieces,
            crate::egdb::MAX_PIECES
        ));
        self.out
            .line(&format!("param name=book value={} type=bool", self.book));
        self.out.line(&format!(
            "param name=book-margin value={} type=int min=0 max={MAX_BOOK_MARGIN}",
            self.chooser.margin()
        ));
        self.out.line(&format!(
            "param name=book-ply value={} type=int min=0 max={MAX_BOOK_PLY}",
            self.chooser.ply_limit()
        ));
        self.out.line(&format!(
            "param name=book-depth value={} type=int min=0 max={MAX_BOOK_DEPTH}",
            self.chooser.min_depth()
        ));
        self.out.line(&format!(
            "param name=book-seed value={} type=int min=0 max={}",
            self.book_seed,
            u64::MAX
        ));
        self.out.line(&format!(
            "param name=book-path value={} type=string",
            quote(&self.book_path)
        ));
        self.out.line("wait");
    }

    /// `set-param name=N value=V`. A bad value is an error naming the
    /// parameter, and the previous value stays.
    fn cmd_set_param(&mut self, cmd: &Command) {
        let Some(name) = cmd.get("name") else {
            return self.error("set-param: missing name");
        };
        let Some(value) = cmd.get("value") else {
            return self.error(&format!("set-param {name}: missing value"));
        };
        // An integer from `lo` to `hi` (`None`: no upper bound).
        let int = |lo: usize, hi: Option<usize>| -> Result<usize, String> {
            let range = match hi {
                Some(hi) => format!("from {lo} to {hi}"),
                None => format!("of at least {lo}"),
            };
            value
                .trim()
                .parse::<usize>()
                .ok()
                .filter(|v| *v >= lo && hi.is_none_or(|hi| *v <= hi))
                .ok_or_else(|| {
                    format!("set-param {name}: value '{value}' must be an integer {range}")
                })
        };
        let result = match name {
            "variant" => match value.parse::<Variant>() {
                Ok(v) => self.set_variant(v).map(|()| {
                    if self.initialized {
                        self.sync_egdb("set-param variant");
                    }
                }),
                Err(e) => Err(format!("set-param variant: {e}")),
            },
            // Scan's `bb-size` is the same as `egdb-pieces`.
            "egdb-path" | "egdb-pieces" | "bb-size" => {
                let r = if name == "egdb-path" {
                    let path = value.trim();
                    let checked = match path {
                        "" => Ok(()),
                        _ => crate::egdb::check_dir(std::path::Path::new(path)),
                    };
                    match checked {
                        Ok(()) => {
                            self.egdb_path = path.to_string();
                            Ok(())
                        }
                        Err(e) => {
                            // No databases rather than the ones named before.
                            self.egdb_path.clear();
                            Err(format!("set-param egdb-path: {e}; no endgame databases"))
                        }
                    }
                } else {
                    int(0, Some(crate::egdb::MAX_PIECES as usize))
                        .map(|n| self.egdb_pieces = n as u32)
                };
                // Setting either again after a failed load tries again
                // (the files may have been repaired).
                if self.egdb_failed {
                    self.egdb_loaded = None;
                    self.egdb_failed = false;
                }
                // Before `init` the files load at `init` or `go` (the
                // variant may still change), but databases no longer
                // wanted go at once.
                if self.initialized || self.egdb_path.is_empty() {
                    self.sync_egdb(&format!("set-param {name}"));
                }
                r
            }
            // More threads than processors are not refused: they are capped.
            "threads" => int(1, None).map(|n| {
                self.threads = n.min(max_threads());
                if let Some(s) = &mut self.session {
                    s.set_threads(self.threads);
                }
            }),
            "hash" => int(1, None).and_then(|mib| self.set_hash(name, mib)),
            // Scan's `tt-size` is log2 of 16-byte entries: 24 is 256 MiB.
            "tt-size" => int(16, Some(63)).and_then(|n| {
                let mib = 1usize
                    .checked_shl((n - 16) as u32)
                    .ok_or_else(|| format!("set-param tt-size: value '{value}' is too large"))?;
                self.set_hash(name, mib)
            }),
            "ponder" => match value {
                "true" | "1" => Ok(true),
                "false" | "0" => Ok(false),
                _ => Err(format!(
                    "set-param ponder: value '{value}' must be true or false"
                )),
            }
            .map(|p| self.ponder = p),
            "multipv" => int(1, Some(64)).map(|n| self.multipv = n),
            "book" => match value.trim() {
                "true" | "on" | "1" => Ok(true),
                "false" | "off" | "0" => Ok(false),
                _ => Err(format!(
                    "set-param book: value '{value}' must be true or false"
                )),
            }
            .map(|b| self.book = b),
            "book-ply" => int(0, Some(MAX_BOOK_PLY)).map(|n| self.chooser.set_ply_limit(n)),
            "book-depth" => {
                int(0, Some(MAX_BOOK_DEPTH)).map(|n| self.chooser.set_min_depth(n as u32))
            }
            "book-margin" => {
                int(0, Some(MAX_BOOK_MARGIN)).map(|n| self.chooser.set_margin(n as i32))
            }
            "book-seed" => value
                .trim()
                .parse::<u64>()
                .map_err(|_| {
                    format!(
                        "set-param book-seed: value '{value}' must be an integer from 0 to {}",
                        u64::MAX
                    )
                })
                .map(|n| {
                    self.book_seed = n;
                    self.chooser.reseed(n);
                }),
            "book-path" => self.set_book_path(value.trim()),
            other => Err(format!("set-param: unknown parameter '{other}'")),
        };
        if let Err(e) = result {
            self.error(&e);
        }
    }

    /// `book-path`: empty for the variant's embedded book, else a book
    /// file, read and checked at once. A file that cannot be read or is no
    /// book is refused with the reason, and the book in use stays. A book
    /// of another variant is played when that variant is chosen (an `info
    /// string` says so); until then there is no book.
    fn set_book_path(&mut self, path: &str) -> Result<(), String> {
        if path.is_empty() {
            self.book_path.clear();
            self.book_file = None;
            return Ok(());
        }
        let book = Book::open(std::path::Path::new(path)).map_err(|e| {
            let now = if self.book_path.is_empty() {
                "the built-in book stays".to_string()
            } else {
                format!("the book {} stays", self.book_path)
            };
            format!("set-param book-path: {e}; {now}")
        })?;
        if book.variant() != self.variant {
            self.out.line(&format!(
                "info string book-path {path} holds {} positions: no book until variant is {}",
                hub_variant_name(book.variant()),
                hub_variant_name(book.variant())
            ));
        }
        self.book_path = path.to_string();
        self.book_file = Some(Arc::new(book));
        Ok(())
    }

    /// Changes the rule set: a new session at its start position. When its
    /// table cannot be had, the previous session stays.
    fn set_variant(&mut self, v: Variant) -> Result<(), String> {
        if v == self.variant && self.session.as_ref().is_none_or(|s| s.variant() == v) {
            return Ok(());
        }
        let s = new_session(v, self.threads, self.hash)
            .map_err(|e| format!("set-param variant: {e}"))?;
        if let Some(old) = self.session.replace(s) {
            discard(old);
        }
        self.variant = v;
        Ok(())
    }

    /// Resizes the hash table to `mib` MiB, or keeps the current one and
    /// returns an error naming the parameter and the size.
    fn set_hash(&mut self, param: &str, mib: usize) -> Result<(), String> {
        let r = match &mut self.session {
            Some(s) => s.set_hash(mib),
            None => new_session(self.variant, self.threads, mib).map(|s| {
                self.session = Some(s);
            }),
        };
        match r {
            Ok(()) => {
                self.hash = mib;
                Ok(())
            }
            Err(e) => Err(format!("set-param {param}: {e}")),
        }
    }

    /// `pos`: a refused one changes nothing but makes `go` refuse to search
    /// until a `pos` is accepted.
    fn cmd_pos(&mut self, cmd: &Command) {
        self.level = Limits::default();
        self.level_given = false;
        self.pos_refused = true;
        let (pos, fen, moves) = match pos_args(cmd) {
            Ok(a) => a,
            Err(e) => return self.error(&e),
        };
        let Some(session) = self.session() else {
            return;
        };
        match session.set_position(pos, fen, moves) {
            Ok(()) => self.pos_refused = false,
            Err(e) => self.error(&e),
        }
    }

    fn cmd_level(&mut self, cmd: &Command) {
        for (name, value) in &cmd.args {
            let secs = |v: &Option<String>| -> Result<Duration, String> {
                let t = v.as_deref().unwrap_or("");
                let x: f64 = t
                    .trim()
                    .parse()
                    .map_err(|_| format!("level {name}: '{t}' is not a number"))?;
                if !x.is_finite() {
                    return Err(format!("level {name}: '{t}' is not a number"));
                }
                Ok(Duration::from_secs_f64(x.clamp(0.0, 1e9)))
            };
            let count = |v: &Option<String>| -> Result<u64, String> {
                let t = v.as_deref().unwrap_or("");
                let x: f64 = t
                    .trim()
                    .parse()
                    .map_err(|_| format!("level {name}: '{t}' is not a number"))?;
                Ok(if x.is_finite() {
                    x.clamp(0.0, 1e18) as u64
                } else {
                    0
                })
            };
            let r: Result<(), String> = (|| {
                match name.as_str() {
                    "depth" => self.level.depth = Some(count(value)?.clamp(1, 120) as i32),
                    "nodes" => self.level.nodes = Some(count(value)?.max(1)),
                    "move-time" => self.level.movetime = Some(secs(value)?),
                    "time" => self.level.time = Some(secs(value)?),
                    "inc" => self.level.inc = secs(value)?,
                    "moves" => self.level.moves_to_go = Some(count(value)?.clamp(1, 1000) as u32),
                    "infinite" => self.level.infinite = true,
                    other => return Err(format!("level: unknown argument '{other}'")),
                }
                Ok(())
            })();
            match r {
                Ok(()) => self.level_given = true,
                Err(e) => self.error(&e),
            }
        }
    }

    fn cmd_go(&mut self, cmd: &Command) {
        let mode = match go_mode(cmd) {
            Ok(m) => m,
            Err(e) => {
                // Exactly one `done` per `go`, and no search of a mode the
                // client did not mean.
                self.error(&e);
                self.out.line("done");
                return;
            }
        };
        // With or without `init`: the databases the parameters name.
        self.sync_egdb("go");
        if self.pos_refused {
            // Exactly one `done` per `go`, and no move of a position the
            // client did not ask for.
            self.error("go: the last pos was refused; send a valid pos first");
            self.out.line("done");
            return;
        }
        self.tell_weights();
        let ponder = mode == "ponder";
        let analyze = mode == "analyze";
        // A book move is answered at once (`go think` only: analysis and
        // pondering search, and so does an infinite level).
        if mode == "think" && !self.level.infinite {
            if let Some(book) = self.current_book() {
                let mut chooser = self.chooser.clone();
                let lines = self
                    .session()
                    .and_then(|s| s.book_move(&book, &mut chooser));
                self.chooser = chooser;
                if let Some((info, done)) = lines {
                    self.out.line(&info);
                    self.out.line(&done);
                    return;
                }
            }
        }
        let mut limits = self.level.clone();
        // Hub adds the increment before every move: it is ours now.
        if let Some(t) = limits.time {
            limits.time = Some(t + limits.inc);
        }
        if !self.level_given {
            if analyze || ponder {
                limits.infinite = true;
            } else {
                limits.movetime = Some(DEFAULT_MOVE_TIME);
            }
        }
        let multipv = if analyze { self.multipv } else { 1 };
        let start = Instant::now();
        let out = self.out.clone();
        let started = self.spawn_task(Task::Search, ponder, move |session| {
            Some(session.go(limits, ponder, multipv, start, &mut |l| out.line(&l)))
        });
        if !started {
            self.out.line("done");
        }
    }

    /// Once per variant, before its first search: when the command line's
    /// `--weights` gave weights for other variants only, an `info string`
    /// saying that this variant searches with its built-in weights (the
    /// client chooses the variant, so this is no error).
    fn tell_weights(&mut self) {
        let given = crate::eval::learned::installed();
        if given.is_empty()
            || given.contains(&self.variant)
            || self.weights_told.contains(&self.variant)
        {
            return;
        }
        self.weights_told.push(self.variant);
        let names: Vec<&str> = given.iter().map(|&v| hub_variant_name(v)).collect();
        self.out.line(&format!(
            "info string --weights gave weights for {} only: {} searches with its built-in weights",
            names.join(", "),
            hub_variant_name(self.variant)
        ));
    }

    /// `perft depth=N`, counted in its own thread like a search: `ping` is
    /// answered meanwhile, `stop` abandons it (no line), `quit` too.
    fn cmd_perft(&mut self, cmd: &Command) {
        let depth = cmd
            .get("depth")
            .and_then(|d| d.trim().parse::<u32>().ok())
            .filter(|&d| d <= MAX_PERFT_DEPTH);
        let Some(d) = depth else {
            return self.error(&format!("perft: give depth=N (0 to {MAX_PERFT_DEPTH})"));
        };
        let _ = self.spawn_task(Task::Perft, false, move |session| {
            let t = Instant::now();
            let handle = session.handle();
            session.perft(d, &|| handle.is_stopped()).map(|n| {
                format!(
                    "perft depth={d} nodes={n} time={:.3}",
                    t.elapsed().as_secs_f64()
                )
            })
        });
    }

    /// Runs `job` on the session in a thread of its own; the thread gives
    /// the session back, then prints the line `job` returns. The stop and
    /// ponder flags are armed here, not in the thread: a `stop` or
    /// `ponder-hit` sent right after must not be lost.
    /// Returns whether it started (if not, an error was written).
    fn spawn_task<F>(&mut self, task: Task, ponder: bool, job: F) -> bool
    where
        F: FnOnce(&mut Box<dyn Session>) -> Option<String> + Send + 'static,
    {
        if self.session().is_none() {
            return false;
        }
        let Some(mut session) = self.session.take() else {
            return false;
        };
        let (back_tx, back_rx) = channel();
        let out = self.out.clone();
        let handle = session.handle();
        handle.arm();
        handle.arm_ponder(ponder);
        let thread = std::thread::Builder::new()
            .name("search".into())
            .stack_size(64 << 20)
            .spawn(move || {
                let last = job(&mut session);
                let _ = back_tx.send(session);
                if let Some(l) = last {
                    out.line(&l);
                }
            });
        match thread {
            Ok(t) => {
                self.running = Some(Running {
                    task,
                    handle,
                    back: back_rx,
                    thread: Some(t),
                });
                true
            }
            Err(e) => {
                self.error(&format!("cannot start a thread: {e}"));
                false
            }
        }
    }

    fn cmd_help(&self) {
        for l in [
            "info string kondavo speaks Hub (see protocol.md). Commands:",
            "info string   hub | init | set-param name=N value=V | new-game | quit",
            "info string   pos [pos=<hub string> | fen=\"<PDN FEN>\" | start] [moves=\"m1 m2 ...\"]",
            "info string   level [depth=N] [nodes=N] [move-time=S] [moves=N time=S inc=S] [infinite]",
            "info string   go think|ponder|analyze, then stop | ponder-hit | ping",
            "info string   extensions: d (board), eval, fen, perft depth=N (stop ends it), help",
        ] {
            self.out.line(l);
        }
    }
}

/// The mode of `go`: `think`, `ponder` or `analyze`, one flag (none is
/// `think`, as in Scan). Anything else is an error naming it.
fn go_mode(cmd: &Command) -> Result<&'static str, String> {
    let mut mode = None;
    for (name, value) in &cmd.args {
        let m = match name.as_str() {
            "think" => "think",
            "ponder" => "ponder",
            "analyze" => "analyze",
            other => {
                return Err(format!(
                    "go: unknown mode '{other}' (give think, ponder or analyze)"
                ))
            }
        };
        if value.is_some() {
            return Err(format!("go: {m} takes no value"));
        }
        if mode.is_some() {
            return Err("go: give one of think, ponder and analyze, not several".to_string());
        }
        mode = Some(m);
    }
    Ok(mode.unwrap_or("think"))
}

/// The arguments of `pos`: `pos=<string>`, `fen=<FEN>` or the flag
/// `start` (at most one of them), and `moves=<list>`. Anything else, a
/// missing value or a repeated argument is an error.
type PosArgs<'a> = (Option<&'a str>, Option<&'a str>, Option<&'a str>);

fn pos_args(cmd: &Command) -> Result<PosArgs<'_>, String> {
    let mut seen: Vec<&str> = Vec::new();
    for (name, value) in &cmd.args {
        match (name.as_str(), value) {
            ("pos" | "fen" | "moves", Some(_)) | ("start", None) => {}
            ("pos" | "fen" | "moves", None) => return Err(format!("pos: {name}= needs a value")),
            ("start", Some(_)) => return Err("pos: start takes no value".to_string()),
            (other, _) => return Err(format!("pos: unknown argument '{other}'")),
        }
        if seen.contains(&name.as_str()) {
            return Err(format!("pos: {name} given twice"));
        }
        seen.push(name);
    }
    if ["pos", "fen", "start"]
        .iter()
        .filter(|n| seen.contains(n))
        .count()
        > 1
    {
        return Err("pos: give one of pos=, fen= and start, not several".to_string());
    }
    Ok((cmd.get("pos"), cmd.get("fen"), cmd.get("moves")))
}
