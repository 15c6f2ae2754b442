//! International draughts (10x10, FMJD): the rules of `shared/RULES.md`
//! ("International (Polish)" column) checked on exact sets of legal moves.
//!
//! The 20 depth-1 rule positions are those of `shared/reference/perft.md`
//! §5, "Rule positions (depth 1)", taken from `rhalbersma/dctl`
//! `test/src/core/model/international.cpp` (FFJD tutorial and FID edition of
//! the FMJD rules); dame-rs, py-draughts and pydraughts all return exactly
//! the listed moves. Each test names dctl's test case. The table writes
//! squares with leading zeros (`08-02`); they are compared without them.
//! Further tests are constructed here and say so.

use kondavo::notation::fen::{parse_fen, write_fen};
use kondavo::position::Position;
use kondavo::rules::{Color, International};

type R = International;

mod common;
use common::*;

// ---------------------------------------------------------------------------
// perft.md §5, rule positions (depth 1), in the table's order.
// ---------------------------------------------------------------------------

/// White men move one square diagonally forward. perft.md §5 table, dctl
/// `WhitePawnMoveDirections`.
#[test]
fn white_pawn_move_directions() {
    assert_moves::<R>("W:W28", &["28-22", "28-23"]);
}

/// Black men move one square diagonally forward (down the board). perft.md
/// §5 table, dctl `BlackPawnMoveDirections`.
#[test]
fn black_pawn_move_directions() {
    assert_moves::<R>("B:B13", &["13-18", "13-19"]);
}

/// A man may move onto the last row (and is promoted there). perft.md §5
/// table, dctl `PawnPromotion`.
#[test]
fn pawn_promotion() {
    assert_moves::<R>("W:W8", &["08-02", "08-03"]);
    for to in ["2", "3"] {
        let p = after::<R>("W:W8", &format!("8-{to}"));
        assert_eq!(p.kings_of(Color::White), bit::<R>(to), "8-{to} crowns");
    }
}

/// A White king flies any distance along its four diagonals. perft.md §5
/// table, dctl `WhiteKingMoveRange`.
#[test]
fn white_king_move_range() {
    assert_moves::<R>(
        "W:WK28",
        &[
            "28-22", "28-17", "28-11", "28-06", "28-23", "28-19", "28-14", "28-10", "28-05",
            "28-32", "28-37", "28-41", "28-46", "28-33", "28-39", "28-44", "28-50",
        ],
    );
}

/// A Black king in the corner flies along its one diagonal. perft.md §5
/// table, dctl `BlackKingMoveRange`.
#[test]
fn black_king_move_range() {
    assert_moves::<R>(
        "B:BK1",
        &[
            "01-06", "01-07", "01-12", "01-18", "01-23", "01-29", "01-34", "01-40", "01-45",
        ],
    );
}

/// A man captures an adjacent enemy piece, landing right behind it; capture
/// is compulsory (the quiet moves of 28 and 32 are not legal). perft.md §5
/// table, dctl `PawnJump`.
#[test]
fn pawn_jump() {
    assert_moves::<R>("W:W28,32:B23", &["28x19"]);
}

/// A king captures from a distance and may land on any empty square beyond
/// the captured piece. perft.md §5 table, dctl `KingJumpRange`.
#[test]
fn king_jump_range() {
    assert_moves::<R>("W:WK46:B23", &["46x19", "46x14", "46x10", "46x05"]);
}

/// A man goes on capturing while it can; here it captures backwards too.
/// perft.md §5 table, dctl `PawnJumpContinuation`.
#[test]
fn pawn_jump_continuation() {
    assert_moves::<R>("W:W15:B8,19,20", &["15x02"]);
}

/// A king goes on capturing, turning at a landing square. perft.md §5 table,
/// dctl `KingJumpContinuation`.
#[test]
fn king_jump_continuation() {
    assert_moves::<R>("W:WK47:B9,12,33", &["47x17", "47x21", "47x26"]);
}

/// Captured pieces stay on the board until the move is over: they block
/// the king's path and cannot be jumped twice. perft.md §5 table, dctl
/// `NoPassingJumpRemoval`.
#[test]
fn no_passing_jump_removal() {
    assert_moves::<R>("W:WK41,49:B9,10,12,19,38", &["41x43"]);
}

/// The capture taking the most pieces is compulsory, whether they are men
/// or kings. perft.md §5 table, dctl `QuantityPrecedence`.
#[test]
fn quantity_precedence_man() {
    assert_moves::<R>("W:W48:B24,K31,34,K42,43", &["48x19"]);
}

/// A king in the middle of the board flies in all four directions. perft.md
/// §5 table, dctl `KingMoveRange`.
#[test]
fn king_move_range() {
    assert_moves::<R>(
        "W:WK23",
        &[
            "23-18", "23-12", "23-07", "23-01", "23-19", "23-14", "23-10", "23-05", "23-28",
            "23-32", "23-37", "23-41", "23-46", "23-29", "23-34", "23-40", "23-45",
        ],
    );
}

/// A man captures forwards and backwards, men and kings alike. perft.md §5
/// table, dctl `PawnJumpDirections`.
#[test]
fn pawn_jump_directions() {
    assert_moves::<R>("W:W35:B30,K40", &["35x24", "35x44"]);
}

/// A king captures from a distance along the long diagonal, landing on any
/// square beyond. perft.md §5 table, dctl `KingJumpRange` (second position).
#[test]
fn king_jump_range_2() {
    assert_moves::<R>("W:WK41:B23", &["41x19", "41x14", "41x10", "41x05"]);
}

/// A long man capture forwards and backwards, maximal. perft.md §5 table,
/// dctl `PawnJumpContinuation` (second position).
#[test]
fn pawn_jump_continuation_2() {
    assert_moves::<R>("W:W47:B13,14,22,24,31,34,K41,44", &["47x49"]);
}

/// A long king capture with turns, maximal. perft.md §5 table, dctl
/// `KingJumpContinuation` (second position).
#[test]
fn king_jump_continuation_2() {
    assert_moves::<R>("W:WK1:B7,9,17,19,20,30,31,33,43,44", &["01x15"]);
}

/// Captured pieces stay until the end of the move (a Black king this
/// time). perft.md §5 table, dctl `NoPassingJumpRemoval` (second position).
#[test]
fn no_passing_jump_removal_2() {
    assert_moves::<R>("B:W27,28,38,39,42:BK25", &["25x33"]);
}

/// Most pieces, for a king. perft.md §5 table, dctl `QuantityPrecedence`
/// (second position).
#[test]
fn quantity_precedence_king() {
    assert_moves::<R>("W:WK48:B7,8,31,34,K42,44", &["48x50"]);
}

/// No preference for taking kings: two captures of two pieces, one of them
/// taking a king, are both legal. perft.md §5 table, dctl
/// `NoContentsPrecedence`.
#[test]
fn no_contents_precedence() {
    assert_moves::<R>("W:W26:B12,K21,31,32", &["26x08", "26x28"]);
}

/// A man passing the last row during a capture is not promoted. perft.md §5
/// table, dctl `NoPassingJumpPromotion`; the position after the move is
/// checked here too: the piece on 13 is still a man.
#[test]
fn no_passing_jump_promotion() {
    let fen = "W:W15:B9,10";
    assert_moves::<R>(fen, &["15x13"]);
    let p = after::<R>(fen, "15x13");
    assert_eq!(p.men(Color::White), bit::<R>("13"));
    assert_eq!(p.kings(), 0, "no king after 15x13");
    assert_eq!(p.pieces(Color::Black), 0);
    assert_eq!(p.side(), Color::Black);
    assert_eq!(write_fen(&p), "B:W13:B");
}

// ---------------------------------------------------------------------------
// Constructed positions.
// ---------------------------------------------------------------------------

/// Majority capture with kings counting one (RULES.md "must take the most
/// pieces (kings count as one)"): the man on 33 may take the king on 28
/// (33x22) or the men on 29 and 19 (33x24x13); two men beat one king.
/// Constructed.
#[test]
fn majority_two_men_beat_one_king() {
    assert_moves::<R>("W:W33:BK28,29,19", &["33x13"]);
}

/// Kings count one, not more: three men beat two kings. The man on 33 may
/// take the kings on 28 and 17 (33x22x11) or the men on 29, 19 and 8
/// (33x24x13x2). Constructed.
#[test]
fn majority_three_men_beat_two_kings() {
    assert_moves::<R>("W:W33:BK28,K17,29,19,8", &["33x02"]);
    // The man ends on the last row, so it is crowned.
    let p = after::<R>("W:W33:BK28,K17,29,19,8", "33x2");
    assert_eq!(p.kings_of(Color::White), bit::<R>("2"));
}

/// A man whose capture ends on the last row is promoted (RULES.md: "A man
/// that ends its move on the far row is promoted"). Position from perft.md
/// §5 (`PawnJumpContinuation`, 15x02); the promotion check is added here.
#[test]
fn capture_ending_on_last_row_promotes() {
    let p = after::<R>("W:W15:B8,19,20", "15x2");
    assert_eq!(p.kings_of(Color::White), bit::<R>("2"));
    assert_eq!(p.men(Color::White), 0);
    assert_eq!(p.pieces(Color::Black), 0);
}

/// A man that passes through the last row goes on capturing as a man, not
/// as a king (RULES.md: "not promoted: it passes through and goes on as a
/// man"). As in `W:W15:B9,10` the man jumps 10 to the last row (4) and 9
/// back to 13; a black man is added on 27, on the diagonal 4-9-13-18-22-27
/// a flying king at 4 would use: a king would have to take it too (15x31,
/// 15x36, three pieces, majority rule), the man cannot reach it. Constructed.
#[test]
fn passing_man_does_not_capture_as_a_king() {
    assert_moves::<R>("W:W15:B9,10,27", &["15x13"]);
}

/// The start position: White moves first, 9 moves (perft.md §5 start
/// table, perft(1) = 9; the moves themselves follow from the rules).
#[test]
fn start_position() {
    let p = Position::<R>::start();
    assert_eq!(p.side(), Color::White);
    assert_eq!(
        write_fen(&p),
        write_fen(&parse_fen::<R>("W:W31-50:B1-20").unwrap())
    );
    assert_moves::<R>(
        "W:W31-50:B1-20",
        &[
            "31-26", "31-27", "32-27", "32-28", "33-28", "33-29", "34-29", "34-30", "35-30",
        ],
    );
}
