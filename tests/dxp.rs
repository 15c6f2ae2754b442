//! DXP over TCP, driven through the real binary on 127.0.0.1: the Follower
//! outlives clients that vanish, idle or misbehave; messages are checked
//! strictly; the Initiator ends a game on its peer's error.

use std::io::{ErrorKind, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::mpsc::Receiver;
use std::time::{Duration, Instant};

use kondavo::movegen::{generate, MoveList};
use kondavo::position::Position;
use kondavo::protocol::dxp::message::parse_message;
use kondavo::protocol::dxp::{move_message, parse_move_message};
use kondavo::rules::International;
use proptest::prelude::*;

mod common;

type Pos = Position<International>;

/// Generous: only a broken engine ever waits this long.
const PATIENCE: Duration = Duration::from_secs(60);

/// A running `kondavo dxp`, its stderr lines on a channel.
struct Engine {
    child: Child,
    lines: Receiver<String>,
    log: Vec<String>,
}

impl Engine {
    fn start(args: &[&str]) -> Engine {
        let mut child = Command::new(env!("CARGO_BIN_EXE_kondavo"))
            .arg("dxp")
            .args(["--movetime", "0.05", "--hash", "1"])
            .args(args)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("start kondavo");
        let rx = common::line_channel(child.stderr.take().unwrap());
        Engine {
            child,
            lines: rx,
            log: Vec::new(),
        }
    }

    /// A Follower on a port the system picks; returns it with its port.
    fn follower(args: &[&str]) -> (Engine, u16) {
        let mut args = args.to_vec();
        args.extend(["--port", "0"]);
        let mut e = Engine::start(&args);
        let line = e.wait_log(|l| l.starts_with("dxp: listening on "));
        let port = line
            .rsplit(':')
            .next()
            .and_then(|p| p.parse().ok())
            .unwrap_or_else(|| panic!("no port in '{line}'"));
        (e, port)
    }

    /// Waits for a stderr line matching `pred` (lines already seen count).
    fn wait_log(&mut self, pred: impl Fn(&str) -> bool) -> String {
        if let Some(l) = self.log.iter().find(|l| pred(l)) {
            return l.clone();
        }
        let deadline = Instant::now() + PATIENCE;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(l) => {
                    self.log.push(l.clone());
                    if pred(&l) {
                        return l;
                    }
                }
                Err(_) => panic!("no such log line; log so far: {:#?}", self.log),
            }
        }
    }

    /// Waits until `n` stderr lines match `pred`.
    fn wait_log_count(&mut self, n: usize, pred: impl Fn(&str) -> bool) {
        let deadline = Instant::now() + PATIENCE;
        while self.log.iter().filter(|l| pred(l)).count() < n {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(l) => self.log.push(l),
                Err(_) => panic!("fewer than {n} such log lines: {:#?}", self.log),
            }
        }
    }

    fn assert_running(&mut self) {
        if let Some(status) = self.child.try_wait().unwrap() {
            self.drain_log();
            panic!("kondavo exited ({status}); log: {:#?}", self.log);
        }
    }

    /// Waits for the process to exit.
    fn wait_exit(&mut self) -> ExitStatus {
        let deadline = Instant::now() + PATIENCE;
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                self.drain_log();
                return status;
            }
            assert!(Instant::now() < deadline, "kondavo did not exit");
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// Collects the remaining stderr (the process has exited).
    fn drain_log(&mut self) {
        while let Ok(l) = self.lines.recv_timeout(Duration::from_secs(5)) {
            self.log.push(l);
        }
    }
}

impl Drop for Engine {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// One side of a DXP connection: messages split at NUL bytes.
struct Peer {
    stream: TcpStream,
    buf: Vec<u8>,
}

impl Peer {
    fn new(stream: TcpStream) -> Peer {
        stream.set_read_timeout(Some(PATIENCE)).unwrap();
        Peer {
            stream,
            buf: Vec::new(),
        }
    }

    fn connect(port: u16) -> Peer {
        Peer::new(TcpStream::connect(("127.0.0.1", port)).expect("connect"))
    }

    fn send(&mut self, msg: &str) {
        self.send_raw(msg.as_bytes());
    }

    fn send_raw(&mut self, bytes: &[u8]) {
        let mut v = bytes.to_vec();
        v.push(0);
        self.stream.write_all(&v).unwrap();
    }

    /// The next message; `None` when the other side closed the connection.
    fn recv(&mut self) -> Option<String> {
        loop {
            if let Some(i) = self.buf.iter().position(|&b| b == 0) {
                let m: Vec<u8> = self.buf.drain(..=i).take(i).collect();
                return Some(String::from_utf8(m).expect("kondavo sends ASCII"));
            }
            let mut chunk = [0u8; 512];
            match self.stream.read(&mut chunk) {
                Ok(0) => return None,
                Ok(n) => self.buf.extend_from_slice(&chunk[..n]),
                Err(e) if e.kind() == ErrorKind::ConnectionReset => return None,
                Err(e) => panic!("no message from kondavo: {e}"),
            }
        }
    }

    fn expect(&mut self, prefix: &str) -> String {
        match self.recv() {
            Some(m) if m.starts_with(prefix) => m,
            other => panic!("expected a message starting with '{prefix}', got {other:?}"),
        }
    }

    /// Expects the connection to be closed by kondavo.
    fn expect_closed(&mut self) {
        if let Some(m) = self.recv() {
            panic!("expected the connection closed, got '{m}'");
        }
    }

    /// Waits until something has arrived, without reading it.
    fn wait_for_data(&mut self) {
        let mut b = [0u8; 1];
        assert!(self.stream.peek(&mut b).unwrap() > 0, "connection closed");
    }
}

/// A GAMEREQ from the start position (flag `A`) with the Follower's colour.
fn gamereq(follower: char, minutes: u32, moves: u32) -> String {
    format!("R01{:<32}{follower}{minutes:03}{moves:03}A", "test client")
}

/// A GAMEREQ with a board (flag `B`).
fn gamereq_board(follower: char, to_move: char, board: &str) -> String {
    format!("R01{:<32}{follower}000000B{to_move}{board}", "test client")
}

const START_BOARD: &str = "zzzzzzzzzzzzzzzzzzzzeeeeeeeeeewwwwwwwwwwwwwwwwwwww";

fn first_legal(pos: &Pos) -> kondavo::Move {
    let mut list = MoveList::new();
    generate(pos, &mut list);
    list[0]
}

/// Starts a game in which kondavo plays Black: returns the position after
/// our first move 32-28, sent.
fn game_as_white(peer: &mut Peer) -> Pos {
    peer.send(&gamereq('Z', 0, 0));
    let acc = peer.expect("A");
    assert!(acc.ends_with('0'), "game refused: '{acc}'");
    let mut pos = Pos::start();
    let mv = parse_move_message(&pos, "M0000322800").unwrap();
    pos.play(&mv);
    peer.send("M0000322800");
    pos
}

/// Reads kondavo's MOVE, checks it is legal and plays it on `pos`.
fn their_move(peer: &mut Peer, pos: &mut Pos) {
    let m = peer.expect("M");
    let mv = parse_move_message(pos, &m).unwrap_or_else(|e| panic!("'{m}': {e}"));
    pos.play(&mv);
}

/// A client plays a few moves against the Follower and leaves properly.
fn play_a_little(port: u16) {
    let mut peer = Peer::connect(port);
    let mut pos = game_as_white(&mut peer);
    for _ in 0..3 {
        their_move(&mut peer, &mut pos);
        let mv = first_legal(&pos);
        peer.send(&move_message(&mv, 0));
        pos.play(&mv);
    }
    their_move(&mut peer, &mut pos);
    peer.send("E00");
    assert_eq!(peer.expect("E"), "E00");
}

#[test]
fn clients_vanishing_mid_game_end_only_their_game() {
    let (mut engine, port) = Engine::follower(&[]);

    // Closes before kondavo's first move is written (kondavo plays White).
    let mut a = Peer::connect(port);
    a.send(&gamereq('W', 0, 0));
    drop(a);

    // Closes right after kondavo's move.
    let mut b = Peer::connect(port);
    let mut pos = game_as_white(&mut b);
    their_move(&mut b, &mut pos);
    drop(b);

    // Resets: closing with unread data makes the system send a TCP RST.
    let mut c = Peer::connect(port);
    c.send(&gamereq('W', 0, 0));
    c.wait_for_data();
    std::thread::sleep(Duration::from_millis(100));
    drop(c);

    // Closes while kondavo is searching its answer.
    let mut d = Peer::connect(port);
    game_as_white(&mut d);
    drop(d);

    engine.wait_log_count(4, |l| l.ends_with("(game abandoned)"));
    engine.assert_running();
    play_a_little(port);
    engine.assert_running();
}

#[test]
fn an_idle_client_does_not_hold_up_others() {
    let (mut engine, port) = Engine::follower(&[]);
    let _silent = Peer::connect(port);
    let mut half = Peer::connect(port);
    // Half a message, never finished.
    half.stream.write_all(b"R01").unwrap();
    engine.wait_log_count(2, |l| l.contains("connection from"));
    play_a_little(port);
    engine.assert_running();
}

#[test]
fn gameend_with_stop_code_1_closes_only_that_connection() {
    let (mut engine, port) = Engine::follower(&[]);

    // The peer ends the game on its turn and asks to stop.
    let mut a = Peer::connect(port);
    let mut pos = game_as_white(&mut a);
    their_move(&mut a, &mut pos);
    a.send("E01");
    assert_eq!(a.expect("E"), "E01");
    a.expect_closed();

    // kondavo ends a one-move game; the peer's confirming GAMEEND (as
    // pydraughts sends it: the reason repeated, stop code 1) is not
    // answered, and the connection closes.
    let mut b = Peer::connect(port);
    b.send(&gamereq('W', 0, 1));
    assert!(b.expect("A").ends_with('0'));
    let mut pos = Pos::start();
    their_move(&mut b, &mut pos);
    let mv = first_legal(&pos);
    b.send(&move_message(&mv, 0));
    assert_eq!(b.expect("E"), "E20");
    b.send("E21");
    b.expect_closed();

    // GAMEEND between games.
    let mut c = Peer::connect(port);
    c.send("E01");
    assert_eq!(c.expect("E"), "E01");
    c.expect_closed();

    engine.assert_running();
    play_a_little(port);
    engine.assert_running();
}

#[test]
fn once_serves_one_connection_then_exits() {
    let (mut engine, port) = Engine::follower(&["--once"]);
    let mut peer = Peer::connect(port);
    let mut pos = game_as_white(&mut peer);
    their_move(&mut peer, &mut pos);
    peer.send("E01");
    assert_eq!(peer.expect("E"), "E01");
    peer.expect_closed();
    let status = engine.wait_exit();
    assert!(status.success(), "{status}; log: {:#?}", engine.log);

    // A client that vanishes ends the session too, without an error.
    let (mut engine, port) = Engine::follower(&["--once"]);
    let mut peer = Peer::connect(port);
    game_as_white(&mut peer);
    drop(peer);
    let status = engine.wait_exit();
    assert!(status.success(), "{status}; log: {:#?}", engine.log);
}

#[test]
fn a_move_with_trailing_characters_ends_the_game() {
    let (mut engine, port) = Engine::follower(&[]);
    let mut peer = Peer::connect(port);
    for bad in [
        "M0000322800x",
        "M00003228000",
        "M0000322800 ",
        "M0000322801",
    ] {
        peer.send(&gamereq('Z', 0, 0));
        assert!(peer.expect("A").ends_with('0'));
        peer.send(bad);
        let chat = peer.expect("C");
        assert!(chat.contains("MOVE of"), "'{bad}': {chat}");
        // The game is over: GAMEEND, never a move in answer.
        assert_eq!(peer.expect("E"), "E00", "after '{bad}'");
        peer.send("E00");
    }
    // A well-formed illegal move too.
    peer.send(&gamereq('Z', 0, 0));
    assert!(peer.expect("A").ends_with('0'));
    peer.send("M0000322900");
    assert!(peer.expect("C").contains("illegal move 32-29"));
    assert_eq!(peer.expect("E"), "E00");
    // A move after the end is refused too; the connection goes on.
    peer.send("M0000322800");
    assert!(peer.expect("C").contains("after the game ended"));
    peer.send("E00");
    peer.send(&gamereq('Z', 0, 0));
    assert!(peer.expect("A").ends_with('0'));
    peer.send("M0000322800");
    peer.expect("M");
    engine.assert_running();
}

#[test]
fn a_man_on_its_promotion_row_is_refused() {
    let (mut engine, port) = Engine::follower(&[]);
    let mut peer = Peer::connect(port);
    let mut white_on_3 = START_BOARD.as_bytes().to_vec();
    white_on_3[2] = b'w';
    let mut black_on_48 = START_BOARD.as_bytes().to_vec();
    black_on_48[47] = b'z';
    for (board, square) in [(white_on_3, "square 3"), (black_on_48, "square 48")] {
        let board = String::from_utf8(board).unwrap();
        peer.send(&gamereq_board('W', 'W', &board));
        let chat = peer.expect("C");
        assert!(
            chat.contains("promotion row") && chat.contains(square),
            "{chat}"
        );
        let acc = peer.expect("A");
        assert_eq!(acc.len(), 34);
        assert!(acc.ends_with('2'), "'{acc}'");
    }
    // Kings there are fine.
    let mut kings = START_BOARD.as_bytes().to_vec();
    kings[2] = b'W';
    kings[47] = b'Z';
    peer.send(&gamereq_board(
        'Z',
        'W',
        std::str::from_utf8(&kings).unwrap(),
    ));
    assert!(peer.expect("A").ends_with('0'));
    engine.assert_running();
}

#[test]
fn malformed_messages_get_an_error_and_the_server_keeps_serving() {
    let (mut engine, port) = Engine::follower(&[]);
    let mut peer = Peer::connect(port);
    let long = vec![b'C'; 300];
    let long_move = [b"M0000322800".as_slice(), &[b'0'; 200]].concat();
    let bad_name = [
        b"R01".as_slice(),
        "tëst".as_bytes(),
        &[b' '; 28],
        b"Z000000A",
    ]
    .concat();
    let req = |rest: &str| format!("R01{:<32}{rest}", "test client").into_bytes();
    let (colour, time, flag) = (req("X000000A"), req("Z0x5000A"), req("Z000000Q"));
    let (trailing, no_board) = (req("Z000000Aextra"), req("Z000000BW"));
    // (message, the error named, the answer after the CHAT if any)
    let cases: Vec<(&[u8], &str, Option<&str>)> = vec![
        (b"", "empty message", None),
        (b"X", "unknown message type 'X'", None),
        (b"m0000322800", "unknown message type 'm'", None),
        (b"\xff\xfe", "non-ASCII byte 0xff", None),
        (&long, "longer than 127", None),
        (&long_move, "longer than 127", None),
        (b"M12", "too short", None),
        (b"M00a0322800", "time must be 4 digits", None),
        (b"M0000+32800", "from square must be 2 digits", None),
        (b"M0000992800", "from square 99", None),
        (b"M0000322800", "no game in progress", None),
        (b"E", "GAMEEND of 1 characters", None),
        (b"E05", "stop code must be a digit 0 to 1", None),
        (b"R", "too short", Some("A")),
        (b"R0", "too short", Some("A")),
        (b"R1x", "version must be 2 digits", Some("A")),
        (b"R01short", "too short", Some("A")),
        (&bad_name, "non-ASCII", Some("A")),
        (&colour, "Follower colour must be W or Z", Some("A")),
        (&time, "thinking time must be 3 digits", Some("A")),
        (&flag, "start flag must be A or B", Some("A")),
        (
            &trailing,
            "GAMEREQ of 48 characters, expected 43",
            Some("A"),
        ),
        (
            &no_board,
            "GAMEREQ of 44 characters, expected 94",
            Some("A"),
        ),
        (b"B01W", "BACKREQ of 4 characters", Some("K2")),
        (b"B000W", "move number 000", Some("K2")),
        (b"B001W", "no game in progress", Some("K2")),
        (b"K", "BACKACC of 1 characters", None),
        (b"K0", "unexpected BACKACC", None),
        (b"A", "GAMEACC of 1 characters", None),
    ];
    for (msg, error, answer) in &cases {
        peer.send_raw(msg);
        let chat = peer.expect("C");
        assert!(
            chat.contains(error),
            "{:?}: expected '{error}' in '{chat}'",
            msg.escape_ascii().to_string()
        );
        if let Some(a) = answer {
            let got = peer.expect(a);
            if *a == "A" {
                assert!(got.ends_with('2'), "{got}");
            }
        }
    }
    // GAMEREQ of another version: GAMEACC 1.
    peer.send("R02whatever");
    assert!(peer.expect("A").ends_with('1'));

    // During a game, a malformed MOVE or GAMEEND ends it.
    for bad in [b"M12".as_slice(), b"E", b"E4", b"M000032\xc3\xa800"] {
        let mut pos = game_as_white(&mut peer);
        their_move(&mut peer, &mut pos);
        peer.send_raw(bad);
        peer.expect("C");
        assert_eq!(peer.expect("E"), "E00");
        peer.send("E00");
    }
    // The same connection still plays, and so does another.
    game_as_white(&mut peer);
    peer.expect("M");
    engine.assert_running();
    play_a_little(port);
    engine.assert_running();
}

/// A fake Follower for kondavo as Initiator; returns the connection and
/// the engine.
fn initiator(args: &[&str]) -> (Engine, Peer) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port().to_string();
    let mut all = vec!["--connect", "127.0.0.1", "--port", &port, "--minutes", "0"];
    all.extend(args);
    let engine = Engine::start(&all);
    let (stream, _) = listener.accept().unwrap();
    (engine, Peer::new(stream))
}

#[test]
fn initiator_ends_a_game_on_a_bad_move_and_plays_the_next() {
    let (mut engine, mut peer) = initiator(&["--games", "2"]);
    let req = peer.expect("R");
    assert_eq!(req.len(), 94, "'{req}'");
    assert_eq!(&req[35..36], "Z", "kondavo plays White first: '{req}'");
    peer.send(&format!("A{:<32}0", "fake follower"));
    let mut pos = Pos::start();
    their_move(&mut peer, &mut pos);
    peer.send("M0000192300x");
    assert!(peer.expect("C").contains("MOVE of 12 characters"));
    assert_eq!(peer.expect("E"), "E00");
    peer.send("E00");

    // Game 2: kondavo is Black.
    let req = peer.expect("R");
    assert_eq!(&req[35..36], "W", "'{req}'");
    peer.send(&format!("A{:<32}0", "fake follower"));
    let mut pos = Pos::start();
    let mv = first_legal(&pos);
    peer.send(&move_message(&mv, 0));
    pos.play(&mv);
    their_move(&mut peer, &mut pos);
    peer.send("E01");
    assert_eq!(peer.expect("E"), "E01");
    let status = engine.wait_exit();
    assert!(status.success(), "{status}: {:#?}", engine.log);
    assert!(
        engine
            .log
            .iter()
            .any(|l| l.contains("game 1") && l.contains("MOVE of 12 characters")),
        "{:#?}",
        engine.log
    );
}

#[test]
fn initiator_reports_a_peer_that_closes_mid_game() {
    let (mut engine, mut peer) = initiator(&[]);
    peer.expect("R");
    peer.send(&format!("A{:<32}0", "fake follower"));
    let mut pos = Pos::start();
    their_move(&mut peer, &mut pos);
    drop(peer);
    let status = engine.wait_exit();
    assert!(!status.success(), "{:#?}", engine.log);
    assert!(
        engine
            .log
            .iter()
            .any(|l| l.contains("game 1: the peer closed the connection")),
        "{:#?}",
        engine.log
    );
}

proptest! {
    /// Any bytes at all: an answer, never a panic; what parses has the
    /// exact length of its type.
    #[test]
    fn parsing_any_bytes_never_panics(frame in proptest::collection::vec(any::<u8>(), 0..140)) {
        let _ = parse_message(&frame);
    }

    /// Valid messages with one byte changed or cut short: checked, never a
    /// panic, and a MOVE accepted only at its exact length.
    #[test]
    fn damaged_messages_are_checked(
        which in 0usize..4,
        at in 0usize..100,
        byte in any::<u8>(),
        cut in any::<bool>(),
    ) {
        let board = format!("R01{:<32}Z005000BW{START_BOARD}", "x");
        let samples = [
            board.as_str(),
            "M001205250422122320",
            "E21",
            "B005Z",
        ];
        let mut m = samples[which].as_bytes().to_vec();
        let at = at % m.len();
        if cut {
            m.truncate(at);
        } else {
            m[at] = byte;
        }
        if let Ok(kondavo::protocol::dxp::message::Message::Move(mv)) = parse_message(&m) {
            prop_assert_eq!(m.len(), 11 + 2 * mv.captures.len());
        }
    }
}
