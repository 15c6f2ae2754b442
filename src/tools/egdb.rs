//! `kondavo egdb build | verify | probe`: the endgame databases from the
//! command line. Each function writes its lines through `out`.

use std::path::Path;
use std::time::Instant;

use crate::egdb::{self, value_text, Egdb, MAX_PIECES};
use crate::movegen::{generate, MoveList};
use crate::notation::fen::{parse_fen, write_fen};
use crate::notation::movetext::move_to_pdn;
use crate::position::Position;
use crate::rules::{Color, Rules};
use crate::variant::Variant;
use crate::with_rules;

fn check_pieces(pieces: u32) -> Result<(), String> {
    if (2..=MAX_PIECES).contains(&pieces) {
        Ok(())
    } else {
        Err(format!(
            "--pieces must be from 2 to {MAX_PIECES}, not {pieces}"
        ))
    }
}

/// Builds every table of `variant` with up to `pieces` pieces into `dir`,
/// skipping the files already present and valid; one line per unit of
/// signatures and one per piece count.
pub fn run_build(
    variant: Variant,
    pieces: u32,
    dir: &Path,
    progress: bool,
    out: &mut dyn FnMut(String),
) -> Result<(), String> {
    check_pieces(pieces)?;
    let start = Instant::now();
    let reports = with_rules!(variant, R => {
        egdb::build::build::<R>(dir, pieces, progress, &mut *out)?.1
    });
    for r in &reports {
        out(format!("{variant} {}", r.line()));
    }
    out(format!(
        "{variant} up to {pieces} pieces: {} files, {} positions, {} bytes, {:.1} s",
        reports.iter().map(|r| r.files).sum::<usize>(),
        reports.iter().map(|r| r.positions).sum::<u64>(),
        reports.iter().map(|r| r.bytes).sum::<u64>(),
        start.elapsed().as_secs_f64()
    ));
    Ok(())
}

/// Loads and rechecks every table of `variant` with up to `pieces` pieces.
pub fn run_verify(
    variant: Variant,
    pieces: u32,
    dir: &Path,
    out: &mut dyn FnMut(String),
) -> Result<(), String> {
    check_pieces(pieces)?;
    let start = Instant::now();
    let checked = with_rules!(variant, R => {
        let db = Egdb::<R>::open(dir, pieces)?;
        egdb::verify::verify(&db, pieces)?
    });
    out(format!(
        "{variant} up to {pieces} pieces: {} tables, {} positions, every value agrees with its children ({:.1} s)",
        checked.len(),
        checked.iter().map(|c| c.positions).sum::<u64>(),
        start.elapsed().as_secs_f64()
    ));
    Ok(())
}

/// The value of `pos` and of each of its moves, as lines: first the
/// position's for its side to move (`win 7`), then one per legal move in
/// PDN text with its value for the side playing it (`32-27 win 7`,
/// `21-17 loss 4`).
pub fn probe_lines<R: Rules>(db: &Egdb<R>, pos: &Position<R>) -> Result<Vec<String>, String> {
    let v = db
        .value(pos)
        .ok_or_else(|| format!("{} is not in the loaded tables", write_fen(pos)))?;
    let mut lines = vec![value_text(v)];
    let mut list = MoveList::new();
    generate(pos, &mut list);
    for mv in list.iter() {
        let child = pos.played(mv);
        let cv = db
            .value(&child)
            .ok_or_else(|| format!("after {}: not in the loaded tables", move_to_pdn(pos, mv)))?;
        let mut mm = egdb::Minimax::default();
        mm.add(cv);
        lines.push(format!(
            "{} {}",
            move_to_pdn(pos, mv),
            value_text(mm.value())
        ));
    }
    Ok(lines)
}

/// Probes one FEN: the tables up to its piece count are loaded from `dir`.
pub fn run_probe(
    variant: Variant,
    fen: &str,
    dir: &Path,
    out: &mut dyn FnMut(String),
) -> Result<(), String> {
    with_rules!(variant, R => {
        let pos = parse_fen::<R>(fen).map_err(|e| format!("bad FEN: {e}"))?;
        let (w, b) = (pos.count(Color::White), pos.count(Color::Black));
        if w == 0 || b == 0 {
            return Err(format!(
                "{}: the endgame databases hold positions with at least one piece a side",
                write_fen(&pos)
            ));
        }
        let n = w + b;
        if n > MAX_PIECES {
            return Err(format!(
                "{}: {n} pieces, the endgame databases go up to {MAX_PIECES}",
                write_fen(&pos)
            ));
        }
        let db = Egdb::<R>::open(dir, n)?;
        for l in probe_lines(&db, &pos)? {
            out(l);
        }
        Ok(())
    })
}
