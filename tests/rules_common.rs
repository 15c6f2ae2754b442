//! Rules shared by several variants (`shared/RULES.md`, "Rules every
//! variant shares" and the notes under the table), checked variant by
//! variant on exact sets of legal moves: duplicate capture routes are one
//! move; flying kings land on any square beyond the captured piece, but
//! must pick one from which the chain goes on; a chain must continue while
//! it can; capturing is compulsory.
//!
//! Squares are each variant's own notation: International and English
//! numbers; Italian numbers (1 = a8 ... 32 = h1 on the turned board);
//! Spanish numbers (1 = h1 ... 32 = a8); algebraic for Russian, Brazilian
//! and Turkish. Positions are constructed here unless a test says
//! otherwise; where a test describes squares algebraically, Italian and
//! Spanish squares are those of their turned board.

use kondavo::movegen::{captures_with_paths, generate_dups, MoveList};
use kondavo::notation::bit_name;
use kondavo::notation::fen::parse_fen;
use kondavo::notation::movetext::parse_move;
use kondavo::rules::{
    Brazilian, English, International, Italian, Rules, Russian, Spanish, Turkish,
};

mod common;
use common::assert_moves;

/// Number of legal moves of `fen` with duplicate routes kept.
fn count_keeping_duplicates<V: Rules>(fen: &str) -> usize {
    let pos = parse_fen::<V>(fen).unwrap();
    let mut list = MoveList::new();
    generate_dups::<V, true>(&pos, &mut list);
    list.len()
}

/// Every legal capture route of `fen` as `from>l1>l2...` (landing squares),
/// sorted; duplicate routes are kept.
fn routes<V: Rules>(fen: &str) -> Vec<String> {
    let pos = parse_fen::<V>(fen).unwrap();
    let (list, paths) = captures_with_paths(&pos);
    let mut out: Vec<String> = list
        .iter()
        .zip(paths)
        .map(|(m, p)| {
            let mut s = bit_name::<V>(m.from);
            for b in p {
                s.push('>');
                s.push_str(&bit_name::<V>(b));
            }
            s
        })
        .collect();
    out.sort();
    out
}

/// A king takes four pieces round a diamond (or square), clockwise or
/// anticlockwise, and can come back to its start square either way: the
/// two routes take the same pieces, start and end on the same square, and
/// are one move (`back`), listed once; with duplicates kept, they are two.
/// Routes ending on different squares are different moves (`expected`).
/// `loop_routes` are the two routes of `back`.
fn check_loop<V: Rules>(fen: &str, expected: &[&str], back: &str, loop_routes: [&str; 2]) {
    assert_moves::<V>(fen, expected);
    assert!(expected.contains(&back));
    assert_eq!(
        count_keeping_duplicates::<V>(fen),
        expected.len() + 1,
        "{}: one extra route with duplicates kept",
        V::NAME
    );
    let all = routes::<V>(fen);
    assert_eq!(all.len(), expected.len() + 1, "{}: {all:?}", V::NAME);
    let mut looped: Vec<&String> = all
        .iter()
        .filter(|r| {
            let first = r.split('>').next().unwrap();
            r.ends_with(&format!(">{first}"))
        })
        .collect();
    looped.sort();
    let mut want = loop_routes.to_vec();
    want.sort();
    assert_eq!(looped, want, "{}: the two routes of {back}", V::NAME);
    // The merged move reads back from its short form.
    let pos = parse_fen::<V>(fen).unwrap();
    assert!(parse_move(&pos, back).is_ok(), "{}: {back}", V::NAME);
}

// ---------------------------------------------------------------------------
// Duplicate capture routes are one move (RULES.md notes: "Two capture
// sequences that take the same pieces and end on the same square are one
// move (don't list it twice), but chains that end on different squares are
// different moves"; perft.md §0 "Duplicate captures").
// ---------------------------------------------------------------------------

/// International: the king on 37 (c3) takes 32, 22, 21, 31 round the
/// diamond either way; back on 37 it is one move, the other final landing
/// squares (41, 46 one way, 42, 48 the other) are four more. Constructed.
#[test]
fn duplicate_routes_international() {
    check_loop::<International>(
        "W:WK37:B32,22,21,31",
        &["37x37", "37x41", "37x42", "37x46", "37x48"],
        "37x37",
        ["37>26>17>28>37", "37>28>17>26>37"],
    );
}

/// Brazilian: the same diamond on 8x8 (king c3; d4, d6, b6, b4).
/// Constructed.
#[test]
fn duplicate_routes_brazilian() {
    check_loop::<Brazilian>(
        "W:WKc3:Bd4,d6,b6,b4",
        &["c3xa1", "c3xb2", "c3xc3", "c3xd2", "c3xe1"],
        "c3xc3",
        ["c3>a5>c7>e5>c3", "c3>e5>c7>a5>c3"],
    );
}

/// Russian: the same diamond; free choice changes nothing here (every
/// route takes all four). Constructed.
#[test]
fn duplicate_routes_russian() {
    check_loop::<Russian>(
        "W:WKc3:Bd4,d6,b6,b4",
        &["c3:a1", "c3:b2", "c3:c3", "c3:d2", "c3:e1"],
        "c3:c3",
        ["c3>a5>c7>e5>c3", "c3>e5>c7>a5>c3"],
    );
}

/// Spanish: the diamond on the turned board (king d3 = 11; e4 = 14, e6 =
/// 22, c6 = 23, c4 = 15). Constructed.
#[test]
fn duplicate_routes_spanish() {
    check_loop::<Spanish>(
        "W:WK11:B14,22,23,15",
        &["11x11", "11x2", "11x4", "11x6", "11x7"],
        "11x11",
        ["11>18>27>20>11", "11>20>27>18>11"],
    );
}

/// English: short kings, so both routes can only end on the start square:
/// one move, two routes. Constructed.
#[test]
fn duplicate_routes_english() {
    check_loop::<English>(
        "W:WK22:B18,10,9,17",
        &["22x22"],
        "22x22",
        ["22>13>6>15>22", "22>15>6>13>22"],
    );
}

/// Italian: as English, on the turned board (king d3 = 22; e4 = 19, e6 =
/// 11, c6 = 10, c4 = 18). Constructed.
#[test]
fn duplicate_routes_italian() {
    check_loop::<Italian>(
        "W:WK22:B19,11,10,18",
        &["22x22"],
        "22x22",
        ["22>13>6>15>22", "22>15>6>13>22"],
    );
}

/// Turkish: the king on d4 takes d5, e6, f5, e4 round a square either way
/// (each landing chosen so the chain goes on), back to d4 (one move), or on
/// past it along the 4th rank or the d-file (six more). Constructed.
#[test]
fn duplicate_routes_turkish() {
    check_loop::<Turkish>(
        "W:WKd4:Bd5,e6,f5,e4",
        &[
            "d4xa4", "d4xb4", "d4xc4", "d4xd1", "d4xd2", "d4xd3", "d4xd4",
        ],
        "d4xd4",
        ["d4>d6>f6>f4>d4", "d4>f4>f6>d6>d4"],
    );
}

/// Men that capture backwards can loop too: the man on c3 (37 on 10x10)
/// takes the four men round the diamond either way and comes back to its
/// start square; one move, two routes. Constructed.
#[test]
fn duplicate_routes_men() {
    let fen = "W:Wc3:Bb4,b6,d4,d6";
    let loop_routes = ["c3>a5>c7>e5>c3", "c3>e5>c7>a5>c3"];
    check_loop::<Russian>(fen, &["c3:c3"], "c3:c3", loop_routes);
    check_loop::<Brazilian>(fen, &["c3xc3"], "c3xc3", loop_routes);
    check_loop::<International>(
        "W:W37:B31,21,32,22",
        &["37x37"],
        "37x37",
        ["37>26>17>28>37", "37>28>17>26>37"],
    );
}

/// Two chains that end on the same square but take different pieces are
/// different moves; both are listed (free choice or equal length) and are
/// written with their full routes, the short form being ambiguous. English:
/// the man on 22 takes 17 and 9, or 18 and 10, ending on 6 either way;
/// Italian and Spanish: the same on their turned boards. Constructed.
#[test]
fn same_end_different_pieces_are_different_moves() {
    assert_moves::<English>("W:W22:B17,9,18,10", &["22x13x6", "22x15x6"]);
    assert_moves::<Italian>("W:W22:B18,10,19,11", &["22x13x6", "22x15x6"]);
    assert_moves::<Spanish>("W:W11:B15,23,14,22", &["11x18x27", "11x20x27"]);
    let pos = parse_fen::<English>("W:W22:B17,9,18,10").unwrap();
    assert!(parse_move(&pos, "22x6").is_err(), "22x6 is ambiguous");
    let a = parse_move(&pos, "22x13x6").unwrap();
    let b = parse_move(&pos, "22x15x6").unwrap();
    assert_ne!(a, b);
    assert_eq!(a.to, b.to);
}

// ---------------------------------------------------------------------------
// Flying kings: landing squares (RULES.md "king captures: from a distance:
// over one enemy piece with any empty squares before it, lands on any empty
// square beyond"; note: "a landing from which a further capture is
// possible can't be swapped for one from which it is not").
// ---------------------------------------------------------------------------

/// Every empty square beyond the captured piece is a landing square.
/// International from perft.md §5 (`KingJumpRange`); the others
/// constructed.
#[test]
fn flying_king_lands_anywhere_beyond() {
    assert_moves::<International>("W:WK46:B23", &["46x19", "46x14", "46x10", "46x5"]);
    assert_moves::<Brazilian>("W:WKh8:Bd4", &["h8xa1", "h8xb2", "h8xc3"]);
    assert_moves::<Russian>("W:WKa1:Bc3", &["a1:d4", "a1:e5", "a1:f6", "a1:g7", "a1:h8"]);
    assert_moves::<Spanish>("W:WK1:B10", &["1x14", "1x19", "1x23", "1x28", "1x32"]);
    assert_moves::<Turkish>("W:WKa1:Ba3", &["a1xa4", "a1xa5", "a1xa6", "a1xa7", "a1xa8"]);
}

/// Short kings (English, Italian) land right behind the piece and do not
/// capture from a distance. English a1 (29) over b2 (25) lands on c3 (22)
/// only; Italian d1 (30) over e2 (27) on f3 (23) only (perft.md §3
/// `KingsJumpPawnsAndKings`). Constructed (English).
#[test]
fn short_king_lands_right_behind() {
    assert_moves::<English>("W:WK29:B25", &["29x22"]);
    assert_moves::<Italian>("W:WK30:B27", &["30x23"]);
}

/// A flying king must land where it can go on capturing, if it can: of the
/// squares beyond the first piece only one allows a second capture, and
/// only that chain is legal, in every variant, including Russian with its
/// free choice. International: king 46 (a1) over 37 (c3), only from 23 (f6)
/// can it take 34 (h4), landing on 40 or 45. Brazilian and Russian: king
/// a1 over c3, only from f6 can it take g5. Spanish: king h1 (1) over f3
/// (10), only from d5 (19) can it take c4 (15), landing on b3 (12) or a2
/// (8). Turkish: king a1 over a3, only from a6 can it take b6 (landing on
/// c6, d6 being White's). Constructed.
#[test]
fn flying_king_must_land_where_it_can_continue() {
    assert_moves::<International>("W:WK46:B37,34", &["46x40", "46x45"]);
    assert_eq!(
        routes::<International>("W:WK46:B37,34"),
        ["46>23>40", "46>23>45"]
    );
    assert_moves::<Brazilian>("W:WKa1:Bc3,g5", &["a1xh4"]);
    assert_moves::<Russian>("W:WKa1:Bc3,g5", &["a1:h4"]);
    assert_eq!(routes::<Russian>("W:WKa1:Bc3,g5"), ["a1>f6>h4"]);
    assert_moves::<Spanish>("W:WK1:B10,15", &["1x12", "1x8"]);
    assert_eq!(routes::<Spanish>("W:WK1:B10,15"), ["1>19>12", "1>19>8"]);
    assert_moves::<Turkish>("W:WKa1,d6:Ba3,b6", &["a1xc6"]);
    assert_eq!(routes::<Turkish>("W:WKa1,d6:Ba3,b6"), ["a1>a6>c6"]);
}

// ---------------------------------------------------------------------------
// A chain must continue when it can (RULES.md: "If the same piece can
// capture again from where it lands, it must go on. The whole chain is one
// move").
// ---------------------------------------------------------------------------

/// Checks that `fen` has the single legal move `full` and that the first
/// jump alone (`half`) is not a legal move.
fn check_must_continue<V: Rules>(fen: &str, full: &str, half: &str) {
    assert_moves::<V>(fen, &[full]);
    let pos = parse_fen::<V>(fen).unwrap();
    assert!(
        parse_move(&pos, half).is_err(),
        "{}: {half} stops a chain that can go on",
        V::NAME
    );
}

/// A man with a second capture available must take it, in every variant,
/// including those with free choice (English, Russian). Constructed.
#[test]
fn man_chain_must_continue() {
    check_must_continue::<International>("W:W33:B28,17", "33x11", "33x22");
    check_must_continue::<Brazilian>("W:Wc3:Bd4,f6", "c3xg7", "c3xe5");
    check_must_continue::<Russian>("W:Wc3:Bd4,f6", "c3:g7", "c3:e5");
    check_must_continue::<English>("W:W22:B18,11", "22x8", "22x15");
    check_must_continue::<Italian>("W:W30:B27,19", "30x14", "30x23");
    check_must_continue::<Spanish>("W:W11:B15,23", "11x27", "11x20");
    check_must_continue::<Turkish>("W:Wd3:Bd4,d6", "d3xd7", "d3xd5");
}

/// A short king with a second capture available must take it too: the
/// English king on 22 (c3) takes 18 and then 11 (it could also turn, but
/// 9 is not there). Italian: the same on the turned board. Constructed.
#[test]
fn short_king_chain_must_continue() {
    check_must_continue::<English>("W:WK22:B18,11", "22x8", "22x15");
    check_must_continue::<Italian>("W:WK22:B19,12", "22x8", "22x15");
}

// ---------------------------------------------------------------------------
// Capturing is compulsory (RULES.md "Capturing is compulsory").
// ---------------------------------------------------------------------------

/// Checks that a capture is the only legal move of `fen`, and that a quiet
/// move `quiet` that would be legal without it is refused.
fn check_compulsory<V: Rules>(fen: &str, capture: &str, quiet: &str) {
    assert_moves::<V>(fen, &[capture]);
    let pos = parse_fen::<V>(fen).unwrap();
    assert!(parse_move(&pos, quiet).is_err(), "{}: {quiet}", V::NAME);
    assert!(parse_move(&pos, capture).is_ok(), "{}: {capture}", V::NAME);
}

/// With a capture available, no quiet move is legal, in every variant.
/// International from perft.md §5 (`PawnJump`, one more man added); the
/// others constructed.
#[test]
fn capture_is_compulsory() {
    check_compulsory::<International>("W:W28,32,45:B23", "28x19", "45-40");
    check_compulsory::<Brazilian>("W:Wa1,c3:Bd4", "c3xe5", "a1-b2");
    check_compulsory::<Russian>("W:Wa1,c3:Bd4", "c3:e5", "a1-b2");
    check_compulsory::<English>("W:W22,30:B18", "22x15", "30-26");
    check_compulsory::<Italian>("W:W21,30:B27", "30x23", "21-17");
    check_compulsory::<Spanish>("W:W3,11:B15", "11x20", "3-7");
    check_compulsory::<Turkish>("W:Wa2,d4:Bd5", "d4xd6", "a2-a3");
}

/// A king too must capture rather than move, and a capture by any piece
/// excludes every quiet move of the side, kings' included. Russian: the
/// king on a1 takes b2 and lands on c3 only (d4 is White's). Constructed.
#[test]
fn capture_is_compulsory_for_kings() {
    check_compulsory::<Russian>("W:WKa1,d4:Bb2", "a1:c3", "d4-c5");
    check_compulsory::<English>("W:WK29,K1:B25", "29x22", "1-5");
    check_compulsory::<Turkish>("W:WKa1,Kh8:Ba7", "a1xa8", "h8-h1");
}
