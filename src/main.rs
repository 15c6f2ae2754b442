//! The `kondavo` command line.

use std::process::ExitCode;

use clap::{Parser, Subcommand};
use kondavo::notation::fen::parse_fen;
use kondavo::position::Position;
use kondavo::tools::perft::{self, PerftOptions};
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

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        None => {
            let opts = PerftOptions {
                depth: 9,
                divide: false,
                threads: 1,
                keep_duplicates: false,
            };
            run_perft(Variant::International, None, &opts)
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
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("kondavo: {e}");
            ExitCode::FAILURE
        }
    }
}
