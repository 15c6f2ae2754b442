//! Multi-PV search: the lines come best first, each with a score, and the
//! first line is exactly what a single-line search finds at the same depth,
//! whatever the number of lines asked for. One thread, fixed depths and a
//! fresh searcher per search, so every run searches the same trees.

use kondavo::eval::Evaluate;
use kondavo::movegen::{generate, MoveList};
use kondavo::notation::fen::{parse_fen, write_fen};
use kondavo::notation::movetext::move_to_pdn;
use kondavo::position::Position;
use kondavo::rules::Russian;
use kondavo::search::threads::Searcher;
use kondavo::search::{Limits, SearchResult};
use kondavo::tools::search::{bench_positions, job};
use kondavo::{with_rules, Variant};

/// A Russian middle game, Black to move, where several moves score within a
/// few centi-men of each other.
const RUSSIAN_MIDDLE_GAME: &str =
    "B:Wa1,a3,c1,c3,d2,e1,e3,f2,g1,g3,h2,h4:Ba7,b6,b8,c7,d6,d8,e5,e7,f8,g7,h6,h8";

fn legal<R: Evaluate>(pos: &Position<R>) -> MoveList {
    let mut list = MoveList::new();
    generate(pos, &mut list);
    list
}

/// A search of `pos` to `depth` asking for `multipv` lines, on one thread
/// with a fresh table.
fn search<R: Evaluate>(pos: &Position<R>, depth: i32, multipv: usize) -> SearchResult {
    let mut searcher = Searcher::<R>::new(1, 16);
    searcher.search(&job(*pos, Limits::depth(depth), multipv), &mut |_| {})
}

/// Searches `pos` with one line and with `multipv` lines and checks the
/// lines: as many as asked (or as there are legal moves), each starting
/// with a different legal move, all at the depth searched, best first, the
/// first with the single-line search's score and move.
fn check_lines<R: Evaluate>(pos: &Position<R>, depth: i32, multipv: usize) {
    let what = format!(
        "{} {} depth {depth} multipv {multipv}",
        R::NAME,
        write_fen(pos)
    );
    let list = legal(pos);
    let single = search(pos, depth, 1);
    let multi = search(pos, depth, multipv);
    assert_eq!(multi.depth, depth, "{what}");
    assert_eq!(multi.lines.len(), multipv.min(list.len()), "{what}");
    let text: Vec<String> = multi
        .lines
        .iter()
        .map(|l| format!("{} {}", move_to_pdn(pos, &l.pv[0]), l.score))
        .collect();
    let mut firsts = Vec::new();
    for (k, line) in multi.lines.iter().enumerate() {
        assert_eq!(line.multipv, k + 1, "{what}");
        assert_eq!(line.depth, depth, "{what}: line {}", k + 1);
        let first = line.pv[0];
        assert!(list.contains(&first), "{what}: line {} illegal", k + 1);
        assert!(!firsts.contains(&first), "{what}: two lines start alike");
        firsts.push(first);
        if k > 0 {
            assert!(
                line.score <= multi.lines[k - 1].score,
                "{what}: lines out of order: {text:?}"
            );
        }
    }
    assert_eq!(
        multi.lines[0].score,
        single.score,
        "{what}: first line {text:?}, single line {} {}",
        move_to_pdn(pos, &single.best.unwrap()),
        single.score
    );
    assert_eq!(multi.score, single.score, "{what}");
    assert_eq!(
        multi.lines[0].pv[0],
        single.best.unwrap(),
        "{what}: {text:?}"
    );
    assert_eq!(multi.best, single.best, "{what}");
    assert_eq!(multi.pv, multi.lines[0].pv, "{what}");
}

/// A depth per variant that takes a fraction of a second.
fn depth_of(v: Variant) -> i32 {
    match v {
        Variant::International | Variant::Turkish => 8,
        Variant::English | Variant::Italian => 12,
        _ => 10,
    }
}

/// The bench positions of every variant with three lines, and the Russian
/// middle game with two to five.
///
/// Failing when written: the first line came out of a different search than
/// a single line's (the other lines of earlier iterations had filled the
/// table, killers and history), and a later line's own search could score
/// above the line before it, shown unsorted. Seventeen of these 34
/// positions failed: the Russian middle game listed e5-f4 (1) above b6-a5
/// (0), where a single line finds b6-a5 (0), and an English position gave
/// 358 for 11-15, where a single line finds 451.
#[test]
fn lines_are_sorted_and_the_first_is_the_single_line_search() {
    for v in Variant::ALL {
        with_rules!(v, R => {
            for pos in bench_positions::<R>() {
                check_lines(&pos, depth_of(v), 3);
            }
        });
    }
    let pos = parse_fen::<Russian>(RUSSIAN_MIDDLE_GAME).unwrap();
    for k in [2, 3, 5] {
        check_lines(&pos, 10, k);
    }
    check_lines(&pos, 12, 4);
}

/// Asking for more lines than there are legal moves gives one line per
/// legal move, each move once, sorted; asking for one gives the plain
/// search's line.
#[test]
fn more_lines_than_moves_and_a_single_line() {
    let few = parse_fen::<Russian>("W:Wc1,e1:Bf8,h8").unwrap();
    let n = legal(&few).len();
    assert_eq!(n, 4);
    check_lines(&few, 10, 10);
    let r = search(&few, 10, 10);
    assert_eq!(r.lines.len(), n);

    let pos = parse_fen::<Russian>(RUSSIAN_MIDDLE_GAME).unwrap();
    let all = legal(&pos).len();
    check_lines(&pos, 8, all + 3);

    for p in [few, pos] {
        let r = search(&p, 10, 1);
        assert_eq!(r.lines.len(), 1);
        assert_eq!(r.lines[0].multipv, 1);
        assert_eq!(r.lines[0].score, r.score);
        assert_eq!(r.lines[0].pv, r.pv);
        assert_eq!(r.best, Some(r.pv[0]));
    }
}

/// A multi-PV search leaves the table as a single-line search does: a
/// single-line search after it, on the same searcher, finds what it finds
/// after a single-line search.
#[test]
fn a_multi_pv_search_leaves_the_main_table_alone() {
    let pos = parse_fen::<Russian>(RUSSIAN_MIDDLE_GAME).unwrap();
    let after = |multipv: usize| {
        let mut searcher = Searcher::<Russian>::new(1, 16);
        searcher.search(&job(pos, Limits::depth(10), multipv), &mut |_| {});
        let r = searcher.search(&job(pos, Limits::depth(11), 1), &mut |_| {});
        (r.best, r.score, r.nodes)
    };
    assert_eq!(after(4), after(1));
}
