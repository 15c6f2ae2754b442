//! Command-line tools: perft, search and bench, endgame databases, opening
//! books, matches
//! between engines and analysis for scripts, self-play and training of the
//! learned evaluation.

pub mod analyse;
pub mod book;
pub mod egdb;
pub mod matchrun;
pub mod moves;
pub mod openings;
pub mod perft;
pub mod players;
pub mod search;
pub mod selfplay;
pub mod shard;
pub mod stats;
pub mod train;
