//! `kondavo book build` and `kondavo book show`.
//!
//! The build grows a [`Tree`] by drop-out expansion (`docs/book.md`):
//! each round takes the cheapest leaves (one per thread), scores every new
//! child with the engine's own search to a fixed depth or node count, and
//! backs the values up. Every search starts from an empty table, so a
//! position's score does not depend on what was searched before it: the
//! book is a function of its options, and a build resumed from its
//! `.partial` file ends with the same bytes as one that ran through.

use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use rustc_hash::FxHashMap;

use crate::book::tree::Tree;
use crate::book::{embedded, Book};
use crate::eval::Evaluate;
use crate::notation::fen::parse_fen;
use crate::notation::movetext::move_to_pdn;
use crate::position::Position;
use crate::protocol::hubpos::move_to_hub;
use crate::search::threads::Searcher;
use crate::search::{Job, Limits};
use crate::tools::analyse::json_string;
use crate::tools::openings::load_openings;
use crate::tools::search::score_text;
use crate::variant::Variant;
use crate::with_rules;

/// What `kondavo book build` is asked.
#[derive(Clone, Debug)]
pub struct BuildOptions {
    /// Rule set.
    pub variant: Variant,
    /// The book to write.
    pub out: PathBuf,
    /// Positions (expanded nodes) the book should reach.
    pub size: usize,
    /// The search of each new position: a depth and/or a node count.
    pub limits: Limits,
    /// Positions searched at once (each on one thread).
    pub threads: usize,
    /// Hash MiB of each thread's search.
    pub hash_mib: usize,
    /// More roots besides the start position: an openings file or deck
    /// (as `match --openings` reads them).
    pub roots: Option<String>,
    /// Cost of a ply in the expansion priority, in centi-men.
    pub ply_cost: i32,
    /// The state is written to `<out>.partial` at most this often.
    pub save_every: Duration,
    /// A progress bar on standard error (else a line now and then).
    pub progress: bool,
}

/// What a build did.
#[derive(Clone, Debug, PartialEq)]
pub struct BuildSummary {
    /// Positions of the book.
    pub positions: usize,
    /// Positions this run added.
    pub new: usize,
    /// Entries (moves) of the book.
    pub entries: usize,
    /// Positions searched by this run.
    pub searches: usize,
    /// Size of the file in bytes.
    pub bytes: u64,
    /// Time this run took.
    pub time: Duration,
}

/// The file a build keeps its state in until it ends.
pub fn partial_path(out: &Path) -> PathBuf {
    let mut p = out.as_os_str().to_owned();
    p.push(".partial");
    PathBuf::from(p)
}

/// Runs the build; progress goes to `log` (standard error), the final
/// line to `out`.
pub fn run_build(
    opts: &BuildOptions,
    out: &mut dyn FnMut(String),
    log: &mut dyn FnMut(String),
) -> Result<BuildSummary, String> {
    with_rules!(opts.variant, R => build::<R>(opts, out, log))
}

/// One search thread's searcher; each search starts from a clear table.
fn score_all<R: Evaluate>(
    searchers: &mut [Searcher<R>],
    positions: &[Position<R>],
    limits: &Limits,
) -> Vec<i32> {
    let next = AtomicUsize::new(0);
    let results = Mutex::new(vec![0i32; positions.len()]);
    std::thread::scope(|scope| {
        for s in searchers.iter_mut() {
            let (next, results) = (&next, &results);
            let job_limits = limits.clone();
            let run = move || loop {
                let j = next.fetch_add(1, Ordering::Relaxed);
                let Some(pos) = positions.get(j) else { break };
                s.clear();
                let job = Job {
                    root: *pos,
                    history: Vec::new(),
                    reversible: 0,
                    limits: job_limits.clone(),
                    multipv: 1,
                    start: Instant::now(),
                    ponder: false,
                };
                let r = s.search(&job, &mut |_| {});
                if let Ok(mut v) = results.lock() {
                    v[j] = r.score;
                }
            };
            let spawned = std::thread::Builder::new()
                .stack_size(64 << 20)
                .spawn_scoped(scope, run);
            if spawned.is_err() {
                break;
            }
        }
    });
    // Jobs no thread took (a thread could not start) are searched here.
    let mut v = results.into_inner().unwrap_or_else(|e| e.into_inner());
    let mut j = next.load(Ordering::Relaxed);
    while j < positions.len() {
        if let Some(s) = searchers.first_mut() {
            s.clear();
            let job = Job {
                root: positions[j],
                history: Vec::new(),
                reversible: 0,
                limits: limits.clone(),
                multipv: 1,
                start: Instant::now(),
                ponder: false,
            };
            v[j] = s.search(&job, &mut |_| {}).score;
        }
        j += 1;
    }
    v
}

fn build<R: Evaluate>(
    opts: &BuildOptions,
    out: &mut dyn FnMut(String),
    log: &mut dyn FnMut(String),
) -> Result<BuildSummary, String> {
    let started = Instant::now();
    let variant = opts.variant;
    let partial = partial_path(&opts.out);
    if opts.limits.depth.is_none() && opts.limits.nodes.is_none() {
        return Err("book build needs a search depth or node count".into());
    }

    // The roots: the start position, then the openings given.
    let mut roots = vec![Position::<R>::start()];
    if let Some(spec) = &opts.roots {
        for o in load_openings::<R>(spec).map_err(|e| format!("--roots: {e}"))? {
            let p = o.position();
            if !roots.iter().any(|r| r.key() == p.key()) {
                roots.push(p);
            }
        }
    }

    // What an earlier run left: its partial state, else the book itself.
    let resume_from = [&partial, &opts.out].into_iter().find(|p| p.exists());
    let previous = match resume_from {
        Some(p) => Some(Book::open_for(p, variant).map_err(|e| {
            format!(
                "cannot continue from {}: {e} (remove it to start afresh)",
                p.display()
            )
        })?),
        None => None,
    };
    let mut tree = Tree::<R>::new();
    let mut unscored = Vec::new();
    for &r in &roots {
        let found = match &previous {
            Some(b) => tree
                .add_root_from_book(r, b)
                .map_err(|e| format!("cannot continue from the book: {e}"))?,
            None => false,
        };
        if !found && tree.find(&r).is_none() {
            unscored.push(r);
        } else if !found {
            // In the tree as another root's descendant: a root as it is.
            let v = tree.value(&r).unwrap_or(0);
            tree.add_root(r, v);
        }
    }
    if let (Some(p), Some(b)) = (resume_from, &previous) {
        log(format!(
            "book build: continuing from {} ({} positions)",
            p.display(),
            b.positions()
        ));
    }

    let threads = opts.threads.max(1);
    let mut searchers: Vec<Searcher<R>> = (0..threads)
        .map(|_| Searcher::<R>::try_new(1, opts.hash_mib))
        .collect::<Result<_, _>>()?;
    let mut searches = 0usize;
    if !unscored.is_empty() {
        let scores = score_all(&mut searchers, &unscored, &opts.limits);
        searches += unscored.len();
        for (p, s) in unscored.iter().zip(scores) {
            tree.add_root(*p, s);
        }
    }

    let bar = if opts.progress && std::io::stderr().is_terminal() {
        let b = indicatif::ProgressBar::with_draw_target(
            Some(opts.size as u64),
            indicatif::ProgressDrawTarget::stderr(),
        );
        b.set_style(
            indicatif::ProgressStyle::with_template(
                "{elapsed_precise} [{bar:40}] {pos}/{len} positions ({per_sec}, eta {eta}) {msg}",
            )
            .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
        );
        b
    } else {
        indicatif::ProgressBar::hidden()
    };
    let plain = !opts.progress || !std::io::stderr().is_terminal();
    const LINE_EVERY: Duration = Duration::from_secs(10);
    let mut last_line = Instant::now();
    let mut last_save = Instant::now();
    let mut expanded = tree.expanded();
    let at_start = expanded;
    bar.set_position(expanded as u64);
    while expanded < opts.size {
        let leaves = tree.select(threads, opts.ply_cost);
        if leaves.is_empty() {
            log(format!(
                "book build: every line ends in a finished game after {expanded} positions"
            ));
            break;
        }
        let mut todo: Vec<Position<R>> = Vec::new();
        for &l in &leaves {
            for c in tree.new_children(l) {
                if !todo.iter().any(|p| p.key() == c.key()) {
                    todo.push(c);
                }
            }
        }
        let scores = score_all(&mut searchers, &todo, &opts.limits);
        searches += todo.len();
        let by_key: FxHashMap<u64, i32> = todo.iter().map(|p| p.key()).zip(scores).collect();
        for &l in &leaves {
            tree.expand(l, |p| by_key.get(&p.key()).copied().unwrap_or(0));
        }
        tree.backup();
        expanded = tree.expanded();
        bar.set_position(expanded as u64);
        bar.set_message(format!("{searches} searches"));
        if plain && last_line.elapsed() >= LINE_EVERY {
            last_line = Instant::now();
            log(format!(
                "book build: {expanded}/{} positions, {searches} searches, {:.0} s",
                opts.size,
                started.elapsed().as_secs_f64()
            ));
        }
        if last_save.elapsed() >= opts.save_every && expanded < opts.size {
            Book::new(variant, tree.entries()).write(&partial)?;
            last_save = Instant::now();
        }
    }
    bar.finish_and_clear();
    let book = Book::new(variant, tree.entries());
    let bytes = book.write(&opts.out)?;
    if partial.exists() {
        std::fs::remove_file(&partial)
            .map_err(|e| format!("cannot remove {}: {e}", partial.display()))?;
    }
    let time = started.elapsed();
    let secs = time.as_secs_f64();
    let summary = BuildSummary {
        positions: book.positions(),
        new: book.positions().saturating_sub(at_start),
        entries: book.entries().len(),
        searches,
        bytes,
        time,
    };
    out(format!(
        "book {variant}: positions={} new={} entries={} searches={searches} bytes={bytes} time={secs:.1} positions/min={:.0} file={}",
        summary.positions,
        summary.new,
        summary.entries,
        summary.new as f64 * 60.0 / secs.max(1e-9),
        opts.out.display()
    ));
    Ok(summary)
}

/// The book `kondavo book show` reads: a file, else the variant's
/// embedded book.
pub fn open_book(variant: Variant, path: Option<&Path>) -> Result<Book, String> {
    match path {
        Some(p) => Book::open_for(p, variant),
        None => embedded::check(variant)?.ok_or_else(|| {
            format!("this build has no {variant} book (books/{variant}.kdb); give --book <file>")
        }),
    }
}

/// `kondavo book show`: the book moves of a position, best first: the PDN
/// move, the Hub move and the score, one a line, or JSON lines.
pub fn run_show(
    variant: Variant,
    fen: Option<&str>,
    path: Option<&Path>,
    json: bool,
    out: &mut dyn FnMut(String),
) -> Result<(), String> {
    let book = open_book(variant, path)?;
    with_rules!(variant, R => {
        let pos: Position<R> = match fen {
            Some(f) => parse_fen(f).map_err(|e| format!("bad FEN: {e}"))?,
            None => Position::start(),
        };
        let moves = book.moves(&pos);
        if !json && moves.is_empty() {
            out("no book move in this position".to_string());
        }
        for m in moves {
            let pdn = move_to_pdn(&pos, &m.mv);
            let hub = move_to_hub::<R>(&m.mv);
            out(if json {
                format!(
                    "{{\"move\":{},\"hub\":{},\"score\":{}}}",
                    json_string(&pdn),
                    json_string(&hub),
                    m.score
                )
            } else {
                format!("{pdn} {hub} {}", score_text(m.score))
            });
        }
        Ok(())
    })
}
