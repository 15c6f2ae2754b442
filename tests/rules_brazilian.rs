//! Brazilian draughts: International rules on the 8x8 board (RULES.md
//! "Brazilian" column, "as International"; `shared/reference/perft.md` §6,
//! dctl `brazilian = international`), checked on exact sets of legal moves.
//!
//! perft.md §6 lists no published rule positions; one generated position
//! (B1) is used with its published perft(1), the others are constructed.
//! Squares are algebraic (a1 dark, White at the bottom); FENs may also use
//! English numbers (1 = b8, 29 = a1).

use kondavo::notation::fen::{parse_fen, write_fen};
use kondavo::position::Position;
use kondavo::rules::{Brazilian, Color};

mod common;
use common::*;

type R = Brazilian;

/// The capture taking the most pieces is compulsory: the man on c3 may not
/// take b4 alone when it can take d4 and f6 (the same position is a free
/// choice in Russian). RULES.md "must take the most pieces". Constructed.
#[test]
fn majority_capture() {
    assert_moves::<R>("W:Wc3:Bd4,f6,b4", &["c3xg7"]);
}

/// Kings count one: two men (d4, f6) beat one king (b4). RULES.md "as
/// International" ("kings count as one"). Constructed.
#[test]
fn majority_kings_count_one() {
    let fen = "W:Wc3:BKb4,d4,f6";
    assert_moves::<R>(fen, &["c3xg7"]);
    assert_eq!(
        after::<R>(fen, "c3xg7").kings_of(Color::Black),
        bit::<R>("b4")
    );
}

/// A man passing through the last row in a capture is not promoted and goes
/// on as a man (RULES.md "as International": "not promoted: it passes
/// through and goes on as a man"). The 8x8 image of perft.md §5's
/// `W:W15:B9,10`: the man on h6 takes g7 to f8, then e7 back to d6, and is
/// still a man there. A king on f8 could also have landed on c5, b4 or a3
/// beyond e7; the man has d6 only. Constructed.
#[test]
fn passing_man_stays_a_man() {
    let fen = "W:Wh6:Bg7,e7";
    assert_moves::<R>(fen, &["h6xd6"]);
    let p = after::<R>(fen, "h6xd6");
    assert_eq!(p.men(Color::White), bit::<R>("d6"));
    assert_eq!(p.kings(), 0);
    assert_eq!(write_fen(&p), "B:Wd6:B");
}

/// A man whose capture ends on the last row is promoted, and it does not
/// go on as a king: the man on b6 takes c7 and stops on d8 as a new king,
/// leaving f6 (in Russian it would take f6 too). Constructed.
#[test]
fn capture_ending_on_last_row_promotes() {
    let fen = "W:Wb6:Bc7,f6";
    assert_moves::<R>(fen, &["b6xd8"]);
    let p = after::<R>(fen, "b6xd8");
    assert_eq!(p.kings_of(Color::White), bit::<R>("d8"));
    assert_eq!(p.pieces(Color::Black), bit::<R>("f6"));
}

/// Generated position B1, perft.md §6 (`W:W15,18,22,24,25,28,29,31:B5,7,8,
/// 10,13,16`, English numbers; algebraic `W:We5,d4,c3,g3,b2,h2,a1,e1:Ba7,
/// e7,g7,d6,a5,g5`), perft(1) = 1 (py-draughts and pydraughts agree). The
/// one move is worked out here: e5 takes d6, landing on c7, and capture is
/// compulsory.
#[test]
fn generated_b1() {
    assert_moves::<R>("W:W15,18,22,24,25,28,29,31:B5,7,8,10,13,16", &["e5xc7"]);
}

/// Captured pieces stay until the move ends and block the king's way: the
/// king on g1 takes e3, e7 and g7 (g1xh6, the longest) but cannot come
/// back through e3 to take d2. RULES.md "Captured pieces stay on the board
/// until the chain ends". Constructed.
#[test]
fn captured_pieces_block_until_the_end() {
    let fen = "W:WKg1:Be3,e7,g7,d2";
    assert_moves::<R>(fen, &["g1xh6"]);
    assert_eq!(write_fen(&after::<R>(fen, "g1xh6")), "B:WKh6:Bd2");
}

/// Men capture backwards (RULES.md "forward and backward") but move only
/// forwards. Constructed.
#[test]
fn men_capture_backward() {
    assert_moves::<R>("W:Wd4:Bc3", &["d4xb2"]);
    assert_moves::<R>("W:Wd4:Bc7", &["d4-c5", "d4-e5"]);
}

/// Flying kings capture from a distance and land on any empty square
/// beyond (RULES.md "flies", "same as International"). Constructed.
#[test]
fn flying_king_captures() {
    assert_moves::<R>("W:WKh8:Bd4", &["h8xa1", "h8xb2", "h8xc3"]);
}

/// The start position: White moves first, 7 moves (perft.md §6 start table,
/// perft(1) = 7).
#[test]
fn start_position() {
    let p = Position::<R>::start();
    assert_eq!(p.side(), Color::White);
    assert_eq!(
        write_fen(&p),
        write_fen(&parse_fen::<R>("W:W21-32:B1-12").unwrap())
    );
    assert_moves::<R>(
        "W:W21-32:B1-12",
        &[
            "a3-b4", "c3-b4", "c3-d4", "e3-d4", "e3-f4", "g3-f4", "g3-h4",
        ],
    );
}
