//! Players for matches: kondavo's own search in-process, or any engine
//! speaking Hub in a child process.
//!
//! An engine is named on the command line either as `kondavo` with
//! optional settings (`kondavo:threads=2,hash=32,depth=8`), played in this
//! process, or as any command line (`dame hub`, `./other/kondavo hub`),
//! started as a child process and spoken to in Hub.

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{channel, Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

use crate::eval::Evaluate;
use crate::movegen::Move;
use crate::position::Position;
use crate::protocol::hub::hub_variant_name;
use crate::protocol::hubpos::{move_to_hub, parse_hub_move, write_hub_pos};
use crate::protocol::tokenize;
use crate::search::threads::Searcher;
use crate::search::{Job, Limits, WIN, WIN_BOUND};
use crate::Variant;

/// How an engine is run.
#[derive(Clone, Debug, PartialEq)]
pub enum EngineSpec {
    /// kondavo in this process.
    Internal {
        /// Search threads.
        threads: usize,
        /// Hash MiB.
        hash: usize,
        /// Fixed depth instead of the time control.
        depth: Option<i32>,
        /// Fixed nodes instead of the time control.
        nodes: Option<u64>,
    },
    /// A Hub engine started with this command line.
    External {
        /// Program and arguments.
        argv: Vec<String>,
    },
}

impl EngineSpec {
    /// Reads an engine description (see the module documentation).
    pub fn parse(text: &str) -> Result<EngineSpec, String> {
        let t = text.trim();
        if t.is_empty() {
            return Err("empty engine command".into());
        }
        if t == "kondavo" || t.starts_with("kondavo:") {
            let mut spec = EngineSpec::Internal {
                threads: 1,
                hash: 16,
                depth: None,
                nodes: None,
            };
            if let Some(opts) = t.strip_prefix("kondavo:") {
                for kv in opts.split(',').filter(|s| !s.is_empty()) {
                    let (k, v) = kv
                        .split_once('=')
                        .ok_or_else(|| format!("engine option '{kv}' must be name=value"))?;
                    let bad = || format!("engine option '{kv}': bad value");
                    if let EngineSpec::Internal {
                        threads,
                        hash,
                        depth,
                        nodes,
                    } = &mut spec
                    {
                        match k {
                            "threads" => {
                                *threads = v
                                    .parse()
                                    .ok()
                                    .filter(|&n| (1..=256).contains(&n))
                                    .ok_or_else(bad)?
                            }
                            "hash" => {
                                *hash = v
                                    .parse()
                                    .ok()
                                    .filter(|&n| (1..=65536).contains(&n))
                                    .ok_or_else(bad)?
                            }
                            "depth" => {
                                *depth = Some(
                                    v.parse()
                                        .ok()
                                        .filter(|&n| (1..=120).contains(&n))
                                        .ok_or_else(bad)?,
                                )
                            }
                            "nodes" => {
                                *nodes = Some(v.parse().ok().filter(|&n| n > 0).ok_or_else(bad)?)
                            }
                            _ => {
                                return Err(format!(
                                    "unknown kondavo option '{k}' (threads, hash, depth, nodes)"
                                ))
                            }
                        }
                    }
                }
            }
            return Ok(spec);
        }
        let argv = split_command(t)?;
        Ok(EngineSpec::External { argv })
    }

    /// A short name for tables and PDN tags.
    pub fn name(&self) -> String {
        match self {
            EngineSpec::Internal {
                threads,
                hash,
                depth,
                nodes,
            } => {
                let mut s = "kondavo".to_string();
                let mut opts = Vec::new();
                if *threads != 1 {
                    opts.push(format!("threads={threads}"));
                }
                if *hash != 16 {
                    opts.push(format!("hash={hash}"));
                }
                if let Some(d) = depth {
                    opts.push(format!("depth={d}"));
                }
                if let Some(n) = nodes {
                    opts.push(format!("nodes={n}"));
                }
                if !opts.is_empty() {
                    s.push(':');
                    s.push_str(&opts.join(","));
                }
                s
            }
            EngineSpec::External { argv } => argv.join(" "),
        }
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
#[derive(Clone, Copy, Debug, PartialEq)]
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

impl std::str::FromStr for TimeControl {
    type Err = String;
    /// `<base>+<inc>` in seconds (`5+0.05`), or `<base>` alone.
    fn from_str(s: &str) -> Result<Self, String> {
        let num = |x: &str| -> Result<Duration, String> {
            let v: f64 = x
                .trim()
                .parse()
                .map_err(|_| format!("time control '{s}': '{x}' is not a number of seconds"))?;
            if !v.is_finite() || v < 0.0 {
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

/// Why a player failed to produce a move.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PlayerError {
    /// The engine sent a move that is not legal (the text it sent).
    Illegal(String),
    /// The engine's process ended or stopped answering.
    Crash(String),
    /// The engine used more than its time.
    TimeForfeit,
}

impl std::fmt::Display for PlayerError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            PlayerError::Illegal(m) => write!(f, "illegal move '{m}'"),
            PlayerError::Crash(m) => write!(f, "engine failure: {m}"),
            PlayerError::TimeForfeit => write!(f, "time forfeit"),
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
    /// Name for tables and PDN.
    fn name(&self) -> String;
    /// A new game starts.
    fn new_game(&mut self) -> Result<(), PlayerError>;
    /// Chooses a move in the position reached from `start` by `moves`, with
    /// `limits` (clock or move time). `keys`/`reversible` describe the game
    /// history for the draw rules.
    fn think(
        &mut self,
        start: &Position<R>,
        moves: &[Move],
        history: &[u64],
        reversible: u32,
        limits: &Limits,
    ) -> Result<Played, PlayerError>;
}

/// Grace added to a clock before an engine is declared out of time, for
/// process and pipe latency outside its control.
pub const TIME_GRACE: Duration = Duration::from_millis(200);

/// kondavo's own search.
#[derive(Debug)]
pub struct InternalPlayer<R: Evaluate> {
    spec: EngineSpec,
    searcher: Searcher<R>,
    depth: Option<i32>,
    nodes: Option<u64>,
}

impl<R: Evaluate> InternalPlayer<R> {
    /// A player for an `EngineSpec::Internal`.
    pub fn new(spec: &EngineSpec) -> Self {
        let (threads, hash, depth, nodes) = match spec {
            EngineSpec::Internal {
                threads,
                hash,
                depth,
                nodes,
            } => (*threads, *hash, *depth, *nodes),
            EngineSpec::External { .. } => (1, 16, None, None),
        };
        InternalPlayer {
            spec: spec.clone(),
            searcher: Searcher::new(threads, hash),
            depth,
            nodes,
        }
    }
}

impl<R: Evaluate> Player<R> for InternalPlayer<R> {
    fn name(&self) -> String {
        self.spec.name()
    }

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
            None => Err(PlayerError::Crash(
                "no move in a position with legal moves".into(),
            )),
        }
    }
}

/// A Hub engine in a child process.
#[derive(Debug)]
pub struct HubPlayer {
    argv: Vec<String>,
    variant: Variant,
    child: Option<Child>,
    stdin: Option<ChildStdin>,
    lines: Option<Receiver<String>>,
}

impl HubPlayer {
    /// Starts nothing yet: the process starts at the first game.
    pub fn new(argv: &[String], variant: Variant) -> Self {
        HubPlayer {
            argv: argv.to_vec(),
            variant,
            child: None,
            stdin: None,
            lines: None,
        }
    }

    fn send(&mut self, line: &str) -> Result<(), PlayerError> {
        let stdin = self
            .stdin
            .as_mut()
            .ok_or_else(|| PlayerError::Crash("not running".into()))?;
        writeln!(stdin, "{line}")
            .and_then(|_| stdin.flush())
            .map_err(|e| PlayerError::Crash(format!("cannot write to engine: {e}")))
    }

    fn recv(&mut self, deadline: Instant) -> Result<String, PlayerError> {
        let rx = self
            .lines
            .as_ref()
            .ok_or_else(|| PlayerError::Crash("not running".into()))?;
        match rx.recv_timeout(deadline.saturating_duration_since(Instant::now())) {
            Ok(l) => Ok(l),
            Err(RecvTimeoutError::Timeout) => Err(PlayerError::TimeForfeit),
            Err(RecvTimeoutError::Disconnected) => {
                Err(PlayerError::Crash("the engine's output ended".into()))
            }
        }
    }

    fn start(&mut self) -> Result<(), PlayerError> {
        self.stop();
        let mut child = Command::new(&self.argv[0])
            .args(&self.argv[1..])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| {
                PlayerError::Crash(format!("cannot start '{}': {e}", self.argv.join(" ")))
            })?;
        let stdout = child
            .stdout
            .take()
            .ok_or_else(|| PlayerError::Crash("no stdout".into()))?;
        let (tx, rx) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        self.stdin = child.stdin.take();
        self.child = Some(child);
        self.lines = Some(rx);
        let deadline = Instant::now() + Duration::from_secs(20);
        self.send("hub")?;
        let mut has_variant = false;
        loop {
            let l = self
                .recv(deadline)
                .map_err(|_| PlayerError::Crash("no answer to 'hub'".into()))?;
            if l.starts_with("param") && l.contains("name=variant") {
                has_variant = true;
            }
            if l.trim() == "wait" {
                break;
            }
        }
        if has_variant {
            let name = hub_variant_name(self.variant);
            self.send(&format!("set-param name=variant value={name}"))?;
        }
        self.send("init")?;
        loop {
            let l = self
                .recv(deadline)
                .map_err(|_| PlayerError::Crash("no answer to 'init'".into()))?;
            if l.trim() == "ready" {
                break;
            }
        }
        Ok(())
    }

    fn stop(&mut self) {
        if self.child.is_some() {
            let _ = self.send("quit");
        }
        self.stdin = None;
        if let Some(mut c) = self.child.take() {
            let deadline = Instant::now() + Duration::from_millis(500);
            while Instant::now() < deadline {
                if let Ok(Some(_)) = c.try_wait() {
                    break;
                }
                std::thread::sleep(Duration::from_millis(5));
            }
            let _ = c.kill();
            let _ = c.wait();
        }
        self.lines = None;
    }
}

impl Drop for HubPlayer {
    fn drop(&mut self) {
        self.stop();
    }
}

/// Reads a Hub score (men) into centi-men, wins as search scores.
fn hub_score(text: &str) -> Option<i32> {
    let men: f64 = text.parse().ok()?;
    let x = (men * 100.0).round() as i32;
    Some(if x > 9000 {
        WIN - (10_000 - x)
    } else if x < -9000 {
        -WIN + (10_000 + x)
    } else {
        x.clamp(-WIN_BOUND, WIN_BOUND)
    })
}

fn secs(d: Duration) -> String {
    format!("{:.3}", d.as_secs_f64())
}

impl<R: Evaluate> Player<R> for HubPlayer {
    fn name(&self) -> String {
        self.argv.join(" ")
    }

    fn new_game(&mut self) -> Result<(), PlayerError> {
        if self.child.is_none() {
            self.start()?;
        }
        if let Err(e) = self.send("new-game") {
            // One restart for an engine that died between games.
            self.start()?;
            let _ = e;
        }
        Ok(())
    }

    fn think(
        &mut self,
        start: &Position<R>,
        moves: &[Move],
        _history: &[u64],
        _reversible: u32,
        limits: &Limits,
    ) -> Result<Played, PlayerError> {
        if self.child.is_none() {
            self.start()?;
        }
        // Send the position after the last capture or man move and the
        // reversible moves since (as lidraughts does): enough for the
        // repetition rule, and short for engines that limit `moves`.
        let mut base = *start;
        let mut pos = *start;
        let mut tail: Vec<Move> = Vec::new();
        for m in moves {
            let irreversible = pos.is_irreversible(m);
            pos.play(m);
            if irreversible {
                base = pos;
                tail.clear();
            } else {
                tail.push(*m);
            }
        }
        let mut p = base;
        let mut hub_moves = Vec::with_capacity(tail.len());
        for m in &tail {
            hub_moves.push(move_to_hub::<R>(m));
            p.play(m);
        }
        let pos_line = if hub_moves.is_empty() {
            format!("pos pos={}", write_hub_pos(&base))
        } else {
            format!(
                "pos pos={} moves=\"{}\"",
                write_hub_pos(&base),
                hub_moves.join(" ")
            )
        };
        self.send(&pos_line)?;
        // Hub adds the increment before every move: send the clock without it.
        let budget = match (limits.time, limits.movetime) {
            (Some(t), _) => {
                let base = t.saturating_sub(limits.inc);
                self.send(&format!(
                    "level time={} inc={}",
                    secs(base),
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
        };
        let started = Instant::now();
        self.send("go think")?;
        let deadline = started + budget + TIME_GRACE;
        let mut score = None;
        loop {
            let line = match self.recv(deadline) {
                Ok(l) => l,
                Err(e) => {
                    self.stop();
                    return Err(e);
                }
            };
            let Ok(cmd) = tokenize(&line) else { continue };
            match cmd.name.as_str() {
                "info" => {
                    if let Some(s) = cmd.get("score").and_then(hub_score) {
                        score = Some(s);
                    }
                }
                "done" => {
                    if started.elapsed() > budget + TIME_GRACE {
                        return Err(PlayerError::TimeForfeit);
                    }
                    let text = cmd.get("move").unwrap_or("").to_string();
                    return match parse_hub_move(&pos, &text) {
                        Ok(mv) => Ok(Played { mv, score }),
                        Err(_) => Err(PlayerError::Illegal(text)),
                    };
                }
                _ => {}
            }
        }
    }
}

/// Builds a player for `spec`.
pub fn make_player<R: Evaluate>(spec: &EngineSpec, variant: Variant) -> Box<dyn Player<R>> {
    match spec {
        EngineSpec::Internal { .. } => Box::new(InternalPlayer::<R>::new(spec)),
        EngineSpec::External { argv } => Box::new(HubPlayer::new(argv, variant)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn engine_specs() {
        assert_eq!(
            EngineSpec::parse("kondavo:threads=2,depth=5").unwrap(),
            EngineSpec::Internal {
                threads: 2,
                hash: 16,
                depth: Some(5),
                nodes: None
            }
        );
        assert_eq!(
            EngineSpec::parse("dame hub").unwrap(),
            EngineSpec::External {
                argv: vec!["dame".into(), "hub".into()]
            }
        );
        assert_eq!(
            EngineSpec::parse("'/opt/my engine/bin' hub --x \"a b\"").unwrap(),
            EngineSpec::External {
                argv: vec![
                    "/opt/my engine/bin".into(),
                    "hub".into(),
                    "--x".into(),
                    "a b".into()
                ]
            }
        );
        assert!(EngineSpec::parse("kondavo:depth=0").is_err());
        assert!(EngineSpec::parse("kondavo:colour=red").is_err());
        assert!(EngineSpec::parse("  ").is_err());
        assert!(EngineSpec::parse("x 'y").is_err());
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
    }

    #[test]
    fn hub_scores() {
        assert_eq!(hub_score("0.25"), Some(25));
        assert_eq!(hub_score("99.95"), Some(WIN - 5));
        assert_eq!(hub_score("-99.90"), Some(-WIN + 10));
        assert_eq!(hub_score("x"), None);
    }
}
