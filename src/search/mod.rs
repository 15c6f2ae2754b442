//! The search: iterative deepening PVS with aspiration windows, a
//! quiescence search that resolves captures and looks one ply at capture
//! threats, a shared transposition table, killer and history ordering, late
//! move reductions, a reduced-depth pruning test in place of null move,
//! futility pruning, singular extensions with multi-cut (the default in
//! International, Russian, Brazilian and Turkish; see
//! [`tune::default_for`]), and draw detection inside the tree.
//!
//! Multi-PV: each iteration searches the first line exactly as a
//! single-line search does, then each further line (the best of the moves
//! not in an earlier line) with a full window, in a table of its own; the
//! lines come best first. A single legal reply under a clock is searched to
//! a small depth, so that its score means something.
//!
//! Generic over `R: Evaluate`; the search never sees the run-time variant.
//! [`threads::Searcher`] runs one [`Worker`] per thread (Lazy SMP).

pub mod threads;
pub mod time;
pub mod tune;

use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

use crate::egdb::Egdb;
use crate::eval::Evaluate;
use crate::game::DrawCounters;
use crate::movegen::{captures, generate, quiets, side_has_capture, Move, MoveList};
use crate::position::Position;
use crate::tt::{Bound, Entry, TranspositionTable, TtMove};
pub use time::{Limits, TimeManager};

/// A score in centi-men from the side to move's point of view.
pub type Score = i32;

/// Larger than any score.
pub const INF: Score = 32_000;
/// The score of a won position at the root; a win in `n` plies is
/// `WIN - n`.
pub const WIN: Score = 31_000;
/// Scores beyond this are wins or losses at a known distance.
pub const WIN_BOUND: Score = WIN - 1_000;

/// Deepest ply the search can reach.
pub const MAX_PLY: usize = 128;

/// The score of a position the endgame databases call won at the root in
/// no plies: a database win in `d` plies found at ply `p` scores
/// `EGDB_WIN - p - d`, below every win the search proves on its own
/// (`WIN - n` with `n < MAX_PLY`) and above [`WIN_BOUND`], so that it is
/// kept in the table with the same ply adjustment as a proven win. A
/// database loss is the negative, a draw the search's draw score (0
/// without contempt).
pub const EGDB_WIN: Score = WIN - MAX_PLY as Score;

/// The score at `ply` of a database result with distance `d` plies; a
/// draw scores `draw`.
#[inline(always)]
pub fn egdb_score(wdl: crate::egdb::Wdl, d: u8, ply: usize, draw: Score) -> Score {
    let win = EGDB_WIN - ply as Score - d as Score;
    match wdl {
        crate::egdb::Wdl::Win => win,
        crate::egdb::Wdl::Loss => -win,
        crate::egdb::Wdl::Draw => draw,
    }
}

/// The distance in plies from the root to the end of the game of a win or
/// loss score (one beyond [`WIN_BOUND`]), whether the search proved it or
/// the databases gave it; `None` for other scores.
pub fn plies_to_end(score: Score) -> Option<Score> {
    if score.abs() <= WIN_BOUND {
        return None;
    }
    let n = WIN - score.abs();
    Some(if n < MAX_PLY as Score {
        n
    } else {
        EGDB_WIN - score.abs()
    })
}

/// Whether a win or loss score came from the endgame databases (its
/// distance is the databases', not one the search proved).
pub fn is_egdb_score(score: Score) -> bool {
    score.abs() > WIN_BOUND && score.abs() <= EGDB_WIN
}

// ---- Tuning constants -----------------------------------------------------

/// Iterations from this depth on start with an aspiration window (its
/// width and the pruning and reduction settings are in [`tune`]).
const ASPIRATION_MIN_DEPTH: i32 = 4;
/// With several threads, a move another thread is searching is put off
/// until the node's other moves are done, from this depth on.
const DEFER_MIN_DEPTH: i32 = 3;
/// With a single legal reply under a clock, the search stops after this
/// depth...
const SINGLE_REPLY_DEPTH: i32 = 10;
/// ...or this percentage of its time for the move, whichever comes first.
const SINGLE_REPLY_PERCENT: u32 = 10;
/// Nodes between two looks at the clock and the stop flag.
const CHECK_EVERY: u64 = 1024;
/// No move left out at this ply ([`Worker::excluded`]).
const NO_EXCLUDED: u8 = u8::MAX;
/// No static evaluation at this ply (`lmr-improving`).
const NO_EVAL: Score = Score::MIN;
/// History bonuses saturate around this value.
const HISTORY_MAX: i32 = 16_384;
/// Moves history score `h` by `bonus` (a malus when negative), less as it
/// nears [`HISTORY_MAX`].
#[inline(always)]
fn history_update(h: &mut i32, bonus: i32) {
    *h += bonus - *h * bonus.abs() / HISTORY_MAX;
}

/// Entries of one continuation history table: 64 previous to bits by 64
/// from bits by 64 to bits.
const CONT_TABLE: usize = 64 * 64 * 64;

/// The index of a quiet move (`from`, `to`) after a move to `prev_to` in
/// one continuation history table.
#[inline(always)]
fn cont_index(prev_to: u8, from: u8, to: u8) -> usize {
    ((prev_to as usize & 63) << 12) | ((from as usize & 63) << 6) | (to as usize & 63)
}

// ---- Shared state ---------------------------------------------------------

/// State shared by all search threads.
#[derive(Debug)]
pub struct Shared {
    /// Set to stop every thread.
    pub stop: AtomicBool,
    /// Nodes searched by all threads in the current search.
    pub nodes: AtomicU64,
    /// Positions all threads found in the endgame databases in the current
    /// search (added with the nodes, every `CHECK_EVERY` nodes).
    pub egdb_hits: AtomicU64,
    /// The search is pondering: no clock until `ponder-hit`.
    pub pondering: AtomicBool,
    /// The transposition table.
    pub tt: TranspositionTable,
    /// The table of the lines after the first in multi-PV mode (made at the
    /// first multi-PV search), so that they leave the main table as a
    /// single-line search leaves it.
    lines_tt: OnceLock<TranspositionTable>,
    /// Number of threads searching (deferral only pays with more than one).
    pub threads: AtomicUsize,
    /// Keys of positions some thread is searching right now, one per slot
    /// (simplified ABDADA): a thread that meets a position another one is
    /// busy with searches its other moves first. Relaxed atomics; a lost or
    /// stale mark only changes the order moves are searched in.
    busy: Box<[AtomicU64]>,
}

/// The multi-PV lines' table is the main one's size divided by this.
const LINES_TT_DIVISOR: usize = 4;

/// Slots of the busy table (a power of two).
const BUSY_SLOTS: usize = 1 << 14;

impl Shared {
    /// Shared state with a table of `hash_mib` MiB.
    pub fn new(hash_mib: usize) -> Self {
        Shared {
            stop: AtomicBool::new(false),
            nodes: AtomicU64::new(0),
            egdb_hits: AtomicU64::new(0),
            pondering: AtomicBool::new(false),
            tt: TranspositionTable::new(hash_mib),
            lines_tt: OnceLock::new(),
            threads: AtomicUsize::new(1),
            busy: (0..BUSY_SLOTS).map(|_| AtomicU64::new(0)).collect(),
        }
    }

    /// Empties the tables (between games).
    pub fn clear_tables(&self) {
        self.tt.clear();
        if let Some(t) = self.lines_tt.get() {
            t.clear();
        }
    }

    /// The table of the lines after the first (a quarter of the main
    /// table's size), made on first use.
    fn lines_tt(&self) -> &TranspositionTable {
        self.lines_tt
            .get_or_init(|| TranspositionTable::new(self.tt.size_mib() / LINES_TT_DIVISOR))
    }

    fn busy_slot(&self, key: u64) -> &AtomicU64 {
        &self.busy[key as usize & (BUSY_SLOTS - 1)]
    }

    /// Whether another thread is searching the position of `key`.
    fn is_busy(&self, key: u64) -> bool {
        self.busy_slot(key).load(Ordering::Relaxed) == key
    }

    /// Marks the position of `key` as being searched.
    fn mark_busy(&self, key: u64) {
        self.busy_slot(key).store(key, Ordering::Relaxed);
    }

    /// Clears the mark of `key` unless another position took the slot.
    fn unmark_busy(&self, key: u64) {
        let _ = self
            .busy_slot(key)
            .compare_exchange(key, 0, Ordering::Relaxed, Ordering::Relaxed);
    }
}

/// One line of search output.
#[derive(Clone, Debug, PartialEq)]
pub struct Info {
    /// Nominal depth of the iteration.
    pub depth: i32,
    /// Average depth of the leaves of this iteration.
    pub mean_depth: f64,
    /// Deepest ply reached.
    pub seldepth: usize,
    /// Score from the side to move's point of view.
    pub score: Score,
    /// Nodes searched so far (all threads).
    pub nodes: u64,
    /// Time since the search started.
    pub time: Duration,
    /// Principal variation.
    pub pv: Vec<Move>,
    /// Index of the line (1 = best) in multi-PV mode.
    pub multipv: usize,
    /// Positions all threads found in the endgame databases so far.
    pub egdb_hits: u64,
}

/// The outcome of a search.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SearchResult {
    /// Best move (`None` when the side to move has no legal move).
    pub best: Option<Move>,
    /// Expected reply.
    pub ponder: Option<Move>,
    /// Score of the best move.
    pub score: Score,
    /// Depth of the last completed iteration.
    pub depth: i32,
    /// Nodes searched (all threads).
    pub nodes: u64,
    /// Time taken.
    pub time: Duration,
    /// Principal variation.
    pub pv: Vec<Move>,
    /// All lines of the last iteration in multi-PV mode (best first).
    pub lines: Vec<Info>,
    /// Positions all threads found in the endgame databases.
    pub egdb_hits: u64,
}

/// What a thread is asked to search.
#[derive(Clone, Debug)]
pub struct Job<R: Evaluate> {
    /// Root position.
    pub root: Position<R>,
    /// Keys of the game's positions before the root, oldest first (only the
    /// last `reversible` matter).
    pub history: Vec<u64>,
    /// Plies since the last capture or man move, at the root.
    pub reversible: u32,
    /// Limits.
    pub limits: Limits,
    /// Number of lines to search (1 = normal search).
    pub multipv: usize,
    /// When the search started (all threads share it).
    pub start: Instant,
    /// Search with pondering semantics (no clock until ponder-hit).
    pub ponder: bool,
}

/// The reductions of `lmr-log` with divisor `div` (hundredths): at depth
/// `d` for the move in place `i` (from 0), ln(d) * ln(i + 1) / (div / 100)
/// plies, rounded down; all zero when `div` is 0.
fn lmr_log_table(div: i32) -> [[u8; 64]; 64] {
    let mut t = [[0u8; 64]; 64];
    if div <= 0 {
        return t;
    }
    for (d, row) in t.iter_mut().enumerate().skip(1) {
        for (i, r) in row.iter_mut().enumerate() {
            let x = (d as f64).ln() * ((i + 1) as f64).ln() * 100.0 / f64::from(div);
            *r = x.clamp(0.0, 60.0) as u8;
        }
    }
    t
}

/// A move's ordering score and its index in the generated list, packed in
/// one integer (score in the high bits) so that the best is a plain maximum.
#[inline(always)]
fn order_key(score: i32, index: usize) -> i64 {
    (score as i64) << 16 | (0xFFFF - index) as i64
}

/// The score and list index of an [`order_key`].
#[inline(always)]
fn order_unkey(key: i64) -> (i32, usize) {
    ((key >> 16) as i32, 0xFFFF - (key & 0xFFFF) as usize)
}

/// What move ordering reads at a node ([`Worker::order_context`]): the
/// killers, the counter move (with `counter-move`), the side's history
/// and, for each continuation table that `cont-history` turns on and the
/// path reaches, the table and the square the earlier move went to.
struct OrderContext<'a> {
    killers: [u16; 2],
    counter: Option<u16>,
    history: &'a [[i32; 64]; 64],
    cont: [Option<(&'a [i32], u8)>; 2],
}

/// Selection sort step: brings the best-scored move of `order[i..]` to `i`
/// (keys are unique, ties in score going to the earlier-generated move). Two
/// branch-free passes, a maximum then its position.
#[inline(always)]
fn select_next(order: &mut [i64], i: usize) {
    let tail = &order[i..];
    let best = tail.iter().copied().fold(i64::MIN, i64::max);
    let j = tail.iter().position(|&k| k == best).unwrap_or(0);
    order.swap(i, i + j);
}

/// A move's squares, capture flag and promotion in 16 bits (for killers:
/// equal ids in two positions at the same ply are the same move there).
#[inline(always)]
fn move_id(mv: &Move) -> u16 {
    (mv.from as u16 & 63)
        | (mv.to as u16 & 63) << 6
        | (mv.is_capture() as u16) << 12
        | (mv.promote as u16) << 13
}

/// No killer move yet.
const NO_MOVE_ID: u16 = u16::MAX;

/// A win or loss score converted for the table (distance from this node).
fn to_tt(score: Score, ply: usize) -> Score {
    if score > WIN_BOUND {
        score + ply as Score
    } else if score < -WIN_BOUND {
        score - ply as Score
    } else {
        score
    }
}

fn from_tt(score: Score, ply: usize) -> Score {
    if score > WIN_BOUND {
        score - ply as Score
    } else if score < -WIN_BOUND {
        score + ply as Score
    } else {
        score
    }
}

/// A root move and what the last iteration said of it.
#[derive(Clone, Debug)]
struct RootMove {
    mv: Move,
    score: Score,
    pv: Vec<Move>,
}

/// One search thread's state: ordering tables, the path, the PV.
pub struct Worker<R: Evaluate> {
    /// Thread index (0 = main).
    pub id: usize,
    shared: Arc<Shared>,
    /// Two killer moves per ply, as [`move_id`]s.
    killers: Vec<[u16; 2]>,
    /// History scores indexed by [side][from bit][to bit]; the side is
    /// always 0 unless `history-side` is on.
    history: Box<[[[i32; 64]; 64]; 2]>,
    /// The side to move at the root (0 White, 1 Black).
    root_side: usize,
    /// The quiet move (a [`move_id`]) that last refuted a move, indexed by
    /// that move's [from bit][to bit] (`counter-move`).
    counter_moves: Box<[[u16; 64]; 64]>,
    /// Continuation history (`cont-history`): quiet moves' scores indexed
    /// by the to bit of the opponent's last move (first table) or of our
    /// own move before it (second table), then the move's from and to bits
    /// ([`cont_index`]); empty until a search with the setting on.
    cont: Box<[i32]>,
    /// By ply: the from and to bits of the move that led to the node.
    path: Vec<(u8, u8)>,
    /// Zobrist keys along the current path, by ply.
    keys: Vec<u64>,
    game_keys: Vec<u64>,
    pv: Vec<Vec<Move>>,
    local_nodes: u64,
    nodes: u64,
    seldepth: usize,
    leaf_plies: u64,
    leaves: u64,
    root_depth: i32,
    tm: TimeManager,
    limits: Limits,
    pondering: bool,
    stopped: bool,
    root_moves: Vec<RootMove>,
    /// In this iteration a root move after the first beat the first one
    /// (a search that finished): `root_moves[0]` is then this depth's best
    /// so far, even if the iteration does not complete.
    root_improved: bool,
    /// Searching the lines after the first of a multi-PV iteration: the
    /// table looked in first and written to is [`Shared::lines_tt`].
    other_line: bool,
    /// The endgame databases of this search (taken from [`Evaluate::egdb`]
    /// when it starts), and their largest piece count (0 without).
    egdb: Option<Arc<Egdb<R>>>,
    egdb_pieces: u32,
    /// Database hits not yet added to [`Shared::egdb_hits`].
    local_egdb_hits: u64,
    /// The tunable parameters, copied when the search starts.
    p: tune::Params,
    /// By ply: the index in the move list of a move the node leaves out
    /// (the singular extension's test searches the other moves), or
    /// [`NO_EXCLUDED`].
    excluded: Vec<u8>,
    /// The logarithmic late move reductions (`lmr-log`) by [depth][place],
    /// made when the search starts (all zero without them).
    lmr_log: Box<[[u8; 64]; 64]>,
    /// By ply: the static evaluation of the node on the current path, or
    /// [`NO_EVAL`] where none was made (`lmr-improving`).
    evals: Vec<Score>,
    rules: std::marker::PhantomData<R>,
}

impl<R: Evaluate> std::fmt::Debug for Worker<R> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Worker {{ id: {}, nodes: {} }}", self.id, self.nodes)
    }
}

impl<R: Evaluate> Worker<R> {
    /// A worker for thread `id`.
    pub fn new(id: usize, shared: Arc<Shared>) -> Self {
        Worker {
            id,
            shared,
            killers: vec![[NO_MOVE_ID; 2]; MAX_PLY + 2],
            history: Box::new([[[0; 64]; 64]; 2]),
            root_side: 0,
            counter_moves: Box::new([[NO_MOVE_ID; 64]; 64]),
            cont: Box::new([]),
            path: vec![(0, 0); MAX_PLY + 2],
            keys: vec![0; MAX_PLY + 2],
            game_keys: Vec::new(),
            pv: vec![Vec::new(); MAX_PLY + 2],
            local_nodes: 0,
            nodes: 0,
            seldepth: 0,
            leaf_plies: 0,
            leaves: 0,
            root_depth: 0,
            tm: TimeManager::new(&Limits::default(), Instant::now(), 0),
            limits: Limits::default(),
            pondering: false,
            stopped: false,
            root_moves: Vec::new(),
            root_improved: false,
            other_line: false,
            egdb: None,
            egdb_pieces: 0,
            local_egdb_hits: 0,
            p: tune::DEFAULT,
            excluded: vec![NO_EXCLUDED; MAX_PLY + 2],
            lmr_log: Box::new([[0; 64]; 64]),
            evals: vec![NO_EVAL; MAX_PLY + 2],
            rules: std::marker::PhantomData,
        }
    }

    /// Forgets what was learnt (new game).
    pub fn clear(&mut self) {
        *self.history = [[[0; 64]; 64]; 2];
        *self.counter_moves = [[NO_MOVE_ID; 64]; 64];
        self.cont.fill(0);
        for k in &mut self.killers {
            *k = [NO_MOVE_ID; 2];
        }
    }

    fn flush_nodes(&mut self) {
        self.shared
            .nodes
            .fetch_add(self.local_nodes, Ordering::Relaxed);
        self.local_nodes = 0;
        if self.local_egdb_hits > 0 {
            self.shared
                .egdb_hits
                .fetch_add(self.local_egdb_hits, Ordering::Relaxed);
            self.local_egdb_hits = 0;
        }
    }

    /// Counts a node; every `CHECK_EVERY` nodes looks at the stop flag, and
    /// the main thread at the clock and the node budget.
    #[inline]
    fn count_node(&mut self) {
        self.nodes += 1;
        self.local_nodes += 1;
        if self.local_nodes >= CHECK_EVERY {
            self.flush_nodes();
            self.check_limits();
        }
    }

    fn check_limits(&mut self) {
        if self.shared.stop.load(Ordering::Relaxed) {
            self.stopped = true;
            return;
        }
        // Every thread watches the node budget (it counts all threads).
        let over_nodes = self
            .limits
            .nodes
            .is_some_and(|n| self.shared.nodes.load(Ordering::Relaxed) >= n);
        if over_nodes {
            self.shared.stop.store(true, Ordering::Relaxed);
            self.stopped = true;
            return;
        }
        if self.id != 0 {
            return;
        }
        if self.pondering && !self.shared.pondering.load(Ordering::Relaxed) {
            // Ponder hit: our clock starts now.
            self.pondering = false;
            self.tm.restart();
        }
        if !self.pondering && self.tm.hard_expired() {
            self.shared.stop.store(true, Ordering::Relaxed);
            self.stopped = true;
        }
    }

    /// Whether the position at `ply` is drawn by the N-move rule or repeats
    /// an earlier position (once is enough inside the tree).
    fn is_draw(&self, pos: &Position<R>, ply: usize, counters: DrawCounters) -> bool {
        if counters.move_rule_draw(pos) {
            return true;
        }
        let reversible = counters.reversible;
        let key = self.keys[ply];
        let mut back = 2;
        while back <= reversible as usize {
            let k = if back <= ply {
                self.keys[ply - back]
            } else {
                match self.game_keys.len().checked_sub(back - ply) {
                    Some(i) => self.game_keys[i],
                    None => break,
                }
            };
            if k == key {
                return true;
            }
            back += 2;
        }
        false
    }

    /// The databases' score of `pos` at `ply`, when it has few enough
    /// pieces. The side to move must have no capture (the caller knows).
    #[inline(always)]
    fn egdb_probe(&mut self, pos: &Position<R>, ply: usize) -> Option<Score> {
        if pos.occupied().count_ones() > self.egdb_pieces {
            return None;
        }
        let (wdl, d) = self.egdb.as_deref()?.probe(pos)?;
        self.local_egdb_hits += 1;
        Some(egdb_score(wdl, d, ply, self.draw_score(ply)))
    }

    /// The score of a draw at `ply` for the side to move there: 0 less the
    /// contempt at the root's side, 0 plus it at the other side's.
    #[inline(always)]
    fn draw_score(&self, ply: usize) -> Score {
        if ply & 1 == 0 {
            -self.p.contempt
        } else {
            self.p.contempt
        }
    }

    /// Looks `key` up in the table of the line being searched.
    #[inline(always)]
    fn tt_probe(&self, key: u64) -> Option<Entry> {
        if !self.other_line {
            return self.shared.tt.probe(key);
        }
        self.shared
            .lines_tt()
            .probe(key)
            .or_else(|| self.shared.tt.probe(key))
    }

    /// Stores a result in the table of the line being searched.
    #[inline(always)]
    fn tt_store(&self, key: u64, score: Score, depth: i32, bound: Bound, mv: Option<TtMove>) {
        if self.other_line {
            self.shared.lines_tt().store(key, score, depth, bound, mv);
        } else {
            self.shared.tt.store(key, score, depth, bound, mv);
        }
    }

    /// The history table of the side to move at `ply`: one for both sides
    /// unless `history-side` is on.
    #[inline(always)]
    fn history_side(&self, ply: usize) -> usize {
        (self.root_side ^ ply) & 1 & self.p.history_side as usize
    }

    #[inline(always)]
    fn history_of(&self, mv: &Move, ply: usize) -> &i32 {
        &self.history[self.history_side(ply)][mv.from as usize & 63][mv.to as usize & 63]
    }

    #[inline(always)]
    fn history_of_mut(&mut self, mv: &Move, ply: usize) -> &mut i32 {
        let side = self.history_side(ply);
        &mut self.history[side][mv.from as usize & 63][mv.to as usize & 63]
    }

    /// What move ordering reads at `ply`, looked up once for the node's
    /// moves.
    #[inline(always)]
    fn order_context(&self, ply: usize) -> OrderContext<'_> {
        let counter = if self.p.counter_move && ply > 0 {
            let (f, t) = self.counter_slot(ply);
            Some(self.counter_moves[f][t])
        } else {
            None
        };
        let cont = std::array::from_fn(|table| {
            (self.p.cont_history & (1 << table) != 0 && ply > table)
                .then(|| &self.cont[table * CONT_TABLE..][..CONT_TABLE])
                .map(|t| (t, self.path[ply - table].1))
        });
        OrderContext {
            killers: self.killers[ply],
            counter,
            history: &self.history[self.history_side(ply)],
            cont,
        }
    }

    /// Ordering score of a move other than the table's move: captures,
    /// promotions, killers, the counter move, then history (and
    /// continuation history).
    #[inline(always)]
    fn order_score(cx: &OrderContext, mv: &Move) -> i32 {
        let mut s = 0;
        if mv.is_capture() {
            s += 1 << 24;
        }
        if mv.promote {
            s += 1 << 23;
        }
        let id = move_id(mv);
        if cx.killers[0] == id {
            s += 1 << 21;
        } else if cx.killers[1] == id {
            s += 1 << 20;
        } else if cx.counter == Some(id) {
            s += 1 << 19;
        }
        let (from, to) = (mv.from as usize & 63, mv.to as usize & 63);
        s += cx.history[from][to];
        for (table, prev_to) in cx.cont.iter().flatten() {
            s += table[cont_index(*prev_to, mv.from, mv.to)];
        }
        s
    }

    /// Where table `table` of [`Worker::cont`] keeps `mv` at `ply`, when
    /// `cont-history` turns that table on and the path reaches back far
    /// enough.
    #[inline(always)]
    fn cont_slot(&self, table: usize, mv: &Move, ply: usize) -> Option<usize> {
        if self.p.cont_history & (1 << table) == 0 || ply < 1 + table {
            return None;
        }
        let prev_to = self.path[ply - table].1;
        Some(table * CONT_TABLE + cont_index(prev_to, mv.from, mv.to))
    }

    /// Adds `bonus` (a malus when negative) to `mv`'s continuation
    /// history entries at `ply`, as the history is updated (nothing while
    /// `cont-history` is off).
    fn reward_cont(&mut self, mv: &Move, ply: usize, bonus: i32) {
        if self.p.cont_history == 0 {
            return;
        }
        for table in 0..2 {
            if let Some(c) = self.cont_slot(table, mv, ply) {
                history_update(&mut self.cont[c], bonus);
            }
        }
    }

    /// Where [`Worker::counter_moves`] keeps the counter move of the move
    /// that led to `ply`.
    #[inline(always)]
    fn counter_slot(&self, ply: usize) -> (usize, usize) {
        let (from, to) = self.path[ply];
        (from as usize & 63, to as usize & 63)
    }

    fn reward(&mut self, list: &MoveList, best: usize, ply: usize, depth: i32, tried: &[u16]) {
        let mv = list[best];
        if mv.is_capture() {
            return;
        }
        let id = move_id(&mv);
        if self.p.counter_move && ply > 0 {
            let (f, t) = self.counter_slot(ply);
            self.counter_moves[f][t] = id;
        }
        if self.killers[ply][0] != id {
            self.killers[ply][1] = self.killers[ply][0];
            self.killers[ply][0] = id;
        }
        let bonus = (depth * depth).min(400);
        history_update(self.history_of_mut(&mv, ply), bonus);
        self.reward_cont(&mv, ply, bonus);
        if !self.p.history_malus {
            return;
        }
        for &i in tried {
            let m = list[i as usize];
            if i as usize != best && !m.is_capture() {
                history_update(self.history_of_mut(&m, ply), -bonus);
                self.reward_cont(&m, ply, -bonus);
            }
        }
    }

    /// Quiescence search: captures are forced, so a position with a capture
    /// is never a leaf; a quiet position where the opponent threatens a
    /// capture is looked at one ply deeper (`q_threats` times per line;
    /// `threats` counts those already taken).
    fn qsearch(
        &mut self,
        pos: &Position<R>,
        mut alpha: Score,
        beta: Score,
        ply: usize,
        threats: u8,
    ) -> Score {
        self.count_node();
        if self.stopped {
            return 0;
        }
        self.seldepth = self.seldepth.max(ply);
        if ply >= MAX_PLY - 1 {
            return R::evaluate(pos);
        }
        let mut list = MoveList::new();
        captures(pos, &mut list);
        if list.is_empty() {
            if let Some(s) = self.egdb_probe(pos, ply) {
                return s;
            }
        }
        // With `q_margin`, a position whose evaluation stays below alpha
        // by more than the margin is not looked at deeper for a threat:
        // the threat can only lower it further.
        let mut stand = None;
        let threat = list.is_empty()
            && threats < self.p.q_threats
            && (self.p.q_margin >= tune::Q_MARGIN_OFF
                || *stand.insert(R::evaluate(pos)) + self.p.q_margin > alpha)
            && side_has_capture(pos, pos.side().flip());
        if list.is_empty() && !threat {
            self.leaves += 1;
            self.leaf_plies += ply as u64;
            let stand = stand.unwrap_or_else(|| R::evaluate(pos));
            if stand < beta && !crate::movegen::has_quiet(pos) {
                return -WIN + ply as Score;
            }
            return stand;
        }
        if list.is_empty() {
            quiets(pos, &mut list);
            if list.is_empty() {
                return -WIN + ply as Score;
            }
        }
        let mut best = -INF;
        for mv in &list {
            // Below the horizon nothing looks at keys (neither the table nor
            // repetition), so the child's key is left stale.
            let mut child = *pos;
            child.play_with::<false>(mv);
            let s = -self.qsearch(&child, -beta, -alpha, ply + 1, threats + threat as u8);
            if self.stopped {
                return 0;
            }
            if s > best {
                best = s;
                if s > alpha {
                    alpha = s;
                    if s >= beta {
                        break;
                    }
                }
            }
        }
        best
    }

    /// Alpha-beta search of a node below the root. `PV` is true on the
    /// principal variation (open window); `cut`, that the node is expected
    /// to fail high (see `lmr-cut`).
    #[allow(clippy::too_many_arguments)]
    fn search<const PV: bool, const SMP: bool>(
        &mut self,
        pos: &Position<R>,
        depth: i32,
        mut alpha: Score,
        mut beta: Score,
        ply: usize,
        counters: DrawCounters,
        cut: bool,
    ) -> Score {
        self.pv[ply].clear();
        if self.is_draw(pos, ply, counters) {
            return self.draw_score(ply);
        }
        // Mate distance pruning.
        alpha = alpha.max(-WIN + ply as Score);
        beta = beta.min(WIN - ply as Score - 1);
        if alpha >= beta {
            return alpha;
        }
        if depth <= 0 || ply >= MAX_PLY - 2 {
            return self.qsearch(pos, alpha, beta, ply, 0);
        }
        self.count_node();
        if self.stopped {
            return 0;
        }
        self.seldepth = self.seldepth.max(ply);

        let key = pos.key();
        // The singular extension's test of the other moves: no cut-off
        // from the table, nothing stored in it.
        let excluded = self.excluded[ply];
        let entry = self.tt_probe(key);
        let mut tt_move_packed = None;
        if let Some(e) = entry {
            tt_move_packed = e.mv;
            let s = from_tt(e.score, ply);
            // Win scores too cut only from a search as deep: a shallower
            // one may have missed a quicker win, and its distance would
            // stay in the table at every later depth.
            if !PV && excluded == NO_EXCLUDED && e.depth >= depth {
                let cut = match e.bound {
                    Bound::Exact => true,
                    Bound::Lower => s >= beta,
                    Bound::Upper => s <= alpha,
                };
                if cut {
                    return s;
                }
            }
        }

        let mut list = MoveList::new();
        generate(pos, &mut list);
        if list.is_empty() {
            return -WIN + ply as Score;
        }
        let forced = list[0].is_capture();
        // The databases hold positions with no capture pending.
        if !forced {
            if let Some(s) = self.egdb_probe(pos, ply) {
                self.tt_store(key, to_tt(s, ply), depth, Bound::Exact, None);
                return s;
            }
        }
        let tt_index = tt_move_packed.and_then(|m| m.find(&list));
        let tt_move = tt_index.map(|i| list[i]);
        // The table's move is searched first: ask for its child's bucket
        // now, so the memory access overlaps the tests below.
        if let Some(m) = tt_move {
            if depth > 1 {
                self.shared.tt.prefetch(pos.played(&m).key());
            }
        }
        // Internal iterative reduction: with no move from the table, the
        // ordering is a guess, so the node gets one ply less.
        let depth = if self.p.iir_depth > 0 && depth >= self.p.iir_depth && tt_move.is_none() {
            depth - 1
        } else {
            depth
        };

        // The static evaluation, made once and only where a test needs it.
        // With `tt_eval`, a table entry whose bound lies on the right side
        // of the evaluation stands in for it.
        // The entry's score is converted only where the evaluation is made.
        let stand_in = entry.filter(|_| self.p.tt_eval && excluded == NO_EXCLUDED);
        let mut static_eval = None;
        let mut eval = || {
            *static_eval.get_or_insert_with(|| {
                let e = R::evaluate(pos);
                match stand_in.map(|t| (from_tt(t.score, ply), t.bound)) {
                    Some((s, Bound::Exact)) if s.abs() < WIN_BOUND => s,
                    Some((s, Bound::Lower)) if s > e && s < WIN_BOUND => s,
                    Some((s, Bound::Upper)) if s < e && s > -WIN_BOUND => s,
                    _ => e,
                }
            })
        };
        // With `threat_guard`, the evaluation's tests below skip a node where
        // the opponent threatens a capture (asked at most once, and only
        // where such a test would run).
        let guard = self.p.threat_guard;
        let mut threatened = None;
        let mut unguarded = || {
            !guard || !*threatened.get_or_insert_with(|| side_has_capture(pos, pos.side().flip()))
        };

        // Reverse futility pruning: near the horizon, a quiet position
        // whose evaluation clears beta by a margin a ply is trusted.
        if !PV
            && depth <= self.p.rfp_depth
            && !forced
            && beta.abs() < WIN_BOUND
            && excluded == NO_EXCLUDED
        {
            let s = eval() - self.p.rfp_margin * depth;
            if s >= beta {
                return s;
            }
        }

        // Reduced-depth pruning test (no null move in draughts: zugzwang is
        // everywhere). If a shallow search clears beta by a margin, trust it.
        let margin = self.p.prune_margin_per_depth * depth;
        let bound = beta + margin;
        if !PV
            && depth >= self.p.prune_min_depth
            && !forced
            && beta.abs() < WIN_BOUND
            && excluded == NO_EXCLUDED
            && (self.p.prune_eval >= 1000 || eval() + self.p.prune_eval >= bound)
            && unguarded()
        {
            let d = depth * self.p.prune_depth_percent / 100;
            let s = self.search::<false, SMP>(pos, d, bound - 1, bound, ply, counters, true);
            if self.stopped {
                return 0;
            }
            if s >= bound {
                return s - margin;
            }
        }

        // Whether the static evaluation rose since our move two plies up
        // (`lmr-improving`); a node with a capture pending has none.
        let mut improving = true;
        if self.p.lmr_improving > 0 && excluded == NO_EXCLUDED {
            let e = if forced { NO_EVAL } else { eval() };
            self.evals[ply] = e;
            if ply > 2 && e != NO_EVAL && self.evals[ply - 2] != NO_EVAL {
                improving = e > self.evals[ply - 2];
            }
        }

        // A forced reply (single legal move) costs no depth.
        let extension = (list.len() == 1 && (ply as i32) < 2 * self.root_depth) as i32;

        let mut tt_extension = 0;
        if let (Some(e), Some(index)) = (entry, tt_index) {
            if self.p.se_depth > 0
                && depth >= self.p.se_depth
                && excluded == NO_EXCLUDED
                && list.len() > 1
                && (ply as i32) < 2 * self.root_depth
            {
                match self.singular::<PV, SMP>(pos, e, index, depth, beta, ply, counters) {
                    Ok(x) => tt_extension = x,
                    Err(s) => return s,
                }
            }
        }

        // Move ordering: scores kept beside generation-order indices, so the
        // table can store the best move's index in the generated list.
        let mut order: arrayvec::ArrayVec<i64, { crate::movegen::MAX_MOVES }> =
            arrayvec::ArrayVec::new();
        let cx = self.order_context(ply);
        for (i, m) in list.iter().enumerate() {
            let score = if Some(*m) == tt_move {
                1 << 30
            } else {
                Self::order_score(&cx, m)
            };
            order.push(order_key(score, i));
        }
        // Late move pruning and futility pruning: from this move on, quiet
        // moves that are neither the table's move, a killer nor a
        // promotion are skipped.
        let mut prune_from = usize::MAX;
        if !PV && !forced && beta.abs() < WIN_BOUND {
            if depth <= self.p.lmp_depth {
                prune_from = self.p.lmp_moves + (depth * depth) as usize;
            }
            if depth <= self.p.futility_depth
                && eval() + self.p.futility_margin * depth <= alpha
                && unguarded()
            {
                prune_from = 1;
            }
        }
        let original_alpha = alpha;
        let mut best = -INF;
        let mut best_index = 0;
        // Quiet moves tried before a cut-off, as indices into `list`.
        let mut tried = [0u16; 64];
        let mut n_tried = 0;
        let new_depth = depth - 1 + extension;
        select_next(&mut order, 0);
        let total = order.len();
        // Positions in `order` of moves put off because another thread was
        // searching them; they are searched after the others.
        let mut deferred: arrayvec::ArrayVec<u16, { crate::movegen::MAX_MOVES }> =
            arrayvec::ArrayVec::new();
        let defer = SMP && depth >= DEFER_MIN_DEPTH;
        let mut next_child = pos.played(&list[order_unkey(order[0]).1]);
        let mut next_for = 0;
        if new_depth > 0 {
            self.shared.tt.prefetch(next_child.key());
        }
        // `i` runs over the ordered moves, then over the deferred ones.
        let mut i = 0;
        loop {
            let at = if i < total {
                i
            } else if i - total < deferred.len() {
                deferred[i - total] as usize
            } else {
                break;
            };
            let (move_score, index) = order_unkey(order[at]);
            let mv = list[index];
            let child = if next_for == i {
                next_child
            } else {
                pos.played(&mv)
            };
            // Play the next move now and ask for its table bucket, so the
            // memory access overlaps this move's search.
            let next = i + 1;
            if next < total {
                select_next(&mut order, next);
                next_child = pos.played(&list[order_unkey(order[next]).1]);
                next_for = next;
            } else if next - total < deferred.len() {
                next_child =
                    pos.played(&list[order_unkey(order[deferred[next - total] as usize]).1]);
                next_for = next;
            }
            if next_for == next && new_depth > 0 {
                self.shared.tt.prefetch(next_child.key());
            }
            if index as u8 == excluded {
                i += 1;
                continue;
            }
            if i >= prune_from
                && i < total
                && !mv.promote
                && move_score < 1 << 20
                && best > -WIN_BOUND
            {
                i += 1;
                continue;
            }
            if defer && i > 0 && i < total && self.shared.is_busy(child.key()) {
                deferred.push(i as u16);
                i += 1;
                continue;
            }
            let child_rev = counters.after(pos, &mv);
            self.keys[ply + 1] = child.key();
            self.path[ply + 1] = (mv.from, mv.to);

            if defer {
                self.shared.mark_busy(child.key());
            }
            let score = if i == 0 {
                let d = new_depth + tt_extension * (Some(index) == tt_index) as i32;
                -self.search::<PV, SMP>(&child, d, -beta, -alpha, ply + 1, child_rev, !PV && !cut)
            } else {
                let mut r = 0;
                let late = if PV {
                    self.p.lmr_pv_moves
                } else {
                    self.p.lmr_non_pv_moves
                };
                if depth >= self.p.lmr_min_depth
                    && !forced
                    && !mv.promote
                    && i >= late
                    && move_score < 1 << 20
                {
                    r = 1
                        + (!PV && i >= self.p.lmr_deep_moves) as i32
                        + (!PV && depth >= 6 && i >= self.p.lmr_third_moves) as i32
                        + (!PV && self.p.lmr_bad_history && *self.history_of(&mv, ply) < 0) as i32;
                    if self.p.lmr_log > 0 {
                        let log = self.lmr_log[depth.min(63) as usize][i.min(63)] as i32;
                        r = r.max(log - PV as i32);
                    }
                    if !PV && cut {
                        r += self.p.lmr_cut;
                    }
                    if !PV && !improving {
                        r += self.p.lmr_improving;
                    }
                    if self.p.lmr_tactical > 0 && side_has_capture(&child, child.side()) {
                        r = r.min(2 - self.p.lmr_tactical as i32);
                    }
                    r = r.min(new_depth - 1).max(0);
                }
                let mut s = -self.search::<false, SMP>(
                    &child,
                    new_depth - r,
                    -alpha - 1,
                    -alpha,
                    ply + 1,
                    child_rev,
                    true,
                );
                if s > alpha && r > 0 && !self.stopped {
                    s = -self.search::<false, SMP>(
                        &child,
                        new_depth,
                        -alpha - 1,
                        -alpha,
                        ply + 1,
                        child_rev,
                        !cut,
                    );
                }
                if PV && s > alpha && s < beta && !self.stopped {
                    s = -self.search::<true, SMP>(
                        &child,
                        new_depth,
                        -beta,
                        -alpha,
                        ply + 1,
                        child_rev,
                        false,
                    );
                }
                s
            };
            if defer {
                self.shared.unmark_busy(child.key());
            }
            if self.stopped {
                return 0;
            }
            if n_tried < tried.len() {
                tried[n_tried] = index as u16;
                n_tried += 1;
            }
            if score > best {
                best = score;
                best_index = index;
                if score > alpha {
                    alpha = score;
                    if PV {
                        let (head, tail) = self.pv.split_at_mut(ply + 1);
                        head[ply].clear();
                        head[ply].push(mv);
                        head[ply].extend_from_slice(&tail[0]);
                    }
                    if score >= beta {
                        self.reward(&list, index, ply, depth, &tried[..n_tried]);
                        break;
                    }
                }
            }
            i += 1;
        }
        let bound = if best >= beta {
            Bound::Lower
        } else if best > original_alpha {
            Bound::Exact
        } else {
            Bound::Upper
        };
        if excluded == NO_EXCLUDED {
            let tt_mv = Some(TtMove::new(&list, best_index));
            self.tt_store(key, to_tt(best, ply), depth, bound, tt_mv);
        }
        best
    }

    /// The singular extension's test at a node whose table entry `e` gives
    /// the move `list[index]`: the other moves are searched to half the
    /// depth against the entry's score less `se_margin` a ply. Returns the
    /// table's move's extension (1 when no other move reached that score,
    /// else 0), or `Err` with the node's score when it ends here: multi-cut
    /// (the other moves clear beta anyway, at a non-PV node) or a stop.
    #[allow(clippy::too_many_arguments)]
    fn singular<const PV: bool, const SMP: bool>(
        &mut self,
        pos: &Position<R>,
        e: Entry,
        index: usize,
        depth: i32,
        beta: Score,
        ply: usize,
        counters: DrawCounters,
    ) -> Result<i32, Score> {
        let s = from_tt(e.score, ply);
        if e.bound == Bound::Upper || e.depth < depth - 3 || s.abs() >= WIN_BOUND {
            return Ok(0);
        }
        let singular_beta = s - self.p.se_margin * depth;
        self.excluded[ply] = index as u8;
        let v = self.search::<false, SMP>(
            pos,
            (depth - 1) / 2,
            singular_beta - 1,
            singular_beta,
            ply,
            counters,
            false,
        );
        self.excluded[ply] = NO_EXCLUDED;
        if self.stopped {
            Err(0)
        } else if v < singular_beta {
            Ok(1)
        } else if self.p.se_multicut && !PV && singular_beta >= beta {
            Err(singular_beta)
        } else {
            Ok(0)
        }
    }

    /// One iteration at `depth`: the first line exactly as a single-line
    /// search makes it (through an aspiration window around `last` when it
    /// can, else with a full window), then lines 2 to `multipv`. Returns the
    /// lines, best first; fewer than `multipv` when the search stopped.
    /// `SMP`: other threads search too, so busy moves are put off; a
    /// constant, so one thread pays nothing for it.
    fn iteration<const SMP: bool>(
        &mut self,
        job: &Job<R>,
        depth: i32,
        multipv: usize,
        last: Score,
        counters: DrawCounters,
    ) -> Vec<Info> {
        let mut lines = Vec::with_capacity(multipv);
        if depth >= ASPIRATION_MIN_DEPTH && last.abs() < WIN_BOUND {
            self.aspiration::<SMP>(&job.root, depth, last, counters);
        } else {
            self.root_search::<SMP>(&job.root, depth, -INF, INF, 0, counters);
        }
        if self.stopped {
            return lines;
        }
        lines.push(self.line_info(job, depth, 0));
        if multipv > 1 {
            self.other_lines::<SMP>(job, depth, multipv, counters, &mut lines);
        }
        lines
    }

    /// Lines 2 to `multipv` of an iteration whose first line is searched:
    /// line `k` is the best of the root moves not in an earlier line, found
    /// by a full-window search, so its score is exact. A move that this
    /// search scores above the line before it (search instability: the
    /// earlier line's search, with other windows, bounded it below that
    /// line) is shown level with it, with its own variation, so the lines
    /// stay best first and the first line stays the single-line search's.
    ///
    /// These searches leave no trace: they store what they find in a table
    /// of their own (looked in before the main one), and the killers,
    /// history (continuation history too) and root move order are put back
    /// afterwards, so the next iteration's first line is again what a
    /// single-line search finds.
    fn other_lines<const SMP: bool>(
        &mut self,
        job: &Job<R>,
        depth: i32,
        multipv: usize,
        counters: DrawCounters,
        lines: &mut Vec<Info>,
    ) {
        let order = self.root_moves.clone();
        let history = self.history.clone();
        let killers = self.killers.clone();
        // Empty (nothing to copy) unless `cont-history` is on.
        let cont = self.cont.clone();
        self.other_line = true;
        let mut cap = self.root_moves[0].score;
        for k in 1..multipv {
            self.root_search::<SMP>(&job.root, depth, -INF, INF, k, counters);
            if self.stopped {
                break;
            }
            let rm = &mut self.root_moves[k];
            rm.score = rm.score.min(cap);
            cap = rm.score;
            lines.push(self.line_info(job, depth, k));
        }
        self.other_line = false;
        self.root_moves = order;
        self.history = history;
        self.killers = killers;
        self.cont = cont;
    }

    /// The report of root line `k` (0 = best) after its search at `depth`.
    fn line_info(&self, job: &Job<R>, depth: i32, k: usize) -> Info {
        let rm = &self.root_moves[k];
        Info {
            depth,
            mean_depth: if self.leaves > 0 {
                self.leaf_plies as f64 / self.leaves as f64
            } else {
                depth as f64
            },
            seldepth: self.seldepth,
            score: rm.score,
            nodes: self.shared.nodes.load(Ordering::Relaxed) + self.local_nodes,
            time: job.start.elapsed(),
            pv: rm.pv.clone(),
            multipv: k + 1,
            egdb_hits: self.shared.egdb_hits.load(Ordering::Relaxed) + self.local_egdb_hits,
        }
    }

    /// Searches the root moves (skipping `skip`) at `depth` in the window;
    /// returns the best score and sorts the root moves best first.
    fn root_search<const SMP: bool>(
        &mut self,
        root: &Position<R>,
        depth: i32,
        mut alpha: Score,
        beta: Score,
        skip: usize,
        counters: DrawCounters,
    ) -> Score {
        self.pv[0].clear();
        self.count_node();
        let mut best = -INF;
        let original_alpha = alpha;
        let n = self.root_moves.len();
        for i in skip..n {
            let mv = self.root_moves[i].mv;
            let child = root.played(&mv);
            let child_rev = counters.after(root, &mv);
            self.keys[1] = child.key();
            self.path[1] = (mv.from, mv.to);
            let score = if i == skip {
                -self.search::<true, SMP>(&child, depth - 1, -beta, -alpha, 1, child_rev, false)
            } else {
                let mut s = -self.search::<false, SMP>(
                    &child,
                    depth - 1,
                    -alpha - 1,
                    -alpha,
                    1,
                    child_rev,
                    true,
                );
                if s > alpha && s < beta && !self.stopped {
                    s = -self.search::<true, SMP>(
                        &child,
                        depth - 1,
                        -beta,
                        -alpha,
                        1,
                        child_rev,
                        false,
                    );
                }
                s
            };
            if self.stopped {
                break;
            }
            if score > best {
                best = score;
            }
            if score > alpha || i == skip {
                let mut pv = vec![mv];
                pv.extend_from_slice(&self.pv[1]);
                self.root_moves[i].score = score;
                self.root_moves[i].pv = pv;
                if score > alpha {
                    alpha = score;
                    if i > skip && skip == 0 && !self.other_line {
                        self.root_improved = true;
                    }
                    // Move the new best to the front of the searched lines.
                    let rm = self.root_moves.remove(i);
                    self.root_moves.insert(skip, rm);
                    if score >= beta {
                        break;
                    }
                }
            } else {
                self.root_moves[i].score = -INF;
            }
        }
        if !self.other_line && !self.stopped && best > original_alpha && best < beta {
            let gen = {
                let mut g = MoveList::new();
                generate(root, &mut g);
                g
            };
            let bm = self.root_moves[skip].mv;
            let tt_mv = gen
                .iter()
                .position(|m| *m == bm)
                .map(|i| TtMove::new(&gen, i));
            self.shared
                .tt
                .store(root.key(), best, depth, Bound::Exact, tt_mv);
        }
        best
    }

    /// Iterative deepening from `job.root`. The main thread (id 0) calls
    /// `report` after each iteration; helpers start at different depths.
    pub fn run(&mut self, job: &Job<R>, report: &mut dyn FnMut(&Info)) -> SearchResult {
        self.stopped = false;
        self.nodes = 0;
        self.local_nodes = 0;
        self.egdb = R::egdb().get();
        self.egdb_pieces = self.egdb.as_ref().map_or(0, |d| d.max_pieces());
        self.local_egdb_hits = 0;
        self.p = tune::params_for(R::NAME);
        self.root_side = job.root.side().index();
        if self.p.cont_history != 0 && self.cont.is_empty() {
            self.cont = vec![0; 2 * CONT_TABLE].into_boxed_slice();
        }
        *self.lmr_log = lmr_log_table(self.p.lmr_log);
        self.limits = job.limits.clone();
        self.tm = TimeManager::with_moves_to_go(
            &job.limits,
            job.start,
            self.p.time_soft_percent,
            self.p.moves_to_go,
        );
        self.pondering = job.ponder;
        let window = (job.reversible as usize).min(job.history.len());
        // The job gives plies since the last capture or man move; plies
        // since the last capture are at least that many (used for endgame
        // draw rules, an underestimate at worst).
        let counters = DrawCounters {
            reversible: job.reversible,
            since_capture: job.reversible,
        };
        self.game_keys = job.history[job.history.len() - window..].to_vec();
        self.keys[0] = job.root.key();

        let mut list = MoveList::new();
        generate(&job.root, &mut list);
        self.root_moves = list
            .iter()
            .map(|&mv| RootMove {
                mv,
                score: -INF,
                pv: vec![mv],
            })
            .collect();
        let mut result = SearchResult::default();
        if self.root_moves.is_empty() {
            result.score = -WIN;
            return result;
        }
        // Put the table's move first.
        if let Some(e) = self.shared.tt.probe(job.root.key()) {
            if let Some(m) = e.mv.and_then(|m| m.to_move(&list)) {
                if let Some(i) = self.root_moves.iter().position(|r| r.mv == m) {
                    let rm = self.root_moves.remove(i);
                    self.root_moves.insert(0, rm);
                }
            }
        }
        let max_depth = job
            .limits
            .depth
            .unwrap_or(MAX_PLY as i32 - 8)
            .clamp(1, MAX_PLY as i32 - 8);
        let multipv = job.multipv.clamp(1, self.root_moves.len());
        if multipv > 1 && self.id == 0 {
            self.shared.lines_tt().new_search();
        }
        let smp = self.shared.threads.load(Ordering::Relaxed) > 1;
        let timed_single_reply =
            self.root_moves.len() == 1 && self.tm.is_timed() && !job.limits.infinite;
        let mut last_score: Score = 0;
        // Root stability for the clock: best move changes (halved every
        // iteration) and the score of the iteration before.
        let mut best_changes = 0.0f64;
        let mut prev_best: Option<Move> = None;
        let mut prev_score: Option<Score> = None;
        let mut depth = 1 + (self.id % 2) as i32;
        while depth <= max_depth {
            self.root_depth = depth;
            self.seldepth = 0;
            self.leaves = 0;
            self.leaf_plies = 0;
            self.root_improved = false;
            let lines = if smp {
                self.iteration::<true>(job, depth, multipv, last_score, counters)
            } else {
                self.iteration::<false>(job, depth, multipv, last_score, counters)
            };
            let Some(first) = lines.first() else {
                // The first line was not searched to the end: the last
                // complete iteration stands, unless a move of this one
                // already beat its best move.
                if self.root_improved && multipv == 1 && self.p.root_partial {
                    self.take_best(&mut result);
                    let line = self.line_info(job, depth, 0);
                    report(&line);
                    result.lines = vec![line];
                }
                break;
            };
            last_score = first.score;
            let complete = lines.len() == multipv;
            if complete {
                self.take_best(&mut result);
                result.depth = depth;
                for l in &lines {
                    report(l);
                }
                result.lines = lines;
            }
            // A helper that completes the requested depth first ends the
            // search: the result is as deep as asked, and sooner.
            if complete
                && self.id != 0
                && job.limits.depth.is_some_and(|d| depth >= d)
                && !job.limits.infinite
                && !job.ponder
            {
                self.shared.stop.store(true, Ordering::Relaxed);
            }
            self.flush_nodes();
            self.check_limits();
            if self.stopped {
                break;
            }
            if self.id == 0 {
                // A single legal reply needs no thought, only a score
                // worth reporting: a short search gives one.
                if timed_single_reply
                    && (depth >= SINGLE_REPLY_DEPTH
                        || self.tm.soft_share_expired(SINGLE_REPLY_PERCENT))
                {
                    break;
                }
                let share = if self.p.time_stability && complete {
                    let best = self.root_moves[0].mv;
                    best_changes *= 0.5;
                    if prev_best.is_some_and(|m| m != best) {
                        best_changes += 1.0;
                    }
                    let score = self.root_moves[0].score;
                    let fall = prev_score.map_or(0, |p| p - score);
                    prev_best = Some(best);
                    prev_score = Some(score);
                    time::stability_share_percent(best_changes, fall)
                } else {
                    100
                };
                if !self.pondering && self.tm.soft_share_expired(share) {
                    break;
                }
                // A proven result at this depth will not change.
                if plies_to_end(result.score).is_some_and(|n| depth > n + 2) && !job.limits.infinite
                {
                    break;
                }
            }
            depth += 1;
        }
        if result.best.is_none() {
            let rm = &self.root_moves[0];
            result.best = Some(rm.mv);
            result.pv = rm.pv.clone();
            result.ponder = rm.pv.get(1).copied();
        }
        self.flush_nodes();
        result.nodes = self.shared.nodes.load(Ordering::Relaxed);
        result.time = job.start.elapsed();
        result.egdb_hits = self.shared.egdb_hits.load(Ordering::Relaxed);
        result
    }

    /// Puts the first root move into `result`: the move to play, the
    /// ponder move, the score and the line.
    fn take_best(&self, result: &mut SearchResult) {
        let best = &self.root_moves[0];
        result.best = Some(best.mv);
        result.ponder = best.pv.get(1).copied();
        result.score = best.score;
        result.pv = best.pv.clone();
    }

    fn aspiration<const SMP: bool>(
        &mut self,
        root: &Position<R>,
        depth: i32,
        last: Score,
        counters: DrawCounters,
    ) -> Score {
        let mut delta = self.p.aspiration_window;
        let mut alpha = (last - delta).max(-INF);
        let mut beta = (last + delta).min(INF);
        loop {
            let s = self.root_search::<SMP>(root, depth, alpha, beta, 0, counters);
            if self.stopped {
                return s;
            }
            if s <= alpha {
                alpha = (alpha - delta).max(-INF);
            } else if s >= beta {
                beta = (beta + delta).min(INF);
            } else {
                return s;
            }
            delta *= 2;
            if delta > 500 {
                alpha = -INF;
                beta = INF;
            }
        }
    }

    /// Nodes this worker searched in its last run.
    pub fn nodes(&self) -> u64 {
        self.nodes
    }
}
