//! Notation: FEN and move-text round trips over random playouts in every
//! variant, the start positions and FEN forms of `shared/RULES.md` and
//! `reference/ecosystem.md` §3, bad input (which must give an error naming
//! the problem, never a panic), and the board diagram.

use kondavo::geometry::Geometry;
use kondavo::movegen::{generate, MoveList};
use kondavo::notation::display::diagram;
use kondavo::notation::fen::{parse_fen, write_fen};
use kondavo::notation::movetext::{move_to_pdn, move_with_captures, parse_move};
use kondavo::position::Position;
use kondavo::rules::{
    Brazilian, Color, English, International, Italian, Numbering, Rules, Russian, Spanish, Turkish,
};
use kondavo::{with_rules, Variant};
use proptest::prelude::*;

// ---------------------------------------------------------------------------
// Helpers

mod common;
use common::XorShift;

fn legal<R: Rules + PartialEq>(pos: &Position<R>) -> MoveList {
    let mut list = MoveList::new();
    generate(pos, &mut list);
    list
}

const GAMES: usize = 50;
const PLIES: usize = 150;

/// Calls `visit` on every position of `GAMES` random playouts of up to
/// `PLIES` plies from the start position (a playout stops when the side to
/// move has no legal move). The final position is visited too.
fn playouts<R: Rules + PartialEq>(mut visit: impl FnMut(&Position<R>, &MoveList)) {
    for game in 0..GAMES {
        let mut rng = XorShift::new(1000 + game as u64);
        let mut pos = Position::<R>::start();
        for ply in 0..=PLIES {
            let list = legal(&pos);
            visit(&pos, &list);
            if list.is_empty() || ply == PLIES {
                break;
            }
            pos = pos.played(&list[rng.below(list.len())]);
        }
    }
}

/// A random position with a few men and many kings for each side (men off
/// their promotion row), to meet long king captures more often than games
/// from the start do.
fn random_position<R: Rules + PartialEq>(rng: &mut XorShift) -> Position<R> {
    let n = R::Geo::NUM_SQUARES;
    let mut bb = [0u64; 2];
    let mut kings = 0u64;
    for (c, color) in [Color::White, Color::Black].into_iter().enumerate() {
        let pieces = 2 + rng.below(7);
        for _ in 0..pieces {
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

/// As [`playouts`], from random king-rich positions: 400 playouts of up
/// to 40 plies.
fn king_playouts<R: Rules + PartialEq>(mut visit: impl FnMut(&Position<R>, &MoveList)) {
    let mut rng = XorShift::new(77);
    for _ in 0..400 {
        let mut pos = random_position::<R>(&mut rng);
        for ply in 0..=40 {
            let list = legal(&pos);
            visit(&pos, &list);
            if list.is_empty() || ply == 40 {
                break;
            }
            pos = pos.played(&list[rng.below(list.len())]);
        }
    }
}

/// Runs `f` once per variant with the rules type bound.
macro_rules! each_variant {
    ($R:ident => $body:expr) => {
        for v in Variant::ALL {
            with_rules!(v, $R => $body)
        }
    };
}

fn joined(range: std::ops::RangeInclusive<u32>) -> String {
    range.map(|n| n.to_string()).collect::<Vec<_>>().join(",")
}

/// The error of a parse that must fail.
fn fen_error<R: Rules + PartialEq>(text: &str) -> String {
    match parse_fen::<R>(text) {
        Ok(p) => panic!(
            "{}: FEN {:?} should be rejected, was read as {}",
            R::NAME,
            shorten(text),
            write_fen(&p)
        ),
        Err(e) => {
            assert!(!e.0.trim().is_empty(), "{}: empty error message", R::NAME);
            e.0
        }
    }
}

fn move_error<R: Rules + PartialEq>(pos: &Position<R>, text: &str) -> String {
    match parse_move(pos, text) {
        Ok(m) => panic!(
            "{}: move {:?} should be rejected in {}, was read as {}",
            R::NAME,
            shorten(text),
            write_fen(pos),
            move_to_pdn(pos, &m)
        ),
        Err(e) => {
            assert!(!e.0.trim().is_empty(), "{}: empty error message", R::NAME);
            e.0
        }
    }
}

fn shorten(s: &str) -> String {
    if s.len() <= 80 {
        s.to_string()
    } else {
        format!(
            "{}... ({} bytes)",
            s.chars().take(60).collect::<String>(),
            s.len()
        )
    }
}

/// Asserts that `msg` contains at least one of `needles` (case-insensitive).
fn assert_mentions(msg: &str, needles: &[&str], what: &str) {
    let lower = msg.to_lowercase();
    assert!(
        needles.iter().any(|n| lower.contains(&n.to_lowercase())),
        "{what}: error {:?} mentions none of {needles:?}",
        shorten(msg)
    );
}

// ---------------------------------------------------------------------------
// 1. FEN round trips

fn fen_round_trips<R: Rules + PartialEq>() {
    let mut positions = 0usize;
    let mut with_kings = 0usize;
    let mut failures = Vec::new();
    let mut check = |pos: &Position<R>, _: &MoveList| {
        positions += 1;
        if pos.kings() != 0 {
            with_kings += 1;
        }
        let fen = write_fen(pos);
        let back = parse_fen::<R>(&fen);
        if back != Ok(*pos) && failures.len() < 5 {
            failures.push(format!("{fen} -> {back:?}"));
        }
        // The written form is canonical: writing the parsed position again
        // gives the same text.
        if let Ok(p) = back {
            assert_eq!(write_fen(&p), fen, "{}", R::NAME);
        }
    };
    playouts::<R>(&mut check);
    king_playouts::<R>(&mut check);
    assert!(
        failures.is_empty(),
        "{}: FEN round trip fails:\n{}",
        R::NAME,
        failures.join("\n")
    );
    assert!(
        positions > GAMES * 20,
        "{}: only {positions} positions",
        R::NAME
    );
    assert!(
        with_kings > 0,
        "{}: no playout position had a king",
        R::NAME
    );
}

#[test]
fn fen_round_trips_every_variant() {
    each_variant!(R => fen_round_trips::<R>());
}

// ---------------------------------------------------------------------------
// 2. Move text round trips

fn move_round_trips<R: Rules + PartialEq>() {
    let mut moves = 0usize;
    let mut captures = 0usize;
    let mut multi = 0usize;
    let mut routes = 0usize;
    let mut failures = Vec::new();
    let mut check = |pos: &Position<R>, list: &MoveList| {
        for mv in list.iter() {
            moves += 1;
            let pdn = move_to_pdn(pos, mv);
            let hub = move_with_captures::<R>(mv);
            let sep_count = pdn.matches(['-', 'x', ':']).count();
            if mv.is_capture() {
                captures += 1;
                if mv.capture_count() > 1 {
                    multi += 1;
                }
                // Captures are written with the variant's separator; the
                // short form unless another legal capture has the same
                // start and end.
                assert!(
                    pdn.contains(R::CAPTURE_SEPARATOR) && !pdn.contains('-'),
                    "{}: capture written {pdn:?}",
                    R::NAME
                );
                let twin = list
                    .iter()
                    .any(|m| m != mv && m.from == mv.from && m.to == mv.to);
                if twin {
                    routes += 1;
                } else {
                    assert_eq!(
                        sep_count,
                        1,
                        "{}: unambiguous capture {pdn:?} in {} written with its route",
                        R::NAME,
                        write_fen(pos)
                    );
                }
                assert_eq!(
                    hub.matches('x').count() as u32,
                    1 + mv.capture_count(),
                    "{}: Hub capture {hub:?} must list every captured piece",
                    R::NAME
                );
            } else {
                assert_eq!(sep_count, 1, "{}: quiet move written {pdn:?}", R::NAME);
                assert!(pdn.contains('-'), "{}: quiet move written {pdn:?}", R::NAME);
                assert_eq!(hub, pdn, "{}: Hub and PDN quiet moves agree", R::NAME);
            }
            for text in [&pdn, &hub] {
                let back = parse_move(pos, text);
                if back != Ok(*mv) && failures.len() < 8 {
                    failures.push(format!(
                        "FEN {} move {text:?} ({mv:?}) -> {back:?}",
                        write_fen(pos)
                    ));
                }
            }
        }
    };
    playouts::<R>(&mut check);
    king_playouts::<R>(&mut check);
    assert!(
        failures.is_empty(),
        "{}: move text round trip fails:\n{}",
        R::NAME,
        failures.join("\n")
    );
    assert!(moves > 1000, "{}: only {moves} moves", R::NAME);
    assert!(captures > 50, "{}: only {captures} captures", R::NAME);
    assert!(multi > 0, "{}: no multiple capture was met", R::NAME);
    eprintln!(
        "{}: {moves} moves, {captures} captures, {multi} multiple, {routes} written with a route",
        R::NAME
    );
}

#[test]
fn move_text_round_trips_every_variant() {
    each_variant!(R => move_round_trips::<R>());
}

/// Two captures with the same start and end but different pieces taken are
/// written with their routes, and the short form is refused as ambiguous.
#[test]
fn ambiguous_capture_needs_the_route() {
    let pos = parse_fen::<English>("W:W31:B18,19,26,27").unwrap();
    let list = legal(&pos);
    assert_eq!(list.len(), 2);
    let mut texts: Vec<String> = list.iter().map(|m| move_to_pdn(&pos, m)).collect();
    texts.sort();
    assert_eq!(texts, ["31x22x15", "31x24x15"]);
    for m in list.iter() {
        assert_eq!(parse_move(&pos, &move_to_pdn(&pos, m)), Ok(*m));
        assert_eq!(parse_move(&pos, &move_with_captures::<English>(m)), Ok(*m));
    }
    let e = parse_move(&pos, "31x15").unwrap_err().0;
    assert_mentions(&e, &["ambiguous"], "31x15");
    assert_eq!(
        parse_move(&pos, "31x22x15"),
        parse_move(&pos, "31x15x18x26")
    );
    assert_eq!(parse_move(&pos, "31x24x15"), parse_move(&pos, "31x15x27"));
    move_error(&pos, "31x23x15");
    each_variant!(R => ambiguous_diamond::<R>());
}

/// The same diamond (a man taking two pieces either way round) built from
/// coordinates, in the variants whose men capture forward only.
fn ambiguous_diamond<R: Rules + PartialEq>() {
    if R::MEN_CAPTURE_BACKWARD {
        return;
    }
    let at = |f: usize, r: usize| R::Geo::bit(R::Geo::from_coords(f, r).expect("playable"));
    let (m, b) = if R::Geo::DIAGONAL {
        (at(4, 0), at(3, 1) | at(3, 3) | at(5, 1) | at(5, 3))
    } else {
        // Turkish men: the playouts above meet its ambiguous captures.
        return;
    };
    let pos = Position::<R>::from_parts(m, b, 0, Color::White);
    let list = legal(&pos);
    assert_eq!(list.len(), 2, "{} {}", R::NAME, write_fen(&pos));
    let texts: Vec<String> = list.iter().map(|mv| move_to_pdn(&pos, mv)).collect();
    assert_ne!(texts[0], texts[1], "{}", R::NAME);
    for (mv, t) in list.iter().zip(&texts) {
        assert_eq!(
            t.matches(R::CAPTURE_SEPARATOR).count(),
            2,
            "{}: {t}",
            R::NAME
        );
        assert_eq!(parse_move(&pos, t), Ok(*mv), "{}: {t}", R::NAME);
    }
    let short: String = {
        let parts: Vec<&str> = texts[0].split(R::CAPTURE_SEPARATOR).collect();
        format!("{}{}{}", parts[0], R::CAPTURE_SEPARATOR, parts[2])
    };
    let e = move_error(&pos, &short);
    assert_mentions(&e, &["ambiguous"], R::NAME);
}

// ---------------------------------------------------------------------------
// 3. Known FEN facts

#[test]
fn international_start() {
    let start = Position::<International>::start();
    assert_eq!(
        write_fen(&start),
        format!("W:W{}:B{}", joined(31..=50), joined(1..=20))
    );
    assert_eq!(parse_fen::<International>("W:W31-50:B1-20"), Ok(start));
    assert_eq!(start.side(), Color::White);
    assert_eq!(start.count(Color::White), 20);
    assert_eq!(start.count(Color::Black), 20);
    assert!(parse_move(&start, "32-28").is_ok());
    // Black is at the top: 17-22 is not a White move.
    assert!(parse_move(&start, "17-22").is_err());
}

#[test]
fn english_start_black_moves_first() {
    let start = Position::<English>::start();
    assert_eq!(start.side(), Color::Black);
    assert_eq!(
        write_fen(&start),
        format!("B:W{}:B{}", joined(21..=32), joined(1..=12))
    );
    assert_eq!(parse_fen::<English>("B:W21-32:B1-12"), Ok(start));
    assert!(parse_move(&start, "11-15").is_ok());
    assert!(
        parse_move(&start, "22-18").is_err(),
        "White does not move first"
    );
}

#[test]
fn italian_start_and_first_capture() {
    let start = Position::<Italian>::start();
    assert_eq!(start.side(), Color::White);
    assert_eq!(
        write_fen(&start),
        format!("W:W{}:B{}", joined(21..=32), joined(1..=12))
    );
    assert_eq!(parse_fen::<Italian>("W:W21-32:B1-12"), Ok(start));
    assert!(parse_move(&start, "22-19").is_ok());

    // 30 = d1, 27 = e2, 23 = f3 on the turned board.
    let pos = parse_fen::<Italian>("W:W30:B27").unwrap();
    let list = legal(&pos);
    assert_eq!(list.len(), 1, "W:W30:B27 has exactly one move");
    assert_eq!(move_to_pdn(&pos, &list[0]), "30x23");
    assert_eq!(move_with_captures::<Italian>(&list[0]), "30x23x27");
    assert_eq!(parse_move(&pos, "30x23"), Ok(list[0]));
    assert_eq!(write_fen(&pos.played(&list[0])), "B:W23:B");
}

#[test]
fn spanish_start_white_on_1_to_12() {
    let start = Position::<Spanish>::start();
    assert_eq!(start.side(), Color::White);
    assert_eq!(
        write_fen(&start),
        format!("W:W{}:B{}", joined(1..=12), joined(21..=32))
    );
    assert_eq!(parse_fen::<Spanish>("W:W1-12:B21-32"), Ok(start));
    // 9 = h3, 10 = f3, 13 = g4, 14 = e4 (from White's lower right).
    for m in ["9-13", "10-13", "10-14"] {
        assert!(parse_move(&start, m).is_ok(), "{m}");
    }
    assert!(parse_move(&start, "9-14").is_err());
}

const RUSSIAN_START: &str =
    "W:Wa1,c1,e1,g1,b2,d2,f2,h2,a3,c3,e3,g3:Bb6,d6,f6,h6,a7,c7,e7,g7,b8,d8,f8,h8";

fn algebraic_start<R: Rules + PartialEq>() {
    let start = Position::<R>::start();
    assert_eq!(start.side(), Color::White, "{}", R::NAME);
    assert_eq!(write_fen(&start), RUSSIAN_START, "{}", R::NAME);
    assert_eq!(parse_fen::<R>(RUSSIAN_START), Ok(start), "{}", R::NAME);
    // English-numbered FENs from other tools: 1 = b8 ... 29 = a1, 32 = g1.
    assert_eq!(parse_fen::<R>("W:W21-32:B1-12"), Ok(start), "{}", R::NAME);
    assert_eq!(
        parse_fen::<R>("W:W29:B25"),
        parse_fen::<R>("W:Wa1:Bb2"),
        "{}",
        R::NAME
    );
    assert_eq!(
        write_fen(&parse_fen::<R>("B:WK32,5:B4").unwrap()),
        "B:WKg1,a7:Bh8",
        "{}",
        R::NAME
    );
    assert!(parse_move(&start, "c3-d4").is_ok(), "{}", R::NAME);
}

#[test]
fn russian_and_brazilian_start_algebraic_and_numeric() {
    algebraic_start::<Russian>();
    algebraic_start::<Brazilian>();
}

#[test]
fn turkish_start_16_men_each() {
    let start = Position::<Turkish>::start();
    assert_eq!(start.side(), Color::White);
    assert_eq!(start.count(Color::White), 16);
    assert_eq!(start.count(Color::Black), 16);
    let rank = |r: u32| {
        "abcdefgh"
            .chars()
            .map(|f| format!("{f}{r}"))
            .collect::<Vec<_>>()
            .join(",")
    };
    let fen = format!("W:W{},{}:B{},{}", rank(2), rank(3), rank(6), rank(7));
    assert_eq!(write_fen(&start), fen);
    assert_eq!(parse_fen::<Turkish>(&fen), Ok(start));
    assert!(parse_move(&start, "d3-d4").is_ok());
    assert!(parse_move(&start, "d2-d3").is_err(), "d3 is occupied");
}

#[test]
fn ranges_and_kings() {
    let p = parse_fen::<International>("W:WK31-33,34,K50:B1-3,K4").unwrap();
    assert_eq!(write_fen(&p), "W:WK31,K32,K33,34,K50:B1,2,3,K4");
    assert_eq!(p.kings_of(Color::White).count_ones(), 4);
    assert_eq!(p.kings_of(Color::Black).count_ones(), 1);
    assert_eq!(p.men(Color::White).count_ones(), 1);
    // Lower-case letters, leading zeros, spaces, quotes and a trailing dot.
    assert_eq!(
        parse_fen::<International>(" \"w:wk031-033,34,k50:b01-3,K4.\" "),
        Ok(p)
    );
    let t = parse_fen::<Turkish>("B:WKa1,h7:Bkd4,e5").unwrap();
    assert_eq!(write_fen(&t), "B:WKa1,h7:BKd4,e5");
    assert_eq!(t.side(), Color::Black);
    assert_eq!(t.kings().count_ones(), 2);
}

fn sections<R: Rules + PartialEq>() {
    let start = Position::<R>::start();
    let fen = write_fen(&start);
    let mut parts = fen.split(':');
    let (turn, w, b) = (
        parts.next().unwrap(),
        parts.next().unwrap(),
        parts.next().unwrap(),
    );
    // Either order.
    assert_eq!(
        parse_fen::<R>(&format!("{turn}:{b}:{w}")),
        Ok(start),
        "{}",
        R::NAME
    );
    // `?` is the first player.
    assert_eq!(
        parse_fen::<R>(&format!("?:{w}:{b}")),
        Ok(start),
        "{}",
        R::NAME
    );
    // A missing section means no pieces of that colour.
    let only_white = parse_fen::<R>(&format!("{turn}:{w}")).unwrap();
    assert_eq!(only_white.count(Color::Black), 0, "{}", R::NAME);
    assert_eq!(only_white.pieces(Color::White), start.pieces(Color::White));
    let only_black = parse_fen::<R>(&format!("W:{b}")).unwrap();
    assert_eq!(only_black.count(Color::White), 0, "{}", R::NAME);
    assert_eq!(only_black.pieces(Color::Black), start.pieces(Color::Black));
    let empty = parse_fen::<R>("B").unwrap();
    assert_eq!(empty.occupied(), 0, "{}", R::NAME);
    assert_eq!(empty.side(), Color::Black, "{}", R::NAME);
    assert_eq!(write_fen(&empty), "B:W:B", "{}", R::NAME);
    assert_eq!(parse_fen::<R>("B:W:B"), Ok(empty), "{}", R::NAME);
    // The explicit turn wins over the variant's first player.
    let other = R::FIRST_TO_MOVE.flip();
    let flipped = parse_fen::<R>(&format!("{}:{w}:{b}", other.letter())).unwrap();
    assert_eq!(flipped.side(), other, "{}", R::NAME);
    assert_ne!(flipped, start, "{}", R::NAME);
    assert_ne!(flipped.key(), start.key(), "{}", R::NAME);
}

#[test]
fn sections_order_missing_and_first_player() {
    each_variant!(R => sections::<R>());
    assert_eq!(
        parse_fen::<English>("?:W21-32:B1-12").unwrap().side(),
        Color::Black
    );
    assert_eq!(
        parse_fen::<International>("?:W31-50:B1-20").unwrap().side(),
        Color::White
    );
}

// ---------------------------------------------------------------------------
// 4. Bad input

/// Any input: no panic; an error has a message; a success writes back to a
/// FEN that reads as the same position.
fn check_fen_input<R: Rules + PartialEq>(text: &str) {
    match parse_fen::<R>(text) {
        Ok(p) => {
            assert_eq!(p.key(), p.compute_key(), "{}: {text:?}", R::NAME);
            assert_eq!(
                parse_fen::<R>(&write_fen(&p)),
                Ok(p),
                "{}: {text:?}",
                R::NAME
            );
        }
        Err(e) => assert!(!e.0.trim().is_empty(), "{}: {text:?}", R::NAME),
    }
}

/// Any move text in any position: no panic; a success is a legal move.
fn check_move_input<R: Rules + PartialEq>(pos: &Position<R>, text: &str) {
    match parse_move(pos, text) {
        Ok(m) => assert!(
            legal(pos).contains(&m),
            "{}: {text:?} read as an illegal move {m:?}",
            R::NAME
        ),
        Err(e) => assert!(!e.0.trim().is_empty(), "{}: {text:?}", R::NAME),
    }
}

/// A position of variant `R` with captures to choose from, for move inputs.
fn capture_position<R: Rules + PartialEq>() -> Position<R> {
    // The first position of a fixed playout where a capture is on.
    let mut rng = XorShift::new(7);
    let mut pos = Position::<R>::start();
    for _ in 0..200 {
        let list = legal(&pos);
        if list.is_empty() {
            break;
        }
        if list.iter().any(|m| m.is_capture()) {
            return pos;
        }
        pos = pos.played(&list[rng.below(list.len())]);
    }
    Position::<R>::start()
}

/// Valid FENs to mutate, for variant `R`.
fn fen_seeds<R: Rules + PartialEq>() -> Vec<String> {
    let mut v = vec![
        write_fen(&Position::<R>::start()),
        write_fen(&capture_position::<R>()),
    ];
    if R::NUMBERING == Numbering::Algebraic {
        v.push("B:WKa1,c3:Bd4,Kh8".to_string());
    } else {
        v.push("B:WK1,6-8:B20-22,K30".to_string());
    }
    v
}

fn mutate(seed: &str, edits: &[(u8, usize, char)]) -> String {
    let mut chars: Vec<char> = seed.chars().collect();
    for &(kind, at, c) in edits {
        let i = if chars.is_empty() {
            0
        } else {
            at % (chars.len() + 1)
        };
        match kind % 4 {
            0 => chars.insert(i, c),
            1 if i < chars.len() => {
                chars.remove(i);
            }
            2 if i < chars.len() => chars[i] = c,
            _ => {
                // Duplicate a slice, as a copy-paste slip would.
                let j = (i + 3).min(chars.len());
                let slice: Vec<char> = chars[i.min(j)..j].to_vec();
                for (k, s) in slice.into_iter().enumerate() {
                    chars.insert(j + k, s);
                }
            }
        }
    }
    chars.into_iter().collect()
}

fn edit_char() -> impl Strategy<Value = char> {
    prop_oneof![
        3 => prop::sample::select(
            "WBKwbk?:,-x.0123456789abcdefghijz \"\t\u{e9}\u{ff11}\u{0}".chars().collect::<Vec<_>>()
        ),
        1 => any::<char>(),
    ]
}

fn edits() -> impl Strategy<Value = Vec<(u8, usize, char)>> {
    prop::collection::vec((any::<u8>(), any::<usize>(), edit_char()), 1..6)
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 2000,
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    #[test]
    fn fen_arbitrary_text_never_panics(s in "\\PC{0,40}") {
        each_variant!(R => check_fen_input::<R>(&s));
    }

    #[test]
    fn fen_like_text_never_panics(s in "[WBK?wbk]?(:[WBKwbk?X]{0,2}[K0-9a-j,\\-]{0,14}){0,4}") {
        each_variant!(R => check_fen_input::<R>(&s));
    }

    #[test]
    fn mutated_fens_never_panic(which in 0usize..3, e in edits()) {
        each_variant!(R => {
            let seeds = fen_seeds::<R>();
            let text = mutate(&seeds[which % seeds.len()], &e);
            check_fen_input::<R>(&text);
        });
    }

    #[test]
    fn move_arbitrary_text_never_panics(s in "\\PC{0,24}") {
        each_variant!(R => {
            check_move_input::<R>(&Position::<R>::start(), &s);
            check_move_input::<R>(&capture_position::<R>(), &s);
        });
    }

    #[test]
    fn move_like_text_never_panics(s in "[a-j0-9]{0,3}([\\-x:X][a-j0-9]{0,3}){0,5}") {
        each_variant!(R => {
            check_move_input::<R>(&Position::<R>::start(), &s);
            check_move_input::<R>(&capture_position::<R>(), &s);
        });
    }

    #[test]
    fn mutated_moves_never_panic(which in any::<usize>(), e in edits()) {
        each_variant!(R => {
            for pos in [Position::<R>::start(), capture_position::<R>()] {
                let list = legal(&pos);
                let mv = list[which % list.len()];
                for seed in [move_to_pdn(&pos, &mv), move_with_captures::<R>(&mv)] {
                    check_move_input::<R>(&pos, &mutate(&seed, &e));
                }
            }
        });
    }
}

#[test]
fn square_off_the_board() {
    let e = fen_error::<International>("W:W31-50:B51");
    assert_mentions(&e, &["51"], "International 51");
    let e = fen_error::<International>("W:W0");
    assert_mentions(&e, &["0"], "International 0");
    let e = fen_error::<English>("B:W33");
    assert_mentions(&e, &["33"], "English 33");
    let e = fen_error::<Russian>("W:Wi1");
    assert_mentions(&e, &["i1"], "Russian i1");
    let e = fen_error::<Turkish>("W:Wa9");
    assert_mentions(&e, &["a9"], "Turkish a9");
    let e = fen_error::<Russian>("W:W33");
    assert_mentions(&e, &["33"], "Russian numeric 33");
}

/// A man on its own promotion row would have been crowned: such a FEN is
/// an error naming the square, in every variant, while a king there, or a
/// man of the other side (its own back row), is fine.
fn men_on_promotion_row<R: Rules + PartialEq>() {
    use kondavo::notation::square_name;
    for c in [Color::White, Color::Black] {
        let (own, other) = match c {
            Color::White => ('W', 'B'),
            Color::Black => ('B', 'W'),
        };
        let mut rejected = 0;
        for s in 0..R::Geo::NUM_SQUARES {
            if R::promotion_row(c) & R::Geo::bit(s) == 0 {
                continue;
            }
            let name = square_name::<R>(s);
            let man = format!("W:{own}{name}:{other}");
            let e = fen_error::<R>(&man);
            assert!(
                e.contains(&format!("man on {name} ")) && e.contains("promotion row"),
                "{}: {man}: {e}",
                R::NAME
            );
            let king = parse_fen::<R>(&format!("W:{own}K{name}:{other}"))
                .unwrap_or_else(|e| panic!("{}: king on {name}: {e}", R::NAME));
            assert_eq!(king.kings_of(c), R::Geo::bit(s), "{}", R::NAME);
            let theirs = parse_fen::<R>(&format!("W:{other}{name}:{own}"))
                .unwrap_or_else(|e| panic!("{}: other man on {name}: {e}", R::NAME));
            assert_eq!(theirs.men(c.flip()), R::Geo::bit(s), "{}", R::NAME);
            rejected += 1;
        }
        assert_eq!(
            rejected,
            R::Geo::WIDTH / if R::Geo::DIAGONAL { 2 } else { 1 }
        );
    }
}

#[test]
fn man_on_its_promotion_row_is_an_error() {
    for v in Variant::ALL {
        with_rules!(v, R => men_on_promotion_row::<R>());
    }
    // White promotes on 1-5 in International, Black on 46-50.
    let e = fen_error::<International>("W:W3:B40");
    assert!(e.contains("white man on 3 "), "{e}");
    let e = fen_error::<International>("W:W31-45:B1-19,46");
    assert!(e.contains("black man on 46 "), "{e}");
    assert!(parse_fen::<International>("W:W6,K3:B45,K46").is_ok());
    // English: Black (first to move) crowns on 29-32, White on 1-4.
    let e = fen_error::<English>("B:W21:B30");
    assert!(e.contains("black man on 30 "), "{e}");
    let e = fen_error::<English>("B:W4:B12");
    assert!(e.contains("white man on 4 "), "{e}");
    // Italian (turned board): White crowns on 1-4, Spanish on 29-32.
    assert!(fen_error::<Italian>("W:W2:B12").contains("white man on 2 "));
    assert!(fen_error::<Spanish>("W:W31:B12").contains("white man on 31 "));
    assert!(fen_error::<Spanish>("W:W12:B3").contains("black man on 3 "));
    // Algebraic boards, numeric FENs too: 1 is b8.
    assert!(fen_error::<Russian>("W:Wd8:Bf6").contains("white man on d8 "));
    assert!(fen_error::<Brazilian>("W:W1:Bf6").contains("white man on b8 "));
    assert!(fen_error::<Turkish>("W:Wd2:Bc1").contains("black man on c1 "));
}

#[test]
fn light_square_in_russian() {
    for v in ["W:Wa2", "W:Wa1,b1", "W:Bh1"] {
        let bad = v.rsplit([',', 'W', 'B']).next().unwrap();
        let e = fen_error::<Russian>(v);
        assert_mentions(&e, &[bad], v);
        let e = fen_error::<Brazilian>(v);
        assert_mentions(&e, &[bad], v);
    }
    let start = Position::<Russian>::start();
    let e = move_error(&start, "b3-b4");
    assert_mentions(&e, &["b3", "b4"], "Russian b3-b4");
}

#[test]
fn numbers_in_turkish() {
    let e = fen_error::<Turkish>("W:W12");
    assert_mentions(&e, &["12"], "Turkish 12");
    let e = fen_error::<Turkish>("W:W1-8:B57-64");
    assert_mentions(&e, &["1", "57"], "Turkish range");
    let e = move_error(&Position::<Turkish>::start(), "20-28");
    assert_mentions(&e, &["20"], "Turkish numeric move");
}

#[test]
fn letters_in_numeric_variants() {
    let e = fen_error::<International>("W:Wa1");
    assert_mentions(&e, &["a1"], "International a1");
    let e = fen_error::<Italian>("W:W21-32:Bc7");
    assert_mentions(&e, &["c7"], "Italian c7");
    let e = move_error(&Position::<English>::start(), "c3-d4");
    assert_mentions(&e, &["c3"], "English c3-d4");
}

#[test]
fn reversed_and_bad_ranges() {
    let e = fen_error::<International>("W:W50-31:B1-20");
    assert_mentions(&e, &["50-31"], "reversed range");
    assert_mentions(&e, &["backward", "revers", "descend"], "reversed range");
    let e = fen_error::<International>("W:W45-55");
    assert_mentions(&e, &["45-55", "55"], "range past the board");
    let e = fen_error::<International>("W:W31-:B1-20");
    assert_mentions(&e, &["31-"], "half a range");
    let e = fen_error::<International>("W:W-31");
    assert_mentions(&e, &["-31"], "half a range");
    let e = fen_error::<International>("W:W31-40-50");
    assert_mentions(&e, &["31-40-50", "40-50"], "three-way range");
    let e = fen_error::<Russian>("W:Wa1-c3");
    assert_mentions(&e, &["a1-c3"], "algebraic range");
}

/// A range whose end is too large for an integer is past the board, not
/// "backwards".
#[test]
fn huge_range_end_is_not_called_backwards() {
    let e = fen_error::<International>("W:W1-99999999999999999999999");
    assert_mentions(&e, &["99999999999999999999999"], "huge range");
    assert!(
        !e.to_lowercase().contains("backward"),
        "range 1-99999999999999999999999 is reported as running backwards: {e:?}"
    );
}

#[test]
fn duplicate_squares() {
    for fen in [
        "W:W31,31",
        "W:W31-35,33",
        "W:W31:B31",
        "W:WK31,31",
        "W:W31-50:B1-20,50",
    ] {
        let e = fen_error::<International>(fen);
        assert_mentions(
            &e,
            &["twice", "duplicate", "more than once", "already"],
            fen,
        );
    }
    let e = fen_error::<Russian>("W:Wa1:B29");
    assert_mentions(&e, &["a1", "29"], "Russian a1 = 29");
    let e = fen_error::<Turkish>("W:Wa1,A1");
    assert_mentions(&e, &["a1"], "Turkish a1, A1");
}

#[test]
fn bad_side_letters() {
    let e = fen_error::<International>("X:W31-50:B1-20");
    assert_mentions(&e, &["'X'", "X:"], "side X");
    let e = fen_error::<International>("W:W31-50:X1");
    assert_mentions(&e, &["X1", "'X'"], "section X1");
    let e = fen_error::<International>("WB:W31-50:B1-20");
    assert_mentions(&e, &["WB"], "side WB");
    let e = fen_error::<International>(":W31-50:B1-20");
    assert_mentions(&e, &["side", "turn"], "no side");
    let e = fen_error::<English>("W:W21-32:B1-12:W1");
    assert_mentions(
        &e,
        &["two", "twice", "again", "duplicate"],
        "two W sections",
    );
}

#[test]
fn empty_input() {
    for text in ["", "   ", "\"\"", "."] {
        let e = fen_error::<International>(text);
        assert_mentions(&e, &["empty"], &format!("FEN {text:?}"));
    }
    let start = Position::<International>::start();
    for text in ["", "  "] {
        let e = move_error(&start, text);
        assert_mentions(&e, &["empty"], &format!("move {text:?}"));
    }
    for text in ["-", "32-", "-28", "32--28", "32x", "x28", "32"] {
        let e = move_error(&start, text);
        assert_mentions(&e, &[text], &format!("move {text:?}"));
    }
}

#[test]
fn illegal_moves_are_named() {
    let start = Position::<International>::start();
    // 32 = d4, 26 = a5: not a neighbour.
    let e = move_error(&start, "32-26");
    assert_mentions(&e, &["32-26"], "32-26");
    assert_mentions(&e, &["legal"], "32-26");
    let e = move_error(&start, "32-51");
    assert_mentions(&e, &["51"], "32-51");
    let e = move_error(&start, "32-28-23");
    assert_mentions(&e, &["32-28-23"], "three squares");
    // A quiet move where a capture is compulsory says so.
    let pos = parse_fen::<International>("W:W32,40:B27").unwrap();
    let e = move_error(&pos, "40-35");
    assert_mentions(&e, &["compulsory", "must capture", "capture"], "40-35");
    assert_eq!(
        move_to_pdn(&pos, &parse_move(&pos, "32x21").unwrap()),
        "32x21"
    );
}

#[test]
fn very_long_inputs() {
    let n = 100 * 1024;
    let start_fen = "W:W31-50:B1-20";
    let cases: Vec<String> = vec![
        format!("W:W{}", "1,".repeat(n / 2)),
        format!("W:W{}", "9".repeat(n)),
        format!("W:W31-50:B{}", "K".repeat(n)),
        format!("W:W31-50:B1-20{}", ":".repeat(n)) + "X",
        "W".repeat(n),
        format!("W:W{}", "1-".repeat(n / 2)),
        format!("{}{}", start_fen, "x".repeat(n)),
    ];
    for text in &cases {
        let t = std::time::Instant::now();
        let e = fen_error::<International>(text);
        assert!(e.len() < 4 * n, "error message of {} bytes", e.len());
        assert!(
            t.elapsed().as_secs() < 2,
            "{} took {:?}",
            shorten(text),
            t.elapsed()
        );
        check_fen_input::<Russian>(text);
        check_fen_input::<Turkish>(text);
    }
    // Padding that the grammar ignores is fine at any length.
    let padded = format!("{}{start_fen}{}", " ".repeat(n), "\n".repeat(n));
    assert_eq!(
        parse_fen::<International>(&padded),
        Ok(Position::<International>::start())
    );
    // Many empty sections are allowed; the position is still the start.
    let empties = format!("{start_fen}{}", ":".repeat(n));
    assert_eq!(
        parse_fen::<International>(&empties),
        Ok(Position::<International>::start())
    );

    let start = Position::<International>::start();
    for text in [
        format!("32-28{}", "x28".repeat(n / 3)),
        format!("32x{}", "23x".repeat(n / 3)) + "19",
        "3".repeat(n),
        format!("32{}28", "-".repeat(n)),
    ] {
        let t = std::time::Instant::now();
        move_error(&start, &text);
        assert!(
            t.elapsed().as_secs() < 2,
            "{} took {:?}",
            shorten(&text),
            t.elapsed()
        );
    }
    let pos = capture_position::<International>();
    move_error(&pos, &format!("32x{}", "23x".repeat(n / 3)));
}

#[test]
fn non_ascii_input() {
    let cases = [
        "W:W\u{ff13}\u{ff11}", // full-width digits
        "\u{1e84}:W31",        // W with diaeresis
        "W:W31,\u{0}",         // NUL
        "W:W31\u{301}",        // combining accent
        "W:W3\u{2212}5",       // minus sign as range
        "W:\u{ff37}31",        // full-width W
        "W:W31,\u{1f600}",     // emoji
        "W:W\u{662}\u{661}",   // Arabic-Indic digits
        "W:K\u{130}1",         // dotted capital I
        "\u{feff}W:W31:B1",    // BOM
    ];
    for text in cases {
        each_variant!(R => {
            let e = fen_error::<R>(text);
            assert!(!e.is_empty());
        });
    }
    // Raw bytes that are not UTF-8, read lossily as a caller would.
    let raw: Vec<u8> = vec![b'W', b':', b'W', 0xff, 0xfe, b'3', b'1', 0xc3];
    let text = String::from_utf8_lossy(&raw);
    each_variant!(R => { fen_error::<R>(&text); });
    let e = fen_error::<Russian>("W:W\u{e9}1");
    assert_mentions(&e, &["\u{e9}1"], "Russian \u{e9}1");
    let e = fen_error::<Russian>("W:Wc\u{0663}");
    assert_mentions(&e, &["c\u{0663}"], "Russian c + Arabic 3");

    for text in [
        "\u{ff13}\u{ff12}-\u{ff12}\u{ff18}",
        "32\u{2013}28",
        "32-2\u{1f600}",
    ] {
        let e = move_error(&Position::<International>::start(), text);
        assert!(!e.is_empty());
    }
    for text in ["c\u{ff13}-d4", "\u{0441}3-d4", "c3-d4\u{301}"] {
        move_error(&Position::<Russian>::start(), text);
        move_error(&Position::<Turkish>::start(), text);
    }
}

/// Algebraic squares are a letter and a rank number, nothing else.
#[test]
fn algebraic_square_with_a_sign() {
    for text in ["W:Wa+1", "W:Wc+3"] {
        fen_error::<Russian>(text);
        fen_error::<Turkish>(text);
    }
    move_error(&Position::<Russian>::start(), "c+3-d4");
}

// ---------------------------------------------------------------------------
// 5. Display

fn diagram_checks<R: Rules + PartialEq>(pos: &Position<R>) {
    let d = diagram(pos);
    let fen = write_fen(pos);
    assert!(
        d.contains(&fen),
        "{}: diagram lacks FEN {fen}:\n{d}",
        R::NAME
    );
    let lines: Vec<&str> = d.lines().collect();
    let algebraic = R::NUMBERING == Numbering::Algebraic;
    let height = R::Geo::HEIGHT;
    assert_eq!(
        lines.len(),
        height + usize::from(algebraic) + 1,
        "{}: diagram rows:\n{d}",
        R::NAME
    );
    let board = &lines[..height];
    let count = |c: char| board.iter().map(|l| l.matches(c).count()).sum::<usize>();
    assert_eq!(
        count('w') as u32,
        pos.men(Color::White).count_ones(),
        "{}\n{d}",
        R::NAME
    );
    assert_eq!(
        count('W') as u32,
        pos.kings_of(Color::White).count_ones(),
        "{}\n{d}",
        R::NAME
    );
    assert_eq!(
        count('b') as u32,
        pos.men(Color::Black).count_ones(),
        "{}\n{d}",
        R::NAME
    );
    assert_eq!(
        count('B') as u32,
        pos.kings_of(Color::Black).count_ones(),
        "{}\n{d}",
        R::NAME
    );
    assert_eq!(
        count('.') as u32,
        (R::Geo::NUM_SQUARES as u32) - pos.occupied().count_ones(),
        "{}: empty squares\n{d}",
        R::NAME
    );
    if algebraic {
        assert!(
            lines[0].trim_start().starts_with(&height.to_string()),
            "{}\n{d}",
            R::NAME
        );
        let files: String = lines[height].split_whitespace().collect();
        assert_eq!(files, "abcdefgh", "{}\n{d}", R::NAME);
    }
}

/// The numbers shown on the right of the top and bottom rows.
fn edge_numbers<R: Rules + PartialEq>() -> (Vec<String>, Vec<String>) {
    let d = diagram(&Position::<R>::start());
    let lines: Vec<&str> = d.lines().collect();
    let h = R::Geo::HEIGHT;
    let nums = |l: &str| {
        l.split_whitespace()
            .filter(|t| t.bytes().all(|c| c.is_ascii_digit()))
            .map(str::to_string)
            .collect::<Vec<_>>()
    };
    (nums(lines[0]), nums(lines[h - 1]))
}

#[test]
fn diagram_has_fen_and_rows() {
    each_variant!(R => {
        diagram_checks(&Position::<R>::start());
        diagram_checks(&parse_fen::<R>("B").unwrap());
        let mut n = 0;
        playouts::<R>(|pos, _| {
            n += 1;
            if n % 97 == 0 {
                diagram_checks(pos);
            }
        });
    });
}

fn men_top_and_bottom<R: Rules + PartialEq>() {
    let d = diagram(&Position::<R>::start());
    let lines: Vec<&str> = d.lines().collect();
    // Turkish back ranks start empty.
    let edge = usize::from(R::NAME == "turkish");
    let top = lines[edge];
    let bottom = lines[R::Geo::HEIGHT - 1 - edge];
    assert!(top.contains('b') && !top.contains('w'), "{}\n{d}", R::NAME);
    assert!(
        bottom.contains('w') && !bottom.contains('b'),
        "{}\n{d}",
        R::NAME
    );
}

#[test]
fn diagram_orientation() {
    let s = |v: &[&str]| v.iter().map(|x| x.to_string()).collect::<Vec<_>>();
    assert_eq!(
        edge_numbers::<International>(),
        (
            s(&["1", "2", "3", "4", "5"]),
            s(&["46", "47", "48", "49", "50"])
        )
    );
    assert_eq!(
        edge_numbers::<English>(),
        (s(&["1", "2", "3", "4"]), s(&["29", "30", "31", "32"]))
    );
    assert_eq!(
        edge_numbers::<Italian>(),
        (s(&["1", "2", "3", "4"]), s(&["29", "30", "31", "32"]))
    );
    // Spanish counts from White's lower right, right to left.
    assert_eq!(
        edge_numbers::<Spanish>(),
        (s(&["32", "31", "30", "29"]), s(&["4", "3", "2", "1"]))
    );
    // Black men at the top, White at the bottom, in every variant; the
    // top-left corner is playable on the turned Italian/Spanish board.
    each_variant!(R => men_top_and_bottom::<R>());
    let italian = diagram(&Position::<Italian>::start());
    assert!(
        italian.lines().next().unwrap().starts_with(" b "),
        "{italian}"
    );
    let english = diagram(&Position::<English>::start());
    assert!(
        english.lines().next().unwrap().starts_with("    b "),
        "{english}"
    );
}
