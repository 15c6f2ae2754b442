//! Italian draughts: the rules of `shared/RULES.md` ("Italian" column) and
//! of seed page `shared/seeds/000_*.txt` checked on exact sets of legal
//! moves.
//!
//! The 14 depth-1 rule positions are those of `shared/reference/perft.md`
//! §3, "Rule positions (depth 1)", taken from `rhalbersma/dctl`
//! `test/src/core/model/italian.cpp` (FID rules, Capo I); each test names
//! dctl's test case. Squares are Italian numbers: 1 = a8 (Black's corner),
//! left to right, top to bottom, 32 = h1, on the board turned so that the
//! lower-right corner is dark (so 30 = d1, 27 = e2, 23 = f3). The table
//! writes leading zeros (`31x08`); they are compared without them. Further
//! tests are constructed here and say so; where a test needs algebraic
//! names, they are those of the turned board (a8 = 1, h1 = 32).
//!
//! Precedence (RULES.md; perft.md §3, art. 6.6-6.9): (1) most pieces; (2) a
//! capture with a king rather than a man; (3) the most kings; (4) the
//! capture meeting a king earliest, comparing the positions (1st jump, 2nd
//! jump, ...) at which kings are taken, in order.

use kondavo::notation::fen::{parse_fen, write_fen};
use kondavo::position::Position;
use kondavo::rules::{Color, Italian};

mod common;
use common::*;

type R = Italian;

// ---------------------------------------------------------------------------
// perft.md §3, rule positions (depth 1), in the table's order.
// ---------------------------------------------------------------------------

/// A man captures diagonally forward: d1 (30) over e2 (27) to f3 (23); this
/// also pins the Italian numbering. perft.md §3 table, dctl
/// `PawnJumpDirections` (listed with `JumpModality/PawnsCannotJumpKings`,
/// art. 5.3(b)).
#[test]
fn pawn_jump_directions() {
    assert_moves::<R>("W:W30:B27", &["30x23"]);
}

/// A man goes on capturing while it can. perft.md §3 table, dctl
/// `PawnJumpContinuation`.
#[test]
fn pawn_jump_continuation() {
    assert_moves::<R>("W:W31:B12,20,28", &["31x08"]);
}

/// A king captures in every diagonal direction, one square at a time.
/// perft.md §3 table, dctl `KingJumpDirection`.
#[test]
fn king_jump_direction() {
    assert_moves::<R>("W:WK22:B18,19,27", &["22x13", "22x15", "22x31"]);
}

/// A king goes on capturing, turning as it goes. perft.md §3 table, dctl
/// `KingJumpContinuation`.
#[test]
fn king_jump_continuation() {
    assert_moves::<R>("W:WK27:B5,6,13,15,21,23", &["27x25"]);
}

/// Precedence step 1: the capture taking the most pieces. perft.md §3
/// table, dctl `QuantityPrecedence`.
#[test]
fn quantity_precedence() {
    assert_moves::<R>("W:WK21,31:B10,18,27", &["31x06"]);
}

/// Precedence step 2: between captures of as many pieces, the king must
/// capture rather than the man. perft.md §3 table, dctl
/// `ModalityPrecedence`.
#[test]
fn modality_precedence() {
    assert_moves::<R>("W:WK23,31:B19,26,27", &["23x21"]);
}

/// Precedence step 3: the capture taking the most kings. perft.md §3 table,
/// dctl `ContentsPrecedence`.
#[test]
fn contents_precedence() {
    assert_moves::<R>("W:WK23:B19,K28", &["23x32"]);
}

/// Precedence step 4: the capture meeting a king earliest. perft.md §3
/// table, dctl `OrderingPrecedence`.
#[test]
fn ordering_precedence() {
    assert_moves::<R>("W:WK30:B10,12,18,K20,K26,27", &["30x05"]);
}

/// Captures equal on all four steps are free to choose. perft.md §3 table,
/// dctl `EquivalentJumps`.
#[test]
fn equivalent_jumps() {
    assert_moves::<R>("W:WK31:B18,20,K27,K28", &["31x13", "31x15"]);
}

/// Men capture forward only: the man on 24 takes 20 but not 28 behind it.
/// perft.md §3 table, dctl `PawnsOnlyJumpForward`.
#[test]
fn pawns_only_jump_forward() {
    assert_moves::<R>("W:W24:B20,28", &["24x15"]);
}

/// A man may not capture a king (art. 5.3b), so the man on 30 simply moves.
/// perft.md §3 table, dctl `PawnsCannotJumpKings`.
#[test]
fn pawns_cannot_jump_kings() {
    assert_moves::<R>("W:W30:BK26", &["30-27"]);
}

/// Kings capture forwards and backwards. perft.md §3 table, dctl
/// `KingsJumpForwardAndBackward`.
#[test]
fn kings_jump_forward_and_backward() {
    assert_moves::<R>("W:WK24:B20,28", &["24x15", "24x31"]);
}

/// A king may capture a king. perft.md §3 table, dctl
/// `KingsJumpPawnsAndKings`.
#[test]
fn kings_jump_kings() {
    assert_moves::<R>("W:WK30:BK26", &["30x21"]);
}

/// A king may capture a man. perft.md §3 table, dctl
/// `KingsJumpPawnsAndKings` (second position).
#[test]
fn kings_jump_pawns() {
    assert_moves::<R>("W:WK30:B27", &["30x23"]);
}

// ---------------------------------------------------------------------------
// Constructed positions.
// ---------------------------------------------------------------------------

/// Men never capture kings, in the middle of a chain either: the man on b3
/// (21) takes c4 (18) and lands on d5 (14), where the king on e6 (11) with
/// f7 empty behind it would be next; the man must stop (RULES.md "men may
/// not capture kings"; seed 000 "Quân thường không được ăn quân hậu").
/// Constructed.
#[test]
fn men_never_capture_kings_mid_chain() {
    let fen = "W:W21:B18,K11";
    assert_moves::<R>(fen, &["21x14"]);
    let p = after::<R>(fen, "21x14");
    assert_eq!(p.kings_of(Color::Black), bit::<R>("11"), "the king stays");
}

/// Men never capture kings, and capture is compulsory: with only a king in
/// reach of the man but a man in reach of the king, the king's capture is
/// the only legal move; the man's quiet moves are not legal either.
/// Constructed.
#[test]
fn men_never_capture_kings_king_must_capture() {
    // Man d1 (30) faces the king on c2 (26); king h1 (32) faces g2 (28).
    assert_moves::<R>("W:W30,K32:BK26,28", &["32x23"]);
}

/// Step 1 before step 2: a man's capture of two pieces beats a king's
/// capture of one. The man on b1 (29) takes c2 (26) and e4 (19); the king on
/// a6 (9) could take b7 (5). Constructed.
#[test]
fn quantity_beats_king_capture() {
    assert_moves::<R>("W:W29,K9:B26,19,5", &["29x15"]);
}

/// Step 3 before step 4: the king on b3 (21) can take c4 (king), e6, g6
/// (ending on h5, a king at jump 1) or c2, e2 (king), g2 (king) (ending on
/// h1, kings at jumps 2 and 3). Two kings beat one, even though the other
/// chain meets its king earlier. Constructed.
#[test]
fn most_kings_before_earliest_king() {
    assert_moves::<R>("W:WK21:BK18,11,12,26,K27,K28", &["21x32"]);
}

/// Step 4 compares every king's position, not just the first: the king on
/// b3 (21) takes c4 (18, a king) first either way, then either e6 and g6
/// (ending on h5 = 16) or e4 and g2 (ending on h1 = 32). Both chains take
/// three pieces with a king and two kings each, and both meet their first
/// king at jump 1; the SECOND king decides. Here e6 is a king (kings at
/// jumps 1 and 2: 21x16) and g2 is a king (kings at jumps 1 and 3): 21x16
/// is the only legal move. pydraughts, which compares only the first king
/// (perft.md §11 item 3), would list both. Constructed (RULES.md note on
/// "the capture meeting a king earliest").
#[test]
fn second_king_decides() {
    let fen = "W:WK21:BK18,K11,12,19,K28";
    assert_moves::<R>(fen, &["21x16"]);
    let p = after::<R>(fen, "21x16");
    assert_eq!(write_fen(&p), "B:WK16:B19,K28");
}

/// The mirror image of `second_king_decides`: now g6 and e4 are the kings,
/// so the chain over e4 meets its second king at jump 2 and wins: 21x32.
/// Constructed.
#[test]
fn second_king_decides_other_way() {
    let fen = "W:WK21:BK18,11,K12,K19,28";
    assert_moves::<R>(fen, &["21x32"]);
    let p = after::<R>(fen, "21x32");
    assert_eq!(write_fen(&p), "B:WK32:B11,K12");
}

/// A man that reaches the last row in a capture is crowned and the move
/// ends there, even though as a king it could jump on (RULES.md "promoted,
/// move ends"; seed 000 "Phong cấp"... "dừng lại ở đó"): the man on c6
/// (10) takes d7 (6) and lands on e8 (3); the new king stops instead of
/// taking f7 (7). Constructed.
#[test]
fn promotion_ends_the_move() {
    let fen = "W:W10:B6,7";
    assert_moves::<R>(fen, &["10x03"]);
    let p = after::<R>(fen, "10x3");
    assert_eq!(p.kings_of(Color::White), bit::<R>("3"));
    assert_eq!(p.pieces(Color::Black), bit::<R>("7"), "f7 is not taken");
}

/// Kings are short: one square in each direction, and no capture from a
/// distance (the king on d1 (30) cannot take f3 (23) across e2). RULES.md
/// "1 square, 4 diagonals"; seed 000 "hậu chỉ đi một ô mỗi lần".
/// Constructed.
#[test]
fn short_kings() {
    assert_moves::<R>("W:WK30:B23", &["30-26", "30-27"]);
    assert_moves::<R>("W:WK22", &["22-18", "22-19", "22-26", "22-27"]);
}

/// The start position: White (on 21-32) moves first, 7 moves (perft.md §3
/// start table, perft(1) = 7; the moves follow from the numbering).
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
            "21-17", "21-18", "22-18", "22-19", "23-19", "23-20", "24-20",
        ],
    );
}
