//! Endgame databases: the index, the file format, verification of every
//! variant's tables, and endgame facts from the literature.

use std::path::{Path, PathBuf};

use kondavo::egdb::build::{build, build_signatures, closure, solve_unit};
use kondavo::egdb::verify::verify;
use kondavo::egdb::{flip, mirror, turn, Egdb, Layout, Signature, Wdl};
use kondavo::geometry::{Bitboard, Geometry};
use kondavo::notation::fen::parse_fen;
use kondavo::rules::{
    Brazilian, Color, English, International, Italian, Rules, Russian, Spanish, Turkish,
};
use kondavo::Position;

mod common;

fn temp_dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("kondavo-egdb-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    d
}

fn quiet_build<R: Rules>(dir: &Path, pieces: u32) -> Egdb<R> {
    build::<R>(dir, pieces, false, &mut |_| {})
        .unwrap_or_else(|e| panic!("{}: {e}", R::NAME))
        .0
}

/// The tables `fen`'s material depends on, built into `dir`.
fn build_for<R: Rules>(dir: &Path, fen: &str) -> Egdb<R> {
    let pos = kondavo::egdb::white_to_move(&parse_fen::<R>(fen).unwrap());
    let sigs = closure(&[Signature::of(&pos)]);
    build_signatures::<R>(dir, &sigs, false, &mut |_| {})
        .unwrap()
        .0
}

fn probe<R: Rules>(db: &Egdb<R>, fen: &str) -> (Wdl, u8) {
    let pos = parse_fen::<R>(fen).unwrap();
    db.probe(&pos)
        .unwrap_or_else(|| panic!("{fen} is not in the tables"))
}

/// A position's pieces and side to move, to compare.
fn parts<R: Rules>(p: &Position<R>) -> (Bitboard, Bitboard, Bitboard, Color) {
    (
        p.pieces(Color::White),
        p.pieces(Color::Black),
        p.kings(),
        p.side(),
    )
}

/// Every placement of `sig`'s pieces (no man on its promotion row), by
/// brute force.
fn placements<R: Rules>(sig: Signature) -> Vec<Position<R>> {
    let groups = [
        (Color::White, false, sig.wm),
        (Color::White, true, sig.wk),
        (Color::Black, false, sig.bm),
        (Color::Black, true, sig.bk),
    ];
    let mut out = Vec::new();
    fn rec<R: Rules>(
        groups: &[(Color, bool, u8)],
        g: usize,
        left: u8,
        min_sq: usize,
        board: [Bitboard; 3],
        out: &mut Vec<Position<R>>,
    ) {
        if g == groups.len() {
            out.push(Position::from_parts(
                board[0],
                board[1],
                board[2],
                Color::White,
            ));
            return;
        }
        if left == 0 {
            let next = groups.get(g + 1).map_or(0, |x| x.2);
            return rec(groups, g + 1, next, 0, board, out);
        }
        let (c, king, _) = groups[g];
        for s in min_sq..R::Geo::NUM_SQUARES {
            let b = R::Geo::bit(s);
            if (board[0] | board[1]) & b != 0 || (!king && R::promotion_row(c) & b != 0) {
                continue;
            }
            let mut nb = board;
            nb[c.index()] |= b;
            if king {
                nb[2] |= b;
            }
            rec(groups, g, left - 1, s + 1, nb, out);
        }
    }
    rec::<R>(&groups, 0, groups[0].2, 0, [0, 0, 0], &mut out);
    out
}

fn check_index<R: Rules>() {
    let mut sigs = Signature::all(3);
    sigs.extend(["1111", "2020", "0211"].map(|s| s.parse::<Signature>().unwrap()));
    for sig in sigs {
        let layout = Layout::<R>::new(sig);
        let all = placements::<R>(sig);
        assert_eq!(layout.size(), all.len() as u64, "{} {sig}", R::NAME);
        let mut seen = vec![false; all.len()];
        for pos in &all {
            let i = layout.index(pos);
            assert!(i < layout.size(), "{} {sig} {pos:?}", R::NAME);
            assert!(!seen[i as usize], "{} {sig}: index {i} twice", R::NAME);
            seen[i as usize] = true;
            assert_eq!(
                parts(&layout.position(i)),
                parts(pos),
                "{} {sig} index {i}",
                R::NAME
            );
        }
    }
}

/// The index numbers every legal placement of a signature exactly once,
/// densely, on each board.
#[test]
fn the_index_numbers_every_placement_once() {
    check_index::<English>();
    check_index::<International>();
    check_index::<Turkish>();
}

fn check_turn<R: Rules>() {
    let (w, h) = (R::Geo::WIDTH, R::Geo::HEIGHT);
    for s in 0..R::Geo::NUM_SQUARES {
        let t = R::Geo::square(turn::<R::Geo>(R::Geo::bit(s)));
        let (f, r) = R::Geo::coords(s);
        assert_eq!(
            R::Geo::coords(t),
            (w - 1 - f, h - 1 - r),
            "{} square {s}",
            R::NAME
        );
    }
    let pos = parse_fen::<R>(match R::Geo::NUM_SQUARES {
        50 => "W:W31,K2:B20,K49",
        _ if R::Geo::DIAGONAL => "W:W21,K2:B12,K30",
        _ => "W:Wc3,Kd8:Bf6,Ka1",
    })
    .unwrap();
    let f = flip(&pos);
    assert_eq!(f.side(), Color::Black);
    assert_eq!(f.men(Color::Black), turn::<R::Geo>(pos.men(Color::White)));
    assert_eq!(
        f.kings_of(Color::White),
        turn::<R::Geo>(pos.kings_of(Color::Black))
    );
    assert_eq!(parts(&flip(&f)), parts(&pos));
}

/// Flipping turns the board 180 degrees and exchanges the colours.
#[test]
fn flipping_turns_the_board_and_exchanges_colours() {
    check_turn::<English>();
    check_turn::<International>();
    check_turn::<Turkish>();
}

fn build_and_verify<R: Rules>(pieces: u32) {
    let dir = temp_dir(&format!("verify-{}", R::NAME));
    let db = quiet_build::<R>(&dir, pieces);
    let checked = verify(&db, pieces).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(checked.len(), Signature::all(pieces).len());
    // The files on disk load and agree with the tables built.
    let loaded = Egdb::<R>::open(&dir, pieces).unwrap();
    for sig in Signature::all(pieces) {
        assert_eq!(loaded.values(sig), db.values(sig), "{} {sig}", R::NAME);
    }
    verify(&loaded, pieces).unwrap();
    let _ = std::fs::remove_dir_all(&dir);
}

/// Every variant's tables up to three pieces pass verification: each value
/// is what its children's values give.
#[test]
fn every_variant_verifies_up_to_three_pieces() {
    build_and_verify::<English>(3);
    build_and_verify::<Italian>(3);
    build_and_verify::<International>(3);
    build_and_verify::<Brazilian>(3);
    build_and_verify::<Spanish>(3);
    build_and_verify::<Russian>(3);
    build_and_verify::<Turkish>(3);
}

/// Turkish tables solved once a mirror pair (see `solve_unit`) are the
/// tables solved position by position, in every unit up to three pieces
/// (with men) and in two kings against two (where positions can be their
/// own mirror image).
#[test]
fn turkish_tables_solved_by_mirror_pairs_match_the_full_solution() {
    let mut targets = Signature::all(3);
    targets.push("0202".parse().unwrap());
    let sigs = closure(&targets);
    let mut store = Egdb::<Turkish>::empty();
    let mut symmetric_positions = 0;
    for (i, &sig) in sigs.iter().enumerate() {
        let twin = sig.flipped();
        if sigs[..i].contains(&twin) {
            continue;
        }
        let unit: Vec<Signature> = if twin == sig {
            vec![sig]
        } else {
            vec![sig, twin]
        };
        let full = solve_unit(&store, &unit, false).unwrap();
        let paired = solve_unit(&store, &unit, true).unwrap();
        for ((&s, a), b) in unit.iter().zip(&full).zip(&paired) {
            assert!(a == b, "turkish {s}: the two solutions differ");
            let layout = Layout::<Turkish>::new(s);
            symmetric_positions += (0..layout.size())
                .filter(|&i| {
                    let p = layout.position(i);
                    layout.index(&mirror(&p)) == i
                })
                .count();
        }
        for (&s, values) in unit.iter().zip(full) {
            store.insert(s, values);
        }
    }
    // Two kings a side can stand as their own mirror image (an odd number
    // of pieces never can: no square is its own reflection).
    assert!(symmetric_positions > 0);
    assert!(store.has("0202".parse().unwrap()));
}

/// A damaged file is refused by its checksum, and the next build solves it
/// again; files present and valid are kept.
#[test]
fn a_damaged_file_is_refused_and_rebuilt() {
    let dir = temp_dir("damage");
    let (_, first) = build::<English>(&dir, 3, false, &mut |_| {}).unwrap();
    assert!(first.iter().all(|r| r.built == r.files));
    let (_, again) = build::<English>(&dir, 3, false, &mut |_| {}).unwrap();
    assert!(again.iter().all(|r| r.built == 0), "{again:?}");
    assert_eq!(first[1].positions, again[1].positions);

    let path = kondavo::egdb::table_path::<English>(&dir, "1101".parse().unwrap());
    let mut bytes = std::fs::read(&path).unwrap();
    let mid = bytes.len() / 2;
    bytes[mid] ^= 0x04;
    std::fs::write(&path, &bytes).unwrap();
    let err = Egdb::<English>::open(&dir, 3).unwrap_err();
    assert!(
        err.contains("checksum") && err.contains("1101.egdb"),
        "{err}"
    );
    let (_, third) = build::<English>(&dir, 3, false, &mut |_| {}).unwrap();
    assert_eq!(third.iter().map(|r| r.built).sum::<usize>(), 2, "{third:?}");
    Egdb::<English>::open(&dir, 3).unwrap();

    std::fs::remove_file(&path).unwrap();
    let err = Egdb::<English>::open(&dir, 3).unwrap_err();
    assert!(
        err.contains("missing") && err.contains("1101.egdb"),
        "{err}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// The squares of the long diagonal from White's lower-left corner (a1-h8
/// on 8x8, the main road; 46-5 on 10x10, the main diagonal).
fn main_road<R: Rules>() -> Bitboard {
    (0..R::Geo::NUM_SQUARES)
        .filter(|&s| {
            let (f, r) = R::Geo::coords(s);
            f == r
        })
        .map(R::Geo::bit)
        .fold(0, |a, b| a | b)
}

/// Every position of `sig` (as it stands, White's and Black's pieces) with
/// `side` to move.
fn each_position<R: Rules>(sig: &str, side: Color, mut f: impl FnMut(&Position<R>)) {
    let layout = Layout::<R>::new(sig.parse().unwrap());
    for i in 0..layout.size() {
        f(&layout.position(i).with_side(side));
    }
}

/// English: one king against one wins with the opposition, draws without
/// it; two kings beat one, even one in the double corner. Source: Edward
/// Lasker, "Chess and Checkers: The Way to Mastership" (1918), "Elementary
/// tactics", diagram 88 (White king 32, Black king 26: White to play wins
/// by 32-27, Black to play draws by 26-31) and diagram 89 (White kings 19
/// and 23 against a king on 32, in the double corner: White wins).
#[test]
fn english_king_endings_follow_lasker() {
    let dir = temp_dir("english");
    let db = build_for::<English>(&dir, "W:WK1,K2:BK3");
    assert_eq!(probe(&db, "W:WK32:BK26").0, Wdl::Win);
    assert_eq!(probe(&db, "B:WK32:BK26").0, Wdl::Draw);
    let pos = parse_fen::<English>("W:WK32:BK26").unwrap();
    let lines = kondavo::tools::egdb::probe_lines(&db, &pos).unwrap();
    assert!(lines.contains(&"32-27 win 9".to_string()), "{lines:?}");
    assert!(lines.contains(&"32-28 draw".to_string()), "{lines:?}");
    assert_eq!(probe(&db, "W:WK19,K23:BK32").0, Wdl::Win);
    assert_eq!(probe(&db, "B:WK19,K23:BK32").0, Wdl::Win.opposite());
    // Two kings against one: the two kings to move win in more than 99.5 %
    // of the positions, the lone king to move loses in more than 99 % of
    // those where it has no capture.
    // The exceptions are kings locked in the single corner: White kings on
    // 3 and 4 (f8, h8) against a king on 11 (f6) have one safe move, 3-8,
    // and the lone king then shuttles 11-16-11, so that the king on 4 can
    // never come out without being taken.
    assert_eq!(probe(&db, "W:WK3,K4:BK11").0, Wdl::Draw);
    let pos = parse_fen::<English>("W:WK3,K4:BK11").unwrap();
    let lines = kondavo::tools::egdb::probe_lines(&db, &pos).unwrap();
    let mut moves = lines[1..].to_vec();
    moves.sort();
    assert_eq!(lines[0], "draw");
    assert_eq!(moves, ["3-7 loss 8", "3-8 draw", "4-8 draw"]);
    let (mut all, mut wins) = (0u64, 0u64);
    each_position::<English>("0201", Color::White, |p| {
        all += 1;
        wins += (db.probe(p).unwrap().0 == Wdl::Win) as u64;
    });
    assert!(wins * 1000 > all * 995 && wins < all, "{wins} of {all}");
    let (mut quiet, mut losses) = (0u64, 0u64);
    each_position::<English>("0201", Color::Black, |p| {
        if !kondavo::movegen::has_capture(p) {
            quiet += 1;
            losses += (db.probe(p).unwrap().0 == Wdl::Loss) as u64;
        }
    });
    assert!(
        losses * 100 > quiet * 99 && losses < quiet,
        "{losses} of {quiet}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// Russian: three kings holding the main road (a1-h8) catch a lone king off
/// it within 13 moves, by Petrov's triangle; a lone king holding the main
/// road draws. Sources: Russian Wikipedia, "Треугольник Петрова" (Petrov's
/// position: White kings a1, c1, e1 against a king on f8; the method
/// catches the lone king "no later than the thirteenth move"), and
/// jak.bono.odessa.ua, "Три дамки проти однієї" (off the main road the
/// lone king is always caught, in at most 13 moves from the worst
/// position; on it, the game is drawn).
#[test]
fn russian_three_kings_against_one_follow_petrov() {
    let dir = temp_dir("russian");
    let db = build_for::<Russian>(&dir, "W:WKa1,Kc1,Ke1:BKf8");
    let (w, d) = probe(&db, "W:WKa1,Kc1,Ke1:BKf8");
    assert!(w == Wdl::Win && d <= 25, "{w} {d}");
    assert_eq!(probe(&db, "B:WKc1,Ke1,Kg1:BKa1").0, Wdl::Draw);
    let road = main_road::<Russian>();
    // With White to move, White holding the road and the lone king off
    // it: a win within 13 moves (White's 13th move is ply 25). With the
    // lone king on the road and to move: a draw. Positions with a White
    // king en prise are a matter of tactics, not of the method.
    let (mut won, mut drawn) = (0, 0);
    each_position::<Russian>("0301", Color::White, |p| {
        if p.kings_of(Color::White) & road != 0
            && p.pieces(Color::Black) & road == 0
            && !kondavo::movegen::side_has_capture(p, Color::Black)
        {
            let (w, d) = db.probe(p).unwrap();
            assert!(w == Wdl::Win && d <= 25, "{p:?}: {w} {d}");
            won += 1;
        }
    });
    each_position::<Russian>("0301", Color::Black, |p| {
        if p.kings_of(Color::White) & road == 0
            && p.pieces(Color::Black) & road != 0
            && !kondavo::movegen::has_capture(p)
        {
            assert_eq!(db.probe(p).unwrap().0, Wdl::Draw, "{p:?}");
            drawn += 1;
        }
    });
    assert!(won > 30_000 && drawn > 10_000, "{won} {drawn}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// International: a lone king holding the main diagonal (46-5) draws
/// against three kings; four kings beat one. Source: the FMJD rules
/// (art. 8.3: three kings against one king, or two kings and a man
/// against one king, are given 16 moves, because the ending is a draw when
/// the lone king holds the main diagonal) and the endgame theory summed up
/// on boardgamegeek.com, "Mini Course 1 - Winning with Three Kings against
/// One" ("In International Checkers ... the game will be a draw after 16
/// turns").
#[test]
fn international_three_kings_draw_against_the_main_diagonal_and_four_win() {
    let dir = temp_dir("international");
    let db = build_for::<International>(&dir, "W:WK1,K2,K3,K4:BK46");
    assert_eq!(probe(&db, "B:WK1,K2,K3:BK46").0, Wdl::Draw);
    assert_eq!(probe(&db, "W:WK1,K2,K3:BK46").0, Wdl::Draw);
    let diagonal = main_road::<International>();
    let (mut drawn, mut kings4, mut won4) = (0u64, 0u64, 0u64);
    each_position::<International>("0301", Color::Black, |p| {
        if kondavo::movegen::side_has_capture(p, Color::Black)
            || p.pieces(Color::Black) & diagonal == 0
            || p.kings_of(Color::White) & diagonal != 0
        {
            return;
        }
        assert_eq!(db.probe(p).unwrap().0, Wdl::Draw, "{p:?}");
        drawn += 1;
    });
    each_position::<International>("0401", Color::White, |p| {
        if kondavo::movegen::side_has_capture(p, Color::Black) {
            return;
        }
        kings4 += 1;
        won4 += (db.probe(p).unwrap().0 == Wdl::Win) as u64;
    });
    assert!(drawn > 50_000 && kings4 > 5_000_000, "{drawn} {kings4}");
    assert!(won4 == kings4, "{won4} of {kings4}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// `kondavo egdb verify` of the English tables up to 3 pieces in `dir`:
/// stdout, stderr and success.
fn verify_english_3(dir: &str) -> (String, String, bool) {
    common::kondavo(&common::egdb_args(
        "verify",
        "english",
        &["--pieces", "3", "--dir", dir],
    ))
}

/// The command line: build, verify and probe, and clear refusals.
#[test]
fn the_command_line_builds_verifies_probes_and_refuses() {
    let dir = temp_dir("cli");
    let d = dir.to_string_lossy().to_string();
    let (out, err, ok) = common::kondavo(&common::egdb_args(
        "build",
        "english",
        &["--pieces", "3", "--dir", &d, "--threads", "2"],
    ));
    assert!(ok, "{out}\n{err}");
    assert!(
        out.contains("english pieces 3: 12 files (12 built), 196032 positions"),
        "{out}"
    );
    let (out, err, ok) = verify_english_3(&d);
    assert!(ok && out.contains("every value agrees"), "{out}\n{err}");
    let (out, err, ok) = common::kondavo(&common::egdb_args(
        "probe",
        "english",
        &["--fen", "W:WK32:BK26", "--dir", &d],
    ));
    assert!(ok, "{err}");
    assert_eq!(out.lines().next(), Some("win 9"), "{out}");
    assert!(out.lines().any(|l| l == "32-27 win 9"), "{out}");

    // A wrong value is caught by verify, naming the position.
    let path = kondavo::egdb::table_path::<English>(&dir, "0101".parse().unwrap());
    let sig: Signature = "0101".parse().unwrap();
    let mut values = kondavo::egdb::file::read_file(&path, "english", sig, 992).unwrap();
    values[100] = if values[100] == 0 { 2 } else { 0 };
    kondavo::egdb::file::write_file(&path, "english", sig, &values).unwrap();
    let (out, err, ok) = verify_english_3(&d);
    assert!(
        !ok && err.contains("english table 0101, position "),
        "{out}\n{err}"
    );

    for (args, needle) in [
        (
            common::egdb_args(
                "probe",
                "english",
                &["--fen", "W:WK1,K2,K3:BK30", "--dir", &d],
            ),
            "is missing (build it with `kondavo egdb build --variant english --pieces 4`)",
        ),
        (
            common::egdb_args("probe", "english", &["--fen", "W:W21:B", "--dir", &d]),
            "at least one piece a side",
        ),
        (
            common::egdb_args("probe", "english", &["--fen", "W:W21-29:B1", "--dir", &d]),
            "go up to 8",
        ),
        (
            common::egdb_args("probe", "english", &["--fen", "W:W1:B30", "--dir", &d]),
            "promotion row",
        ),
        (
            common::egdb_args("build", "english", &["--pieces", "9", "--dir", &d]),
            "--pieces must be from 2 to 8",
        ),
        (
            common::egdb_args("verify", "english", &["--pieces", "4", "--dir", &d]),
            "missing",
        ),
    ] {
        let (out, err, ok) = common::kondavo(&args);
        assert!(!ok && err.contains(needle), "{args:?}: {out}\n{err}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// Conversion: positions the tables call won, played out by the engine on
/// both sides with the tables, are all won within the move rule, the long
/// Russian three-kings wins (Petrov's triangle) included; the distances
/// are to the end of the game, so every move brings the win nearer.
#[test]
fn the_engine_converts_won_positions_with_the_tables() {
    use kondavo::search::Limits;
    use kondavo::tools::egdb::{run_convert, ConvertOptions};
    let dir = temp_dir("convert");
    quiet_build::<Russian>(&dir, 4);
    let mut opts = ConvertOptions {
        variant: kondavo::Variant::Russian,
        pieces: 4,
        positions: 40,
        limits: Limits::nodes(20_000),
        seed: 3,
        min_plies: 15,
        search_only: false,
        dir: dir.clone(),
        concurrency: 2,
        hash_mib: 4,
    };
    let mut lines = Vec::new();
    let report = run_convert(&opts, &mut |l| lines.push(l)).unwrap();
    assert_eq!(report.positions, 40);
    assert_eq!(report.won, 40, "{lines:?}");
    assert!(report.won_plies >= 40 * 15, "{report:?}");
    assert!(
        lines
            .last()
            .is_some_and(|l| l.contains("won=40 (100.0%)") && l.contains("with the tables")),
        "{lines:?}"
    );

    // Positions that need more pieces than the tables hold are refused.
    opts.pieces = 5;
    let err = run_convert(&opts, &mut |_| {}).unwrap_err();
    assert!(err.contains("is missing"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}
