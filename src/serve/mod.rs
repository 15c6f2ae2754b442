//! `kondavo serve`: the web board. An HTTP server (axum on a small tokio
//! runtime) serves the page embedded in the binary and a JSON API
//! (`docs/web-api.md`); a WebSocket per tab runs its searches through
//! [`crate::protocol::session::Session`], the code a Hub GUI drives, on
//! blocking threads under a global cap. The page knows no rule: legal
//! moves, the game's end and notation come from [`board`].

pub mod analysis;
pub mod board;
pub mod db;
pub mod engine;
pub mod games;
pub mod http;
pub mod statics;
pub mod ws;

use std::collections::HashMap;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use engine::{Pool, Ticket};

/// How the server is started.
#[derive(Clone, Debug)]
pub struct ServeOptions {
    /// Address to listen on.
    pub host: String,
    /// Port (0: a free one, named on standard error).
    pub port: u16,
    /// Open the page in the system's browser once listening.
    pub open: bool,
    /// The games database file.
    pub db: PathBuf,
    /// Concurrent searches (0: one less than the cores, at least 1).
    pub max_searches: usize,
    /// Searches that may wait for a slot.
    pub max_queue: usize,
    /// Hash table of each search, in MiB.
    pub hash_mib: usize,
    /// Play from the embedded opening books in games.
    pub book: bool,
    /// Variants whose endgame databases are in use (loaded by the caller).
    pub egdb: Vec<crate::Variant>,
}

/// The database file used when `--db` is not given.
pub const DEFAULT_DB: &str = "kondavo-games.sqlite";

impl Default for ServeOptions {
    fn default() -> Self {
        ServeOptions {
            host: "127.0.0.1".to_string(),
            port: 8080,
            open: false,
            db: PathBuf::from(DEFAULT_DB),
            max_searches: 0,
            max_queue: 32,
            hash_mib: 32,
            book: true,
            egdb: Vec::new(),
        }
    }
}

/// What every handler shares.
#[derive(Debug)]
pub struct AppState {
    /// The options the server was started with.
    pub options: ServeOptions,
    /// The games.
    pub db: db::Db,
    /// The search slots.
    pub pool: Arc<Pool>,
    /// The engine's search in each game where it is thinking.
    pub searching: Mutex<HashMap<i64, Arc<Ticket>>>,
}

/// Concurrent searches when none is asked: one core left for the page.
fn default_searches() -> usize {
    std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(1)
        .saturating_sub(1)
        .max(1)
}

/// Runs the server until the process is stopped. A port that cannot be
/// had is an error naming the address; `announce` is told the address
/// actually bound (with port 0, the free port chosen).
pub fn run(opts: ServeOptions, announce: &dyn Fn(SocketAddr)) -> Result<(), String> {
    let db = db::Db::open(&opts.db)?;
    let searches = if opts.max_searches == 0 {
        default_searches()
    } else {
        opts.max_searches
    };
    let pool = Arc::new(Pool::new(
        searches,
        opts.max_queue,
        opts.hash_mib,
        opts.book,
    ));
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(|e| format!("cannot start the server's runtime: {e}"))?;
    rt.block_on(async move {
        let addr = format!("{}:{}", opts.host, opts.port);
        let listener = tokio::net::TcpListener::bind(&addr).await.map_err(|e| {
            if e.kind() == std::io::ErrorKind::AddrInUse {
                format!(
                    "port {} on {} is already in use (choose another with --port)",
                    opts.port, opts.host
                )
            } else {
                format!("cannot listen on {addr}: {e}")
            }
        })?;
        let bound = listener
            .local_addr()
            .map_err(|e| format!("cannot listen on {addr}: {e}"))?;
        announce(bound);
        if opts.open {
            open_browser(&format!("http://{bound}/"));
        }
        let state = Arc::new(AppState {
            options: opts,
            db,
            pool,
            searching: Mutex::new(HashMap::new()),
        });
        axum::serve(listener, http::router(state))
            .await
            .map_err(|e| format!("server stopped: {e}"))
    })
}

/// Asks the desktop to open `url`; failing that, the address printed at
/// start is enough.
fn open_browser(url: &str) {
    let cmd = if cfg!(target_os = "macos") {
        "open"
    } else if cfg!(target_os = "windows") {
        "explorer"
    } else {
        "xdg-open"
    };
    let _ = std::process::Command::new(cmd)
        .arg(url)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn();
}
