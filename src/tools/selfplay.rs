//! `kondavo selfplay`: the engine plays itself on all cores and writes the
//! games for `kondavo train`.
//!
//! # Data format
//!
//! A file holds the games of one variant. It opens with `KDSP`, the format
//! version (u32, little-endian), the variant's name (u8 length + bytes)
//! and, from version 2, the settings that made its games (u16 length +
//! `key=value` words separated by spaces: `nodes`, `depth`, `seed`,
//! `opening-plies`, `max-plies`, `adjudicate`, `adjudicate-plies`, `hash`
//! and `weights`, a fingerprint of the evaluation's weights), which
//! `--resume` checks; a shard's file (`--shard i/n`) adds `shard=i/n`,
//! which [`merge_shards`] leaves out of the merged file's header. Version
//! 1 files (no settings) are read as before.
//! Each game follows as one record, written whole and flushed, so a killed
//! run loses at most the game being written and `--resume` cuts a torn last
//! record off:
//!
//! | bytes | what |
//! |---|---|
//! | 1 | `0xA5`, start of a game |
//! | 2 | plies (u16) |
//! | 1 | result: 0 Black won, 1 draw, 2 White won |
//! | 1 | plies of the random opening |
//! | 8 | Zobrist key of the final position (checks the replay) |
//! | 4 x plies | per ply: the move's index in kondavo's legal move order (u16), then the search score for the side to move in centi-men (i16; `i16::MIN` for opening moves) |
//!
//! Every game starts from the variant's start position. Four bytes a
//! position; a game of 100 plies takes 413 bytes.

use std::collections::BTreeMap;
use std::fs::{File, OpenOptions};
use std::io::{IsTerminal, Read, Write};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc::channel;
use std::time::Instant;

use crate::eval::Evaluate;
use crate::game::{Game, Outcome};
use crate::movegen::{generate, has_capture, side_has_capture, MoveList};
use crate::position::Position;
use crate::rules::{Color, Rules};
use crate::search::threads::Searcher;
use crate::search::{Job, Limits, WIN_BOUND};
use crate::tools::shard::Shard;

const MAGIC: &[u8; 4] = b"KDSP";
/// The version written: 2 records the settings.
const VERSION: u32 = 2;
const GAME_MARK: u8 = 0xA5;
/// The settings' word of a shard's file: `shard=<index>/<count>`.
const SHARD_KEY: &str = "shard";
/// Score of a ply that was not searched (random opening move).
pub const NO_SCORE: i16 = i16::MIN;

/// What `kondavo selfplay` is asked to do.
#[derive(Clone, Debug)]
pub struct SelfplayOptions {
    /// Games to have in the file when done (with `resume`, those already
    /// there count).
    pub games: usize,
    /// Node budget per move.
    pub nodes: Option<u64>,
    /// Fixed depth per move.
    pub depth: Option<i32>,
    /// Games played at once (one thread each).
    pub threads: usize,
    /// Random plies at the start of each game.
    pub opening_plies: usize,
    /// Seed: game `i` is the same for the same seed.
    pub seed: u64,
    /// Output file.
    pub out: String,
    /// Continue a file.
    pub resume: bool,
    /// Hash table per game, MiB.
    pub hash_mib: usize,
    /// Games longer than this are drawn.
    pub max_plies: usize,
    /// A score beyond this (centi-men) for `adjudicate_plies` plies in a row,
    /// agreed by both sides, ends the game.
    pub adjudicate_cp: i32,
    /// Plies of agreement for adjudication.
    pub adjudicate_plies: usize,
    /// A progress bar (terminal) or periodic lines on stderr.
    pub progress: bool,
}

/// One game of a data file.
#[derive(Clone, Debug, PartialEq)]
pub struct GameRecord {
    /// 0 Black won, 1 draw, 2 White won.
    pub result: u8,
    /// Plies of the random opening.
    pub opening_plies: u8,
    /// Key of the final position.
    pub final_key: u64,
    /// (move index, score) per ply.
    pub plies: Vec<(u16, i16)>,
}

impl GameRecord {
    fn to_bytes(&self, out: &mut Vec<u8>) {
        out.push(GAME_MARK);
        out.extend_from_slice(&(self.plies.len() as u16).to_le_bytes());
        out.push(self.result);
        out.push(self.opening_plies);
        out.extend_from_slice(&self.final_key.to_le_bytes());
        for &(m, s) in &self.plies {
            out.extend_from_slice(&m.to_le_bytes());
            out.extend_from_slice(&s.to_le_bytes());
        }
    }
}

/// A file's header bytes for variant `name` and its `settings`.
fn header(name: &str, settings: &str) -> Vec<u8> {
    let mut h = MAGIC.to_vec();
    h.extend_from_slice(&VERSION.to_le_bytes());
    h.push(name.len() as u8);
    h.extend_from_slice(name.as_bytes());
    let settings = &settings.as_bytes()[..settings.len().min(u16::MAX as usize)];
    h.extend_from_slice(&(settings.len() as u16).to_le_bytes());
    h.extend_from_slice(settings);
    h
}

/// What a data file's header says.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Header {
    /// Format version (1 or 2).
    pub version: u32,
    /// The variant's name.
    pub variant: String,
    /// The settings that made the games (`key=value` words), from
    /// version 2.
    pub settings: Option<String>,
    /// Its length in bytes: where the first game starts.
    pub len: usize,
}

/// Reads a data file's header, of any variant.
pub fn read_header(bytes: &[u8]) -> Result<Header, String> {
    if bytes.len() < 9 || bytes[..4] != MAGIC[..] {
        return Err("not a kondavo self-play file (bad magic)".into());
    }
    let version = u32::from_le_bytes(bytes[4..8].try_into().expect("4 bytes"));
    if !(1..=VERSION).contains(&version) {
        return Err(format!(
            "self-play format version {version}, this build reads 1 to {VERSION}"
        ));
    }
    let n = bytes[8] as usize;
    let truncated = || "self-play file: the header is cut short".to_string();
    let name = bytes.get(9..9 + n).ok_or_else(truncated)?;
    let mut len = 9 + n;
    let mut settings = None;
    if version >= 2 {
        let m = bytes.get(len..len + 2).ok_or_else(truncated)?;
        let m = u16::from_le_bytes([m[0], m[1]]) as usize;
        let text = bytes.get(len + 2..len + 2 + m).ok_or_else(truncated)?;
        settings = Some(String::from_utf8_lossy(text).into_owned());
        len += 2 + m;
    }
    Ok(Header {
        version,
        variant: String::from_utf8_lossy(name).into_owned(),
        settings,
        len,
    })
}

/// The games of a data file of variant `R`, and the length of its complete
/// part (a torn last record is left out). A wrong header is an error.
pub fn read_games<R: Rules>(bytes: &[u8]) -> Result<(Vec<GameRecord>, usize), String> {
    let h = read_header(bytes)?;
    if h.variant != R::NAME {
        return Err(format!(
            "self-play file is not of variant {} (it is {:?})",
            R::NAME,
            h.variant
        ));
    }
    read_records(bytes, h.len)
}

/// The game records of a data file from byte `at` (where its header
/// ends), and the length of its complete part.
fn read_records(bytes: &[u8], mut at: usize) -> Result<(Vec<GameRecord>, usize), String> {
    let mut games = Vec::new();
    loop {
        if bytes.len() - at < 13 {
            break;
        }
        if bytes[at] != GAME_MARK {
            return Err(format!("self-play file: no game starts at byte {at}"));
        }
        let n = u16::from_le_bytes([bytes[at + 1], bytes[at + 2]]) as usize;
        let end = at + 13 + 4 * n;
        if end > bytes.len() {
            break;
        }
        let result = bytes[at + 3];
        if result > 2 {
            return Err(format!("self-play file: bad result {result} at byte {at}"));
        }
        let plies = bytes[at + 13..end]
            .chunks_exact(4)
            .map(|c| {
                (
                    u16::from_le_bytes([c[0], c[1]]),
                    i16::from_le_bytes([c[2], c[3]]),
                )
            })
            .collect();
        games.push(GameRecord {
            result,
            opening_plies: bytes[at + 4],
            final_key: u64::from_le_bytes(bytes[at + 5..at + 13].try_into().expect("8 bytes")),
            plies,
        });
        at = end;
    }
    Ok((games, at))
}

/// One position of a game, for training.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Sample<R: Rules> {
    /// The position.
    pub pos: Position<R>,
    /// The game's result for the side to move: 0, 1 (draw) or 2 (win).
    pub result: u8,
    /// Search score for the side to move, or [`NO_SCORE`].
    pub score: i16,
}

/// Replays `game`, calling `f` with each quiet position (no capture pending
/// for either side). An illegal move index or a final key that does not
/// match is an error (the file was made by a build with another move
/// order, or is corrupt).
pub fn replay<R: Rules>(game: &GameRecord, f: &mut dyn FnMut(Sample<R>)) -> Result<(), String> {
    let mut pos = Position::<R>::start();
    let mut list = MoveList::new();
    for &(m, score) in &game.plies {
        if !has_capture(&pos) && !side_has_capture(&pos, pos.side().flip()) {
            let white_result = game.result;
            let result = if pos.side() == Color::White {
                white_result
            } else {
                2 - white_result
            };
            f(Sample { pos, result, score });
        }
        generate(&pos, &mut list);
        let mv = list
            .get(m as usize)
            .ok_or_else(|| format!("move index {m} of {} legal moves", list.len()))?;
        pos.play(mv);
    }
    if pos.key() != game.final_key {
        return Err("the replay does not reach the recorded final position".into());
    }
    Ok(())
}

/// A small deterministic generator (SplitMix64).
#[derive(Clone, Debug)]
pub struct SplitMix(u64);

impl SplitMix {
    /// A generator for `seed`.
    pub fn new(seed: u64) -> Self {
        SplitMix(seed)
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// A number below `n` (`n` > 0).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }
}

/// Plays game number `index`.
pub fn play_game<R: Evaluate>(
    index: u64,
    opts: &SelfplayOptions,
    searcher: &mut Searcher<R>,
) -> GameRecord {
    let mut rng = SplitMix::new(opts.seed ^ index.wrapping_mul(0x2545_f491_4f6c_dd1d));
    let mut list = MoveList::new();
    'again: loop {
        let mut game = Game::<R>::new(Position::start());
        let mut plies = Vec::new();
        // The random opening: a game over before it ends is drawn again.
        for _ in 0..opts.opening_plies {
            generate(game.position(), &mut list);
            if list.is_empty() || game.outcome().is_some() {
                continue 'again;
            }
            let i = rng.below(list.len());
            plies.push((i as u16, NO_SCORE));
            game.play(&list[i]);
        }
        if game.outcome().is_some() {
            continue 'again;
        }
        searcher.clear();
        let mut streak: (i32, usize) = (0, 0);
        let result = loop {
            if let Some(o) = game.outcome() {
                break match o {
                    Outcome::Win(Color::White) => 2,
                    Outcome::Win(Color::Black) => 0,
                    Outcome::Draw(_) => 1,
                };
            }
            if plies.len() >= opts.max_plies {
                break 1;
            }
            let job = Job {
                root: *game.position(),
                history: game.history().to_vec(),
                reversible: game.reversible_plies(),
                limits: Limits {
                    depth: opts.depth,
                    nodes: opts.nodes,
                    ..Default::default()
                },
                multipv: 1,
                start: Instant::now(),
                ponder: false,
            };
            let r = searcher.search(&job, &mut |_| {});
            let Some(best) = r.best else {
                // No move: the outcome check above already ended the game.
                break if game.position().side() == Color::White {
                    0
                } else {
                    2
                };
            };
            generate(game.position(), &mut list);
            let i = list.iter().position(|m| *m == best).unwrap_or(0);
            let score = r.score.clamp(-32000, 32000);
            plies.push((i as u16, score as i16));
            // White's view of the score, for adjudication.
            let white = if game.position().side() == Color::White {
                score
            } else {
                -score
            };
            let side = if white >= opts.adjudicate_cp || white > WIN_BOUND {
                1
            } else if white <= -opts.adjudicate_cp || white < -WIN_BOUND {
                -1
            } else {
                0
            };
            streak = if side != 0 && side == streak.0 {
                (side, streak.1 + 1)
            } else {
                (side, 1)
            };
            game.play(&list[i]);
            if side != 0 && streak.1 >= opts.adjudicate_plies {
                break if side > 0 { 2 } else { 0 };
            }
        };
        return GameRecord {
            result,
            opening_plies: opts.opening_plies.min(255) as u8,
            final_key: game.position().key(),
            plies,
        };
    }
}

/// The settings that make the games of `opts` what they are (the games'
/// count and the threads do not), as `key=value` words in the order they
/// are recorded. `weights` is a fingerprint (FNV-1a) of the evaluation's
/// weights for `R`.
pub fn settings<R: Evaluate>(opts: &SelfplayOptions) -> String {
    let or_none = |v: Option<String>| v.unwrap_or_else(|| "none".into());
    let weights = crate::eval::learned::fnv1a(&R::slot().get::<R>().to_bytes());
    [
        ("nodes", or_none(opts.nodes.map(|n| n.to_string()))),
        ("depth", or_none(opts.depth.map(|d| d.to_string()))),
        ("seed", opts.seed.to_string()),
        ("opening-plies", opts.opening_plies.to_string()),
        ("max-plies", opts.max_plies.to_string()),
        ("adjudicate", opts.adjudicate_cp.to_string()),
        ("adjudicate-plies", opts.adjudicate_plies.to_string()),
        ("hash", opts.hash_mib.to_string()),
        ("weights", format!("{weights:016x}")),
    ]
    .iter()
    .map(|(k, v)| format!("{k}={v}"))
    .collect::<Vec<_>>()
    .join(" ")
}

/// Each difference between the settings a file was made with and this
/// run's (`variant` first), as `was made with k=a, this run has k=b`;
/// empty when they agree. Another variant has other weights: they are
/// then not named.
fn differences(file_variant: &str, file: &str, variant: &str, run: &str) -> Vec<String> {
    fn pairs(text: &str) -> Vec<(&str, &str)> {
        text.split_whitespace()
            .map(|w| w.split_once('=').unwrap_or((w, "")))
            .collect()
    }
    let mut theirs = vec![("variant", file_variant)];
    theirs.extend(pairs(file));
    let mut ours = vec![("variant", variant)];
    ours.extend(pairs(run));
    let find = |list: &[(&str, &str)], k: &str| {
        list.iter()
            .find(|(n, _)| *n == k)
            .map(|(_, v)| v.to_string())
    };
    let mut keys: Vec<&str> = ours.iter().map(|(k, _)| *k).collect();
    for (k, _) in &theirs {
        if !keys.contains(k) {
            keys.push(k);
        }
    }
    let other_variant = file_variant != variant;
    keys.into_iter()
        .filter(|k| !(other_variant && *k == "weights"))
        .filter_map(|k| {
            let (a, b) = (find(&theirs, k), find(&ours, k));
            (a != b).then(|| {
                let show = |v: Option<String>| match v {
                    Some(v) => format!("{}={}", k.escape_debug(), v.escape_debug()),
                    None => format!("no {}", k.escape_debug()),
                };
                let note = if k == "weights" {
                    " (fingerprints of the evaluation's weights: see --weights)"
                } else {
                    ""
                };
                format!("was made with {}, this run has {}{note}", show(a), show(b))
            })
        })
        .collect()
}

/// Runs self-play; `out` gets the report lines. Returns the positions
/// written this run.
pub fn run_selfplay<R: Evaluate>(
    opts: &SelfplayOptions,
    out: &mut dyn FnMut(String),
) -> Result<u64, String> {
    run_selfplay_shard::<R>(opts, None, out)
}

/// Runs self-play, or with `shard` only its share of the `opts.games`
/// games (game `g` of the single run when `g % count == index`), each
/// exactly as the single run plays it, in game order. A shard's file
/// records `shard=index/count` after the settings (so `--resume` of
/// another shard's file is refused); [`merge_shards`] makes the single
/// run's file of the shards' files.
pub fn run_selfplay_shard<R: Evaluate>(
    opts: &SelfplayOptions,
    shard: Option<Shard>,
    out: &mut dyn FnMut(String),
) -> Result<u64, String> {
    if opts.nodes.is_none() && opts.depth.is_none() {
        return Err("selfplay needs --nodes or --depth".into());
    }
    let path = &opts.out;
    let mut ours = settings::<R>(opts);
    if let Some(s) = shard {
        ours.push_str(&format!(" {SHARD_KEY}={s}"));
    }
    // This file's games: all of them, or the shard's.
    let games = shard.map_or(opts.games, |s| s.games_of(opts.games));
    // The number in the single run of this file's `k`-th game.
    let number = |k: usize| shard.map_or(k, |s| s.game(k));
    let shard_note = shard.map_or(String::new(), |s| {
        format!(" shard={s} of {} games", opts.games)
    });
    let exists = std::path::Path::new(path).exists();
    let mut done = 0;
    let mut file: File;
    if exists && opts.resume {
        let mut bytes = Vec::new();
        File::open(path)
            .and_then(|mut f| f.read_to_end(&mut bytes))
            .map_err(|e| format!("{path}: {e}"))?;
        let h = read_header(&bytes).map_err(|e| format!("{path}: {e}"))?;
        match &h.settings {
            Some(theirs) => {
                let diff = differences(&h.variant, theirs, R::NAME, &ours);
                if !diff.is_empty() {
                    return Err(format!(
                        "--resume: {path} {} (resume with the file's settings, or write to another --out)",
                        diff.join("; it ")
                    ));
                }
            }
            None => {
                let diff = differences(&h.variant, "", R::NAME, "");
                if !diff.is_empty() {
                    return Err(format!("--resume: {path} {}", diff.join("; it ")));
                }
                out(format!(
                    "warning: {path} does not record the settings it was made with (a file of format version {}): they are not checked against this run's ({ours})",
                    h.version
                ));
            }
        }
        let (games, complete) = read_games::<R>(&bytes).map_err(|e| format!("{path}: {e}"))?;
        done = games.len();
        file = OpenOptions::new()
            .write(true)
            .open(path)
            .map_err(|e| format!("{path}: {e}"))?;
        file.set_len(complete as u64)
            .map_err(|e| format!("{path}: {e}"))?;
        file = OpenOptions::new()
            .append(true)
            .open(path)
            .map_err(|e| format!("{path}: {e}"))?;
        if complete < bytes.len() {
            out(format!(
                "info cut a torn last game ({} bytes) off {path}",
                bytes.len() - complete
            ));
        }
        out(format!("info resuming {path} after {done} games"));
    } else if exists {
        return Err(format!(
            "{path} exists: add --resume to continue it, or choose another file"
        ));
    } else {
        file = File::create(path).map_err(|e| format!("{path}: {e}"))?;
        file.write_all(&header(R::NAME, &ours))
            .map_err(|e| format!("{path}: {e}"))?;
    }
    if done >= games {
        out(format!(
            "selfplay games={done} positions=0 (already complete){shard_note}"
        ));
        return Ok(0);
    }

    let start = Instant::now();
    let next = AtomicUsize::new(done);
    let abort = AtomicBool::new(false);
    let (tx, rx) = channel::<(usize, GameRecord)>();
    let threads = opts.threads.max(1).min(games - done);
    let bar = progress_bar(opts, (games - done) as u64);
    let mut positions = 0u64;
    let mut written = done;
    let mut pending = BTreeMap::new();
    let mut last_line = Instant::now();
    let mut failure = None;
    std::thread::scope(|s| {
        for _ in 0..threads {
            let tx = tx.clone();
            let next = &next;
            let abort = &abort;
            std::thread::Builder::new()
                .stack_size(32 << 20)
                .spawn_scoped(s, move || {
                    let mut searcher = Searcher::<R>::new(1, opts.hash_mib);
                    loop {
                        let i = next.fetch_add(1, Ordering::Relaxed);
                        if i >= games || abort.load(Ordering::Relaxed) {
                            break;
                        }
                        let g = play_game(number(i) as u64, opts, &mut searcher);
                        if tx.send((i, g)).is_err() {
                            break;
                        }
                    }
                })
                .expect("spawn a self-play thread");
        }
        drop(tx);
        for (i, g) in rx {
            pending.insert(i, g);
            // Written in game order, so a resumed run continues exactly.
            while let Some(g) = pending.remove(&written) {
                let mut b = Vec::with_capacity(16 + 4 * g.plies.len());
                g.to_bytes(&mut b);
                if let Err(e) = file.write_all(&b).and_then(|_| file.flush()) {
                    failure = Some(format!("{path}: {e}"));
                    abort.store(true, Ordering::Relaxed);
                    break;
                }
                positions += g.plies.len() as u64;
                written += 1;
                if let Some(b) = &bar {
                    b.inc(1);
                } else if opts.progress && last_line.elapsed().as_secs() >= 30 {
                    last_line = Instant::now();
                    crate::stdio::err(format_args!(
                        "selfplay games={written}/{games} positions={positions} positions/s={:.0}",
                        positions as f64 / start.elapsed().as_secs_f64()
                    ));
                }
            }
        }
    });
    if let Some(b) = bar {
        b.finish_and_clear();
    }
    if let Some(e) = failure {
        return Err(e);
    }
    let secs = start.elapsed().as_secs_f64();
    out(format!(
        "selfplay games={written} positions={positions} time={secs:.1} positions/s={:.0}{shard_note}",
        positions as f64 / secs.max(1e-9)
    ));
    Ok(positions)
}

/// A shard's file, read for [`merge_shards`].
struct ShardFile {
    path: String,
    shard: Shard,
    variant: String,
    /// The settings without `shard=`: the single run's.
    settings: String,
    games: Vec<GameRecord>,
}

/// Reads the shard's file `path`.
fn read_shard_file(path: &str) -> Result<ShardFile, String> {
    let bytes = std::fs::read(path).map_err(|e| format!("{path}: {e}"))?;
    let h = read_header(&bytes).map_err(|e| format!("{path}: {e}"))?;
    let Some(settings) = &h.settings else {
        return Err(format!(
            "{path}: a file of format version {} records no settings, so no shard: only files written by `selfplay --shard` merge",
            h.version
        ));
    };
    let mut shard = None;
    let mut rest = Vec::new();
    for w in settings.split_whitespace() {
        match w.split_once('=') {
            Some((SHARD_KEY, v)) => {
                shard = Some(
                    v.parse::<Shard>()
                        .map_err(|e| format!("{path}: its settings' shard: {e}"))?,
                )
            }
            _ => rest.push(w),
        }
    }
    let Some(shard) = shard else {
        return Err(format!(
            "{path} is not a shard's file (its settings have no shard=<index>/<count>: it was made without --shard)"
        ));
    };
    let (games, complete) = read_records(&bytes, h.len).map_err(|e| format!("{path}: {e}"))?;
    if complete < bytes.len() {
        return Err(format!(
            "{path} (shard {shard}) ends with a torn game ({} bytes): finish it with `selfplay --shard {shard} --resume` first",
            bytes.len() - complete
        ));
    }
    Ok(ShardFile {
        path: path.to_string(),
        shard,
        variant: h.variant,
        settings: rest.join(" "),
        games,
    })
}

/// Writes to `dest` one file of the shards' files `paths` of one
/// self-play run (`selfplay --shard i/n` for every `i` of `n`, in any
/// order): the games in the single run's order under the single run's
/// header (the settings without `shard=`), byte for byte the file a single
/// run with the same seed and settings writes. Every shard must be there
/// and whole: each holds its share of the games of the whole (of `games`
/// games, when given). `dest` must not exist. Returns the games written.
pub fn merge_shards(
    paths: &[String],
    dest: &str,
    games: Option<usize>,
    out: &mut dyn FnMut(String),
) -> Result<usize, String> {
    if paths.is_empty() {
        return Err("--merge: name the shards' files after the output file".into());
    }
    if std::path::Path::new(dest).exists() {
        return Err(format!(
            "--merge: {dest} exists: choose another output file, or remove it"
        ));
    }
    let mut files: Vec<ShardFile> = Vec::new();
    for p in paths {
        let f = read_shard_file(p).map_err(|e| format!("--merge: {e}"))?;
        if let Some(first) = files.first() {
            if f.variant != first.variant {
                return Err(format!(
                    "--merge: {} is of variant {:?}, {} of {:?}: not shards of one run",
                    f.path, f.variant, first.path, first.variant
                ));
            }
            let diff = differences(&first.variant, &first.settings, &f.variant, &f.settings);
            if !diff.is_empty() {
                return Err(format!(
                    "--merge: {} and {} are not shards of one run: {} {}",
                    first.path,
                    f.path,
                    first.path,
                    diff.join("; it ")
                        .replace("this run has", &format!("{} has", f.path))
                ));
            }
            if f.shard.count != first.shard.count {
                return Err(format!(
                    "--merge: {} is shard {} but {} is shard {}: not shards of one run",
                    first.path, first.shard, f.path, f.shard
                ));
            }
        }
        if let Some(twin) = files.iter().find(|g| g.shard == f.shard) {
            return Err(format!(
                "--merge: {} and {} are both shard {}",
                twin.path, f.path, f.shard
            ));
        }
        files.push(f);
    }
    let n = files[0].shard.count;
    let mut by_index: Vec<Option<&ShardFile>> = vec![None; n];
    for f in &files {
        by_index[f.shard.index] = Some(f);
    }
    if let Some(i) = by_index.iter().position(Option::is_none) {
        return Err(format!(
            "--merge: shard {i}/{n} is missing (none of the files given is it)"
        ));
    }
    let shards: Vec<&ShardFile> = by_index.into_iter().flatten().collect();
    let total = games.unwrap_or_else(|| shards.iter().map(|f| f.games.len()).sum());
    for f in &shards {
        let want = f.shard.games_of(total);
        let have = f.games.len();
        if have != want {
            let fix = if have < want {
                format!(
                    "finish it with `selfplay --shard {} --games {} --resume`",
                    f.shard,
                    games.map_or("<the run's games>".to_string(), |g| g.to_string())
                )
            } else {
                "it was made with a larger --games".to_string()
            };
            return Err(format!(
                "--merge: {} (shard {}) has {have} games, but in a run of {total} games shard {} has {want}: {fix}",
                f.path, f.shard, f.shard
            ));
        }
    }
    let file = OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(dest)
        .map_err(|e| format!("--merge: {dest}: {e}"))?;
    let mut w = std::io::BufWriter::new(file);
    let mut positions = 0u64;
    let mut written = w.write_all(&header(&shards[0].variant, &shards[0].settings));
    let mut buf = Vec::new();
    for g in 0..total {
        if written.is_err() {
            break;
        }
        let rec = &shards[g % n].games[g / n];
        buf.clear();
        rec.to_bytes(&mut buf);
        positions += rec.plies.len() as u64;
        written = w.write_all(&buf);
    }
    if let Err(e) = written.and_then(|_| w.flush()) {
        drop(w);
        let _ = std::fs::remove_file(dest);
        return Err(format!("--merge: {dest}: {e}"));
    }
    out(format!(
        "merge games={total} positions={positions} shards={n} out={dest}"
    ));
    Ok(total)
}

/// The self-play files named by `paths`: a file is taken as it is, a
/// directory gives its `.kdsp` files, sorted by name.
pub fn data_files(paths: &[String]) -> Result<Vec<String>, String> {
    let mut files = Vec::new();
    for p in paths {
        if !std::path::Path::new(p).is_dir() {
            files.push(p.clone());
            continue;
        }
        let mut found: Vec<String> = std::fs::read_dir(p)
            .map_err(|e| format!("{p}: {e}"))?
            .filter_map(|e| e.ok())
            .map(|e| e.path())
            .filter(|f| f.is_file() && f.extension().is_some_and(|x| x == "kdsp"))
            .map(|f| f.to_string_lossy().into_owned())
            .collect();
        if found.is_empty() {
            return Err(format!("{p}: a directory without .kdsp files"));
        }
        found.sort();
        files.extend(found);
    }
    Ok(files)
}

fn progress_bar(opts: &SelfplayOptions, n: u64) -> Option<indicatif::ProgressBar> {
    if !opts.progress || !std::io::stderr().is_terminal() {
        return None;
    }
    let bar = indicatif::ProgressBar::new(n);
    if let Ok(style) = indicatif::ProgressStyle::with_template(
        "{elapsed_precise} [{bar:40}] {pos}/{len} games ({per_sec}, eta {eta})",
    ) {
        bar.set_style(style);
    }
    Some(bar)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn headers_of_both_versions() {
        let h = header("english", "nodes=300 seed=1");
        let read = read_header(&h).unwrap();
        assert_eq!(
            read,
            Header {
                version: 2,
                variant: "english".into(),
                settings: Some("nodes=300 seed=1".into()),
                len: h.len(),
            }
        );
        let mut old = b"KDSP".to_vec();
        old.extend_from_slice(&1u32.to_le_bytes());
        old.push(7);
        old.extend_from_slice(b"english");
        let read = read_header(&old).unwrap();
        assert_eq!(
            (read.version, read.settings, read.len),
            (1, None, old.len())
        );
        assert!(read_header(&h[..h.len() - 1])
            .unwrap_err()
            .contains("cut short"));
        let mut future = h.clone();
        future[4] = 3;
        assert!(read_header(&future).unwrap_err().contains("version 3"));
        assert!(read_header(b"KDSX\x01\0\0\0\0").is_err());
    }

    #[test]
    fn differences_name_each_setting() {
        let d = differences(
            "english",
            "nodes=300 seed=1 x=1",
            "english",
            "nodes=200 seed=1",
        );
        assert_eq!(
            d,
            [
                "was made with nodes=300, this run has nodes=200",
                "was made with x=1, this run has no x",
            ]
        );
        assert!(differences("english", "seed=1", "english", "seed=1").is_empty());
        let d = differences("russian", "weights=1", "english", "weights=2");
        assert_eq!(
            d,
            ["was made with variant=russian, this run has variant=english"]
        );
    }
}
