//! Command-line tools: perft, search and bench.

pub mod perft;
pub mod search;
