//! The Hub protocol, driven through the real binary: every example of
//! `protocol.md`, bad input of every kind, and commands during a search.

use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{channel, Receiver};
use std::time::{Duration, Instant};

/// A running engine with its output lines on a channel.
struct Engine {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<String>,
    stderr: std::thread::JoinHandle<Vec<u8>>,
}

impl Engine {
    fn start() -> Engine {
        let mut child = Command::new(env!("CARGO_BIN_EXE_kondavo"))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("start kondavo");
        let stdout = child.stdout.take().unwrap();
        let mut err = child.stderr.take().unwrap();
        let (tx, rx) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        let stderr = std::thread::spawn(move || {
            let mut v = Vec::new();
            let _ = err.read_to_end(&mut v);
            v
        });
        Engine {
            stdin: child.stdin.take(),
            child,
            lines: rx,
            stderr,
        }
    }

    fn send(&mut self, line: &str) {
        let stdin = self.stdin.as_mut().expect("stdin open");
        stdin.write_all(line.as_bytes()).unwrap();
        stdin.write_all(b"\n").unwrap();
        stdin.flush().unwrap();
    }

    fn send_bytes(&mut self, bytes: &[u8]) {
        let stdin = self.stdin.as_mut().expect("stdin open");
        stdin.write_all(bytes).unwrap();
        stdin.flush().unwrap();
    }

    /// Waits for a line matching `pattern`, returning the lines before it.
    fn expect(&mut self, pattern: &str, timeout: Duration) -> (String, Vec<String>) {
        let deadline = Instant::now() + timeout;
        let mut skipped = Vec::new();
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(l) if matches(pattern, &l) => return (l, skipped),
                Ok(l) => skipped.push(l),
                Err(_) => {
                    panic!("no line matching '{pattern}' within {timeout:?}; got {skipped:#?}")
                }
            }
        }
    }

    /// Closes input and waits for the process; returns its stderr.
    fn finish(mut self) -> Vec<u8> {
        drop(self.stdin.take());
        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                assert!(status.success(), "engine exited with {status}");
                break;
            }
            assert!(
                Instant::now() < deadline,
                "engine did not quit at end of input"
            );
            std::thread::sleep(Duration::from_millis(5));
        }
        self.stderr.join().unwrap()
    }
}

/// Glob match: `*` matches any run of characters.
fn matches(pattern: &str, line: &str) -> bool {
    let parts: Vec<&str> = pattern.split('*').collect();
    if parts.len() == 1 {
        return pattern == line;
    }
    let mut rest = line;
    for (i, p) in parts.iter().enumerate() {
        if i == 0 {
            match rest.strip_prefix(p) {
                Some(r) => rest = r,
                None => return false,
            }
        } else if i == parts.len() - 1 {
            return rest.ends_with(p);
        } else {
            match rest.find(p) {
                Some(k) => rest = &rest[k + p.len()..],
                None => return false,
            }
        }
    }
    true
}

/// The `hub` blocks of protocol.md.
fn examples() -> Vec<Vec<String>> {
    let text =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/protocol.md")).unwrap();
    let mut out = Vec::new();
    let mut cur: Option<Vec<String>> = None;
    for line in text.lines() {
        if line.trim() == "```hub" {
            cur = Some(Vec::new());
        } else if line.trim() == "```" {
            if let Some(c) = cur.take() {
                out.push(c);
            }
        } else if let Some(c) = &mut cur {
            c.push(line.to_string());
        }
    }
    out
}

/// Every example of protocol.md behaves as written.
#[test]
fn protocol_md_examples() {
    let blocks = examples();
    assert!(blocks.len() >= 6, "protocol.md lost its examples");
    for block in blocks {
        let mut e = Engine::start();
        for line in &block {
            if let Some(cmd) = line.strip_prefix("> ") {
                e.send(cmd);
            } else if let Some(want) = line.strip_prefix("< ") {
                e.expect(want, Duration::from_secs(20));
            }
        }
        let err = e.finish();
        assert!(err.is_empty(), "stderr: {}", String::from_utf8_lossy(&err));
    }
}

/// A small deterministic generator for fuzzing.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

const SEEDS: &[&str] = &[
    "hub",
    "init",
    "set-param name=variant value=russian",
    "set-param name=threads value=2",
    "set-param name=hash value=8",
    "pos pos=Wbbbbbbbbbbbbbbbbbbbbeeeeeeeeeewwwwwwwwwwwwwwwwwwww moves=\"32-28 19-23\"",
    "pos fen=\"W:W31-50:B1-20\"",
    "pos start moves=\"33-28\"",
    "level depth=3",
    "level time=1 inc=0.1 moves=40",
    "level move-time=0.01",
    "new-game",
    "ping",
    "fen",
    "eval",
    "d",
];

/// Thousands of random and mutated lines, then a normal search: every line
/// is answered or ignored, nothing reaches stderr, the engine keeps its
/// state and still searches.
#[test]
fn fuzzed_input_never_breaks_the_engine() {
    let mut rng = Rng(0x1234_5678_9ABC_DEF1);
    let mut e = Engine::start();
    e.send("set-param name=hash value=4");
    for i in 0..6000 {
        let mut line: Vec<u8> = match rng.below(4) {
            0 => (0..rng.below(120)).map(|_| rng.next() as u8).collect(),
            1 => (0..rng.below(60))
                .map(|_| b" =\"-x:abcdefhgiklmnoprstuvwzWBKe0123456789"[rng.below(41)])
                .collect(),
            _ => {
                let mut s = SEEDS[rng.below(SEEDS.len())].as_bytes().to_vec();
                for _ in 0..1 + rng.below(4) {
                    let k = rng.below(s.len() + 1);
                    match rng.below(3) {
                        0 if k < s.len() => {
                            s.remove(k);
                        }
                        1 => s.insert(k, rng.next() as u8),
                        _ if k < s.len() => s[k] = rng.next() as u8,
                        _ => {}
                    }
                }
                s
            }
        };
        // Never start an unbounded search or quit from fuzz input.
        let text = String::from_utf8_lossy(&line).to_string();
        if text.contains("go")
            || text.contains("quit")
            || text.contains("perft")
            || text.contains("inf")
        {
            continue;
        }
        line.retain(|&b| b != b'\n' && b != b'\r');
        line.push(b'\n');
        e.send_bytes(&line);
        if i % 500 == 0 {
            e.send("ping");
            e.expect("pong", Duration::from_secs(10));
        }
    }
    // A huge line, and bytes that are not UTF-8.
    e.send_bytes(&vec![b'a'; 200_000]);
    e.send_bytes(b"\n\xff\xfe\xfd pos pos=\xc3\x28\n");
    e.send("set-param name=variant value=normal");
    e.send("pos pos=Wbbbbbbbbbbbbbbbbbbbbeeeeeeeeeewwwwwwwwwwwwwwwwwwww moves=\"32-28 19-23\"");
    e.send("level depth=4");
    e.send("go think");
    e.expect("done move=28x19x23*", Duration::from_secs(30));
    let err = e.finish();
    assert!(err.is_empty(), "stderr: {}", String::from_utf8_lossy(&err));
}

/// During a search only stop, ping, ponder-hit and quit act; other commands
/// are refused and change nothing; an illegal pos keeps the previous one.
#[test]
fn commands_during_a_search() {
    let mut e = Engine::start();
    e.send("pos fen=\"W:W28,32:B23,19\"");
    e.send("pos pos=Wnonsense");
    e.expect("error message=\"bad position*", Duration::from_secs(5));
    e.send("level infinite");
    e.send("go analyze");
    e.send("pos start");
    e.expect(
        "error message=\"'pos' during a search: send stop first\"",
        Duration::from_secs(5),
    );
    e.send("set-param name=variant value=english");
    e.expect("error*", Duration::from_secs(5));
    e.send("ping");
    e.expect("pong", Duration::from_secs(5));
    e.send("ponder-hit");
    e.send("stop");
    // The search ran on the position set before the refused commands.
    let (done, _) = e.expect("done*", Duration::from_secs(5));
    assert!(done.starts_with("done move="), "{done}");
    e.send("fen");
    e.expect("fen fen=W:W28,32:B19,23 pos=*", Duration::from_secs(5));
    e.send("quit");
    let err = e.finish();
    assert!(err.is_empty());
}

/// A stop sent straight after go is not lost, and stop answers quickly.
#[test]
fn stop_right_after_go() {
    let mut e = Engine::start();
    for _ in 0..20 {
        e.send("level infinite");
        e.send("go analyze");
        e.send("stop");
        e.expect("done*", Duration::from_secs(5));
    }
    assert!(e.finish().is_empty());
}

/// Latency of `hub`..`wait`, `ping`..`pong` during a search and
/// `stop`..`done`, printed for the record (run with --nocapture). Only a
/// generous bound is asserted: a hang is a bug, milliseconds are measured.
#[test]
fn latency_is_reported() {
    let mut e = Engine::start();
    let t = Instant::now();
    e.send("hub");
    e.expect("wait", Duration::from_secs(5));
    let hub = t.elapsed();
    e.send("init");
    e.expect("ready", Duration::from_secs(5));
    e.send("level infinite");
    e.send("go analyze");
    std::thread::sleep(Duration::from_millis(200));
    let mut worst_ping = Duration::ZERO;
    for _ in 0..20 {
        let t = Instant::now();
        e.send("ping");
        e.expect("pong", Duration::from_secs(5));
        worst_ping = worst_ping.max(t.elapsed());
    }
    let t = Instant::now();
    e.send("stop");
    e.expect("done*", Duration::from_secs(5));
    let stop = t.elapsed();
    println!("latency: hub..wait {hub:?}, worst ping..pong mid-search {worst_ping:?}, stop..done {stop:?}");
    assert!(
        hub < Duration::from_secs(2)
            && worst_ping < Duration::from_secs(2)
            && stop < Duration::from_secs(2)
    );
    assert!(e.finish().is_empty());
}

/// A ponder-hit sent straight after `go ponder` is not lost: the search
/// then runs on its clock and ends by itself.
#[test]
fn ponder_hit_right_after_go() {
    let mut e = Engine::start();
    for _ in 0..10 {
        e.send("pos start");
        e.send("level time=0.2");
        e.send("go ponder");
        e.send("ponder-hit");
        e.expect("done move=*", Duration::from_secs(5));
    }
    assert!(e.finish().is_empty());
}
