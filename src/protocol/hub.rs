//! The Hub protocol loop (Scan 3.1's Hub-2 dialect) on stdin/stdout. See
//! `protocol.md` for the specification; each command is one arm of
//! [`Hub::command`].
//!
//! A reader thread turns input into lines (any bytes: invalid UTF-8 is
//! replaced, never fatal) so that `stop`, `ping`, `ponder-hit` and `quit`
//! are served while a search runs in its own thread. The search thread
//! hands the session back before it prints `done`, so a command that
//! follows `done` always finds the engine idle.

use std::io::BufRead;
use std::sync::mpsc::{channel, Receiver, Sender};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use super::session::{new_session, Session};
use super::{quote, tokenize, Command, Output};
use crate::search::threads::{SearchHandle, DEFAULT_HASH_MIB};
use crate::search::Limits;
use crate::Variant;

/// Engine name reported to `hub`.
pub const NAME: &str = "kondavo";
/// Longest input line kept; longer lines are cut and answered with an
/// error.
const MAX_LINE: usize = 1 << 20;
/// Time for `go think` when no `level` was given.
const DEFAULT_MOVE_TIME: Duration = Duration::from_secs(1);

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

/// A search in progress: its thread, a handle to stop it, and the channel
/// that returns the session.
struct Running {
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
    quit: bool,
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
            hash: DEFAULT_HASH_MIB,
            ponder: false,
            multipv: 1,
            session: None,
            running: None,
            level: Limits::default(),
            level_given: false,
            quit: false,
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

    fn session(&mut self) -> &mut Box<dyn Session> {
        let (v, t, h) = (self.variant, self.threads, self.hash);
        self.session.get_or_insert_with(|| new_session(v, t, h))
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
            match cmd.name.as_str() {
                "stop" => {
                    if let Some(r) = &self.running {
                        r.handle.stop();
                    }
                }
                "ponder-hit" => {
                    if let Some(r) = &self.running {
                        r.handle.ponder_hit();
                    }
                }
                "ping" => self.out.line("pong"),
                "quit" => {
                    self.stop_search();
                    self.quit = true;
                }
                other => self.error(&format!("'{other}' during a search: send stop first")),
            }
            return;
        }
        self.command(&cmd);
    }

    /// One command while no search runs.
    fn command(&mut self, cmd: &Command) {
        match cmd.name.as_str() {
            "hub" => self.cmd_hub(),
            "init" => {
                self.session();
                self.out.line("ready");
            }
            "set-param" => self.cmd_set_param(cmd),
            "new-game" => {
                self.session().new_game();
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
                let d = self.session().display();
                for l in d.lines() {
                    self.out.line(&format!("info string {l}"));
                }
            }
            "eval" => {
                let e = self.session().eval();
                self.out.line(&e);
            }
            "perft" => self.cmd_perft(cmd),
            "fen" => {
                let (f, p) = (self.session().fen(), self.session().hub_pos());
                self.out.line(&format!("fen fen={} pos={}", quote(&f), p));
            }
            other => self.error(&format!("unknown command '{}'", other.escape_default())),
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
            "param name=threads value={} type=int min=1 max=256",
            self.threads
        ));
        self.out.line(&format!(
            "param name=hash value={} type=int min=1 max=65536",
            self.hash
        ));
        self.out.line(&format!(
            "param name=ponder value={} type=bool",
            self.ponder
        ));
        self.out.line(&format!(
            "param name=multipv value={} type=int min=1 max=64",
            self.multipv
        ));
        self.out.line("wait");
    }

    fn cmd_set_param(&mut self, cmd: &Command) {
        let Some(name) = cmd.get("name") else {
            return self.error("set-param: missing name");
        };
        let Some(value) = cmd.get("value") else {
            return self.error(&format!("set-param {name}: missing value"));
        };
        let int = |lo: usize, hi: usize| -> Result<usize, String> {
            value
                .trim()
                .parse::<usize>()
                .ok()
                .filter(|v| (lo..=hi).contains(v))
                .ok_or_else(|| {
                    format!(
                        "set-param {name}: value '{value}' must be an integer from {lo} to {hi}"
                    )
                })
        };
        match name {
            "variant" => match value.parse::<Variant>() {
                Ok(v) => {
                    if v != self.variant || self.session.as_ref().is_some_and(|s| s.variant() != v)
                    {
                        self.variant = v;
                        self.session = None;
                    }
                }
                Err(e) => self.error(&format!("set-param variant: {e}")),
            },
            "threads" => match int(1, 256) {
                Ok(n) => {
                    self.threads = n;
                    if let Some(s) = &mut self.session {
                        s.set_threads(n);
                    }
                }
                Err(e) => self.error(&e),
            },
            // Scan's `tt-size` is log2 of 16-byte entries: 24 is 256 MiB.
            "hash" | "tt-size" => match if name == "hash" {
                int(1, 65536)
            } else {
                int(16, 32).map(|n| ((1usize << n) * 16) >> 20)
            } {
                Ok(n) => {
                    self.hash = n.clamp(1, 65536);
                    if let Some(s) = &mut self.session {
                        s.set_hash(self.hash);
                    }
                }
                Err(e) => self.error(&e),
            },
            "ponder" => match value {
                "true" | "1" => self.ponder = true,
                "false" | "0" => self.ponder = false,
                _ => self.error(&format!(
                    "set-param ponder: value '{value}' must be true or false"
                )),
            },
            "multipv" => match int(1, 64) {
                Ok(n) => self.multipv = n,
                Err(e) => self.error(&e),
            },
            other => self.error(&format!("set-param: unknown parameter '{other}'")),
        }
    }

    fn cmd_pos(&mut self, cmd: &Command) {
        self.level = Limits::default();
        self.level_given = false;
        let pos = cmd.get("pos");
        let fen = cmd.get("fen");
        let moves = cmd.get("moves");
        if let Err(e) = self.session().set_position(pos, fen, moves) {
            self.error(&e);
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
        let ponder = cmd.has("ponder");
        let analyze = cmd.has("analyze");
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
        let mut session = match self.session.take() {
            Some(s) => s,
            None => new_session(self.variant, self.threads, self.hash),
        };
        let (back_tx, back_rx) = channel();
        let out = self.out.clone();
        let handle = session.handle();
        // Armed here, not in the thread: a stop sent before the search
        // begins must not be lost.
        handle.arm();
        handle.arm_ponder(ponder);
        let thread = std::thread::Builder::new()
            .name("search".into())
            .stack_size(64 << 20)
            .spawn(move || {
                let done = session.go(limits, ponder, multipv, start, &mut |l| out.line(&l));
                let _ = back_tx.send(session);
                out.line(&done);
            });
        match thread {
            Ok(t) => {
                self.running = Some(Running {
                    handle,
                    back: back_rx,
                    thread: Some(t),
                })
            }
            Err(e) => self.error(&format!("cannot start the search thread: {e}")),
        }
    }

    fn cmd_perft(&mut self, cmd: &Command) {
        let depth = cmd
            .get("depth")
            .and_then(|d| d.parse::<u32>().ok())
            .filter(|&d| d <= 12);
        match depth {
            Some(d) => {
                let t = Instant::now();
                let n = self.session().perft(d);
                self.out.line(&format!(
                    "perft depth={d} nodes={n} time={:.3}",
                    t.elapsed().as_secs_f64()
                ));
            }
            None => self.error("perft: give depth=N (0 to 12)"),
        }
    }

    fn cmd_help(&self) {
        for l in [
            "info string kondavo speaks Hub (see protocol.md). Commands:",
            "info string   hub | init | set-param name=N value=V | new-game | quit",
            "info string   pos [pos=<hub string> | fen=\"<PDN FEN>\" | start] [moves=\"m1 m2 ...\"]",
            "info string   level [depth=N] [nodes=N] [move-time=S] [moves=N time=S inc=S] [infinite]",
            "info string   go think|ponder|analyze, then stop | ponder-hit | ping",
            "info string   extensions: d (board), eval, fen, perft depth=N, help",
        ] {
            self.out.line(l);
        }
    }
}
