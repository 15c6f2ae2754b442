//! Helpers of the `kondavo serve` tests: the server as a child process on
//! a free loopback port with its own database, a plain HTTP/1.1 client and
//! a WebSocket client.
#![allow(dead_code)]

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc::{channel, Receiver};
use std::time::{Duration, Instant};

use serde_json::Value;

/// The kondavo binary under test.
pub const KONDAVO: &str = env!("CARGO_BIN_EXE_kondavo");

static DIRS: AtomicUsize = AtomicUsize::new(0);

/// A fresh directory for one test's files, removed when dropped.
#[derive(Debug)]
pub struct TempDir(pub PathBuf);

impl TempDir {
    /// A new empty directory.
    pub fn new(name: &str) -> TempDir {
        let dir = std::env::temp_dir().join(format!(
            "kondavo-serve-test-{}-{}-{}",
            std::process::id(),
            name,
            DIRS.fetch_add(1, Ordering::SeqCst)
        ));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("temp dir");
        TempDir(dir)
    }

    /// A path inside it.
    pub fn path(&self, name: &str) -> PathBuf {
        self.0.join(name)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// A running `kondavo serve`, killed when dropped.
#[derive(Debug)]
pub struct Server {
    pub child: Child,
    pub addr: SocketAddr,
    /// Later lines of its standard error.
    pub stderr: Receiver<String>,
}

impl Server {
    /// Starts `kondavo serve --port 0 --db <db>` with `extra` arguments
    /// and waits until it listens.
    pub fn start(db: &Path, extra: &[&str]) -> Server {
        let mut child = Command::new(KONDAVO)
            .arg("serve")
            .args(["--port", "0", "--db"])
            .arg(db)
            .args(extra)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("start kondavo serve");
        let err = child.stderr.take().expect("stderr");
        let (tx, rx) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(err).lines().map_while(Result::ok) {
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        let deadline = Instant::now() + Duration::from_secs(30);
        let mut said = Vec::new();
        let addr = loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let Ok(line) = rx.recv_timeout(left) else {
                break None;
            };
            if let Some(rest) = line.strip_prefix("kondavo serve: listening on http://") {
                break rest.trim_end_matches('/').parse::<SocketAddr>().ok();
            }
            said.push(line);
        };
        match addr {
            Some(addr) => Server {
                child,
                addr,
                stderr: rx,
            },
            None => {
                let _ = child.kill();
                let _ = child.wait();
                panic!("kondavo serve did not say where it listens: {said:?}");
            }
        }
    }

    /// Starts a server on a fresh database in `dir`.
    pub fn fresh(dir: &TempDir, extra: &[&str]) -> Server {
        Server::start(&dir.path("games.sqlite"), extra)
    }

    /// An HTTP request; see [`request`].
    pub fn req(&self, method: &str, path: &str, body: Option<&str>) -> Reply {
        request(self.addr, method, path, body.map(str::as_bytes))
    }

    /// GET, the answer as JSON.
    pub fn get(&self, path: &str) -> (u16, Value) {
        let r = self.req("GET", path, None);
        (r.status, r.json())
    }

    /// POST of a JSON value, the answer as JSON.
    pub fn post(&self, path: &str, body: &Value) -> (u16, Value) {
        let r = self.req("POST", path, Some(&body.to_string()));
        (r.status, r.json())
    }

    /// A WebSocket to `/api/ws`.
    pub fn ws(&self) -> Ws {
        Ws::connect(self.addr)
    }

    /// Kills the process at once (SIGKILL), as a crash would.
    pub fn kill(mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// An HTTP answer.
#[derive(Debug)]
pub struct Reply {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl Reply {
    /// A header's value (name in any case).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    /// The body as text.
    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }

    /// The body as JSON (panics naming the body when it is not).
    pub fn json(&self) -> Value {
        serde_json::from_slice(&self.body)
            .unwrap_or_else(|e| panic!("not JSON ({e}): {}", self.text()))
    }
}

/// One HTTP/1.1 request on its own connection (`Connection: close`), read
/// to the end; 30 s at most.
pub fn request(addr: SocketAddr, method: &str, path: &str, body: Option<&[u8]>) -> Reply {
    try_request(addr, method, path, body, Duration::from_secs(30))
        .unwrap_or_else(|e| panic!("{method} {path}: {e}"))
}

/// [`request`], with an error instead of a panic and a time limit.
pub fn try_request(
    addr: SocketAddr,
    method: &str,
    path: &str,
    body: Option<&[u8]>,
    timeout: Duration,
) -> Result<Reply, String> {
    let mut s = TcpStream::connect_timeout(&addr, timeout).map_err(|e| e.to_string())?;
    s.set_read_timeout(Some(timeout)).ok();
    s.set_write_timeout(Some(timeout)).ok();
    let body = body.unwrap_or(&[]);
    let head = format!(
        "{method} {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\
         Content-Type: application/json\r\nContent-Length: {}\r\n\r\n",
        body.len()
    );
    s.write_all(head.as_bytes()).map_err(|e| e.to_string())?;
    // A server may answer (413) before reading a large body, and close.
    let _ = s.write_all(body);
    let mut raw = Vec::new();
    s.read_to_end(&mut raw).map_err(|e| e.to_string())?;
    parse_reply(&raw)
}

fn parse_reply(raw: &[u8]) -> Result<Reply, String> {
    let end = raw
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .ok_or("no end of headers")?;
    let head = String::from_utf8_lossy(&raw[..end]);
    let mut lines = head.split("\r\n");
    let status: u16 = lines
        .next()
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|s| s.parse().ok())
        .ok_or("no status")?;
    let headers: Vec<(String, String)> = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(n, v)| (n.trim().to_string(), v.trim().to_string()))
        .collect();
    let mut body = raw[end + 4..].to_vec();
    let chunked = headers.iter().any(|(n, v)| {
        n.eq_ignore_ascii_case("transfer-encoding") && v.eq_ignore_ascii_case("chunked")
    });
    if chunked {
        body = dechunk(&body)?;
    }
    Ok(Reply {
        status,
        headers,
        body,
    })
}

fn dechunk(mut b: &[u8]) -> Result<Vec<u8>, String> {
    let mut out = Vec::new();
    loop {
        let nl = b.windows(2).position(|w| w == b"\r\n").ok_or("bad chunk")?;
        let size = usize::from_str_radix(String::from_utf8_lossy(&b[..nl]).trim(), 16)
            .map_err(|e| e.to_string())?;
        b = &b[nl + 2..];
        if size == 0 {
            return Ok(out);
        }
        out.extend_from_slice(&b[..size]);
        b = &b[size + 2..];
    }
}

/// A WebSocket client.
pub struct Ws {
    pub socket: tungstenite::WebSocket<TcpStream>,
}

impl std::fmt::Debug for Ws {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Ws")
    }
}

impl Ws {
    /// Connects to `/api/ws`.
    pub fn connect(addr: SocketAddr) -> Ws {
        let stream = TcpStream::connect(addr).expect("connect");
        let (socket, _) = tungstenite::client(format!("ws://{addr}/api/ws"), stream)
            .expect("WebSocket handshake");
        Ws { socket }
    }

    /// Sends a text message.
    pub fn send_text(&mut self, text: &str) {
        self.socket
            .send(tungstenite::Message::Text(text.into()))
            .expect("send");
    }

    /// Sends a JSON message.
    pub fn send(&mut self, v: &Value) {
        self.send_text(&v.to_string());
    }

    /// The next JSON message within `timeout`, or `None`.
    pub fn next(&mut self, timeout: Duration) -> Option<Value> {
        let deadline = Instant::now() + timeout;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return None;
            }
            self.socket
                .get_ref()
                .set_read_timeout(Some(left))
                .expect("timeout");
            match self.socket.read() {
                Ok(tungstenite::Message::Text(t)) => {
                    return Some(serde_json::from_str(t.as_str()).expect("JSON message"))
                }
                Ok(_) => continue,
                Err(tungstenite::Error::Io(e))
                    if matches!(
                        e.kind(),
                        std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                    ) =>
                {
                    return None
                }
                Err(e) => panic!("WebSocket: {e}"),
            }
        }
    }

    /// Messages until one of type `kind` (returned with those before it),
    /// within `timeout`; panics naming what came when none does.
    pub fn until(&mut self, kind: &str, timeout: Duration) -> (Value, Vec<Value>) {
        let deadline = Instant::now() + timeout;
        let mut seen = Vec::new();
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.next(left) {
                Some(v) if v["type"] == kind => return (v, seen),
                Some(v) => seen.push(v),
                None => panic!("no '{kind}' message within {timeout:?}; got {seen:?}"),
            }
        }
    }

    /// Closes the socket.
    pub fn close(mut self) {
        let _ = self.socket.close(None);
        let _ = self.socket.flush();
    }
}

/// The moves of `pos` (a variant, a FEN or none) as the engine lists them,
/// each move's text set, through the library.
pub fn engine_moves(variant: &str, fen: Option<&str>) -> Vec<kondavo::tools::moves::MoveInfo> {
    kondavo::tools::moves::legal_moves_of(variant.parse().expect("variant"), fen).expect("moves")
}
