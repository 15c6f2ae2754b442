//! `kondavo search` and `kondavo bench`: run the search from the command
//! line.

use std::time::{Duration, Instant};

use crate::eval::Evaluate;
use crate::movegen::{generate, MoveList};
use crate::notation::movetext::{line_to_pdn, move_to_pdn};
use crate::position::Position;
use crate::search::threads::Searcher;
use crate::search::{plies_to_end, Info, Job, Limits, SearchResult};

/// A score for people: centi-men, or `win N` / `loss N` in plies.
pub fn score_text(score: i32) -> String {
    match plies_to_end(score) {
        Some(n) if score > 0 => format!("win {n}"),
        Some(n) => format!("loss {n}"),
        None => score.to_string(),
    }
}

/// One iteration line of `kondavo search`.
pub fn info_line<R: Evaluate>(root: &Position<R>, info: &Info) -> String {
    let secs = info.time.as_secs_f64();
    let nps = if secs > 0.0 {
        info.nodes as f64 / secs
    } else {
        0.0
    };
    let mut s = format!(
        "depth={} seldepth={} score={} nodes={} nps={:.0} time={:.3} pv={}",
        info.depth,
        info.seldepth,
        score_text(info.score),
        info.nodes,
        nps,
        secs,
        line_to_pdn(root, &info.pv).join(" ")
    );
    if info.egdb_hits > 0 {
        s.push_str(&format!(" egdb-hits={}", info.egdb_hits));
    }
    s
}

/// A job with the given limits from `root`, no game history.
pub fn job<R: Evaluate>(root: Position<R>, limits: Limits, multipv: usize) -> Job<R> {
    Job {
        root,
        history: Vec::new(),
        reversible: 0,
        limits,
        multipv,
        start: Instant::now(),
        ponder: false,
    }
}

/// Runs one search and prints its lines and the best move.
pub fn run_search<R: Evaluate>(
    root: Position<R>,
    limits: Limits,
    threads: usize,
    hash_mib: usize,
    out: &mut dyn FnMut(String),
) -> SearchResult {
    let mut searcher = Searcher::<R>::new(threads, hash_mib);
    // The weights are read before the search's clock starts.
    R::slot().get::<R>();
    let j = job(root, limits, 1);
    let result = searcher.search(&j, &mut |info| out(info_line(&root, info)));
    match result.best {
        Some(m) => out(format!(
            "bestmove {} score={}",
            move_to_pdn(&root, &m),
            score_text(result.score)
        )),
        None => out("bestmove none (no legal move)".to_string()),
    }
    result
}

/// Plays from `book` when it knows `root`: prints
/// `book move=<m> score=<s> depth=0` and the `bestmove` line, and returns
/// the move; `None` (nothing printed) when the book has no move here.
pub fn book_move<R: Evaluate>(
    root: &Position<R>,
    book: &crate::book::Book,
    chooser: &mut crate::book::Chooser,
    out: &mut dyn FnMut(String),
) -> Option<crate::movegen::Move> {
    let ply = root.opening_plies();
    let pick = chooser.choose(book, root, ply)?;
    let text = move_to_pdn(root, &pick.mv);
    out(format!(
        "book move={text} score={} depth=0",
        score_text(pick.score)
    ));
    out(format!("bestmove {text} score={}", score_text(pick.score)));
    Some(pick.mv)
}

/// The bench positions of a variant: the start position and positions
/// reached by fixed pseudo-random playouts (deterministic: the generator and
/// the seed never change).
pub fn bench_positions<R: Evaluate>() -> Vec<Position<R>> {
    let mut out = vec![Position::<R>::start()];
    let mut seed = 0x2545_F491_4F6C_DD1Du64;
    for game in 0..4 {
        let mut pos = Position::<R>::start();
        for _ in 0..(10 + 8 * game) {
            let mut list = MoveList::new();
            generate(&pos, &mut list);
            if list.is_empty() {
                break;
            }
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            pos.play(&list[(seed % list.len() as u64) as usize]);
        }
        let mut list = MoveList::new();
        generate(&pos, &mut list);
        if !list.is_empty() {
            out.push(pos);
        }
    }
    out
}

/// Searches each bench position to `depth` on `threads` threads with a
/// fresh table; returns (nodes, time).
pub fn bench<R: Evaluate>(
    depth: i32,
    threads: usize,
    hash_mib: usize,
    out: &mut dyn FnMut(String),
) -> (u64, Duration) {
    let mut nodes = 0;
    let mut time = Duration::ZERO;
    // The weights are read and their tables built on first use: do it
    // before the first search's clock starts.
    R::slot().get::<R>();
    for (i, pos) in bench_positions::<R>().into_iter().enumerate() {
        let mut searcher = Searcher::<R>::new(threads, hash_mib);
        let j = job(pos, Limits::depth(depth), 1);
        let r = searcher.search(&j, &mut |_| {});
        nodes += r.nodes;
        time += r.time;
        let best = r
            .best
            .map(|m| move_to_pdn(&pos, &m))
            .unwrap_or_else(|| "none".into());
        out(format!(
            "{} position {} nodes={} time={:.3} best={} score={}",
            R::NAME,
            i + 1,
            r.nodes,
            r.time.as_secs_f64(),
            best,
            score_text(r.score)
        ));
    }
    (nodes, time)
}
