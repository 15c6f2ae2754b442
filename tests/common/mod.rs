//! Helpers shared by the integration tests.
#![allow(dead_code)]

use kondavo::geometry::{Bitboard, Geometry};
use kondavo::movegen::{generate, MoveList};
use kondavo::notation::fen::parse_fen;
use kondavo::notation::movetext::{move_to_pdn, parse_move};
use kondavo::notation::parse_square;
use kondavo::position::Position;
use kondavo::rules::Rules;
use std::io::{BufRead, BufReader, Read};
use std::path::PathBuf;
use std::sync::mpsc::{channel, Receiver};

/// The kondavo binary under test.
pub const KONDAVO: &str = env!("CARGO_BIN_EXE_kondavo");

/// Runs the kondavo binary with `args`; returns (stdout, stderr, success).
pub fn kondavo(args: &[&str]) -> (String, String, bool) {
    let out = std::process::Command::new(KONDAVO)
        .args(args)
        .output()
        .expect("run kondavo");
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
        out.status.success(),
    )
}

/// The command line `match --variant <variant> --games <games>`, then
/// `rest`.
pub fn match_args<'a>(variant: &'a str, games: &'a str, rest: &[&'a str]) -> Vec<&'a str> {
    let mut args = vec!["match", "--variant", variant, "--games", games];
    args.extend_from_slice(rest);
    args
}

/// The command line `egdb <sub> --variant <variant>`, then `rest`.
pub fn egdb_args<'a>(sub: &'a str, variant: &'a str, rest: &[&'a str]) -> Vec<&'a str> {
    let mut args = vec!["egdb", sub, "--variant", variant];
    args.extend_from_slice(rest);
    args
}

/// A fresh, empty directory `<prefix>-<process id>-<name>` in the system's
/// temporary directory (whatever was there before is removed).
pub fn fresh_dir(prefix: &str, name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("{prefix}-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// An executable `/bin/sh` script `<dir>/<name>`; `KONDAVO` in `body` is
/// the binary. Returns its path.
#[cfg(unix)]
pub fn script(dir: &str, name: &str, body: &str) -> String {
    use std::os::unix::fs::PermissionsExt;
    let path = format!("{dir}/{name}");
    std::fs::write(
        &path,
        format!("#!/bin/sh\n{}", body.replace("KONDAVO", KONDAVO)),
    )
    .unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    path
}

/// The lines `from` gives (a child's stdout or stderr), read on a thread
/// of their own and sent to the receiver returned, until the end of input,
/// a read error or the receiver is dropped.
pub fn line_channel(from: impl Read + Send + 'static) -> Receiver<String> {
    let (tx, rx) = channel();
    std::thread::spawn(move || {
        for line in BufReader::new(from).lines().map_while(Result::ok) {
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    rx
}

/// Legal moves of `fen` in PDN, sorted.
pub fn moves<V: Rules>(fen: &str) -> Vec<String> {
    let pos = parse_fen::<V>(fen).unwrap_or_else(|e| panic!("{fen}: {e}"));
    let mut list = MoveList::new();
    generate(&pos, &mut list);
    let mut out: Vec<String> = list.iter().map(|m| move_to_pdn(&pos, m)).collect();
    out.sort();
    out
}

/// A move as the tables write it, without leading zeros on square numbers
/// (`08-02` becomes `8-2`).
pub fn norm(text: &str) -> String {
    let mut out = String::new();
    let mut num = String::new();
    for c in text.chars() {
        if c.is_ascii_digit() {
            num.push(c);
        } else {
            if !num.is_empty() {
                out.push_str(num.trim_start_matches('0'));
                num.clear();
            }
            out.push(c);
        }
    }
    out.push_str(num.trim_start_matches('0'));
    out
}

/// Asserts that the legal moves of `fen` are exactly `expected`.
pub fn assert_moves<V: Rules>(fen: &str, expected: &[&str]) {
    let mut want: Vec<String> = expected.iter().map(|m| norm(m)).collect();
    want.sort();
    assert_eq!(moves::<V>(fen), want, "legal moves of {fen}");
}

/// The position after playing `mv` in `fen`.
pub fn after<V: Rules>(fen: &str, mv: &str) -> Position<V> {
    let pos = parse_fen::<V>(fen).unwrap();
    let m = parse_move(&pos, mv).unwrap_or_else(|e| panic!("{fen} {mv}: {e}"));
    pos.played(&m)
}

/// The bit of a square named in the variant's notation.
pub fn bit<V: Rules>(name: &str) -> Bitboard {
    V::Geo::bit(parse_square::<V>(name).unwrap())
}

/// xorshift64: a tiny deterministic generator.
pub struct XorShift(u64);

impl XorShift {
    /// A generator from `seed` (any value, 0 included).
    pub fn new(seed: u64) -> Self {
        XorShift(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }

    /// The next 64 random bits.
    #[allow(clippy::should_implement_trait)]
    pub fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.0 = x;
        x
    }

    /// A number below `n` (n > 0).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}
