//! kondavo: a draughts engine for seven rule sets.
//!
//! Layers, ground floor up (each imports only the ones below):
//! 1. [`geometry`]: boards as bitboards;
//! 2. [`rules`] (one file per variant), [`movegen`] and its perft
//!    counters, [`position`] and hashing, [`notation`] (FEN, move text,
//!    diagrams), [`game`] (end and draw rules);
//! 3. [`eval`] (one file per variant), the transposition table [`tt`],
//!    the endgame databases [`egdb`] and the opening books [`book`];
//! 4. [`search`] and its threads and time management;
//! 5. the faces: [`protocol`] (Hub, DXP), [`tools`] (perft, bench, search),
//!    the web board [`serve`]
//!    and the binary's command line, which picks a [`variant::Variant`] at run time and dispatches
//!    once into generic code with [`with_rules!`].
//!
//! Beside the layers, [`stdio`] (standard output and error, where a closed
//! pipe ends the process quietly) imports nothing of the crate.

pub mod book;
pub mod egdb;
pub mod eval;
pub mod files;
pub mod game;
pub mod geometry;
pub mod movegen;
pub mod notation;
pub mod position;
pub mod protocol;
pub mod rules;
pub mod search;
pub mod serve;
pub mod stdio;
pub mod tools;
pub mod tt;
pub mod variant;

pub use game::{DrawReason, Game, Outcome};
pub use movegen::{Move, MoveList};
pub use position::Position;
pub use rules::{Color, Rules};
pub use variant::Variant;

/// The README's Rust examples, compiled and run by `cargo test`.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;

/// The Rust examples of `docs/egdb.md`, compiled by `cargo test`.
#[cfg(doctest)]
#[doc = include_str!("../docs/egdb.md")]
pub struct EgdbDoctests;
