//! `kondavo moves` and its library form `tools::moves::legal_moves`: every
//! legal move once, its Hub text read back by the Hub move reader, its PDN
//! text by the PDN move reader, its captured squares and route, in every
//! variant; the plain and JSON lines of the binary.

use kondavo::geometry::Geometry;
use kondavo::movegen::{generate, MoveList};
use kondavo::notation::fen::parse_fen;
use kondavo::notation::movetext::parse_move;
use kondavo::notation::parse_square;
use kondavo::position::Position;
use kondavo::protocol::hubpos::parse_hub_move;
use kondavo::rules::{English, Rules};
use kondavo::tools::moves::{legal_moves, legal_moves_of, MoveInfo};
use kondavo::{with_rules, Variant};

mod common;
use common::{kondavo, XorShift};

fn bit<R: Rules>(name: &str) -> u64 {
    R::Geo::bit(parse_square::<R>(name).unwrap_or_else(|e| panic!("{name}: {e}")))
}

/// Checks the description of every legal move of `pos`.
fn check_position<R: Rules + PartialEq>(pos: &Position<R>) {
    let mut list = MoveList::new();
    generate(pos, &mut list);
    let infos = legal_moves(pos);
    assert_eq!(infos.len(), list.len(), "{}: {pos:?}", R::NAME);
    let mut seen = Vec::new();
    for info in &infos {
        let mv = parse_hub_move(pos, &info.hub)
            .unwrap_or_else(|e| panic!("{}: hub '{}' in {pos:?}: {e}", R::NAME, info.hub));
        assert!(list.contains(&mv));
        assert!(
            !seen.contains(&mv),
            "{}: {} listed twice",
            R::NAME,
            info.hub
        );
        seen.push(mv);
        assert_eq!(
            parse_move(pos, &info.pdn),
            Ok(mv),
            "{}: {}",
            R::NAME,
            info.pdn
        );
        assert_eq!(bit::<R>(&info.from), 1u64 << mv.from);
        assert_eq!(bit::<R>(&info.to), 1u64 << mv.to);
        let caps = info.captured.iter().fold(0u64, |a, c| a | bit::<R>(c));
        assert_eq!(caps, mv.captured, "{}: {}", R::NAME, info.hub);
        assert_eq!(info.captured.len() as u32, mv.capture_count());
        assert_eq!(info.route.first(), Some(&info.from));
        assert_eq!(info.route.last(), Some(&info.to));
        if mv.is_capture() {
            // The route read as a PDN full path is the same move.
            assert_eq!(parse_move(pos, &info.route.join("x")), Ok(mv));
        } else {
            assert_eq!(info.route.len(), 2);
        }
        assert_eq!(info.promotes, mv.promote);
        let line = info.line();
        let fields: Vec<&str> = line.split(' ').collect();
        assert_eq!(fields[0], info.hub);
        assert_eq!(fields[1], info.pdn);
        assert_eq!(fields[2..], info.captured[..]);
    }
}

#[test]
fn every_legal_move_described_in_every_variant() {
    fn run<R: Rules + PartialEq>() {
        for game in 0..20u64 {
            let mut rng = XorShift::new(300 + game);
            let mut pos = Position::<R>::start();
            for _ in 0..120 {
                check_position(&pos);
                let mut list = MoveList::new();
                generate(&pos, &mut list);
                if list.is_empty() {
                    break;
                }
                pos.play(&list[rng.below(list.len())]);
            }
        }
    }
    for v in Variant::ALL {
        with_rules!(v, R => run::<R>());
    }
}

#[test]
fn ambiguous_captures_and_algebraic_squares() {
    // Two captures from 31 to 15 (English): the Hub texts differ by their
    // captured squares, the PDN texts by their routes.
    let pos = parse_fen::<English>("W:W31:B18,19,26,27").unwrap();
    let lines: Vec<String> = legal_moves(&pos).iter().map(MoveInfo::line).collect();
    assert_eq!(
        lines,
        ["31x15x18x26 31x22x15 18 26", "31x15x19x27 31x24x15 19 27"]
    );
    let infos = legal_moves(&pos);
    assert_eq!(infos[0].route, ["31", "22", "15"]);
    assert_eq!(infos[1].route, ["31", "24", "15"]);

    // Russian: Hub numbers (a1 = 1, c3 = 10, g7 = 28), algebraic squares.
    let infos = legal_moves_of(Variant::Russian, Some("W:Wc3,a1:Bd4,f6")).unwrap();
    assert_eq!(infos.len(), 1);
    assert_eq!(infos[0].line(), "10x28x14x23 c3:g7 d4 f6");
    assert_eq!(
        infos[0].json(),
        "{\"hub\":\"10x28x14x23\",\"pdn\":\"c3:g7\",\"from\":\"c3\",\"to\":\"g7\",\
         \"captured\":[\"d4\",\"f6\"],\"route\":[\"c3\",\"e5\",\"g7\"],\"promotes\":false}"
    );

    // The start position when no FEN is given; a bad FEN is an error.
    assert_eq!(
        legal_moves_of(Variant::International, None).unwrap().len(),
        9
    );
    let e = legal_moves_of(Variant::International, Some("W:W3:B40")).unwrap_err();
    assert!(e.contains("bad FEN") && e.contains(" 3 "), "{e}");
}

#[test]
fn moves_command_plain_and_json() {
    let (out, err, ok) = kondavo(&["moves", "--variant", "english"]);
    assert!(ok, "{err}");
    assert_eq!(
        out,
        "9-13 9-13\n9-14 9-14\n10-14 10-14\n10-15 10-15\n11-15 11-15\n11-16 11-16\n12-16 12-16\n"
    );
    assert!(err.is_empty(), "{err}");

    let (out, err, ok) = kondavo(&[
        "moves",
        "--variant",
        "brazilian",
        "--fen",
        "W:Wc3:Bd4,f6,Kb6",
        "--json",
    ]);
    assert!(ok, "{err}");
    assert_eq!(
        out,
        "{\"hub\":\"10x28x14x23\",\"pdn\":\"c3xg7\",\"from\":\"c3\",\"to\":\"g7\",\
         \"captured\":[\"d4\",\"f6\"],\"route\":[\"c3\",\"e5\",\"g7\"],\"promotes\":false}\n"
    );

    // Promotion is reported; a position without moves prints nothing.
    let (out, _, ok) = kondavo(&["moves", "--variant", "international", "--fen", "W:W6:B40"]);
    assert!(ok);
    assert_eq!(out, "6-1 6-1\n");
    let (out, _, _) = kondavo(&[
        "moves",
        "--variant",
        "international",
        "--fen",
        "W:W6:B40",
        "--json",
    ]);
    assert!(out.contains("\"promotes\":true"), "{out}");
    let (out, _, ok) = kondavo(&["moves", "--variant", "international", "--fen", "B:W6"]);
    assert!(ok);
    assert!(out.is_empty(), "{out}");

    // A bad FEN: an error naming the square on stderr, nothing on stdout.
    let (out, err, ok) = kondavo(&["moves", "--variant", "international", "--fen", "W:W3:B40"]);
    assert!(!ok);
    assert!(out.is_empty(), "{out}");
    assert!(err.contains("man on 3 "), "{err}");
}
