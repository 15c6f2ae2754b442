//! Every diagram of the rules pages (`web/rules.json`, docs/web-api.md)
//! checked with the engine's own move generator: its FEN reads in its
//! variant, its move is legal there and names one move, which takes
//! exactly the marked pieces and crowns a man exactly when marked.

use std::collections::BTreeSet;

use kondavo::geometry::Bits;
use kondavo::movegen::Move;
use kondavo::notation::bit_name;
use kondavo::notation::fen::parse_fen;
use kondavo::notation::movetext::parse_move;
use kondavo::notation::parse_square;
use kondavo::position::Position;
use kondavo::rules::Rules;
use kondavo::serve::board::crowns;
use kondavo::{with_rules, Variant};
use serde_json::Value;

/// Checks one diagram; an error says what is wrong.
fn check<R: Rules>(d: &Value) -> Result<(), String> {
    let fen = d["fen"].as_str().ok_or("no fen")?;
    let pos: Position<R> = parse_fen(fen).map_err(|e| format!("FEN: {e}"))?;
    let text = d["move"].as_str().ok_or("no move")?;
    let mv: Move = parse_move(&pos, text).map_err(|e| format!("move: {e}"))?;
    let taken: BTreeSet<String> = Bits(mv.captured)
        .map(|b| bit_name::<R>(b.trailing_zeros() as u8))
        .collect();
    let marked: BTreeSet<String> = d["captured"]
        .as_array()
        .ok_or("no captured list")?
        .iter()
        .map(|c| {
            let name = c.as_str().ok_or("a captured square is not a string")?;
            // Written as the variant writes squares, leading zeros aside.
            parse_square::<R>(name)
                .map(|s| kondavo::notation::square_name::<R>(s))
                .map_err(|e| format!("captured: {e}"))
        })
        .collect::<Result<_, String>>()?;
    if taken != marked {
        return Err(format!(
            "the move takes {taken:?}, the diagram marks {marked:?}"
        ));
    }
    if let Some(p) = d.get("promotes").and_then(Value::as_bool) {
        if p != crowns(&pos, &mv) {
            return Err(format!("promotes is {p}, the move says {}", !p));
        }
    }
    Ok(())
}

#[test]
fn every_rules_diagram_is_a_legal_move_of_its_variant() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/web/rules.json");
    let text = std::fs::read_to_string(path).expect("web/rules.json");
    let pages: Value = serde_json::from_str(&text).expect("rules.json is JSON");
    let pages = pages.as_array().expect("a list of pages");
    let mut seen = BTreeSet::new();
    let mut errors = Vec::new();
    let mut count = 0;
    for page in pages {
        let name = page["variant"].as_str().expect("variant");
        let v: Variant = name.parse().expect("a variant name");
        assert!(
            page["title"].as_str().is_some_and(|t| !t.is_empty()),
            "{name}: title"
        );
        let paragraphs = page["text"].as_array().expect("text paragraphs");
        assert!(paragraphs.iter().all(Value::is_string), "{name}: text");
        for (i, d) in page["diagrams"]
            .as_array()
            .expect("diagrams")
            .iter()
            .enumerate()
        {
            count += 1;
            seen.insert(v.name());
            if let Err(e) = with_rules!(v, R => check::<R>(d)) {
                errors.push(format!("{name} diagram {} ({}): {e}", i + 1, d["fen"]));
            }
        }
    }
    assert!(errors.is_empty(), "{}", errors.join("\n"));
    let all: BTreeSet<&str> = Variant::ALL.iter().map(|v| v.name()).collect();
    assert_eq!(seen, all, "every variant has diagrams");
    assert!(count >= 14, "{count} diagrams");
}

#[test]
fn the_check_catches_a_wrong_diagram() {
    use kondavo::rules::{English, International};
    let good: Value =
        serde_json::json!({"fen": "W:W10:B7", "move": "10x3", "captured": ["7"], "promotes": true});
    assert_eq!(check::<English>(&good), Ok(()));
    let wrong_taken = serde_json::json!({"fen": "W:W10:B7", "move": "10x3", "captured": ["6"]});
    assert!(check::<English>(&wrong_taken)
        .unwrap_err()
        .contains("takes"));
    let not_crowned = serde_json::json!({"fen": "W:W10:B7", "move": "10x3", "captured": ["7"], "promotes": false});
    assert!(check::<English>(&not_crowned)
        .unwrap_err()
        .contains("promotes"));
    let illegal = serde_json::json!({"fen": "W:W32:B1", "move": "32-26", "captured": []});
    assert!(check::<International>(&illegal)
        .unwrap_err()
        .contains("move"));
    let bad_fen = serde_json::json!({"fen": "W:W51", "move": "1-2", "captured": []});
    assert!(check::<International>(&bad_fen)
        .unwrap_err()
        .contains("FEN"));
    let ambiguous =
        serde_json::json!({"fen": "W:W31:B18,19,26,27", "move": "31x15", "captured": ["18", "26"]});
    assert!(check::<English>(&ambiguous)
        .unwrap_err()
        .contains("ambiguous"));
}
