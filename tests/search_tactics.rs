//! The search finds tactics and reports won and lost positions with exact
//! distances, in every variant.
//!
//! Every position here is constructed for this file: a quiet sacrifice that
//! forces the opponent's capture and opens a multi-capture (or a capture of
//! everything left). Each position is checked twice: a small, independent
//! material-only minimax (written here, using only the move generator) must
//! rank the expected move strictly first, so the position really is a shot;
//! then the engine, at a modest fixed depth on one thread, must play it
//! with a clearly positive score.
//!
//! Squares are each variant's own notation: English and International
//! numbers from the top left as White sees the board; Italian numbers on the
//! turned board (1 = a8 ... 32 = h1); Spanish numbers from White's lower
//! right (1 = h1 ... 32 = a8); algebraic for Russian, Brazilian and Turkish.
//! Where a doc comment describes a position algebraically it uses the
//! geometry's own squares (a1 dark), which for Italian and Spanish are those
//! of the mirrored board the engine holds.

use kondavo::eval::Evaluate;
use kondavo::movegen::{generate, Move, MoveList};
use kondavo::notation::fen::{parse_fen, write_fen};
use kondavo::notation::movetext::{line_to_pdn, move_to_pdn, parse_move};
use kondavo::position::Position;
use kondavo::rules::{
    Brazilian, Color, English, International, Italian, Rules, Russian, Spanish, Turkish,
};
use kondavo::search::threads::Searcher;
use kondavo::search::{Limits, SearchResult, WIN, WIN_BOUND};
use kondavo::tools::search::job;

// ---------------------------------------------------------------------------
// Helpers

fn legal<R: Rules>(pos: &Position<R>) -> MoveList {
    let mut list = MoveList::new();
    generate(pos, &mut list);
    list
}

fn fen<R: Rules>(text: &str) -> Position<R> {
    parse_fen::<R>(text).unwrap_or_else(|e| panic!("{} {text}: {e}", R::NAME))
}

/// Material for the side to move: men 100, kings 300.
fn material<R: Rules>(pos: &Position<R>) -> i32 {
    let side =
        |c: Color| 100 * pos.men(c).count_ones() as i32 + 300 * pos.kings_of(c).count_ones() as i32;
    side(pos.side()) - side(pos.side().flip())
}

/// Score of a lost position in [`minimax`]: beyond any material.
const MM_LOSS: i32 = -100_000;

/// Material-only negamax to `depth` plies; captures are always followed
/// (a position with a capture to make is never a leaf). Independent of the
/// engine's search and evaluation.
fn minimax<R: Rules>(pos: &Position<R>, depth: i32, mut alpha: i32, beta: i32) -> i32 {
    let list = legal(pos);
    if list.is_empty() {
        return MM_LOSS;
    }
    if depth <= 0 && !list[0].is_capture() {
        return material(pos);
    }
    let mut best = MM_LOSS - 1;
    for mv in &list {
        let s = -minimax(&pos.played(mv), depth - 1, -beta, -alpha);
        if s > best {
            best = s;
            alpha = alpha.max(s);
            if alpha >= beta {
                break;
            }
        }
    }
    best
}

/// Each legal move of `pos` in PDN with its material minimax score after
/// `depth` plies in all (the move included).
fn material_scores<R: Rules>(pos: &Position<R>, depth: i32) -> Vec<(String, i32)> {
    legal(pos)
        .iter()
        .map(|mv| {
            let s = -minimax(&pos.played(mv), depth - 1, -i32::MAX, i32::MAX);
            (move_to_pdn(pos, mv), s)
        })
        .collect()
}

fn search<R: Evaluate>(pos: Position<R>, limits: Limits) -> SearchResult {
    let mut searcher = Searcher::<R>::new(1, 16);
    searcher.search(&job(pos, limits, 1), &mut |_| {})
}

/// Asserts that every move of `line` is legal in turn from `pos`.
fn assert_line_legal<R: Rules>(pos: &Position<R>, line: &[Move], what: &str) {
    let mut p = *pos;
    for (i, mv) in line.iter().enumerate() {
        assert!(
            legal(&p).contains(mv),
            "{} {}: {what} move {i} ({mv:?}) is illegal in {}",
            R::NAME,
            write_fen(pos),
            write_fen(&p)
        );
        p.play(mv);
    }
}

/// Depth of the engine searches of the tactics.
const TACTIC_DEPTH: i32 = 6;
/// Plies of the material check (the sacrifice, the forced capture, the
/// combination and a little more).
const MATERIAL_DEPTH: i32 = 6;
/// What "clearly positive" means: more than a man in the opening. The
/// learned weights value a man less as the men come off (Italian: 41
/// centi-men with none left), so a gain of two men late in a game can score
/// under 150.
const CLEAR_GAIN: i32 = 100;

/// Checks a shot: `expected` is the only move with the best material
/// outcome, it is a quiet move, the reply is a forced capture, and the engine
/// plays it with a clearly positive score (or a win).
fn assert_shot<R: Evaluate>(fen_text: &str, expected: &str) {
    let pos = fen::<R>(fen_text);
    let key = parse_move(&pos, expected)
        .unwrap_or_else(|e| panic!("{} {fen_text}: expected move: {e}", R::NAME));
    assert!(!key.is_capture(), "{expected} should be a quiet sacrifice");
    let replies = legal(&pos.played(&key));
    assert!(
        !replies.is_empty() && replies.iter().all(|m| m.is_capture()),
        "{} {fen_text}: {expected} should force a capture",
        R::NAME
    );

    // The position is what it claims to be.
    let scores = material_scores(&pos, MATERIAL_DEPTH);
    let best = scores.iter().map(|s| s.1).max().unwrap();
    let winners: Vec<&String> = scores
        .iter()
        .filter(|s| s.1 == best)
        .map(|s| &s.0)
        .collect();
    assert_eq!(
        winners,
        vec![expected],
        "{} {fen_text}: material minimax does not single out {expected}: {scores:?}",
        R::NAME
    );
    assert!(best >= 100, "{} {fen_text}: {scores:?}", R::NAME);

    // The engine finds it.
    let r = search(pos, Limits::depth(TACTIC_DEPTH));
    let got = r.best.map(|m| move_to_pdn(&pos, &m));
    assert_eq!(
        got.as_deref(),
        Some(expected),
        "{} {fen_text}: engine pv {:?} score {}",
        R::NAME,
        line_to_pdn(&pos, &r.pv),
        r.score
    );
    assert!(
        r.score > CLEAR_GAIN,
        "{} {fen_text}: score {} after {expected} is not clearly positive",
        R::NAME,
        r.score
    );
    assert_eq!(r.pv.first(), r.best.as_ref());
    assert_line_legal(&pos, &r.pv, "pv");
}

// ---------------------------------------------------------------------------
// 1. Tactics, two or more per variant (all constructed)

/// English, constructed: "give one, take three". White 26-22 (d2-c3); Black
/// must take 17x26 (b4xd2; 18x25 is blocked by the man on 25) and White's
/// man on 31 (e1) jumps 26, 18 and 11 (d2, d4, f6) to 8 (g7).
#[test]
fn english_give_one_take_three() {
    assert_shot::<English>("W:W25,26,28,31,32:B5,6,11,17,18", "26-22");
}

/// English, constructed: the same shot for Black, the side that moves
/// first in English. Black 7-11 (e7-f6), White 16x7, and 2 (d8) jumps 7, 15
/// and 22 to 25.
#[test]
fn english_give_one_take_three_black() {
    assert_shot::<English>("B:W15,16,22,27,28:B1,2,5,7,8", "7-11");
}

/// English, constructed: Black gives one man and takes White's last two.
/// 16-19 (g5-f4), 23x16 (e3xg5) forced, 12x28 (h6xf4xh2) and White has
/// nothing left: a win in three plies.
#[test]
fn english_endgame_shot_wins() {
    assert_shot::<English>("B:W23,24:B12,15,16", "16-19");
    let r = search(fen::<English>("B:W23,24:B12,15,16"), Limits::depth(4));
    assert_eq!(r.score, WIN - 3);
}

/// Italian, constructed: give one, take three (the English shot on the
/// turned board). 27-23, 20x27 is the only capture, and 30 jumps three men
/// to 5.
#[test]
fn italian_give_one_take_three() {
    assert_shot::<Italian>("W:W25,27,28,29,30:B7,8,10,19,20", "27-23");
}

/// Italian, constructed: 20-15 gives one man, 11x20 is forced, 24x8 takes
/// both black men: a win in three plies.
#[test]
fn italian_endgame_shot_wins() {
    assert_shot::<Italian>("W:W19,20,24:B11,12", "20-15");
    let r = search(fen::<Italian>("W:W19,20,24:B11,12"), Limits::depth(4));
    assert_eq!(r.score, WIN - 3);
}

/// Spanish, constructed: give one, take three, for Black. 27-23, 20x27,
/// and 30 jumps three men to 5.
#[test]
fn spanish_give_one_take_three_black() {
    assert_shot::<Spanish>("B:W7,8,10,19,20:B25,27,28,29,30", "27-23");
}

/// Spanish, constructed: 13-18 gives one, 22x13 is forced, 9x25 takes both
/// black men: a win in three plies.
#[test]
fn spanish_endgame_shot_wins() {
    assert_shot::<Spanish>("W:W9,13,14:B21,22", "13-18");
    let r = search(fen::<Spanish>("W:W9,13,14:B21,22"), Limits::depth(4));
    assert_eq!(r.score, WIN - 3);
}

/// Russian, constructed: give one, take three. d2-c3, b4:d2 is the only
/// capture (d4:b2 is blocked), e1:c3:e5:g7.
#[test]
fn russian_give_one_take_three() {
    assert_shot::<Russian>("W:We1,g1,b2,d2,h2:Bb4,d4,f6,a7,c7", "d2-c3");
}

/// Russian, constructed, a Russian rule at work: f6-e7 gives a man, d8:f6
/// is forced, and b6:d8 crowns in the middle of the capture and goes on as
/// a king: d8:g5:d2 (three men). In Brazilian the man would stop as a man
/// after one capture.
#[test]
fn russian_shot_with_promotion_in_passing() {
    assert_shot::<Russian>("W:Wg1,h2,a5,b6,f6:Be3,h6,c7,b8,d8", "f6-e7");
    let pos = fen::<Russian>("W:Wg1,h2,a5,b6,f6:Be3,h6,c7,b8,d8");
    let after = pos.played(&parse_move(&pos, "f6-e7").unwrap());
    let after = after.played(&parse_move(&after, "d8:f6").unwrap());
    let replies = legal(&after);
    assert!(replies.iter().all(|m| m.capture_count() == 3 && m.promote));
}

/// Russian, constructed: the endgame shot for Black. g5-f4, e3:g5 forced,
/// h6:f4:h2 takes White's last two men.
#[test]
fn russian_endgame_shot_wins_black() {
    assert_shot::<Russian>("B:We3,g3:Be5,g5,h6", "g5-f4");
    let r = search(fen::<Russian>("B:We3,g3:Be5,g5,h6"), Limits::depth(4));
    assert_eq!(r.score, WIN - 3);
}

/// Brazilian, constructed: give one, take three, for Black. e7-f6, g5xe7
/// forced, d8xf6xd4xb2.
#[test]
fn brazilian_give_one_take_three_black() {
    assert_shot::<Brazilian>("B:Wf2,h2,c3,e5,g5:Ba7,e7,g7,b8,d8", "e7-f6");
}

/// Brazilian, constructed: b4-c5, d6xb4 forced (b6xd4 is blocked),
/// a3xc5xa7 takes both black men.
#[test]
fn brazilian_endgame_shot_wins() {
    assert_shot::<Brazilian>("W:Wa3,b4,d4:Bb6,d6", "b4-c5");
    let r = search(fen::<Brazilian>("W:Wa3,b4,d4:Bb6,d6"), Limits::depth(4));
    assert_eq!(r.score, WIN - 3);
}

/// International, constructed: give one, take four. 42-37 (d2-c3), 31x42
/// (b4xd2) is the only capture (32x41 is blocked), and 48 (e1) jumps 42, 32,
/// 23 and 14 to 10 (i9).
#[test]
fn international_give_one_take_four() {
    assert_shot::<International>("W:W41,42,44,45,46,48,49:B6,7,8,14,23,31,32", "42-37");
}

/// International, constructed: a king shot. The king on 46 (a1) is blocked
/// by its own man on 37; 37-32 (c3-d4) gives that man, 28x37 (e5xc3) puts a
/// black man on the long diagonal and empties 28, and the king takes three:
/// 46x10 (over 37, 23 and 14).
#[test]
fn international_king_shot() {
    assert_shot::<International>("W:W37,40,44,45,K46,49:B2,11,14,16,17,23,28", "37-32");
}

/// Turkish, constructed: d4-d5 gives a man, d6xd4 is the only capture
/// (e5xd5 and c5xd5 are blocked; d4xd2 is blocked by the man on d2), and
/// d3 takes three: d3xd5xf5xf7 (majority: the route over e5 and f6).
#[test]
fn turkish_give_one_take_three() {
    assert_shot::<Turkish>("W:Wa2,b2,d2,g2,h2,d3,d4:Bc5,e5,d6,f6,a7,b7,h7", "d4-d5");
}

/// Turkish, constructed: the man on c4 blocks its own king on a4. c4-c5,
/// c6xc4 forced, and the king takes c4 along the fourth rank and turns up
/// the f-file to take f5: nothing is left to Black.
#[test]
fn turkish_king_shot_wins() {
    assert_shot::<Turkish>("W:WKa4,c4:Bf5,c6", "c4-c5");
    let r = search(fen::<Turkish>("W:WKa4,c4:Bf5,c6"), Limits::depth(4));
    assert_eq!(r.score, WIN - 3);
}

// ---------------------------------------------------------------------------
// 2. Win and loss scores

/// Searches each position of the engine's own line from `fen_text` and
/// checks that the distance to the end shrinks by one per ply. `first` is
/// the root's distance, positive when the side to move wins in that many
/// plies, negative when it loses in that many: after the winner's move the
/// loser is lost in one ply less, after the loser's move the winner wins in
/// one ply less, down to a final position with no legal move.
fn assert_distance_walk<R: Evaluate>(fen_text: &str, first: i32, depth: i32) {
    let mut pos = fen::<R>(fen_text);
    let mut dist = first;
    let mut played = Vec::new();
    while dist != 0 {
        let r = search(pos, Limits::depth(depth));
        let want = if dist > 0 { WIN - dist } else { -WIN - dist };
        assert_eq!(
            r.score,
            want,
            "{} {fen_text} after {played:?}: {} (pv {:?})",
            R::NAME,
            write_fen(&pos),
            line_to_pdn(&pos, &r.pv)
        );
        assert!(r.score.abs() > WIN_BOUND);
        let mv = r.best.expect("a move in a position that is not over");
        assert!(legal(&pos).contains(&mv));
        played.push(move_to_pdn(&pos, &mv));
        pos.play(&mv);
        dist = -(dist - dist.signum());
    }
    assert!(
        legal(&pos).is_empty(),
        "{} {fen_text}: the game is not over after {played:?}",
        R::NAME
    );
    let r = search(pos, Limits::depth(depth));
    assert_eq!(r.best, None);
    assert!(r.score < -WIN_BOUND);
}

/// Russian, constructed: two kings against two men. c1:g5 (forced), h6:f4,
/// then the king shuts the last man in on h2: a win in seven plies.
#[test]
fn russian_win_in_seven_counts_down() {
    let r = search(fen::<Russian>("W:WKc1,Ka3:Bf4,h6"), Limits::depth(10));
    assert_eq!(r.score, WIN - 7, "{:?}", r);
    assert_distance_walk::<Russian>("W:WKc1,Ka3:Bf4,h6", 7, 10);
}

/// Turkish, constructed: a lone black man against two kings is lost in six
/// plies whatever it does.
#[test]
fn turkish_lost_position_scores_a_loss() {
    let pos = fen::<Turkish>("B:WKa1,Kh8:Bd5");
    let r = search(pos, Limits::depth(8));
    assert!(r.score < -WIN_BOUND, "score {}", r.score);
    assert_eq!(r.score, -(WIN - 6));
    assert_distance_walk::<Turkish>("B:WKa1,Kh8:Bd5", -6, 8);
}

/// The three-ply shots of section 1 count down to the end in every variant
/// that has one.
#[test]
fn endgame_shots_count_down() {
    assert_distance_walk::<English>("B:W23,24:B12,15,16", 3, 6);
    assert_distance_walk::<Italian>("W:W19,20,24:B11,12", 3, 6);
    assert_distance_walk::<Spanish>("W:W9,13,14:B21,22", 3, 6);
    assert_distance_walk::<Russian>("B:We3,g3:Be5,g5,h6", 3, 6);
    assert_distance_walk::<Brazilian>("W:Wa3,b4,d4:Bb6,d6", 3, 6);
    assert_distance_walk::<Turkish>("W:WKa4,c4:Bf5,c6", 3, 6);
}

/// A win found at one depth is still found, with the same distance, at
/// every deeper depth; a shallower search that cannot see it does not claim
/// it.
#[test]
fn win_distance_is_stable_across_depths() {
    let pos = fen::<Russian>("W:WKc1,Ka3:Bf4,h6");
    for d in 1..=12 {
        let r = search(pos, Limits::depth(d));
        if r.score > WIN_BOUND {
            assert_eq!(r.score, WIN - 7, "depth {d}");
        } else {
            assert!(d < 7, "depth {d}: score {} should be a win", r.score);
        }
    }
}

/// Positions already over: no move, a loss score, whoever has no move.
#[test]
fn no_move_is_a_loss() {
    // White has no pieces.
    let r = search(fen::<International>("W:W:B1,2"), Limits::depth(3));
    assert_eq!((r.best, r.score), (None, -WIN));
    // White's man on a1 is blocked (b2 taken, c3 behind it too).
    let r = search(fen::<Russian>("W:Wa1:Bb2,c3"), Limits::depth(3));
    assert_eq!((r.best, r.score), (None, -WIN));
    // Black to move with no pieces.
    let r = search(fen::<Turkish>("B:Wa2:B"), Limits::depth(3));
    assert_eq!((r.best, r.score), (None, -WIN));
}

/// The side that can capture everything at once scores a win in one.
#[test]
fn capture_of_everything_is_win_in_one() {
    let pos = fen::<Russian>("W:WKa1:Bd4,g7");
    let r = search(pos, Limits::depth(5));
    assert_eq!(r.score, WIN - 1);
    assert_eq!(
        r.best.map(|m| move_to_pdn(&pos, &m)).as_deref(),
        Some("a1:h8")
    );
}
