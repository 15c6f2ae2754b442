//! `kondavo analyse`: searches positions for scripts. One JSON object per
//! position on standard output (JSON lines), or an annotated PDN.
//!
//! Each object has `fen`, `bestmove`, `score` (centi-men for the side to
//! move; a decisive score also gives `win` or `loss`, the distance in
//! plies), `depth`, `nodes`, `time`, `pv` (moves in the variant's
//! notation) and `lines` (one entry per multi-PV line: `move`, `score`,
//! `pv`); positions from a PDN add `game` and `ply`. A position within the
//! endgame databases in use adds `egdb`, their value for the side to move
//! (`win 9`, `loss 4`, `draw`; distances in plies). A position that cannot
//! be read or has no legal move gives `{"error": ..., "position": ...}` and
//! the batch goes on.

use std::time::Instant;

use crate::eval::Evaluate;
use crate::movegen::{generate, Move, MoveList};
use crate::notation::fen::{parse_fen, write_fen};
use crate::notation::movetext::{line_to_pdn, move_to_pdn};
use crate::notation::pdn::{parse_pdn, replay, write_pdn_with_comments, PdnGame};
use crate::position::Position;
use crate::search::threads::Searcher;
use crate::search::{plies_to_end, Info, Job, Limits, SearchResult};
use crate::{with_rules, Variant};

/// What to analyse and how.
#[derive(Clone, Debug)]
pub struct AnalyseOptions {
    /// Rule set (a PDN game's GameType tag overrides it).
    pub variant: Variant,
    /// Positions given as FENs.
    pub fens: Vec<String>,
    /// A PDN file: every position of every game.
    pub pdn: Option<String>,
    /// Search limits per position.
    pub limits: Limits,
    /// Lines per position.
    pub multipv: usize,
    /// Search threads.
    pub threads: usize,
    /// Hash MiB.
    pub hash: usize,
    /// Write the PDN games annotated with scores and best moves to this
    /// file instead of JSON lines.
    pub annotate: Option<String>,
}

/// Escapes a string for JSON.
pub fn json_string(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

fn json_list(items: &[String]) -> String {
    format!(
        "[{}]",
        items
            .iter()
            .map(|s| json_string(s))
            .collect::<Vec<_>>()
            .join(",")
    )
}

/// The `score` field, plus `win`/`loss` when decisive.
fn score_fields(score: i32) -> String {
    match plies_to_end(score) {
        Some(n) if score > 0 => format!("\"score\":{score},\"win\":{n}"),
        Some(n) => format!("\"score\":{score},\"loss\":{n}"),
        None => format!("\"score\":{score}"),
    }
}

/// An error object.
pub fn error_json(position: &str, msg: &str) -> String {
    format!(
        "{{\"error\":{},\"position\":{}}}",
        json_string(msg),
        json_string(position)
    )
}

fn search<R: Evaluate>(
    searcher: &mut Searcher<R>,
    pos: &Position<R>,
    history: &[u64],
    reversible: u32,
    opts: &AnalyseOptions,
) -> SearchResult {
    let job = Job {
        root: *pos,
        history: history.to_vec(),
        reversible,
        limits: opts.limits.clone(),
        multipv: opts.multipv.max(1),
        start: Instant::now(),
        ponder: false,
    };
    searcher.search(&job, &mut |_: &Info| {})
}

/// The JSON object of one analysed position.
pub fn result_json<R: Evaluate>(pos: &Position<R>, r: &SearchResult, extra: &str) -> String {
    let Some(best) = r.best else {
        return error_json(&write_fen(pos), "no legal move");
    };
    let lines: Vec<String> = if r.lines.is_empty() {
        vec![format!(
            "{{\"move\":{},{},\"pv\":{}}}",
            json_string(&move_to_pdn(pos, &best)),
            score_fields(r.score),
            json_list(&line_to_pdn(pos, &r.pv))
        )]
    } else {
        r.lines
            .iter()
            .filter(|l| !l.pv.is_empty())
            .map(|l| {
                format!(
                    "{{\"move\":{},{},\"pv\":{}}}",
                    json_string(&move_to_pdn(pos, &l.pv[0])),
                    score_fields(l.score),
                    json_list(&line_to_pdn(pos, &l.pv))
                )
            })
            .collect()
    };
    // The databases' value of the position itself, when in range.
    let egdb = R::egdb()
        .get()
        .and_then(|db| db.value(pos))
        .map(|v| format!(",\"egdb\":{}", json_string(&crate::egdb::value_text(v))))
        .unwrap_or_default();
    // How many positions the search found in the databases, when any.
    let hits = if r.egdb_hits > 0 {
        format!(",\"egdb_hits\":{}", r.egdb_hits)
    } else {
        String::new()
    };
    format!(
        "{{\"fen\":{},{}\"bestmove\":{},{}{egdb},\"depth\":{},\"nodes\":{}{hits},\"time\":{:.3},\"pv\":{},\"lines\":[{}]}}",
        json_string(&write_fen(pos)),
        extra,
        json_string(&move_to_pdn(pos, &best)),
        score_fields(r.score),
        r.depth,
        r.nodes,
        r.time.as_secs_f64(),
        json_list(&line_to_pdn(pos, &r.pv)),
        lines.join(",")
    )
}

/// Runs the analysis, writing JSON lines (or progress lines when
/// annotating) to `out`.
pub fn run_analyse(opts: &AnalyseOptions, out: &mut dyn FnMut(String)) -> Result<(), String> {
    for fen in &opts.fens {
        with_rules!(opts.variant, R => analyse_fen::<R>(fen, opts, out));
    }
    if let Some(path) = &opts.pdn {
        let text = std::fs::read_to_string(path).map_err(|e| format!("PDN file {path}: {e}"))?;
        let mut annotated = String::new();
        for (i, g) in parse_pdn(&text).into_iter().enumerate() {
            let g = match g {
                Ok(g) => g,
                Err(e) => {
                    out(error_json(&format!("game {}", i + 1), &e.to_string()));
                    continue;
                }
            };
            let variant = crate::notation::pdn::game_variant(&g).unwrap_or(opts.variant);
            let text = with_rules!(variant, R => analyse_game::<R>(&g, i, opts, out));
            annotated.push_str(&text);
        }
        if let Some(dest) = &opts.annotate {
            std::fs::write(dest, annotated).map_err(|e| format!("annotated PDN {dest}: {e}"))?;
        }
    }
    Ok(())
}

fn analyse_fen<R: Evaluate>(fen: &str, opts: &AnalyseOptions, out: &mut dyn FnMut(String)) {
    let pos = match parse_fen::<R>(fen) {
        Ok(p) => p,
        Err(e) => return out(error_json(fen, &e.to_string())),
    };
    let mut searcher = Searcher::<R>::new(opts.threads, opts.hash);
    let r = search(&mut searcher, &pos, &[], 0, opts);
    out(result_json(&pos, &r, ""));
}

/// Analyses every position of one game; returns the annotated game text
/// (empty unless annotating).
fn analyse_game<R: Evaluate>(
    g: &PdnGame,
    index: usize,
    opts: &AnalyseOptions,
    out: &mut dyn FnMut(String),
) -> String {
    let (start, played) = match replay::<R>(g) {
        Ok(x) => x,
        Err(e) => {
            out(error_json(&format!("game {}", index + 1), &e.to_string()));
            return String::new();
        }
    };
    let mut searcher = Searcher::<R>::new(opts.threads, opts.hash);
    let mut game = crate::game::Game::new(start);
    let mut moves: Vec<Move> = Vec::new();
    let mut comments: Vec<Option<String>> = Vec::new();
    let n = played.len();
    for ply in 0..=n {
        let pos = *game.position();
        let mut list = MoveList::new();
        generate(&pos, &mut list);
        if list.is_empty() {
            break;
        }
        let r = search(
            &mut searcher,
            &pos,
            game.history(),
            game.reversible_plies(),
            opts,
        );
        if opts.annotate.is_none() {
            let extra = format!("\"game\":{},\"ply\":{ply},", index + 1);
            out(result_json(&pos, &r, &extra));
        }
        let Some(&(_, mv)) = played.get(ply) else {
            break;
        };
        let best = r.best.map(|b| move_to_pdn(&pos, &b)).unwrap_or_default();
        // PDN evaluations are from White's point of view.
        let white = if pos.side() == crate::rules::Color::White {
            r.score
        } else {
            -r.score
        };
        comments.push(Some(format!(
            "[%eval {:.2}] best {best}",
            white as f64 / 100.0
        )));
        moves.push(mv);
        game.play(&mv);
    }
    if opts.annotate.is_some() {
        out(format!(
            "annotated game {} ({} plies)",
            index + 1,
            moves.len()
        ));
        let result = g.result.clone().unwrap_or_else(|| "*".to_string());
        return write_pdn_with_comments::<R>(&g.tags, &start, &moves, &comments, &result);
    }
    String::new()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::{EGDB_WIN, WIN};

    #[test]
    fn json_strings_escape() {
        assert_eq!(json_string("a\"b\\c\n"), "\"a\\\"b\\\\c\\n\"");
        assert_eq!(json_string("\u{1}"), "\"\\u0001\"");
        assert_eq!(
            score_fields(WIN - 3),
            format!("\"score\":{},\"win\":3", WIN - 3)
        );
        assert_eq!(score_fields(-12), "\"score\":-12");
        assert_eq!(
            score_fields(-(EGDB_WIN - 9)),
            format!("\"score\":{},\"loss\":9", 9 - EGDB_WIN)
        );
    }
}
