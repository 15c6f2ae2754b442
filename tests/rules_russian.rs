//! Russian draughts (shashki): the rules of `shared/RULES.md` ("Russian /
//! Ukrainian shashki" column), seed page `shared/seeds/002_*.txt` and
//! `shared/reference/perft.md` §7 checked on exact sets of legal moves.
//!
//! perft.md §7 lists no published rule positions; one generated position
//! (R3) is used with its published perft(1), the others are constructed.
//! Squares are algebraic (a1 dark, White at the bottom); FENs may also use
//! English numbers (1 = b8, 29 = a1). Russian captures are written with `:`.

use kondavo::notation::fen::{parse_fen, write_fen};
use kondavo::notation::movetext::parse_move;
use kondavo::position::Position;
use kondavo::rules::{Color, Russian};

mod common;
use common::*;

type R = Russian;

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

/// A man that reaches the last row in the middle of a capture is crowned
/// at once and goes on capturing as a king in the same move (RULES.md
/// "promoted at once and goes on capturing as a king"; seed 002 "sẽ thành
/// hậu ngay và ăn tiếp như một quân hậu"). The man on b6 takes c7 and lands
/// on d8; as a king it then takes f6 from a distance across the empty e7,
/// along the d8-h4 diagonal, which a man could not use (a man jumps only an
/// adjacent piece). It lands on g5 or h4, and is a king there. Constructed.
#[test]
fn promoted_mid_capture_continues_as_king() {
    let fen = "W:Wb6:Bc7,f6";
    assert_moves::<R>(fen, &["b6:g5", "b6:h4"]);
    assert_eq!(routes(fen), ["b6>d8>g5", "b6>d8>h4"]);
    for end in ["g5", "h4"] {
        let p = after::<R>(fen, &format!("b6:{end}"));
        assert_eq!(p.kings_of(Color::White), bit::<R>(end), "king on {end}");
        assert_eq!(p.men(Color::White), 0);
        assert_eq!(p.pieces(Color::Black), 0);
        assert_eq!(write_fen(&p), format!("B:WK{end}:B"));
    }
}

/// A man crowned in passing must go on capturing as a king when it can: in
/// the position above it may not stop on d8 (b6:d8 is not a legal move;
/// RULES.md "the chain must go on while it can"). Constructed.
#[test]
fn promoted_man_may_not_stop_on_last_row() {
    let pos = parse_fen::<R>("W:Wb6:Bc7,f6").unwrap();
    assert!(parse_move(&pos, "b6:d8").is_err());
}

/// Free choice among captures (no majority rule): the man on c3 may take
/// one piece (b4: c3:a5) or two (d4, f6: c3:g7). RULES.md "free: any
/// capture, as long as the chain is finished"; seed 002 "chọn nước nào
/// cũng được". Constructed.
#[test]
fn free_choice_between_lengths() {
    assert_moves::<R>("W:Wc3:Bd4,f6,b4", &["c3:a5", "c3:g7"]);
}

/// Free choice does not allow stopping a chain halfway: in the position
/// above c3:e5 (taking d4 only) is not a legal move. RULES.md "(it must go
/// on while it can)". Constructed.
#[test]
fn chain_must_be_completed() {
    let pos = parse_fen::<R>("W:Wc3:Bd4,f6,b4").unwrap();
    assert!(parse_move(&pos, "c3:e5").is_err());
    assert!(parse_move(&pos, "c3:g7").is_ok());
}

/// A king too must complete its chain: generated position R3, perft.md §7
/// (`W:WK1,21,24,26,28,29,32:B3,4,7,8,15,16`, algebraic
/// `W:WKb8,a3,g3,d2,h2,a1,g1:Bf8,h8,e7,g7,e5,g5`, duplicates removed,
/// perft(1) = 1, py-draughts and pydraughts agree). The one move is worked
/// out here: the king on b8 takes e5, landing on f4 (g3 is White's), and
/// must go on over g5 to h6; stopping on f4 is not legal.
#[test]
fn generated_r3_king_completes_chain() {
    let fen = "W:WK1,21,24,26,28,29,32:B3,4,7,8,15,16";
    assert_moves::<R>(fen, &["b8:h6"]);
    assert_eq!(routes(fen), ["b8>f4>h6"]);
}

/// A flying king must choose a landing square from which it can go on
/// capturing, if there is one (perft.md §7: "a king must choose a landing
/// square from which it can continue capturing, if one exists"): the king
/// on a1 takes c3 and could land on d4, e5, f6, g7 or h8, but only from f6
/// can it take g5, so a1:h4 is the only move, free choice
/// notwithstanding. Constructed.
#[test]
fn king_lands_where_it_can_continue() {
    assert_moves::<R>("W:WKa1:Bc3,g5", &["a1:h4"]);
    assert_eq!(routes("W:WKa1:Bc3,g5"), ["a1>f6>h4"]);
}

/// Captured pieces stay on the board until the move ends (RULES.md; seed
/// 002 "Quân bị ăn vẫn nằm trên bàn cho tới khi chuỗi kết thúc"): the king
/// on g1 takes e3, e7 and g7 and ends on h6; from h6 the way back along the
/// c1-h6 diagonal is blocked by e3, so it cannot also take d2 (it could if
/// e3 were removed at once, as in Turkish). The shorter chain over e3 and
/// g7 (landing on d4, ending on h8) is also legal under free choice.
/// Constructed.
#[test]
fn captured_pieces_block_until_the_end() {
    let fen = "W:WKg1:Be3,e7,g7,d2";
    assert_moves::<R>(fen, &["g1:h6", "g1:h8"]);
    assert_eq!(
        write_fen(&after::<R>(fen, "g1:h6")),
        "B:WKh6:Bd2",
        "d2 survives"
    );
}

/// Men capture backwards as well as forwards (RULES.md "forward and
/// backward"; seed 002 "tiến và lùi"), but move only forwards. Constructed.
#[test]
fn men_capture_backward() {
    assert_moves::<R>("W:Wd4:Bc3", &["d4:b2"]);
    assert_moves::<R>("W:Wd4:Bc7", &["d4-c5", "d4-e5"]);
}

/// Flying kings move any distance (RULES.md; seed 002 "xa bao nhiêu cũng
/// được"). Constructed.
#[test]
fn flying_king_moves() {
    assert_moves::<R>(
        "W:WKa1",
        &[
            "a1-b2", "a1-c3", "a1-d4", "a1-e5", "a1-f6", "a1-g7", "a1-h8",
        ],
    );
}

/// The start position: White moves first, 7 moves (perft.md §7 start
/// table, perft(1) = 7); numeric and algebraic FENs give the same position.
#[test]
fn start_position() {
    let p = Position::<R>::start();
    assert_eq!(p.side(), Color::White);
    assert_eq!(
        write_fen(&p),
        write_fen(&parse_fen::<R>("W:W21-32:B1-12").unwrap())
    );
    assert_eq!(
        write_fen(&p),
        "W:Wa1,c1,e1,g1,b2,d2,f2,h2,a3,c3,e3,g3:Bb6,d6,f6,h6,a7,c7,e7,g7,b8,d8,f8,h8"
    );
    assert_moves::<R>(
        "W:W21-32:B1-12",
        &[
            "a3-b4", "c3-b4", "c3-d4", "e3-d4", "e3-f4", "g3-f4", "g3-h4",
        ],
    );
}
