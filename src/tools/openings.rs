//! Openings for matches: a built-in generator of balanced openings per
//! variant, the standard decks shipped in `data/` (by name), and readers
//! for user-supplied lists (FENs, ballots of moves, PDN games).

use std::time::Instant;

use crate::eval::Evaluate;
use crate::movegen::{generate, Move, MoveList};
use crate::notation::fen::parse_fen;
use crate::notation::movetext::parse_move;
use crate::notation::pdn::{parse_pdn, replay};
use crate::position::Position;
use crate::search::threads::Searcher;
use crate::search::{Job, Limits};
use crate::variant::Variant;

/// A start position and the moves that open the game from it.
#[derive(Clone, Debug, PartialEq)]
pub struct Opening<R: Evaluate> {
    /// Where the game record starts (its FEN tag).
    pub start: Position<R>,
    /// Moves played from `start` before the engines take over.
    pub moves: Vec<Move>,
}

impl<R: Evaluate> Opening<R> {
    /// The position the engines start from.
    pub fn position(&self) -> Position<R> {
        let mut p = self.start;
        for m in &self.moves {
            p.play(m);
        }
        p
    }
}

/// How generated openings are checked for balance: a quick search of
/// `quick_depth` plies, then a deeper one of `depth` plies or `nodes`
/// nodes, whichever ends first; the opening is kept when both scores are
/// within `max_cp` centi-men of equality. Each search runs on one thread
/// from an empty table, so the verdict on a position is always the same.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BalanceCheck {
    /// Largest score kept, in centi-men, either side.
    pub max_cp: i32,
    /// Depth of the quick search that rejects most random openings cheaply.
    pub quick_depth: i32,
    /// Depth of the deeper search.
    pub depth: i32,
    /// Node budget of the deeper search.
    pub nodes: u64,
}

impl BalanceCheck {
    /// The check of generated openings: depth 6, then depth 24 or 400 000
    /// nodes, within `max_cp`. The deeper search reaches depth 14 to 16
    /// from English openings, where shots that win material come into view
    /// that the depth-6 search misses (`12-16 24-20 8-12 27-24 10-14
    /// 23-18`, a king for a man: with generation 0's weights +0.07 at
    /// depth 6, +0.37 at depth 14 for Black). About 0.2 s a candidate on
    /// one thread.
    pub fn new(max_cp: i32) -> Self {
        BalanceCheck {
            max_cp,
            quick_depth: 6,
            depth: 24,
            nodes: 400_000,
        }
    }

    /// The scores (side to move) of the quick and the deeper search of
    /// `pos`, with a searcher that is cleared first; `None` for the second
    /// when the first is already out of the window, and for both when the
    /// side to move has no legal move.
    pub fn scores<R: Evaluate>(
        &self,
        searcher: &mut Searcher<R>,
        pos: &Position<R>,
    ) -> Option<(i32, Option<i32>)> {
        let mut list = MoveList::new();
        generate(pos, &mut list);
        if list.is_empty() {
            return None;
        }
        let mut search = |limits: Limits| {
            searcher.clear();
            let job = Job {
                root: *pos,
                history: Vec::new(),
                reversible: 0,
                limits,
                multipv: 1,
                start: Instant::now(),
                ponder: false,
            };
            searcher.search(&job, &mut |_| {}).score
        };
        let quick = search(Limits::depth(self.quick_depth));
        if quick.abs() > self.max_cp {
            return Some((quick, None));
        }
        let deep = search(Limits {
            depth: Some(self.depth),
            nodes: Some(self.nodes),
            ..Default::default()
        });
        Some((quick, Some(deep)))
    }

    /// Whether `pos` passes the check.
    pub fn passes<R: Evaluate>(&self, searcher: &mut Searcher<R>, pos: &Position<R>) -> bool {
        matches!(self.scores(searcher, pos), Some((_, Some(d))) if d.abs() <= self.max_cp)
    }
}

/// Hash table of each balance-checking searcher, in MiB.
const CHECK_HASH_MIB: usize = 4;

/// Stack of the threads that check openings (the search recurses deeply).
const CHECK_STACK: usize = 32 << 20;

/// `count` openings of `plies` random moves from the start position that
/// pass [`BalanceCheck::new`]`(max_cp)`; see [`generate_openings_with`].
pub fn generate_openings<R: Evaluate>(
    count: usize,
    plies: usize,
    max_cp: i32,
    seed: u64,
) -> Vec<Opening<R>> {
    generate_openings_with(count, plies, &BalanceCheck::new(max_cp), seed)
}

/// `count` openings of `plies` random moves from the start position that
/// pass `check`. Candidates come from a generator seeded with `seed`, each
/// ending in a position no earlier candidate reached; they are checked in
/// parallel (one search thread each, as many as the machine has, at most
/// 8) and kept in their order, so the result depends on the seed only.
/// Fewer than `count` come back when the candidates run out (after
/// `count * 200 + 1000` tries).
pub fn generate_openings_with<R: Evaluate>(
    count: usize,
    plies: usize,
    check: &BalanceCheck,
    seed: u64,
) -> Vec<Opening<R>> {
    let mut rng = first_state(seed);
    let mut next = move || {
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        rng
    };
    let mut seen = rustc_hash::FxHashSet::default();
    let max_tries = count * 200 + 1000;
    let mut tries = 0;
    // The next candidate, or None when the tries are used up.
    let mut candidate = move || -> Option<Opening<R>> {
        while tries < max_tries {
            tries += 1;
            let start = Position::<R>::start();
            let mut pos = start;
            let mut moves = Vec::with_capacity(plies);
            for _ in 0..plies {
                let mut list = MoveList::new();
                generate(&pos, &mut list);
                if list.is_empty() {
                    break;
                }
                let mv = list[(next() % list.len() as u64) as usize];
                moves.push(mv);
                pos.play(&mv);
            }
            if moves.len() == plies && seen.insert(pos.key()) {
                return Some(Opening { start, moves });
            }
        }
        None
    };
    let workers = std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(1)
        .clamp(1, 8);
    let mut out: Vec<Opening<R>> = Vec::new();
    while out.len() < count {
        let want = count - out.len();
        let batch: Vec<Opening<R>> = std::iter::from_fn(&mut candidate)
            .take((want * 2).clamp(workers, 64 * workers))
            .collect();
        if batch.is_empty() {
            break;
        }
        let verdicts = check_all(&batch, check, workers);
        out.extend(
            batch
                .into_iter()
                .zip(verdicts)
                .filter(|(_, ok)| *ok)
                .map(|(o, _)| o)
                .take(want),
        );
    }
    out
}

/// The opening generator's first state for `seed` (a xorshift, whose state
/// must not be 0). An odd seed starts from itself; an even seed is mixed
/// first (SplitMix64), so that it does not start where the next odd seed
/// does: seeds 2k and 2k + 1 gave the same openings when every seed started
/// from `seed | 1`.
fn first_state(seed: u64) -> u64 {
    if seed & 1 == 1 {
        seed
    } else {
        crate::tools::selfplay::SplitMix::new(seed).next_u64() | 1
    }
}

/// Runs `check` on the end position of every opening, on `workers`
/// threads; the verdicts in the openings' order.
fn check_all<R: Evaluate>(
    openings: &[Opening<R>],
    check: &BalanceCheck,
    workers: usize,
) -> Vec<bool> {
    let next = std::sync::atomic::AtomicUsize::new(0);
    let verdicts: Vec<std::sync::atomic::AtomicBool> = openings
        .iter()
        .map(|_| std::sync::atomic::AtomicBool::new(false))
        .collect();
    let work = || {
        let mut searcher = Searcher::<R>::new(1, CHECK_HASH_MIB);
        loop {
            let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            let Some(o) = openings.get(i) else { break };
            let ok = check.passes(&mut searcher, &o.position());
            verdicts[i].store(ok, std::sync::atomic::Ordering::Relaxed);
        }
    };
    std::thread::scope(|scope| {
        let spawned: Vec<_> = (0..workers.min(openings.len()))
            .map(|_| {
                std::thread::Builder::new()
                    .stack_size(CHECK_STACK)
                    .spawn_scoped(scope, work)
            })
            .collect();
        // A thread that could not start leaves its share to the others;
        // with none at all, check here.
        if spawned.iter().all(|h| h.is_err()) {
            work();
        }
    });
    verdicts.into_iter().map(|v| v.into_inner()).collect()
}

/// A standard deck of openings shipped in the binary (`data/`), chosen by
/// name where a file of openings is expected (`--openings english-3move`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Deck {
    /// Name (lower case).
    pub name: &'static str,
    /// The variant the deck is for.
    pub variant: Variant,
    /// What it is, in a few words.
    pub description: &'static str,
    /// The deck file (an openings file; its header names its sources).
    pub text: &'static str,
}

/// The standard decks. Other variants have no standard deck with a
/// published list: International draughts is played from the start
/// position (ballots are chosen per event), and the Russian and Italian
/// federations' opening tables are not shipped.
pub const DECKS: &[Deck] = &[Deck {
    name: "english-3move",
    variant: Variant::English,
    description: "ACF three-move deck, 156 ballots (the 18 barred ones left out)",
    text: include_str!("../../data/english-3move.txt"),
}];

/// The standard deck called `name` (any case).
pub fn deck(name: &str) -> Option<&'static Deck> {
    let n = name.trim();
    DECKS.iter().find(|d| d.name.eq_ignore_ascii_case(n))
}

/// Openings from `spec`: the path of an openings file (see
/// [`read_openings`]) or, when no such file exists, the name of a standard
/// deck of [`DECKS`] for this variant. Errors name the file or the deck,
/// and list the decks when `spec` is neither.
pub fn load_openings<R: Evaluate>(spec: &str) -> Result<Vec<Opening<R>>, String> {
    let path = std::path::Path::new(spec);
    if path.exists() {
        let text =
            std::fs::read_to_string(path).map_err(|e| format!("openings file {spec}: {e}"))?;
        return read_openings::<R>(&text).map_err(|e| format!("openings file {spec}: {e}"));
    }
    match deck(spec) {
        Some(d) if d.variant.name() == R::NAME => {
            read_openings::<R>(d.text).map_err(|e| format!("deck {}: {e}", d.name))
        }
        Some(d) => Err(format!(
            "deck {} is for {}, not {}",
            d.name,
            d.variant.name(),
            R::NAME
        )),
        None => {
            let names: Vec<&str> = DECKS.iter().map(|d| d.name).collect();
            Err(format!(
                "openings '{spec}': no such file, nor a standard deck ({})",
                names.join(", ")
            ))
        }
    }
}

/// Reads openings from text: a PDN file (every game gives its start
/// position and all its moves), or one opening per line, either a FEN or a
/// ballot of moves from the start position (`09-13 21-17 05-09`, move
/// numbers and a leading ballot number are skipped). Blank lines and lines
/// starting with `#` are ignored. Errors name the line.
pub fn read_openings<R: Evaluate>(text: &str) -> Result<Vec<Opening<R>>, String> {
    if text.trim_start().starts_with('[') {
        let mut out = Vec::new();
        for (i, g) in parse_pdn(text).into_iter().enumerate() {
            let g = g.map_err(|e| format!("opening game {}: {e}", i + 1))?;
            let (start, played) =
                replay::<R>(&g).map_err(|e| format!("opening game {}: {e}", i + 1))?;
            out.push(Opening {
                start,
                moves: played.into_iter().map(|(_, m)| m).collect(),
            });
        }
        return Ok(out);
    }
    let mut out = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        if line.contains(':')
            && (line.starts_with(['W', 'B', 'w', 'b', '?']) || line.starts_with('"'))
        {
            let p = parse_fen::<R>(line).map_err(|e| format!("openings line {}: {e}", n + 1))?;
            out.push(Opening {
                start: p,
                moves: Vec::new(),
            });
            continue;
        }
        let start = Position::<R>::start();
        let mut pos = start;
        let mut moves = Vec::new();
        for (k, tok) in line.split_whitespace().enumerate() {
            // Ballot numbers ("001") and move numbers ("1.", "1...").
            let is_number = tok
                .trim_end_matches('.')
                .bytes()
                .all(|c| c.is_ascii_digit())
                && !tok.contains(['-', 'x', ':']);
            if is_number && (k == 0 || tok.ends_with('.')) {
                continue;
            }
            let mv = parse_move(&pos, tok).map_err(|e| format!("openings line {}: {e}", n + 1))?;
            moves.push(mv);
            pos.play(&mv);
        }
        out.push(Opening { start, moves });
    }
    if out.is_empty() {
        return Err("no openings in the file".into());
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::{English, International, Russian};

    #[test]
    fn generated_openings_are_distinct_and_balanced() {
        let o = generate_openings::<Russian>(6, 4, 60, 7);
        assert_eq!(o.len(), 6);
        let keys: rustc_hash::FxHashSet<u64> = o.iter().map(|x| x.position().key()).collect();
        assert_eq!(keys.len(), 6);
        assert!(o.iter().all(|x| x.moves.len() == 4));
        assert_eq!(generate_openings::<Russian>(6, 4, 60, 7), o);
    }

    /// Neighbouring seeds give different openings (an even seed used to give
    /// the next odd seed's), and the generator's state is never 0.
    #[test]
    fn neighbouring_seeds_give_other_openings() {
        let sets: Vec<Vec<Opening<English>>> = (6..=9)
            .map(|seed| generate_openings::<English>(4, 6, 60, seed))
            .collect();
        for (i, a) in sets.iter().enumerate() {
            assert_eq!(a.len(), 4);
            for b in &sets[i + 1..] {
                assert_ne!(a, b);
            }
        }
        let firsts: rustc_hash::FxHashSet<u64> = (0..2000).map(first_state).collect();
        assert_eq!(firsts.len(), 2000);
        assert!(!firsts.contains(&0));
        assert_eq!(first_state(147), 147);
    }

    /// The verdicts on a batch do not depend on how many threads check it
    /// nor on what the searchers saw before.
    #[test]
    fn verdicts_do_not_depend_on_the_threads() {
        let mut rng = 5u64;
        let batch: Vec<Opening<Russian>> = (0..6)
            .map(|_| {
                let start = Position::<Russian>::start();
                let mut pos = start;
                let mut moves = Vec::new();
                for _ in 0..4 {
                    let mut list = MoveList::new();
                    generate(&pos, &mut list);
                    rng ^= rng << 13;
                    rng ^= rng >> 7;
                    rng ^= rng << 17;
                    let mv = list[(rng % list.len() as u64) as usize];
                    moves.push(mv);
                    pos.play(&mv);
                }
                Opening { start, moves }
            })
            .collect();
        let mut check = BalanceCheck::new(30);
        check.nodes = 20_000;
        let one = check_all(&batch, &check, 1);
        let three = check_all(&batch, &check, 3);
        assert_eq!(one, three);
        let reversed: Vec<Opening<Russian>> = batch.iter().rev().cloned().collect();
        let mut back = check_all(&reversed, &check, 2);
        back.reverse();
        assert_eq!(one, back);
    }

    #[test]
    fn ballots_and_fens() {
        let o =
            read_openings::<English>("# ACF\n001 09-13 21-17 05-09\n\nB:W21-32:B1-12\n").unwrap();
        assert_eq!(o.len(), 2);
        assert_eq!(o[0].moves.len(), 3);
        assert!(o[1].moves.is_empty());
        let e = read_openings::<International>("32-28 32-28\n").unwrap_err();
        assert!(e.contains("line 1"), "{e}");
    }
}
