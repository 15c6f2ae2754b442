//! Spanish draughts (damas españolas): the rules of `shared/RULES.md`
//! ("Spanish" column), seed page `shared/seeds/003_*.txt` and
//! `shared/reference/perft.md` §4 checked on exact sets of legal moves.
//!
//! perft.md §4 lists no Spanish rule positions, so every position here is
//! constructed. Squares are Spanish numbers: 1 = h1 (White's lower right),
//! counting right to left and bottom to top, 32 = a8; White starts on 1-12,
//! Black on 21-32; the board is turned so that the lower-right corner is
//! dark. Where a test names algebraic squares, they are those of that
//! board (h1 = 1, f1 = 2, ..., g2 = 5, ..., a8 = 32).
//!
//! Precedence (RULES.md; perft.md §4, dctl `spanish.hpp`): most pieces, then
//! most kings; no preference for capturing with a king.

use kondavo::notation::fen::{parse_fen, write_fen};
use kondavo::position::Position;
use kondavo::rules::{Color, Spanish};

mod common;
use common::*;

type R = Spanish;

/// Most pieces first: the man on d1 (3) can take three men (c2, c4, e6:
/// 3x26) or two kings (e2, g4: 3x17); the three men must be taken.
/// RULES.md "must take the most pieces; ties: the capture taking the most
/// kings". Constructed.
#[test]
fn most_pieces_first() {
    assert_moves::<R>("W:W3:B7,15,22,K6,K13", &["3x26"]);
}

/// Then most kings: the man on d3 (11) can take two men (c4, c6: 11x27) or
/// a king and a man (e4, g6: 11x25); with equal numbers the capture taking
/// a king must be chosen. RULES.md; seed 003 "phải chọn chuỗi ăn được nhiều
/// quân hậu hơn". Constructed.
#[test]
fn then_most_kings() {
    assert_moves::<R>("W:W11:B15,23,K14,21", &["11x25"]);
}

/// No preference for capturing with a king (unlike Italian): the man on d3
/// (11) takes c4 (11x20) and the king on h1 (1) takes b7 (1x32); both take
/// one man and no king, so both are legal. perft.md §4 ("No 'capture with
/// the king' preference", dctl `spanish.hpp`). Constructed.
#[test]
fn no_king_capture_preference() {
    assert_moves::<R>("W:W11,K1:B15,28", &["11x20", "1x32"]);
}

/// The most-kings step applies whatever piece captures: the man's capture
/// of a king (c4) beats the king's capture of a man (b7). Constructed.
#[test]
fn man_taking_a_king_beats_king_taking_a_man() {
    assert_moves::<R>("W:W11,K1:BK15,28", &["11x20"]);
}

/// Men may capture kings in Spanish (no Italian restriction: seed 003 and
/// RULES.md say nothing of it; dctl `spanish.hpp` has no man/king rule).
/// Constructed.
#[test]
fn men_capture_kings() {
    let fen = "W:W11:BK15";
    assert_moves::<R>(fen, &["11x20"]);
    assert_eq!(after::<R>(fen, "11x20").pieces(Color::Black), 0);
}

/// Men capture forward only: the man on d3 (11) cannot take c2 (7) behind
/// it, so it moves. RULES.md "forward only"; seed 003 "Quân thường ăn: theo
/// đường chéo, về phía trước". Constructed.
#[test]
fn men_capture_forward_only() {
    assert_moves::<R>("W:W11:B7", &["11-14", "11-15"]);
}

/// A man reaching the last row in a capture is crowned and the move ends,
/// even though a flying king could go on: the man on c6 (23) takes d7 (27)
/// and lands on e8 (30); from e8 a king could take g6 (21) across the empty
/// f7. RULES.md "promoted, move ends (stops there even if it could jump
/// on)"; seed 003 "dừng lại ở đó, dù còn có thể nhảy tiếp". Constructed.
#[test]
fn promotion_ends_the_move() {
    let fen = "W:W23:B27,21";
    assert_moves::<R>(fen, &["23x30"]);
    let p = after::<R>(fen, "23x30");
    assert_eq!(p.kings_of(Color::White), bit::<R>("30"));
    assert_eq!(p.pieces(Color::Black), bit::<R>("21"), "g6 is not taken");
}

/// Kings fly: the king on h1 (1) moves along the whole long diagonal to a8
/// (32). RULES.md "flies"; seed 003 "xa bao nhiêu cũng được". Constructed.
#[test]
fn flying_king_moves() {
    assert_moves::<R>(
        "W:WK1",
        &["1-5", "1-10", "1-14", "1-19", "1-23", "1-28", "1-32"],
    );
}

/// Kings capture from a distance and land on any empty square beyond: the
/// king on h1 (1) takes f3 (10) across g2 and lands on e4, d5, c6, b7 or
/// a8. RULES.md; seed 003 "Hậu ăn từ xa". Constructed.
#[test]
fn flying_king_captures() {
    assert_moves::<R>("W:WK1:B10", &["1x14", "1x19", "1x23", "1x28", "1x32"]);
}

/// The start position: White, on 1-12, moves first; 7 moves (perft.md §4
/// start table, perft(1) = 7; the moves follow from the numbering).
#[test]
fn start_position() {
    let p = Position::<R>::start();
    assert_eq!(p.side(), Color::White);
    assert_eq!(
        write_fen(&p),
        write_fen(&parse_fen::<R>("W:W1-12:B21-32").unwrap())
    );
    assert_moves::<R>(
        "W:W1-12:B21-32",
        &["9-13", "10-13", "10-14", "11-14", "11-15", "12-15", "12-16"],
    );
}
