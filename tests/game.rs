//! Game rules in every variant (`shared/RULES.md`, "Rules every variant
//! shares" and the N-move row of the table): the incrementally updated
//! Zobrist key, threefold repetition, the N-move rule, and the loss of a side
//! with no pieces or no legal move.

use std::collections::HashSet;

use kondavo::game::{DrawReason, Game, Outcome};
use kondavo::geometry::{Bitboard, Geometry};
use kondavo::movegen::{count_quiets, generate, has_quiet, quiets, Move, MoveList};
use kondavo::notation::fen::{parse_fen, write_fen};
use kondavo::notation::movetext::parse_move;
use kondavo::position::Position;
use kondavo::rules::{
    Brazilian, Color, English, International, Italian, Rules, Russian, Spanish, Turkish,
};
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

fn has_capture<R: Rules>(pos: &Position<R>) -> bool {
    legal(pos).iter().any(|m| m.is_capture())
}

fn legal<R: Rules>(pos: &Position<R>) -> MoveList {
    let mut list = MoveList::new();
    generate(pos, &mut list);
    list
}

/// The square at (file, rank) of the geometry (0-based, a1 = (0, 0)), as a
/// one-bit board. Italian and Spanish boards are held mirrored; the rules
/// are symmetric, so coordinates here are the geometry's own.
fn at<R: Rules>(file: usize, rank: usize) -> Bitboard {
    let s = R::Geo::from_coords(file, rank)
        .unwrap_or_else(|| panic!("{}: ({file}, {rank}) is not playable", R::NAME));
    R::Geo::bit(s)
}

/// The legal quiet move from `from` to `to` (one-bit boards).
fn quiet_move<R: Rules + PartialEq>(pos: &Position<R>, from: Bitboard, to: Bitboard) -> Move {
    *legal(pos)
        .iter()
        .find(|m| 1u64 << m.from == from && 1u64 << m.to == to)
        .filter(|m| !m.is_capture())
        .unwrap_or_else(|| panic!("{}: no such quiet move in {}", R::NAME, write_fen(pos)))
}

fn is_king_move<R: Rules>(pos: &Position<R>, mv: &Move) -> bool {
    pos.kings() & (1u64 << mv.from) != 0
}

/// The side to move has legal moves, none of them a capture, and at least
/// one of them a king move.
fn calm<R: Rules>(pos: &Position<R>) -> bool {
    let list = legal(pos);
    !list.is_empty()
        && list.iter().all(|m| !m.is_capture())
        && list.iter().any(|m| is_king_move(pos, m))
}

/// A random position with a few pieces, many of them kings; men are kept off
/// their promotion row.
fn random_position<R: Rules + PartialEq>(rng: &mut XorShift) -> Position<R> {
    let n = R::Geo::NUM_SQUARES;
    let mut bb = [0u64; 2];
    let mut kings = 0u64;
    for (c, color) in [Color::White, Color::Black].into_iter().enumerate() {
        for _ in 0..1 + rng.below(5) {
            let b = R::Geo::bit(rng.below(n));
            if (bb[0] | bb[1]) & b != 0 {
                continue;
            }
            let king = rng.below(3) != 0;
            if !king && R::promotion_row(color) & b != 0 {
                continue;
            }
            bb[c] |= b;
            if king {
                kings |= b;
            }
        }
    }
    let side = if rng.below(2) == 0 {
        Color::White
    } else {
        Color::Black
    };
    Position::from_parts(bb[0], bb[1], kings, side)
}

// ---------------------------------------------------------------------------
// 1. Zobrist key

#[derive(Default, Debug)]
struct Seen {
    moves: usize,
    captures: usize,
    multi: usize,
    promotions: usize,
    promoting_captures: usize,
    king_captures: usize,
    kings_taken: usize,
    /// Captures ending on a square emptied in the same move (Turkish).
    ends_on_taken: usize,
}

fn check_keys_after<R: Rules + PartialEq>(pos: &Position<R>, mv: &Move, seen: &mut Seen) {
    let child = pos.played(mv);
    assert_eq!(
        child.key(),
        child.compute_key(),
        "{}: key after {:?} from {}",
        R::NAME,
        mv,
        write_fen(pos)
    );
    let mut in_place = *pos;
    in_place.play(mv);
    assert_eq!(in_place, child, "{}: play and played differ", R::NAME);
    let rebuilt = Position::<R>::from_parts(
        child.pieces(Color::White),
        child.pieces(Color::Black),
        child.kings(),
        child.side(),
    );
    assert_eq!(rebuilt, child, "{}: from_parts gives another key", R::NAME);
    assert_eq!(
        parse_fen::<R>(&write_fen(&child)).map(|p| p.key()),
        Ok(child.key()),
        "{}",
        R::NAME
    );
    assert_ne!(
        child.with_side(child.side().flip()).key(),
        child.key(),
        "{}: the side to move is not in the key",
        R::NAME
    );
    // The move did what it says.
    let (us, them) = (pos.side(), pos.side().flip());
    assert_eq!(child.side(), them);
    assert_eq!(
        child.count(them),
        pos.count(them) - mv.capture_count(),
        "{}",
        R::NAME
    );
    assert_eq!(child.count(us), pos.count(us), "{}", R::NAME);
    assert_eq!(
        child.kings() & (1u64 << mv.to) != 0,
        is_king_move(pos, mv) || mv.promote,
        "{}: a king stays a king, a man is crowned only when promoted",
        R::NAME
    );

    seen.moves += 1;
    if mv.is_capture() {
        seen.captures += 1;
        if mv.capture_count() > 1 {
            seen.multi += 1;
        }
        if is_king_move(pos, mv) {
            seen.king_captures += 1;
        }
        if mv.captured & pos.kings() != 0 {
            seen.kings_taken += 1;
        }
        if mv.captured & (1u64 << mv.to) != 0 {
            seen.ends_on_taken += 1;
        }
    }
    if mv.promote {
        seen.promotions += 1;
        if mv.is_capture() {
            seen.promoting_captures += 1;
        }
    }
}

fn zobrist_along_playouts<R: Rules + PartialEq>() {
    let mut seen = Seen::default();
    let mut rng = XorShift::new(4242);
    for game in 0..120 {
        let mut pos = if game % 2 == 0 {
            Position::<R>::start()
        } else {
            random_position::<R>(&mut rng)
        };
        assert_eq!(pos.key(), pos.compute_key());
        for _ in 0..200 {
            let list = legal(&pos);
            if list.is_empty() {
                break;
            }
            for mv in list.iter() {
                check_keys_after(&pos, mv, &mut seen);
            }
            pos = pos.played(&list[rng.below(list.len())]);
        }
    }
    assert!(seen.captures > 100, "{}: {seen:?}", R::NAME);
    assert!(seen.multi > 10, "{}: {seen:?}", R::NAME);
    assert!(seen.promotions > 10, "{}: {seen:?}", R::NAME);
    assert!(seen.promoting_captures > 0, "{}: {seen:?}", R::NAME);
    assert!(seen.king_captures > 10, "{}: {seen:?}", R::NAME);
    assert!(seen.kings_taken > 10, "{}: {seen:?}", R::NAME);
}

/// `has_quiet` (the search's blocked-position test) and `count_quiets`
/// agree with the list of quiet moves, in playouts from the start and from
/// random positions, where blocked sides are common.
fn quiet_tests_agree<R: Rules + PartialEq>() {
    let mut rng = XorShift::new(77);
    let (mut blocked, mut free) = (0, 0);
    for game in 0..200 {
        let mut pos = if game % 2 == 0 {
            Position::<R>::start()
        } else {
            random_position::<R>(&mut rng)
        };
        for _ in 0..150 {
            let mut q = MoveList::new();
            quiets(&pos, &mut q);
            assert_eq!(has_quiet(&pos), !q.is_empty(), "{}", write_fen(&pos));
            assert_eq!(count_quiets(&pos), q.len() as u64, "{}", write_fen(&pos));
            if q.is_empty() {
                blocked += 1;
            } else {
                free += 1;
            }
            let list = legal(&pos);
            if list.is_empty() {
                break;
            }
            pos = pos.played(&list[rng.below(list.len())]);
        }
    }
    assert!(blocked > 0 && free > 1000, "{}: {blocked} {free}", R::NAME);
}

#[test]
fn quiet_move_tests_agree_with_the_list() {
    each_variant!(R => quiet_tests_agree::<R>());
}

#[test]
fn zobrist_key_is_updated_incrementally() {
    each_variant!(R => zobrist_along_playouts::<R>());
}

/// Turkish pieces leave the board as they are jumped, so a king can end its
/// capture on the square of a piece it took: a1 up over a2 to a5, over c5 to
/// d5, down over d3 to d2, left over b2 onto a2.
#[test]
fn turkish_capture_ending_on_a_taken_square() {
    let pos = parse_fen::<Turkish>("W:WKa1:Ba2,b2,c5,d3,h8").unwrap();
    let list = legal(&pos);
    assert_eq!(list.len(), 1, "{list:?}");
    let mv = list[0];
    assert_eq!(mv.capture_count(), 4);
    assert_ne!(mv.captured & (1u64 << mv.to), 0, "ends on a taken square");
    let mut seen = Seen::default();
    check_keys_after(&pos, &mv, &mut seen);
    let child = pos.played(&mv);
    assert_eq!(write_fen(&child), "B:WKa2:Bh8");
    assert_eq!(parse_move(&pos, "a1xa2"), Ok(mv));
}

// ---------------------------------------------------------------------------
// 2. Threefold repetition

/// Two king squares for each side that a king steps between without ever
/// meeting the other side's king on a line.
fn shuffle_squares<R: Rules>() -> [(Bitboard, Bitboard); 2] {
    let (w, h) = (R::Geo::WIDTH, R::Geo::HEIGHT);
    if R::Geo::DIAGONAL {
        // a1-b2 and, at the top, d8-e7 (d10-e9 on 10x10): no shared diagonal.
        [
            (at::<R>(0, 0), at::<R>(1, 1)),
            (at::<R>(3, h - 1), at::<R>(4, h - 2)),
        ]
    } else {
        // a1-b1 and h8-g8: no shared rank or file.
        [
            (at::<R>(0, 0), at::<R>(1, 0)),
            (at::<R>(w - 1, h - 1), at::<R>(w - 2, h - 1)),
        ]
    }
}

fn threefold<R: Rules + PartialEq>() {
    let [(w0, w1), (b0, b1)] = shuffle_squares::<R>();
    let start = Position::<R>::from_parts(w0, b0, w0 | b0, Color::White);
    let mut game = Game::new(start);
    let mut reps = vec![game.repetitions()];
    let mut outcomes = vec![game.outcome()];
    for ply in 0..8 {
        let pos = *game.position();
        let (from, to) = match ply % 4 {
            0 => (w0, w1),
            1 => (b0, b1),
            2 => (w1, w0),
            _ => (b1, b0),
        };
        let mv = quiet_move(&pos, from, to);
        game.play(&mv);
        reps.push(game.repetitions());
        outcomes.push(game.outcome());
    }
    assert_eq!(game.position(), &start, "{}", R::NAME);
    assert_eq!(reps, [1, 1, 1, 1, 2, 2, 2, 2, 3], "{}", R::NAME);
    let mut expect = vec![None; 8];
    expect.push(Some(Outcome::Draw(DrawReason::Repetition)));
    assert_eq!(outcomes, expect, "{}", R::NAME);
    assert_eq!(game.reversible_plies(), 8, "{}", R::NAME);
    assert_eq!(game.history().len(), 8, "{}", R::NAME);
    assert_eq!(game.moves().len(), 8, "{}", R::NAME);
}

#[test]
fn threefold_repetition_on_the_third_occurrence() {
    each_variant!(R => threefold::<R>());
}

/// The same shuffle with Black to move first: the position counted is the
/// one with the same side to move.
fn threefold_black_first<R: Rules + PartialEq>() {
    let [(w0, w1), (b0, b1)] = shuffle_squares::<R>();
    let start = Position::<R>::from_parts(w0, b0, w0 | b0, Color::Black);
    let mut game = Game::new(start);
    let mut draws = Vec::new();
    for ply in 0..12 {
        let pos = *game.position();
        let (from, to) = match ply % 4 {
            0 => (b0, b1),
            1 => (w0, w1),
            2 => (b1, b0),
            _ => (w1, w0),
        };
        game.play(&quiet_move(&pos, from, to));
        if game.outcome().is_some() {
            draws.push(ply + 1);
        }
    }
    // Ply 8 repeats the start a third time; every later ply repeats another
    // position a third time.
    assert_eq!(draws, [8, 9, 10, 11, 12], "{}", R::NAME);
}

#[test]
fn threefold_repetition_with_black_to_move() {
    each_variant!(R => threefold_black_first::<R>());
}

/// Turkish men move sideways, so a position can come back after man moves:
/// the third occurrence is a draw all the same (RULES.md: "the same position
/// (same pieces, same side to move) occurring for the third time").
#[test]
fn turkish_repetition_by_sideways_men() {
    let start = parse_fen::<Turkish>("W:Wd3:Bd6").unwrap();
    let mut game = Game::new(start);
    for (ply, text) in ["d3-e3", "d6-e6", "e3-d3", "e6-d6"]
        .iter()
        .cycle()
        .take(8)
        .enumerate()
    {
        assert_eq!(game.outcome(), None, "before ply {}", ply + 1);
        let mv = parse_move(game.position(), text).unwrap();
        game.play(&mv);
    }
    assert_eq!(game.position(), &start);
    assert_eq!(
        game.outcome(),
        Some(Outcome::Draw(DrawReason::Repetition)),
        "third occurrence of W:Wd3:Bd6 after sideways man moves (repetitions() = {})",
        game.repetitions()
    );
}

// ---------------------------------------------------------------------------
// 3. The N-move rule

#[test]
fn n_move_rule_per_variant() {
    assert_eq!(English::DRAW_MOVES, Some(40));
    assert_eq!(Italian::DRAW_MOVES, Some(50));
    assert_eq!(International::DRAW_MOVES, Some(25));
    assert_eq!(Brazilian::DRAW_MOVES, Some(25));
    assert_eq!(Spanish::DRAW_MOVES, Some(50));
    assert_eq!(Russian::DRAW_MOVES, Some(15));
    assert_eq!(Turkish::DRAW_MOVES, None);
}

/// A line of `plies` king moves from `start` (by both sides), none a capture,
/// through positions that are all different from each other and from
/// `before` (FEN compared) and that offer no capture, ending in a position
/// that satisfies `goal`. Depth-first search in a random move order.
fn king_walk<R: Rules + PartialEq>(
    start: &Position<R>,
    plies: usize,
    before: &HashSet<String>,
    goal: &dyn Fn(&Position<R>) -> bool,
    seed: u64,
) -> Option<Vec<Move>> {
    let mut rng = XorShift::new(seed);
    let candidates = |pos: &Position<R>, rng: &mut XorShift| {
        let mut v: Vec<Move> = legal(pos)
            .iter()
            .filter(|m| !m.is_capture() && is_king_move(pos, m))
            .copied()
            .collect();
        for i in (1..v.len()).rev() {
            v.swap(i, rng.below(i + 1));
        }
        v
    };
    let mut seen = before.clone();
    seen.insert(write_fen(start));
    let mut stack = vec![(*start, candidates(start, &mut rng), 0usize)];
    let mut line: Vec<Move> = Vec::new();
    let mut budget = 300_000usize;
    while line.len() < plies {
        budget = budget.checked_sub(1)?;
        let top = stack.last_mut()?;
        if top.2 == top.1.len() {
            let (pos, _, _) = stack.pop()?;
            seen.remove(&write_fen(&pos));
            line.pop();
            continue;
        }
        let mv = top.1[top.2];
        top.2 += 1;
        let child = top.0.played(&mv);
        let fen = write_fen(&child);
        if seen.contains(&fen) {
            continue;
        }
        let ok = if line.len() + 1 == plies {
            goal(&child)
        } else {
            calm(&child)
        };
        if !ok {
            continue;
        }
        seen.insert(fen);
        line.push(mv);
        let next = candidates(&child, &mut rng);
        stack.push((child, next, 0));
    }
    Some(line)
}

/// [`king_walk`], which must succeed.
fn walk<R: Rules + PartialEq>(
    start: &Position<R>,
    plies: usize,
    goal: &dyn Fn(&Position<R>) -> bool,
    seed: u64,
) -> Vec<Move> {
    king_walk(start, plies, &HashSet::new(), goal, seed).unwrap_or_else(|| {
        panic!(
            "{}: no king walk of {plies} plies from {}",
            R::NAME,
            write_fen(start)
        )
    })
}

/// Kings in the corners, White to move: White on a1 and c1, Black on the
/// far corner and two squares from it; plus the men `white_men` and
/// `black_men`.
fn corner_kings<R: Rules + PartialEq>(white_men: Bitboard, black_men: Bitboard) -> Position<R> {
    let (w, h) = (R::Geo::WIDTH, R::Geo::HEIGHT);
    let white = at::<R>(0, 0) | at::<R>(2, 0);
    let black = at::<R>(w - 1, h - 1) | at::<R>(w - 3, h - 1);
    Position::from_parts(
        white | white_men,
        black | black_men,
        white | black,
        Color::White,
    )
}

/// Plays `line` in `game`, checking after each ply that the counter grows,
/// that no position repeats, and that the game is drawn by the move rule
/// exactly when the counter reaches `2 * N`.
fn play_reversible<R: Rules + PartialEq>(game: &mut Game<R>, line: &[Move], counted: u32) {
    let limit = R::DRAW_MOVES.map(|n| 2 * n);
    for (i, mv) in line.iter().enumerate() {
        assert!(
            !game.position().is_irreversible(mv),
            "{}: the walk has an irreversible move",
            R::NAME
        );
        game.play(mv);
        let plies = counted + i as u32 + 1;
        assert_eq!(game.reversible_plies(), plies, "{}", R::NAME);
        assert_eq!(game.repetitions(), 1, "{}: a position repeats", R::NAME);
        let expect = match limit {
            Some(l) if plies >= l => Some(Outcome::Draw(DrawReason::MoveRule)),
            _ => None,
        };
        assert_eq!(
            game.outcome(),
            expect,
            "{}: after {plies} reversible plies in {}",
            R::NAME,
            write_fen(game.position())
        );
    }
}

fn move_rule_draw<R: Rules + PartialEq>() {
    let start = corner_kings::<R>(0, 0);
    let plies = R::DRAW_MOVES.map_or(200, |n| 2 * n as usize);
    let line = walk(&start, plies, &|p| calm(p), 1);
    let mut game = Game::new(start);
    assert_eq!(game.outcome(), None);
    play_reversible(&mut game, &line, 0);
    if R::DRAW_MOVES.is_none() {
        assert_eq!(game.outcome(), None, "{}: no N-move rule", R::NAME);
    }
}

#[test]
fn move_rule_draw_after_2n_reversible_plies() {
    each_variant!(R => move_rule_draw::<R>());
}

/// A man move resets the counter; a full 2N reversible plies are needed
/// after it.
fn man_move_resets<R: Rules + PartialEq>() {
    let Some(n) = R::DRAW_MOVES else { return };
    let h = R::Geo::HEIGHT;
    // A Black man in the middle of the board, on its own.
    let file = if R::Geo::DIAGONAL { (h / 2) % 2 } else { 3 };
    let man = at::<R>(file + 2, h / 2);
    let start = corner_kings::<R>(0, man);
    let man_moves = |p: &Position<R>| -> Vec<Move> {
        legal(p)
            .iter()
            .filter(|m| !is_king_move(p, m) && !m.is_capture() && calm(&p.played(m)))
            .copied()
            .collect()
    };
    let first = 2 * n as usize - 1;
    let line = walk(&start, first, &|p| !man_moves(p).is_empty(), 2);
    let mut game = Game::new(start);
    play_reversible(&mut game, &line, 0);
    assert_eq!(game.reversible_plies(), 2 * n - 1);
    let mv = man_moves(game.position())[0];
    assert!(game.position().is_irreversible(&mv));
    game.play(&mv);
    assert_eq!(game.reversible_plies(), 0, "{}: a man move resets", R::NAME);
    assert_eq!(game.outcome(), None, "{}", R::NAME);
    // Positions before a man move cannot come back.
    let line = walk(game.position(), 2 * n as usize, &|p| calm(p), 3);
    play_reversible(&mut game, &line, 0);
}

#[test]
fn man_move_resets_the_counter() {
    each_variant!(R => man_move_resets::<R>());
}

/// A capture resets the counter.
fn capture_resets<R: Rules + PartialEq>() {
    let Some(n) = R::DRAW_MOVES else { return };
    let (w, h) = (R::Geo::WIDTH, R::Geo::HEIGHT);
    // A third king each, away from the corners.
    let extra_w = at::<R>(w - 2, 0);
    let extra_b = at::<R>(1, h - 1);
    let white = at::<R>(0, 0) | at::<R>(2, 0) | extra_w;
    let black = at::<R>(w - 1, h - 1) | at::<R>(w - 3, h - 1) | extra_b;
    let start = Position::<R>::from_parts(white, black, white | black, Color::White);
    let captures = |p: &Position<R>| -> Vec<Move> {
        legal(p)
            .iter()
            .filter(|m| m.is_capture() && calm(&p.played(m)))
            .copied()
            .collect()
    };
    // Some captures leave the losing side with no safe way to go on for 2N
    // plies; try walks until one does.
    let first = 2 * n as usize - 1;
    for seed in 10..40 {
        let Some(line) = king_walk(
            &start,
            first,
            &HashSet::new(),
            &|p| !captures(p).is_empty(),
            seed,
        ) else {
            continue;
        };
        let mut end = start;
        for mv in &line {
            end = end.played(mv);
        }
        for mv in captures(&end) {
            // Positions before a capture cannot come back.
            let after = end.played(&mv);
            let Some(rest) = king_walk(&after, 2 * n as usize, &HashSet::new(), &|p| calm(p), seed)
            else {
                continue;
            };
            let mut game = Game::new(start);
            play_reversible(&mut game, &line, 0);
            game.play(&mv);
            assert_eq!(game.reversible_plies(), 0, "{}: a capture resets", R::NAME);
            assert_eq!(game.outcome(), None, "{}", R::NAME);
            play_reversible(&mut game, &rest, 0);
            return;
        }
    }
    panic!("{}: found no capture with 2N calm plies after it", R::NAME);
}

#[test]
fn capture_resets_the_counter() {
    each_variant!(R => capture_resets::<R>());
}

/// The draw needs 2N plies: N moves by each side, whichever side starts.
#[test]
fn move_rule_counts_plies_not_moves() {
    // Russian, N = 15: 29 reversible plies are not enough, 30 are.
    let start = corner_kings::<Russian>(0, 0).with_side(Color::Black);
    let line = walk(&start, 30, &|p| calm(p), 6);
    let mut game = Game::new(start);
    for (i, mv) in line.iter().enumerate() {
        game.play(mv);
        let drawn = game.outcome() == Some(Outcome::Draw(DrawReason::MoveRule));
        assert_eq!(drawn, i + 1 == 30, "after {} plies", i + 1);
    }
}

// ---------------------------------------------------------------------------
// 4. No pieces or no legal move: the side to move loses

fn no_moves<R: Rules + PartialEq>() {
    // A White man in the corner, blocked by a Black piece that it cannot
    // jump because the square behind is taken too.
    let (man, block) = if R::Geo::DIAGONAL {
        (at::<R>(0, 0), at::<R>(1, 1) | at::<R>(2, 2))
    } else {
        (
            at::<R>(0, 0),
            at::<R>(0, 1) | at::<R>(0, 2) | at::<R>(1, 0) | at::<R>(2, 0),
        )
    };
    let pos = Position::<R>::from_parts(man, block, 0, Color::White);
    assert!(legal(&pos).is_empty(), "{}: {}", R::NAME, write_fen(&pos));
    assert_eq!(
        Game::new(pos).outcome(),
        Some(Outcome::Win(Color::Black)),
        "{}: blocked man",
        R::NAME
    );
    // The same pieces with Black to move: Black can move, nothing is over.
    assert_eq!(
        Game::new(pos.with_side(Color::Black)).outcome(),
        None,
        "{}",
        R::NAME
    );

    // No pieces at all for the side to move.
    let lone = at::<R>(2, 2);
    for (pos, winner) in [
        (
            Position::<R>::from_parts(0, lone, 0, Color::White),
            Color::Black,
        ),
        (
            Position::<R>::from_parts(lone, 0, lone, Color::Black),
            Color::White,
        ),
    ] {
        assert_eq!(
            Game::new(pos).outcome(),
            Some(Outcome::Win(winner)),
            "{}: no pieces in {}",
            R::NAME,
            write_fen(&pos)
        );
    }

    // Taking the last piece wins at once.
    let (m, victim) = if R::Geo::DIAGONAL {
        (at::<R>(2, 2), at::<R>(3, 3))
    } else {
        (at::<R>(3, 2), at::<R>(3, 3))
    };
    let pos = Position::<R>::from_parts(m, victim, 0, Color::White);
    let list = legal(&pos);
    assert_eq!(list.len(), 1, "{}: {}", R::NAME, write_fen(&pos));
    assert!(list[0].is_capture());
    let mut game = Game::new(pos);
    assert_eq!(game.outcome(), None);
    game.play(&list[0]);
    assert_eq!(game.position().count(Color::Black), 0);
    assert_eq!(
        game.outcome(),
        Some(Outcome::Win(Color::White)),
        "{}",
        R::NAME
    );
}

#[test]
fn side_without_moves_or_pieces_loses() {
    each_variant!(R => no_moves::<R>());
}

/// Blocked positions written in each variant's own notation.
#[test]
fn blocked_positions_by_fen() {
    fn lost<R: Rules + PartialEq>(fen: &str, winner: Color) {
        let pos = parse_fen::<R>(fen).unwrap();
        assert!(legal(&pos).is_empty(), "{}: {fen} has moves", R::NAME);
        assert_eq!(
            Game::new(pos).outcome(),
            Some(Outcome::Win(winner)),
            "{}: {fen}",
            R::NAME
        );
    }
    // 46 = a1, 41 = b2, 37 = c3.
    lost::<International>("W:W46:B37,41", Color::Black);
    // English: Black man on 28 (h2) against White's man on 32 (g1): the jump
    // would leave the board.
    lost::<English>("B:W32:B28", Color::White);
    // Italian: 32 = h1, 28 = g2, 23 = f3.
    lost::<Italian>("W:W32:B23,28", Color::Black);
    // Spanish: 1 = h1, 5 = g2, 10 = f3.
    lost::<Spanish>("W:W1:B5,10", Color::Black);
    lost::<Russian>("W:Wa1:Bb2,c3", Color::Black);
    lost::<Brazilian>("W:Wa1:Bb2,c3", Color::Black);
    lost::<Turkish>("W:Wa1:Ba2,a3,Kb1,Kc1", Color::Black);
    // Kings can be blocked too: an English king in the corner.
    lost::<English>("W:WK29:B22,25,18", Color::Black);
    // And a side with no pieces.
    lost::<International>("B:W28", Color::White);
    lost::<Turkish>("W:B", Color::Black);
}

// ---------------------------------------------------------------------------
// 5. Random games against an independent referee

#[derive(Default, Debug)]
struct Endings {
    wins: usize,
    repetitions: usize,
    move_rule: usize,
    unfinished: usize,
}

/// FMJD art. 6.4-6.5, International only: a lone king against three
/// pieces with a king draws after 16 moves each, against one or two pieces
/// with a king after 5 moves each, counted from the last capture.
fn fmjd_endgame_limit<R: Rules>(pos: &Position<R>) -> Option<u32> {
    if R::NAME != "international" {
        return None;
    }
    for weak in [Color::White, Color::Black] {
        let strong = weak.flip();
        let lone_king = pos.men(weak) == 0 && pos.kings_of(weak).count_ones() == 1;
        let n = pos.pieces(strong).count_ones();
        if lone_king && pos.kings_of(strong) != 0 {
            match n {
                3 => return Some(16),
                1 | 2 => return Some(5),
                _ => {}
            }
        }
    }
    None
}

/// Plays random games with `Game` and compares its verdict after every ply
/// with one worked out here from the FENs of all positions so far.
fn referee<R: Rules + PartialEq>(endings: &mut Endings) {
    let mut rng = XorShift::new(99);
    for game_no in 0..150 {
        let start = if game_no % 3 == 0 {
            Position::<R>::start()
        } else {
            random_position::<R>(&mut rng)
        };
        let mut game = Game::new(start);
        let mut fens = vec![write_fen(&start)];
        let mut counter = 0u32;
        let mut since_capture = 0u32;
        let mut finished = false;
        let careful = game_no % 3 != 1;
        for _ in 0..400 {
            let pos = *game.position();
            let list = legal(&pos);
            let here = fens.last().expect("non-empty");
            let occurrences = fens.iter().filter(|f| *f == here).count();
            let expect = if list.is_empty() {
                Some(Outcome::Win(pos.side().flip()))
            } else if occurrences >= 3 {
                Some(Outcome::Draw(DrawReason::Repetition))
            } else if R::DRAW_MOVES.is_some_and(|n| counter >= 2 * n)
                || fmjd_endgame_limit::<R>(&pos).is_some_and(|n| since_capture >= 2 * n)
            {
                Some(Outcome::Draw(DrawReason::MoveRule))
            } else {
                None
            };
            assert_eq!(game.reversible_plies(), counter, "{}", R::NAME);
            assert_eq!(
                game.outcome(),
                expect,
                "{}: game {game_no}, position {} (occurrences {occurrences}, counter {counter})",
                R::NAME,
                here
            );
            match expect {
                Some(Outcome::Win(_)) => endings.wins += 1,
                Some(Outcome::Draw(DrawReason::Repetition)) => endings.repetitions += 1,
                Some(Outcome::Draw(DrawReason::MoveRule)) => endings.move_rule += 1,
                None => {}
            }
            if expect.is_some() {
                finished = true;
                break;
            }
            let mv = if careful {
                // Random among the moves after which the opponent has no
                // capture, when there are such moves: long king endings.
                let safe: Vec<Move> = list
                    .iter()
                    .filter(|m| !has_capture(&pos.played(m)))
                    .copied()
                    .collect();
                if safe.is_empty() {
                    list[rng.below(list.len())]
                } else {
                    safe[rng.below(safe.len())]
                }
            } else {
                list[rng.below(list.len())]
            };
            let man = pos.kings() & (1u64 << mv.from) == 0;
            // A man's step forward cannot be undone; a Turkish man's
            // sideways step can.
            let rank = |bit: u8| R::Geo::coords(R::Geo::square(1u64 << bit)).1;
            let forward = man && rank(mv.from) != rank(mv.to);
            since_capture = if mv.is_capture() {
                0
            } else {
                since_capture + 1
            };
            counter = if mv.is_capture() || forward {
                0
            } else {
                counter + 1
            };
            game.play(&mv);
            fens.push(write_fen(game.position()));
        }
        if !finished {
            endings.unfinished += 1;
        }
    }
}

#[test]
fn random_games_agree_with_a_referee() {
    let mut endings = Endings::default();
    for v in Variant::ALL {
        if v != Variant::Turkish {
            with_rules!(v, R => referee::<R>(&mut endings));
        }
    }
    eprintln!("{endings:?}");
    assert!(endings.wins > 50, "{endings:?}");
    assert!(endings.repetitions > 10, "{endings:?}");
    assert!(endings.move_rule > 10, "{endings:?}");
}

/// Turkish on its own: men moving sideways can bring a position back.
#[test]
fn turkish_random_games_agree_with_a_referee() {
    let mut endings = Endings::default();
    referee::<Turkish>(&mut endings);
    assert!(endings.wins > 10, "{endings:?}");
    assert!(endings.repetitions > 0, "{endings:?}");
    assert_eq!(endings.move_rule, 0, "{endings:?}");
}
