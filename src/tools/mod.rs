//! Command-line tools: perft (and later bench, match, analyse).

pub mod perft;
