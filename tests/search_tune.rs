//! The search's optional settings (`KONDAVO_TUNE`) switched on as hard as
//! they go: the singular extension's test at every node of depth 3 or more,
//! with multi-cut, counter moves, both continuation histories and the
//! history by side in the ordering, and logarithmic late move reductions
//! twice as deep as `lmr-log=200`, the reduced-depth test only where the
//! evaluation reaches its bound, reverse futility pruning at depth 1 and 2,
//! and contempt. The settings
//! are read once a process, so this file holds a single test that sets them
//! before any search. With them, every variant's search must still return
//! legal moves and lines from random positions, and still play each
//! constructed shot (a quiet sacrifice that wins material by force; the same
//! positions as `search_tactics.rs`, which checks them with a material
//! minimax) with a clearly positive score. Each setting alone takes effect:
//! it changes the nodes `kondavo bench` searches. With contempt, a position
//! where every move draws scores the contempt below 0.

use kondavo::eval::Evaluate;
use kondavo::movegen::{generate, MoveList};
use kondavo::notation::fen::{parse_fen, write_fen};
use kondavo::notation::movetext::{line_to_pdn, move_to_pdn};
use kondavo::position::Position;
use kondavo::rules::{
    Brazilian, English, International, Italian, Rules, Russian, Spanish, Turkish,
};
use kondavo::search::threads::Searcher;
use kondavo::search::{tune, Limits, SearchResult, WIN_BOUND};
use kondavo::tools::search::job;
use kondavo::{with_rules, Variant};

mod common;
use common::XorShift;

/// The settings under test.
const SETTINGS: &str =
    "se-depth=3,se-margin=2,se-multicut=1,counter-move=1,lmr-log=100,prune-eval=0,rfp-depth=2,threat-guard=1,cont-history=3,lmr-cut=2,q-margin=0,moves-to-go=20,contempt=25,history-side=1,lmr-improving=2";

fn legal<R: Rules>(pos: &Position<R>) -> MoveList {
    let mut list = MoveList::new();
    generate(pos, &mut list);
    list
}

fn search<R: Evaluate>(pos: Position<R>, depth: i32) -> SearchResult {
    let mut searcher = Searcher::<R>::new(1, 16);
    searcher.search(&job(pos, Limits::depth(depth), 1), &mut |_| {})
}

/// The best move is legal (none only when there is none) and so is every
/// move of the line, which starts with it.
fn assert_legal<R: Rules>(pos: &Position<R>, r: &SearchResult) {
    let fen = write_fen(pos);
    let list = legal(pos);
    match r.best {
        None => assert!(list.is_empty() && r.score < -WIN_BOUND, "{} {fen}", R::NAME),
        Some(best) => {
            assert!(list.contains(&best), "{} {fen}: illegal best move", R::NAME);
            assert_eq!(r.pv.first(), Some(&best), "{} {fen}: pv", R::NAME);
            let mut p = *pos;
            for mv in &r.pv {
                assert!(legal(&p).contains(mv), "{} {fen}: illegal pv", R::NAME);
                p.play(mv);
            }
        }
    }
}

/// Random playouts from the start; every sixth position is searched.
fn random_positions_give_legal_results<R: Evaluate>(rng: &mut XorShift) {
    for _ in 0..3 {
        let mut pos = Position::<R>::start();
        for ply in 0..60 {
            let list = legal(&pos);
            if list.is_empty() {
                break;
            }
            if ply % 6 == 0 {
                let r = search(pos, 7);
                assert_legal(&pos, &r);
            }
            pos.play(&list[rng.below(list.len())]);
        }
    }
}

/// The nodes of `kondavo bench --variant english --depth 9` with
/// `KONDAVO_TUNE` set to `settings` (unset when empty).
fn bench_nodes(settings: &str) -> u64 {
    let mut cmd = std::process::Command::new(common::KONDAVO);
    cmd.args(["bench", "--variant", "english", "--depth", "9"]);
    if settings.is_empty() {
        cmd.env_remove("KONDAVO_TUNE");
    } else {
        cmd.env("KONDAVO_TUNE", settings);
    }
    let out = cmd.output().expect("run kondavo bench");
    assert!(out.status.success(), "bench with '{settings}'");
    let text = String::from_utf8_lossy(&out.stdout);
    let last = text.lines().last().unwrap_or_default();
    last.split_whitespace()
        .find_map(|w| w.strip_prefix("nodes="))
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no node count in '{last}'"))
}

/// The engine plays `expected` in `fen` with more than a man's score.
fn assert_shot<R: Evaluate>(fen: &str, expected: &str) {
    let pos = parse_fen::<R>(fen).unwrap_or_else(|e| panic!("{} {fen}: {e}", R::NAME));
    let r = search(pos, 6);
    let got = r.best.map(|m| move_to_pdn(&pos, &m));
    assert_eq!(
        got.as_deref(),
        Some(expected),
        "{} {fen}: pv {:?} score {}",
        R::NAME,
        line_to_pdn(&pos, &r.pv),
        r.score
    );
    assert!(r.score > 100, "{} {fen}: score {}", R::NAME, r.score);
    assert_legal(&pos, &r);
}

#[test]
fn the_optional_settings_keep_the_search_sound() {
    let default = bench_nodes("");
    for setting in [
        "se-depth=3",
        "se-depth=3,se-multicut=1",
        "counter-move=1",
        "lmr-log=150",
        "prune-eval=1000",
        "rfp-depth=2",
        "threat-guard=1",
        "tt-eval=1",
        "lmr-tactical=1",
        "lmr-tactical=2",
        "cont-history=1",
        "cont-history=2",
        "lmr-cut=1",
        "q-margin=0",
        "history-side=1",
        "lmr-improving=1",
    ] {
        assert_ne!(bench_nodes(setting), default, "{setting} changes nothing");
    }
    assert_eq!(bench_nodes("se-multicut=1,se-margin=9"), default);

    std::env::set_var("KONDAVO_TUNE", SETTINGS);
    // The settings are in force (read once, here).
    let p = tune::params_for("international");
    assert_eq!((p.se_depth, p.se_margin), (3, 2));
    assert!(p.se_multicut && p.counter_move);
    assert_eq!(p.cont_history, 3);
    assert_eq!(p.lmr_cut, 2);
    assert_eq!(p.q_margin, 0);
    assert_eq!(p.moves_to_go, 20);
    assert_eq!(p.contempt, 25);
    assert!(p.history_side);
    assert_eq!(p.lmr_improving, 2);

    // Contempt: where every move draws by English's move rule, the side to
    // move scores a draw 25 centi-men below 0 (0 without contempt).
    let pos = parse_fen::<English>("W:WK5:BK28").unwrap();
    let mut j = job(pos, Limits::depth(4), 1);
    j.reversible = 2 * English::DRAW_MOVES.expect("English has a move rule") - 1;
    let r = Searcher::<English>::new(1, 16).search(&j, &mut |_| {});
    assert_eq!(r.score, -25);

    let mut rng = XorShift::new(0x5eed_5e77);
    for v in Variant::ALL {
        with_rules!(v, R => random_positions_give_legal_results::<R>(&mut rng));
    }

    assert_shot::<English>("W:W25,26,28,31,32:B5,6,11,17,18", "26-22");
    assert_shot::<English>("B:W23,24:B12,15,16", "16-19");
    assert_shot::<Italian>("W:W25,27,28,29,30:B7,8,10,19,20", "27-23");
    assert_shot::<Spanish>("B:W7,8,10,19,20:B25,27,28,29,30", "27-23");
    assert_shot::<Russian>("W:We1,g1,b2,d2,h2:Bb4,d4,f6,a7,c7", "d2-c3");
    assert_shot::<Brazilian>("B:Wf2,h2,c3,e5,g5:Ba7,e7,g7,b8,d8", "e7-f6");
    assert_shot::<International>("W:W41,42,44,45,46,48,49:B6,7,8,14,23,31,32", "42-37");
    assert_shot::<International>("W:W37,40,44,45,K46,49:B2,11,14,16,17,23,28", "37-32");
    assert_shot::<Turkish>("W:Wa2,b2,d2,g2,h2,d3,d4:Bc5,e5,d6,f6,a7,b7,h7", "d4-d5");
}
