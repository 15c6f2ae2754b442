//! The board as the page sees it: variants, positions, legal moves with
//! their routes, the game's end, scores and PDN, all from the engine's own
//! generator and notation. Generic code, entered through [`with_rules!`]
//! from the variant named in a request.

use serde::Serialize;
use serde_json::{json, Value};

use crate::game::{DrawReason, Game, Outcome};
use crate::geometry::{Bits, Geometry};
use crate::movegen::{captures_with_paths, generate, Move, MoveList};
use crate::notation::fen::{parse_fen, write_fen};
use crate::notation::movetext::{move_to_pdn, move_with_captures, parse_move};
use crate::notation::pdn::{
    game_variant, has_international_results, parse_pdn, replay_prefix, result_string_for,
    write_pdn_with_comments,
};
use crate::notation::{bit_name, square_name};
use crate::position::Position;
use crate::rules::{Color, Numbering, Rules};
use crate::search::plies_to_end;
use crate::{with_rules, Variant};

/// Most moves a request may list.
pub const MAX_MOVES: usize = 2000;

/// Parses a variant name, with an error naming the accepted ones.
pub fn variant(name: &str) -> Result<Variant, String> {
    name.parse()
}

/// `"white"` or `"black"`.
pub fn colour_name(c: Color) -> &'static str {
    match c {
        Color::White => "white",
        Color::Black => "black",
    }
}

/// Reads `"white"` or `"black"`.
pub fn parse_colour(text: &str) -> Result<Color, String> {
    match text.trim().to_ascii_lowercase().as_str() {
        "white" | "w" => Ok(Color::White),
        "black" | "b" => Ok(Color::Black),
        other => Err(format!("colour '{other}' must be \"white\" or \"black\"")),
    }
}

/// A square of the board drawn from White's side.
#[derive(Serialize)]
struct ScreenSquare {
    name: String,
    row: usize,
    col: usize,
}

/// Column on screen of a file: Italian and Spanish positions are held
/// mirrored (see [`crate::notation`]), so their files are turned back.
fn screen_col<R: Rules>(file: usize) -> usize {
    match R::NUMBERING {
        Numbering::TurnedTopLeft | Numbering::TurnedBottomRight => R::Geo::WIDTH - 1 - file,
        _ => file,
    }
}

fn variant_info<R: Rules>(v: Variant) -> Value {
    let squares: Vec<ScreenSquare> = (0..R::Geo::NUM_SQUARES)
        .map(|s| {
            let (file, rank) = R::Geo::coords(s);
            ScreenSquare {
                name: square_name::<R>(s),
                row: R::Geo::HEIGHT - 1 - rank,
                col: screen_col::<R>(file),
            }
        })
        .collect();
    let algebraic = R::NUMBERING == Numbering::Algebraic;
    let files: Option<Vec<String>> = algebraic.then(|| {
        (0..R::Geo::WIDTH)
            .map(|f| ((b'a' + f as u8) as char).to_string())
            .collect()
    });
    let ranks: Option<Vec<String>> =
        algebraic.then(|| (1..=R::Geo::HEIGHT).map(|r| r.to_string()).collect());
    let title = {
        let n = R::NAME;
        let mut c = n.chars();
        c.next()
            .map(|f| f.to_uppercase().collect::<String>() + c.as_str())
            .unwrap_or_default()
    };
    let example = {
        let pos = Position::<R>::start();
        let mut list = MoveList::new();
        generate(&pos, &mut list);
        list.first()
            .map(|m| move_to_pdn(&pos, m))
            .unwrap_or_default()
    };
    json!({
        "name": v.name(),
        "title": title,
        "game_type": R::GAME_TYPE,
        "rows": R::Geo::HEIGHT,
        "cols": R::Geo::WIDTH,
        "diagonal": R::Geo::DIAGONAL,
        "algebraic": algebraic,
        "flying_kings": R::FLYING_KINGS,
        "men_capture_backward": R::MEN_CAPTURE_BACKWARD,
        "first_to_move": colour_name(R::FIRST_TO_MOVE),
        "start_fen": write_fen(&Position::<R>::start()),
        "draw_moves": R::DRAW_MOVES,
        "result_type": if has_international_results(R::GAME_TYPE) { "international" } else { "standard" },
        "capture_separator": R::CAPTURE_SEPARATOR.to_string(),
        "notation_example": example,
        "files": files,
        "ranks": ranks,
        "squares": squares,
    })
}

/// The `GET /api/variants` answer.
pub fn variants() -> Value {
    let list: Vec<Value> = Variant::ALL
        .iter()
        .map(|&v| with_rules!(v, R => variant_info::<R>(v)))
        .collect();
    json!({ "variants": list })
}

/// Order of squares in notation: by number, or by rank then file.
fn notation_key<R: Rules>(bit: u8) -> (usize, usize) {
    let name = bit_name::<R>(bit);
    match name.parse::<usize>() {
        Ok(n) => (n, 0),
        Err(_) => {
            let (file, rank) = R::Geo::coords(R::Geo::square(1u64 << bit));
            (rank, file)
        }
    }
}

/// A text that names `mv` alone in `pos`: the PDN text when the engine
/// reads it back as this move, else the form listing every captured square.
pub fn move_text<R: Rules>(pos: &Position<R>, mv: &Move) -> String {
    let pdn = move_to_pdn(pos, mv);
    if parse_move(pos, &pdn).as_ref() == Ok(mv) {
        return pdn;
    }
    move_with_captures::<R>(mv)
}

/// Whether `mv` crowns a man. (`Move::promote` is also set on a king's
/// captures, which end as a king; the page marks only a man crowned.)
pub fn crowns<R: Rules>(pos: &Position<R>, mv: &Move) -> bool {
    mv.promote && pos.kings() & (1u64 << mv.from) == 0
}

/// One legal move and one route by which it is played.
#[derive(Serialize)]
struct LegalEntry {
    text: String,
    from: String,
    to: String,
    path: Vec<String>,
    captured: Vec<String>,
    promotes: bool,
}

fn legal_entries<R: Rules>(pos: &Position<R>) -> Vec<LegalEntry> {
    let mut list = MoveList::new();
    generate(pos, &mut list);
    let (all, paths) = if list.iter().any(|m| m.is_capture()) {
        captures_with_paths(pos)
    } else {
        (MoveList::new(), Vec::new())
    };
    let mut out = Vec::new();
    for m in list.iter() {
        let text = move_text(pos, m);
        let mut captured: Vec<u8> = Bits(m.captured).map(|b| b.trailing_zeros() as u8).collect();
        captured.sort_by_key(|&b| notation_key::<R>(b));
        let captured: Vec<String> = captured.into_iter().map(bit_name::<R>).collect();
        let mut routes: Vec<Vec<u8>> = all
            .iter()
            .zip(&paths)
            .filter(|(c, _)| *c == m)
            .map(|(_, p)| p.clone())
            .collect();
        routes.dedup();
        if routes.is_empty() {
            routes.push(vec![m.to]);
        }
        for r in routes {
            let path = std::iter::once(m.from)
                .chain(r)
                .map(bit_name::<R>)
                .collect();
            out.push(LegalEntry {
                text: text.clone(),
                from: bit_name::<R>(m.from),
                to: bit_name::<R>(m.to),
                path,
                captured: captured.clone(),
                promotes: crowns(pos, m),
            });
        }
    }
    out
}

/// The outcome of a game as JSON, `null` while it goes on.
pub fn outcome_json<R: Rules>(game: &Game<R>) -> Value {
    match game.outcome() {
        None => Value::Null,
        Some(o) => {
            let (winner, reason) = outcome_parts(game, o);
            json!({
                "result": result_string_for::<R>(winner),
                "winner": winner.map(colour_name),
                "reason": reason,
            })
        }
    }
}

/// The winner (`None`: a draw) and the reason of an outcome, in words.
pub fn outcome_parts<R: Rules>(game: &Game<R>, o: Outcome) -> (Option<Color>, String) {
    match o {
        Outcome::Win(c) => {
            let reason = if game.position().count(c.flip()) == 0 {
                "no pieces"
            } else {
                "no moves"
            };
            (Some(c), reason.to_string())
        }
        Outcome::Draw(DrawReason::Repetition) => (None, "threefold repetition".to_string()),
        Outcome::Draw(DrawReason::MoveRule) => {
            let reason = match R::DRAW_MOVES {
                Some(n) if game.counters().reversible >= 2 * n => format!("{n}-move rule"),
                _ => R::ENDGAME_RULE.to_string(),
            };
            (None, reason)
        }
    }
}

/// A position and the moves that lead to it, parsed.
#[derive(Clone, Debug)]
pub struct Line<R: Rules> {
    /// The start position.
    pub start: Position<R>,
    /// The game after the moves.
    pub game: Game<R>,
}

/// Plays `moves` (any notation the engine reads) from `fen` (the start
/// position when `None`). An error names the FEN or the move and its
/// number; a move after the game has ended is refused.
pub fn replay_line<R: Rules>(fen: Option<&str>, moves: &[String]) -> Result<Line<R>, String> {
    if moves.len() > MAX_MOVES {
        return Err(format!("moves: {} moves, at most {MAX_MOVES}", moves.len()));
    }
    let start: Position<R> = match fen.map(str::trim).filter(|f| !f.is_empty()) {
        Some(f) => parse_fen(f).map_err(|e| format!("bad FEN: {e}"))?,
        None => Position::start(),
    };
    let mut game = Game::new(start);
    for (i, text) in moves.iter().enumerate() {
        if let Some(o) = game.outcome() {
            let (_, why) = outcome_parts(&game, o);
            return Err(format!(
                "move {} of moves ('{text}'): the game is over ({why})",
                i + 1
            ));
        }
        let mv = parse_move(game.position(), text)
            .map_err(|e| format!("move {} of moves: {e}", i + 1))?;
        game.play(&mv);
    }
    Ok(Line { start, game })
}

/// The moves of a game in PDN, each in the position where it is played.
pub fn moves_pdn<R: Rules>(start: &Position<R>, moves: &[Move]) -> Vec<String> {
    let mut p = *start;
    moves
        .iter()
        .map(|m| {
            let t = move_text(&p, m);
            p.play(m);
            t
        })
        .collect()
}

/// The `POST /api/position` answer for a game.
pub fn position_json<R: Rules>(v: Variant, line: &Line<R>) -> Value {
    let pos = line.game.position();
    let mut pieces = Vec::new();
    for s in 0..R::Geo::NUM_SQUARES {
        let b = R::Geo::bit(s);
        let colour = if pos.pieces(Color::White) & b != 0 {
            "white"
        } else if pos.pieces(Color::Black) & b != 0 {
            "black"
        } else {
            continue;
        };
        pieces.push(json!({
            "square": square_name::<R>(s),
            "colour": colour,
            "king": pos.kings() & b != 0,
        }));
    }
    json!({
        "variant": v.name(),
        "start_fen": write_fen(&line.start),
        "fen": write_fen(pos),
        "to_move": colour_name(pos.side()),
        "ply": line.game.moves().len(),
        "moves_pdn": moves_pdn(&line.start, line.game.moves()),
        "pieces": pieces,
        "legal": legal_entries(pos),
        "outcome": outcome_json(&line.game),
    })
}

/// The position answer for a variant chosen at run time.
pub fn position(v: Variant, fen: Option<&str>, moves: &[String]) -> Result<Value, String> {
    with_rules!(v, R => {
        let line = replay_line::<R>(fen, moves)?;
        Ok(position_json(v, &line))
    })
}

/// A score in centi-men for the side to move, as the page gets it: from
/// White's point of view, with the distance of a decisive score.
pub fn score_json(score_stm: i32, side: Color) -> Value {
    let sign = if side == Color::White { 1 } else { -1 };
    let white = score_stm * sign;
    match plies_to_end(score_stm) {
        Some(n) => {
            let win_in = if white > 0 { n } else { -n };
            let who = if white > 0 { "White" } else { "Black" };
            json!({
                "cp": if white > 0 { 10000 } else { -10000 },
                "win_in": win_in,
                "text": format!("{who} wins in {n}"),
            })
        }
        None => json!({
            "cp": white,
            "win_in": null,
            "text": format!("{:+.2}", white as f64 / 100.0),
        }),
    }
}

/// A score as a PDN comment: `+0.35`, or `White wins in 7`.
pub fn score_comment(score: &Value) -> Option<String> {
    score
        .get("text")
        .and_then(Value::as_str)
        .map(str::to_string)
}

/// Writes a game as PDN with `scores` (score objects or null) as comments.
pub fn export_pdn<R: Rules>(
    line: &Line<R>,
    tags: &[(String, String)],
    scores: &[Value],
    result: &str,
) -> String {
    let comments: Vec<Option<String>> = (0..line.game.moves().len())
        .map(|i| scores.get(i).and_then(score_comment))
        .collect();
    write_pdn_with_comments(tags, &line.start, line.game.moves(), &comments, result)
}

/// The `POST /api/pdn/parse` answer: every game of a PDN text, read and
/// replayed, or the error that stopped it.
pub fn parse_pdn_games(text: &str, fallback: Variant) -> Result<Value, String> {
    let games = parse_pdn(text);
    if games.is_empty() {
        return Err("no game in the PDN text".to_string());
    }
    let list: Vec<Value> = games
        .into_iter()
        .enumerate()
        .map(|(i, g)| match g {
            Err(e) => json!({"number": i + 1, "error": e.to_string()}),
            Ok(g) => {
                let v = game_variant(&g).unwrap_or(fallback);
                with_rules!(v, R => pdn_game_json::<R>(v, &g))
            }
        })
        .collect();
    Ok(json!({ "games": list }))
}

fn pdn_game_json<R: Rules>(v: Variant, g: &crate::notation::pdn::PdnGame) -> Value {
    let tags: serde_json::Map<String, Value> = g
        .tags
        .iter()
        .map(|(n, v)| (n.clone(), Value::String(v.clone())))
        .collect();
    match replay_prefix::<R>(g) {
        Err(e) => {
            json!({"number": g.number, "variant": v.name(), "tags": tags, "error": e.to_string()})
        }
        Ok((start, played, error)) => {
            let moves: Vec<String> = played.iter().map(|(p, m)| move_text(p, m)).collect();
            let comments: Vec<Value> = (0..played.len())
                .map(|i| g.comment_after(i).map_or(Value::Null, Value::String))
                .collect();
            let mut o = json!({
                "number": g.number,
                "variant": v.name(),
                "tags": tags,
                "start_fen": write_fen(&start),
                "moves": moves,
                "result": g.result,
                "comments": comments,
            });
            if let Some(e) = error {
                o["error"] = Value::String(e.to_string());
            }
            o
        }
    }
}
