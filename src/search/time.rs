//! Time management: search limits and when to stop.

use std::time::{Duration, Instant};

/// Time kept back from every clock budget for process and pipe latency.
pub const LATENCY_MARGIN: Duration = Duration::from_millis(30);
/// Moves assumed left in the game when the clock says nothing.
const DEFAULT_MOVES_TO_GO: u32 = 30;
/// Share of the per-move budget after which no new iteration starts.
const SOFT_SHARE_PERCENT: u32 = 60;
/// A single move may use at most this many times its budget...
const HARD_BUDGETS: u32 = 4;
/// ...and never more than this share of the remaining clock.
const HARD_CLOCK_PERCENT: u32 = 40;

/// What bounds a search. Several limits can be combined; the first reached
/// stops the search. No limit at all means infinite (until stopped).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Limits {
    /// Deepest iteration.
    pub depth: Option<i32>,
    /// Node budget (all threads).
    pub nodes: Option<u64>,
    /// Fixed time for this move.
    pub movetime: Option<Duration>,
    /// Time left on our clock.
    pub time: Option<Duration>,
    /// Increment per move.
    pub inc: Duration,
    /// Moves until the next time control.
    pub moves_to_go: Option<u32>,
    /// Search until stopped (analysis, pondering).
    pub infinite: bool,
}

impl Limits {
    /// Search to a fixed depth.
    pub fn depth(d: i32) -> Self {
        Limits {
            depth: Some(d),
            ..Default::default()
        }
    }

    /// Search for a fixed time.
    pub fn movetime(t: Duration) -> Self {
        Limits {
            movetime: Some(t),
            ..Default::default()
        }
    }

    /// Search a fixed number of nodes.
    pub fn nodes(n: u64) -> Self {
        Limits {
            nodes: Some(n),
            ..Default::default()
        }
    }
}

/// The stopping times of one search, derived from its limits.
#[derive(Clone, Copy, Debug)]
pub struct TimeManager {
    start: Instant,
    /// No new iteration after this.
    soft: Option<Duration>,
    /// Abort the search at this.
    hard: Option<Duration>,
}

impl TimeManager {
    /// Budgets for `limits`, counted from `start`.
    pub fn new(limits: &Limits, start: Instant) -> Self {
        if limits.infinite {
            return TimeManager {
                start,
                soft: None,
                hard: None,
            };
        }
        let mut soft = None;
        let mut hard = None;
        if let Some(t) = limits.movetime {
            let t = t
                .saturating_sub(LATENCY_MARGIN / 3)
                .max(Duration::from_millis(1));
            soft = Some(t);
            hard = Some(t);
        }
        if let Some(left) = limits.time {
            let usable = left.saturating_sub(LATENCY_MARGIN);
            let mtg = limits
                .moves_to_go
                .unwrap_or(DEFAULT_MOVES_TO_GO)
                .clamp(1, 60);
            let budget = usable / mtg + limits.inc * 3 / 4;
            let budget = budget.min(usable);
            let cap = usable * HARD_CLOCK_PERCENT / 100;
            let h = (budget * HARD_BUDGETS)
                .min(cap)
                .max(Duration::from_millis(1));
            let s = (budget * SOFT_SHARE_PERCENT / 100).min(h);
            soft = Some(soft.map_or(s, |x: Duration| x.min(s)));
            hard = Some(hard.map_or(h, |x: Duration| x.min(h)));
        }
        TimeManager { start, soft, hard }
    }

    /// Time since the search started.
    pub fn elapsed(&self) -> Duration {
        self.start.elapsed()
    }

    /// Restart the clock (ponder hit: the opponent played the expected move
    /// and our time starts now).
    pub fn restart(&mut self) {
        self.start = Instant::now();
    }

    /// Whether the search must stop now.
    pub fn hard_expired(&self) -> bool {
        self.hard.is_some_and(|h| self.elapsed() >= h)
    }

    /// Whether a new iteration should not start.
    pub fn soft_expired(&self) -> bool {
        self.soft.is_some_and(|s| self.elapsed() >= s)
    }

    /// Whether `percent` % of the time before [`Self::soft_expired`] has
    /// passed (false without a clock).
    pub fn soft_share_expired(&self, percent: u32) -> bool {
        self.soft
            .is_some_and(|s| self.elapsed() >= s * percent / 100)
    }

    /// True when time bounds the search at all.
    pub fn is_timed(&self) -> bool {
        self.hard.is_some()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clock_budget_stays_within_the_clock() {
        let now = Instant::now();
        for ms in [1u64, 10, 50, 100, 1000, 60_000, 600_000] {
            let l = Limits {
                time: Some(Duration::from_millis(ms)),
                ..Default::default()
            };
            let tm = TimeManager::new(&l, now);
            let hard = tm.hard.unwrap();
            assert!(
                hard <= Duration::from_millis(ms)
                    .saturating_sub(LATENCY_MARGIN)
                    .max(Duration::from_millis(1))
            );
            assert!(tm.soft.unwrap() <= hard);
        }
    }

    #[test]
    fn share_of_the_soft_budget() {
        let now = Instant::now();
        let tm = TimeManager::new(&Limits::movetime(Duration::from_secs(60)), now);
        assert!(tm.soft_share_expired(0));
        assert!(!tm.soft_share_expired(10));
        let untimed = TimeManager::new(&Limits::depth(5), now);
        assert!(!untimed.soft_share_expired(0));
    }

    #[test]
    fn infinite_has_no_deadline() {
        let l = Limits {
            infinite: true,
            movetime: Some(Duration::from_millis(1)),
            ..Default::default()
        };
        let tm = TimeManager::new(&l, Instant::now());
        assert!(!tm.is_timed());
        assert!(!tm.hard_expired());
    }
}
