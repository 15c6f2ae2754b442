//! Command-line tools: perft, search and bench, matches between engines and
//! analysis for scripts.

pub mod analyse;
pub mod matchrun;
pub mod moves;
pub mod openings;
pub mod perft;
pub mod players;
pub mod search;
pub mod stats;
