//! Turkish draughts (dama): the rules of `shared/RULES.md` ("Turkish"
//! column and notes), `shared/reference/perft.md` §9 and the Turkish rules
//! file `src/rules/turkish.rs` (mid-capture promotion) checked on exact sets
//! of legal moves.
//!
//! perft.md §9 lists no published rule positions; one generated position
//! (T2) is used with its perft(1), the others are constructed. Squares are
//! algebraic over all 64 squares, a1 at White's lower left; White men move
//! up the board.

use kondavo::movegen::{generate, MoveList};
use kondavo::notation::fen::{parse_fen, write_fen};
use kondavo::notation::movetext::move_to_pdn;
use kondavo::position::Position;
use kondavo::rules::{Color, Turkish};

mod common;
use common::*;

type R = Turkish;

/// Landing squares of every legal capture route, as `from>l1>l2...`, sorted.
fn routes(fen: &str) -> Vec<String> {
    use kondavo::movegen::captures_with_paths;
    use kondavo::notation::bit_name;
    let pos = parse_fen::<R>(fen).unwrap();
    let (list, paths) = captures_with_paths(&pos);
    let mut out: Vec<String> = list
        .iter()
        .zip(paths)
        .map(|(m, p)| {
            let mut s = bit_name::<R>(m.from);
            for b in p {
                s.push('>');
                s.push_str(&bit_name::<R>(b));
            }
            s
        })
        .collect();
    out.sort();
    out
}

/// Men move one square forward or sideways, never backward or diagonally
/// (RULES.md "1 orthogonal, forward or sideways"; perft.md §9). Forward is
/// up for White and down for Black. Constructed.
#[test]
fn men_move_forward_and_sideways() {
    assert_moves::<R>("W:Wd4", &["d4-c4", "d4-d5", "d4-e4"]);
    assert_moves::<R>("B:Bd5", &["d5-c5", "d5-d4", "d5-e5"]);
}

/// Men capture forward: the man on d4 takes d5 but not d3 behind it
/// (RULES.md "forward and sideways, never backward"; perft.md §9 "men never
/// capture backward"). Constructed.
#[test]
fn men_capture_forward_not_backward() {
    assert_moves::<R>("W:Wd4:Bd3,d5", &["d4xd6"]);
}

/// Men capture sideways too, and a Black man's forward is down: Black's d5
/// takes d4 (forward) or c5 (sideways) but not d6 behind it. Constructed.
#[test]
fn men_capture_sideways_never_backward() {
    assert_moves::<R>("B:Wd4,c5,d6:Bd5", &["d5xb5", "d5xd3"]);
    assert_moves::<R>("W:Wd4:Bc4,d3", &["d4xb4"]);
}

/// Men do not capture diagonally: with Black on c5, e5 (diagonal) and d3
/// (behind), the man on d4 has nothing to take and moves. Constructed.
#[test]
fn men_capture_orthogonally_only() {
    assert_moves::<R>("W:Wd4:Bc5,e5,d3", &["d4-c4", "d4-d5", "d4-e4"]);
}

/// The capture taking the most pieces is compulsory, men and kings counting
/// the same: the man on d4 may take the king on d5 (d4xd6) or the men on e4
/// and f5 (d4xf6); two beat one. RULES.md "must take the most pieces".
/// Constructed.
#[test]
fn majority_capture() {
    assert_moves::<R>("W:Wd4:BKd5,e4,f5", &["d4xf6"]);
}

/// Captured pieces are removed one by one as they are jumped, so a king may
/// cross a square emptied earlier in the same chain (RULES.md "removed one
/// by one as they are jumped"; perft.md §9 "all sources agree"). The king
/// on a4 takes c4 (landing on f4), f6 (to f7), d7 (to c7), then runs down
/// the c-file across c4, taken at the first jump, to take c2 and land on
/// c1: four pieces. Were c4 still standing, the longest capture would take
/// three and end on the 7th rank. Constructed.
#[test]
fn captured_pieces_removed_immediately() {
    let fen = "W:WKa4:Bc4,f6,d7,c2";
    assert_moves::<R>(fen, &["a4xc1"]);
    assert_eq!(routes(fen), ["a4>f4>f7>c7>c1"]);
    assert_eq!(write_fen(&after::<R>(fen, "a4xc1")), "B:WKc1:B");
}

/// No 180-degree turn between two jumps (RULES.md "never turns 180 degrees
/// between two jumps"; perft.md §9 "all sources agree"). The king on d4 can
/// take d6 (landing on d7 or d8) or d2 (landing on d1). After taking d6,
/// d6 is gone, and turning back down the d-file would take d2 as well, two
/// pieces, which the majority rule would then force; likewise after d2.
/// The reversal is not allowed, so the three single captures are the legal
/// moves. Constructed.
#[test]
fn no_180_degree_turn() {
    let fen = "W:WKd4:Bd6,d2";
    assert_moves::<R>(fen, &["d4xd1", "d4xd7", "d4xd8"]);
    assert_eq!(routes(fen), ["d4>d1", "d4>d7", "d4>d8"]);
}

/// A king never passes through its own pieces: a king on a8 with its own
/// man on a2 cannot move a8-a1 (perft.md §9: pydraughts' extra leaves are
/// exactly such moves; RULES.md notes). Constructed after perft.md §9's
/// example.
#[test]
fn king_never_passes_own_pieces() {
    assert_moves::<R>(
        "W:WKa8,a2",
        &[
            "a2-a3", "a2-b2", "a8-a3", "a8-a4", "a8-a5", "a8-a6", "a8-a7", "a8-b8", "a8-c8",
            "a8-d8", "a8-e8", "a8-f8", "a8-g8", "a8-h8",
        ],
    );
}

/// Nor does it capture across its own pieces: the king on a8 cannot take
/// a3 behind its own man on a5. Constructed.
#[test]
fn king_never_captures_across_own_pieces() {
    assert_moves::<R>(
        "W:WKa8,a5:Ba3",
        &[
            "a5-a6", "a5-b5", "a8-a6", "a8-a7", "a8-b8", "a8-c8", "a8-d8", "a8-e8", "a8-f8",
            "a8-g8", "a8-h8",
        ],
    );
}

/// Mid-capture promotion as `src/rules/turkish.rs` documents it (RULES.md
/// note: "the man completes the chain as a man and is crowned at the end";
/// kish RULES.md 7.2, pydraughts): the man on c6 takes c7 and reaches c8,
/// then goes on sideways as a man over d8 and f8, and is crowned on g8 when
/// the move ends. Constructed.
#[test]
fn promotion_mid_capture_continues_as_man_then_crowned() {
    let fen = "W:Wc6:Bc7,d8,f8";
    assert_moves::<R>(fen, &["c6xg8"]);
    assert_eq!(routes(fen), ["c6>c8>e8>g8"]);
    let p = after::<R>(fen, "c6xg8");
    assert_eq!(
        p.kings_of(Color::White),
        bit::<R>("g8"),
        "crowned at the end"
    );
    assert_eq!(p.men(Color::White), 0);
    assert_eq!(write_fen(&p), "B:WKg8:B");
}

/// ... and it does not go on as a flying king. The man on c6 takes c7 and
/// d8 and ends on e8 (crowned there). As a king on e8 it could take e6
/// across the empty e7 (a third piece, which the majority rule would make
/// compulsory), and as a flying king it could have landed beyond d8 on f8,
/// g8 or h8; as a man it does neither. Constructed.
#[test]
fn promotion_mid_capture_not_as_flying_king() {
    let fen = "W:Wc6:Bc7,d8,e6";
    assert_moves::<R>(fen, &["c6xe8"]);
    assert_eq!(routes(fen), ["c6>c8>e8"]);
    let p = after::<R>(fen, "c6xe8");
    assert_eq!(p.kings_of(Color::White), bit::<R>("e8"));
    assert_eq!(p.pieces(Color::Black), bit::<R>("e6"), "e6 is not taken");
}

/// The man on the last row jumps only an adjacent piece: on c8 it cannot
/// take e8 across the empty d8 (a flying king could), so the move ends on
/// c8 with one piece taken, and the man is crowned. Constructed.
#[test]
fn promoted_man_does_not_capture_from_a_distance() {
    let fen = "W:Wc6:Bc7,e8";
    assert_moves::<R>(fen, &["c6xc8"]);
    let p = after::<R>(fen, "c6xc8");
    assert_eq!(p.kings_of(Color::White), bit::<R>("c8"));
    assert_eq!(p.pieces(Color::Black), bit::<R>("e8"));
}

/// Kings fly along ranks and files and capture from a distance, landing on
/// any empty square beyond (RULES.md "flies along ranks and files"). The
/// king on a1 takes a3 and lands on a4-a8. Constructed.
#[test]
fn flying_king_captures() {
    assert_moves::<R>("W:WKa1:Ba3", &["a1xa4", "a1xa5", "a1xa6", "a1xa7", "a1xa8"]);
}

/// Generated position T2, perft.md §9 (`W:Wa2,b2,d2,e2,f2,g2,h2,d3,e3,h3,
/// f5,b6,a7,Ka8,Ke8:Bd4,e6,g6,c7,e7,f7,h7`, perft(1) = 1; kish and patched
/// pydraughts agree). The one move is worked out here: d3 takes d4 forward;
/// e8's king faces two black men in a row (e7, e6) and cannot capture.
#[test]
fn generated_t2() {
    assert_moves::<R>(
        "W:Wa2,b2,d2,e2,f2,g2,h2,d3,e3,h3,f5,b6,a7,Ka8,Ke8:Bd4,e6,g6,c7,e7,f7,h7",
        &["d3xd5"],
    );
}

/// The start position: 16 men each on ranks 2-3 and 6-7, White first, 8
/// moves (perft.md §9 start table, perft(1) = 8): only the men on rank 3
/// can move, one square forward.
#[test]
fn start_position() {
    let p = Position::<R>::start();
    assert_eq!(p.side(), Color::White);
    assert_eq!(
        write_fen(&p),
        "W:Wa2,b2,c2,d2,e2,f2,g2,h2,a3,b3,c3,d3,e3,f3,g3,h3:\
         Ba6,b6,c6,d6,e6,f6,g6,h6,a7,b7,c7,d7,e7,f7,g7,h7"
    );
    let mut list = MoveList::new();
    generate(&p, &mut list);
    let mut got: Vec<String> = list.iter().map(|m| move_to_pdn(&p, m)).collect();
    got.sort();
    assert_eq!(
        got,
        ["a3-a4", "b3-b4", "c3-c4", "d3-d4", "e3-e4", "f3-f4", "g3-g4", "h3-h4"]
    );
}
