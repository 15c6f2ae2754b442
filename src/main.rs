//! The `kondavo` command line.

use std::io::IsTerminal;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use clap::{Parser, Subcommand};
use kondavo::book::{Book, Chooser, Source};
use kondavo::notation::fen::{parse_fen, write_fen};
use kondavo::position::Position;
use kondavo::protocol::dxp::DxpOptions;

/// jemalloc, built to back its memory with transparent huge pages
/// (`thp:always`, set in `.cargo/config.toml`): the transposition table
/// and the evaluation's tables are read at random, and with 4 KiB pages
/// most of those reads also miss the address translation cache.
#[cfg(not(target_env = "msvc"))]
#[global_allocator]
static ALLOCATOR: tikv_jemallocator::Jemalloc = tikv_jemallocator::Jemalloc;

use kondavo::protocol::hub::Hub;
use kondavo::protocol::Output;
use kondavo::search::Limits;
use kondavo::stdio::{err, out};
use kondavo::tools::analyse::AnalyseOptions;
use kondavo::tools::matchrun::MatchOptions;
use kondavo::tools::players::{EngineSpec, TimeControl};
use kondavo::tools::stats::Sprt;
use kondavo::tools::{
    self,
    perft::{self, PerftOptions},
};
use kondavo::{with_rules, Variant};

/// kondavo: a draughts engine for English, Italian, International,
/// Brazilian, Spanish, Russian and Turkish draughts.
#[derive(Parser, Debug)]
#[command(name = "kondavo", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
    /// Learned evaluation weights to use instead of the built-in ones (a
    /// file written by `kondavo train`; repeat for several variants), or
    /// `start:<variant>` for that variant's generation 0 (material,
    /// advancement, centre, runaways, king mobility).
    #[arg(long, global = true)]
    weights: Vec<String>,
    /// Endgame databases for the search: a directory written by `kondavo
    /// egdb build` (for search, analyse, match's in-process players, dxp,
    /// serve and the Hub, whose `egdb-path` parameter it sets).
    #[arg(long, global = true, value_name = "DIR")]
    egdb_path: Option<String>,
    /// Largest piece count of the databases loaded (default: as many as
    /// the directory holds for the variant).
    #[arg(long, global = true, value_name = "N", value_parser = egdb_pieces, requires = "egdb_path")]
    egdb_pieces: Option<u32>,
}

/// `kondavo serve`'s options.
#[derive(clap::Args, Debug)]
struct ServeArgs {
    /// TCP port (0: a free one, named on stderr).
    #[arg(long, default_value_t = 8080)]
    port: u16,
    /// Address to listen on: 127.0.0.1 keeps the board on this computer;
    /// 0.0.0.0 serves it to the local network.
    #[arg(long, default_value = "127.0.0.1")]
    host: String,
    /// Open the page in the browser once the server listens.
    #[arg(long)]
    open: bool,
    /// The games database (SQLite), created when missing.
    #[arg(long, value_name = "FILE", default_value = kondavo::serve::DEFAULT_DB)]
    db: PathBuf,
    /// Searches run at once, all tabs together [default: one less than the
    /// cores, at least 1].
    #[arg(long, value_name = "N", value_parser = at_least_one)]
    max_searches: Option<usize>,
    /// Searches that may wait for a free slot; past it a search is refused
    /// with a message.
    #[arg(long, value_name = "N", default_value_t = 32)]
    max_queue: usize,
    /// Hash table of each search in MiB.
    #[arg(long, value_name = "MiB", default_value_t = 32, value_parser = hash_mib)]
    hash: usize,
    /// Play games from the embedded opening books (on or off).
    #[arg(long, value_name = "on|off", default_value = "on", value_parser = on_off, action = clap::ArgAction::Set)]
    book: bool,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Speak the Hub protocol on stdin/stdout (what plain `kondavo` does).
    Hub,
    /// Play International draughts over DXP (TCP): listen as Follower, or
    /// connect as Initiator with --connect.
    Dxp {
        /// TCP port (Follower: 0 picks a free one, named on stderr).
        #[arg(long, default_value_t = 27531)]
        port: u16,
        /// Connect to this host and send game requests (Initiator).
        #[arg(long)]
        connect: Option<String>,
        /// Address to listen on (Follower).
        #[arg(long, default_value = "127.0.0.1")]
        listen: String,
        /// Follower: serve one connection, then exit (without it, serve
        /// every client until killed).
        #[arg(long, conflicts_with = "connect")]
        once: bool,
        /// Initiator: minutes per player per game (0: no clock, --movetime
        /// a move).
        #[arg(long, default_value_t = 5)]
        minutes: u32,
        /// Initiator: moves per game (0 = no limit).
        #[arg(long, default_value_t = 0)]
        moves: u32,
        /// Initiator: number of games.
        #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..))]
        games: u32,
        /// Seconds per move when a game request gives no time.
        #[arg(long, default_value_t = 1.0, allow_negative_numbers = true, value_parser = positive_seconds)]
        movetime: f64,
        /// Search threads.
        #[arg(long, default_value_t = 1, value_parser = at_least_one)]
        threads: usize,
        /// Hash table size in MiB.
        #[arg(long, default_value_t = kondavo::search::threads::DEFAULT_HASH_MIB, value_parser = hash_mib)]
        hash: usize,
        /// The opening book (on unless --book off).
        #[command(flatten)]
        book: BookArgs,
    },
    /// Count the leaves of the legal move tree (move generator check and
    /// speed).
    Perft {
        /// Rule set: international (normal, standard, polish), english
        /// (american, checkers), italian, brazilian, spanish, russian
        /// (ukrainian, shashki), turkish.
        #[arg(long, default_value = "international")]
        variant: Variant,
        /// Depth in plies (0 counts the empty path: 1).
        #[arg(long, default_value_t = 6, allow_negative_numbers = true)]
        depth: u32,
        /// Start from this PDN FEN instead of the start position.
        #[arg(long)]
        fen: Option<String>,
        /// Print the count below each root move.
        #[arg(long)]
        divide: bool,
        /// Threads (root moves split among them).
        #[arg(long, default_value_t = 1, value_parser = at_least_one)]
        threads: usize,
        /// Count capture routes with the same from, to and captured pieces
        /// as different moves.
        #[arg(long)]
        keep_duplicates: bool,
    },
    /// Endgame databases: build them, verify them, probe a position.
    Egdb {
        #[command(subcommand)]
        action: EgdbCommand,
    },
    /// Opening books: build one by drop-out expansion, show a position's
    /// book moves.
    Book {
        #[command(subcommand)]
        action: BookCommand,
    },
    /// Search one position and print each iteration and the best move.
    Search {
        /// Rule set (as for perft).
        #[arg(long, default_value = "international")]
        variant: Variant,
        /// Position (PDN FEN); the start position if absent.
        #[arg(long)]
        fen: Option<String>,
        #[command(flatten)]
        search: SearchArgs,
        /// The opening book (off unless --book or --book-path).
        #[command(flatten)]
        book: BookArgs,
    },
    /// Play games between engines: Elo, SPRT, PDN, rating lists.
    Match(Box<MatchArgs>),
    /// Analyse positions (FEN or every position of a PDN) for scripts:
    /// JSON lines, or an annotated PDN.
    Analyse(AnalyseArgs),
    /// The web board: a local web server with the board of every
    /// variant, games against the engine, analysis and leaderboards
    /// (docs/web.md).
    Serve(ServeArgs),
    /// List the legal moves of a position: the Hub move text, the PDN
    /// text and the captured squares, one move a line.
    Moves {
        /// Rule set (as for perft).
        #[arg(long, default_value = "international")]
        variant: Variant,
        /// Position (PDN FEN); the start position if absent.
        #[arg(long)]
        fen: Option<String>,
        /// JSON lines: hub, pdn, from, to, captured, route, promotes.
        #[arg(long)]
        json: bool,
    },
    /// Play the engine against itself on all cores and write every game
    /// for `train` (format: docs/learning.md).
    Selfplay(SelfplayArgs),
    /// Fit learned-evaluation weights to self-play games.
    Train(TrainArgs),
    /// Search the fixed bench positions to a fixed depth; the node count is
    /// a signature of the search.
    Bench {
        /// One rule set, or all of them when absent.
        #[arg(long)]
        variant: Option<Variant>,
        /// Depth (default: per variant).
        #[arg(long, allow_negative_numbers = true, value_parser = positive_depth)]
        depth: Option<i32>,
        /// Search threads.
        #[arg(long, default_value_t = 1, value_parser = at_least_one)]
        threads: usize,
        /// Hash table size in MiB.
        #[arg(long, default_value_t = 16, value_parser = hash_mib)]
        hash: usize,
    },
}

/// Options of `kondavo match`.
#[derive(clap::Args, Debug)]
#[command(after_help = "\
Engines (--a, --b, --engine):
  kondavo[:OPTIONS]           kondavo's search in this process
  \"<command line>\"            a Hub engine, e.g. \"dame hub\"
  cmd=<command line>,OPTIONS  a Hub engine with options
OPTIONS are key=value separated by commas (quote a value holding commas):
  name=N        name in tables and the PDN (default: the engine's id name=;
                names given twice get #<position> appended)
  threads=N     search threads (Hub: set-param name=threads; in-process 1)
  hash=MiB      hash table (Hub: set-param name=hash; in-process 64)
  depth=D, nodes=N   fixed depth / nodes per move instead of the clock
  tc=B+I        this engine's own clock (time odds; PDN tags
                WhiteTimeControl and BlackTimeControl name both)
  history=game  send the game's initial position and every move (default
                history=reversible: the position after the last capture or
                man move and the moves since)
  book=on       play from the engine's opening book (default off: the
                match supplies the openings; Hub engines declaring `book`
                are sent set-param name=book value=false)
  param.X=V     set-param name=X value=V (Hub engines only)
--a-option, --b-option and --each add options to A, B or every engine:
  --a \"dame hub\" --a-option hash=64 --each history=game
protocol.md (section Match) lists everything sent to a Hub engine.")]
struct MatchArgs {
    /// Rule set.
    #[arg(long, default_value = "international")]
    variant: Variant,
    /// Games per pairing (each opening is played with both colours)
    /// [default: 2]; with --merge, checks the files hold every game.
    #[arg(long, value_parser = at_least_one)]
    games: Option<usize>,
    /// Fixed seconds per move.
    #[arg(long, conflicts_with = "tc", allow_negative_numbers = true, value_parser = positive_seconds)]
    movetime: Option<f64>,
    /// Clock per player: `<base>+<inc>` in seconds, e.g. `5+0.05`.
    #[arg(long)]
    tc: Option<String>,
    /// Games played at once.
    #[arg(long, default_value_t = 1, value_parser = at_least_one)]
    concurrency: usize,
    /// Openings: a file (FENs or ballots one per line, or a PDN file) or a
    /// built-in deck by name (english-3move); random balanced openings when
    /// absent.
    #[arg(long)]
    openings: Option<String>,
    /// Plies of generated openings.
    #[arg(long, default_value_t = 6)]
    opening_plies: usize,
    /// PDN file of all games (appended and flushed after each game).
    #[arg(long)]
    pdn: Option<String>,
    /// Stop early by SPRT: `elo0,elo1,alpha,beta` (two engines).
    #[arg(long)]
    sprt: Option<String>,
    /// Continue a match from the games already in the PDN file (engines
    /// are matched by name).
    #[arg(long)]
    resume: bool,
    /// Play only shard <index>/<count> of the match's games (index
    /// 0-based, 0 to count-1): the games g (0-based) with g % count ==
    /// index, each with the opening and colours of the whole match, into
    /// its own --pdn; with --sprt a shard plays all its games.
    #[arg(long, value_name = "INDEX/COUNT", value_parser = clap::value_parser!(tools::shard::Shard))]
    shard: Option<tools::shard::Shard>,
    /// Read the shards' PDN files and print the whole match's endings,
    /// SPRT state (with --sprt, over the games in order) and result.
    #[arg(long, num_args = 1.., value_name = "PDN", conflicts_with_all = ["a", "b", "engines", "shard", "resume", "pdn"])]
    merge: Vec<String>,
    /// With --merge: count only games 1 to N, the complete prefix of a
    /// match stopped by hand (later games and a game cut short at the end
    /// of a file are left out).
    #[arg(long, value_name = "N", requires = "merge", conflicts_with = "games", value_parser = at_least_one)]
    first: Option<usize>,
    /// With --merge: each PDN file is a whole match of its own between the
    /// same engines (run with other seeds or on other machines, numbered
    /// from 1), not a shard; the result counts the files' games one file
    /// after the other, in the order named (so does --sprt).
    #[arg(long, requires = "merge", conflicts_with_all = ["games", "first"])]
    runs: bool,
    /// Engine A (see "Engines" below).
    #[arg(long)]
    a: Option<String>,
    /// Engine B.
    #[arg(long)]
    b: Option<String>,
    /// More engines (repeat): a round robin, or a gauntlet with --gauntlet.
    #[arg(long = "engine")]
    engines: Vec<String>,
    /// An option of engine A, `key=value` (repeat).
    #[arg(long = "a-option")]
    a_options: Vec<String>,
    /// An option of engine B, `key=value` (repeat).
    #[arg(long = "b-option")]
    b_options: Vec<String>,
    /// An option of every engine, `key=value` (repeat; applied before each
    /// engine's own).
    #[arg(long)]
    each: Vec<String>,
    /// With more than two engines, the first plays all the others.
    #[arg(long)]
    gauntlet: bool,
    /// Draw games longer than this many plies.
    #[arg(long, default_value_t = 400, value_parser = at_least_one)]
    max_plies: usize,
    /// Resign adjudication: `<centi-men>,<plies>` both engines agree on.
    #[arg(long)]
    resign: Option<String>,
    /// Draw adjudication: `<centi-men>,<plies>,<after plies>`.
    #[arg(long)]
    draw: Option<String>,
    /// Seed of generated openings.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Seconds a move may exceed its time (clock plus increment, or the
    /// move time) before the mover loses on time.
    #[arg(long, default_value_t = 0.2)]
    time_margin: f64,
    /// Stop the match when one engine fails (exits, hangs, cannot
    /// restart) this many games in a row.
    #[arg(long, default_value_t = 3, value_parser = at_least_one)]
    max_failures: usize,
    /// Seconds a Hub engine gets for each of `hub` (until `wait`), `init`
    /// (until `ready`) and `ping` (until `pong`).
    #[arg(long, default_value_t = 30.0, value_parser = positive_seconds)]
    start_timeout: f64,
    /// File for the Hub engines' standard error [default: the PDN file
    /// with extension .engines.log, else kondavo-match-engines.log].
    #[arg(long)]
    engine_log: Option<String>,
    /// Without a terminal on stderr: seconds between plain progress lines
    /// (written after a game ends; 0 = after every game).
    #[arg(long, default_value_t = 10.0)]
    progress_interval: f64,
}

/// Options of `kondavo selfplay`.
#[derive(clap::Args, Debug)]
struct SelfplayArgs {
    /// Rule set.
    #[arg(long, default_value = "international")]
    variant: Variant,
    /// Games the file should hold when done (with --shard: games of the
    /// whole run; with --merge: checks the shards hold that many).
    #[arg(long, value_parser = at_least_one, required_unless_present = "merge")]
    games: Option<usize>,
    /// Nodes per move.
    #[arg(long, allow_negative_numbers = true, value_parser = at_least_one_u64)]
    nodes: Option<u64>,
    /// Fixed depth per move.
    #[arg(long, allow_negative_numbers = true, value_parser = positive_depth)]
    depth: Option<i32>,
    /// Games played at once (default: all cores).
    #[arg(long, value_parser = at_least_one)]
    threads: Option<usize>,
    /// Random plies at the start of each game.
    #[arg(long, default_value_t = 8)]
    opening_plies: usize,
    /// Seed (game i is the same for the same seed and settings).
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Output file (appended with --resume).
    #[arg(long, required_unless_present = "merge")]
    out: Option<String>,
    /// Continue the games already in --out.
    #[arg(long)]
    resume: bool,
    /// Play only shard <index>/<count> of the run's games (index 0-based,
    /// 0 to count-1): the games g with g % count == index, each as the
    /// single run plays it. Put the shards together with --merge.
    #[arg(long, value_name = "INDEX/COUNT", value_parser = clap::value_parser!(tools::shard::Shard))]
    shard: Option<tools::shard::Shard>,
    /// Write to this file the games of the shards' FILES in the single
    /// run's order: byte for byte the single run's file.
    #[arg(long, value_name = "OUT", conflicts_with_all = ["out", "shard", "resume"], requires = "files")]
    merge: Option<String>,
    /// The shards' files (with --merge).
    #[arg(requires = "merge", value_name = "FILES")]
    files: Vec<String>,
    /// Hash table per game in MiB.
    #[arg(long, default_value_t = 8, value_parser = hash_mib)]
    hash: usize,
    /// Games longer than this many plies are drawn.
    #[arg(long, default_value_t = 300, value_parser = at_least_one)]
    max_plies: usize,
    /// Adjudicate a win once the score stays beyond this (centi-men) for
    /// 4 plies.
    #[arg(long, default_value_t = 800, value_parser = at_least_one)]
    adjudicate: usize,
}

/// Options of `kondavo train`.
#[derive(clap::Args, Debug)]
struct TrainArgs {
    /// Rule set.
    #[arg(long, default_value = "international")]
    variant: Variant,
    /// Self-play files (repeat), or directories whose .kdsp files are all
    /// read, sorted by name.
    #[arg(long, required = true)]
    data: Vec<String>,
    /// Weights file to write.
    #[arg(long)]
    out: String,
    /// Start from these weights (a previous generation).
    #[arg(long)]
    init: Option<String>,
    /// Passes over the data.
    #[arg(long, default_value_t = 10, value_parser = at_least_one)]
    epochs: usize,
    /// Weight of the search score in the target, 0 to 1.
    #[arg(long, default_value_t = 0.0)]
    lambda: f32,
    /// L2 penalty on every weight but the material counts, against the
    /// mean loss of a position (1e-4 wipes the patterns out; 1e-9 to 0
    /// fit best on a million positions).
    #[arg(long, default_value_t = 1e-9)]
    l2: f32,
    /// Adam step size in centi-men.
    #[arg(long, default_value_t = 1.0)]
    lr: f32,
    /// Positions per step.
    #[arg(long, default_value_t = 16384, value_parser = at_least_one)]
    batch: usize,
    /// Share of the games held out for validation.
    #[arg(long, default_value_t = 0.05)]
    valid: f64,
    /// Sigmoid scale in centi-men (fitted to the data's scores if absent).
    #[arg(long)]
    scale: Option<f32>,
    /// Shuffle and split seed.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// How the data was made, stored in the file's description.
    #[arg(long, default_value = "")]
    note: String,
    /// Rescale the result so that a man in the opening is worth this many
    /// centi-men (the units of the search's margins); 0 keeps the fitted
    /// units.
    #[arg(long, default_value_t = 100.0)]
    man: f32,
    /// Fit the big windows (off: they stay at zero, so the weights score
    /// as layout 1 did and the search skips them).
    #[arg(long, value_name = "on|off", default_value = "on", value_parser = on_off, action = clap::ArgAction::Set)]
    big_windows: bool,
    /// A big window entry seen in fewer training positions than this
    /// stays at zero (too rare to learn; with every entry fitted the
    /// weights lost 155 Elo, see docs/learning.md). 0: fit every entry.
    #[arg(long, default_value_t = 500)]
    big_min_count: u32,
    /// Fit the king windows (off: they stay at zero, so the weights score
    /// as layout 2 did and the search skips them).
    #[arg(long, value_name = "on|off", default_value = "on", value_parser = on_off, action = clap::ArgAction::Set)]
    king_windows: bool,
    /// A king window entry seen in fewer training positions than this
    /// stays at zero. 0: fit every entry.
    #[arg(long, default_value_t = 100)]
    king_min_count: u32,
}

/// The opening book of `search` and `dxp`.
#[derive(clap::Args, Debug)]
struct BookArgs {
    /// Play from the opening book: on or off (`--book` alone: on).
    /// Default: off (search and dxp).
    #[arg(long, value_name = "on|off", num_args = 0..=1, default_missing_value = "on", value_parser = on_off)]
    book: Option<bool>,
    /// A book file (written by `kondavo book build`) instead of the one
    /// built into the binary.
    #[arg(long, value_name = "FILE")]
    book_path: Option<PathBuf>,
    /// Book moves within this many centi-men of the best are chosen
    /// among at random.
    #[arg(long, default_value_t = kondavo::book::DEFAULT_MARGIN, value_parser = clap::value_parser!(i32).range(0..=1000))]
    book_margin: i32,
    /// Seed of that choice (0: from the clock, so that games vary).
    #[arg(long, default_value_t = 0)]
    book_seed: u64,
    /// The margin applies within this many plies of the start position;
    /// later only the book's best moves are played.
    #[arg(long, default_value_t = kondavo::book::DEFAULT_BOOK_PLY as u64, value_parser = clap::value_parser!(u64).range(0..=200))]
    book_ply: u64,
    /// Play a book move only where the book goes on at least this many
    /// plies past it, along its best line.
    #[arg(long, default_value_t = kondavo::book::DEFAULT_MIN_DEPTH, value_parser = clap::value_parser!(u32).range(0..=40))]
    book_depth: u32,
}

impl BookArgs {
    /// The book to play from: off, a file (read and checked now), or the
    /// one built in; `default_on` when neither --book nor --book-path says.
    fn source(&self, variant: Variant, default_on: bool) -> Result<Source, String> {
        if !self.book.unwrap_or(default_on || self.book_path.is_some()) {
            return Ok(Source::Off);
        }
        match &self.book_path {
            Some(p) => Book::open_for(p, variant)
                .map(|b| Source::File(std::sync::Arc::new(b)))
                .map_err(|e| format!("--book-path: {e}")),
            None => Ok(Source::Embedded),
        }
    }

    fn chooser(&self) -> Chooser {
        let mut c = Chooser::new(self.book_margin, self.book_seed);
        c.set_min_depth(self.book_depth);
        c.set_ply_limit(self.book_ply as usize);
        c
    }
}

/// `on`/`off` (or `true`/`false`, `yes`/`no`, `1`/`0`).
fn on_off(text: &str) -> Result<bool, String> {
    match text.trim().to_ascii_lowercase().as_str() {
        "on" | "true" | "yes" | "1" => Ok(true),
        "off" | "false" | "no" | "0" => Ok(false),
        _ => Err(format!("'{text}' is not on or off")),
    }
}

/// Limits and resources of one search (`search`, and each position of
/// `analyse`).
#[derive(clap::Args, Debug)]
struct SearchArgs {
    /// Fixed depth.
    #[arg(long, allow_negative_numbers = true, value_parser = positive_depth)]
    depth: Option<i32>,
    /// Fixed time in seconds.
    #[arg(long, allow_negative_numbers = true, value_parser = positive_seconds)]
    movetime: Option<f64>,
    /// Fixed node count.
    #[arg(long, allow_negative_numbers = true, value_parser = at_least_one_u64)]
    nodes: Option<u64>,
    /// Search threads.
    #[arg(long, default_value_t = 1, value_parser = at_least_one)]
    threads: usize,
    /// Hash table size in MiB.
    #[arg(long, default_value_t = kondavo::search::threads::DEFAULT_HASH_MIB, value_parser = hash_mib)]
    hash: usize,
}

impl SearchArgs {
    /// The limits given, or `default` when none is.
    fn limits(&self, default: Limits) -> Limits {
        if self.depth.is_none() && self.nodes.is_none() && self.movetime.is_none() {
            return default;
        }
        Limits {
            depth: self.depth,
            nodes: self.nodes,
            movetime: self
                .movetime
                .map(|s| Duration::from_secs_f64(s.clamp(0.0, 1e9))),
            ..Default::default()
        }
    }
}

/// Options of `kondavo analyse`.
#[derive(clap::Args, Debug)]
struct AnalyseArgs {
    /// Rule set (a PDN game's GameType tag overrides it).
    #[arg(long, default_value = "international")]
    variant: Variant,
    /// A position (repeat for several); the start position when neither
    /// --fen nor --pdn is given.
    #[arg(long)]
    fen: Vec<String>,
    /// A PDN file: every position of every game.
    #[arg(long)]
    pdn: Option<String>,
    #[command(flatten)]
    search: SearchArgs,
    /// Lines per position.
    #[arg(long, default_value_t = 1, value_parser = at_least_one)]
    multipv: usize,
    /// JSON lines on standard output (the default).
    #[arg(long)]
    json: bool,
    /// Write the PDN games annotated with scores and best moves here
    /// (needs --pdn).
    #[arg(long, requires = "pdn")]
    annotate: Option<String>,
}

/// The tables a `build` or `verify` covers.
#[derive(clap::Args, Debug)]
struct EgdbTables {
    /// Rule set (as for perft).
    #[arg(long)]
    variant: Variant,
    /// Most pieces on the board, both sides together (2 to 8).
    #[arg(long)]
    pieces: u32,
    /// Database directory (files go under <dir>/<variant>/).
    #[arg(long, default_value = "egdb")]
    dir: std::path::PathBuf,
    /// Threads (default: every core).
    #[arg(long, value_parser = at_least_one)]
    threads: Option<usize>,
}

/// The tables a `verify` covers.
#[derive(clap::Args, Debug)]
struct EgdbVerifyTables {
    /// Rule set (as for perft).
    #[arg(long)]
    variant: Variant,
    /// Most pieces on the board, both sides together (2 to 8; default:
    /// every table the directory holds for the variant).
    #[arg(long)]
    pieces: Option<u32>,
    /// Database directory (files under <dir>/<variant>/).
    #[arg(long, default_value = "egdb")]
    dir: std::path::PathBuf,
    /// Threads (default: every core).
    #[arg(long, value_parser = at_least_one)]
    threads: Option<usize>,
}

/// What `kondavo egdb` does.
#[derive(Subcommand, Debug)]
enum EgdbCommand {
    /// Solve every position with up to --pieces pieces (win, loss or draw
    /// and the distance in plies), one file per material signature; files
    /// already present and valid are kept.
    Build(EgdbTables),
    /// Recheck every stored value against its children; fails at the first
    /// disagreement.
    Verify(EgdbVerifyTables),
    /// Print the value of a position for the side to move and of each of
    /// its legal moves.
    Probe {
        /// Rule set (as for perft).
        #[arg(long)]
        variant: Variant,
        /// Position (PDN FEN).
        #[arg(long)]
        fen: String,
        /// Database directory.
        #[arg(long, default_value = "egdb")]
        dir: std::path::PathBuf,
    },
    /// Play random won positions out with the engine on both sides (it
    /// searches with the tables) and count the wins within the variant's
    /// move rule.
    Convert {
        /// Rule set (as for perft).
        #[arg(long)]
        variant: Variant,
        /// Pieces of the positions (the tables up to this count must be
        /// built).
        #[arg(long, default_value_t = 5)]
        pieces: u32,
        /// Positions to play out.
        #[arg(long, default_value_t = 200, value_parser = at_least_one)]
        positions: usize,
        /// Seconds a move.
        #[arg(long, default_value_t = 0.1, conflicts_with = "nodes")]
        movetime: f64,
        /// Nodes a move instead of a time.
        #[arg(long)]
        nodes: Option<u64>,
        /// Seed of the sampling.
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Only positions whose win takes at least this many plies with
        /// best play.
        #[arg(long, default_value_t = 0)]
        min_plies: u32,
        /// Play without the tables (they only choose the positions).
        #[arg(long)]
        search_only: bool,
        /// Games at once (default: every core).
        #[arg(long, value_parser = at_least_one)]
        concurrency: Option<usize>,
        /// Database directory.
        #[arg(long, default_value = "egdb")]
        dir: std::path::PathBuf,
    },
}

/// What `kondavo book` does.
#[derive(Subcommand, Debug)]
enum BookCommand {
    /// Grow a book from the start position (and --roots) by drop-out
    /// expansion, scoring every new position with the engine's search;
    /// a killed build continues from <out>.partial.
    Build(BookBuildArgs),
    /// Print the book moves of a position with their scores, best first.
    Show {
        /// Rule set (as for perft).
        #[arg(long)]
        variant: Variant,
        /// Position (PDN FEN); the start position if absent.
        #[arg(long)]
        fen: Option<String>,
        /// A book file (default: the book built into this binary).
        #[arg(long, value_name = "FILE")]
        book: Option<PathBuf>,
        /// JSON lines: move (PDN), hub, score (centi-men, side to move).
        #[arg(long)]
        json: bool,
    },
}

/// Options of `kondavo book build`.
#[derive(clap::Args, Debug)]
struct BookBuildArgs {
    /// Rule set (as for perft).
    #[arg(long)]
    variant: Variant,
    /// The book file to write (its state is kept in <out>.partial until
    /// the build ends; an existing <out> is grown further).
    #[arg(long)]
    out: PathBuf,
    /// Positions the book should hold.
    #[arg(long, default_value_t = 1000, value_parser = at_least_one)]
    size: usize,
    /// Depth of the search of each new position (default 8 unless
    /// --nodes is given).
    #[arg(long, allow_negative_numbers = true, value_parser = positive_depth)]
    depth: Option<i32>,
    /// Nodes of the search of each new position.
    #[arg(long, allow_negative_numbers = true, value_parser = at_least_one_u64)]
    nodes: Option<u64>,
    /// Positions searched at once, one thread each.
    #[arg(long, default_value_t = 1, value_parser = at_least_one)]
    threads: usize,
    /// Hash table of each thread in MiB (cleared before every search).
    #[arg(long, default_value_t = 4, value_parser = hash_mib)]
    hash: usize,
    /// More roots: an openings file (FENs or ballots, one a line, or PDN)
    /// or a deck (english-3move); each gets its book moves.
    #[arg(long, value_name = "OPENINGS")]
    roots: Option<String>,
    /// Cost of a ply in the expansion priority, in centi-men: higher
    /// grows the book wider, lower deeper along the best lines.
    #[arg(long, default_value_t = 3)]
    ply_cost: i32,
    /// Seconds between two writes of <out>.partial.
    #[arg(long, default_value_t = 30.0)]
    save_every: f64,
}

fn run_book(action: BookCommand) -> Result<(), String> {
    match action {
        BookCommand::Build(a) => {
            if !(a.save_every.is_finite() && a.save_every >= 0.0) {
                return Err(format!(
                    "--save-every must be a number of seconds, not {}",
                    a.save_every
                ));
            }
            let depth = match (a.depth, a.nodes) {
                (None, None) => Some(8),
                (d, _) => d,
            };
            let opts = tools::book::BuildOptions {
                variant: a.variant,
                out: a.out,
                size: a.size,
                limits: Limits {
                    depth,
                    nodes: a.nodes,
                    ..Default::default()
                },
                threads: a.threads,
                hash_mib: a.hash,
                roots: a.roots,
                ply_cost: a.ply_cost,
                save_every: Duration::from_secs_f64(a.save_every.min(1e9)),
                progress: true,
            };
            tools::book::run_build(&opts, &mut |l| out(l), &mut |l| err(l)).map(|_| ())
        }
        BookCommand::Show {
            variant,
            fen,
            book,
            json,
        } => tools::book::run_show(variant, fen.as_deref(), book.as_deref(), json, &mut |l| {
            out(l)
        }),
    }
}

/// Runs `f` on a rayon pool of `threads` threads, or on the global pool.
fn with_threads<T: Send>(
    threads: Option<usize>,
    f: impl FnOnce() -> Result<T, String> + Send,
) -> Result<T, String> {
    match threads {
        None => f(),
        Some(n) => rayon::ThreadPoolBuilder::new()
            .num_threads(n)
            .build()
            .map_err(|e| format!("cannot start {n} threads: {e}"))?
            .install(f),
    }
}

fn run_egdb(action: EgdbCommand) -> Result<(), String> {
    match action {
        EgdbCommand::Build(t) => with_threads(t.threads, || {
            let progress = std::io::stderr().is_terminal();
            tools::egdb::run_build(t.variant, t.pieces, &t.dir, progress, &mut |l| out(l))
        }),
        EgdbCommand::Verify(t) => with_threads(t.threads, || {
            tools::egdb::run_verify(t.variant, t.pieces, &t.dir, &mut |l| out(l))
        }),
        EgdbCommand::Probe { variant, fen, dir } => {
            tools::egdb::run_probe(variant, &fen, &dir, &mut |l| out(l))
        }
        EgdbCommand::Convert {
            variant,
            pieces,
            positions,
            movetime,
            nodes,
            seed,
            min_plies,
            search_only,
            concurrency,
            dir,
        } => {
            if !(movetime > 0.0 && movetime.is_finite()) {
                return Err(format!(
                    "--movetime must be a positive number of seconds, not {movetime}"
                ));
            }
            let limits = match nodes {
                Some(n) => Limits::nodes(n),
                None => Limits::movetime(Duration::from_secs_f64(movetime)),
            };
            let opts = tools::egdb::ConvertOptions {
                variant,
                pieces,
                positions,
                limits,
                seed,
                min_plies,
                search_only,
                dir,
                concurrency: concurrency
                    .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get())),
                hash_mib: 16,
            };
            tools::egdb::run_convert(&opts, &mut |l| out(l)).map(|_| ())
        }
    }
}

/// A count that must be at least 1 (threads, games, hash MiB, lines...).
fn at_least_one(text: &str) -> Result<usize, String> {
    match text.trim().parse::<usize>() {
        Ok(0) => Err("must be at least 1".into()),
        Ok(n) => Ok(n),
        Err(_) => Err(format!("'{text}' is not a whole number")),
    }
}

/// A hash table size in MiB: at least 1, at most what the machine allows.
fn hash_mib(text: &str) -> Result<usize, String> {
    let mib = at_least_one(text)?;
    kondavo::tt::check_hash_mib(mib)?;
    Ok(mib)
}

/// A piece count for `--egdb-pieces`: 2 to the most the databases have.
fn egdb_pieces(text: &str) -> Result<u32, String> {
    let max = kondavo::egdb::MAX_PIECES;
    match text.trim().parse::<u32>() {
        Ok(n) if (2..=max).contains(&n) => Ok(n),
        Ok(_) => Err(format!("endgame databases have 2 to {max} pieces")),
        Err(_) => Err(format!("'{text}' is not a whole number")),
    }
}

/// The variant whose endgame databases a command searches with, `None`
/// for commands that do not take them.
fn egdb_variant(cmd: &Option<Command>) -> Option<Variant> {
    match cmd {
        Some(Command::Dxp { .. }) => Some(Variant::International),
        Some(Command::Search { variant, .. }) => Some(*variant),
        Some(Command::Analyse(a)) => Some(a.variant),
        Some(Command::Match(a)) => Some(a.variant),
        Some(Command::Book {
            action: BookCommand::Build(a),
        }) => Some(a.variant),
        _ => None,
    }
}

/// The variants whose positions a command evaluates, for `--weights`.
enum Evaluates {
    /// The command and the variants it searches.
    Variants(&'static str, Vec<Variant>),
    /// Known later: `analyse` checks against its positions and games, the
    /// Hub tells the client (`info string`) when it searches a variant the
    /// weights are not for.
    Later,
    /// The command evaluates no position.
    Nothing(&'static str),
}

/// What each command evaluates (see [`Evaluates`]).
fn evaluates(cmd: &Option<Command>) -> Evaluates {
    use Evaluates::*;
    match cmd {
        None | Some(Command::Hub) | Some(Command::Analyse(_)) => Later,
        Some(Command::Dxp { .. }) => Variants("dxp", vec![Variant::International]),
        Some(Command::Perft { .. }) => Nothing("perft"),
        Some(Command::Moves { .. }) => Nothing("moves"),
        Some(Command::Serve(_)) => Later,
        Some(Command::Egdb { action }) => match action {
            EgdbCommand::Build(_) => Nothing("egdb build"),
            EgdbCommand::Verify(_) => Nothing("egdb verify"),
            EgdbCommand::Probe { .. } => Nothing("egdb probe"),
            EgdbCommand::Convert { variant, .. } => Variants("egdb convert", vec![*variant]),
        },
        Some(Command::Search { variant, .. }) => Variants("search", vec![*variant]),
        Some(Command::Match(a)) => Variants("match", vec![a.variant]),
        Some(Command::Selfplay(a)) => Variants("selfplay", vec![a.variant]),
        Some(Command::Train(a)) => Variants("train", vec![a.variant]),
        Some(Command::Bench { variant, .. }) => Variants(
            "bench",
            variant.map_or_else(|| Variant::ALL.to_vec(), |v| vec![v]),
        ),
        Some(Command::Book { action }) => match action {
            BookCommand::Build(a) => Variants("book build", vec![a.variant]),
            BookCommand::Show { .. } => Nothing("book show"),
        },
    }
}

/// Weights (each `--weights` value with its variant) for a variant the
/// command does not search are an error naming both; for a command that
/// evaluates nothing, a warning that they are not used.
fn check_weights(weights: &[(&str, Variant)], cmd: &Option<Command>) -> Result<(), String> {
    if weights.is_empty() {
        return Ok(());
    }
    match evaluates(cmd) {
        Evaluates::Variants(name, searched) => {
            for (path, v) in weights {
                if !searched.contains(v) {
                    let list: Vec<&str> = searched.iter().map(|s| s.name()).collect();
                    return Err(format!(
                        "{path} holds weights for {v}, but kondavo {name} plays {}",
                        list.join(", ")
                    ));
                }
            }
        }
        Evaluates::Nothing(name) => err(format_args!(
            "kondavo: --weights: {name} evaluates no position; the weights are not used"
        )),
        Evaluates::Later => {}
    }
    Ok(())
}

/// A node count: at least 1.
fn at_least_one_u64(text: &str) -> Result<u64, String> {
    at_least_one(text).map(|n| n as u64)
}

/// A search depth in plies: from 1 to the deepest the search goes.
fn positive_depth(text: &str) -> Result<i32, String> {
    let deepest = kondavo::search::MAX_PLY as i32 - 8;
    match text.trim().parse::<i32>() {
        Ok(d) if (1..=deepest).contains(&d) => Ok(d),
        Ok(_) => Err(format!("a depth must be from 1 to {deepest} plies")),
        Err(_) => Err(format!("'{text}' is not a whole number")),
    }
}

/// A time in seconds: positive and finite.
fn positive_seconds(text: &str) -> Result<f64, String> {
    match text.trim().parse::<f64>() {
        Ok(s) if s.is_finite() && s > 0.0 => Ok(s),
        Ok(_) => Err("a time must be a positive number of seconds".into()),
        Err(_) => Err(format!("'{text}' is not a number of seconds")),
    }
}

fn pair<const N: usize>(text: &str, what: &str) -> Result<[i64; N], String> {
    let v: Vec<i64> = text
        .split(',')
        .map(|x| {
            x.trim()
                .parse::<i64>()
                .map_err(|_| format!("{what}: '{x}' is not a number"))
        })
        .collect::<Result<_, _>>()?;
    v.try_into()
        .map_err(|_| format!("{what}: expected {N} numbers separated by commas"))
}

fn run_match(a: MatchArgs) -> Result<(), String> {
    let sprt = a
        .sprt
        .as_deref()
        .map(str::parse::<Sprt>)
        .transpose()
        .map_err(|e| format!("--sprt: {e}"))?;
    if !a.merge.is_empty() {
        let opts = tools::matchrun::MergeOptions {
            files: a.merge,
            variant: a.variant,
            sprt,
            games: a.games,
            first: a.first,
            gauntlet: a.gauntlet,
            runs: a.runs,
        };
        return tools::matchrun::merge_match(&opts, &mut |l| out(l));
    }
    let named: Vec<(&String, &[String])> =
        a.a.iter()
            .map(|e| (e, a.a_options.as_slice()))
            .chain(a.b.iter().map(|e| (e, a.b_options.as_slice())))
            .chain(a.engines.iter().map(|e| (e, &[] as &[String])))
            .collect();
    if a.a.is_none() && !a.a_options.is_empty() || a.b.is_none() && !a.b_options.is_empty() {
        return Err("--a-option / --b-option need --a / --b".into());
    }
    let mut specs = Vec::new();
    for (e, own) in named {
        let mut spec = EngineSpec::parse(e).map_err(|x| format!("engine '{e}': {x}"))?;
        for o in a.each.iter().chain(own) {
            spec.apply(o).map_err(|x| format!("engine '{e}': {x}"))?;
        }
        specs.push(spec);
    }
    let seconds = |v: f64, what: &str| -> Result<Duration, String> {
        if v.is_finite() && (0.0..=1e6).contains(&v) {
            Ok(Duration::from_secs_f64(v))
        } else {
            Err(format!("{what}: expected seconds from 0 to 1000000"))
        }
    };
    let tc = match (a.movetime, &a.tc) {
        (Some(s), _) => TimeControl::PerMove(Duration::from_secs_f64(s.clamp(0.001, 1e6))),
        (None, Some(t)) => t.parse::<TimeControl>()?,
        (None, None) => TimeControl::PerMove(Duration::from_millis(100)),
    };
    let (resign_cp, resign_plies) = match &a.resign {
        Some(r) => {
            let [cp, n] = pair::<2>(r, "--resign")?;
            (Some(cp as i32), n.max(1) as usize)
        }
        None => (None, 0),
    };
    let (draw_cp, draw_plies, draw_after) = match &a.draw {
        Some(d) => {
            let [cp, n, after] = pair::<3>(d, "--draw")?;
            (Some(cp as i32), n.max(1) as usize, after.max(0) as usize)
        }
        None => (None, 0, 0),
    };
    let opts = MatchOptions {
        variant: a.variant,
        engines: specs,
        gauntlet: a.gauntlet,
        games: a.games.unwrap_or(2),
        tc,
        concurrency: a.concurrency,
        openings: a.openings,
        opening_plies: a.opening_plies,
        pdn: a.pdn,
        sprt,
        resume: a.resume,
        max_plies: a.max_plies,
        resign_cp,
        resign_plies,
        draw_cp,
        draw_plies,
        draw_after,
        seed: a.seed,
        progress: std::io::stderr().is_terminal(),
        progress_lines: Some(seconds(a.progress_interval, "--progress-interval")?),
        engine_log: a.engine_log,
        max_failures: a.max_failures.max(1),
        start_timeout: seconds(a.start_timeout, "--start-timeout")?,
        time_margin: seconds(a.time_margin, "--time-margin")?,
        shard: a.shard,
    };
    tools::matchrun::run_match(&opts, &mut |l| out(l))
}

fn run_selfplay(a: SelfplayArgs) -> Result<(), String> {
    if let Some(dest) = &a.merge {
        return tools::selfplay::merge_shards(&a.files, dest, a.games, &mut |l| out(l)).map(|_| ());
    }
    let (Some(games), Some(out_path)) = (a.games, a.out) else {
        return Err("selfplay needs --games and --out".into());
    };
    if a.nodes.is_none() && a.depth.is_none() {
        return Err("selfplay needs --nodes or --depth".into());
    }
    let threads = a
        .threads
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    let opts = tools::selfplay::SelfplayOptions {
        games,
        nodes: a.nodes,
        depth: a.depth,
        threads,
        opening_plies: a.opening_plies,
        seed: a.seed,
        out: out_path,
        resume: a.resume,
        hash_mib: a.hash,
        max_plies: a.max_plies,
        adjudicate_cp: a.adjudicate as i32,
        adjudicate_plies: 4,
        progress: true,
    };
    with_rules!(a.variant, R => tools::selfplay::run_selfplay_shard::<R>(&opts, a.shard, &mut |l| out(l)))
        .map(|_| ())
}

fn run_train(a: TrainArgs) -> Result<(), String> {
    if !(0.0..=1.0).contains(&a.lambda) {
        return Err(format!("--lambda {} is not between 0 and 1", a.lambda));
    }
    if !(0.0..1.0).contains(&a.valid) {
        return Err(format!("--valid {} is not in 0..1", a.valid));
    }
    if let Some(s) = a.scale {
        if !(s.is_finite() && s > 0.0) {
            return Err(format!("--scale {s} must be a positive number"));
        }
    }
    if !(a.lr.is_finite() && a.lr > 0.0) {
        return Err(format!("--lr {} must be a positive number", a.lr));
    }
    if !(a.l2.is_finite() && a.l2 >= 0.0) {
        return Err(format!("--l2 {} must be a number from 0 up", a.l2));
    }
    with_rules!(a.variant, R => {
        let init = match &a.init {
            Some(p) => {
                let bytes = std::fs::read(p).map_err(|e| format!("--init {p}: {e}"))?;
                Some(kondavo::eval::learned::Learned::from_bytes::<R>(&bytes)
                    .map_err(|e| format!("--init {p}: {e}"))?)
            }
            None => None,
        };
        let opts = tools::train::TrainOptions {
            data: a.data.clone(),
            out: a.out.clone(),
            init,
            valid: a.valid,
            scale: a.scale,
            fit: tools::train::FitOptions {
                epochs: a.epochs,
                lambda: a.lambda,
                l2: a.l2,
                lr: a.lr,
                batch: a.batch,
                seed: a.seed,
                scale: 100.0,
            },
            note: a.note.clone(),
            man: (a.man > 0.0).then_some(a.man),
            big_windows: a.big_windows,
            big_min_count: a.big_min_count,
            king_windows: a.king_windows,
            king_min_count: a.king_min_count,
        };
        tools::train::run_train::<R>(&opts, &mut |l| out(l)).map(|_| ())
    })
}

fn run_analyse(mut a: AnalyseArgs) -> Result<(), String> {
    if a.fen.is_empty() && a.pdn.is_none() {
        let start = with_rules!(a.variant, R => write_fen(&Position::<R>::start()));
        a.fen.push(start);
    }
    let limits = a.search.limits(Limits::depth(12));
    let opts = AnalyseOptions {
        variant: a.variant,
        fens: a.fen,
        pdn: a.pdn,
        limits,
        multipv: a.multipv,
        threads: a.search.threads,
        hash: a.search.hash,
        annotate: a.annotate,
        weights: kondavo::eval::learned::installed(),
    };
    tools::analyse::run_analyse(&opts, &mut |l| out(l))
}

/// Bench depth per variant when none is given: a second or so each.
fn bench_depth(v: Variant) -> i32 {
    match v {
        Variant::International => 12,
        Variant::Turkish => 11,
        Variant::English | Variant::Italian => 16,
        _ => 14,
    }
}

fn run_search(
    variant: Variant,
    fen: Option<&str>,
    limits: Limits,
    threads: usize,
    hash: usize,
    book: &BookArgs,
) -> Result<(), String> {
    let source = book.source(variant, false)?;
    with_rules!(variant, R => {
        let pos: Position<R> = match fen {
            Some(f) => parse_fen::<R>(f).map_err(|e| format!("bad FEN: {e}"))?,
            None => Position::start(),
        };
        if let Some(b) = source.book(variant) {
            if tools::search::book_move(&pos, &b, &mut book.chooser(), &mut |l| out(l)).is_some() {
                return Ok(());
            }
        }
        tools::search::run_search(pos, limits, threads, hash, &mut |l| out(l));
        Ok(())
    })
}

fn run_bench(variant: Option<Variant>, depth: Option<i32>, threads: usize, hash: usize) {
    let variants: Vec<Variant> = match variant {
        Some(v) => vec![v],
        None => Variant::ALL.to_vec(),
    };
    let mut nodes = 0;
    let mut time = 0.0;
    for v in variants {
        let d = depth.unwrap_or_else(|| bench_depth(v));
        let (n, t) =
            with_rules!(v, R => tools::search::bench::<R>(d, threads, hash, &mut |l| out(l)));
        nodes += n;
        time += t.as_secs_f64();
    }
    let nps = if time > 0.0 { nodes as f64 / time } else { 0.0 };
    out(format_args!(
        "bench nodes={nodes} time={time:.3} nps={nps:.0}"
    ));
}

fn run_perft(variant: Variant, fen: Option<&str>, opts: &PerftOptions) -> Result<(), String> {
    with_rules!(variant, R => {
        let pos: Position<R> = match fen {
            Some(f) => parse_fen::<R>(f).map_err(|e| format!("bad FEN: {e}"))?,
            None => Position::start(),
        };
        out(format_args!("perft {} {}", variant, write_fen(&pos)));
        perft::run(&pos, opts, &mut |line| out(line));
        Ok(())
    })
}

/// `kondavo serve`: the address on stderr once listening, then serve
/// until killed.
fn run_serve(a: ServeArgs, egdb_path: Option<&str>, egdb_pieces: u32) -> Result<(), String> {
    let mut egdb = Vec::new();
    if let Some(dir) = egdb_path {
        let dir = std::path::Path::new(dir);
        kondavo::egdb::check_dir(dir).map_err(|e| format!("--egdb-path: {e}"))?;
        // Every variant whose tables the directory holds.
        for v in Variant::ALL {
            let held = with_rules!(v, R => kondavo::egdb::variant_dir::<R>(dir).is_dir());
            if !held {
                continue;
            }
            let n = kondavo::egdb::install(v, dir, egdb_pieces)
                .map_err(|e| format!("--egdb-path: {e}"))?;
            err(format_args!(
                "kondavo: endgame databases: {n} pieces of {v}"
            ));
            egdb.push(v);
        }
        if egdb.is_empty() {
            return Err(format!(
                "--egdb-path: no endgame tables of any variant in {}",
                dir.display()
            ));
        }
    }
    let opts = kondavo::serve::ServeOptions {
        host: a.host,
        port: a.port,
        open: a.open,
        db: a.db,
        max_searches: a.max_searches.unwrap_or(0),
        max_queue: a.max_queue,
        hash_mib: a.hash,
        book: a.book,
        egdb,
    };
    kondavo::serve::run(opts, &|addr| {
        err(format_args!("kondavo serve: listening on http://{addr}/"))
    })
    .map_err(|e| format!("serve: {e}"))
}

/// The Hub loop on stdin/stdout. A person at a terminal gets one line on
/// how to get help; a program on a pipe sees nothing but protocol.
fn run_hub(egdb: Option<(&str, u32)>) {
    // Nothing may reach stderr in protocol mode, not even a panic message.
    std::panic::set_hook(Box::new(|_| {}));
    let output = Output::stdout();
    if std::io::stdin().is_terminal() {
        output.line(&format!(
            "info string kondavo {}: Hub protocol; type 'help' for commands, 'quit' to leave",
            env!("CARGO_PKG_VERSION")
        ));
    }
    let mut hub = Hub::new(output);
    if let Some((path, pieces)) = egdb {
        hub = hub.with_egdb(path, pieces);
    }
    hub.run(std::io::BufReader::new(std::io::stdin()));
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let mut weights = Vec::new();
    for w in &cli.weights {
        match kondavo::eval::learned::install_file(w) {
            Ok(v) => weights.push((w.as_str(), v)),
            Err(e) => {
                err(format_args!("kondavo: --weights: {e}"));
                return ExitCode::FAILURE;
            }
        }
    }
    if let Err(e) = check_weights(&weights, &cli.command) {
        err(format_args!("kondavo: --weights: {e}"));
        return ExitCode::FAILURE;
    }
    let hub = matches!(
        cli.command,
        None | Some(Command::Hub) | Some(Command::Serve(_))
    );
    if let (Some(path), false) = (&cli.egdb_path, hub) {
        let Some(variant) = egdb_variant(&cli.command) else {
            err(format_args!(
                "kondavo: --egdb-path is for search, analyse, match, dxp, book build, serve and hub"
            ));
            return ExitCode::FAILURE;
        };
        let pieces = cli.egdb_pieces.unwrap_or(0);
        match kondavo::egdb::install(variant, std::path::Path::new(path), pieces) {
            Ok(n) => err(format_args!(
                "kondavo: endgame databases: {n} pieces of {variant}"
            )),
            Err(e) => {
                err(format_args!("kondavo: --egdb-path: {e}"));
                return ExitCode::FAILURE;
            }
        }
    }
    let result = match cli.command {
        None | Some(Command::Hub) => {
            run_hub(
                cli.egdb_path
                    .as_deref()
                    .map(|p| (p, cli.egdb_pieces.unwrap_or(0))),
            );
            Ok(())
        }
        Some(Command::Dxp {
            port,
            connect,
            listen,
            once,
            minutes,
            moves,
            games,
            movetime,
            threads,
            hash,
            book,
        }) => {
            let source = match book.source(Variant::International, false) {
                Ok(s) => s,
                Err(e) => {
                    err(format_args!("kondavo: dxp: {e}"));
                    return ExitCode::FAILURE;
                }
            };
            let opts = DxpOptions {
                book: source,
                book_margin: book.book_margin,
                book_depth: book.book_depth,
                book_ply: book.book_ply as usize,
                book_seed: book.book_seed,
                port,
                connect,
                listen,
                once,
                minutes,
                moves,
                games,
                default_move_time: movetime,
                threads,
                hash,
                ..Default::default()
            };
            // Connections, games and errors, one line each, on stderr.
            kondavo::protocol::dxp::run(&opts, &|line| err(line)).map_err(|e| format!("dxp: {e}"))
        }
        Some(Command::Perft {
            variant,
            depth,
            fen,
            divide,
            threads,
            keep_duplicates,
        }) => {
            let opts = PerftOptions {
                depth,
                divide,
                threads,
                keep_duplicates,
            };
            run_perft(variant, fen.as_deref(), &opts)
        }
        Some(Command::Search {
            variant,
            fen,
            search,
            book,
        }) => {
            let limits = search.limits(Limits::movetime(Duration::from_secs(5)));
            run_search(
                variant,
                fen.as_deref(),
                limits,
                search.threads,
                search.hash,
                &book,
            )
        }
        Some(Command::Egdb { action }) => run_egdb(action),
        Some(Command::Book { action }) => run_book(action),
        Some(Command::Match(a)) => run_match(*a),
        Some(Command::Analyse(a)) => run_analyse(a),
        Some(Command::Serve(a)) => {
            run_serve(a, cli.egdb_path.as_deref(), cli.egdb_pieces.unwrap_or(0))
        }
        Some(Command::Moves { variant, fen, json }) => {
            tools::moves::run_moves(variant, fen.as_deref(), json, &mut |l| out(l))
        }
        Some(Command::Selfplay(a)) => run_selfplay(a),
        Some(Command::Train(a)) => run_train(a),
        Some(Command::Bench {
            variant,
            depth,
            threads,
            hash,
        }) => {
            run_bench(variant, depth, threads, hash);
            Ok(())
        }
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            err(format_args!("kondavo: {e}"));
            ExitCode::FAILURE
        }
    }
}
