//! The `kondavo` command line.

use std::io::IsTerminal;
use std::process::ExitCode;
use std::time::Duration;

use clap::{Parser, Subcommand};
use kondavo::notation::fen::parse_fen;
use kondavo::position::Position;
use kondavo::protocol::dxp::DxpOptions;
use kondavo::protocol::hub::Hub;
use kondavo::protocol::Output;
use kondavo::search::Limits;
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
            depth,
            movetime,
            nodes,
            threads,
            hash,
        }) => {
            let limits = if depth.is_none() && nodes.is_none() && movetime.is_none() {
                Limits::movetime(Duration::from_secs(5))
            } else {
                Limits {
                    depth,
                    nodes,
                    movetime: movetime.map(|s| Duration::from_secs_f64(s.clamp(0.0, 1e9))),
                    ..Default::default()
                }
            };
            run_search(variant, fen.as_deref(), limits, threads, hash)
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
