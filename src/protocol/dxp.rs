//! DXP (DamExchange) over TCP: International draughts only.
//!
//! Messages are ASCII, 1 to 127 characters, each followed by a NUL byte and
//! sent in one write. The Initiator sends GAMEREQ (`R`), the Follower
//! answers GAMEACC (`A`); MOVE (`M`) messages then alternate; GAMEEND
//! (`E`), CHAT (`C`) and BACKREQ/BACKACC (`B`/`K`) as the specification
//! (mesander.nl/damexchange) says. [`message`] reads and writes the
//! messages; this module runs the dialogue. See `protocol.md` for what we
//! send and how errors are handled.
//!
//! As Follower, every connection is served on its own thread, so a client
//! that connects and sends nothing (or stops answering mid-game) holds
//! only its own thread and never delays the others. A read timeout could
//! not tell such a client from an opponent thinking for minutes in a long
//! game. The connections share one searcher behind a lock: memory stays
//! that of one hash table, and games played at the same time take turns
//! searching (the wait counts on the waiting game's clock). A connection
//! that fails (the peer closes it, resets it, or a write meets a closed
//! socket) ends only its own game.

pub mod message;

pub use message::{move_message, parse_dxp_board, parse_move_message, write_dxp_board};

use std::io::{self, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use crate::book::{Chooser, Source};
use crate::eval::Evaluate;
use crate::game::{Game, Outcome};
use crate::position::Position;
use crate::rules::{Color, International};
use crate::search::threads::Searcher;
use crate::search::{Job, Limits};
use message::{
    find_move, gameacc_message, gamereq_message, parse_message, BadMessage, GameReq, Message,
    MAX_LEN,
};

type R = International;

/// Where event lines go (stderr in the binary). Shared by the connection
/// threads.
pub type Log = dyn Fn(&str) + Sync;

/// Stack of a thread that searches (the search recurses deeply).
const SEARCH_STACK: usize = 64 << 20;

/// Options of a DXP session.
#[derive(Clone, Debug)]
pub struct DxpOptions {
    /// TCP port (27531 is the standard; 0 lets the system choose one as
    /// Follower, and the log line names it).
    pub port: u16,
    /// Connect to this host as Initiator; listen as Follower when `None`.
    pub connect: Option<String>,
    /// Address to listen on as Follower.
    pub listen: String,
    /// Follower: serve one connection, then return.
    pub once: bool,
    /// Initiator: minutes per player for the game.
    pub minutes: u32,
    /// Initiator: moves per game (0 = no limit).
    pub moves: u32,
    /// Initiator: games to play before ending the session.
    pub games: u32,
    /// Seconds per move when the game request gives no time.
    pub default_move_time: f64,
    /// Search threads.
    pub threads: usize,
    /// Hash MiB.
    pub hash: usize,
    /// Name sent to the other side.
    pub name: String,
    /// The book our moves come from where it knows the position.
    pub book: Source,
    /// Book moves within this many centi-men of the best are chosen
    /// among at random.
    pub book_margin: i32,
    /// Plies the book must go on past a book move for it to be played.
    pub book_depth: u32,
    /// Plies from the start within which the margin applies.
    pub book_ply: usize,
    /// Seed of that choice (0: from the clock).
    pub book_seed: u64,
}

impl Default for DxpOptions {
    fn default() -> Self {
        DxpOptions {
            port: 27531,
            connect: None,
            listen: "127.0.0.1".to_string(),
            once: false,
            minutes: 5,
            moves: 0,
            games: 1,
            default_move_time: 1.0,
            threads: 1,
            hash: 64,
            name: format!("kondavo {}", env!("CARGO_PKG_VERSION")),
            book: Source::Embedded,
            book_margin: crate::book::DEFAULT_MARGIN,
            book_depth: crate::book::DEFAULT_MIN_DEPTH,
            book_ply: crate::book::DEFAULT_BOOK_PLY,
            book_seed: 0,
        }
    }
}

/// Splits a TCP stream into NUL-terminated messages.
struct Conn {
    stream: TcpStream,
    buf: Vec<u8>,
    /// Dropping the rest of an over-long message, up to its NUL.
    skipping: bool,
}

impl Conn {
    fn new(stream: TcpStream) -> Self {
        // Small messages that each wait for an answer: no Nagle delay.
        let _ = stream.set_nodelay(true);
        Conn {
            stream,
            buf: Vec::new(),
            skipping: false,
        }
    }

    fn send(&mut self, msg: &str) -> io::Result<()> {
        let mut bytes: Vec<u8> = msg
            .bytes()
            .filter(|b| (1..128).contains(b))
            .take(MAX_LEN)
            .collect();
        bytes.push(0);
        self.stream.write_all(&bytes)?;
        self.stream.flush()
    }

    /// The next message (the bytes before its NUL), or `None` when the peer
    /// closed the connection. A message longer than DXP allows comes back
    /// cut to `MAX_LEN + 1` bytes (so that it is reported), and the rest of
    /// it, up to its NUL, is dropped.
    fn recv(&mut self) -> io::Result<Option<Vec<u8>>> {
        loop {
            if self.skipping {
                match self.buf.iter().position(|&b| b == 0) {
                    Some(i) => {
                        self.buf.drain(..=i);
                        self.skipping = false;
                    }
                    None => self.buf.clear(),
                }
            }
            if !self.skipping {
                if let Some(i) = self.buf.iter().position(|&b| b == 0) {
                    let msg: Vec<u8> = self.buf.drain(..=i).take(i).collect();
                    return Ok(Some(msg));
                }
                if self.buf.len() > MAX_LEN {
                    let msg = self.buf[..=MAX_LEN].to_vec();
                    self.buf.clear();
                    self.skipping = true;
                    return Ok(Some(msg));
                }
            }
            let mut chunk = [0u8; 1024];
            let n = self.stream.read(&mut chunk)?;
            if n == 0 {
                return Ok(None);
            }
            self.buf.extend_from_slice(&chunk[..n]);
        }
    }
}

/// One game's state.
struct DxpGame {
    start: Position<R>,
    game: Game<R>,
    ours: Color,
    /// Our clock, when the game has one.
    clock: Option<Duration>,
    move_limit: u32,
}

/// Where a connection's dialogue stands.
enum State {
    /// No game.
    Idle,
    /// A game in which the peer is to move (we answer every move at once).
    Playing(DxpGame),
    /// We sent GAMEEND and wait for the peer's.
    Ending,
}

/// What the connection does after a message.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Flow {
    Continue,
    /// The peer asked to stop (GAMEEND with stop code 1): close.
    Close,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Role {
    Initiator,
    Follower,
}

/// One connection and what it needs to play.
struct Peer<'a> {
    conn: Conn,
    /// Prefix of this connection's log lines.
    tag: String,
    role: Role,
    opts: &'a DxpOptions,
    searcher: &'a Mutex<Searcher<R>>,
    chooser: &'a Mutex<Chooser>,
    log: &'a Log,
}

fn colour_name(c: Color) -> &'static str {
    match c {
        Color::White => "White",
        Color::Black => "Black",
    }
}

/// What a GAMEEND reason says, from its sender's side.
fn reason_text(reason: u8) -> &'static str {
    match reason {
        1 => "the sender loses",
        2 => "a draw",
        3 => "the sender wins",
        _ => "no reason given",
    }
}

/// Runs DXP as configured. As Follower: listens and serves every
/// connection on its own thread, for ever (or one connection with
/// `opts.once`). As Initiator: plays `opts.games` games; a connection lost
/// or closed by the peer before they are played is an error.
pub fn run(opts: &DxpOptions, log: &Log) -> io::Result<()> {
    let searcher = Mutex::new(Searcher::<R>::new(opts.threads, opts.hash));
    // The weights are read before the first game's clock starts.
    R::slot().get::<R>();
    let mut chooser = Chooser::new(opts.book_margin, opts.book_seed);
    chooser.set_min_depth(opts.book_depth);
    chooser.set_ply_limit(opts.book_ply);
    let chooser = Mutex::new(chooser);
    match &opts.connect {
        Some(host) => {
            let stream = TcpStream::connect((host.as_str(), opts.port))?;
            let mut peer = Peer {
                conn: Conn::new(stream),
                tag: "dxp".to_string(),
                role: Role::Initiator,
                opts,
                searcher: &searcher,
                chooser: &chooser,
                log,
            };
            on_search_stack(|| peer.initiator())
        }
        None => {
            let listener = TcpListener::bind((opts.listen.as_str(), opts.port))?;
            log(&format!("dxp: listening on {}", listener.local_addr()?));
            if opts.once {
                let (stream, addr) = listener.accept()?;
                drop(listener);
                let tag = "dxp #1".to_string();
                log(&format!("{tag}: connection from {addr}"));
                let peer = Peer {
                    conn: Conn::new(stream),
                    tag,
                    role: Role::Follower,
                    opts,
                    searcher: &searcher,
                    chooser: &chooser,
                    log,
                };
                return on_search_stack(|| {
                    peer.follow();
                    Ok(())
                });
            }
            std::thread::scope(|scope| {
                let mut count = 0u64;
                loop {
                    let (stream, addr) = match listener.accept() {
                        Ok(s) => s,
                        Err(e) => {
                            // Out of descriptors and the like: do not spin.
                            log(&format!("dxp: accept failed: {e}"));
                            std::thread::sleep(Duration::from_millis(100));
                            continue;
                        }
                    };
                    count += 1;
                    let tag = format!("dxp #{count}");
                    log(&format!("{tag}: connection from {addr}"));
                    let peer = Peer {
                        conn: Conn::new(stream),
                        tag: tag.clone(),
                        role: Role::Follower,
                        opts,
                        searcher: &searcher,
                        chooser: &chooser,
                        log,
                    };
                    let spawned = std::thread::Builder::new()
                        .name(tag.clone())
                        .stack_size(SEARCH_STACK)
                        .spawn_scoped(scope, move || peer.follow());
                    if let Err(e) = spawned {
                        log(&format!("{tag}: cannot start its thread: {e}; closed"));
                    }
                }
            })
        }
    }
}

/// Runs `f` on a thread with a stack large enough to search.
fn on_search_stack<F>(f: F) -> io::Result<()>
where
    F: FnOnce() -> io::Result<()> + Send,
{
    std::thread::scope(|scope| {
        let handle = std::thread::Builder::new()
            .name("dxp".into())
            .stack_size(SEARCH_STACK)
            .spawn_scoped(scope, f)?;
        match handle.join() {
            Ok(r) => r,
            Err(panic) => std::panic::resume_unwind(panic),
        }
    })
}

impl Peer<'_> {
    fn say(&self, s: &str) {
        (self.log)(&format!("{}: {s}", self.tag));
    }

    /// Logs an error about the peer's message and tells the peer in a CHAT.
    fn complain(&mut self, s: &str) -> io::Result<()> {
        self.say(s);
        let text: String = format!("error: {s}").chars().take(MAX_LEN - 1).collect();
        self.conn.send(&format!("C{text}"))
    }

    /// Serves a connection as Follower until the peer stops or the
    /// connection fails; either way only this connection ends.
    fn follow(mut self) {
        let mut state = State::Idle;
        let result = (|| -> io::Result<&'static str> {
            loop {
                let Some(frame) = self.conn.recv()? else {
                    return Ok("closed by the peer");
                };
                if self.handle(&mut state, &frame)? == Flow::Close {
                    return Ok("closed: the peer asked to stop");
                }
            }
        })();
        let abandoned = match state {
            State::Idle => "",
            State::Playing(_) | State::Ending => " (game abandoned)",
        };
        match result {
            Ok(how) => self.say(&format!("{how}{abandoned}")),
            Err(e) => self.say(&format!("connection lost: {e}{abandoned}")),
        }
    }

    /// Plays `opts.games` games as Initiator, alternating colours, then asks
    /// the Follower to stop.
    fn initiator(&mut self) -> io::Result<()> {
        let games = self.opts.games.max(1);
        for n in 1..=games {
            self.tag = format!("dxp: game {n}");
            let lost = |e: io::Error| io::Error::new(e.kind(), format!("game {n}: {e}"));
            let closed = || {
                io::Error::new(
                    io::ErrorKind::ConnectionAborted,
                    format!("game {n}: the peer closed the connection"),
                )
            };
            let ours = if n % 2 == 1 {
                Color::White
            } else {
                Color::Black
            };
            let start = Position::<R>::start();
            let (name, minutes, moves) = (&self.opts.name, self.opts.minutes, self.opts.moves);
            let req = gamereq_message(name, ours.flip(), minutes, moves, &start);
            self.conn.send(&req).map_err(lost)?;
            let code = loop {
                let frame = self.conn.recv().map_err(lost)?.ok_or_else(closed)?;
                match parse_message(&frame) {
                    Ok(Message::GameAcc { code, .. }) => break code,
                    Ok(Message::Chat(_)) => {}
                    Ok(Message::GameEnd { .. }) => {
                        self.say("the peer ended the session instead of accepting");
                        return Ok(());
                    }
                    Ok(_) => self
                        .complain("unexpected message while waiting for GAMEACC")
                        .map_err(lost)?,
                    Err(bad) if bad.header == Some(b'A') => {
                        self.say(&format!("bad GAMEACC: {bad}"));
                        return Err(io::Error::new(
                            io::ErrorKind::InvalidData,
                            format!("game {n}: bad GAMEACC: {bad}"),
                        ));
                    }
                    Err(bad) => self.complain(&bad.reason).map_err(lost)?,
                }
            };
            if code != 0 {
                let why = match code {
                    1 => "protocol version not supported",
                    2 => "not this game",
                    _ => "no game at all",
                };
                self.say(&format!("refused by the peer (GAMEACC code {code}: {why})"));
                return Ok(());
            }
            let g = DxpGame {
                start,
                game: Game::new(start),
                ours,
                clock: (minutes > 0).then(|| Duration::from_secs(60 * minutes as u64)),
                move_limit: moves,
            };
            let mut state = State::Idle;
            self.begin(&mut state, g).map_err(lost)?;
            while !matches!(state, State::Idle) {
                let frame = self.conn.recv().map_err(lost)?.ok_or_else(closed)?;
                if self.handle(&mut state, &frame).map_err(lost)? == Flow::Close {
                    self.say("the peer asked to stop");
                    return Ok(());
                }
            }
        }
        self.tag = "dxp".to_string();
        // The Follower may close as soon as it has read this.
        let _ = self.conn.send("E01");
        Ok(())
    }

    /// Handles one message from the peer.
    fn handle(&mut self, state: &mut State, frame: &[u8]) -> io::Result<Flow> {
        let msg = match parse_message(frame) {
            Ok(m) => m,
            Err(bad) => {
                self.bad_message(state, bad)?;
                return Ok(Flow::Continue);
            }
        };
        match msg {
            Message::GameReq(req) if self.role == Role::Follower => {
                self.game_request(state, *req)?
            }
            Message::GameReqVersion(v) if self.role == Role::Follower => {
                *state = State::Idle;
                self.say(&format!("GAMEREQ version {v:02} refused"));
                let acc = gameacc_message(&self.opts.name, 1);
                self.conn.send(&acc)?;
            }
            Message::Move(m) => match state {
                State::Playing(g) => match find_move(g.game.position(), &m) {
                    Ok(mv) => {
                        g.game.play(&mv);
                        if !self.play_our_move(g)? {
                            *state = State::Ending;
                        }
                    }
                    Err(e) => self.end_game(state, &e)?,
                },
                State::Ending => self.complain("MOVE after the game ended")?,
                State::Idle => self.complain("MOVE with no game in progress")?,
            },
            Message::GameEnd { reason, stop } => {
                match state {
                    State::Playing(_) => {
                        self.say(&format!(
                            "game over: the peer ended it ({})",
                            reason_text(reason)
                        ));
                        self.conn.send(&format!("E0{stop}"))?;
                    }
                    State::Ending => self.say("game over"),
                    // A GAMEEND between games (an Initiator ending its
                    // session) is answered too.
                    State::Idle => self.conn.send(&format!("E0{stop}"))?,
                }
                *state = State::Idle;
                if stop == 1 {
                    return Ok(Flow::Close);
                }
            }
            Message::Chat(_) => {}
            Message::BackReq { number, side } => self.back_request(state, number, side)?,
            Message::GameReq(_) | Message::GameReqVersion(_) => {
                self.complain("unexpected GAMEREQ: we are the Initiator")?
            }
            Message::GameAcc { .. } => self.complain("unexpected GAMEACC")?,
            Message::BackAcc { .. } => self.complain("unexpected BACKACC: we sent no BACKREQ")?,
        }
        Ok(Flow::Continue)
    }

    /// A message that is not valid DXP: a CHAT names the fault, and the
    /// message gets the answer its type calls for (see `protocol.md`).
    fn bad_message(&mut self, state: &mut State, bad: BadMessage) -> io::Result<()> {
        match bad.header {
            Some(b'R') if self.role == Role::Follower => {
                *state = State::Idle;
                self.complain(&bad.reason)?;
                let acc = gameacc_message(&self.opts.name, 2);
                self.conn.send(&acc)
            }
            Some(b'M' | b'E') if matches!(state, State::Playing(_)) => {
                self.end_game(state, &bad.reason)
            }
            Some(b'B') => {
                self.complain(&bad.reason)?;
                self.conn.send("K2")
            }
            _ => self.complain(&bad.reason),
        }
    }

    /// Ends the game on the peer's error: a CHAT naming it, then GAMEEND
    /// (reason 0, a next game welcome).
    fn end_game(&mut self, state: &mut State, error: &str) -> io::Result<()> {
        self.complain(error)?;
        self.say("game over: ended on the peer's error");
        *state = State::Ending;
        self.conn.send("E00")
    }

    /// Accepts a GAMEREQ (which abandons a game in progress) and starts it.
    fn game_request(&mut self, state: &mut State, req: GameReq) -> io::Result<()> {
        *state = State::Idle;
        let acc = gameacc_message(&self.opts.name, 0);
        self.conn.send(&acc)?;
        let start = req.start.unwrap_or_else(Position::<R>::start);
        self.say(&format!(
            "game with '{}': we play {}, {} min, {} moves{}",
            req.name,
            colour_name(req.follower),
            req.minutes,
            req.moves,
            if req.start.is_some() {
                ", from a given position"
            } else {
                ""
            }
        ));
        let g = DxpGame {
            start,
            game: Game::new(start),
            ours: req.follower,
            clock: (req.minutes > 0).then(|| Duration::from_secs(60 * u64::from(req.minutes))),
            move_limit: req.moves,
        };
        self.begin(state, g)
    }

    /// Starts a game: a fresh table, and our move if we begin.
    fn begin(&mut self, state: &mut State, g: DxpGame) -> io::Result<()> {
        lock(self.searcher).clear();
        // In the state first: a connection lost during our move abandons
        // this game.
        *state = State::Playing(g);
        if let State::Playing(g) = state {
            if g.start.side() == g.ours && !self.play_our_move(g)? {
                *state = State::Ending;
            }
        }
        Ok(())
    }

    /// BACKREQ: back to move `number` with `side` to move, when that is
    /// within the game (`K0`, then our move if it is ours), else `K2`.
    fn back_request(&mut self, state: &mut State, number: u32, side: Color) -> io::Result<()> {
        let State::Playing(g) = state else {
            self.complain("BACKREQ with no game in progress")?;
            return self.conn.send("K2");
        };
        let plies = 2 * (number as usize - 1) + usize::from(side != g.start.side());
        if plies > g.game.moves().len() {
            return self.conn.send("K2");
        }
        let mut game = Game::new(g.start);
        for m in &g.game.moves()[..plies] {
            game.play(m);
        }
        g.game = game;
        self.conn.send("K0")?;
        if g.game.position().side() == g.ours && !self.play_our_move(g)? {
            *state = State::Ending;
        }
        Ok(())
    }

    /// Sends our move, from the book or searched; returns false when the game is over
    /// (and we have sent GAMEEND).
    fn play_our_move(&mut self, g: &mut DxpGame) -> io::Result<bool> {
        if let Some(end) = game_end(g) {
            let what = if end == '1' { "we lose" } else { "a draw" };
            self.say(&format!("game over: {what}"));
            self.conn.send(&format!("E{end}0"))?;
            return Ok(false);
        }
        // A book move goes at once, and costs the clock nothing.
        if let Some(book) = self.opts.book.book(crate::Variant::International) {
            let pick = self
                .chooser
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .choose(
                    &book,
                    g.game.position(),
                    g.game
                        .plies_from_start()
                        .or_else(|| g.game.position().opening_plies()),
                );
            if let Some(bm) = pick {
                self.conn.send(&move_message(&bm.mv, 0))?;
                g.game.play(&bm.mv);
                return Ok(true);
            }
        }
        let limits = match g.clock {
            Some(left) => {
                let played = g.game.moves().len() as u32 / 2;
                let to_go = if g.move_limit > 0 {
                    g.move_limit.saturating_sub(played).max(5)
                } else {
                    40
                };
                Limits {
                    time: Some(left),
                    moves_to_go: Some(to_go),
                    ..Default::default()
                }
            }
            None => Limits::movetime(Duration::from_secs_f64(
                self.opts.default_move_time.max(0.01),
            )),
        };
        // The clock runs from here: waiting for another game's search
        // counts.
        let start = Instant::now();
        let job = Job {
            root: *g.game.position(),
            history: g.game.history().to_vec(),
            reversible: g.game.reversible_plies(),
            limits,
            multipv: 1,
            start,
            ponder: false,
        };
        let r = lock(self.searcher).search(&job, &mut |_| {});
        let used = start.elapsed();
        if let Some(c) = &mut g.clock {
            *c = c.saturating_sub(used);
        }
        match r.best {
            Some(mv) => {
                self.conn.send(&move_message(&mv, used.as_secs()))?;
                g.game.play(&mv);
                Ok(true)
            }
            None => {
                self.say("game over: we lose");
                self.conn.send("E10")?;
                Ok(false)
            }
        }
    }
}

/// The shared searcher (a panic elsewhere does not make it unusable).
fn lock(searcher: &Mutex<Searcher<R>>) -> std::sync::MutexGuard<'_, Searcher<R>> {
    searcher.lock().unwrap_or_else(|e| e.into_inner())
}

/// GAMEEND reason for the side to move when the game is over by rule: `1`
/// (it has lost) or `2` (draw).
fn game_end(g: &DxpGame) -> Option<char> {
    match g.game.outcome() {
        Some(Outcome::Win(_)) => Some('1'),
        Some(Outcome::Draw(_)) => Some('2'),
        None => {
            if g.move_limit > 0 && g.game.moves().len() as u32 >= 2 * g.move_limit {
                Some('2')
            } else {
                None
            }
        }
    }
}
