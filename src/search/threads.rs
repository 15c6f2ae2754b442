//! Lazy SMP: persistent worker threads sharing the transposition table, a
//! stop flag and a node counter. Every thread searches the same root;
//! helpers start one iteration deeper on odd threads so the threads spread
//! over depths, and what one finds reaches the others through the table.
//! The calling thread is the main worker: it watches the clock, reports
//! progress, and stops the helpers when it is done; a helper that completes
//! a fixed-depth search's last iteration first stops the main worker. The
//! result of the thread that completed the deepest iteration is returned,
//! and its lines reported.

use std::sync::atomic::Ordering;
use std::sync::mpsc::{channel, Receiver, Sender};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Duration;

use super::{Info, Job, SearchResult, Shared, Worker};
use crate::eval::Evaluate;
use crate::movegen::{generate, MoveList};
use crate::tt::TranspositionTable;

/// Default hash size in MiB.
pub const DEFAULT_HASH_MIB: usize = 64;

struct Helper<R: Evaluate> {
    jobs: Sender<HelperMsg<R>>,
    results: Receiver<SearchResult>,
    handle: Option<JoinHandle<()>>,
}

enum HelperMsg<R: Evaluate> {
    Search(Box<Job<R>>),
    Clear,
}

/// A handle to stop a running search (or signal a ponder hit) from another
/// thread.
#[derive(Clone, Debug)]
pub struct SearchHandle(Arc<Shared>);

impl SearchHandle {
    /// Stops the search as soon as possible.
    pub fn stop(&self) {
        self.0.stop.store(true, Ordering::Relaxed);
    }

    /// The opponent played the move we pondered on: our clock starts.
    pub fn ponder_hit(&self) {
        self.0.pondering.store(false, Ordering::Relaxed);
    }

    /// Clears the stop flag before a search is started from another thread
    /// (so a stop that arrives before the search begins is not lost).
    pub fn arm(&self) {
        self.0.stop.store(false, Ordering::Relaxed);
    }

    /// Sets pondering before a search is started from another thread (so a
    /// ponder hit that arrives before the search begins is not lost).
    pub fn arm_ponder(&self, ponder: bool) {
        self.0.pondering.store(ponder, Ordering::Relaxed);
    }

    /// Whether a stop was requested.
    pub fn is_stopped(&self) -> bool {
        self.0.stop.load(Ordering::Relaxed)
    }
}

/// The search engine for one rule set: a main worker, persistent helper
/// threads and the shared table.
pub struct Searcher<R: Evaluate> {
    shared: Arc<Shared>,
    main: Box<Worker<R>>,
    helpers: Vec<Helper<R>>,
}

impl<R: Evaluate> std::fmt::Debug for Searcher<R> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Searcher {{ threads: {} }}", self.helpers.len() + 1)
    }
}

impl<R: Evaluate> Searcher<R> {
    /// A searcher with `threads` threads and a `hash_mib` MiB table.
    ///
    /// # Panics
    ///
    /// When the table cannot be allocated; see [`Searcher::try_new`].
    pub fn new(threads: usize, hash_mib: usize) -> Self {
        Self::try_new(threads, hash_mib).unwrap_or_else(|e| panic!("{e}"))
    }

    /// A searcher with `threads` threads and a `hash_mib` MiB table, or an
    /// error naming the size when the table is refused
    /// ([`TranspositionTable::try_new`]).
    pub fn try_new(threads: usize, hash_mib: usize) -> Result<Self, String> {
        let shared = shared_with(TranspositionTable::try_new(hash_mib)?);
        let mut s = Searcher {
            main: Box::new(Worker::new(0, shared.clone())),
            shared,
            helpers: Vec::new(),
        };
        s.set_threads(threads);
        Ok(s)
    }

    /// Changes the number of threads (1 = main thread only).
    pub fn set_threads(&mut self, threads: usize) {
        let threads = threads.clamp(1, 256);
        self.stop_helpers();
        self.shared.threads.store(threads, Ordering::Relaxed);
        for id in 1..threads {
            let (job_tx, job_rx) = channel::<HelperMsg<R>>();
            let (res_tx, res_rx) = channel::<SearchResult>();
            let shared = self.shared.clone();
            let handle = std::thread::Builder::new()
                .name(format!("search-{id}"))
                .stack_size(32 << 20)
                .spawn(move || {
                    let mut worker = Worker::<R>::new(id, shared);
                    while let Ok(msg) = job_rx.recv() {
                        match msg {
                            HelperMsg::Search(job) => {
                                let r = worker.run(&job, &mut |_| {});
                                if res_tx.send(r).is_err() {
                                    break;
                                }
                            }
                            HelperMsg::Clear => worker.clear(),
                        }
                    }
                })
                .ok();
            self.helpers.push(Helper {
                jobs: job_tx,
                results: res_rx,
                handle,
            });
        }
    }

    /// Number of threads.
    pub fn threads(&self) -> usize {
        self.helpers.len() + 1
    }

    fn stop_helpers(&mut self) {
        for h in self.helpers.drain(..) {
            drop(h.jobs);
            if let Some(handle) = h.handle {
                let _ = handle.join();
            }
        }
    }

    /// Resizes the table (its contents are lost).
    ///
    /// # Panics
    ///
    /// When the table cannot be allocated; see [`Searcher::try_set_hash`].
    pub fn set_hash(&mut self, mib: usize) {
        self.try_set_hash(mib).unwrap_or_else(|e| panic!("{e}"));
    }

    /// Resizes the table (its contents are lost), or keeps the current one
    /// and returns an error naming the size when the new one is refused.
    /// The old table is freed in the background.
    pub fn try_set_hash(&mut self, mib: usize) -> Result<(), String> {
        let tt = TranspositionTable::try_new(mib)?;
        let threads = self.threads();
        self.stop_helpers();
        let old = std::mem::replace(&mut self.shared, shared_with(tt));
        *self.main = Worker::new(0, self.shared.clone());
        self.set_threads(threads);
        // Giving gigabytes back to the system takes a while.
        let _ = std::thread::Builder::new().spawn(move || drop(old));
        Ok(())
    }

    /// Forgets everything learnt (new game).
    pub fn clear(&mut self) {
        self.shared.clear_tables();
        self.main.clear();
        for h in &self.helpers {
            let _ = h.jobs.send(HelperMsg::Clear);
        }
    }

    /// A handle for stopping the search from another thread.
    pub fn handle(&self) -> SearchHandle {
        SearchHandle(self.shared.clone())
    }

    /// Searches `job` on all threads; blocks until done, calling `report`
    /// with each iteration's lines. A search in pondering or infinite mode
    /// that finishes early waits for a stop (or ponder hit) before
    /// returning, as the protocols require.
    pub fn search(&mut self, job: &Job<R>, report: &mut dyn FnMut(&Info)) -> SearchResult {
        self.shared.stop.store(false, Ordering::Relaxed);
        self.shared.pondering.store(job.ponder, Ordering::Relaxed);
        self.search_armed(job, report)
    }

    /// As [`Searcher::search`], but keeps the stop and ponder flags as
    /// [`SearchHandle::arm`] and [`SearchHandle::arm_ponder`] set them (a
    /// stop or ponder hit may already have arrived).
    pub fn search_armed(&mut self, job: &Job<R>, report: &mut dyn FnMut(&Info)) -> SearchResult {
        self.shared.nodes.store(0, Ordering::Relaxed);
        self.shared.egdb_hits.store(0, Ordering::Relaxed);
        self.shared.tt.new_search();
        for h in &self.helpers {
            let _ = h.jobs.send(HelperMsg::Search(Box::new(job.clone())));
        }
        let mut result = self.main.run(job, report);
        while (job.limits.infinite || self.shared.pondering.load(Ordering::Relaxed))
            && !self.shared.stop.load(Ordering::Relaxed)
        {
            std::thread::sleep(Duration::from_millis(1));
        }
        self.shared.stop.store(true, Ordering::Relaxed);
        for h in &self.helpers {
            if let Ok(r) = h.results.recv() {
                if r.best.is_some() && r.depth > result.depth && !r.pv.is_empty() {
                    // The deeper lines are the ones the move comes from.
                    for l in &r.lines {
                        report(l);
                    }
                    result.best = r.best;
                    result.ponder = r.ponder;
                    result.score = r.score;
                    result.depth = r.depth;
                    result.pv = r.pv;
                    result.lines = r.lines;
                }
            }
        }
        // A ponder move whenever there is a reply: from the table, else the
        // first legal one.
        if let (Some(best), None) = (result.best, result.ponder) {
            let child = job.root.played(&best);
            let mut list = MoveList::new();
            generate(&child, &mut list);
            result.ponder = self
                .shared
                .tt
                .probe(child.key())
                .and_then(|e| e.mv)
                .and_then(|m| m.to_move(&list))
                .or_else(|| list.first().copied());
        }
        result.nodes = self.shared.nodes.load(Ordering::Relaxed);
        result.egdb_hits = self.shared.egdb_hits.load(Ordering::Relaxed);
        result.time = job.start.elapsed();
        result
    }
}

/// Shared state around `tt` (`Shared::new(0)` makes a one-bucket table,
/// replaced at once).
fn shared_with(tt: TranspositionTable) -> Arc<Shared> {
    let mut shared = Shared::new(0);
    shared.tt = tt;
    Arc::new(shared)
}

impl<R: Evaluate> Drop for Searcher<R> {
    fn drop(&mut self) {
        self.shared.stop.store(true, Ordering::Relaxed);
        self.stop_helpers();
    }
}
