//! Openings for matches: generated openings pass a deeper balance check
//! (deterministically for a seed), and the standard decks shipped in the
//! binary are legal, complete and selectable by name, also through
//! `kondavo match --openings`.

use std::process::Command;

use kondavo::eval::Evaluate;
use kondavo::rules::{English, International, Russian};
use kondavo::search::threads::Searcher;
use kondavo::tools::openings::{
    deck, generate_openings, generate_openings_with, load_openings, read_openings, BalanceCheck,
    Opening, DECKS,
};
use kondavo::with_rules;

/// The English opening the depth-6 check let through: Black's exchanges
/// end with a king against a man at equal numbers (`14x23 26x19 16x23 31-27
/// 7-10 27x18 2-7 30-26 11-16 20x2 9-13 2x9 5x30`), which the depth-6
/// search does not see.
const LOST_ENGLISH: &str = "12-16 24-20 8-12 27-24 10-14 23-18";

/// The window of the English checks, in centi-men. Generation 0 values
/// the king Black wins above at a king less a man (40) less the
/// positional terms: 37 after the deeper search, against 7 at depth 6.
const ENGLISH_CP: i32 = 30;

/// The balance checks below search with generation 0 (the starting
/// vector, whose values are fixed in the source, unlike the shipped
/// weights that are retrained), so their verdicts do not move with the
/// weights. Every test that searches calls this first; no other test here
/// evaluates a position.
fn generation_zero() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        for v in ["english", "russian"] {
            kondavo::eval::learned::install_file(&format!("start:{v}")).unwrap();
        }
    });
}

fn english(line: &str) -> Opening<English> {
    read_openings::<English>(line).unwrap().remove(0)
}

#[test]
fn a_lost_english_opening_is_rejected() {
    generation_zero();
    let pos = english(LOST_ENGLISH).position();
    let check = BalanceCheck::new(ENGLISH_CP);
    let mut searcher = Searcher::<English>::new(1, 4);
    let (quick, deep) = check.scores(&mut searcher, &pos).expect("moves");
    // The quick search alone (what generated openings had) sees nothing.
    assert!(quick.abs() <= ENGLISH_CP / 2, "quick score {quick}");
    // The deeper one finds Black's king.
    let deep = deep.expect("deeper search");
    assert!(deep > ENGLISH_CP, "deep score {deep} (Black to move)");
    assert!(!check.passes(&mut searcher, &pos));
    // The verdict is the same whatever the searcher saw before.
    let other = english("11-15 23-19 8-11").position();
    check.passes(&mut searcher, &other);
    assert_eq!(check.scores(&mut searcher, &pos), Some((quick, Some(deep))));
}

fn passes_check<R: Evaluate>(openings: &[Opening<R>], max_cp: i32) {
    let check = BalanceCheck::new(max_cp);
    let mut searcher = Searcher::<R>::new(1, 4);
    for o in openings {
        let (q, d) = check.scores(&mut searcher, &o.position()).unwrap();
        let d = d.unwrap_or_else(|| panic!("{}: quick score {q} out of the window", R::NAME));
        assert!(d.abs() <= max_cp, "{}: deep score {d}", R::NAME);
    }
}

#[test]
fn generated_openings_pass_the_deeper_check_and_depend_on_the_seed_only() {
    generation_zero();
    // Seed 1 gives the lost opening first (what `kondavo match` uses when
    // no --openings is given): the quick search alone lets it through, the
    // deeper check rejects it.
    let lost = english(LOST_ENGLISH);
    let quick_only = BalanceCheck {
        depth: 6,
        ..BalanceCheck::new(ENGLISH_CP)
    };
    let first = generate_openings_with::<English>(1, 6, &quick_only, 1);
    assert_eq!(first.len(), 1);
    assert_eq!(first[0], lost);
    let o = generate_openings::<English>(5, 6, ENGLISH_CP, 1);
    assert_eq!(o.len(), 5);
    assert!(!o.contains(&lost));
    assert!(o.iter().all(|x| x.moves.len() == 6));
    passes_check(&o, ENGLISH_CP);
    assert_eq!(generate_openings::<English>(5, 6, ENGLISH_CP, 1), o);
    assert_ne!(generate_openings::<English>(5, 6, ENGLISH_CP, 2), o);

    let r = generate_openings::<Russian>(4, 4, 40, 9);
    assert_eq!(r.len(), 4);
    passes_check(&r, 40);
}

#[test]
fn every_ballot_of_every_deck_is_legal() {
    for d in DECKS {
        assert_eq!(deck(d.name), Some(d));
        assert_eq!(deck(&d.name.to_uppercase()), Some(d));
        // The barred ballots, kept as comments, are legal too.
        let barred: String = d
            .text
            .lines()
            .filter_map(|l| l.strip_prefix("#barred "))
            .map(|l| format!("{l}\n"))
            .collect();
        let (n, nb, distinct) = with_rules!(d.variant, R => {
            let all = read_openings::<R>(d.text).unwrap_or_else(|e| panic!("{}: {e}", d.name));
            let bad = if barred.is_empty() {
                Vec::new()
            } else {
                read_openings::<R>(&barred).unwrap_or_else(|e| panic!("{} barred: {e}", d.name))
            };
            let mut keys: Vec<u64> = all.iter().chain(&bad).map(|o| o.position().key()).collect();
            keys.sort_unstable();
            keys.dedup();
            (all.len(), bad.len(), keys.len())
        });
        assert_eq!(
            distinct,
            n + nb,
            "{}: two ballots reach one position",
            d.name
        );
        if d.name == "english-3move" {
            assert_eq!((n, nb), (156, 18));
        }
    }
}

#[test]
fn english_three_move_deck_numbers_and_barred_ballots() {
    let d = deck("english-3move").unwrap();
    let mut numbers: Vec<u32> = Vec::new();
    let mut barred: Vec<u32> = Vec::new();
    for l in d.text.lines() {
        let (line, list) = match l.strip_prefix("#barred ") {
            Some(rest) => (rest, &mut barred),
            None if l.starts_with('#') || l.trim().is_empty() => continue,
            None => (l, &mut numbers),
        };
        let words: Vec<&str> = line.split_whitespace().collect();
        assert_eq!(words.len(), 4, "{l}");
        list.push(words[0].parse().unwrap());
    }
    let mut all: Vec<u32> = numbers.iter().chain(&barred).copied().collect();
    all.sort_unstable();
    assert_eq!(all, (1..=174).collect::<Vec<u32>>());
    assert_eq!(
        barred,
        [3, 13, 26, 35, 44, 45, 48, 52, 77, 88, 94, 109, 114, 137, 145, 156, 168, 171]
    );
    // Ballot 1 and ballot 174, from the start position.
    let o = load_openings::<English>("english-3move").unwrap();
    assert_eq!(o.len(), 156);
    assert_eq!(o[0], english("9-13 21-17 5-9"));
    assert_eq!(o[155], english("12-16 24-20 10-15"));
}

#[test]
fn openings_by_name_or_path() {
    assert_eq!(
        load_openings::<English>("English-3Move").unwrap().len(),
        156
    );
    let e = load_openings::<International>("english-3move").unwrap_err();
    assert!(e.contains("english") && e.contains("international"), "{e}");
    let e = load_openings::<Russian>("no-such-deck").unwrap_err();
    assert!(
        e.contains("no-such-deck") && e.contains("english-3move"),
        "{e}"
    );

    let dir = std::env::temp_dir().join(format!("kondavo-openings-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("two.txt");
    std::fs::write(&path, "# two\n11-15 23-19 8-11\n9-13 22-18\n").unwrap();
    let o = load_openings::<English>(path.to_str().unwrap()).unwrap();
    assert_eq!(o.len(), 2);
    std::fs::write(&path, "11-15 11-15\n").unwrap();
    let e = load_openings::<English>(path.to_str().unwrap()).unwrap_err();
    assert!(e.contains("two.txt") && e.contains("line 1"), "{e}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn match_plays_a_deck_by_name() {
    let dir = std::env::temp_dir().join(format!("kondavo-deck-match-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let pdn = dir.join("deck.pdn");
    let out = Command::new(env!("CARGO_BIN_EXE_kondavo"))
        .args([
            "match",
            "--variant",
            "english",
            "--openings",
            "english-3move",
            "--games",
            "2",
            "--a",
            "kondavo:depth=1",
            "--b",
            "kondavo:depth=1",
            "--max-plies",
            "40",
            "--pdn",
            pdn.to_str().unwrap(),
        ])
        .output()
        .expect("run kondavo");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    let text = std::fs::read_to_string(&pdn).unwrap();
    // Both games open with ballot 1, one with each engine as Black.
    assert_eq!(text.matches("1. 9-13 21-17 2. 5-9").count(), 2, "{text}");
    let _ = std::fs::remove_dir_all(&dir);
}
