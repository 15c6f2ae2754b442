//! DXP (DamExchange) over TCP: International draughts only.
//!
//! Messages are ASCII, 1 to 127 characters, each followed by a NUL byte and
//! sent in one write. The Initiator sends GAMEREQ (`R`), the Follower
//! answers GAMEACC (`A`); MOVE (`M`) messages then alternate; GAMEEND
//! (`E`), CHAT (`C`) and BACKREQ/BACKACC (`B`/`K`) as the specification
//! (mesander.nl/damexchange) says. See `protocol.md` for what we send.

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::time::{Duration, Instant};

use crate::game::Game;
use crate::geometry::{Bits, Geometry};
use crate::movegen::{generate, Move, MoveList};
use crate::position::Position;
use crate::rules::{Color, International, Rules};
use crate::search::threads::Searcher;
use crate::search::{Job, Limits};

type R = International;

/// Options of a DXP session.
#[derive(Clone, Debug)]
pub struct DxpOptions {
    /// TCP port (27531 is the standard).
    pub port: u16,
    /// Connect to this host as Initiator; listen as Follower when `None`.
    pub connect: Option<String>,
    /// Address to listen on as Follower.
    pub listen: String,
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
}

impl Default for DxpOptions {
    fn default() -> Self {
        DxpOptions {
            port: 27531,
            connect: None,
            listen: "127.0.0.1".to_string(),
            minutes: 5,
            moves: 0,
            games: 1,
            default_move_time: 1.0,
            threads: 1,
            hash: 64,
            name: format!("kondavo {}", env!("CARGO_PKG_VERSION")),
        }
    }
}

/// Splits a TCP stream into NUL-terminated messages.
struct Conn {
    stream: TcpStream,
    buf: Vec<u8>,
}

impl Conn {
    fn send(&mut self, msg: &str) -> std::io::Result<()> {
        let mut bytes: Vec<u8> = msg
            .bytes()
            .filter(|b| (1..128).contains(b))
            .take(127)
            .collect();
        bytes.push(0);
        self.stream.write_all(&bytes)?;
        self.stream.flush()
    }

    /// The next message, or `None` when the peer closed the connection.
    fn recv(&mut self) -> std::io::Result<Option<String>> {
        loop {
            if let Some(i) = self.buf.iter().position(|&b| b == 0) {
                let msg: Vec<u8> = self.buf.drain(..=i).take(i).collect();
                return Ok(Some(String::from_utf8_lossy(&msg).to_string()));
            }
            let mut chunk = [0u8; 1024];
            let n = self.stream.read(&mut chunk)?;
            if n == 0 {
                return Ok(None);
            }
            self.buf.extend_from_slice(&chunk[..n]);
            if self.buf.len() > 1 << 16 {
                // No terminator in 64 KiB: not DXP.
                self.buf.clear();
            }
        }
    }
}

/// DXP's colour letters: `W` White, `Z` Black.
fn colour_letter(c: Color) -> char {
    match c {
        Color::White => 'W',
        Color::Black => 'Z',
    }
}

fn parse_colour(c: u8) -> Option<Color> {
    match c {
        b'W' | b'w' => Some(Color::White),
        b'Z' | b'z' | b'B' | b'b' => Some(Color::Black),
        _ => None,
    }
}

/// The 50-character DXP board (`e`, `w`, `z`, `W`, `Z`).
pub fn write_dxp_board(pos: &Position<R>) -> String {
    (0..50)
        .map(|s| {
            let b = <R as Rules>::Geo::bit(s);
            let king = pos.kings() & b != 0;
            if pos.pieces(Color::White) & b != 0 {
                if king {
                    'W'
                } else {
                    'w'
                }
            } else if pos.pieces(Color::Black) & b != 0 {
                if king {
                    'Z'
                } else {
                    'z'
                }
            } else {
                'e'
            }
        })
        .collect()
}

/// Reads a DXP board and side to move.
pub fn parse_dxp_board(side: Color, board: &str) -> Result<Position<R>, String> {
    let b = board.as_bytes();
    if b.len() != 50 {
        return Err(format!("board of {} characters, expected 50", b.len()));
    }
    let (mut w, mut z, mut k) = (0u64, 0u64, 0u64);
    for (s, &c) in b.iter().enumerate() {
        let bit = <R as Rules>::Geo::bit(s);
        match c {
            b'e' | b'E' => {}
            b'w' => w |= bit,
            b'W' => {
                w |= bit;
                k |= bit
            }
            b'z' => z |= bit,
            b'Z' => {
                z |= bit;
                k |= bit
            }
            _ => return Err(format!("bad board character '{}'", c as char)),
        }
    }
    Ok(Position::from_parts(w, z, k, side))
}

/// A MOVE message for `mv` using `secs` seconds.
pub fn move_message(mv: &Move, secs: u64) -> String {
    let sq = |bit: u8| <R as Rules>::Geo::square(1u64 << bit) + 1;
    let caps: Vec<usize> = Bits(mv.captured)
        .map(|b| <R as Rules>::Geo::square(b) + 1)
        .collect();
    let mut m = format!(
        "M{:04}{:02}{:02}{:02}",
        secs.min(9999),
        sq(mv.from),
        sq(mv.to),
        caps.len()
    );
    for c in caps {
        m.push_str(&format!("{c:02}"));
    }
    m
}

/// Finds the legal move a MOVE message describes (from, to and the set of
/// captured squares).
pub fn parse_move_message(pos: &Position<R>, msg: &str) -> Result<Move, String> {
    let num = |a: usize, b: usize| -> Result<usize, String> {
        msg.get(a..b)
            .and_then(|t| t.parse::<usize>().ok())
            .ok_or_else(|| format!("bad MOVE message '{msg}'"))
    };
    let from = num(5, 7)?;
    let to = num(7, 9)?;
    let n = num(9, 11)?;
    let mut caps = 0u64;
    for i in 0..n {
        let c = num(11 + 2 * i, 13 + 2 * i)?;
        if !(1..=50).contains(&c) {
            return Err(format!("bad captured square {c} in '{msg}'"));
        }
        caps |= <R as Rules>::Geo::bit(c - 1);
    }
    if !(1..=50).contains(&from) || !(1..=50).contains(&to) {
        return Err(format!("bad square in '{msg}'"));
    }
    let bit = |s: usize| <R as Rules>::Geo::bit(s - 1).trailing_zeros() as u8;
    let mut list = MoveList::new();
    generate(pos, &mut list);
    list.iter()
        .find(|m| m.from == bit(from) && m.to == bit(to) && m.captured == caps)
        .copied()
        .ok_or_else(|| format!("illegal move in '{msg}'"))
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

/// Runs DXP as configured: as Follower, serves connections one after the
/// other until one ends with a stop request; as Initiator, plays
/// `opts.games` games.
pub fn run(opts: &DxpOptions, log: &mut dyn FnMut(String)) -> std::io::Result<()> {
    let mut searcher = Searcher::<R>::new(opts.threads, opts.hash);
    match &opts.connect {
        Some(host) => {
            let stream = TcpStream::connect((host.as_str(), opts.port))?;
            let mut conn = Conn {
                stream,
                buf: Vec::new(),
            };
            initiator(&mut conn, opts, &mut searcher, log)
        }
        None => {
            let listener = TcpListener::bind((opts.listen.as_str(), opts.port))?;
            log(format!("dxp: listening on {}:{}", opts.listen, opts.port));
            for stream in listener.incoming() {
                let mut conn = Conn {
                    stream: stream?,
                    buf: Vec::new(),
                };
                if follower(&mut conn, opts, &mut searcher, log)? {
                    break;
                }
            }
            Ok(())
        }
    }
}

/// Searches and sends our move; returns false when we have none (and have
/// sent GAMEEND).
fn play_our_move(
    conn: &mut Conn,
    g: &mut DxpGame,
    opts: &DxpOptions,
    searcher: &mut Searcher<R>,
    log: &mut dyn FnMut(String),
) -> std::io::Result<bool> {
    if let Some(end) = game_end(g) {
        conn.send(&format!("E{end}0"))?;
        return Ok(false);
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
        None => Limits::movetime(Duration::from_secs_f64(opts.default_move_time.max(0.01))),
    };
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
    let r = searcher.search(&job, &mut |_| {});
    let used = start.elapsed();
    if let Some(c) = &mut g.clock {
        *c = c.saturating_sub(used);
    }
    match r.best {
        Some(mv) => {
            let msg = move_message(&mv, used.as_secs());
            log(format!("dxp: send {msg}"));
            conn.send(&msg)?;
            g.game.play(&mv);
            Ok(true)
        }
        None => {
            conn.send("E10")?;
            Ok(false)
        }
    }
}

/// GAMEEND reason for the side to move when the game is over by rule: `1`
/// (it has lost) or `2` (draw).
fn game_end(g: &DxpGame) -> Option<char> {
    match g.game.outcome() {
        Some(crate::game::Outcome::Win(_)) => Some('1'),
        Some(crate::game::Outcome::Draw(_)) => Some('2'),
        None => {
            if g.move_limit > 0 && g.game.moves().len() as u32 >= 2 * g.move_limit {
                Some('2')
            } else {
                None
            }
        }
    }
}

/// Handles the messages every role shares during a game. Returns `Some`
/// when the game or the session ends (`true` = stop the session).
fn game_message(
    conn: &mut Conn,
    msg: &str,
    g: &mut DxpGame,
    opts: &DxpOptions,
    searcher: &mut Searcher<R>,
    log: &mut dyn FnMut(String),
) -> std::io::Result<Option<bool>> {
    match msg.as_bytes().first() {
        Some(b'M') => {
            if g.game.position().side() == g.ours {
                log(format!("dxp: MOVE out of turn ignored: {msg}"));
                return Ok(None);
            }
            match parse_move_message(g.game.position(), msg) {
                Ok(mv) => {
                    g.game.play(&mv);
                    play_our_move(conn, g, opts, searcher, log)?;
                }
                Err(e) => {
                    log(format!("dxp: {e}"));
                    conn.send(&format!("C{}", e.chars().take(120).collect::<String>()))?;
                }
            }
            Ok(None)
        }
        Some(b'E') => {
            let stop = msg.as_bytes().get(2) == Some(&b'1');
            conn.send(if stop { "E01" } else { "E00" })?;
            Ok(Some(stop))
        }
        Some(b'C') => Ok(None),
        Some(b'B') => {
            let n = msg.get(1..4).and_then(|t| t.parse::<usize>().ok());
            let c = msg.as_bytes().get(4).and_then(|&c| parse_colour(c));
            match (n, c) {
                (Some(n), Some(c)) if n >= 1 => {
                    let first = g.start.side();
                    let plies = 2 * (n - 1) + usize::from(c != first);
                    if plies <= g.game.moves().len() {
                        let moves: Vec<Move> = g.game.moves()[..plies].to_vec();
                        let mut game = Game::new(g.start);
                        for m in &moves {
                            game.play(m);
                        }
                        g.game = game;
                        conn.send("K0")?;
                        if g.game.position().side() == g.ours {
                            play_our_move(conn, g, opts, searcher, log)?;
                        }
                    } else {
                        conn.send("K2")?;
                    }
                }
                _ => conn.send("K1")?,
            }
            Ok(None)
        }
        Some(b'R') => Ok(None),
        _ => {
            log(format!("dxp: unknown message '{msg}'"));
            Ok(None)
        }
    }
}

/// Serves one connection as Follower. Returns true when the Initiator asked
/// to stop altogether.
fn follower(
    conn: &mut Conn,
    opts: &DxpOptions,
    searcher: &mut Searcher<R>,
    log: &mut dyn FnMut(String),
) -> std::io::Result<bool> {
    let mut game: Option<DxpGame> = None;
    while let Some(msg) = conn.recv()? {
        log(format!("dxp: recv {msg}"));
        if msg.starts_with('R') {
            let b = msg.as_bytes();
            let name = format!("A{:<32}", opts.name.chars().take(32).collect::<String>());
            if msg.get(1..3) != Some("01") {
                conn.send(&format!("{name}1"))?;
                continue;
            }
            let ours = b.get(35).and_then(|&c| parse_colour(c));
            let minutes = msg.get(36..39).and_then(|t| t.trim().parse::<u64>().ok());
            let moves = msg
                .get(39..42)
                .and_then(|t| t.trim().parse::<u32>().ok())
                .unwrap_or(0);
            let start = match b.get(42) {
                Some(b'B') => b
                    .get(43)
                    .and_then(|&c| parse_colour(c))
                    .ok_or_else(|| "bad colour to move".to_string())
                    .and_then(|side| parse_dxp_board(side, msg.get(44..94).unwrap_or(""))),
                _ => Ok(Position::<R>::start()),
            };
            match (ours, start) {
                (Some(ours), Ok(start)) => {
                    conn.send(&format!("{name}0"))?;
                    searcher.clear();
                    let mut g = DxpGame {
                        start,
                        game: Game::new(start),
                        ours,
                        clock: minutes
                            .filter(|&m| m > 0)
                            .map(|m| Duration::from_secs(60 * m)),
                        move_limit: moves,
                    };
                    if start.side() == ours {
                        play_our_move(conn, &mut g, opts, searcher, log)?;
                    }
                    game = Some(g);
                }
                (_, Err(e)) => {
                    log(format!("dxp: bad GAMEREQ: {e}"));
                    conn.send(&format!("{name}2"))?;
                }
                _ => conn.send(&format!("{name}2"))?,
            }
            continue;
        }
        match &mut game {
            Some(g) => {
                if let Some(stop) = game_message(conn, &msg, g, opts, searcher, log)? {
                    game = None;
                    if stop {
                        return Ok(true);
                    }
                }
            }
            None => {
                if msg.starts_with('E') {
                    let stop = msg.as_bytes().get(2) == Some(&b'1');
                    conn.send(if stop { "E01" } else { "E00" })?;
                    if stop {
                        return Ok(true);
                    }
                } else if !msg.starts_with('C') {
                    log(format!("dxp: no game in progress for '{msg}'"));
                }
            }
        }
    }
    Ok(false)
}

/// Plays `opts.games` games as Initiator, alternating colours.
fn initiator(
    conn: &mut Conn,
    opts: &DxpOptions,
    searcher: &mut Searcher<R>,
    log: &mut dyn FnMut(String),
) -> std::io::Result<()> {
    for n in 0..opts.games.max(1) {
        let ours = if n % 2 == 0 {
            Color::White
        } else {
            Color::Black
        };
        let start = Position::<R>::start();
        let req = format!(
            "R01{:<32}{}{:03}{:03}B{}{}",
            opts.name.chars().take(32).collect::<String>(),
            colour_letter(ours.flip()),
            opts.minutes.min(999),
            opts.moves.min(999),
            colour_letter(start.side()),
            write_dxp_board(&start)
        );
        conn.send(&req)?;
        let accepted = loop {
            match conn.recv()? {
                None => return Ok(()),
                Some(m) if m.starts_with('A') => break m.ends_with('0'),
                Some(_) => {}
            }
        };
        if !accepted {
            log("dxp: game refused".to_string());
            return Ok(());
        }
        searcher.clear();
        let mut g = DxpGame {
            start,
            game: Game::new(start),
            ours,
            clock: (opts.minutes > 0).then(|| Duration::from_secs(60 * opts.minutes as u64)),
            move_limit: opts.moves,
        };
        if start.side() == ours {
            play_our_move(conn, &mut g, opts, searcher, log)?;
        }
        loop {
            let Some(msg) = conn.recv()? else {
                return Ok(());
            };
            log(format!("dxp: recv {msg}"));
            if let Some(stop) = game_message(conn, &msg, &mut g, opts, searcher, log)? {
                if stop {
                    return Ok(());
                }
                break;
            }
        }
    }
    conn.send("E01")?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::notation::fen::parse_fen;

    #[test]
    fn move_messages_round_trip() {
        let p = Position::<R>::start();
        let mut list = MoveList::new();
        generate(&p, &mut list);
        for m in &list {
            assert_eq!(parse_move_message(&p, &move_message(m, 12)).unwrap(), *m);
        }
        let p = parse_fen::<R>("W:W28,32:B23").unwrap();
        let mut list = MoveList::new();
        generate(&p, &mut list);
        assert_eq!(move_message(&list[0], 0), "M0000281901".to_string() + "23");
        assert!(parse_move_message(&p, "M00002819").is_err());
        assert!(parse_move_message(&p, "M0000281901").is_err());
    }

    #[test]
    fn board_round_trip() {
        let p = Position::<R>::start();
        let s = write_dxp_board(&p);
        assert_eq!(s, "zzzzzzzzzzzzzzzzzzzzeeeeeeeeeewwwwwwwwwwwwwwwwwwww");
        assert_eq!(parse_dxp_board(Color::White, &s).unwrap(), p);
        assert!(parse_dxp_board(Color::White, "zz").is_err());
    }
}
