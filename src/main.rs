//! The `kondavo` command line.

use std::io::{IsTerminal, Write};
use std::process::ExitCode;
use std::time::Duration;

use clap::{Parser, Subcommand};
use kondavo::notation::fen::parse_fen;
use kondavo::position::Position;
use kondavo::protocol::dxp::DxpOptions;
use kondavo::protocol::hub::Hub;
use kondavo::protocol::Output;
use kondavo::search::Limits;
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
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Speak the Hub protocol on stdin/stdout (what plain `kondavo` does).
    Hub,
    /// Play International draughts over DXP (TCP): listen as Follower, or
    /// connect as Initiator with --connect.
    Dxp {
        /// TCP port.
        #[arg(long, default_value_t = 27531)]
        port: u16,
        /// Connect to this host and send game requests (Initiator).
        #[arg(long)]
        connect: Option<String>,
        /// Address to listen on (Follower).
        #[arg(long, default_value = "127.0.0.1")]
        listen: String,
        /// Initiator: minutes per player per game.
        #[arg(long, default_value_t = 5)]
        minutes: u32,
        /// Initiator: moves per game (0 = no limit).
        #[arg(long, default_value_t = 0)]
        moves: u32,
        /// Initiator: number of games.
        #[arg(long, default_value_t = 1)]
        games: u32,
        /// Seconds per move when a game request gives no time.
        #[arg(long, default_value_t = 1.0)]
        movetime: f64,
        /// Search threads.
        #[arg(long, default_value_t = 1)]
        threads: usize,
        /// Hash table size in MiB.
        #[arg(long, default_value_t = kondavo::search::threads::DEFAULT_HASH_MIB)]
        hash: usize,
    },
    /// Count the leaves of the legal move tree (move generator check and
    /// speed).
    Perft {
        /// Rule set: international (normal, standard, polish), english
        /// (american, checkers), italian, brazilian, spanish, russian
        /// (ukrainian, shashki), turkish.
        #[arg(long, default_value = "international")]
        variant: Variant,
        /// Depth in plies.
        #[arg(long, default_value_t = 6)]
        depth: u32,
        /// Start from this PDN FEN instead of the start position.
        #[arg(long)]
        fen: Option<String>,
        /// Print the count below each root move.
        #[arg(long)]
        divide: bool,
        /// Threads (root moves split among them).
        #[arg(long, default_value_t = 1)]
        threads: usize,
        /// Count capture routes with the same from, to and captured pieces
        /// as different moves.
        #[arg(long)]
        keep_duplicates: bool,
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
    },
    /// Play games between engines: Elo, SPRT, PDN, rating lists.
    Match(MatchArgs),
    /// Analyse positions (FEN or every position of a PDN) for scripts:
    /// JSON lines, or an annotated PDN.
    Analyse(AnalyseArgs),
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
    /// Search the fixed bench positions to a fixed depth; the node count is
    /// a signature of the search.
    Bench {
        /// One rule set, or all of them when absent.
        #[arg(long)]
        variant: Option<Variant>,
        /// Depth (default: per variant).
        #[arg(long)]
        depth: Option<i32>,
        /// Search threads.
        #[arg(long, default_value_t = 1)]
        threads: usize,
        /// Hash table size in MiB.
        #[arg(long, default_value_t = 16)]
        hash: usize,
    },
}

/// Options of `kondavo match`.
#[derive(clap::Args, Debug)]
struct MatchArgs {
    /// Rule set.
    #[arg(long, default_value = "international")]
    variant: Variant,
    /// Games per pairing (each opening is played with both colours).
    #[arg(long, default_value_t = 2)]
    games: usize,
    /// Fixed seconds per move.
    #[arg(long, conflicts_with = "tc")]
    movetime: Option<f64>,
    /// Clock per player: `<base>+<inc>` in seconds, e.g. `5+0.05`.
    #[arg(long)]
    tc: Option<String>,
    /// Games played at once.
    #[arg(long, default_value_t = 1)]
    concurrency: usize,
    /// Openings: FENs or ballots one per line, or a PDN file; random
    /// balanced openings when absent.
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
    /// Continue a match from the games already in the PDN file.
    #[arg(long)]
    resume: bool,
    /// Engine A: `kondavo[:threads=N,hash=M,depth=D,nodes=N]` or a Hub
    /// engine command line (`"dame hub"`).
    #[arg(long)]
    a: Option<String>,
    /// Engine B.
    #[arg(long)]
    b: Option<String>,
    /// More engines (repeat): a round robin, or a gauntlet with --gauntlet.
    #[arg(long = "engine")]
    engines: Vec<String>,
    /// With more than two engines, the first plays all the others.
    #[arg(long)]
    gauntlet: bool,
    /// Draw games longer than this many plies.
    #[arg(long, default_value_t = 400)]
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
}

/// Limits and resources of one search (`search`, and each position of
/// `analyse`).
#[derive(clap::Args, Debug)]
struct SearchArgs {
    /// Fixed depth.
    #[arg(long)]
    depth: Option<i32>,
    /// Fixed time in seconds.
    #[arg(long)]
    movetime: Option<f64>,
    /// Fixed node count.
    #[arg(long)]
    nodes: Option<u64>,
    /// Search threads.
    #[arg(long, default_value_t = 1)]
    threads: usize,
    /// Hash table size in MiB.
    #[arg(long, default_value_t = kondavo::search::threads::DEFAULT_HASH_MIB)]
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
    /// A position (repeat for several).
    #[arg(long)]
    fen: Vec<String>,
    /// A PDN file: every position of every game.
    #[arg(long)]
    pdn: Option<String>,
    #[command(flatten)]
    search: SearchArgs,
    /// Lines per position.
    #[arg(long, default_value_t = 1)]
    multipv: usize,
    /// JSON lines on standard output (the default).
    #[arg(long)]
    json: bool,
    /// Write the PDN games annotated with scores and best moves here.
    #[arg(long)]
    annotate: Option<String>,
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
    let mut specs = Vec::new();
    for e in a.a.iter().chain(a.b.iter()).chain(a.engines.iter()) {
        specs.push(EngineSpec::parse(e).map_err(|x| format!("engine '{e}': {x}"))?);
    }
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
        games: a.games,
        tc,
        concurrency: a.concurrency,
        openings: a.openings,
        opening_plies: a.opening_plies,
        pdn: a.pdn,
        sprt: a
            .sprt
            .as_deref()
            .map(str::parse::<Sprt>)
            .transpose()
            .map_err(|e| format!("--sprt: {e}"))?,
        resume: a.resume,
        max_plies: a.max_plies,
        resign_cp,
        resign_plies,
        draw_cp,
        draw_plies,
        draw_after,
        seed: a.seed,
        progress: std::io::stderr().is_terminal(),
    };
    tools::matchrun::run_match(&opts, &mut |l| println!("{l}"))
}

fn run_analyse(a: AnalyseArgs) -> Result<(), String> {
    if a.fen.is_empty() && a.pdn.is_none() {
        return Err("analyse needs --fen or --pdn".into());
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
    };
    let stdout = std::io::stdout();
    tools::analyse::run_analyse(&opts, &mut |l| {
        let mut lock = stdout.lock();
        let _ = writeln!(lock, "{l}");
        let _ = lock.flush();
    })
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
) -> Result<(), String> {
    with_rules!(variant, R => {
        let pos: Position<R> = match fen {
            Some(f) => parse_fen::<R>(f).map_err(|e| format!("bad FEN: {e}"))?,
            None => Position::start(),
        };
        tools::search::run_search(pos, limits, threads, hash, &mut |l| println!("{l}"));
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
        let (n, t) = with_rules!(v, R => tools::search::bench::<R>(d, threads, hash, &mut |l| println!("{l}")));
        nodes += n;
        time += t.as_secs_f64();
    }
    let nps = if time > 0.0 { nodes as f64 / time } else { 0.0 };
    println!("bench nodes={nodes} time={time:.3} nps={nps:.0}");
}

fn run_perft(variant: Variant, fen: Option<&str>, opts: &PerftOptions) -> Result<(), String> {
    with_rules!(variant, R => {
        let pos: Position<R> = match fen {
            Some(f) => parse_fen::<R>(f).map_err(|e| format!("bad FEN: {e}"))?,
            None => Position::start(),
        };
        println!("perft {} {}", variant, kondavo::notation::fen::write_fen(&pos));
        perft::run(&pos, opts, &mut |line| println!("{line}"));
        Ok(())
    })
}

/// The Hub loop on stdin/stdout. A person at a terminal gets one line on
/// how to get help; a program on a pipe sees nothing but protocol.
fn run_hub() {
    // Nothing may reach stderr in protocol mode, not even a panic message.
    std::panic::set_hook(Box::new(|_| {}));
    let out = Output::stdout();
    if std::io::stdin().is_terminal() {
        out.line(&format!(
            "info string kondavo {}: Hub protocol; type 'help' for commands, 'quit' to leave",
            env!("CARGO_PKG_VERSION")
        ));
    }
    Hub::new(out).run(std::io::BufReader::new(std::io::stdin()));
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        None | Some(Command::Hub) => {
            run_hub();
            Ok(())
        }
        Some(Command::Dxp {
            port,
            connect,
            listen,
            minutes,
            moves,
            games,
            movetime,
            threads,
            hash,
        }) => {
            let opts = DxpOptions {
                port,
                connect,
                listen,
                minutes,
                moves,
                games,
                default_move_time: movetime,
                threads,
                hash,
                ..Default::default()
            };
            kondavo::protocol::dxp::run(&opts, &mut |_| {}).map_err(|e| format!("dxp: {e}"))
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
        }) => {
            let limits = search.limits(Limits::movetime(Duration::from_secs(5)));
            run_search(variant, fen.as_deref(), limits, search.threads, search.hash)
        }
        Some(Command::Match(a)) => run_match(a),
        Some(Command::Analyse(a)) => run_analyse(a),
        Some(Command::Moves { variant, fen, json }) => {
            tools::moves::run_moves(variant, fen.as_deref(), json, &mut |l| println!("{l}"))
        }
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
            eprintln!("kondavo: {e}");
            ExitCode::FAILURE
        }
    }
}
