//! `kondavo match`: games between engines, with openings played from both
//! sides, adjudication, a PDN of every game flushed as soon as it ends,
//! Elo with error bars, SPRT, resuming, and rating lists for more than two
//! engines.

use std::fs::OpenOptions;
use std::io::Write;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use rustc_hash::{FxHashMap, FxHashSet};

use crate::eval::Evaluate;
use crate::game::{DrawReason, Game, Outcome};
use crate::movegen::Move;
use crate::notation::pdn::{parse_pdn, parse_result, result_string_for, write_pdn_with_comments};
use crate::rules::Color;
use crate::search::{Limits, WIN_BOUND};
use crate::tools::openings::{generate_openings, load_openings, Opening};
use crate::tools::players::{make_player, EngineSpec, Player, PlayerError, TimeControl};
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
    /// Show a progress bar on stderr.
    pub progress: bool,
}

/// One scheduled game.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct GameSpec {
    index: usize,
    white: usize,
    black: usize,
    opening: usize,
}

/// How a game ended.
#[derive(Clone, Debug, PartialEq)]
pub struct GameResult {
    /// Game number (0-based).
    pub index: usize,
    /// Engine index of White and Black.
    pub white: usize,
    /// Engine index of Black.
    pub black: usize,
    /// The winner, or `None` for a draw.
    pub winner: Option<Color>,
    /// Why it ended.
    pub reason: String,
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

/// Plays one game.
fn play_game<R: Evaluate>(
    spec: GameSpec,
    opening: &Opening<R>,
    white: &mut dyn Player<R>,
    black: &mut dyn Player<R>,
    opts: &MatchOptions,
) -> (GameResult, Vec<Move>, Vec<Option<String>>) {
    let mut game = Game::new(opening.start);
    let mut moves: Vec<Move> = Vec::new();
    let mut comments: Vec<Option<String>> = Vec::new();
    for m in &opening.moves {
        game.play(m);
        moves.push(*m);
        comments.push(None);
    }
    let mut clocks = match opts.tc {
        TimeControl::Clock { base, .. } => [base, base],
        TimeControl::PerMove(_) => [Duration::ZERO; 2],
    };
    let mut scores: Vec<Option<i32>> = Vec::new();
    let result = |winner: Option<Color>, reason: String| GameResult {
        index: spec.index,
        white: spec.white,
        black: spec.black,
        winner,
        reason,
    };
    if let Err(e) = white.new_game() {
        return (
            result(Some(Color::Black), format!("{} (White): {e}", white.name())),
            moves,
            comments,
        );
    }
    if let Err(e) = black.new_game() {
        return (
            result(Some(Color::White), format!("{} (Black): {e}", black.name())),
            moves,
            comments,
        );
    }
    loop {
        if let Some(o) = game.outcome() {
            let r = match o {
                Outcome::Win(c) => result(Some(c), "no legal move".into()),
                Outcome::Draw(DrawReason::Repetition) => {
                    result(None, "threefold repetition".into())
                }
                Outcome::Draw(DrawReason::MoveRule) => result(
                    None,
                    "move rule (no capture or man move; or the endgame rule)".into(),
                ),
            };
            return (r, moves, comments);
        }
        if moves.len() >= opts.max_plies {
            return (
                result(None, format!("adjudicated: {} plies", opts.max_plies)),
                moves,
                comments,
            );
        }
        let side = game.position().side();
        let ci = side.index();
        let limits = match opts.tc {
            TimeControl::PerMove(t) => Limits::movetime(t),
            TimeControl::Clock { inc, .. } => Limits {
                time: Some(clocks[ci] + inc),
                inc,
                ..Default::default()
            },
        };
        let player: &mut dyn Player<R> = if side == Color::White {
            &mut *white
        } else {
            &mut *black
        };
        let t0 = std::time::Instant::now();
        let played = player.think(
            &opening.start,
            &moves,
            game.history(),
            game.reversible_plies(),
            &limits,
        );
        let used = t0.elapsed();
        let name = player.name();
        let played = match played {
            Ok(p) => p,
            Err(e) => {
                let reason = format!("{name} ({:?}): {e}", side);
                comments.push(Some(reason.clone()));
                return (result(Some(side.flip()), reason), moves, comments);
            }
        };
        if let TimeControl::Clock { inc, .. } = opts.tc {
            let available = clocks[ci] + inc;
            if used > available + crate::tools::players::TIME_GRACE {
                let reason = format!("{name} ({side:?}): time forfeit");
                return (result(Some(side.flip()), reason), moves, comments);
            }
            clocks[ci] = available.saturating_sub(used);
        }
        // Legality: external moves were matched against legal moves; check
        // internal ones too.
        let mut legal = crate::movegen::MoveList::new();
        crate::movegen::generate(game.position(), &mut legal);
        if !legal.contains(&played.mv) {
            let reason = format!(
                "{name} ({side:?}): {}",
                PlayerError::Illegal(format!("{:?}", played.mv))
            );
            return (result(Some(side.flip()), reason), moves, comments);
        }
        game.play(&played.mv);
        moves.push(played.mv);
        // Scores from White's point of view, in the PDN and for adjudication.
        let white_score = played
            .score
            .map(|s| if side == Color::White { s } else { -s });
        comments.push(white_score.map(|s| format!("[%eval {:.2}]", s as f64 / 100.0)));
        scores.push(white_score);
        if let Some(r) = adjudicate(&scores, moves.len(), opts) {
            return (result(r.0, r.1), moves, comments);
        }
    }
}

/// Resign and draw adjudication from the engines' last scores (White's
/// point of view).
fn adjudicate(
    scores: &[Option<i32>],
    plies: usize,
    opts: &MatchOptions,
) -> Option<(Option<Color>, String)> {
    if let Some(cp) = opts.resign_cp {
        let n = opts.resign_plies.max(2);
        if scores.len() >= n {
            let tail = &scores[scores.len() - n..];
            if tail.iter().all(|s| s.is_some_and(|s| s >= cp)) {
                return Some((
                    Some(Color::White),
                    format!("adjudicated: score above {cp} for {n} plies"),
                ));
            }
            if tail.iter().all(|s| s.is_some_and(|s| s <= -cp)) {
                return Some((
                    Some(Color::Black),
                    format!("adjudicated: score below -{cp} for {n} plies"),
                ));
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
                    format!("adjudicated: draw, scores within {cp} for {n} plies"),
                ));
            }
        }
    }
    None
}

/// Runs a match as configured, writing lines of output to `out`; the last
/// line holds `score=` and `elo=` (two engines) or the rating list.
pub fn run_match(opts: &MatchOptions, out: &mut dyn FnMut(String)) -> Result<(), String> {
    with_rules!(opts.variant, R => run::<R>(opts, out))
}

fn run<R: Evaluate>(opts: &MatchOptions, out: &mut dyn FnMut(String)) -> Result<(), String> {
    if opts.engines.len() < 2 {
        return Err("a match needs at least two engines".into());
    }
    if opts.sprt.is_some() && opts.engines.len() != 2 {
        return Err("--sprt needs exactly two engines".into());
    }
    let openings: Vec<Opening<R>> = match &opts.openings {
        Some(spec) => load_openings::<R>(spec)?,
        None => {
            let pairs = if opts.gauntlet {
                opts.engines.len() - 1
            } else {
                opts.engines.len() * (opts.engines.len() - 1) / 2
            };
            let needed = (opts.games.max(2).div_ceil(2)).min(500) * pairs.max(1);
            generate_openings::<R>(needed.clamp(1, 500), opts.opening_plies, 40, opts.seed)
        }
    };
    if openings.is_empty() {
        return Err("no openings".into());
    }
    let sched = schedule(
        opts.engines.len(),
        opts.gauntlet,
        opts.games,
        openings.len(),
    );
    let names: Vec<String> = opts.engines.iter().map(|e| e.name()).collect();

    // Results already in the PDN file.
    let mut done: Vec<GameResult> = Vec::new();
    if opts.resume {
        if let Some(path) = &opts.pdn {
            if let Ok(text) = std::fs::read_to_string(path) {
                for g in parse_pdn(&text).into_iter().flatten() {
                    let Some(round) = g.tag("Round").and_then(|r| r.parse::<usize>().ok()) else {
                        continue;
                    };
                    let Some(spec) = sched.get(round.wrapping_sub(1)) else {
                        continue;
                    };
                    if g.tag("White") != Some(names[spec.white].as_str())
                        || g.tag("Black") != Some(names[spec.black].as_str())
                    {
                        return Err(format!(
                            "--resume: game {round} in {path} has other players than this match"
                        ));
                    }
                    let Some(winner) = parse_result(g.tag("Result").unwrap_or("*")) else {
                        continue;
                    };
                    done.push(GameResult {
                        index: spec.index,
                        white: spec.white,
                        black: spec.black,
                        winner,
                        reason: "resumed".into(),
                    });
                }
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
        .filter(|g| !played.contains(&g.index))
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
    let results = Mutex::new(done);
    let next = AtomicUsize::new(0);
    let stop = AtomicBool::new(false);
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
    let date = pdn_date();
    let errors: Arc<Mutex<Vec<String>>> = Arc::new(Mutex::new(Vec::new()));
    std::thread::scope(|scope| {
        for _ in 0..opts.concurrency.max(1) {
            scope.spawn(|| {
                let mut players: FxHashMap<usize, Box<dyn Player<R>>> = FxHashMap::default();
                loop {
                    if stop.load(Ordering::Relaxed) {
                        break;
                    }
                    let k = next.fetch_add(1, Ordering::Relaxed);
                    let Some(&spec) = todo.get(k) else { break };
                    for e in [spec.white, spec.black] {
                        players
                            .entry(e)
                            .or_insert_with(|| make_player::<R>(&opts.engines[e], opts.variant));
                    }
                    // Two mutable borrows of the map: take the players out.
                    let mut w = players.remove(&spec.white).expect("player");
                    let mut b = players.remove(&spec.black).expect("player");
                    let opening = &openings[spec.opening];
                    let (res, moves, comments) =
                        play_game(spec, opening, w.as_mut(), b.as_mut(), opts);
                    players.insert(spec.white, w);
                    players.insert(spec.black, b);
                    if let Some(f) = &pdn_file {
                        let tags = vec![
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
                            ("TimeControl".to_string(), tc_tag(&opts.tc)),
                            ("PlyCount".to_string(), moves.len().to_string()),
                        ];
                        let text = write_pdn_with_comments::<R>(
                            &tags,
                            &opening.start,
                            &moves,
                            &comments,
                            result_string_for::<R>(res.winner),
                        );
                        if let Ok(mut file) = f.lock() {
                            if file
                                .write_all(text.as_bytes())
                                .and_then(|_| file.flush())
                                .is_err()
                            {
                                if let Ok(mut e) = errors.lock() {
                                    e.push("cannot write the PDN file".into());
                                }
                            }
                        }
                    }
                    let mut all = results.lock().expect("results");
                    all.push(res);
                    if opts.engines.len() == 2 {
                        let s = score_for(&all, 0);
                        bar.set_message(format!("A {}", short_summary(&s)));
                        if let Some(sprt) = &opts.sprt {
                            if sprt.status(&s) != SprtStatus::Continue {
                                stop.store(true, Ordering::Relaxed);
                            }
                        }
                    }
                    drop(all);
                    bar.inc(1);
                }
            });
        }
    });
    bar.finish_and_clear();
    if let Some(e) = errors.lock().ok().and_then(|e| e.first().cloned()) {
        return Err(e);
    }
    let all = results
        .into_inner()
        .map_err(|_| "results lost".to_string())?;
    if opts.engines.len() == 2 {
        let s = score_for(&all, 0);
        out(format!("engine A: {}", names[0]));
        out(format!("engine B: {}", names[1]));
        if let Some(sprt) = &opts.sprt {
            let (lo, hi) = sprt.bounds();
            out(format!(
                "sprt elo0={} elo1={} llr={:.2} bounds=[{:.2}, {:.2}] status={:?}",
                sprt.elo0,
                sprt.elo1,
                sprt.llr(&s),
                lo,
                hi,
                sprt.status(&s)
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
        out(format!(
            "rating list ({}, {} games)",
            opts.variant,
            games.len()
        ));
        out(format!(
            "{:>4}  {:<40} {:>8} {:>8} {:>6} {:>7}",
            "rank", "engine", "elo", "+/-", "games", "score"
        ));
        for (i, r) in rating_list(opts.engines.len(), &games).iter().enumerate() {
            out(format!(
                "{:>4}  {:<40} {:>8.1} {:>8.1} {:>6} {:>6.1}%",
                i + 1,
                names[r.player],
                r.elo,
                r.error95,
                r.games,
                100.0 * r.score
            ));
        }
    }
    Ok(())
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

fn tc_tag(tc: &TimeControl) -> String {
    match tc {
        TimeControl::PerMove(t) => format!("{}/move", t.as_secs_f64()),
        TimeControl::Clock { base, inc } => format!("{}+{}", base.as_secs_f64(), inc.as_secs_f64()),
    }
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
}
