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
//! the batch goes on. A PDN game with a move that is not legal gives its
//! positions before that move, then an error naming the game, the move
//! number and the move; with `--annotate` such a game, and one that cannot
//! be read, is written as the file has it, with a comment saying why.

use std::time::Instant;

use crate::eval::Evaluate;
use crate::movegen::{generate, Move, MoveList};
use crate::notation::fen::{parse_fen, write_fen};
use crate::notation::movetext::{line_to_pdn, move_to_pdn};
use crate::notation::pdn::{
    decode_pdn, game_variant, parse_pdn_with_text, replay_prefix, write_pdn_with_comments,
    PdnError, PdnGame,
};
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
    /// Variants whose weights the command line gave (`--weights`): weights
    /// for a variant that no position or game analysed is of are an error,
    /// before any search.
    pub weights: Vec<Variant>,
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
/// annotating) to `out`. The PDN file is read first (UTF-8, or Latin-1
/// when it is not UTF-8; see [`decode_pdn`]), so that a file that cannot
/// be read stops the run before any search.
pub fn run_analyse(opts: &AnalyseOptions, out: &mut dyn FnMut(String)) -> Result<(), String> {
    let games = match &opts.pdn {
        Some(path) => {
            let bytes = std::fs::read(path).map_err(|e| format!("PDN file {path}: {e}"))?;
            let (text, latin1) = decode_pdn(&bytes);
            if latin1 {
                crate::stdio::err(format_args!(
                    "kondavo: PDN file {path} is not UTF-8: read as Latin-1"
                ));
            }
            parse_pdn_with_text(&text)
        }
        None => Vec::new(),
    };
    // The variants searched: the FENs', and each game's (its GameType).
    let mut searched: Vec<Variant> = Vec::new();
    if !opts.fens.is_empty() {
        searched.push(opts.variant);
    }
    for g in games.iter().filter_map(|(g, _)| g.as_ref().ok()) {
        let v = game_variant(g).unwrap_or(opts.variant);
        if !searched.contains(&v) {
            searched.push(v);
        }
    }
    if let Some(w) = opts.weights.iter().find(|w| !searched.contains(w)) {
        if !searched.is_empty() {
            let list: Vec<&str> = searched.iter().map(|v| v.name()).collect();
            return Err(format!(
                "--weights: the weights are for {w}, but the analysis searches {}",
                list.join(", ")
            ));
        }
    }
    for fen in &opts.fens {
        with_rules!(opts.variant, R => analyse_fen::<R>(fen, opts, out));
    }
    if opts.pdn.is_none() {
        return Ok(());
    }
    let mut annotated = String::new();
    for (g, raw) in &games {
        let text = match g {
            Ok(g) => {
                let variant = game_variant(g).unwrap_or(opts.variant);
                with_rules!(variant, R => analyse_game::<R>(g, raw, opts, out))
            }
            Err(e) => {
                out(error_json(&format!("game {}", e.game), &e.to_string()));
                unannotated(raw, e)
            }
        };
        if opts.annotate.is_some() {
            annotated.push_str(&text);
        }
    }
    if let Some(dest) = &opts.annotate {
        std::fs::write(dest, annotated).map_err(|e| format!("annotated PDN {dest}: {e}"))?;
    }
    Ok(())
}

/// A game that could not be annotated, for the annotated file: the game
/// as the file has it, with a comment saying why after its tag lines.
fn unannotated(raw: &str, why: &PdnError) -> String {
    let why = why.to_string().replace('{', "(").replace('}', ")");
    let lines: Vec<&str> = raw.lines().collect();
    let tags = lines
        .iter()
        .take_while(|l| l.trim_start().starts_with('['))
        .count();
    let mut out = String::new();
    for l in &lines[..tags] {
        out.push_str(l);
        out.push('\n');
    }
    out.push_str(&format!("{{kondavo: not annotated: {why}}}\n"));
    for l in &lines[tags..] {
        out.push_str(l);
        out.push('\n');
    }
    out.push('\n');
    out
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
/// (empty unless annotating). A move that is not legal ends the game: the
/// positions before it are analysed (not annotated), then an error names
/// the game, the move number and the move; an annotated file gets the
/// game as written, with a comment saying why it is not annotated.
fn analyse_game<R: Evaluate>(
    g: &PdnGame,
    raw: &str,
    opts: &AnalyseOptions,
    out: &mut dyn FnMut(String),
) -> String {
    let report = |out: &mut dyn FnMut(String), e: &PdnError| {
        out(error_json(&format!("game {}", g.number), &e.to_string()));
        unannotated(raw, e)
    };
    let (start, played, error) = match replay_prefix::<R>(g) {
        Ok(x) => x,
        Err(e) => return report(out, &e),
    };
    if let (Some(e), Some(_)) = (&error, &opts.annotate) {
        return report(out, e);
    }
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
            let extra = format!("\"game\":{},\"ply\":{ply},", g.number);
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
    if let Some(e) = &error {
        return report(out, e);
    }
    if opts.annotate.is_some() {
        out(format!(
            "annotated game {} ({} plies)",
            g.number,
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
