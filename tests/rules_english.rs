//! English draughts (checkers): the rules of `shared/RULES.md` ("English
//! (classic)" column) and `shared/reference/perft.md` §2 checked on exact
//! sets of legal moves.
//!
//! perft.md §2 lists no published rule positions; one generated position
//! (E) is used with its perft(1), the others are constructed. Squares are
//! English numbers: 1-32 from Black's side, 1 = b8, 4 = h8, 29 = a1,
//! 32 = g1; Black starts on 1-12, White on 21-32.

use kondavo::movegen::{generate, MoveList};
use kondavo::notation::fen::{parse_fen, write_fen};
use kondavo::notation::movetext::{move_to_pdn, parse_move};
use kondavo::position::Position;
use kondavo::rules::{Color, English};

mod common;
use common::*;

type R = English;

/// Black moves first from the start position (RULES.md "first to move:
/// (federation) Black/dark"; perft.md §2 "Black moves first"), with 7
/// moves (perft.md §2 start table, perft(1) = 7).
#[test]
fn black_moves_first() {
    let p = Position::<R>::start();
    assert_eq!(p.side(), Color::Black);
    assert_eq!(
        write_fen(&p),
        write_fen(&parse_fen::<R>("B:W21-32:B1-12").unwrap())
    );
    let mut list = MoveList::new();
    generate(&p, &mut list);
    let mut got: Vec<String> = list.iter().map(|m| move_to_pdn(&p, m)).collect();
    got.sort();
    assert_eq!(
        got,
        ["10-14", "10-15", "11-15", "11-16", "12-16", "9-13", "9-14"]
    );
    // The same with an explicit FEN.
    assert_moves::<R>(
        "B:W21-32:B1-12",
        &["9-13", "9-14", "10-14", "10-15", "11-15", "11-16", "12-16"],
    );
}

/// Free choice: a shorter capture is legal when a longer one exists. The
/// man on 22 may take 17 (22x13, one piece) or 18 and 11 (22x8, two
/// pieces). RULES.md "choice among captures: free"; perft.md §2 "the
/// player may choose any capture sequence". Constructed.
#[test]
fn free_choice_shorter_capture_legal() {
    assert_moves::<R>("W:W22:B18,11,17", &["22x13", "22x8"]);
}

/// The chosen capture must be completed: 22x15 (stopping after 18) is not
/// a move when 11 can be taken next. perft.md §2 "the chosen sequence must
/// be completed". Constructed.
#[test]
fn chain_must_be_completed() {
    let fen = "W:W22:B18,11";
    assert_moves::<R>(fen, &["22x8"]);
    let pos = parse_fen::<R>(fen).unwrap();
    assert!(parse_move(&pos, "22x15").is_err());
}

/// A man that reaches the king row in a capture is crowned and the move
/// ends: the man on 10 takes 7 and lands on 3; as a king it could take 8
/// next (to 12), but it stops. RULES.md "promoted, move ends"; perft.md §2
/// "crowned and the move ends". Constructed.
#[test]
fn promotion_ends_the_move() {
    let fen = "W:W10:B7,8";
    assert_moves::<R>(fen, &["10x3"]);
    let p = after::<R>(fen, "10x3");
    assert_eq!(p.kings_of(Color::White), bit::<R>("3"));
    assert_eq!(p.pieces(Color::Black), bit::<R>("8"), "8 is not taken");
}

/// Short kings: a king moves one square in each of the four directions.
/// RULES.md "1 square, 4 diagonals". Constructed.
#[test]
fn short_king_moves() {
    assert_moves::<R>("W:WK22", &["22-17", "22-18", "22-25", "22-26"]);
}

/// Short kings capture only an adjacent piece: the king on 29 (a1) cannot
/// take 18 (d4) across the empty 25 and 22, so it simply moves. RULES.md
/// "jumps adjacent piece". Constructed.
#[test]
fn short_king_no_distance_capture() {
    assert_moves::<R>("W:WK29:B18", &["29-25"]);
}

/// Kings capture backwards as well as forwards: the White king on 15 takes
/// 18 behind it. Constructed.
#[test]
fn king_captures_backward() {
    assert_moves::<R>("W:WK15:B18", &["15x22"]);
}

/// Men move and capture forward only: the man on 18 cannot take 22 behind
/// it. RULES.md "man captures: forward only". Constructed.
#[test]
fn men_capture_forward_only() {
    assert_moves::<R>("W:W18:B22", &["18-14", "18-15"]);
}

/// Generated position E, perft.md §2 (`B:W17,24,28,29,K1,K19:B27,8`,
/// perft(1) = 4, pydraughts only). The four moves are worked out here:
/// Black's men on 27 and 8 each have two forward moves and nothing to
/// capture.
#[test]
fn generated_e() {
    assert_moves::<R>(
        "B:W17,24,28,29,K1,K19:B27,8",
        &["27-31", "27-32", "8-11", "8-12"],
    );
}
