//! Perft against published numbers, for every variant: start positions and
//! test positions from `tests/data/*.perft` (each number's source is named in
//! the file). Records above a node limit are skipped so that `cargo test`
//! stays quick; set `KONDAVO_PERFT_LIMIT` (leaves) to run more of them.

use kondavo::movegen::perft::{perft, perft_parallel};
use kondavo::notation::fen::parse_fen;
use kondavo::position::Position;
use kondavo::rules::Rules;
use kondavo::{with_rules, Variant};

/// Default node limit per record.
const DEFAULT_LIMIT: u64 = 300_000_000;

#[derive(Debug)]
struct Record {
    fen: String,
    keep: Option<bool>,
    depth: u32,
    nodes: u64,
    line: usize,
}

fn load(variant: &str) -> Vec<Record> {
    let path = format!("{}/tests/data/{variant}.perft", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let mut fen = String::new();
    let mut has_source = false;
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let (word, rest) = line.split_once(' ').expect("malformed line");
        match word {
            "position" => {
                fen = rest.to_string();
                has_source = false;
            }
            "source" => has_source = true,
            "keep" | "drop" | "both" => {
                assert!(has_source, "{path}:{}: number without a source", i + 1);
                let (d, n) = rest.split_once(' ').expect("dups depth nodes");
                out.push(Record {
                    fen: fen.clone(),
                    keep: match word {
                        "keep" => Some(true),
                        "drop" => Some(false),
                        _ => None,
                    },
                    depth: d.parse().unwrap(),
                    nodes: n.parse().unwrap(),
                    line: i + 1,
                });
            }
            _ => panic!("{path}:{}: unknown line", i + 1),
        }
    }
    out
}

fn limit() -> u64 {
    std::env::var("KONDAVO_PERFT_LIMIT")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(DEFAULT_LIMIT)
}

fn check<R: Rules>() {
    let records = load(R::NAME);
    assert!(!records.is_empty());
    let mut ran = 0;
    for r in &records {
        if r.nodes > limit() {
            continue;
        }
        let pos: Position<R> = parse_fen(&r.fen).unwrap();
        let run = |keep: bool| {
            if keep {
                perft_parallel::<R, true>(&pos, r.depth)
            } else {
                perft_parallel::<R, false>(&pos, r.depth)
            }
        };
        for keep in match r.keep {
            Some(k) => vec![k],
            None => vec![false, true],
        } {
            assert_eq!(
                run(keep),
                r.nodes,
                "{} line {}: {} depth {} ({})",
                R::NAME,
                r.line,
                r.fen,
                r.depth,
                if keep { "keep" } else { "drop" }
            );
        }
        ran += 1;
    }
    assert!(ran > 0);
}

#[test]
fn perft_international() {
    check::<kondavo::rules::International>();
}

#[test]
fn perft_english() {
    check::<kondavo::rules::English>();
}

#[test]
fn perft_italian() {
    check::<kondavo::rules::Italian>();
}

#[test]
fn perft_spanish() {
    check::<kondavo::rules::Spanish>();
}

#[test]
fn perft_brazilian() {
    check::<kondavo::rules::Brazilian>();
}

#[test]
fn perft_russian() {
    check::<kondavo::rules::Russian>();
}

#[test]
fn perft_turkish() {
    check::<kondavo::rules::Turkish>();
}

/// The rayon root split gives the same counts as the sequential walk.
#[test]
fn parallel_perft_equals_sequential() {
    for v in Variant::ALL {
        with_rules!(v, R => {
            let pos = Position::<R>::start();
            for d in 1..=6 {
                assert_eq!(
                    perft::<R, false>(&pos, d),
                    perft_parallel::<R, false>(&pos, d),
                    "{v} depth {d}"
                );
                assert_eq!(perft::<R, true>(&pos, d), perft_parallel::<R, true>(&pos, d));
            }
        });
    }
}
