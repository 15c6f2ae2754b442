//! Time management: search limits and when to stop.

use std::time::{Duration, Instant};

/// Time kept back from every clock budget for process and pipe latency.
pub const LATENCY_MARGIN: Duration = Duration::from_millis(30);
/// Moves assumed left in the game when the clock says nothing (the
/// search's `moves-to-go` setting may say otherwise).
pub const DEFAULT_MOVES_TO_GO: u32 = 30;
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
    /// Budgets for `limits`, counted from `start`; with a clock, no new
    /// iteration starts after `soft_percent` % of the move's budget (the
    /// variant's `time-soft`).
    pub fn new(limits: &Limits, start: Instant, soft_percent: u32) -> Self {
        Self::with_moves_to_go(limits, start, soft_percent, DEFAULT_MOVES_TO_GO)
    }

    /// As [`TimeManager::new`], assuming `default_mtg` moves left in the
    /// game when the clock does not give the moves to the next control:
    /// each move's budget is that share of what is left (plus most of the
    /// increment), so fewer moves spend more of the clock early.
    pub fn with_moves_to_go(
        limits: &Limits,
        start: Instant,
        soft_percent: u32,
        default_mtg: u32,
    ) -> Self {
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
            let mtg = limits.moves_to_go.unwrap_or(default_mtg).clamp(1, 60);
            let budget = usable / mtg + limits.inc * 3 / 4;
            let budget = budget.min(usable);
            let cap = usable * HARD_CLOCK_PERCENT / 100;
            let h = (budget * HARD_BUDGETS)
                .min(cap)
                .max(Duration::from_millis(1));
            let s = (budget * soft_percent / 100).min(h);
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

    /// Whether `percent` % of the soft limit (the time after which no new
    /// iteration starts) has passed, never later than the hard limit
    /// (false without a clock).
    pub fn soft_share_expired(&self, percent: u32) -> bool {
        match (self.soft, self.hard) {
            (Some(s), Some(h)) => self.elapsed() >= (s * percent / 100).min(h),
            _ => false,
        }
    }

    /// True when time bounds the search at all.
    pub fn is_timed(&self) -> bool {
        self.hard.is_some()
    }
}

/// The share (percent) of the soft time limit to use before the next
/// iteration, from the root's stability (`time-stability`): 70 % once the
/// best move has held for a few iterations, up to 250 % while it changes
/// (`changes`: changes so far, each halved per iteration since) or the
/// score falls (`fall`: centi-men lost since the iteration before).
pub fn stability_share_percent(changes: f64, fall: i32) -> u32 {
    let unstable = 0.7 + changes;
    let falling = (1.0 + f64::from(fall.clamp(-20, 40)) / 40.0).clamp(0.8, 2.0);
    ((unstable * falling).clamp(0.5, 2.5) * 100.0) as u32
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stability_scales_the_soft_limit() {
        // Settled: less time; a changed best move or a falling score: more.
        assert_eq!(stability_share_percent(0.0, 0), 70);
        assert!(stability_share_percent(1.0, 0) > 150);
        assert!(stability_share_percent(0.0, 30) > 100);
        assert!(stability_share_percent(0.0, -30) < 70);
        assert_eq!(stability_share_percent(5.0, 100), 250);
        let now = Instant::now();
        let tm = TimeManager::new(&Limits::movetime(Duration::from_secs(60)), now, 60);
        assert!(tm.soft_share_expired(0));
        assert!(!tm.soft_share_expired(250));
    }

    #[test]
    fn clock_budget_stays_within_the_clock() {
        let now = Instant::now();
        for ms in [1u64, 10, 50, 100, 1000, 60_000, 600_000] {
            let l = Limits {
                time: Some(Duration::from_millis(ms)),
                ..Default::default()
            };
            let tm = TimeManager::new(&l, now, 60);
            let hard = tm.hard.unwrap();
            assert!(
                hard <= Duration::from_millis(ms)
                    .saturating_sub(LATENCY_MARGIN)
                    .max(Duration::from_millis(1))
            );
            assert!(tm.soft.unwrap() <= hard);
        }
    }

    /// The clock of the proof matches: 5 s left, 0.05 s a move.
    fn five_seconds_and_a_twentieth() -> Limits {
        Limits {
            time: Some(Duration::from_secs(5)),
            inc: Duration::from_millis(50),
            ..Default::default()
        }
    }

    #[test]
    fn soft_limit_follows_the_setting() {
        // A larger soft share starts iterations later, never past the
        // hard limit; the hard limit does not depend on it.
        let now = Instant::now();
        let l = five_seconds_and_a_twentieth();
        let (a, b) = (TimeManager::new(&l, now, 60), TimeManager::new(&l, now, 90));
        assert!(a.soft.unwrap() < b.soft.unwrap());
        assert_eq!(a.hard, b.hard);
        let huge = TimeManager::new(&l, now, 1000);
        assert_eq!(huge.soft, huge.hard);
    }

    #[test]
    fn fewer_moves_to_go_spend_more_now() {
        let now = Instant::now();
        let l = five_seconds_and_a_twentieth();
        let default = TimeManager::new(&l, now, 90);
        let same = TimeManager::with_moves_to_go(&l, now, 90, DEFAULT_MOVES_TO_GO);
        assert_eq!((default.soft, default.hard), (same.soft, same.hard));
        let early = TimeManager::with_moves_to_go(&l, now, 90, 15);
        assert!(early.soft.unwrap() > default.soft.unwrap());
        assert!(early.hard.unwrap() >= default.hard.unwrap());
        // The hard cap (40 % of the clock) holds whatever the estimate.
        let one = TimeManager::with_moves_to_go(&l, now, 90, 1);
        assert!(one.hard.unwrap() <= Duration::from_secs(2));
        // A clock that gives the moves to go overrides the estimate.
        let given = Limits {
            moves_to_go: Some(10),
            ..l.clone()
        };
        let a = TimeManager::with_moves_to_go(&given, now, 90, 15);
        let b = TimeManager::with_moves_to_go(&given, now, 90, 40);
        assert_eq!((a.soft, a.hard), (b.soft, b.hard));
    }

    #[test]
    fn share_of_the_soft_budget() {
        let now = Instant::now();
        let tm = TimeManager::new(&Limits::movetime(Duration::from_secs(60)), now, 60);
        assert!(tm.soft_share_expired(0));
        assert!(!tm.soft_share_expired(10));
        let untimed = TimeManager::new(&Limits::depth(5), now, 60);
        assert!(!untimed.soft_share_expired(0));
    }

    #[test]
    fn infinite_has_no_deadline() {
        let l = Limits {
            infinite: true,
            movetime: Some(Duration::from_millis(1)),
            ..Default::default()
        };
        let tm = TimeManager::new(&l, Instant::now(), 60);
        assert!(!tm.is_timed());
        assert!(!tm.hard_expired());
    }
}
