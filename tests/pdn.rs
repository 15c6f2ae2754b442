//! PDN files: write / read / replay round trips over random playouts in
//! every variant, hand-written files in the liberal reading grammar of
//! `reference/ecosystem.md` §1 (comments, nested variations, NAGs, strength
//! marks, move numbers, `x` / `:` separators, leading zeros, several
//! games), a broken game in the middle of a file, replay errors, results,
//! and fuzzed input (never a panic).

use kondavo::movegen::{generate, Move, MoveList};
use kondavo::notation::fen::{parse_fen, write_fen};
use kondavo::notation::movetext::{move_to_pdn, parse_move};
use kondavo::notation::pdn::{
    game_variant, has_international_results, parse_pdn, parse_result, replay, result_string,
    result_string_for, write_pdn, write_pdn_with_comments, PdnError, PdnGame,
};
use kondavo::position::Position;
use kondavo::rules::{Color, English, International, Italian, Rules, Russian, Turkish};
use kondavo::{with_rules, Variant};
use proptest::prelude::*;

// ---------------------------------------------------------------------------
// Helpers

mod common;
use common::XorShift;

fn legal<R: Rules>(pos: &Position<R>) -> MoveList {
    let mut list = MoveList::new();
    generate(pos, &mut list);
    list
}

/// A random playout: a start position (the variant's start, or the
/// position after a few random plies, so that some games start with the
/// second player to move) and up to `plies` random legal moves.
fn playout<R: Rules>(rng: &mut XorShift, plies: usize) -> (Position<R>, Vec<Move>) {
    let mut start = Position::<R>::start();
    for _ in 0..rng.below(4) {
        let list = legal(&start);
        if list.is_empty() {
            break;
        }
        start = start.played(&list[rng.below(list.len())]);
    }
    let mut pos = start;
    let mut moves = Vec::new();
    for _ in 0..plies {
        let list = legal(&pos);
        if list.is_empty() {
            break;
        }
        let mv = list[rng.below(list.len())];
        moves.push(mv);
        pos.play(&mv);
    }
    (start, moves)
}

fn tags(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
    pairs
        .iter()
        .map(|(n, v)| (n.to_string(), v.to_string()))
        .collect()
}

fn ok_games(text: &str) -> Vec<PdnGame> {
    parse_pdn(text)
        .into_iter()
        .map(|r| r.unwrap_or_else(|e| panic!("unexpected error: {e}\n{text}")))
        .collect()
}

/// The moves of a replayed game.
fn replayed_moves<R: Rules>(g: &PdnGame) -> (Position<R>, Vec<Move>, Position<R>) {
    let (start, plies) = replay::<R>(g).unwrap_or_else(|e| panic!("{}: {e}", R::NAME));
    let moves: Vec<Move> = plies.iter().map(|(_, m)| *m).collect();
    let end = plies.last().map(|(p, m)| p.played(m)).unwrap_or(start);
    (start, moves, end)
}

/// The movetext of a written game: what follows the first blank line.
fn movetext(written: &str) -> &str {
    written.split_once("\n\n").map(|(_, m)| m).unwrap_or("")
}

// ---------------------------------------------------------------------------
// Round trips

fn round_trip<R: Rules + PartialEq>(v: Variant) {
    let mut file = String::new();
    let mut expected = Vec::new();
    for game in 0..24u64 {
        let mut rng = XorShift::new(5000 + game);
        let plies = 20 + rng.below(140);
        let (start, moves) = playout::<R>(&mut rng, plies);
        let comments: Vec<Option<String>> = (0..moves.len())
            .map(|k| match rng.below(12) {
                0 => Some(format!("[%eval 0.{k:02}]")),
                1 => Some("illegal move by   someone,\n\tbut a fairly long comment that will have to wrap over the line end".into()),
                _ => None,
            })
            .collect();
        let end = moves.iter().fold(start, |p, m| p.played(m));
        let winner = match rng.below(3) {
            0 => Some(Color::White),
            1 => Some(Color::Black),
            _ => None,
        };
        let result = result_string_for::<R>(winner);
        let given = tags(&[
            ("Annotator", "xorshift"),
            ("Black", "Engine \"B\""),
            ("Event", "Round trip \\ test"),
            ("Result", result),
            ("White", "Engine A"),
            ("Round", &game.to_string()),
            ("GameType", "99"),
            ("FEN", "nonsense"),
        ]);
        let text = write_pdn_with_comments(&given, &start, &moves, &comments, result);

        // Layout: standard tags first in order, GameType and FEN, others.
        let tag_lines: Vec<&str> = text.lines().take_while(|l| l.starts_with('[')).collect();
        let names: Vec<&str> = tag_lines
            .iter()
            .map(|l| l[1..].split(' ').next().unwrap())
            .collect();
        assert_eq!(
            names,
            [
                "Event",
                "Round",
                "White",
                "Black",
                "Result",
                "GameType",
                "FEN",
                "Annotator"
            ],
            "{text}"
        );
        assert!(
            text.ends_with(&format!(" {result}\n\n")) || text.ends_with(&format!("\n{result}\n\n"))
        );
        for line in text.lines() {
            assert!(
                line.chars().count() <= 80 || line.starts_with('['),
                "{} line too long: {line}",
                R::NAME
            );
        }
        let mt = movetext(&text);
        if moves.is_empty() {
            assert!(mt.starts_with(result));
        } else if start.side() == R::FIRST_TO_MOVE {
            assert!(mt.starts_with("1. "), "{mt}");
        } else {
            assert!(mt.starts_with("1... "), "{mt}");
        }
        file.push_str(&text);
        expected.push((start, moves, end, comments, result, game));
    }

    let games = ok_games(&file);
    assert_eq!(games.len(), expected.len(), "{}", R::NAME);
    for (k, (g, (start, moves, end, comments, result, round))) in
        games.iter().zip(expected).enumerate()
    {
        assert_eq!(g.number, k + 1);
        assert_eq!(game_variant(g), Some(v));
        assert_eq!(g.tag("GameType"), Some(R::GAME_TYPE));
        assert_eq!(g.tag("FEN"), Some(write_fen(&start).as_str()));
        assert_eq!(g.tag("Black"), Some("Engine \"B\""));
        assert_eq!(g.tag("Event"), Some("Round trip \\ test"));
        assert_eq!(g.tag("Round"), Some(round.to_string().as_str()));
        assert_eq!(g.tag("Annotator"), Some("xorshift"));
        assert_eq!(g.tag("SetUp"), None);
        assert_eq!(g.result.as_deref(), Some(result));
        assert_eq!(g.moves.len(), moves.len());
        let (s, m, e) = replayed_moves::<R>(g);
        assert_eq!(s, start, "{}", R::NAME);
        assert_eq!(m, moves, "{} game {}", R::NAME, k + 1);
        assert_eq!(e, end);
        // Move texts as written are the canonical PDN ones.
        let mut p = start;
        for (text, mv) in g.moves.iter().zip(&moves) {
            assert_eq!(text, &move_to_pdn(&p, mv));
            p.play(mv);
        }
        for (i, c) in comments.iter().enumerate() {
            let folded = c
                .as_ref()
                .map(|c| c.split_whitespace().collect::<Vec<_>>().join(" "));
            assert_eq!(g.comment_after(i), folded, "{} comment {i}", R::NAME);
        }
    }
}

#[test]
fn round_trip_every_variant() {
    for v in Variant::ALL {
        with_rules!(v, R => round_trip::<R>(v));
    }
}

#[test]
fn write_pdn_without_comments_and_empty_game() {
    let start = Position::<International>::start();
    let text = write_pdn(&[], &start, &[], "");
    assert_eq!(
        text,
        "[GameType \"20,W,10,10,N2,0\"]\n[FEN \"W:W31,32,33,34,35,36,37,38,39,40,41,42,43,44,45,46,47,48,49,50:B1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20\"]\n\n*\n\n"
    );
    let games = ok_games(&text);
    assert_eq!(games.len(), 1);
    assert!(games[0].moves.is_empty());
    assert_eq!(games[0].result.as_deref(), Some("*"));
    let (s, m, _) = replayed_moves::<International>(&games[0]);
    assert_eq!(s, start);
    assert!(m.is_empty());
}

#[test]
fn english_numbering_follows_black_moving_first() {
    let start = Position::<English>::start();
    let g = ok_games("1. 11-15 22-18 2. 15x22 25x18 *")
        .pop()
        .expect("one game");
    let (_, moves, _) = replayed_moves::<English>(&g);
    let text = write_pdn(&[], &start, &moves, "1/2-1/2");
    assert!(text.contains("[GameType \"21,B,8,8,N1,0\"]\n"), "{text}");
    assert!(
        text.contains(
            "[FEN \"B:W21,22,23,24,25,26,27,28,29,30,31,32:B1,2,3,4,5,6,7,8,9,10,11,12\"]\n"
        ),
        "{text}"
    );
    assert_eq!(movetext(&text), "1. 11-15 22-18 2. 15x22 25x18 1/2-1/2\n\n");

    // Starting with White (the second player) to move: "1...".
    let after = start.played(&moves[0]);
    let text = write_pdn(&[], &after, &moves[1..], "*");
    assert_eq!(movetext(&text), "1... 22-18 2. 15x22 25x18 *\n\n");
    // A move number is written once, also after a comment.
    let comments = [None, Some("forced".to_string()), None];
    let text = write_pdn_with_comments(&[], &after, &moves[1..], &comments, "*");
    assert_eq!(movetext(&text), "1... 22-18 2. 15x22 {forced} 25x18 *\n\n");
}

#[test]
fn international_numbering_and_comments_after_first_player() {
    let g = ok_games("1. 32-28 19-23 2. 28x19 14x23 *").pop().unwrap();
    let (start, moves, _) = replayed_moves::<International>(&g);
    let comments = [Some("[%eval 0.12]".to_string()), None, None, None];
    let text = write_pdn_with_comments(&[], &start, &moves, &comments, "2-0");
    assert_eq!(
        movetext(&text),
        "1. 32-28 {[%eval 0.12]} 19-23 2. 28x19 14x23 2-0\n\n"
    );
    // A '}' in a comment cannot end it early.
    let comments = [Some("a } b {c".to_string())];
    let text = write_pdn_with_comments(&[], &start, &moves[..1], &comments, "*");
    let back = ok_games(&text).pop().unwrap();
    assert_eq!(back.comment_after(0).as_deref(), Some("a ) b (c"));
}

/// The move numbers of a movetext, as written (`4.`, `4...`).
fn move_numbers(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut depth = 0;
    for w in movetext(text).split_whitespace() {
        depth += w.matches('{').count();
        let inside = depth > 0;
        depth -= w.matches('}').count();
        let digits = w.trim_end_matches('.');
        if !inside && w.ends_with('.') && digits.bytes().all(|c| c.is_ascii_digit()) {
            out.push(w.to_string());
        }
    }
    out
}

/// A match game has a comment (the score) after every engine move. Each
/// move number is written once, so that a reader that folds `4...` into
/// `4.` (pydraughts 0.6.7, whose PDN reader then failed on `4. g3-f4
/// {..} 4... e5:g3`) still sees increasing, distinct numbers; and the moves
/// read back.
#[test]
fn move_numbers_are_written_once_with_comments_after_every_move() {
    fn check<R: Rules + PartialEq>() {
        for seed in 0..6u64 {
            let mut rng = XorShift::new(77 + seed);
            let plies = 60 + rng.below(60);
            let (start, moves) = playout::<R>(&mut rng, plies);
            let comments: Vec<Option<String>> = (0..moves.len())
                .map(|k| Some(format!("[%eval -0.{k:02}]")))
                .collect();
            let text = write_pdn_with_comments(&[], &start, &moves, &comments, "*");
            let numbers = move_numbers(&text);
            let folded: Vec<u32> = numbers
                .iter()
                .map(|n| n.trim_end_matches('.').parse().unwrap())
                .collect();
            assert!(
                folded.windows(2).all(|w| w[0] < w[1]),
                "{}: move numbers repeat or go back: {numbers:?}\n{text}",
                R::NAME
            );
            let first_player_moves = moves
                .iter()
                .scan(start, |p, m| {
                    let first = p.side() == R::FIRST_TO_MOVE;
                    p.play(m);
                    Some(first)
                })
                .filter(|&f| f)
                .count();
            let second_first = start.side() != R::FIRST_TO_MOVE && !moves.is_empty();
            assert_eq!(
                numbers.len(),
                first_player_moves + usize::from(second_first),
                "{}: {text}",
                R::NAME
            );
            assert!(
                numbers.iter().skip(1).all(|n| !n.ends_with("...")),
                "{}: {text}",
                R::NAME
            );
            let g = ok_games(&text).pop().unwrap();
            let (s, m, _) = replayed_moves::<R>(&g);
            assert_eq!((s, m), (start, moves), "{}", R::NAME);
        }
    }
    for v in Variant::ALL {
        with_rules!(v, R => check::<R>());
    }
    // The Russian game pydraughts could not read, as written now.
    let g = ok_games("1. c3-b4 d6-c5 2. b4:d6 e7:c5 3. b2-c3 f6-e5 4. g3-f4 *")
        .pop()
        .unwrap();
    let (start, mut moves, end) = replayed_moves::<Russian>(&g);
    let reply = parse_move(&end, "e5:g3").unwrap();
    moves.push(reply);
    let comments = [
        None,
        None,
        None,
        None,
        None,
        None,
        Some("[%eval 0.14]".into()),
        Some("[%eval 0.09]".into()),
    ];
    let text = write_pdn_with_comments(&[], &start, &moves, &comments, "*");
    assert!(
        movetext(&text).replace('\n', " ").starts_with(
            "1. c3-b4 d6-c5 2. b4:d6 e7:c5 3. b2-c3 f6-e5 4. g3-f4 {[%eval 0.14]} e5:g3 {[%eval 0.09]} *"
        ),
        "{text}"
    );
}

#[test]
fn long_games_wrap_at_80_columns() {
    let mut rng = XorShift::new(99);
    let (start, moves) = playout::<International>(&mut rng, 200);
    assert!(moves.len() > 60);
    let text = write_pdn(&[], &start, &moves, "*");
    let mt = movetext(&text);
    assert!(mt.lines().count() > 5);
    for line in mt.lines() {
        assert!(line.chars().count() <= 80, "{line}");
        // A move number stays with its move.
        assert!(!line.ends_with('.'), "{line}");
    }
    assert!(text.ends_with(" *\n\n") || text.ends_with("\n*\n\n"));
}

// ---------------------------------------------------------------------------
// Hand-written files

const SAMPLE: &str = r#"% A file header in a line comment: 1. 99-99 @@@
[Event "Sample \"match\""]
[Site "Amsterdam"]
[Date "2024.05.01"]
[Round "1"]
[White "Alice"]
[Black "Bob"]
[Result "2-0"]
[GameType "20"]

{Opening comment} 1. 32-28! 19-23?! 2. 28x19 $1 (2. 37-32 (2. 33-29 {nested}) 14-19) 14x23(?)
2... {never mind} 3.37-32 09-14 ; rest of line is a comment 99-99
4. 41-37 $14 17-21!! 5. 46-41 (5. 34-29 23x34 40x29)
5... 11-17 2-0

[Event "English, leading zeros"]
[GameType "21,B,8,8,N1,0"]
[Result "1/2-1/2"]
1. 11-15 22-18 2. 15x22 25x18 3. 08-11 29-25 4. 04-08 25-22 1/2-1/2

[Event "Russian, colon captures"]
[GameType "25"]
1.c3-d4 f6-e5 2.d4:f6 g7:e5 3. b2-c3 (3. g3-f4 e5:g3 4. h2:f4) 3... h6-g5 0-1
[Event "Italian, no result, then tags"]
[GameType "22"]
1. 22-19 10-14 2. 19x10 5x14
[Event "Separator-less moves and a setup"]
[GameType "20"]
/FEN "W:W31-50:B1-20"/ 1. 3228 1923 2. 28x19 1423 *
"#;

#[test]
fn sample_file() {
    let games = ok_games(SAMPLE);
    assert_eq!(games.len(), 5);

    let g = &games[0];
    assert_eq!(g.number, 1);
    assert_eq!(g.tag("Event"), Some("Sample \"match\""));
    assert_eq!(g.tag("event"), Some("Sample \"match\""));
    assert_eq!(g.tag("Black"), Some("Bob"));
    assert_eq!(g.tag("Opening"), None);
    assert_eq!(game_variant(g), Some(Variant::International));
    assert_eq!(
        g.moves,
        [
            "32-28", "19-23", "28x19", "14x23", "37-32", "09-14", "41-37", "17-21", "46-41",
            "11-17"
        ]
    );
    assert_eq!(g.result.as_deref(), Some("2-0"));
    assert_eq!(
        parse_result(g.result.as_deref().unwrap()),
        Some(Some(Color::White))
    );
    assert_eq!(
        g.comments,
        [
            (0, "Opening comment".to_string()),
            (4, "never mind".to_string()),
            (6, "rest of line is a comment 99-99".to_string()),
        ]
    );
    let (start, moves, end) = replayed_moves::<International>(g);
    assert_eq!(start, Position::start());
    assert_eq!(moves.len(), 10);
    assert!(moves[2].is_capture() && moves[3].is_capture());
    assert_eq!(end.side(), Color::White);
    assert_eq!(end.count(Color::White), 19);
    assert_eq!(end.count(Color::Black), 19);

    let g = &games[1];
    assert_eq!(game_variant(g), Some(Variant::English));
    assert_eq!(g.moves[4], "08-11");
    assert_eq!(g.result.as_deref(), Some("1/2-1/2"));
    assert_eq!(parse_result("1/2-1/2"), Some(None));
    let (_, moves, end) = replayed_moves::<English>(g);
    assert_eq!(moves.len(), 8);
    assert_eq!(end.side(), Color::Black);
    assert_eq!((end.count(Color::White), end.count(Color::Black)), (11, 11));

    let g = &games[2];
    assert_eq!(game_variant(g), Some(Variant::Russian));
    assert_eq!(
        g.moves,
        ["c3-d4", "f6-e5", "d4:f6", "g7:e5", "b2-c3", "h6-g5"]
    );
    assert_eq!(g.result.as_deref(), Some("0-1"));
    let (_, moves, end) = replayed_moves::<Russian>(g);
    assert_eq!(moves.iter().filter(|m| m.is_capture()).count(), 2);
    assert_eq!(end.side(), Color::White);

    // A game with no result ends at the next tag section.
    let g = &games[3];
    assert_eq!(game_variant(g), Some(Variant::Italian));
    assert_eq!(g.moves, ["22-19", "10-14", "19x10", "5x14"]);
    assert_eq!(g.result, None);
    let (_, moves, _) = replayed_moves::<Italian>(g);
    assert_eq!(moves.len(), 4);

    // `/FEN "..."/` before the moves becomes the FEN tag; "3228" is 32-28.
    let g = &games[4];
    assert_eq!(g.tag("FEN"), Some("W:W31-50:B1-20"));
    assert_eq!(g.moves, ["3228", "1923", "28x19", "1423"]);
    let (_, moves, end) = replayed_moves::<International>(g);
    let (_, sample_moves, _) = replayed_moves::<International>(&games[0]);
    assert_eq!(moves, sample_moves[..4]);
    assert_eq!(end.count(Color::Black), 19);
}

#[test]
fn full_paths_and_capture_separators() {
    // International: a white man on 33 takes 28 and 18 (33x22x13), or in
    // short 33x13; ':' works as separator too.
    let fen = "W:W33:B28,18,K1";
    for text in ["33x13", "33:13", "33x22x13", "33X22X13", "033x013"] {
        let pdn = format!("[FEN \"{fen}\"]\n[GameType \"20\"]\n1. {text} *\n");
        let g = ok_games(&pdn).pop().unwrap();
        let (_, moves, end) = replayed_moves::<International>(&g);
        assert_eq!(moves.len(), 1, "{text}");
        assert_eq!(moves[0].capture_count(), 2, "{text}");
        assert_eq!(write_fen(&end), "B:W13:BK1", "{text}");
    }
}

#[test]
fn results_end_games_and_empty_games() {
    let text = "1. 2-0 1. 32-28 0-2 [Event \"x\"] 1-1 1. 32-28 19-23 1/2-1/2 * 0-0 1. 32-28 1-0 41. - - 0-1";
    let games = ok_games(text);
    let results: Vec<Option<&str>> = games.iter().map(|g| g.result.as_deref()).collect();
    assert_eq!(
        results,
        [
            Some("2-0"),
            Some("0-2"),
            Some("1-1"),
            Some("1/2-1/2"),
            Some("*"),
            Some("0-0"),
            Some("1-0"),
            Some("0-1")
        ]
    );
    let counts: Vec<usize> = games.iter().map(|g| g.moves.len()).collect();
    assert_eq!(counts, [0, 1, 0, 2, 0, 0, 1, 0]);
    assert_eq!(games[2].tag("Event"), Some("x"));
    assert_eq!(
        games.iter().map(|g| g.number).collect::<Vec<_>>(),
        (1..=8).collect::<Vec<_>>()
    );
    // Without a movetext result, the Result tag is used.
    let g = ok_games("[Result \"1-0\"]\n1. 32-28").pop().unwrap();
    assert_eq!(g.result.as_deref(), Some("1-0"));
    // Nothing but white space and comments: no games.
    assert!(parse_pdn("").is_empty());
    assert!(parse_pdn("  \n% only a comment\n").is_empty());
}

#[test]
fn broken_games_in_the_middle_of_a_file() {
    let text = "[Event \"one\"]\n1. 32-28 19-23 2-0\n\n\
                [Event \"two\"]\n1. 32-28 @@@ 19-23 2. 28x19 14x23 2-0\n\n\
                [Event \"three\"]\n1. 32-28 {a comment that never ends\n\n\
                [Event \"four\"]\n1. 33-29 *\n\n\
                [Event \"five\n[Event \"six\"]\n1. 34-30 ) 0-2\n\
                [Event \"seven\"]\n1. 31-26 (1. 32-28 (nested 1-1\n\
                [Event \"eight\"]\n1. 35-30 1-1\n";
    let out = parse_pdn(text);
    let errs: Vec<(usize, PdnError)> = out
        .iter()
        .enumerate()
        .filter_map(|(k, r)| r.clone().err().map(|e| (k, e)))
        .collect();
    let oks: Vec<&PdnGame> = out.iter().filter_map(|r| r.as_ref().ok()).collect();

    // One, four and eight read; the rest are errors.
    let events: Vec<Option<&str>> = oks.iter().map(|g| g.tag("Event")).collect();
    assert_eq!(
        events,
        [Some("one"), Some("four"), Some("eight")],
        "{out:#?}"
    );
    assert_eq!(oks[0].moves, ["32-28", "19-23"]);
    assert_eq!(oks[1].moves, ["33-29"]);
    assert_eq!(oks[2].moves, ["35-30"]);

    let e = &errs[0].1;
    assert_eq!(e.game, 2);
    assert_eq!(e.line, Some(5));
    assert!(e.message.contains("@@@"), "{e}");
    assert!(e.to_string().starts_with("game 2, line 5: "), "{e}");
    // The unclosed comment would run to the end of the file: reading
    // resumes at the next line starting with '[' after its '{'.
    let e = &errs[1].1;
    assert_eq!(e.line, Some(8));
    assert_eq!(e.game, 3);
    assert!(e.message.contains("comment"), "{e}");
    let five = errs
        .iter()
        .find(|(_, e)| e.message.contains("never closed") && e.message.contains("tag"))
        .expect("tag error");
    assert!(five.1.message.contains("Event"), "{}", five.1);
    assert!(
        errs.iter().any(|(_, e)| e.message.contains("')'")),
        "{errs:?}"
    );
    assert!(
        errs.iter().any(|(_, e)| e.message.contains("variation")),
        "{errs:?}"
    );
    // Game numbers count every game, read or not.
    for (k, r) in out.iter().enumerate() {
        let n = match r {
            Ok(g) => g.number,
            Err(e) => e.game,
        };
        assert_eq!(n, k + 1);
    }
    assert_eq!(out.len(), 8, "{out:#?}");
}

#[test]
fn replay_errors_name_ply_and_move() {
    let games = ok_games(
        "[GameType \"20\"] 1. 32-28 19-23 2. 28-22 * \
         [GameType \"20\"] 1. 32-29 * \
         [GameType \"21\"] 1. 11-15 * \
         [GameType \"20\"] [FEN \"W:W31-50:B1-19,25\"] 1. 32-28 * \
         [GameType \"20\"] [FEN \"X:W1\"] 1. 32-28 * \
         1. 32-99 *",
    );
    assert_eq!(games.len(), 6);

    let e = replay::<International>(&games[0]).unwrap_err();
    assert_eq!(
        (e.game, e.ply, e.move_text.as_deref()),
        (1, Some(3), Some("28-22"))
    );
    assert!(e.message.contains("compulsory"), "{e}");
    assert!(e.to_string().contains("game 1, ply 3, move '28-22'"), "{e}");

    let e = replay::<International>(&games[1]).unwrap_err();
    assert_eq!((e.ply, e.move_text.as_deref()), (Some(1), Some("32-29")));
    assert!(e.message.contains("not legal"), "{e}");

    let e = replay::<International>(&games[2]).unwrap_err();
    assert_eq!(e.ply, None);
    assert!(e.message.contains("GameType"), "{e}");
    assert!(replay::<English>(&games[2]).is_ok());

    // The FEN tag is honoured: 25 is black instead of 20, so 32-28 is
    // still legal but the position differs from the start.
    let (start, _) = replay::<International>(&games[3]).unwrap();
    assert_eq!(start.count(Color::Black), 20);
    assert_ne!(start, Position::start());

    let e = replay::<International>(&games[4]).unwrap_err();
    assert!(e.message.contains("FEN"), "{e}");

    let e = replay::<International>(&games[5]).unwrap_err();
    assert_eq!((e.ply, e.move_text.as_deref()), (Some(1), Some("32-99")));
    assert!(e.message.contains("99"), "{e}");
}

#[test]
fn variants_and_results() {
    let with = |gt: &str| PdnGame {
        tags: tags(&[("GameType", gt)]),
        ..PdnGame::default()
    };
    let cases = [
        ("20", Some(Variant::International)),
        ("20,W,10,10,N2,0", Some(Variant::International)),
        ("21,B,8,8,N1,0", Some(Variant::English)),
        (" 22 ", Some(Variant::Italian)),
        ("24", Some(Variant::Spanish)),
        ("25,W,8,8,A0,0", Some(Variant::Russian)),
        ("26", Some(Variant::Brazilian)),
        ("30", Some(Variant::Turkish)),
        ("23", None),
        ("0", None),
        ("draughts", None),
        ("", None),
    ];
    for (gt, v) in cases {
        assert_eq!(game_variant(&with(gt)), v, "{gt}");
    }
    assert_eq!(game_variant(&PdnGame::default()), None);
    for v in Variant::ALL {
        assert_eq!(game_variant(&with(v.game_type())), Some(v));
    }

    assert_eq!(result_string(true, Some(Color::White)), "2-0");
    assert_eq!(result_string(true, Some(Color::Black)), "0-2");
    assert_eq!(result_string(true, None), "1-1");
    assert_eq!(result_string(false, Some(Color::White)), "1-0");
    assert_eq!(result_string(false, Some(Color::Black)), "0-1");
    assert_eq!(result_string(false, None), "1/2-1/2");
    assert_eq!(result_string_for::<International>(None), "1-1");
    assert_eq!(result_string_for::<Turkish>(Some(Color::Black)), "0-1");
    assert!(has_international_results("20,W,10,10,N2,0"));
    assert!(!has_international_results(English::GAME_TYPE));
    for intl in [true, false] {
        for w in [Some(Color::White), Some(Color::Black), None] {
            assert_eq!(parse_result(result_string(intl, w)), Some(w));
        }
    }
    assert_eq!(parse_result(" 2-0 "), Some(Some(Color::White)));
    assert_eq!(parse_result("*"), None);
    assert_eq!(parse_result("0-0"), None);
    assert_eq!(parse_result("won"), None);
}

#[test]
fn setup_tags_and_fen_start() {
    // A game from a set-up position, with the second player to move, in
    // Turkish (algebraic squares).
    let start = parse_fen::<Turkish>("B:Wa2,b2,c2:Bd7,e7").unwrap();
    let mut rng = XorShift::new(3);
    let mut pos = start;
    let mut moves = Vec::new();
    for _ in 0..6 {
        let list = legal(&pos);
        if list.is_empty() {
            break;
        }
        let m = list[rng.below(list.len())];
        moves.push(m);
        pos.play(&m);
    }
    assert!(!moves.is_empty());
    let given = tags(&[("SetUp", "1"), ("White", "W")]);
    let text = write_pdn(&given, &start, &moves, "*");
    assert!(!text.contains("SetUp"));
    assert!(text.contains("[FEN \"B:Wa2,b2,c2:Bd7,e7\"]"), "{text}");
    assert!(movetext(&text).starts_with("1... "), "{text}");
    let g = ok_games(&text).pop().unwrap();
    let (s, m, e) = replayed_moves::<Turkish>(&g);
    assert_eq!((s, m, e), (start, moves, pos));
}

// ---------------------------------------------------------------------------
// Fuzzing

/// Parses and, for every game read, replays in its variant (or
/// International), checking game numbers; never panics.
fn parse_everything(text: &str) {
    let out = parse_pdn(text);
    for (k, r) in out.iter().enumerate() {
        match r {
            Ok(g) => {
                assert_eq!(g.number, k + 1);
                let v = game_variant(g).unwrap_or(Variant::International);
                with_rules!(v, R => {
                    if let Ok((start, plies)) = replay::<R>(g) {
                        assert_eq!(plies.len(), g.moves.len());
                        let moves: Vec<Move> = plies.iter().map(|(_, m)| *m).collect();
                        let _ = write_pdn::<R>(&g.tags, &start, &moves, g.result.as_deref().unwrap_or("*"));
                    }
                });
            }
            Err(e) => {
                assert_eq!(e.game, k + 1);
                assert!(!e.message.is_empty());
                assert!(!e.to_string().is_empty());
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn arbitrary_strings_never_panic(text in "\\PC{0,300}") {
        parse_everything(&text);
    }

    #[test]
    fn pdn_like_strings_never_panic(
        text in "([\\[\\]{}()\"/;%$!?*.:x\\-\\n ]|[0-9]{1,3}|[a-h][1-8]|FEN|GameType|1-0|2-0|1/2-1/2|32-28|19-23|28x19|14x23)*"
    ) {
        parse_everything(&text);
    }

    #[test]
    // After a result token in the junk (`*`, `2-0`) the rest of the line
    // is a game of its own; a stray ']', '}' or ')' there makes it an error
    // that ends at the good game's first tag.
    fn a_good_game_after_a_broken_one_still_reads(junk in "[^\\[\\n{(\"]{0,60}") {
        let good = "[Event \"good\"]\n[GameType \"20\"]\n1. 32-28 19-23 2. 28x19 14x23 2-0\n";
        let text = format!("[Event \"bad\"]\n1. 32-28 @@@ {junk}\n{good}");
        let out = parse_pdn(&text);
        let last = out.last().expect("some game").as_ref().expect("the good game reads");
        prop_assert_eq!(last.tag("Event"), Some("good"));
        prop_assert_eq!(last.moves.len(), 4);
        prop_assert!(matches!(&out[0], Err(e) if e.game == 1));
        let (_, plies) = replay::<International>(last).expect("replays");
        prop_assert_eq!(plies.len(), 4);
    }
}
