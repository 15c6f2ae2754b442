//! The search as a black box, in every variant: legal moves from random
//! positions, stop and time limits, draws by repetition and by the N-move
//! rule, the shared table under several threads, and a sanity check of
//! strength against a one-ply material player. Tactics and win scores are in
//! `search_tactics.rs`.
//!
//! Everything random here comes from a fixed xorshift generator, so every
//! run plays the same positions and games.

use std::sync::mpsc;
use std::time::{Duration, Instant};

use kondavo::eval::Evaluate;
use kondavo::game::{Game, Outcome};
use kondavo::geometry::{Bitboard, Geometry};
use kondavo::movegen::{generate, Move, MoveList};
use kondavo::notation::fen::{parse_fen, write_fen};
use kondavo::notation::movetext::move_to_pdn;
use kondavo::position::Position;
use kondavo::rules::{Color, International, Rules, Russian};
use kondavo::search::threads::Searcher;
use kondavo::search::{Job, Limits, SearchResult, WIN, WIN_BOUND};
use kondavo::tools::search::job;
use kondavo::{with_rules, Variant};

// ---------------------------------------------------------------------------
// Helpers

mod common;
use common::XorShift;

/// Runs `$body` once per variant with the rules type bound to `$R`.
macro_rules! each_variant {
    ($R:ident => $body:expr) => {
        for v in Variant::ALL {
            with_rules!(v, $R => $body)
        }
    };
}

fn legal<R: Rules>(pos: &Position<R>) -> MoveList {
    let mut list = MoveList::new();
    generate(pos, &mut list);
    list
}

/// The one-bit board of the square at (file, rank), a1 = (0, 0), in the
/// geometry's own coordinates (Italian and Spanish boards are held
/// mirrored; the rules are symmetric, so that changes nothing here).
fn at<R: Rules>(file: usize, rank: usize) -> Bitboard {
    let s = R::Geo::from_coords(file, rank)
        .unwrap_or_else(|| panic!("{}: ({file}, {rank}) is not playable", R::NAME));
    R::Geo::bit(s)
}

/// Checks a search result against the legal moves of `pos`: a best move
/// exactly when there is a legal move, the principal variation legal move
/// after move from the root and starting with the best move, the ponder
/// move its second move.
fn assert_result_legal<R: Rules>(pos: &Position<R>, r: &SearchResult, what: &str) {
    let list = legal(pos);
    let fen = write_fen(pos);
    match r.best {
        None => {
            assert!(
                list.is_empty(),
                "{} {what} {fen}: no best move but {} legal moves",
                R::NAME,
                list.len()
            );
            assert!(
                r.pv.is_empty(),
                "{} {what} {fen}: a pv without a move",
                R::NAME
            );
            assert!(
                r.score < -WIN_BOUND,
                "{} {what} {fen}: {}",
                R::NAME,
                r.score
            );
        }
        Some(best) => {
            assert!(
                list.contains(&best),
                "{} {what} {fen}: illegal best move {best:?}",
                R::NAME
            );
            assert_eq!(r.pv.first(), Some(&best), "{} {what} {fen}: pv", R::NAME);
            // The ponder move is the PV's reply, or when the PV stops at
            // the best move, some legal reply (none only if there is none).
            match r.pv.get(1) {
                Some(reply) => assert_eq!(r.ponder, Some(*reply), "{} {what} {fen}", R::NAME),
                None => {
                    let child = pos.played(&best);
                    let mut replies = MoveList::new();
                    generate(&child, &mut replies);
                    match r.ponder {
                        Some(p) => {
                            assert!(replies.contains(&p), "{} {what} {fen}: ponder", R::NAME)
                        }
                        None => assert!(replies.is_empty(), "{} {what} {fen}: no ponder", R::NAME),
                    }
                }
            }
            assert_line_legal(pos, &r.pv, &format!("{what} pv"));
        }
    }
}

/// Asserts that every move of `line` is legal in turn from `pos`.
fn assert_line_legal<R: Rules>(pos: &Position<R>, line: &[Move], what: &str) {
    let mut p = *pos;
    for (i, mv) in line.iter().enumerate() {
        assert!(
            legal(&p).contains(mv),
            "{} {}: {what}: move {i} ({mv:?}) is illegal in {}",
            R::NAME,
            write_fen(pos),
            write_fen(&p)
        );
        p.play(mv);
    }
}

/// Positions of a random playout from the start: every position until the
/// game ends (no legal move) or `max_plies` are played.
fn playout<R: Rules>(rng: &mut XorShift, max_plies: usize) -> Vec<Position<R>> {
    let mut pos = Position::<R>::start();
    let mut out = vec![pos];
    for _ in 0..max_plies {
        let list = legal(&pos);
        if list.is_empty() {
            break;
        }
        pos.play(&list[rng.below(list.len())]);
        out.push(pos);
    }
    out
}

/// A position where the side to move has pieces but no legal move: a man on
/// its first corner square, the square in front of it taken by an enemy man
/// with another enemy man behind that.
fn blocked<R: Rules>() -> Position<R> {
    let (white, black) = if R::Geo::DIAGONAL {
        (at::<R>(0, 0), at::<R>(1, 1) | at::<R>(2, 2))
    } else {
        // Turkish: forward (a2) and sideways (b1) both taken, each with a
        // piece behind it.
        (
            at::<R>(0, 0),
            at::<R>(0, 1) | at::<R>(0, 2) | at::<R>(1, 0) | at::<R>(2, 0),
        )
    };
    Position::from_parts(white, black, 0, Color::White)
}

// ---------------------------------------------------------------------------
// 3. Random positions always get a legal move

/// A few hundred positions from random playouts in all seven variants, each
/// searched to depth 3 (or a node budget): a legal best move and a legal
/// principal variation, and no move only when there is none.
#[test]
fn random_positions_get_legal_moves() {
    let mut total = 0;
    let mut ended = 0;
    each_variant!(R => {
        let mut rng = XorShift::new(0x5EA2C4 ^ R::NAME.len() as u64);
        let mut searcher = Searcher::<R>::new(1, 4);
        for game in 0..4 {
            let positions = playout::<R>(&mut rng, 160);
            let last = positions.len() - 1;
            for (i, pos) in positions.iter().enumerate() {
                if i % 6 != game % 6 && i != last {
                    continue;
                }
                let limits = if i % 2 == 0 {
                    Limits::depth(3)
                } else {
                    Limits { depth: Some(6), nodes: Some(3_000), ..Limits::default() }
                };
                let r = searcher.search(&job(*pos, limits, 1), &mut |_| {});
                assert_result_legal(pos, &r, &format!("game {game} ply {i}"));
                if legal(pos).is_empty() {
                    ended += 1;
                }
                if legal(pos).len() == 1 {
                    assert_eq!(r.best, Some(legal(pos)[0]));
                }
                total += 1;
            }
        }
        // And positions that are over, with and without pieces.
        for pos in [blocked::<R>(), Position::<R>::from_parts(0, at::<R>(1, 1), 0, Color::White)] {
            assert!(legal(&pos).is_empty(), "{} {}", R::NAME, write_fen(&pos));
            let r = searcher.search(&job(pos, Limits::depth(3), 1), &mut |_| {});
            assert_result_legal(&pos, &r, "game over");
            assert_eq!(r.best, None);
            assert_eq!(r.score, -WIN);
            ended += 1;
            total += 1;
        }
    });
    eprintln!("{total} positions, {ended} with no legal move");
    assert!(total >= 200, "only {total} positions");
    assert!(ended >= 14);
}

/// Every line of a multi-PV search is legal and the lines are ordered.
#[test]
fn multipv_lines_are_legal_and_ordered() {
    each_variant!(R => {
        let mut rng = XorShift::new(77 + R::NAME.len() as u64);
        let mut searcher = Searcher::<R>::new(1, 4);
        for pos in playout::<R>(&mut rng, 40).iter().step_by(8) {
            let n = legal(pos).len();
            if n == 0 {
                continue;
            }
            let r = searcher.search(&job(*pos, Limits::depth(4), 3), &mut |_| {});
            assert_result_legal(pos, &r, "multipv");
            assert_eq!(r.lines.len(), n.min(3), "{} {}", R::NAME, write_fen(pos));
            let mut firsts = Vec::new();
            for (k, line) in r.lines.iter().enumerate() {
                assert_eq!(line.multipv, k + 1);
                assert!(!line.pv.is_empty());
                assert_line_legal(pos, &line.pv, "multipv line");
                assert!(!firsts.contains(&line.pv[0]), "two lines start with one move");
                firsts.push(line.pv[0]);
                if k > 0 {
                    assert!(line.score <= r.lines[k - 1].score, "lines out of order");
                }
            }
            assert_eq!(r.lines[0].pv[0], r.best.unwrap());
        }
    });
}

// ---------------------------------------------------------------------------
// 4. Stop, time and node limits

/// A middle-game position of International draughts (enough work for any
/// time limit).
fn busy_position() -> Position<International> {
    let mut rng = XorShift::new(4242);
    playout::<International>(&mut rng, 12)[12]
}

#[test]
fn movetime_is_honoured() {
    for threads in [1, 2, 4] {
        let pos = busy_position();
        let mut searcher = Searcher::<International>::new(threads, 16);
        let start = Instant::now();
        let j = job(pos, Limits::movetime(Duration::from_millis(100)), 1);
        let r = searcher.search(&j, &mut |_| {});
        let took = start.elapsed();
        assert!(
            took < Duration::from_secs(1),
            "{threads} threads: took {took:?}"
        );
        assert!(r.best.is_some());
        assert_result_legal(&pos, &r, "movetime");
    }
}

/// Also in the other variants, from the start position.
#[test]
fn movetime_is_honoured_in_every_variant() {
    each_variant!(R => {
        let pos = Position::<R>::start();
        let mut searcher = Searcher::<R>::new(1, 16);
        let start = Instant::now();
        let r = searcher.search(&job(pos, Limits::movetime(Duration::from_millis(60)), 1), &mut |_| {});
        let took = start.elapsed();
        assert!(took < Duration::from_secs(1), "{}: took {took:?}", R::NAME);
        assert_result_legal(&pos, &r, "movetime");
        assert!(r.best.is_some());
    });
}

/// With a single legal move (a forced capture) under a time limit, the move
/// comes back long before the time is up, with the score of a real search:
/// close to a fixed-depth search's.
///
/// Failing when written: the search returned after its first iteration,
/// with a depth-1 score a man away from the truth (169 where depth 12 finds
/// -1 in the Russian position, -128 where depth 14 finds 154 in the
/// International one), which misled resign and draw adjudication.
#[test]
fn single_reply_under_a_clock_gets_a_real_score() {
    fn check<R: Evaluate>(fen: &str) {
        let pos = parse_fen::<R>(fen).unwrap();
        let list = legal(&pos);
        assert_eq!(list.len(), 1, "{fen}");
        assert!(list[0].is_capture(), "{fen}");
        let reference = search_job(&job(pos, Limits::depth(12), 1)).score;
        let movetime = Duration::from_secs(4);
        let mut searcher = Searcher::<R>::new(1, 16);
        let start = Instant::now();
        let r = searcher.search(&job(pos, Limits::movetime(movetime), 1), &mut |_| {});
        let took = start.elapsed();
        assert_eq!(r.best, Some(list[0]), "{fen}");
        assert!(took < movetime / 2, "{} {fen}: took {took:?}", R::NAME);
        assert!(
            (r.score - reference).abs() <= 30,
            "{} {fen}: score {} at depth {}, {reference} at depth 12",
            R::NAME,
            r.score,
            r.depth
        );
    }
    check::<Russian>("W:Wa1,c1,e1,g1,d2,f2,h2,d4,h4:Ba5,c5,g5,f6,h6,a7,c7,e7,b8,f8,h8");
    check::<International>(
        "W:W30,32,34,35,36,37,38,40,41,42,43,44,45,46,47,48,49,50:\
         B1,2,3,4,5,6,7,8,9,10,11,14,15,16,18,19,23,27,29",
    );
}

/// Starts an infinite search of `pos`, stops it from another thread after
/// `after`, and returns the result with the time from the stop to the
/// return.
fn stop_infinite<R: Evaluate>(
    pos: Position<R>,
    threads: usize,
    after: Duration,
) -> (SearchResult, Duration, Duration) {
    let mut searcher = Searcher::<R>::new(threads, 16);
    let handle = searcher.handle();
    let (tx, rx) = mpsc::channel();
    let stopper = std::thread::spawn(move || {
        std::thread::sleep(after);
        let at = Instant::now();
        handle.stop();
        tx.send(at).unwrap();
    });
    let limits = Limits {
        infinite: true,
        ..Limits::default()
    };
    let start = Instant::now();
    let r = searcher.search(&job(pos, limits, 1), &mut |_| {});
    let returned = Instant::now();
    stopper.join().unwrap();
    let stopped_at = rx.recv().unwrap();
    (
        r,
        returned.saturating_duration_since(stopped_at),
        returned - start,
    )
}

#[test]
fn infinite_search_stops_promptly() {
    for threads in [1, 3] {
        let pos = busy_position();
        let (r, after_stop, total) = stop_infinite(pos, threads, Duration::from_millis(250));
        assert!(
            total >= Duration::from_millis(240),
            "{threads} threads: an infinite search returned after {total:?}, before the stop"
        );
        assert!(
            after_stop < Duration::from_millis(500),
            "{threads} threads: returned {after_stop:?} after the stop"
        );
        assert!(r.best.is_some());
        assert!(r.depth >= 1);
        assert_result_legal(&pos, &r, "infinite");
    }
}

/// An infinite search of a position it solves at once (a win in one) still
/// waits for the stop, then returns promptly with the winning move.
#[test]
fn infinite_search_of_a_solved_position_waits_for_stop() {
    let pos = parse_fen::<Russian>("W:WKa1:Bd4,g7").unwrap();
    let (r, after_stop, total) = stop_infinite(pos, 2, Duration::from_millis(150));
    assert!(
        total >= Duration::from_millis(140),
        "returned after {total:?}"
    );
    assert!(after_stop < Duration::from_millis(500), "{after_stop:?}");
    assert_eq!(r.score, WIN - 1);
    assert_eq!(move_to_pdn(&pos, &r.best.unwrap()), "a1:h8");
}

/// A stop before the search starts is forgotten by `search` (it clears the
/// flag), so the search runs normally.
#[test]
fn stale_stop_does_not_abort_next_search() {
    let pos = busy_position();
    let mut searcher = Searcher::<International>::new(1, 16);
    searcher.handle().stop();
    let r = searcher.search(&job(pos, Limits::depth(4), 1), &mut |_| {});
    assert_eq!(r.depth, 4);
    assert_result_legal(&pos, &r, "after a stale stop");
}

/// Searches the busy position with a node budget and checks the count.
fn assert_node_limit(threads: usize, limit: u64) {
    let pos = busy_position();
    let mut searcher = Searcher::<International>::new(threads, 16);
    let r = searcher.search(&job(pos, Limits::nodes(limit), 1), &mut |_| {});
    assert!(
        r.nodes <= limit + 10_000,
        "{threads} threads, limit {limit}: searched {} nodes (depth {})",
        r.nodes,
        r.depth
    );
    assert!(
        r.nodes >= limit / 2,
        "{threads} threads, limit {limit}: {} nodes",
        r.nodes
    );
    assert!(r.best.is_some());
    assert_result_legal(&pos, &r, "node limit");
}

#[test]
fn node_limit_is_honoured() {
    for limit in [5_000u64, 40_000, 150_000] {
        assert_node_limit(1, limit);
    }
}

/// The budget counts the nodes of all threads, and holds with helper
/// threads too. Runs each case a few times: thread timing varies.
///
/// Failing when written: only the main thread compares the shared node
/// count with the budget, and only once per 1024 of its own nodes; helpers
/// watch nothing but the stop flag. When the main thread gets little CPU
/// (more threads than free cores) or counts few nodes of its own (its
/// iterations ride on the helpers' table entries), the helpers search far
/// past the budget (40-100k nodes for budgets of 5k and 40k here).
#[test]
fn node_limit_is_honoured_with_helper_threads() {
    for threads in [2, 4] {
        for limit in [5_000u64, 40_000, 150_000] {
            for _ in 0..3 {
                assert_node_limit(threads, limit);
            }
        }
    }
}

#[test]
fn node_limit_is_honoured_in_every_variant() {
    each_variant!(R => {
        let pos = Position::<R>::start();
        let mut searcher = Searcher::<R>::new(1, 16);
        let r = searcher.search(&job(pos, Limits::nodes(20_000), 1), &mut |_| {});
        assert!(r.nodes <= 30_000, "{}: {} nodes", R::NAME, r.nodes);
        assert_result_legal(&pos, &r, "node limit");
        assert!(r.best.is_some());
    });
}

/// Depth limits are exact and each iteration is reported once, in order.
#[test]
fn depth_limit_and_reports() {
    each_variant!(R => {
        let pos = Position::<R>::start();
        let mut searcher = Searcher::<R>::new(1, 16);
        let mut depths = Vec::new();
        let r = searcher.search(&job(pos, Limits::depth(5), 1), &mut |info| {
            depths.push(info.depth);
            assert_line_legal(&pos, &info.pv, "info pv");
        });
        assert_eq!(r.depth, 5, "{}", R::NAME);
        assert_eq!(depths, vec![1, 2, 3, 4, 5], "{}", R::NAME);
        assert_result_legal(&pos, &r, "depth 5");
    });
}

// ---------------------------------------------------------------------------
// 5. Draws by the N-move rule and by repetition

/// White to move with two kings (on the first row's two left squares)
/// against a lone man on the far side, out of their lines: only king moves,
/// no capture, a position any evaluation scores as clearly won.
fn two_kings_vs_man<R: Rules>() -> Position<R> {
    let (kings, man) = if R::Geo::DIAGONAL {
        (
            at::<R>(0, 0) | at::<R>(2, 0),
            at::<R>(1, R::Geo::HEIGHT - 1),
        )
    } else {
        (at::<R>(0, 0) | at::<R>(2, 0), at::<R>(7, 7))
    };
    Position::from_parts(kings, man, kings, Color::White)
}

fn search_job<R: Evaluate>(job: &Job<R>) -> SearchResult {
    let mut searcher = Searcher::<R>::new(1, 16);
    searcher.search(job, &mut |_| {})
}

/// The position of [`two_kings_vs_man`] is what it claims to be.
#[test]
fn draw_test_position_is_quiet_and_won() {
    each_variant!(R => {
        let pos = two_kings_vs_man::<R>();
        let list = legal(&pos);
        assert!(!list.is_empty());
        for mv in &list {
            assert!(!mv.is_capture() && pos.kings() & (1u64 << mv.from) != 0);
            assert!(!pos.is_irreversible(mv));
        }
        // Clearly ahead, whatever the weights: a quarter of a man or more
        // (the learned weights value a man at 100 in the opening but 21 to
        // 99 with no men left, so two kings against a man score 41 in
        // English).
        let r = search_job(&job(pos, Limits::depth(6), 1));
        assert!(r.score > 25, "{} {}: {}", R::NAME, write_fen(&pos), r.score);
    });
}

/// With the N-move counter one ply short of the limit, every move reaches
/// the limit: the search scores the position 0, in every variant with an
/// N-move rule; without the rule (Turkish) the count means nothing.
#[test]
fn n_move_rule_draws_at_the_limit() {
    each_variant!(R => {
        let pos = two_kings_vs_man::<R>();
        match R::DRAW_MOVES {
            Some(n) => {
                let mut j = job(pos, Limits::depth(6), 1);
                j.reversible = 2 * n - 1;
                let r = search_job(&j);
                assert_eq!(r.score, 0, "{} {}", R::NAME, write_fen(&pos));
                assert_result_legal(&pos, &r, "N-move limit");
                assert!(r.best.is_some());
            }
            None => {
                let mut j = job(pos, Limits::depth(6), 1);
                j.reversible = 10_000;
                let r = search_job(&j);
                assert!(r.score > 50, "{}: {}", R::NAME, r.score);
            }
        }
    });
}

/// A game history in which every position White can reach has already
/// occurred (Black to move, at the right distance): every move repeats, so
/// the search scores the won-looking position 0. Keys only: the engine
/// compares keys within the last `reversible` plies.
#[test]
fn repetition_of_every_child_is_a_draw() {
    each_variant!(R => {
        let pos = two_kings_vs_man::<R>();
        let children: Vec<u64> = legal(&pos).iter().map(|m| pos.played(m).key()).collect();
        // Oldest first; the last entry is the position just before the
        // root (Black to move), then every second entry back.
        let mut history = Vec::new();
        for (i, k) in children.iter().rev().enumerate() {
            if i > 0 {
                history.push(pos.key());
            }
            history.push(*k);
        }
        let reversible = history.len() as u32;
        if let Some(n) = R::DRAW_MOVES {
            assert!(reversible + 1 < 2 * n, "{}: the N-move rule would interfere", R::NAME);
        }
        let mut j = job(pos, Limits::depth(6), 1);
        j.history = history.clone();
        j.reversible = reversible;
        let r = search_job(&j);
        assert_eq!(r.score, 0, "{} {}", R::NAME, write_fen(&pos));
        assert_result_legal(&pos, &r, "repetition");

        // The same history outside the reversible window is irrelevant.
        // (The margin is the evaluation's business: any score above the
        // draw shows the history was ignored.)
        j.reversible = 0;
        let r = search_job(&j);
        assert!(r.score > 0, "{}: {}", R::NAME, r.score);

        // With all but one child repeated, the search plays the one that
        // does not repeat.
        let fresh = legal(&pos)[0];
        let fresh_key = pos.played(&fresh).key();
        j.history = history.iter().map(|&k| if k == fresh_key { 0 } else { k }).collect();
        j.reversible = reversible;
        let r = search_job(&j);
        assert_eq!(r.best, Some(fresh), "{} {}", R::NAME, write_fen(&pos));
        assert!(r.score > 0, "{}: {}", R::NAME, r.score);
    });
}

/// A real game: White shuffles a king out and back while Black does the
/// same, so the start position comes back. Going out again repeats a
/// position of the game, which the search counts as a draw; the other moves
/// keep the advantage. Multi-PV shows each root move's score.
fn game_repetition<R: Evaluate>() {
    {
        // White: kings on a1, c1 and e1; Black: a king on the far row.
        let (kings, black) = if R::Geo::DIAGONAL {
            let w = R::Geo::WIDTH;
            (
                at::<R>(0, 0) | at::<R>(2, 0) | at::<R>(4, 0),
                at::<R>(w - 3, R::Geo::HEIGHT - 1),
            )
        } else {
            (at::<R>(0, 0) | at::<R>(2, 0) | at::<R>(4, 0), at::<R>(7, 7))
        };
        // Black also has a man: three kings against a king and a man, so
        // White is clearly better in every variant (two kings against a
        // king and a man are close to a draw in English).
        let man = if R::Geo::DIAGONAL {
            at::<R>(1, R::Geo::HEIGHT - 1)
        } else {
            at::<R>(0, 7)
        };
        let start = Position::<R>::from_parts(kings, black | man, kings | black, Color::White);
        let mut game = Game::new(start);
        // The first king moves of White and of Black's king after which
        // both can step back (no capture comes up on the way).
        let reverse = |pos: &Position<R>, mv: &Move| -> Option<Move> {
            legal(pos)
                .iter()
                .find(|m| m.from == mv.to && m.to == mv.from && !m.is_capture())
                .copied()
        };
        let mut cycle = None;
        'search: for out_w in &legal(&start) {
            let p1 = start.played(out_w);
            for out_b in legal(&p1).iter().filter(|m| 1u64 << m.from == black) {
                let p2 = p1.played(out_b);
                let Some(back_w) = reverse(&p2, out_w) else {
                    continue;
                };
                let p3 = p2.played(&back_w);
                let Some(back_b) = reverse(&p3, out_b) else {
                    continue;
                };
                cycle = Some((*out_w, *out_b, back_w, back_b));
                break 'search;
            }
        }
        let (out_w, out_b, back_w, back_b) = cycle
            .unwrap_or_else(|| panic!("{}: no king shuffle from {}", R::NAME, write_fen(&start)));
        for mv in [out_w, out_b, back_w, back_b] {
            game.play(&mv);
        }
        assert_eq!(game.position().key(), start.key());
        assert_eq!(game.repetitions(), 2);
        assert_eq!(game.outcome(), None);

        let n = legal(&start).len();
        let j = Job {
            root: start,
            history: game.history().to_vec(),
            reversible: game.reversible_plies(),
            limits: Limits::depth(4),
            multipv: n,
            start: Instant::now(),
            ponder: false,
        };
        let r = search_job(&j);
        assert_result_legal(&start, &r, "game repetition");
        assert_eq!(r.lines.len(), n);
        let repeat = r.lines.iter().find(|l| l.pv[0] == out_w).unwrap();
        assert_eq!(repeat.score, 0, "{}: the repeating move", R::NAME);
        assert!(r.score > 0, "{}: best {}", R::NAME, r.score);
        assert_ne!(r.best, Some(out_w));

        // Played out once more, the cycle brings the start position back
        // a third time: the game rule calls it a draw too.
        game.play(&out_w);
        game.play(&out_b);
        game.play(&back_w);
        game.play(&back_b);
        assert_eq!(game.repetitions(), 3);
        assert!(matches!(game.outcome(), Some(Outcome::Draw(_))));
    }
}

#[test]
fn repetition_in_a_played_game() {
    each_variant!(R => game_repetition::<R>());
}

// ---------------------------------------------------------------------------
// 6. The shared table under several threads

/// Four threads share a 1 MiB table (the smallest), reused without clearing
/// across many positions and all seven variants' searches, so entries are
/// overwritten and raced over all the time: every best move, ponder move and
/// principal variation must still be legal.
#[test]
fn shared_table_under_threads_gives_legal_moves() {
    let mut checked = 0;
    each_variant!(R => {
        let mut rng = XorShift::new(0x7AB1E ^ R::NAME.len() as u64);
        let mut searcher = Searcher::<R>::new(4, 1);
        let depth = if R::NAME == "international" { 7 } else { 9 };
        for game in 0..3 {
            let positions = playout::<R>(&mut rng, 120);
            for (i, pos) in positions.iter().enumerate() {
                if i % 3 != game {
                    continue;
                }
                let multipv = 1 + i % 2;
                let r = searcher.search(&job(*pos, Limits::depth(depth), multipv), &mut |info| {
                    assert_line_legal(pos, &info.pv, "info pv");
                });
                assert_result_legal(pos, &r, &format!("4 threads, game {game} ply {i}"));
                for line in &r.lines {
                    assert_line_legal(pos, &line.pv, "multipv line");
                }
                checked += 1;
            }
        }
    });
    eprintln!("{checked} positions searched on four threads");
    assert!(checked >= 300, "{checked}");
}

/// With two threads a fixed-depth search ends at exactly that depth (unless
/// it proves a win first) whichever thread gets there first, and the last
/// line reported is the one the best move and score come from.
#[test]
fn fixed_depth_on_two_threads_reports_the_deciding_line() {
    each_variant!(R => {
        let mut rng = XorShift::new(0xDE7 ^ R::NAME.len() as u64);
        let mut searcher = Searcher::<R>::new(2, 4);
        let positions = playout::<R>(&mut rng, 40);
        for (i, pos) in positions.iter().enumerate().filter(|(i, _)| i % 4 == 0) {
            if legal(pos).is_empty() {
                continue;
            }
            let depth = 6 + (i % 3) as i32;
            let mut last = None;
            let r = searcher.search(&job(*pos, Limits::depth(depth), 1), &mut |info| {
                last = Some(info.clone());
            });
            assert_result_legal(pos, &r, "two threads");
            let last = last.unwrap_or_else(|| {
                panic!("{} ply {i}: no line reported, {r:?} {}", R::NAME, write_fen(pos))
            });
            // A proven win or loss may end the search early.
            if r.score.abs() <= WIN_BOUND {
                assert_eq!(r.depth, depth, "{} ply {i}", R::NAME);
            }
            assert_eq!(last.depth, r.depth, "{} ply {i}", R::NAME);
            assert_eq!(last.pv.first().copied(), r.best, "{} ply {i}", R::NAME);
            assert_eq!(last.score, r.score, "{} ply {i}", R::NAME);
        }
    });
}

// ---------------------------------------------------------------------------
// 7. Sanity strength

/// Material of `c`: men 100, kings 300.
fn material<R: Rules>(pos: &Position<R>, c: Color) -> i32 {
    100 * pos.men(c).count_ones() as i32 + 300 * pos.kings_of(c).count_ones() as i32
}

/// The one-ply material player: the legal move maximising its material
/// minus the opponent's after the move; ties go to the first move in
/// generation order (deterministic).
fn greedy_move<R: Rules>(pos: &Position<R>) -> Option<Move> {
    let us = pos.side();
    let mut best: Option<(i32, Move)> = None;
    for mv in &legal(pos) {
        let p = pos.played(mv);
        let s = material(&p, us) - material(&p, us.flip());
        if best.is_none_or(|(b, _)| s > b) {
            best = Some((s, *mv));
        }
    }
    best.map(|(_, m)| m)
}

/// Plies of a game before it is called off (not a win).
const MAX_GAME_PLIES: usize = 300;
/// Games per variant.
const GAMES: usize = 20;
/// Kondavo's search depth in these games.
const STRENGTH_DEPTH: i32 = 6;

/// One game of kondavo (fixed depth, one thread) against the greedy player
/// from the start position after `opening` random plies; returns the
/// outcome (`None` when the ply cap was reached) and the final position.
fn play_game<R: Evaluate>(
    searcher: &mut Searcher<R>,
    kondavo: Color,
    rng: &mut XorShift,
    opening: usize,
) -> (Option<Outcome>, Game<R>) {
    let mut game = Game::<R>::new(Position::start());
    searcher.clear();
    for _ in 0..opening {
        let list = legal(game.position());
        if list.is_empty() {
            break;
        }
        game.play(&list[rng.below(list.len())]);
    }
    while game.moves().len() < MAX_GAME_PLIES {
        if let Some(o) = game.outcome() {
            return (Some(o), game);
        }
        let pos = *game.position();
        let mv = if pos.side() == kondavo {
            let j = Job {
                root: pos,
                history: game.history().to_vec(),
                reversible: game.reversible_plies(),
                limits: Limits::depth(STRENGTH_DEPTH),
                multipv: 1,
                start: Instant::now(),
                ponder: false,
            };
            let r = searcher.search(&j, &mut |_| {});
            assert_result_legal(&pos, &r, "game move");
            r.best.unwrap()
        } else {
            greedy_move(&pos).unwrap()
        };
        game.play(&mv);
    }
    (game.outcome(), game)
}

/// Kondavo wins 20 of 20 games against the greedy player in every variant,
/// ten with each colour, each game from the start position after two to
/// five random plies.
#[test]
fn beats_greedy_material_player_in_every_variant() {
    let mut failures = Vec::new();
    each_variant!(R => {
        let mut searcher = Searcher::<R>::new(1, 4);
        let mut rng = XorShift::new(0xD1CE ^ R::NAME.len() as u64);
        let mut wins = 0;
        for g in 0..GAMES {
            let kondavo = if g % 2 == 0 { Color::White } else { Color::Black };
            let opening = 2 + g % 4;
            let (outcome, game) = play_game(&mut searcher, kondavo, &mut rng, opening);
            if outcome == Some(Outcome::Win(kondavo)) {
                wins += 1;
            } else {
                failures.push(format!(
                    "{} game {g}: kondavo {kondavo:?}, {outcome:?} after {} plies, final {}",
                    R::NAME,
                    game.moves().len(),
                    write_fen(game.position())
                ));
            }
        }
        eprintln!("{}: {wins}/{GAMES}", R::NAME);
    });
    assert!(failures.is_empty(), "not won:\n{}", failures.join("\n"));
}
