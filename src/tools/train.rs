//! `kondavo train`: fits the learned evaluation's weights to self-play
//! games by logistic regression.
//!
//! The model: for a position with sparse features `x` (see
//! [`crate::eval::learned::features`]), phase `p` in 0..1 and side-to-move
//! sign `s`, the score is `e = s * sum x_i (w_i,open (1 - p) + w_i,end p)`
//! in centi-men, and the expected result `sigmoid(e / scale)`. The target is
//! the game result for the side to move (1, 1/2, 0), blended with the
//! search score's own expectation `sigmoid(score / scale)` by `lambda`. The
//! loss is the cross-entropy; Adam on mini-batches, L2 on the window
//! weights, a held-out share of the games for validation. Gradients of a
//! batch are computed in parallel in a fixed number of chunks and added in
//! chunk order, so a run is the same for the same seed whatever the thread
//! count.

use std::time::Instant;

use rayon::prelude::*;

use crate::eval::learned::{
    features, layout, phase, starting, Dense, Learned, DENSE_NAMES, START_SCALE,
};
use crate::eval::Evaluate;
use crate::search::WIN_BOUND;
use crate::tools::selfplay::{read_games, replay, Sample, SplitMix, NO_SCORE};

/// Chunks a batch is split into for the parallel gradient.
const CHUNKS: usize = 64;

/// The gradient entries (feature, opening and endgame parts) and the loss
/// of one chunk of a batch.
type ChunkGradient = (Vec<(u32, [f32; 2])>, f64);

/// Settings of a fit.
#[derive(Clone, Debug)]
pub struct FitOptions {
    /// Passes over the training positions.
    pub epochs: usize,
    /// Weight of the search score in the target (0 = results only).
    pub lambda: f32,
    /// L2 penalty on the window weights.
    pub l2: f32,
    /// Adam step size in centi-men (decays linearly to a tenth).
    pub lr: f32,
    /// Positions per step.
    pub batch: usize,
    /// Shuffle seed.
    pub seed: u64,
    /// Sigmoid scale in centi-men.
    pub scale: f32,
}

impl Default for FitOptions {
    fn default() -> Self {
        FitOptions {
            epochs: 10,
            lambda: 0.0,
            l2: 1e-9,
            lr: 1.0,
            batch: 16_384,
            seed: 1,
            scale: START_SCALE,
        }
    }
}

/// One training example as the fit sees it.
#[derive(Clone, Copy, Debug)]
pub struct Example {
    /// Phase, 0 (opening) to 1 (endgame).
    pub phase: f32,
    /// +1 when White is to move, -1 when Black is.
    pub sign: f32,
    /// Target expectation for the side to move, 0 to 1.
    pub target: f32,
}

/// A training set: `n` examples; `get(i, features)` fills the sparse
/// features of example `i` and returns its [`Example`].
pub struct Problem<'a> {
    /// Number of examples.
    pub n: usize,
    /// Number of features (each has an opening and an endgame weight).
    pub features: usize,
    /// Features and target of one example.
    #[allow(clippy::type_complexity)]
    pub get: &'a (dyn Fn(usize, &mut Vec<(u32, f32)>) -> Example + Sync),
    /// Features whose weights take no L2 penalty (the material counts);
    /// every other weight is pulled towards zero, so that a term the data
    /// rarely shows stays small instead of taking an extreme value the
    /// search would then chase.
    pub unpenalised: std::ops::Range<usize>,
}

impl std::fmt::Debug for Problem<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "Problem {{ n: {}, features: {} }}",
            self.n, self.features
        )
    }
}

fn sigmoid(x: f32) -> f32 {
    1.0 / (1.0 + (-x).exp())
}

/// Cross-entropy of prediction `p` against target `t`.
fn cross_entropy(p: f32, t: f32) -> f32 {
    let p = p.clamp(1e-6, 1.0 - 1e-6);
    -(t * p.ln() + (1.0 - t) * (1.0 - p).ln())
}

/// Score of an example under `w`.
fn score(feats: &[(u32, f32)], ex: &Example, w: &[[f32; 2]]) -> f32 {
    let mut s = 0.0;
    for &(i, v) in feats {
        let p = &w[i as usize];
        s += v * (p[0] * (1.0 - ex.phase) + p[1] * ex.phase);
    }
    ex.sign * s
}

/// Mean loss of examples `idx` under `w` (parallel, in fixed chunks).
pub fn mean_loss(problem: &Problem, idx: &[usize], w: &[[f32; 2]], scale: f32) -> f32 {
    if idx.is_empty() {
        return 0.0;
    }
    let chunk = idx.len().div_ceil(CHUNKS).max(1);
    let sums: Vec<f64> = idx
        .par_chunks(chunk)
        .map(|c| {
            let mut feats = Vec::with_capacity(64);
            c.iter()
                .map(|&i| {
                    let ex = (problem.get)(i, &mut feats);
                    cross_entropy(sigmoid(score(&feats, &ex, w) / scale), ex.target) as f64
                })
                .sum()
        })
        .collect();
    (sums.iter().sum::<f64>() / idx.len() as f64) as f32
}

/// Fits weights starting from `w` on examples `train`, reporting the
/// validation loss on `valid` after each epoch through `report(epoch,
/// train loss, valid loss)`.
///
/// # Panics
///
/// When the fit diverges (see [`try_fit`]).
pub fn fit(
    problem: &Problem,
    w: Vec<[f32; 2]>,
    train: &[usize],
    valid: &[usize],
    opts: &FitOptions,
    report: &mut dyn FnMut(usize, f32, f32),
) -> Vec<[f32; 2]> {
    try_fit(problem, w, train, valid, opts, report).unwrap_or_else(|e| panic!("{e}"))
}

/// [`fit`], stopping with an error naming the epoch when the fit diverges:
/// a loss that is not a finite number (NaN or infinite), or a weight that
/// is not. Such weights would be written as nonsense (a NaN becomes 0 in
/// the file), so nothing of the run may be kept.
pub fn try_fit(
    problem: &Problem,
    mut w: Vec<[f32; 2]>,
    train: &[usize],
    valid: &[usize],
    opts: &FitOptions,
    report: &mut dyn FnMut(usize, f32, f32),
) -> Result<Vec<[f32; 2]>, String> {
    assert_eq!(w.len(), problem.features);
    let n = problem.features;
    let mut m = vec![[0f32; 2]; n];
    let mut v = vec![[0f32; 2]; n];
    let mut grad = vec![[0f32; 2]; n];
    let mut touched = vec![false; n];
    let (b1, b2, eps) = (0.9f32, 0.999f32, 1e-8f32);
    let mut t = 0i32;
    let mut order = train.to_vec();
    let mut rng = SplitMix::new(opts.seed);
    let total_steps = (opts.epochs * train.len().div_ceil(opts.batch.max(1))).max(1);
    for epoch in 1..=opts.epochs {
        // Fisher-Yates with the seeded generator.
        for i in (1..order.len()).rev() {
            order.swap(i, rng.below(i + 1));
        }
        let mut train_loss = 0f64;
        for batch in order.chunks(opts.batch.max(1)) {
            t += 1;
            let chunk = batch.len().div_ceil(CHUNKS).max(1);
            let parts: Vec<ChunkGradient> = batch
                .par_chunks(chunk)
                .map(|c| {
                    let mut feats = Vec::with_capacity(64);
                    let mut g = Vec::with_capacity(c.len() * 48);
                    let mut loss = 0f64;
                    for &i in c {
                        let ex = (problem.get)(i, &mut feats);
                        let p = sigmoid(score(&feats, &ex, &w) / opts.scale);
                        loss += cross_entropy(p, ex.target) as f64;
                        let d = (p - ex.target) / opts.scale * ex.sign;
                        for &(f, x) in &feats {
                            g.push((f, [d * x * (1.0 - ex.phase), d * x * ex.phase]));
                        }
                    }
                    (g, loss)
                })
                .collect();
            let inv = 1.0 / batch.len() as f32;
            let mut list = Vec::new();
            for (g, loss) in parts {
                train_loss += loss;
                for (f, d) in g {
                    let f = f as usize;
                    if !touched[f] {
                        touched[f] = true;
                        list.push(f);
                    }
                    grad[f][0] += d[0] * inv;
                    grad[f][1] += d[1] * inv;
                }
            }
            let progress = t as f32 / total_steps as f32;
            let lr = opts.lr * (1.0 - 0.9 * progress);
            let c1 = 1.0 - b1.powi(t);
            let c2 = 1.0 - b2.powi(t);
            // Lazy Adam: only the weights this batch touched move.
            for &f in &list {
                for k in 0..2 {
                    let mut g = grad[f][k];
                    if !problem.unpenalised.contains(&f) {
                        g += opts.l2 * w[f][k];
                    }
                    m[f][k] = b1 * m[f][k] + (1.0 - b1) * g;
                    v[f][k] = b2 * v[f][k] + (1.0 - b2) * g * g;
                    let step = lr * (m[f][k] / c1) / ((v[f][k] / c2).sqrt() + eps);
                    w[f][k] -= step;
                    grad[f][k] = 0.0;
                }
                touched[f] = false;
            }
        }
        let tl = (train_loss / train.len().max(1) as f64) as f32;
        let vl = mean_loss(problem, valid, &w, opts.scale);
        check_finite(epoch, tl, vl, &w)?;
        report(epoch, tl, vl);
    }
    Ok(w)
}

/// An error naming the epoch when a loss or a weight is not finite.
fn check_finite(epoch: usize, train: f32, valid: f32, w: &[[f32; 2]]) -> Result<(), String> {
    let bad = |what: &str, x: f32| {
        format!(
            "training diverged in epoch {epoch}: the {what} is {x} (a smaller --lr may help); \
             nothing written"
        )
    };
    if !train.is_finite() {
        return Err(bad("training loss", train));
    }
    if !valid.is_finite() {
        return Err(bad("validation loss", valid));
    }
    if let Some((k, x)) = w
        .iter()
        .enumerate()
        .flat_map(|(k, p)| p.iter().map(move |&x| (k, x)))
        .find(|(_, x)| !x.is_finite())
    {
        return Err(bad(&format!("weight of feature {k}"), x));
    }
    Ok(())
}

/// The scale that best maps search scores to results: the `S` minimising
/// the cross-entropy of sigmoid(score / S) against the results, by golden
/// section on log S over 10..5000 centi-men.
pub fn fit_scale(pairs: &[(f32, f32)]) -> f32 {
    let loss = |s: f32| pairs_loss(pairs, s);
    let (mut a, mut b) = (10f32.ln(), 5000f32.ln());
    let g = (5f32.sqrt() - 1.0) / 2.0;
    for _ in 0..60 {
        let c = b - g * (b - a);
        let d = a + g * (b - a);
        if loss(c.exp()) < loss(d.exp()) {
            b = d;
        } else {
            a = c;
        }
    }
    ((a + b) / 2.0).exp()
}

/// Mean cross-entropy of sigmoid(score / `scale`) against the results of
/// (score, result) `pairs`.
fn pairs_loss(pairs: &[(f32, f32)], scale: f32) -> f64 {
    pairs
        .iter()
        .map(|&(sc, r)| cross_entropy(sigmoid(sc / scale), r) as f64)
        .sum::<f64>()
        / pairs.len().max(1) as f64
}

/// Mean cross-entropy of (score, result) `pairs` at the scale that fits
/// them best: (loss, scale).
pub fn result_loss(pairs: &[(f32, f32)]) -> (f32, f32) {
    if pairs.is_empty() {
        return (0.0, 0.0);
    }
    let s = fit_scale(pairs);
    (pairs_loss(pairs, s) as f32, s)
}

/// Multiplies every weight, and the scale with them, so that a man in the
/// opening is worth `man` centi-men; returns the factor.
fn rescale_to_man(
    w: &mut [[f32; 2]],
    scale: &mut f32,
    men: usize,
    man: f32,
) -> Result<f32, String> {
    let fitted = w[men][0];
    if fitted <= 1.0 {
        return Err(format!(
            "the fitted man is worth {fitted:.1} centi-men: cannot rescale it to {man}"
        ));
    }
    let k = man / fitted;
    for p in w.iter_mut() {
        p[0] *= k;
        p[1] *= k;
    }
    *scale *= k;
    Ok(k)
}

/// What `kondavo train` is asked to do.
#[derive(Clone, Debug)]
pub struct TrainOptions {
    /// Self-play files, or directories whose `.kdsp` files are all read
    /// (sorted by name).
    pub data: Vec<String>,
    /// Weights file to write.
    pub out: String,
    /// Weights to start from (a previous generation); the variant's
    /// generation 0 ([`starting`]) when absent.
    pub init: Option<Learned>,
    /// Share of the games held out for validation.
    pub valid: f64,
    /// Sigmoid scale; fitted to the data's search scores when absent.
    pub scale: Option<f32>,
    /// Fit settings (its `scale` is replaced).
    pub fit: FitOptions,
    /// Free text stored in the file's description (how the data was made).
    pub note: String,
    /// Rescale the fitted weights (and the scale with them) so that a man
    /// in the opening is worth this many centi-men: the search's margins
    /// are set in those units. The order of positions does not change.
    pub man: Option<f32>,
    /// Fit the big windows too (else they stay at zero, as in layout 1).
    pub big_windows: bool,
    /// A big window entry seen in fewer training positions than this
    /// stays at zero: too rare to be learned, its weight would be noise
    /// that the search then chases.
    pub big_min_count: u32,
    /// Fit the king windows too (else they stay at zero, as in layout 2).
    pub king_windows: bool,
    /// A king window entry seen in fewer training positions than this
    /// stays at zero.
    pub king_min_count: u32,
}

/// Loads the data, fits, writes the weights file; `out` gets the report.
pub fn run_train<R: Evaluate>(
    opts: &TrainOptions,
    out: &mut dyn FnMut(String),
) -> Result<Learned, String> {
    let started = Instant::now();
    // The files of folders in --data too: --out may not be any of them.
    let files = crate::tools::selfplay::data_files(&opts.data)?;
    for path in &files {
        if same_file(path, &opts.out) {
            return Err(format!(
                "--out {} is the data file {path}: it would be overwritten",
                opts.out
            ));
        }
    }
    let mut samples: Vec<Sample<R>> = Vec::new();
    let mut game_of: Vec<u32> = Vec::new();
    let mut games = 0u32;
    for path in &files {
        let bytes = std::fs::read(path).map_err(|e| format!("{path}: {e}"))?;
        let (records, _) = read_games::<R>(&bytes).map_err(|e| format!("{path}: {e}"))?;
        for (k, g) in records.iter().enumerate() {
            replay::<R>(g, &mut |s| {
                samples.push(s);
                game_of.push(games);
            })
            .map_err(|e| format!("{path}: game {}: {e}", k + 1))?;
            games += 1;
        }
    }
    if samples.is_empty() {
        return Err("no positions in the data".into());
    }
    out(format!(
        "info {} positions from {games} games loaded in {:.1} s",
        samples.len(),
        started.elapsed().as_secs_f64()
    ));

    let scale = match opts.scale {
        Some(s) => s,
        None => {
            let pairs: Vec<(f32, f32)> = samples
                .iter()
                .filter(|s| s.score != NO_SCORE && (s.score as i32).abs() < WIN_BOUND)
                .map(|s| (s.score as f32, s.result as f32 / 2.0))
                .collect();
            if pairs.is_empty() {
                return Err("no search scores to fit the scale to: give --scale".into());
            }
            let s = fit_scale(&pairs);
            out(format!(
                "info scale fitted to the search scores: {s:.1} centi-men"
            ));
            s
        }
    };

    // Validation games by a seeded coin per game.
    let mut coin = SplitMix::new(opts.fit.seed ^ 0x5eed);
    let held: Vec<bool> = (0..games)
        .map(|_| (coin.below(1_000_000) as f64) < opts.valid * 1e6)
        .collect();
    let (mut train, mut valid) = (Vec::new(), Vec::new());
    for (i, &g) in game_of.iter().enumerate() {
        if held[g as usize] {
            valid.push(i);
        } else {
            train.push(i);
        }
    }

    let lambda = opts.fit.lambda;
    let lay = layout::<R::Geo>();
    let big = lay.big_base() as u32..lay.king_base() as u32;
    let kingw = lay.king_base() as u32..lay.dense_base() as u32;
    // How many training positions show each big and king window entry.
    let mut seen = vec![0u32; (kingw.end - big.start) as usize];
    let count_big = opts.big_windows && opts.big_min_count > 0;
    let count_kings = opts.king_windows && opts.king_min_count > 0;
    if count_big || count_kings {
        let mut f = Vec::new();
        for &i in &train {
            features(&samples[i].pos, &mut f);
            for &(k, _) in &f {
                if k >= big.start && k < kingw.end {
                    let c = &mut seen[(k - big.start) as usize];
                    *c = c.saturating_add(1);
                }
            }
        }
        for (on, what, range, min) in [
            (count_big, "big", &big, opts.big_min_count),
            (count_kings, "king", &kingw, opts.king_min_count),
        ] {
            if on {
                let counts =
                    &seen[(range.start - big.start) as usize..(range.end - big.start) as usize];
                out(format!(
                    "info {what} window entries seen at least {min} times: {} of {}",
                    counts.iter().filter(|&&c| c >= min).count(),
                    counts.len()
                ));
            }
        }
    }
    let get = |i: usize, f: &mut Vec<(u32, f32)>| -> Example {
        let s = &samples[i];
        features(&s.pos, f);
        f.retain(|&(k, _)| {
            if big.contains(&k) {
                opts.big_windows
                    && (opts.big_min_count == 0
                        || seen[(k - big.start) as usize] >= opts.big_min_count)
            } else if kingw.contains(&k) {
                opts.king_windows
                    && (opts.king_min_count == 0
                        || seen[(k - big.start) as usize] >= opts.king_min_count)
            } else {
                true
            }
        });
        let result = s.result as f32 / 2.0;
        let target = if s.score == NO_SCORE || lambda == 0.0 {
            result
        } else {
            (1.0 - lambda) * result + lambda * sigmoid(s.score as f32 / scale)
        };
        Example {
            phase: phase(&s.pos) as f32 / 256.0,
            sign: if s.pos.side() == crate::rules::Color::White {
                1.0
            } else {
                -1.0
            },
            target,
        }
    };
    let base = lay.dense_base();
    // The material counts' weights (no L2; the man sets the units).
    let (men, kings) = (base + Dense::Men as usize, base + Dense::Kings as usize);
    let problem = Problem {
        n: samples.len(),
        features: lay.features(),
        get: &get,
        unpenalised: men..kings + 1,
    };
    let mut init = match &opts.init {
        Some(l) => l.to_float(),
        None => starting::<R>(&R::START).to_float(),
    };
    if !opts.big_windows {
        init[lay.big_base()..lay.king_base()].fill([0.0; 2]);
    }
    if !opts.king_windows {
        init[lay.king_base()..lay.dense_base()].fill([0.0; 2]);
    }
    let mut fit_opts = opts.fit.clone();
    fit_opts.scale = scale;
    out(format!(
        "info training on {} positions, validating on {}; start loss {:.5}",
        train.len(),
        valid.len(),
        mean_loss(&problem, &valid, &init, scale)
    ));
    let mut last_valid = 0.0;
    let w = try_fit(
        &problem,
        init,
        &train,
        &valid,
        &fit_opts,
        &mut |e, tl, vl| {
            last_valid = vl;
            out(format!(
                "epoch {e}/{} train-loss={tl:.5} valid-loss={vl:.5} time={:.1}",
                fit_opts.epochs,
                started.elapsed().as_secs_f64()
            ));
        },
    )?;
    // Both evaluations judged by the results alone on the held-out games,
    // each at the scale that suits it best: the learned weights must beat
    // the evaluation that played the games.
    let result = |i: usize| samples[i].result as f32 / 2.0;
    let learned: Vec<(f32, f32)> = valid
        .par_iter()
        .map_init(Vec::new, |f, &i| {
            let ex = get(i, f);
            (score(f, &ex, &w), result(i))
        })
        .collect();
    let played: Vec<(f32, f32)> = valid
        .par_iter()
        .map(|&i| (R::evaluate(&samples[i].pos) as f32, result(i)))
        .collect();
    let (learned_loss, learned_scale) = result_loss(&learned);
    let (played_loss, played_scale) = result_loss(&played);
    out(format!(
        "info results-only valid loss: learned {learned_loss:.5} (best scale {learned_scale:.1}), \
         evaluation in use {played_loss:.5} (best scale {played_scale:.1})"
    ));
    let (mut w, mut scale) = (w, scale);
    if let Some(m) = opts.man {
        let k = rescale_to_man(&mut w, &mut scale, men, m)?;
        out(format!(
            "info rescaled by {k:.3} so that a man is worth {m} centi-men"
        ));
    }
    out(format!(
        "info dense weights (opening/endgame): {}",
        DENSE_NAMES
            .iter()
            .enumerate()
            .map(|(k, n)| format!("{n}={:.0}/{:.0}", w[base + k][0], w[base + k][1]))
            .collect::<Vec<_>>()
            .join(" ")
    ));
    let description = format!(
        "{}; {} positions from {games} games; {} epochs, lambda {}, l2 {}, lr {}; valid loss {:.5}",
        opts.note,
        samples.len(),
        fit_opts.epochs,
        fit_opts.lambda,
        fit_opts.l2,
        fit_opts.lr,
        last_valid
    );
    let learned =
        Learned::from_float::<R::Geo>(R::NAME, &w, scale, description.trim_start_matches("; "))?;
    crate::files::write_whole(std::path::Path::new(&opts.out), &learned.to_bytes())?;
    out(format!(
        "train positions={} games={games} scale={scale:.1} valid-loss={last_valid:.5} man={:.0}/{:.0} king={:.0}/{:.0} time={:.1} out={}",
        samples.len(),
        w[men][0],
        w[men][1],
        w[kings][0],
        w[kings][1],
        started.elapsed().as_secs_f64(),
        opts.out
    ));
    Ok(learned)
}

/// Whether `a` and `b` name the same existing file, however spelled
/// (relative, `..`, symbolic or hard links).
fn same_file(a: &str, b: &str) -> bool {
    let (Ok(ma), Ok(mb)) = (std::fs::metadata(a), std::fs::metadata(b)) else {
        return false;
    };
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        if (ma.dev(), ma.ino()) == (mb.dev(), mb.ino()) {
            return true;
        }
    }
    let _ = (ma, mb);
    match (std::fs::canonicalize(a), std::fs::canonicalize(b)) {
        (Ok(x), Ok(y)) => x == y,
        _ => false,
    }
}
