//! `kondavo match`: games between engines, with openings played from both
//! sides, adjudication, a PDN of every game flushed as soon as it ends,
//! Elo with error bars, SPRT, resuming, and rating lists for more than two
//! engines.
//!
//! Every engine is started once before the first game: a match with an
//! engine that cannot play stops before it begins. An engine that fails
//! later (exits, hangs) loses that game by forfeit and is restarted for its
//! next one; after `max_failures` failures in a row the match stops with an
//! error and prints no result.
//!
//! A match can be split into shards (`--shard i/n`: the games `g` with
//! `g % n == i`, each as the whole match plays it, into the shard's own
//! PDN); [`merge_match`] reads the shards' PDN files and prints the whole
//! match's result, applying the SPRT to the games in order.

use std::fs::OpenOptions;
use std::io::{Seek, SeekFrom, Write};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use rustc_hash::FxHashSet;

use crate::eval::Evaluate;
use crate::game::{DrawReason, Game, Outcome};
use crate::movegen::Move;
use crate::notation::movetext::move_with_captures;
use crate::notation::pdn::{
    parse_pdn, parse_pdn_spans, parse_result, result_string_for, write_pdn_with_comments,
};
use crate::rules::{Color, Rules};
use crate::search::{plies_to_end, Limits, WIN_BOUND};
use crate::tools::openings::{generate_openings, load_openings, Opening};
use crate::tools::players::{
    make_player, EngineKind, EngineLog, EngineSpec, HubConfig, Player, PlayerError, TimeControl,
};
use crate::tools::shard::Shard;
use crate::tools::stats::{format_elo, los, rating_list, Score, Sprt, SprtStatus};
use crate::{with_rules, Variant};

/// Everything `kondavo match` is told.
#[derive(Clone, Debug)]
pub struct MatchOptions {
    /// Rule set.
    pub variant: Variant,
    /// Engines: two for a match, more for a round robin or gauntlet.
    pub engines: Vec<EngineSpec>,
    /// With more than two engines: the first plays all others, instead of
    /// everyone playing everyone.
    pub gauntlet: bool,
    /// Games per pairing (rounded up to an even number so each opening is
    /// played with both colours).
    pub games: usize,
    /// Time control.
    pub tc: TimeControl,
    /// Games played at once.
    pub concurrency: usize,
    /// Openings file; generated openings when absent.
    pub openings: Option<String>,
    /// Plies of generated openings.
    pub opening_plies: usize,
    /// PDN output file.
    pub pdn: Option<String>,
    /// Stop when the SPRT decides (two engines only).
    pub sprt: Option<Sprt>,
    /// Continue the games already in the PDN file.
    pub resume: bool,
    /// Games longer than this many plies are drawn.
    pub max_plies: usize,
    /// Resign when both engines agree on a score beyond this (centi-men)...
    pub resign_cp: Option<i32>,
    /// ...for this many plies in a row.
    pub resign_plies: usize,
    /// Draw when both scores stay within this (centi-men)...
    pub draw_cp: Option<i32>,
    /// ...for this many plies in a row, after `draw_after` plies.
    pub draw_plies: usize,
    /// Plies before draw adjudication may start.
    pub draw_after: usize,
    /// Seed of generated openings.
    pub seed: u64,
    /// Show a progress bar on stderr (for a terminal).
    pub progress: bool,
    /// Without the bar: a plain progress line on stderr after a game when
    /// this long has passed since the last one (`None`: no lines).
    pub progress_lines: Option<Duration>,
    /// File of the external engines' standard error; by default the PDN
    /// file with the extension `engines.log`, else
    /// `kondavo-match-engines.log` in the working directory.
    pub engine_log: Option<String>,
    /// Failures of one engine in a row (exits, hangs, failed restarts)
    /// that stop the match.
    pub max_failures: usize,
    /// Limit on each handshake step of an external engine.
    pub start_timeout: Duration,
    /// Margin over a move's time before the mover loses on time.
    pub time_margin: Duration,
    /// Play only this shard's games (game `g`, 0-based, when `g % count
    /// == index`), each as the whole match plays it; with an SPRT the
    /// shard plays all of them ([`merge_match`] applies the SPRT).
    pub shard: Option<Shard>,
}

/// The engine log used when none is named: next to the PDN, else in the
/// working directory.
pub fn default_engine_log(pdn: Option<&str>) -> String {
    match pdn {
        Some(p) => std::path::Path::new(p)
            .with_extension("engines.log")
            .to_string_lossy()
            .to_string(),
        None => "kondavo-match-engines.log".into(),
    }
}

/// One scheduled game.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct GameSpec {
    index: usize,
    white: usize,
    black: usize,
    opening: usize,
}

/// How a game ended, by kind (the `endings:` line counts these).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Ending {
    /// The loser had no legal move (or no pieces).
    NoMove,
    /// Threefold repetition.
    Repetition,
    /// The variant's N-move rule.
    MoveRule,
    /// An endgame rule (International: FMJD 16- and 5-move rules).
    EndgameRule,
    /// `--max-plies`.
    MaxPlies,
    /// `--resign`.
    WinAdjudication,
    /// `--draw`.
    DrawAdjudication,
    /// A move over the time.
    TimeForfeit,
    /// An illegal move or no move.
    IllegalMove,
    /// The engine could not start, exited or hung.
    EngineFailure,
    /// A resumed game whose Termination tag is not one of ours.
    Other,
}

impl Ending {
    const ALL: [Ending; 11] = [
        Ending::NoMove,
        Ending::Repetition,
        Ending::MoveRule,
        Ending::EndgameRule,
        Ending::MaxPlies,
        Ending::WinAdjudication,
        Ending::DrawAdjudication,
        Ending::TimeForfeit,
        Ending::IllegalMove,
        Ending::EngineFailure,
        Ending::Other,
    ];

    /// Its name in the `endings:` line.
    fn label<R: Rules>(self) -> String {
        match self {
            Ending::NoMove => "no legal move".into(),
            Ending::Repetition => "threefold repetition".into(),
            Ending::MoveRule => match R::DRAW_MOVES {
                Some(n) => format!("{n}-move rule"),
                None => "move rule".into(),
            },
            Ending::EndgameRule => "endgame rule".into(),
            Ending::MaxPlies => "max plies".into(),
            Ending::WinAdjudication => "win adjudication".into(),
            Ending::DrawAdjudication => "draw adjudication".into(),
            Ending::TimeForfeit => "forfeit (time)".into(),
            Ending::IllegalMove => "forfeit (illegal move)".into(),
            Ending::EngineFailure => "forfeit (engine failure)".into(),
            Ending::Other => "other".into(),
        }
    }

    fn is_forfeit(self) -> bool {
        matches!(
            self,
            Ending::TimeForfeit | Ending::IllegalMove | Ending::EngineFailure
        )
    }

    /// The kind of a Termination tag written by [`play_game`].
    pub fn of_termination(text: &str) -> Ending {
        let t = text.trim();
        if t.starts_with("forfeit (time)") {
            Ending::TimeForfeit
        } else if t.starts_with("forfeit (illegal move)") {
            Ending::IllegalMove
        } else if t.starts_with("forfeit (engine failure)") {
            Ending::EngineFailure
        } else if t.starts_with("adjudication (max plies)") {
            Ending::MaxPlies
        } else if t.starts_with("adjudication (win)") {
            Ending::WinAdjudication
        } else if t.starts_with("adjudication (draw)") {
            Ending::DrawAdjudication
        } else if t == "threefold repetition" {
            Ending::Repetition
        } else if t.contains("endgame rule") {
            Ending::EndgameRule
        } else if t.contains("-move rule") {
            Ending::MoveRule
        } else if t.ends_with("has no legal move") || t.ends_with("has no pieces left") {
            Ending::NoMove
        } else {
            Ending::Other
        }
    }
}

/// How a game ended.
#[derive(Clone, Debug, PartialEq)]
pub struct GameResult {
    /// Game number (0-based).
    pub index: usize,
    /// Engine index of White.
    pub white: usize,
    /// Engine index of Black.
    pub black: usize,
    /// The winner, or `None` for a draw.
    pub winner: Option<Color>,
    /// The kind of ending.
    pub ending: Ending,
    /// Why it ended: the PDN Termination tag.
    pub reason: String,
}

/// A played game: result, moves, a comment per move, and the engine (if
/// any) whose failure ended it.
struct GameRecord {
    result: GameResult,
    moves: Vec<Move>,
    comments: Vec<Option<String>>,
    failed: Option<usize>,
}

fn schedule(n_engines: usize, gauntlet: bool, games: usize, n_openings: usize) -> Vec<GameSpec> {
    let pairs: Vec<(usize, usize)> = if gauntlet {
        (1..n_engines).map(|j| (0, j)).collect()
    } else {
        (0..n_engines)
            .flat_map(|i| (i + 1..n_engines).map(move |j| (i, j)))
            .collect()
    };
    let per_pair = games.max(2).div_ceil(2) * 2;
    let mut out = Vec::new();
    // Interleave pairings so a stopped run has played each about equally.
    for k in 0..per_pair {
        for &(a, b) in &pairs {
            let opening = (k / 2) % n_openings.max(1);
            let (white, black) = if k % 2 == 0 { (a, b) } else { (b, a) };
            out.push(GameSpec {
                index: out.len(),
                white,
                black,
                opening,
            });
        }
    }
    out
}

/// `[%emt h:mm:ss.cc]`: the time a move took.
fn emt(d: Duration) -> String {
    let cs = (d.as_secs_f64() * 100.0).round() as u64;
    format!(
        "[%emt {}:{:02}:{:02}.{:02}]",
        cs / 360_000,
        cs / 6000 % 60,
        cs / 100 % 60,
        cs % 100
    )
}

/// `[%eval x]`: a score from White's side in men, or `#N` / `#-N` when the
/// engine found a win: White (`#N`) or Black (`#-N`) wins with its N-th
/// move from the position before the commented move, that move included.
fn eval_comment(white_score: i32) -> String {
    if let Some(plies) = plies_to_end(white_score) {
        let moves = (plies + 1) / 2;
        let sign = if white_score < 0 { "-" } else { "" };
        format!("[%eval #{sign}{}]", moves.max(1))
    } else {
        format!("[%eval {:.2}]", white_score as f64 / 100.0)
    }
}

/// "2 kings and 1 man", "1 king".
fn material(men: u32, kings: u32) -> String {
    let part = |n: u32, one: &str, many: &str| format!("{n} {}", if n == 1 { one } else { many });
    match (men, kings) {
        (0, k) => part(k, "king", "kings"),
        (m, 0) => part(m, "man", "men"),
        (m, k) => format!("{} and {}", part(k, "king", "kings"), part(m, "man", "men")),
    }
}

/// The winner, kind and Termination text of a game over by rule.
fn rule_ending<R: Rules>(game: &Game<R>, outcome: Outcome) -> (Option<Color>, Ending, String) {
    match outcome {
        Outcome::Win(c) => {
            let loser = c.flip();
            let why = if game.position().pieces(loser) == 0 {
                "has no pieces left"
            } else {
                "has no legal move"
            };
            (Some(c), Ending::NoMove, format!("{loser:?} {why}"))
        }
        Outcome::Draw(DrawReason::Repetition) => {
            (None, Ending::Repetition, "threefold repetition".into())
        }
        Outcome::Draw(DrawReason::MoveRule) => {
            let counters = game.counters();
            if let Some(n) = R::DRAW_MOVES {
                if counters.reversible >= 2 * n {
                    return (
                        None,
                        Ending::MoveRule,
                        format!("{n}-move rule (no capture and no man move)"),
                    );
                }
            }
            let pos = game.position();
            let counts = |c: Color| (pos.men(c).count_ones(), pos.kings_of(c).count_ones());
            let (w, b) = (counts(Color::White), counts(Color::Black));
            let n = R::endgame_draw_moves(w, b).unwrap_or(0);
            (
                None,
                Ending::EndgameRule,
                format!(
                    "{}: {n} moves each since the last capture (White {}, Black {})",
                    R::ENDGAME_RULE,
                    material(w.0, w.1),
                    material(b.0, b.1)
                ),
            )
        }
    }
}

/// Plays one game. `names`, `fixed` (fixed depth or nodes: no clock) and
/// `tcs` (time controls) are White's and Black's.
fn play_game<R: Evaluate>(
    spec: GameSpec,
    opening: &Opening<R>,
    players: [&mut dyn Player<R>; 2],
    names: [&str; 2],
    fixed: [bool; 2],
    tcs: [TimeControl; 2],
    opts: &MatchOptions,
) -> GameRecord {
    let mut game = Game::new(opening.start);
    let mut moves: Vec<Move> = Vec::new();
    let mut comments: Vec<Option<String>> = Vec::new();
    for m in &opening.moves {
        game.play(m);
        moves.push(*m);
        comments.push(None);
    }
    let mut clocks = tcs.map(|tc| match tc {
        TimeControl::Clock { base, .. } => base,
        TimeControl::PerMove(_) => Duration::ZERO,
    });
    let mut scores: Vec<Option<i32>> = Vec::new();
    let engine_of = |c: Color| match c {
        Color::White => spec.white,
        Color::Black => spec.black,
    };
    let done = |winner: Option<Color>,
                ending: Ending,
                reason: String,
                moves: Vec<Move>,
                comments: Vec<Option<String>>,
                failed: Option<usize>| GameRecord {
        result: GameResult {
            index: spec.index,
            white: spec.white,
            black: spec.black,
            winner,
            ending,
            reason,
        },
        moves,
        comments,
        failed,
    };
    // A forfeit by `side`: the kind, the Termination text, the failed engine.
    let forfeit = |side: Color, e: &PlayerError| -> (Ending, String, Option<usize>) {
        let (ending, kind) = match e {
            PlayerError::Illegal(_) => (Ending::IllegalMove, "illegal move"),
            PlayerError::TimeForfeit(_) => (Ending::TimeForfeit, "time"),
            PlayerError::Failure(_) => (Ending::EngineFailure, "engine failure"),
        };
        let name = names[side.index()];
        (
            ending,
            format!("forfeit ({kind}): {name} ({side:?}): {e}"),
            e.is_failure().then(|| engine_of(side)),
        )
    };
    for side in [Color::White, Color::Black] {
        if let Err(e) = players[side.index()].new_game() {
            let (ending, reason, failed) = forfeit(side, &e);
            return done(Some(side.flip()), ending, reason, moves, comments, failed);
        }
    }
    loop {
        if let Some(o) = game.outcome() {
            let (winner, ending, reason) = rule_ending(&game, o);
            return done(winner, ending, reason, moves, comments, None);
        }
        if moves.len() >= opts.max_plies {
            let reason = format!("adjudication (max plies): {} plies", opts.max_plies);
            return done(None, Ending::MaxPlies, reason, moves, comments, None);
        }
        let side = game.position().side();
        let ci = side.index();
        let (limits, budget) = match tcs[ci] {
            TimeControl::PerMove(t) => (Limits::movetime(t), t),
            TimeControl::Clock { inc, .. } => (
                Limits {
                    time: Some(clocks[ci] + inc),
                    inc,
                    ..Default::default()
                },
                clocks[ci] + inc,
            ),
        };
        let t0 = Instant::now();
        let played = players[ci].think(
            &opening.start,
            &moves,
            game.history(),
            game.reversible_plies(),
            &limits,
        );
        let used = t0.elapsed();
        let played = match played {
            Ok(p) => p,
            Err(e) => {
                let (ending, reason, failed) = forfeit(side, &e);
                return done(Some(side.flip()), ending, reason, moves, comments, failed);
            }
        };
        if !fixed[ci] && used > budget + opts.time_margin {
            let e = PlayerError::TimeForfeit(format!(
                "used {:.3} s of {:.3} s (margin {:.3} s)",
                used.as_secs_f64(),
                budget.as_secs_f64(),
                opts.time_margin.as_secs_f64()
            ));
            let (ending, reason, failed) = forfeit(side, &e);
            return done(Some(side.flip()), ending, reason, moves, comments, failed);
        }
        if let TimeControl::Clock { .. } = tcs[ci] {
            clocks[ci] = budget.saturating_sub(used);
        }
        // External moves were matched against the legal moves; check the
        // internal ones too.
        let mut legal = crate::movegen::MoveList::new();
        crate::movegen::generate(game.position(), &mut legal);
        if !legal.contains(&played.mv) {
            let e = PlayerError::Illegal(format!(
                "played '{}', not a legal move",
                move_with_captures::<R>(&played.mv)
            ));
            let (ending, reason, failed) = forfeit(side, &e);
            return done(Some(side.flip()), ending, reason, moves, comments, failed);
        }
        game.play(&played.mv);
        moves.push(played.mv);
        // Scores from White's point of view, in the PDN and for adjudication.
        let white_score = played
            .score
            .map(|s| if side == Color::White { s } else { -s });
        comments.push(Some(match white_score {
            Some(s) => format!("{} {}", eval_comment(s), emt(used)),
            None => emt(used),
        }));
        scores.push(white_score);
        if let Some((winner, ending, reason)) = adjudicate(&scores, moves.len(), opts) {
            return done(winner, ending, reason, moves, comments, None);
        }
    }
}

/// Resign and draw adjudication from the engines' last scores (White's
/// point of view).
fn adjudicate(
    scores: &[Option<i32>],
    plies: usize,
    opts: &MatchOptions,
) -> Option<(Option<Color>, Ending, String)> {
    if let Some(cp) = opts.resign_cp {
        let n = opts.resign_plies.max(2);
        if scores.len() >= n {
            let tail = &scores[scores.len() - n..];
            for (winner, sign) in [(Color::White, 1), (Color::Black, -1)] {
                if tail.iter().all(|s| s.is_some_and(|s| sign * s >= cp)) {
                    return Some((
                        Some(winner),
                        Ending::WinAdjudication,
                        format!("adjudication (win): both engines scored {winner:?} {cp}+ centi-men for {n} plies"),
                    ));
                }
            }
        }
    }
    if let Some(cp) = opts.draw_cp {
        let n = opts.draw_plies.max(2);
        if plies >= opts.draw_after && scores.len() >= n {
            let tail = &scores[scores.len() - n..];
            if tail
                .iter()
                .all(|s| s.is_some_and(|s| s.abs() <= cp && s.abs() < WIN_BOUND))
            {
                return Some((
                    None,
                    Ending::DrawAdjudication,
                    format!("adjudication (draw): scores within {cp} centi-men for {n} plies"),
                ));
            }
        }
    }
    None
}

/// Runs a match as configured, writing lines of output to `out`; the last
/// line holds `score=` and `elo=` (two engines) or the rating list. An
/// engine that cannot start, or fails too often, ends it with an error and
/// no result.
pub fn run_match(opts: &MatchOptions, out: &mut dyn FnMut(String)) -> Result<(), String> {
    with_rules!(opts.variant, R => run::<R>(opts, out))
}

/// "A", "B" for two engines, else "#k".
fn label(n: usize, e: usize) -> String {
    if n == 2 {
        ["A", "B"][e].to_string()
    } else {
        format!("#{}", e + 1)
    }
}

/// The names of the engines: `name=`, else what the engine calls itself,
/// else the default; names given twice get `#<position>` appended.
fn resolve_names(specs: &[EngineSpec], ids: &[Option<String>]) -> Vec<String> {
    let names: Vec<String> = specs
        .iter()
        .zip(ids)
        .map(|(s, id)| {
            s.name
                .clone()
                .or_else(|| id.clone().filter(|n| !n.trim().is_empty()))
                .unwrap_or_else(|| s.default_name())
        })
        .collect();
    names
        .iter()
        .enumerate()
        .map(|(i, n)| {
            if names.iter().filter(|m| *m == n).count() > 1 {
                format!("{n}#{}", i + 1)
            } else {
                n.clone()
            }
        })
        .collect()
}

fn clock_text(d: Duration) -> String {
    let s = d.as_secs();
    format!("{}:{:02}:{:02}", s / 3600, s / 60 % 60, s % 60)
}

fn run<R: Evaluate>(opts: &MatchOptions, out: &mut dyn FnMut(String)) -> Result<(), String> {
    let n = opts.engines.len();
    if n < 2 {
        return Err("a match needs at least two engines".into());
    }
    if opts.sprt.is_some() && n != 2 {
        return Err("--sprt needs exactly two engines".into());
    }
    if opts.shard.is_some() && opts.pdn.is_none() {
        return Err(
            "--shard needs --pdn: the shards' PDN files are what `match --merge` reads".into(),
        );
    }
    // Whether game `index` is played here: every game, or the shard's.
    let ours = |index: usize| opts.shard.is_none_or(|s| s.holds(index));
    let openings: Vec<Opening<R>> = match &opts.openings {
        Some(spec) => load_openings::<R>(spec)?,
        None => {
            let pairs = if opts.gauntlet {
                n - 1
            } else {
                n * (n - 1) / 2
            };
            let needed = (opts.games.max(2).div_ceil(2)).min(500) * pairs.max(1);
            generate_openings::<R>(needed.clamp(1, 500), opts.opening_plies, 40, opts.seed)
        }
    };
    if openings.is_empty() {
        return Err("no openings".into());
    }
    let sched = schedule(n, opts.gauntlet, opts.games, openings.len());

    // Start every engine once before the first game.
    let log_path = opts
        .engine_log
        .clone()
        .unwrap_or_else(|| default_engine_log(opts.pdn.as_deref()));
    let any_external = opts
        .engines
        .iter()
        .any(|e| matches!(e.kind, EngineKind::External { .. }));
    let log = if any_external {
        Some(EngineLog::open(&log_path, opts.resume)?)
    } else {
        None
    };
    let cfg = HubConfig {
        variant: opts.variant,
        time_margin: opts.time_margin,
        start_timeout: opts.start_timeout,
        log,
    };
    let pool: Vec<Mutex<Vec<Box<dyn Player<R>>>>> =
        (0..n).map(|_| Mutex::new(Vec::new())).collect();
    let mut ids = Vec::new();
    for (e, spec) in opts.engines.iter().enumerate() {
        let mut p = make_player::<R>(spec, &cfg);
        if let Err(err) = p.start() {
            let hint = if matches!(spec.kind, EngineKind::External { .. }) {
                format!("; its standard error is in {log_path}")
            } else {
                String::new()
            };
            return Err(format!(
                "engine {} ({}) cannot play: {err}{hint}",
                label(n, e),
                spec.command()
            ));
        }
        ids.push(p.id_name());
        pool[e].lock().map_err(|_| "engine pool")?.push(p);
    }
    let names = resolve_names(&opts.engines, &ids);

    // Results already in the PDN file.
    let mut done: Vec<GameResult> = Vec::new();
    if opts.resume {
        if let Some(path) = &opts.pdn {
            let bytes = match std::fs::read(path) {
                Ok(b) => b,
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => Vec::new(),
                Err(e) => return Err(format!("--resume: PDN file {path}: {e}")),
            };
            let whole =
                whole_games(&bytes).map_err(|e| format!("--resume: PDN file {path}: {e}"))?;
            let text = std::str::from_utf8(&bytes[..whole.end]).unwrap_or_default();
            for g in parse_pdn(text).into_iter().flatten() {
                let Some(round) = g.tag("Round").and_then(|r| r.parse::<usize>().ok()) else {
                    continue;
                };
                let Some(spec) = sched.get(round.wrapping_sub(1)) else {
                    continue;
                };
                if !ours(spec.index) {
                    return Err(format!(
                        "--resume: game {round} in {path} is not one of shard {}'s games (the PDN file of another shard?)",
                        opts.shard.map(|s| s.to_string()).unwrap_or_default()
                    ));
                }
                let (w, b) = (g.tag("White").unwrap_or("?"), g.tag("Black").unwrap_or("?"));
                if w != names[spec.white] || b != names[spec.black] {
                    return Err(format!(
                        "--resume: game {round} in {path} is {w} - {b}, but this match has {} - {} there (engines are matched by name: the engine's id or name=)",
                        names[spec.white], names[spec.black]
                    ));
                }
                let Some(winner) = parse_result(g.tag("Result").unwrap_or("*")) else {
                    continue;
                };
                let reason = g.tag("Termination").unwrap_or("resumed").to_string();
                done.push(GameResult {
                    index: spec.index,
                    white: spec.white,
                    black: spec.black,
                    winner,
                    ending: Ending::of_termination(&reason),
                    reason,
                });
            }
            if let Some(note) = mend_pdn(path, &bytes, &whole)? {
                out(note);
            }
        }
        out(format!("resume: {} games already played", done.len()));
    } else if let Some(path) = &opts.pdn {
        std::fs::write(path, "").map_err(|e| format!("PDN file {path}: {e}"))?;
    }
    let played: FxHashSet<usize> = done.iter().map(|r| r.index).collect();
    let todo: Vec<GameSpec> = sched
        .iter()
        .copied()
        .filter(|g| ours(g.index) && !played.contains(&g.index))
        .collect();

    let pdn_file = match &opts.pdn {
        Some(path) => Some(Mutex::new(
            OpenOptions::new()
                .create(true)
                .append(true)
                .open(path)
                .map_err(|e| format!("PDN file {path}: {e}"))?,
        )),
        None => None,
    };
    let total = sched.iter().filter(|g| ours(g.index)).count();
    let resumed = done.len();
    let results = Mutex::new(done);
    let next = AtomicUsize::new(0);
    let stop = AtomicBool::new(false);
    // The SPRT's decision, the games it was made on and its LLR: games
    // still in play then are finished and counted, and may move the LLR
    // back inside the bounds, but the decision stands.
    let decision: Mutex<Option<(SprtStatus, usize, f64)>> = Mutex::new(None);
    let fatal: Mutex<Option<String>> = Mutex::new(None);
    let in_a_row: Vec<AtomicUsize> = (0..n).map(|_| AtomicUsize::new(0)).collect();
    let started = Instant::now();
    let last_line = Mutex::new(None::<Instant>);
    let bar = indicatif::ProgressBar::with_draw_target(
        Some(todo.len() as u64),
        if opts.progress {
            indicatif::ProgressDrawTarget::stderr()
        } else {
            indicatif::ProgressDrawTarget::hidden()
        },
    );
    bar.set_style(
        indicatif::ProgressStyle::with_template(
            "{bar:40} {pos}/{len} games  {elapsed_precise} eta {eta}  {msg}",
        )
        .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
    );
    let notice = |text: String| {
        if opts.progress {
            bar.println(text);
        } else {
            crate::stdio::err(text);
        }
    };
    let date = pdn_date();
    let tc_of = |e: usize| opts.engines[e].tc.unwrap_or(opts.tc);
    let write_error: Mutex<Option<String>> = Mutex::new(None);
    let take = |e: usize| -> Box<dyn Player<R>> {
        pool[e]
            .lock()
            .ok()
            .and_then(|mut p| p.pop())
            .unwrap_or_else(|| make_player::<R>(&opts.engines[e], &cfg))
    };
    let give_back = |e: usize, p: Box<dyn Player<R>>| {
        if let Ok(mut pool) = pool[e].lock() {
            pool.push(p);
        }
    };
    std::thread::scope(|scope| {
        for _ in 0..opts.concurrency.max(1) {
            scope.spawn(|| loop {
                if stop.load(Ordering::Relaxed) {
                    break;
                }
                let k = next.fetch_add(1, Ordering::Relaxed);
                let Some(&spec) = todo.get(k) else { break };
                let mut w = take(spec.white);
                let mut b = take(spec.black);
                let opening = &openings[spec.opening];
                let tcs = [tc_of(spec.white), tc_of(spec.black)];
                let rec = play_game(
                    spec,
                    opening,
                    [w.as_mut(), b.as_mut()],
                    [&names[spec.white], &names[spec.black]],
                    [
                        opts.engines[spec.white].fixed_limits(),
                        opts.engines[spec.black].fixed_limits(),
                    ],
                    tcs,
                    opts,
                );
                give_back(spec.white, w);
                give_back(spec.black, b);
                let res = rec.result;
                if let Some(f) = &pdn_file {
                    let mut tags = vec![
                        ("Event".to_string(), "kondavo match".to_string()),
                        ("Site".to_string(), "?".to_string()),
                        ("Date".to_string(), date.clone()),
                        ("Round".to_string(), (spec.index + 1).to_string()),
                        ("White".to_string(), names[spec.white].clone()),
                        ("Black".to_string(), names[spec.black].clone()),
                        (
                            "Result".to_string(),
                            result_string_for::<R>(res.winner).to_string(),
                        ),
                        ("Termination".to_string(), res.reason.clone()),
                        ("TimeControl".to_string(), opts.tc.tag()),
                        ("PlyCount".to_string(), rec.moves.len().to_string()),
                    ];
                    // Time odds: each side's own clock, where one differs.
                    if tcs != [opts.tc; 2] {
                        tags.insert(tags.len() - 1, ("WhiteTimeControl".into(), tcs[0].tag()));
                        tags.insert(tags.len() - 1, ("BlackTimeControl".into(), tcs[1].tag()));
                    }
                    let text = write_pdn_with_comments::<R>(
                        &tags,
                        &opening.start,
                        &rec.moves,
                        &rec.comments,
                        result_string_for::<R>(res.winner),
                    );
                    let written = f
                        .lock()
                        .map_err(|_| ())
                        .and_then(|mut file| {
                            file.write_all(text.as_bytes())
                                .and_then(|_| file.flush())
                                .map_err(|_| ())
                        })
                        .is_ok();
                    if !written {
                        if let Ok(mut e) = write_error.lock() {
                            e.get_or_insert_with(|| "cannot write the PDN file".into());
                        }
                        stop.store(true, Ordering::Relaxed);
                    }
                }
                if res.ending.is_forfeit() {
                    notice(format!("forfeit: game {}: {}", spec.index + 1, res.reason));
                }
                for e in [spec.white, spec.black] {
                    if rec.failed == Some(e) {
                        let count = in_a_row[e].fetch_add(1, Ordering::Relaxed) + 1;
                        if count >= opts.max_failures.max(1) {
                            if let Ok(mut f) = fatal.lock() {
                                f.get_or_insert_with(|| {
                                    format!(
                                        "match stopped: engine {} ({}) failed {count} games in a row (--max-failures {}); last: {}",
                                        label(n, e),
                                        names[e],
                                        opts.max_failures.max(1),
                                        res.reason
                                    )
                                });
                            }
                            stop.store(true, Ordering::Relaxed);
                        }
                    } else {
                        in_a_row[e].store(0, Ordering::Relaxed);
                    }
                }
                let mut all = results.lock().expect("results");
                all.push(res);
                let score = (n == 2).then(|| score_for(&all, 0));
                // A shard plays all its games: the SPRT is the merge's.
                let sprt = opts.sprt.as_ref().filter(|_| opts.shard.is_none());
                if let (Some(s), Some(sprt)) = (&score, sprt) {
                    let status = sprt.status(s);
                    if status != SprtStatus::Continue {
                        if let Ok(mut d) = decision.lock() {
                            d.get_or_insert((status, s.games() as usize, sprt.llr(s)));
                        }
                        stop.store(true, Ordering::Relaxed);
                    }
                }
                let played = all.len();
                drop(all);
                if let Some(s) = &score {
                    bar.set_message(format!("A {}", short_summary(s)));
                }
                bar.inc(1);
                if let Some(every) = opts.progress_lines.filter(|_| !opts.progress) {
                    let mut last = last_line.lock().expect("progress");
                    if last.is_none_or(|t| t.elapsed() >= every) {
                        *last = Some(Instant::now());
                        crate::stdio::err(progress_line(played, total, played - resumed, todo.len(), &score, started));
                    }
                }
            });
        }
    });
    bar.finish_and_clear();
    if let Some(e) = write_error.lock().ok().and_then(|e| e.clone()) {
        return Err(e);
    }
    let mut all = results
        .into_inner()
        .map_err(|_| "results lost".to_string())?;
    all.sort_by_key(|r| r.index);
    for (e, name) in names.iter().enumerate() {
        out(format!(
            "engine {}: {name} ({})",
            label(n, e),
            opts.engines[e].command()
        ));
    }
    out(endings_line::<R>(&all));
    for r in all.iter().filter(|r| r.ending.is_forfeit()) {
        out(format!("forfeit: game {}: {}", r.index + 1, r.reason));
    }
    if let Some(f) = fatal.lock().ok().and_then(|f| f.clone()) {
        let kept = match &opts.pdn {
            Some(p) => format!(
                "; the {} games played are in {p} (--resume continues)",
                all.len()
            ),
            None => String::new(),
        };
        return Err(format!("{f}{kept}; engine log: {log_path}"));
    }
    if let Some(shard) = opts.shard {
        out(format!(
            "shard {shard}: {} of the match's {} games; `kondavo match --merge` of every shard's PDN file gives the match's result{}",
            all.len(),
            sched.len(),
            if opts.sprt.is_some() {
                " and applies the SPRT to the games in order"
            } else {
                ""
            }
        ));
    }
    let decided = decision.lock().ok().and_then(|d| *d);
    let sprt = opts.sprt.as_ref().filter(|_| opts.shard.is_none());
    result_lines(opts.variant, &names, &all, sprt, decided, out);
    Ok(())
}

/// The last lines of a match: with two engines the SPRT's state (with
/// `sprt`; `decided`: the decision, the games it was made on and its LLR,
/// when a run stopped on it) and the `result` line, else the rating list.
fn result_lines(
    variant: Variant,
    names: &[String],
    all: &[GameResult],
    sprt: Option<&Sprt>,
    decided: Option<(SprtStatus, usize, f64)>,
    out: &mut dyn FnMut(String),
) {
    let n = names.len();
    if n == 2 {
        let s = score_for(all, 0);
        if let Some(sprt) = sprt {
            let (lo, hi) = sprt.bounds();
            let (status, at) = match decided {
                Some((status, games, llr)) if games < s.games() as usize => (
                    status,
                    format!(" (decided at game {games} with llr={llr:.2}; games then in play are counted in the result)"),
                ),
                Some((status, _, _)) => (status, String::new()),
                None => (sprt.status(&s), String::new()),
            };
            out(format!(
                "sprt elo0={} elo1={} llr={:.2} bounds=[{:.2}, {:.2}] status={status:?}{at}",
                sprt.elo0,
                sprt.elo1,
                sprt.llr(&s),
                lo,
                hi,
            ));
        }
        out(format!(
            "result games={} wins={} draws={} losses={} score={:.3} {} los={:.1}%",
            s.games(),
            s.wins,
            s.draws,
            s.losses,
            s.score(),
            format_elo(s.elo(), s.elo_error95()),
            100.0 * los(&s)
        ));
    } else {
        let games: Vec<(usize, usize, f64)> = all
            .iter()
            .map(|r| {
                let sc = match r.winner {
                    Some(Color::White) => 1.0,
                    Some(Color::Black) => 0.0,
                    None => 0.5,
                };
                (r.white, r.black, sc)
            })
            .collect();
        out(format!("rating list ({}, {} games)", variant, games.len()));
        out(format!(
            "{:>4}  {:<40} {:>8} {:>8} {:>6} {:>7}",
            "rank", "engine", "elo", "+/-", "games", "score"
        ));
        for (i, r) in rating_list(n, &games).iter().enumerate() {
            out(format!(
                "{:>4}  {:<40} {:>8.1} {:>8.1} {:>6} {:>6.1}%",
                i + 1,
                names[r.player],
                // No "-0.0".
                r.elo + 0.0,
                r.error95,
                r.games,
                100.0 * r.score
            ));
        }
    }
}

/// What `kondavo match --merge` is told.
#[derive(Clone, Debug)]
pub struct MergeOptions {
    /// The shards' PDN files.
    pub files: Vec<String>,
    /// The variant when the games have no `GameType` tag.
    pub variant: Variant,
    /// The match's SPRT, applied to the games in order.
    pub sprt: Option<Sprt>,
    /// The match's `--games`, when given: the files must hold all its
    /// games.
    pub games: Option<usize>,
    /// Count only games 1 to N (a match stopped by hand): later games and
    /// a game cut short at the end of a file are left out.
    pub first: Option<usize>,
    /// The match was a gauntlet (more than two engines).
    pub gauntlet: bool,
    /// Each file is a whole match of its own between the same engines
    /// (other seeds, other machines), numbered from 1: their games are
    /// counted one file after the other, in the order the files are
    /// named, instead of as the shards of one match.
    pub runs: bool,
}

/// One game of a shard's PDN file, for [`merge_match`].
struct MergedGame {
    file: usize,
    white: String,
    black: String,
    winner: Option<Color>,
    reason: String,
}

/// Reads the PDN files of a match's shards (`match --shard i/n` for every
/// `i`) and prints what the whole match run at once prints at its end: the
/// engines, the `endings:` and `forfeit:` lines, the SPRT's state and the
/// `result` line (or the rating list). The games are taken in game order
/// (their `Round` tags), which must run from 1 with none missing and none
/// twice, each between the engines the match's schedule has there. With
/// an SPRT the shards played every game; the merge stops where a single
/// run (one game at a time) would have stopped, says so, and counts the
/// games up to there. With `runs`, each file is a whole match of its own,
/// checked as such, and the files' games follow one another in the order
/// the files are named.
pub fn merge_match(opts: &MergeOptions, out: &mut dyn FnMut(String)) -> Result<(), String> {
    if opts.files.is_empty() {
        return Err("--merge: name the shards' PDN files".into());
    }
    if opts.runs && (opts.games.is_some() || opts.first.is_some()) {
        return Err(
            "--merge --runs: --games and --first apply to one match, not to several runs".into(),
        );
    }
    // The games by round: one map for the shards of a match, one a file
    // for runs.
    let mut runs: Vec<Rounds> = vec![Rounds::new()];
    let mut variant: Option<(Variant, usize)> = None;
    for (f, path) in opts.files.iter().enumerate() {
        if opts.runs && f > 0 {
            if opts.files[..f].contains(path) {
                return Err(format!("--merge --runs: {path} is named twice"));
            }
            runs.push(Rounds::new());
        }
        let rounds = runs.last_mut().expect("one map at least");
        let bytes = std::fs::read(path).map_err(|e| format!("--merge: {path}: {e}"))?;
        let whole = whole_games(&bytes).map_err(|e| format!("--merge: {path}: {e}"))?;
        if opts.first.is_none() && !bytes[whole.end..].iter().all(u8::is_ascii_whitespace) {
            return Err(format!(
                "--merge: {path} ends with a game cut short (game {} of the file): finish that shard with --resume first",
                whole.games + 1
            ));
        }
        let text = std::str::from_utf8(&bytes[..whole.end]).unwrap_or_default();
        for (k, g) in parse_pdn(text).into_iter().enumerate() {
            let at = format!("--merge: {path}: game {} of the file", k + 1);
            let g = g.map_err(|e| format!("{at}: {e}"))?;
            let tag = |name: &str| {
                g.tag(name)
                    .map(str::to_string)
                    .ok_or_else(|| format!("{at} has no {name} tag (not a PDN of kondavo match?)"))
            };
            let round_text = tag("Round")?;
            let round = round_text
                .trim()
                .parse::<usize>()
                .ok()
                .filter(|&r| r >= 1)
                .ok_or_else(|| format!("{at}: Round {:?} is not a game number", round_text))?;
            if opts.first.is_some_and(|n| round > n) {
                continue;
            }
            let result = tag("Result")?;
            let winner = parse_result(&result)
                .ok_or_else(|| format!("{at} (round {round}) has no result (Result {result:?})"))?;
            if let Some(v) = crate::notation::pdn::game_variant(&g) {
                match variant {
                    Some((w, first)) if w != v => {
                        return Err(format!(
                            "--merge: {path} has {v} games, {} {w} games: not shards of one match",
                            opts.files[first]
                        ))
                    }
                    Some(_) => {}
                    None => variant = Some((v, f)),
                }
            }
            let game = MergedGame {
                file: f,
                white: tag("White")?,
                black: tag("Black")?,
                winner,
                reason: g.tag("Termination").unwrap_or("?").to_string(),
            };
            if let Some(twin) = rounds.insert(round, game) {
                return Err(if twin.file == f {
                    format!("--merge: game {round} is twice in {path}")
                } else {
                    format!(
                        "--merge: game {round} is in {} and in {path}: each game must be in one file only",
                        opts.files[twin.file]
                    )
                });
            }
        }
    }
    let variant = variant.map_or(opts.variant, |(v, _)| v);
    with_rules!(variant, R => merge_games::<R>(variant, &runs, opts, out))
}

/// A match's games by round (`Round` tag), as read by [`merge_match`].
type Rounds = std::collections::BTreeMap<usize, MergedGame>;

fn merge_games<R: Rules>(
    variant: Variant,
    runs: &[Rounds],
    opts: &MergeOptions,
    out: &mut dyn FnMut(String),
) -> Result<(), String> {
    // The engines in the order they first play (the first run's order),
    // and every run's games, one run after the other.
    let mut names: Vec<String> = Vec::new();
    let mut results: Vec<GameResult> = Vec::new();
    for (i, rounds) in runs.iter().enumerate() {
        let file = &opts.files[i];
        let context = if opts.runs {
            format!("--merge --runs: {file}")
        } else {
            "--merge".to_string()
        };
        let (run_names, run_results) = check_run(rounds, opts, &context)?;
        if names.is_empty() {
            names = run_names.clone();
        }
        // Names are unique within a run, so equal counts and inclusion
        // mean the same engines (only runs can differ).
        if run_names.len() != names.len() || !run_names.iter().all(|e| names.contains(e)) {
            return Err(format!(
                "--merge --runs: {file} is a match of {}, {} one of {}: every run must be between the same engines (their White and Black tags)",
                run_names.join(", "),
                opts.files[0],
                names.join(", ")
            ));
        }
        let at = |e: usize| {
            names
                .iter()
                .position(|n| *n == run_names[e])
                .expect("checked")
        };
        let base = results.len();
        results.extend(run_results.into_iter().map(|r| GameResult {
            index: base + r.index,
            white: at(r.white),
            black: at(r.black),
            ..r
        }));
    }
    let (played, n) = (results.len(), names.len());
    // Where a single run, one game at a time, stops on the SPRT.
    let mut counted = played;
    if let Some(sprt) = &opts.sprt {
        if n != 2 {
            return Err("--sprt needs exactly two engines".into());
        }
        counted = (1..=played)
            .find(|&k| sprt.status(&score_for(&results[..k], 0)) != SprtStatus::Continue)
            .unwrap_or(played);
    }
    let (all, considered) = (&results[..], &results[..counted]);
    for (e, name) in names.iter().enumerate() {
        out(format!("engine {}: {name}", label(n, e)));
    }
    out(endings_line::<R>(considered));
    for r in considered.iter().filter(|r| r.ending.is_forfeit()) {
        out(format!("forfeit: game {}: {}", r.index + 1, r.reason));
    }
    if counted < played {
        let s = score_for(all, 0);
        out(format!(
            "merge: the SPRT decided at game {counted} of the {played} the {} played: a single run stops there, so these lines count games 1 to {counted} (all {played}: A {}, {})",
            if opts.runs { "runs" } else { "shards" },
            short_summary(&s),
            format_elo(s.elo(), s.elo_error95())
        ));
    }
    result_lines(variant, &names, considered, opts.sprt.as_ref(), None, out);
    Ok(())
}

/// Checks that the games of one match (its shards' games, or one run's)
/// run from game 1 with none missing, each between the engines the
/// match's schedule has there; returns the engines, in the order they
/// first play, and the games' results in game order. Errors begin with
/// `context` (the option, and for a run its file).
fn check_run(
    rounds: &Rounds,
    opts: &MergeOptions,
    context: &str,
) -> Result<(Vec<String>, Vec<GameResult>), String> {
    let played = rounds.len();
    if played == 0 {
        return Err(format!("{context}: the files hold no games"));
    }
    if let Some(n) = opts.first {
        if let Some(missing) = (1..=n).find(|r| !rounds.contains_key(r)) {
            let complete = missing - 1;
            return Err(if complete == 0 {
                format!("--merge --first {n}: game 1 is in none of the files")
            } else {
                format!(
                    "--merge --first {n}: game {missing} is in none of the files; games 1 to {complete} are: --first {complete}"
                )
            });
        }
    }
    if let Some(missing) = (1..=played).find(|r| !rounds.contains_key(r)) {
        return Err(format!(
            "{context}: game {missing} is in none of the files (they hold {played} games, up to game {}): {}{}",
            rounds.keys().last().copied().unwrap_or(0),
            if opts.runs {
                "a game is missing"
            } else {
                "a shard is missing or not finished (--resume it)"
            },
            if missing > 1 && !opts.runs {
                format!("; for a match stopped by hand, --first {} counts its complete games", missing - 1)
            } else {
                String::new()
            }
        ));
    }
    // The engines in the order they first play: the match's order.
    let mut names: Vec<String> = Vec::new();
    for g in rounds.values() {
        for name in [&g.white, &g.black] {
            if !names.contains(name) {
                names.push(name.clone());
            }
        }
    }
    let n = names.len();
    if n < 2 {
        return Err(format!("{context}: the games have fewer than two engines"));
    }
    let pairs = if opts.gauntlet {
        n - 1
    } else {
        n * (n - 1) / 2
    };
    let sched = schedule(
        n,
        opts.gauntlet,
        opts.games.unwrap_or(0).max(played.div_ceil(pairs)),
        1,
    );
    if let Some(games) = opts.games {
        let want = schedule(n, opts.gauntlet, games, 1).len();
        if played != want {
            return Err(format!(
                "{context}: the files hold {played} games, but a match of --games {games} between these {n} engines has {want}: a shard is missing or not finished (--resume it)"
            ));
        }
    }
    let mut results = Vec::with_capacity(played);
    for (&round, g) in rounds {
        let spec = sched[round - 1];
        let (w, b) = (&names[spec.white], &names[spec.black]);
        if (&g.white, &g.black) != (w, b) {
            return Err(format!(
                "{context}: game {round} in {} is {} - {}, but the match of these engines{} has {} - {} there: not {}",
                opts.files[g.file],
                g.white.escape_debug(),
                g.black.escape_debug(),
                if opts.gauntlet { " (a gauntlet)" } else { "" },
                w.escape_debug(),
                b.escape_debug(),
                if opts.runs {
                    "the games of one match"
                } else {
                    "shards of one match"
                }
            ));
        }
        results.push(GameResult {
            index: spec.index,
            white: spec.white,
            black: spec.black,
            winner: g.winner,
            ending: Ending::of_termination(&g.reason),
            reason: g.reason.clone(),
        });
    }
    Ok((names, results))
}

/// Where the whole games of a PDN file end.
#[derive(Clone, Debug, PartialEq, Eq)]
struct WholeGames {
    /// The byte offset just after the result of the last whole game (0
    /// when there is none): what follows is blank, or a game cut short.
    end: usize,
    /// Games (whole or not) read before `end`.
    games: usize,
}

/// Finds the end of the last whole game of a PDN file: one ended by a
/// result in its movetext (a game cut short may have a `Result` tag, but
/// not this) with as many moves as its `PlyCount` tag says, when it has
/// one (a move like `1-12` cut to `1-1` reads as a result). Bytes that are
/// not UTF-8 are an error, except an incomplete character at the very end.
fn whole_games(bytes: &[u8]) -> Result<WholeGames, String> {
    let text = match std::str::from_utf8(bytes) {
        Ok(t) => t,
        Err(e) if e.error_len().is_none() => {
            std::str::from_utf8(&bytes[..e.valid_up_to()]).unwrap_or_default()
        }
        Err(e) => {
            return Err(format!(
                "a byte that is not UTF-8 at byte {}",
                e.valid_up_to()
            ))
        }
    };
    let spans = parse_pdn_spans(text);
    let mut whole = WholeGames { end: 0, games: 0 };
    for (k, span) in spans.iter().enumerate() {
        let Ok(g) = &span.game else { continue };
        let plies_agree = match g.tag("PlyCount").map(|p| p.trim().parse::<usize>()) {
            Some(Ok(p)) => p == g.moves.len(),
            Some(Err(_)) => false,
            None => true,
        };
        if span.ended && plies_agree {
            whole = WholeGames {
                end: span.end,
                games: k + 1,
            };
        }
    }
    Ok(whole)
}

/// Readies a PDN file for more games. A game cut short at its end (a
/// killed match, a full disk) is cut off, its bytes kept in
/// `<path>.torn` (or `.torn.2`, ...); the file then ends with a blank line
/// after its last whole game, so each game appended starts after one.
/// Returns the line telling what was cut, if anything was.
fn mend_pdn(path: &str, bytes: &[u8], whole: &WholeGames) -> Result<Option<String>, String> {
    let tail = &bytes[whole.end..];
    let torn = !tail.iter().all(u8::is_ascii_whitespace);
    let separator: &[u8] = if whole.end > 0 { b"\n\n" } else { b"" };
    if !torn && tail == separator {
        return Ok(None);
    }
    let mut note = None;
    if torn {
        let copy = (1..)
            .map(|k| match k {
                1 => format!("{path}.torn"),
                k => format!("{path}.torn.{k}"),
            })
            .find(|p| !std::path::Path::new(p).exists())
            .expect("a free name");
        // The torn game, without the blank line before it.
        let blank = tail.iter().take_while(|b| b.is_ascii_whitespace()).count();
        let (start, tail) = (whole.end + blank, &tail[blank..]);
        std::fs::write(&copy, tail).map_err(|e| {
            format!("--resume: {path} ends with a torn game, which cannot be kept in {copy}: {e}")
        })?;
        let text = String::from_utf8_lossy(tail);
        let round = text
            .split_once("[Round \"")
            .and_then(|(_, r)| r.split_once('"'))
            .map(|(r, _)| format!(" (round {})", r.escape_debug()))
            .unwrap_or_default();
        note = Some(format!(
            "resume: cut a torn game off the end of {path}: game {}{round}, {} bytes from byte {start}; they are kept in {copy}",
            whole.games + 1,
            tail.len(),
        ));
    }
    let mut file = OpenOptions::new()
        .write(true)
        .open(path)
        .map_err(|e| format!("--resume: PDN file {path}: {e}"))?;
    file.set_len(whole.end as u64)
        .and_then(|_| file.seek(SeekFrom::End(0)))
        .and_then(|_| file.write_all(separator))
        .and_then(|_| file.flush())
        .map_err(|e| format!("--resume: PDN file {path}: {e}"))?;
    Ok(note)
}

/// `endings: no legal move 12, threefold repetition 3, ...`: the games by
/// how they ended, kinds with no game left out.
fn endings_line<R: Rules>(results: &[GameResult]) -> String {
    let parts: Vec<String> = Ending::ALL
        .iter()
        .filter_map(|&k| {
            let c = results.iter().filter(|r| r.ending == k).count();
            (c > 0).then(|| format!("{} {c}", k.label::<R>()))
        })
        .collect();
    if parts.is_empty() {
        "endings: none".into()
    } else {
        format!("endings: {}", parts.join(", "))
    }
}

/// The plain progress line written to stderr when there is no terminal.
fn progress_line(
    played: usize,
    total: usize,
    done_here: usize,
    todo: usize,
    score: &Option<Score>,
    started: Instant,
) -> String {
    let elapsed = started.elapsed();
    let per_min = if elapsed.as_secs_f64() > 0.0 {
        done_here as f64 * 60.0 / elapsed.as_secs_f64()
    } else {
        0.0
    };
    let left = todo.saturating_sub(done_here);
    let eta = if per_min > 0.0 {
        clock_text(Duration::from_secs_f64(left as f64 * 60.0 / per_min))
    } else {
        "?".into()
    };
    let mut line = format!("progress: {played}/{total} games");
    if let Some(s) = score {
        line.push_str(&format!(
            ", A {}, {}",
            short_summary(s),
            format_elo(s.elo(), s.elo_error95())
        ));
    }
    line.push_str(&format!(
        ", {per_min:.1} games/min, elapsed {}, eta {eta}",
        clock_text(elapsed)
    ));
    line
}

/// Engine `e`'s wins, draws and losses.
fn score_for(results: &[GameResult], e: usize) -> Score {
    let mut s = Score {
        wins: 0,
        draws: 0,
        losses: 0,
    };
    for r in results {
        let colour = if r.white == e {
            Color::White
        } else if r.black == e {
            Color::Black
        } else {
            continue;
        };
        match r.winner {
            None => s.draws += 1,
            Some(c) if c == colour => s.wins += 1,
            Some(_) => s.losses += 1,
        }
    }
    s
}

fn short_summary(s: &Score) -> String {
    format!(
        "+{} ={} -{} ({:.1}%)",
        s.wins,
        s.draws,
        s.losses,
        100.0 * s.score()
    )
}

/// Today's date as PDN writes it (`YYYY.MM.DD`, UTC).
fn pdn_date() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0);
    let days = (secs / 86_400) as i64;
    // Civil date from days since 1970-01-01 (Howard Hinnant's algorithm).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!("{y:04}.{m:02}.{d:02}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::notation::fen::parse_fen;
    use crate::rules::{International, Russian};
    use crate::search::WIN;

    #[test]
    fn schedules_play_each_opening_with_both_colours() {
        let s = schedule(2, false, 6, 10);
        assert_eq!(s.len(), 6);
        assert_eq!((s[0].white, s[0].black, s[0].opening), (0, 1, 0));
        assert_eq!((s[1].white, s[1].black, s[1].opening), (1, 0, 0));
        assert_eq!(s[2].opening, 1);
        let rr = schedule(3, false, 2, 4);
        assert_eq!(rr.len(), 6);
        let g = schedule(4, true, 2, 4);
        assert_eq!(g.len(), 6);
        assert!(g.iter().all(|x| x.white == 0 || x.black == 0));
    }

    #[test]
    fn dates_look_like_pdn() {
        let d = pdn_date();
        assert_eq!(d.len(), 10);
        assert_eq!(&d[4..5], ".");
    }

    #[test]
    fn move_times_and_proven_results_in_comments() {
        assert_eq!(emt(Duration::from_millis(1234)), "[%emt 0:00:01.23]");
        assert_eq!(emt(Duration::from_secs(3723)), "[%emt 1:02:03.00]");
        assert_eq!(emt(Duration::from_millis(59_999)), "[%emt 0:01:00.00]");
        assert_eq!(eval_comment(25), "[%eval 0.25]");
        assert_eq!(eval_comment(-130), "[%eval -1.30]");
        // White to move wins with its move: 1 ply, its 1st move.
        assert_eq!(eval_comment(WIN - 1), "[%eval #1]");
        // 23 plies: White's 12th move wins.
        assert_eq!(eval_comment(WIN - 23), "[%eval #12]");
        assert_eq!(eval_comment(-(WIN - 4)), "[%eval #-2]");
        assert_eq!(eval_comment(WIN_BOUND), "[%eval 300.00]");
    }

    fn game_after<R: Rules>(fen: &str, moves: &[&str]) -> Game<R> {
        let mut g = Game::new(parse_fen::<R>(fen).unwrap());
        for m in moves {
            let mv = crate::notation::movetext::parse_move(g.position(), m).unwrap();
            g.play(&mv);
        }
        g
    }

    #[test]
    fn terminations_name_the_rule() {
        // Black's lone man is taken: no pieces left.
        let g = game_after::<International>("W:W28:B23", &["28x19"]);
        let o = g.outcome().unwrap();
        let (w, e, text) = rule_ending(&g, o);
        assert_eq!((w, e), (Some(Color::White), Ending::NoMove));
        assert_eq!(text, "Black has no pieces left");
        assert_eq!(Ending::of_termination(&text), Ending::NoMove);

        // King against king: the FMJD 5-move rule, ten plies after the
        // last capture, with no position repeated.
        let g = shuffle_kings::<International>("W:WK38:BK13");
        assert_eq!(g.moves().len(), 10);
        let (w, e, text) = rule_ending(&g, g.outcome().unwrap());
        assert_eq!((w, e), (None, Ending::EndgameRule));
        assert_eq!(
            text,
            "FMJD endgame rule: 5 moves each since the last capture (White 1 king, Black 1 king)"
        );
        assert_eq!(Ending::of_termination(&text), e);

        // Russian kings: the 15-move rule after 30 plies.
        let g = shuffle_kings::<Russian>("W:WKc3:BKf8");
        assert_eq!(g.moves().len(), 30);
        let (w, e, text) = rule_ending(&g, g.outcome().unwrap());
        assert_eq!((w, e), (None, Ending::MoveRule));
        assert_eq!(text, "15-move rule (no capture and no man move)");
        assert_eq!(Ending::of_termination(&text), e);
        assert_eq!(Ending::MoveRule.label::<Russian>(), "15-move rule");

        assert_eq!(
            Ending::of_termination("forfeit (engine failure): x (White): gone"),
            Ending::EngineFailure
        );
        assert_eq!(
            Ending::of_termination("adjudication (max plies): 400 plies"),
            Ending::MaxPlies
        );
        assert_eq!(Ending::of_termination("something else"), Ending::Other);
    }

    /// Plays king moves from `fen` until a rule ends the game, never
    /// repeating a position nor allowing a capture (a depth-first search
    /// for such a line).
    fn shuffle_kings<R: Rules>(fen: &str) -> Game<R> {
        fn extend<R: Rules>(g: &Game<R>, seen: &mut FxHashSet<u64>) -> Option<Game<R>> {
            use crate::movegen::{generate, MoveList};
            if g.outcome().is_some() {
                return Some(g.clone());
            }
            let mut list = MoveList::new();
            generate(g.position(), &mut list);
            for m in list.iter() {
                let mut next = g.clone();
                next.play(m);
                let mut replies = MoveList::new();
                generate(next.position(), &mut replies);
                let key = next.position().key();
                if m.is_capture() || replies.iter().any(|r| r.is_capture()) || !seen.insert(key) {
                    continue;
                }
                if let Some(done) = extend(&next, seen) {
                    return Some(done);
                }
                seen.remove(&key);
            }
            None
        }
        let g = Game::new(parse_fen::<R>(fen).unwrap());
        let mut seen = FxHashSet::default();
        seen.insert(g.position().key());
        extend(&g, &mut seen).expect("a quiet line to the draw rule")
    }

    #[test]
    fn whole_games_end_after_the_last_result_that_agrees_with_plycount() {
        let first = "[Event \"a\"]\n[PlyCount \"2\"]\n\n1. 32-28 19-23 2-0";
        // `1-12` cut to `1-1`: a result, but one move short of PlyCount.
        let cut = "\n\n[Event \"b\"]\n[PlyCount \"4\"]\n\n1. 32-28 19-23 2. 28x19 1-1";
        let text = format!("{first}{cut}");
        let w = whole_games(text.as_bytes()).unwrap();
        assert_eq!((w.end, w.games), (first.len(), 1));
        let w = whole_games(format!("{first}\n\n").as_bytes()).unwrap();
        assert_eq!((w.end, w.games), (first.len(), 1));
        assert_eq!(whole_games(b"").unwrap(), WholeGames { end: 0, games: 0 });
        // An incomplete character at the end is part of a torn game; a
        // byte that is not UTF-8 before it is an error.
        let mut bytes = format!("{first}\n\n[White \"Dam").into_bytes();
        bytes.push(0xC3);
        assert_eq!(whole_games(&bytes).unwrap().end, first.len());
        bytes.insert(3, 0xFF);
        assert!(whole_games(&bytes).unwrap_err().contains("byte 3"));
    }

    /// Shards' PDN files of a match between `A` and `B` whose results for
    /// A are `a` (`+`, `=`, `-`), game 1 first: two shards.
    fn shard_files(dir: &str, a: &str) -> Vec<String> {
        let mut texts = [String::new(), String::new()];
        for (g, c) in a.chars().enumerate() {
            let a_white = g % 2 == 0;
            let (white, black) = if a_white { ("A", "B") } else { ("B", "A") };
            let result = match (c, a_white) {
                ('=', _) => "1/2-1/2",
                ('+', true) | ('-', false) => "1-0",
                _ => "0-1",
            };
            texts[g % 2].push_str(&format!(
                "[Event \"t\"]\n[Round \"{}\"]\n[White \"{white}\"]\n[Black \"{black}\"]\n[Result \"{result}\"]\n[Termination \"threefold repetition\"]\n\n1. 9-13 22-18 {result}\n\n",
                g + 1
            ));
        }
        std::fs::create_dir_all(dir).unwrap();
        texts
            .iter()
            .enumerate()
            .map(|(i, t)| {
                let p = format!("{dir}/s{i}.pdn");
                std::fs::write(&p, t).unwrap();
                p
            })
            .collect()
    }

    #[test]
    fn merge_stops_where_the_sprt_decides() {
        let dir = std::env::temp_dir()
            .join(format!("kondavo-merge-sprt-{}", std::process::id()))
            .to_string_lossy()
            .to_string();
        let a = "=+=++-++++-+=+-+";
        let files = shard_files(&dir, a);
        let sprt: Sprt = "0,100,0.1,0.1".parse().unwrap();
        // Where a run of one game at a time stops.
        let results: Vec<GameResult> = a
            .chars()
            .enumerate()
            .map(|(g, c)| GameResult {
                index: g,
                white: g % 2,
                black: 1 - g % 2,
                winner: match c {
                    '=' => None,
                    '+' => Some(if g % 2 == 0 {
                        Color::White
                    } else {
                        Color::Black
                    }),
                    _ => Some(if g % 2 == 0 {
                        Color::Black
                    } else {
                        Color::White
                    }),
                },
                ending: Ending::Repetition,
                reason: String::new(),
            })
            .collect();
        let k = (1..=a.len())
            .find(|&k| sprt.status(&score_for(&results[..k], 0)) != SprtStatus::Continue)
            .unwrap();
        assert!(k > 2 && k < a.len(), "decided at {k}");
        let merge = |sprt: Option<Sprt>, files: Vec<String>| {
            let mut lines = Vec::new();
            let opts = MergeOptions {
                files,
                variant: Variant::English,
                sprt,
                games: Some(a.len()),
                first: None,
                gauntlet: false,
                runs: false,
            };
            merge_match(&opts, &mut |l| lines.push(l)).map(|_| lines)
        };
        let lines = merge(Some(sprt), files.clone()).unwrap();
        let s = score_for(&results[..k], 0);
        assert_eq!(lines[0], "engine A: A");
        assert_eq!(lines[2], format!("endings: threefold repetition {k}"));
        assert!(
            lines[3].starts_with(&format!(
                "merge: the SPRT decided at game {k} of the {} the shards played",
                a.len()
            )),
            "{lines:?}"
        );
        assert!(
            lines[4].ends_with(&format!("status={:?}", sprt.status(&s))),
            "{lines:?}"
        );
        assert!(
            lines[5].starts_with(&format!("result games={k} wins={} ", s.wins)),
            "{lines:?}"
        );
        // Without the SPRT: every game.
        let lines = merge(None, files.clone()).unwrap();
        assert!(lines
            .last()
            .unwrap()
            .starts_with(&format!("result games={} ", a.len())));
        // A game of another schedule is refused.
        let wrong = shard_files(&format!("{dir}/x"), a);
        let text = std::fs::read_to_string(&wrong[1]).unwrap();
        std::fs::write(
            &wrong[1],
            text.replacen(
                "[White \"B\"]\n[Black \"A\"]",
                "[White \"A\"]\n[Black \"B\"]",
                1,
            ),
        )
        .unwrap();
        let e = merge(None, wrong).unwrap_err();
        assert!(
            e.contains("game 2 in")
                && e.contains("is A - B, but the match of these engines has B - A there"),
            "{e}"
        );
        // A torn game at the end of a file is named.
        let torn = shard_files(&format!("{dir}/t"), a);
        let mut text = std::fs::read_to_string(&torn[0]).unwrap();
        text.push_str("[Event \"t\"]\n[Round \"17\"]\n\n1. 9-13 ");
        std::fs::write(&torn[0], text).unwrap();
        let e = merge(None, torn.clone()).unwrap_err();
        assert!(e.contains("ends with a game cut short"), "{e}");
        // A match stopped by hand: --first N counts games 1 to N only, past
        // the game cut short and the games after N.
        let first = |n: usize, files: Vec<String>| {
            let mut lines = Vec::new();
            let opts = MergeOptions {
                files,
                variant: Variant::English,
                sprt: None,
                games: None,
                first: Some(n),
                gauntlet: false,
                runs: false,
            };
            merge_match(&opts, &mut |l| lines.push(l)).map(|_| lines)
        };
        let lines = first(10, torn.clone()).unwrap();
        let s = score_for(&results[..10], 0);
        assert!(
            lines.last().unwrap().starts_with(&format!(
                "result games=10 wins={} draws={} losses={} ",
                s.wins, s.draws, s.losses
            )),
            "{lines:?}"
        );
        // A game missing before N is named, with the complete prefix.
        let text = std::fs::read_to_string(&torn[0]).unwrap();
        let kept: Vec<&str> = text
            .split("[Event ")
            .filter(|g| !g.contains("[Round \"11\"]"))
            .collect();
        std::fs::write(&torn[0], kept.join("[Event ")).unwrap();
        let e = first(12, torn.clone()).unwrap_err();
        assert!(
            e.contains("game 11 is in none of the files") && e.contains("--first 10"),
            "{e}"
        );
        assert!(first(10, torn).is_ok());
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// One run's PDN file: a match whose results for `a_name` are `a`
    /// (`+`, `=`, `-`), game 1 first, `a_name` White in the odd games.
    fn run_file(path: &str, a_name: &str, b_name: &str, a: &str) {
        let mut text = String::new();
        for (g, c) in a.chars().enumerate() {
            let a_white = g % 2 == 0;
            let (white, black) = if a_white {
                (a_name, b_name)
            } else {
                (b_name, a_name)
            };
            let result = match (c, a_white) {
                ('=', _) => "1/2-1/2",
                ('+', true) | ('-', false) => "1-0",
                _ => "0-1",
            };
            text.push_str(&format!(
                "[Event \"t\"]\n[Round \"{}\"]\n[White \"{white}\"]\n[Black \"{black}\"]\n[Result \"{result}\"]\n[Termination \"endgame rule\"]\n\n1. 9-13 22-18 {result}\n\n",
                g + 1
            ));
        }
        std::fs::write(path, text).unwrap();
    }

    #[test]
    fn merge_counts_runs_one_after_the_other() {
        let dir = std::env::temp_dir().join(format!("kondavo-merge-runs-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = |n: &str| dir.join(n).to_string_lossy().to_string();
        // Two runs of A against B, the second with B named first (--a and
        // --b swapped) and an odd number of games: A +4 =3 -2 in all.
        run_file(&path("r1.pdn"), "A", "B", "+=-+");
        run_file(&path("r2.pdn"), "B", "A", "==--+");
        let merge = |files: Vec<String>, runs: bool, sprt: Option<Sprt>| {
            let mut lines = Vec::new();
            let opts = MergeOptions {
                files,
                variant: Variant::English,
                sprt,
                games: None,
                first: None,
                gauntlet: false,
                runs,
            };
            merge_match(&opts, &mut |l| lines.push(l)).map(|_| lines)
        };
        let both = vec![path("r1.pdn"), path("r2.pdn")];
        let lines = merge(both.clone(), true, None).unwrap();
        assert_eq!(lines[0], "engine A: A");
        assert_eq!(lines[1], "engine B: B");
        assert_eq!(lines[2], "endings: endgame rule 9");
        assert!(
            lines[3].starts_with("result games=9 wins=4 draws=3 losses=2 "),
            "{lines:?}"
        );
        // A run named twice is refused.
        let e = merge(vec![path("r1.pdn"), path("r1.pdn")], true, None).unwrap_err();
        assert!(e.ends_with("r1.pdn is named twice"), "{e}");
        // As shards of one match they are refused: both hold game 1.
        let e = merge(both.clone(), false, None).unwrap_err();
        assert!(
            e.contains("game 1 is in") && e.contains("in one file only"),
            "{e}"
        );
        // With an SPRT, the games are taken run after run: A's results in
        // that order are +=-+ then ==++-, and the merge stops where a run
        // of those games one at a time would.
        let sprt: Sprt = "0,200,0.3,0.3".parse().unwrap();
        let seq = "+=-+==++-";
        let k = (1..=seq.len())
            .find(|&k| {
                let count = |c| seq[..k].matches(c).count() as u32;
                let s = Score {
                    wins: count('+'),
                    draws: count('='),
                    losses: count('-'),
                };
                sprt.status(&s) != SprtStatus::Continue
            })
            .unwrap();
        assert!(
            k > 4 && k < seq.len(),
            "decided at {k}, not in the second run"
        );
        let lines = merge(both.clone(), true, Some(sprt)).unwrap();
        assert!(
            lines.iter().any(|l| l.starts_with(&format!(
                "merge: the SPRT decided at game {k} of the 9 the runs played"
            ))),
            "{lines:?}"
        );
        // A run between other engines is refused, naming the file.
        run_file(&path("r3.pdn"), "A", "C", "+-");
        let e = merge(vec![path("r1.pdn"), path("r3.pdn")], true, None).unwrap_err();
        assert!(
            e.contains("r3.pdn is a match of A, C") && e.contains("same engines"),
            "{e}"
        );
        // A run with a game missing is refused, naming the file.
        let text = std::fs::read_to_string(path("r2.pdn")).unwrap();
        let kept: Vec<&str> = text
            .split("[Event ")
            .filter(|g| !g.contains("[Round \"2\"]"))
            .collect();
        std::fs::write(path("r4.pdn"), kept.join("[Event ")).unwrap();
        let e = merge(vec![path("r1.pdn"), path("r4.pdn")], true, None).unwrap_err();
        assert!(
            e.starts_with("--merge --runs: ") && e.contains("r4.pdn: game 2 is in none"),
            "{e}"
        );
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn duplicate_names_are_told_apart() {
        let a = EngineSpec::parse("kondavo").unwrap();
        let b = EngineSpec::parse("./kondavo hub").unwrap();
        let mut c = EngineSpec::parse("./kondavo hub").unwrap();
        c.apply("name=new").unwrap();
        let names = resolve_names(
            &[a, b, c],
            &[None, Some("kondavo".into()), Some("kondavo".into())],
        );
        assert_eq!(names, ["kondavo#1", "kondavo#2", "new"]);
    }
}
