//! A game session for one rule set, behind an object-safe trait so the
//! protocol can hold whichever variant was chosen at run time. This is the
//! one place the protocol dispatches into generic code.

use std::time::Instant;

use super::hubpos::{move_to_hub, parse_hub_move, parse_hub_pos, write_hub_pos};
use super::quote;
use crate::book::{Book, Chooser};
use crate::eval::Evaluate;
use crate::game::Game;
use crate::movegen::perft::perft;
use crate::movegen::{generate, generate_dups, MoveList};
use crate::notation::display::diagram;
use crate::notation::fen::{parse_fen, write_fen};
use crate::notation::movetext::parse_move;
use crate::position::Position;
use crate::rules::Rules;
use crate::search::threads::{SearchHandle, Searcher};
use crate::search::{plies_to_end, Info, Job, Limits, SearchResult};
use crate::{with_rules, Variant};

/// What the protocols need of an engine for one rule set.
pub trait Session: Send {
    /// The rule set.
    fn variant(&self) -> Variant;
    /// Sets the root: a Hub `pos=` string or PDN FEN (or the start
    /// position), then `moves` played from it. On error nothing changes.
    fn set_position(
        &mut self,
        hub_pos: Option<&str>,
        fen: Option<&str>,
        moves: Option<&str>,
    ) -> Result<(), String>;
    /// Forgets search state (new game).
    fn new_game(&mut self);
    /// Number of search threads.
    fn set_threads(&mut self, n: usize);
    /// Hash size in MiB. A size that cannot be had is an error naming it,
    /// and the table is kept.
    fn set_hash(&mut self, mib: usize) -> Result<(), String>;
    /// Handle to stop the search or signal a ponder hit.
    fn handle(&self) -> SearchHandle;
    /// Runs a search, calling `info` with each Hub info line, and returns
    /// the `done` line. The caller arms the stop flag first
    /// ([`SearchHandle::arm`]).
    fn go(
        &mut self,
        limits: Limits,
        ponder: bool,
        multipv: usize,
        start: Instant,
        info: &mut dyn FnMut(String),
    ) -> String;
    /// A move from `book` for the current position, chosen by `chooser`:
    /// the `info` line (depth 0, the book's score) and the `done` line, or
    /// `None` when the book has no move here.
    fn book_move(&mut self, book: &Book, chooser: &mut Chooser) -> Option<(String, String)>;
    /// Board diagram of the current position.
    fn display(&self) -> String;
    /// Static evaluation, for debugging.
    fn eval(&self) -> String;
    /// Perft of the current position, or `None` when `stop` returned true
    /// (it is asked between subtrees of a few thousand nodes).
    fn perft(&self, depth: u32, stop: &dyn Fn() -> bool) -> Option<u64>;
    /// Current position as PDN FEN.
    fn fen(&self) -> String;
    /// Current position as a Hub string.
    fn hub_pos(&self) -> String;
}

/// A new session for `variant`, or an error naming the hash size when its
/// table cannot be had.
pub fn new_session(
    variant: Variant,
    threads: usize,
    hash_mib: usize,
) -> Result<Box<dyn Session>, String> {
    with_rules!(variant, R => Ok(Box::new(VariantSession::<R>::new(variant, threads, hash_mib)?)))
}

struct VariantSession<R: Evaluate> {
    variant: Variant,
    searcher: Searcher<R>,
    /// Size of the searcher's hash table in MiB.
    hash_mib: usize,
    game: Game<R>,
}

impl<R: Evaluate> VariantSession<R> {
    fn new(variant: Variant, threads: usize, hash_mib: usize) -> Result<Self, String> {
        // The weights are read (their tables built) here, at `init` or
        // the first command that needs the variant, not on a search's
        // clock.
        R::slot().get::<R>();
        Ok(VariantSession {
            variant,
            searcher: Searcher::try_new(threads, hash_mib)?,
            hash_mib,
            game: Game::default(),
        })
    }
}

/// Leaves below `pos` at `depth`, as [`perft`] counts them, or `None` as
/// soon as `stop` returns true; it is asked before each subtree deeper
/// than [`PERFT_STEP`].
fn perft_stoppable<R: Rules>(
    pos: &Position<R>,
    depth: u32,
    stop: &dyn Fn() -> bool,
) -> Option<u64> {
    if depth <= PERFT_STEP {
        return Some(perft::<R, false>(pos, depth));
    }
    if stop() {
        return None;
    }
    let mut list = MoveList::new();
    generate_dups::<R, false>(pos, &mut list);
    let mut n = 0;
    for m in list.iter() {
        n += perft_stoppable(&pos.played(m), depth - 1, stop)?;
    }
    Some(n)
}

/// Depth of the subtrees a stoppable perft counts without looking at its
/// stop flag: a few thousand leaves, milliseconds at most.
const PERFT_STEP: u32 = 3;

/// Hub score: men with two decimals; a win in `n` plies is `99.xx` with
/// `xx = 100 - n` (clients read `10000 - |100 * score|` as the distance).
pub fn hub_score(score: i32) -> String {
    let x = if let Some(n) = plies_to_end(score) {
        (10_000 - n.min(99)) as f64 / 100.0 * score.signum() as f64
    } else {
        (score as f64 / 100.0).clamp(-80.0, 80.0)
    };
    format!("{x:.2}")
}

/// A Hub `info` line.
pub fn info_line<R: Evaluate>(root: &Position<R>, info: &Info, multipv: bool) -> String {
    let secs = info.time.as_secs_f64();
    let nps = if secs > 0.0 {
        info.nodes as f64 / secs / 1e6
    } else {
        0.0
    };
    let mut p = *root;
    let mut pv = Vec::new();
    for m in &info.pv {
        pv.push(move_to_hub::<R>(m));
        p.play(m);
    }
    let mut s = format!(
        "info depth={} mean-depth={:.1} score={} nodes={} time={:.3} nps={:.1} pv={}",
        info.depth,
        info.mean_depth,
        hub_score(info.score),
        info.nodes,
        secs,
        nps,
        quote(&pv.join(" "))
    );
    if info.egdb_hits > 0 {
        s.push_str(&format!(" egdb-hits={}", info.egdb_hits));
    }
    if multipv {
        s.push_str(&format!(" multipv={}", info.multipv));
    }
    s
}

/// The `done` line for a result.
pub fn done_line<R: Evaluate>(r: &SearchResult) -> String {
    match r.best {
        None => "done".to_string(),
        Some(m) => match r.ponder {
            Some(p) => format!(
                "done move={} ponder={}",
                move_to_hub::<R>(&m),
                move_to_hub::<R>(&p)
            ),
            None => format!("done move={}", move_to_hub::<R>(&m)),
        },
    }
}

impl<R: Evaluate> Session for VariantSession<R> {
    fn variant(&self) -> Variant {
        self.variant
    }

    fn set_position(
        &mut self,
        hub_pos: Option<&str>,
        fen: Option<&str>,
        moves: Option<&str>,
    ) -> Result<(), String> {
        let pos: Position<R> = match (hub_pos, fen) {
            (Some(p), _) => parse_hub_pos(p)?,
            (None, Some(f)) => parse_fen(f).map_err(|e| format!("bad position: {e}"))?,
            (None, None) => Position::start(),
        };
        let mut game = Game::new(pos);
        for (i, text) in moves.unwrap_or("").split_whitespace().enumerate() {
            let p = *game.position();
            let mv = parse_hub_move(&p, text)
                .or_else(|e| parse_move(&p, text).map_err(|_| e))
                .map_err(|e| format!("move {} of moves: {e}", i + 1))?;
            game.play(&mv);
        }
        self.game = game;
        Ok(())
    }

    fn new_game(&mut self) {
        // A fresh table rather than zeroing this one: zeroing would make
        // the system back every page of a table the search touched only in
        // part (gigabytes, seconds), while a new one is zeroed lazily.
        if self.searcher.try_set_hash(self.hash_mib).is_err() {
            self.searcher.clear();
        }
    }

    fn set_threads(&mut self, n: usize) {
        self.searcher.set_threads(n);
    }

    fn set_hash(&mut self, mib: usize) -> Result<(), String> {
        self.searcher.try_set_hash(mib)?;
        self.hash_mib = mib;
        Ok(())
    }

    fn handle(&self) -> SearchHandle {
        self.searcher.handle()
    }

    fn go(
        &mut self,
        limits: Limits,
        ponder: bool,
        multipv: usize,
        start: Instant,
        info: &mut dyn FnMut(String),
    ) -> String {
        let root = *self.game.position();
        let job = Job {
            root,
            history: self.game.history().to_vec(),
            reversible: self.game.reversible_plies(),
            limits,
            multipv,
            start,
            ponder,
        };
        let many = multipv > 1;
        let r = self
            .searcher
            .search_armed(&job, &mut |i| info(info_line(&root, i, many)));
        done_line::<R>(&r)
    }

    fn book_move(&mut self, book: &Book, chooser: &mut Chooser) -> Option<(String, String)> {
        let root = *self.game.position();
        let ply = self
            .game
            .plies_from_start()
            .or_else(|| root.opening_plies());
        let pick = chooser.choose(book, &root, ply)?;
        // The expected reply: the book's best, else the first legal one.
        let child = root.played(&pick.mv);
        let ponder = book.best(&child).map(|b| b.mv).or_else(|| {
            let mut list = MoveList::new();
            generate(&child, &mut list);
            list.first().copied()
        });
        let info = Info {
            depth: 0,
            mean_depth: 0.0,
            seldepth: 0,
            score: pick.score,
            nodes: 0,
            time: std::time::Duration::ZERO,
            pv: vec![pick.mv],
            multipv: 1,
            egdb_hits: 0,
        };
        let result = SearchResult {
            best: Some(pick.mv),
            ponder,
            score: pick.score,
            ..Default::default()
        };
        Some((info_line(&root, &info, false), done_line::<R>(&result)))
    }

    fn display(&self) -> String {
        diagram(self.game.position())
    }

    fn eval(&self) -> String {
        format!(
            "eval score={}",
            hub_score(R::evaluate(self.game.position()))
        )
    }

    fn perft(&self, depth: u32, stop: &dyn Fn() -> bool) -> Option<u64> {
        perft_stoppable::<R>(self.game.position(), depth, stop)
    }

    fn fen(&self) -> String {
        write_fen(self.game.position())
    }

    fn hub_pos(&self) -> String {
        write_hub_pos(self.game.position())
    }
}
