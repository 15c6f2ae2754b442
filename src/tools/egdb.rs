//! `kondavo egdb build | verify | probe | convert`: the endgame databases from the
//! command line. Each function writes its lines through `out`.

use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::Instant;

use crate::egdb::{self, value_text, Egdb, MAX_PIECES};
use crate::eval::Evaluate;
use crate::game::{DrawReason, Game, Outcome};
use crate::movegen::{generate, MoveList};
use crate::notation::fen::{parse_fen, write_fen};
use crate::notation::movetext::move_to_pdn;
use crate::position::Position;
use crate::rules::{Color, Rules};
use crate::search::threads::Searcher;
use crate::search::time::Limits;
use crate::search::Job;
use crate::tools::selfplay::SplitMix;
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

/// Loads and rechecks every table of `variant` with up to `pieces` pieces
/// (`None`: every table `dir` holds for the variant, see
/// [`egdb::held_pieces`]); first a line saying which.
pub fn run_verify(
    variant: Variant,
    pieces: Option<u32>,
    dir: &Path,
    out: &mut dyn FnMut(String),
) -> Result<(), String> {
    let start = Instant::now();
    let checked = with_rules!(variant, R => {
        let pieces = match pieces {
            Some(n) => {
                check_pieces(n)?;
                n
            }
            None => egdb::held_pieces::<R>(dir)?,
        };
        let counts = match pieces {
            2 => "2".to_string(),
            n => format!("2 to {n}"),
        };
        out(format!(
            "verifying {variant} tables of {counts} pieces in {}: {} files",
            dir.display(),
            egdb::Signature::all(pieces).len()
        ));
        let db = Egdb::<R>::open(dir, pieces)?;
        egdb::verify::verify(&db, pieces)?
    });
    let pieces = checked.iter().map(|c| c.sig.pieces()).max().unwrap_or(0);
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

/// Settings of `kondavo egdb convert`.
#[derive(Clone, Debug)]
pub struct ConvertOptions {
    /// Rule set.
    pub variant: Variant,
    /// Pieces of the sampled positions (the tables up to this count are
    /// loaded and the search uses them).
    pub pieces: u32,
    /// Positions to play out.
    pub positions: usize,
    /// Search limit of every move (time or nodes).
    pub limits: Limits,
    /// Seed of the sampling.
    pub seed: u64,
    /// Only positions whose win takes at least this many plies with best
    /// play (0: every won position).
    pub min_plies: u32,
    /// Play without the tables (they only choose the positions): what the
    /// search alone makes of them.
    pub search_only: bool,
    /// Database directory.
    pub dir: std::path::PathBuf,
    /// Games played at once, one search thread each.
    pub concurrency: usize,
    /// Hash table of each player, MiB.
    pub hash_mib: usize,
}

/// What `kondavo egdb convert` found.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ConvertReport {
    /// Positions played.
    pub positions: usize,
    /// Won by the side the tables call winning.
    pub won: usize,
    /// Drawn by the variant's move or endgame rule.
    pub move_rule: usize,
    /// Drawn by threefold repetition.
    pub repetition: usize,
    /// Lost by the side the tables call winning (a defect).
    pub lost: usize,
    /// Plies of the won games, summed.
    pub won_plies: usize,
    /// Start positions of the games not won, in FEN.
    pub failures: Vec<String>,
}

impl ConvertReport {
    /// One line: counts, share won, mean length of the wins.
    pub fn line(&self, opts: &ConvertOptions) -> String {
        format!(
            "convert {} {} pieces, wins of {}+ plies, {}: positions={} won={} ({:.1}%) drawn-move-rule={} drawn-repetition={} lost={} mean-plies={:.1}",
            opts.variant,
            opts.pieces,
            opts.min_plies,
            if opts.search_only { "search only" } else { "with the tables" },
            self.positions,
            self.won,
            100.0 * self.won as f64 / self.positions.max(1) as f64,
            self.move_rule,
            self.repetition,
            self.lost,
            self.won_plies as f64 / self.won.max(1) as f64
        )
    }
}

/// Positions the sampling draws before giving up on finding a won one.
const SAMPLE_TRIES: usize = 1_000_000;

/// A random position with exactly `pieces` pieces that the tables call a
/// win in at least `min_plies` plies for the side to move, with no capture
/// pending (a quiet start): a signature drawn uniformly, then an index in
/// it; Black is to move half the time.
fn sample_won<R: Rules>(
    db: &Egdb<R>,
    layouts: &[egdb::Layout<R>],
    min_plies: u32,
    rng: &mut SplitMix,
) -> Option<Position<R>> {
    for _ in 0..SAMPLE_TRIES {
        let layout = &layouts[rng.below(layouts.len())];
        let mut pos = layout.position(rng.next_u64() % layout.size());
        if rng.below(2) == 1 {
            pos = egdb::flip(&pos);
        }
        let mut list = MoveList::new();
        generate(&pos, &mut list);
        if list.first().is_none_or(|m| m.is_capture()) {
            continue;
        }
        if db
            .probe(&pos)
            .is_some_and(|(w, d)| w == egdb::Wdl::Win && d as u32 >= min_plies)
        {
            return Some(pos);
        }
    }
    None
}

/// Plays `start` out with the engine on both sides; the outcome (`None`
/// when the game reached `max_plies`) and the plies played.
fn play_out<R: Evaluate>(
    searcher: &mut Searcher<R>,
    start: Position<R>,
    limits: &Limits,
    max_plies: usize,
) -> (Option<Outcome>, usize) {
    searcher.clear();
    let mut game = Game::new(start);
    loop {
        if let Some(o) = game.outcome() {
            return (Some(o), game.moves().len());
        }
        if game.moves().len() >= max_plies {
            return (None, max_plies);
        }
        let job = Job {
            root: *game.position(),
            history: game.history().to_vec(),
            reversible: game.reversible_plies(),
            limits: limits.clone(),
            multipv: 1,
            start: Instant::now(),
            ponder: false,
        };
        let r = searcher.search(&job, &mut |_| {});
        let mv = r.best.expect("a position with legal moves has a best move");
        game.play(&mv);
    }
}

/// Longest game `convert` plays before calling it unfinished.
const CONVERT_MAX_PLIES: usize = 600;

/// Plays positions the tables call won, with the engine (using the tables)
/// on both sides, and counts how many it wins within the variant's move
/// rule: the tables' distances are to the end of the game, and the search
/// ranks database wins by them, so each move brings the win nearer.
pub fn run_convert(
    opts: &ConvertOptions,
    out: &mut dyn FnMut(String),
) -> Result<ConvertReport, String> {
    check_pieces(opts.pieces)?;
    egdb::install(opts.variant, &opts.dir, opts.pieces)?;
    let report = with_rules!(opts.variant, R => convert::<R>(opts, out)?);
    egdb::uninstall(opts.variant);
    out(report.line(opts));
    Ok(report)
}

fn convert<R: Evaluate>(
    opts: &ConvertOptions,
    out: &mut dyn FnMut(String),
) -> Result<ConvertReport, String> {
    let db = R::egdb()
        .get()
        .ok_or_else(|| "the endgame tables did not load".to_string())?;
    // Each signature's numbering, built once for every draw.
    let layouts: Vec<_> = egdb::Signature::all(opts.pieces)
        .into_iter()
        .filter(|s| s.pieces() == opts.pieces)
        .map(egdb::Layout::<R>::new)
        .collect();
    let mut rng = SplitMix::new(opts.seed);
    let mut starts = Vec::with_capacity(opts.positions);
    for _ in 0..opts.positions {
        let pos = sample_won(&db, &layouts, opts.min_plies, &mut rng).ok_or_else(|| {
            format!(
                "no {}-piece position won in {} plies or more found in {SAMPLE_TRIES} draws",
                opts.pieces, opts.min_plies
            )
        })?;
        starts.push(pos);
    }
    if opts.search_only {
        egdb::uninstall(opts.variant);
    }
    let next = AtomicUsize::new(0);
    let results = Mutex::new(vec![None; starts.len()]);
    std::thread::scope(|s| {
        for _ in 0..opts.concurrency.max(1) {
            s.spawn(|| {
                let mut searcher = Searcher::<R>::new(1, opts.hash_mib);
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some(&start) = starts.get(i) else { break };
                    let r = play_out(&mut searcher, start, &opts.limits, CONVERT_MAX_PLIES);
                    results.lock().expect("results lock")[i] = Some(r);
                }
            });
        }
    });
    let mut report = ConvertReport {
        positions: starts.len(),
        ..Default::default()
    };
    for (start, r) in starts
        .iter()
        .zip(results.into_inner().expect("results lock"))
    {
        let (outcome, plies) = r.expect("every game was played");
        let winner = start.side();
        let what = match outcome {
            Some(Outcome::Win(c)) if c == winner => {
                report.won += 1;
                report.won_plies += plies;
                continue;
            }
            Some(Outcome::Win(_)) => {
                report.lost += 1;
                "lost"
            }
            Some(Outcome::Draw(DrawReason::MoveRule)) => {
                report.move_rule += 1;
                "drawn by the move rule"
            }
            Some(Outcome::Draw(DrawReason::Repetition)) => {
                report.repetition += 1;
                "drawn by repetition"
            }
            None => {
                report.move_rule += 1;
                "unfinished"
            }
        };
        let fen = write_fen(start);
        out(format!("not converted: {fen} ({what} after {plies} plies)"));
        report.failures.push(fen);
    }
    Ok(report)
}
