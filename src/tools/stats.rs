//! Statistics for engine matches: Elo difference and error margin of a
//! head-to-head score, likelihood of superiority, the sequential probability
//! ratio test (SPRT) used to accept or reject a change, and a rating list
//! from the games of a tournament among several players.
//!
//! Everything is plain `f64` arithmetic; the error function is the `libm`
//! crate's. No function here panics, and none
//! returns NaN or an infinity for any count of games; the edge cases (no
//! games, a 100% or 0% score) are documented on each item.
//!
//! Sources of the formulas:
//! - Elo and its 95% margin: the logistic Elo model and the trinomial
//!   (win/draw/loss) error margin of cutechess-cli's `EloCalculator` and
//!   fastchess's `Elo`.
//! - Likelihood of superiority: the normal approximation used by the same
//!   tools (`0.5 * (1 + erf((w - l) / sqrt(2 (w + l))))`).
//! - SPRT: Wald's bounds and the "GSPRT" approximation of the generalized
//!   log-likelihood ratio by Michel Van den Bergh, as in fishtest's
//!   `stat_util.py` (`LLR_alt2`).
//! - Rating list: the Bradley–Terry model with logistic Elo (as Ordo and
//!   BayesElo), draws counted as half a win and half a loss, fitted by
//!   maximum likelihood with a one-draw prior per player.

use std::collections::BTreeMap;
use std::f64::consts::LN_10;
use std::fmt;
use std::str::FromStr;

/// The standard normal quantile for a two-sided 95% interval, Φ⁻¹(0.975)
/// ≈ 1.959964 (a test checks it against [`erf`]: `Φ(z) = (1 + erf(z/√2)) /
/// 2`).
pub const Z95: f64 = 1.959_963_984_540_054;

/// The score fractions [`elo_from_score`] clamps to: `[SCORE_CLAMP, 1 -
/// SCORE_CLAMP]`, which bounds every Elo value returned by this module to
/// about ±3600.
pub const SCORE_CLAMP: f64 = 1e-9;

/// Elo points per natural-log unit of the odds: `400 / ln 10`.
const ELO_PER_NAT: f64 = 400.0 / LN_10;

/// The Elo difference that gives the expected score `s` (a fraction, draws
/// counting half): `-400 * log10(1/s - 1)`.
///
/// `s` is clamped into `[SCORE_CLAMP, 1 - SCORE_CLAMP]` first, so the result
/// is always finite (|elo| ≤ about 3600); NaN gives 0.
pub fn elo_from_score(s: f64) -> f64 {
    if s.is_nan() {
        return 0.0;
    }
    let s = s.clamp(SCORE_CLAMP, 1.0 - SCORE_CLAMP);
    // `+ 0.0` turns -0.0 (at s = 0.5) into 0.0.
    -400.0 * (1.0 / s - 1.0).log10() + 0.0
}

/// The expected score (a fraction) for an Elo difference `elo` under the
/// logistic model: `1 / (1 + 10^(-elo/400))`. Infinite differences give 0
/// or 1; NaN gives 0.5.
pub fn score_from_elo(elo: f64) -> f64 {
    if elo.is_nan() {
        return 0.5;
    }
    1.0 / (1.0 + 10f64.powf(-elo / 400.0))
}

// ---------------------------------------------------------------------------
// Head-to-head score

/// The result of a match between two engines, counted from engine A's side.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Score {
    /// Games A won.
    pub wins: u32,
    /// Games drawn.
    pub draws: u32,
    /// Games A lost.
    pub losses: u32,
}

impl Score {
    /// A score of `wins`, `draws` and `losses` for engine A.
    pub const fn new(wins: u32, draws: u32, losses: u32) -> Self {
        Score {
            wins,
            draws,
            losses,
        }
    }

    /// Games played (a `u64`, so the sum of three `u32` cannot overflow).
    pub fn games(&self) -> u64 {
        u64::from(self.wins) + u64::from(self.draws) + u64::from(self.losses)
    }

    /// A's points per game, draws counting half: `(w + d/2) / n`, in
    /// `[0, 1]`. With no games, 0.5.
    pub fn score(&self) -> f64 {
        let n = self.games();
        if n == 0 {
            return 0.5;
        }
        (f64::from(self.wins) + 0.5 * f64::from(self.draws)) / n as f64
    }

    /// The counts (as floats) that [`Score::elo`] and [`Score::elo_error95`]
    /// work on: the observed ones when at least two kinds
    /// of result occurred; otherwise the observed variance of the score is
    /// zero (and a 0% or 100% score has infinite Elo), so virtual games are
    /// added: one draw when A won every game or lost every game, one win and
    /// one loss when every game was drawn. `None` with no
    /// games.
    fn regularized(&self) -> Option<(f64, f64, f64)> {
        let n = self.games();
        if n == 0 {
            return None;
        }
        let (w, d, l) = (
            f64::from(self.wins),
            f64::from(self.draws),
            f64::from(self.losses),
        );
        if u64::from(self.wins) == n || u64::from(self.losses) == n {
            Some((w, d + 1.0, l))
        } else if u64::from(self.draws) == n {
            Some((w + 1.0, d, l + 1.0))
        } else {
            Some((w, d, l))
        }
    }

    /// The counts (as floats) that [`Sprt::llr`] works on: the observed
    /// ones when A both won and lost a game; otherwise one virtual win and
    /// one virtual loss are added. Without a win or without a loss the
    /// observed variance of the score understates the true one, badly so in
    /// a drawish game: 1 win and 14 draws have a variance of 0.016 a game,
    /// which let SPRT(30,80) accept H0 after 15 games although A had lost
    /// none; with the virtual games it is 0.043 and the test goes on.
    /// `None` with no games.
    fn sprt_counts(&self) -> Option<(f64, f64, f64)> {
        if self.games() == 0 {
            return None;
        }
        let (w, d, l) = (
            f64::from(self.wins),
            f64::from(self.draws),
            f64::from(self.losses),
        );
        if self.wins == 0 || self.losses == 0 {
            Some((w + 1.0, d, l + 1.0))
        } else {
            Some((w, d, l))
        }
    }

    /// The Elo difference of A over B implied by the score fraction:
    /// `-400 * log10(1/s - 1)` (see [`elo_from_score`]).
    ///
    /// Edge cases: no games gives 0.0. When A won every game or lost every
    /// game the raw difference is infinite, so one virtual draw is added to
    /// the counts first (10 wins are rated as 10 wins and 1 draw: +528.9;
    /// 1 win as 1 win and 1 draw: +190.8). The result is always finite and
    /// within about ±3600.
    pub fn elo(&self) -> f64 {
        match self.regularized() {
            None => 0.0,
            Some((w, d, l)) => elo_from_score((w + 0.5 * d) / (w + d + l)),
        }
    }

    /// The half-width, in Elo, of the 95% confidence interval of
    /// [`Score::elo`], as cutechess-cli and fastchess compute it.
    ///
    /// With `n` games and observed frequencies `w`, `d`, `l` (fractions of
    /// `n`) and mean score `s = w + d/2`, the per-game variance of the
    /// trinomial score is
    /// `var = w (1 - s)² + d (1/2 - s)² + l (0 - s)²`, the standard deviation
    /// of the mean is `sqrt(var / n)`, and with `dev = 1.959964 * sqrt(var /
    /// n)` the margin is `(elo(s + dev) - elo(s - dev)) / 2`.
    ///
    /// Edge cases: no games gives 0.0 (check [`Score::games`]). When only one
    /// kind of result occurred the observed variance is zero (cutechess then
    /// reports a margin of 0, or NaN); here the counts get the same virtual
    /// games as in [`Score::elo`] (a draw for a 100% or 0% score, a win and a
    /// loss when every game was drawn: 50 draws give ±18.5), so the margin is
    /// positive. `s ± dev` outside `(0, 1)` is clamped
    /// as in [`elo_from_score`], so the margin is always finite (and large
    /// for small samples).
    pub fn elo_error95(&self) -> f64 {
        let Some((w, d, l)) = self.regularized() else {
            return 0.0;
        };
        let n = w + d + l;
        let s = (w + 0.5 * d) / n;
        let var = (w * (1.0 - s).powi(2) + d * (0.5 - s).powi(2) + l * s.powi(2)) / n;
        let dev = Z95 * (var / n).sqrt();
        (elo_from_score(s + dev) - elo_from_score(s - dev)) / 2.0
    }
}

// ---------------------------------------------------------------------------
// Likelihood of superiority

/// The error function, `erf(x) = 2/√π ∫₀ˣ e^(-t²) dt`, within 1 ulp:
/// the `libm` crate's (musl's, from FreeBSD's msun). Odd, monotone, ±1 for
/// `|x| ≥ 6` and at ±∞; NaN gives NaN.
pub fn erf(x: f64) -> f64 {
    libm::erf(x)
}

/// Likelihood of superiority: the probability that engine A is stronger
/// than B given the score, in the normal approximation that ignores draws:
/// `0.5 * (1 + erf((w - l) / sqrt(2 (w + l))))` (as cutechess-cli and
/// fastchess report it). With no decisive game, 0.5.
pub fn los(score: &Score) -> f64 {
    let w = f64::from(score.wins);
    let l = f64::from(score.losses);
    if w + l == 0.0 {
        return 0.5;
    }
    0.5 * (1.0 + erf((w - l) / (2.0 * (w + l)).sqrt()))
}

// ---------------------------------------------------------------------------
// SPRT

/// A sequential probability ratio test of H0: "A is `elo0` Elo stronger
/// than B" against H1: "A is `elo1` Elo stronger", with false-positive rate
/// `alpha` (accepting H1 when H0 holds) and false-negative rate `beta`.
///
/// Build one with [`Sprt::new`] or by parsing `"elo0,elo1,alpha,beta"`
/// (e.g. `"0,5,0.05,0.05"`), which check the values. The fields are public;
/// set directly to values those would reject, the methods still return
/// finite numbers (see each one).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Sprt {
    /// The Elo difference of the null hypothesis H0.
    pub elo0: f64,
    /// The Elo difference of the alternative hypothesis H1 (`> elo0`).
    pub elo1: f64,
    /// The probability of accepting H1 when H0 holds, in `(0, 1)`.
    pub alpha: f64,
    /// The probability of accepting H0 when H1 holds, in `(0, 1)`.
    pub beta: f64,
}

/// Where an [`Sprt`] stands after the games so far.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SprtStatus {
    /// The log-likelihood ratio is between the bounds: play on.
    Continue,
    /// The log-likelihood ratio reached the lower bound: accept H0 (the
    /// change is not an improvement of `elo1`).
    AcceptH0,
    /// The log-likelihood ratio reached the upper bound: accept H1.
    AcceptH1,
}

/// Why an SPRT specification was rejected.
#[derive(Debug, Clone, PartialEq)]
pub enum SprtError {
    /// Not four comma-separated fields; holds the number found.
    FieldCount(usize),
    /// A field is not a number.
    NotANumber {
        /// `elo0`, `elo1`, `alpha` or `beta`.
        field: &'static str,
        /// The text of the field.
        text: String,
    },
    /// A field is infinite or NaN.
    NotFinite {
        /// `elo0`, `elo1`, `alpha` or `beta`.
        field: &'static str,
        /// The value.
        value: f64,
    },
    /// `elo0` is not below `elo1`.
    EloOrder {
        /// The given `elo0`.
        elo0: f64,
        /// The given `elo1`.
        elo1: f64,
    },
    /// `alpha` or `beta` is not strictly between 0 and 1.
    Probability {
        /// `alpha` or `beta`.
        field: &'static str,
        /// The value.
        value: f64,
    },
    /// `alpha + beta` is not below 1 (the bounds would not enclose 0).
    ProbabilitySum {
        /// The given `alpha`.
        alpha: f64,
        /// The given `beta`.
        beta: f64,
    },
}

impl fmt::Display for SprtError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SprtError::FieldCount(n) => write!(
                f,
                "SPRT: expected 4 comma-separated values elo0,elo1,alpha,beta \
                 (e.g. 0,5,0.05,0.05), found {n}"
            ),
            SprtError::NotANumber { field, text } => {
                write!(f, "SPRT: {field} is not a number: {text:?}")
            }
            SprtError::NotFinite { field, value } => {
                write!(f, "SPRT: {field} must be a finite number, not {value}")
            }
            SprtError::EloOrder { elo0, elo1 } => write!(
                f,
                "SPRT: elo0 must be below elo1, found elo0={elo0} and elo1={elo1}"
            ),
            SprtError::Probability { field, value } => write!(
                f,
                "SPRT: {field} must be strictly between 0 and 1, found {value}"
            ),
            SprtError::ProbabilitySum { alpha, beta } => write!(
                f,
                "SPRT: alpha + beta must be below 1, found alpha={alpha} and beta={beta}"
            ),
        }
    }
}

impl std::error::Error for SprtError {}

/// `p` clamped into `[1e-12, 1 - 1e-12]`, NaN taken as 0.5.
fn clamp_probability(p: f64) -> f64 {
    if p.is_nan() {
        0.5
    } else {
        p.clamp(1e-12, 1.0 - 1e-12)
    }
}

impl Sprt {
    /// A checked SPRT: all four values finite, `elo0 < elo1`, `alpha` and
    /// `beta` strictly between 0 and 1 and `alpha + beta < 1`.
    ///
    /// # Errors
    ///
    /// The first rule broken, as a [`SprtError`].
    pub fn new(elo0: f64, elo1: f64, alpha: f64, beta: f64) -> Result<Self, SprtError> {
        for (field, value) in [
            ("elo0", elo0),
            ("elo1", elo1),
            ("alpha", alpha),
            ("beta", beta),
        ] {
            if !value.is_finite() {
                return Err(SprtError::NotFinite { field, value });
            }
        }
        if elo0 >= elo1 {
            return Err(SprtError::EloOrder { elo0, elo1 });
        }
        for (field, value) in [("alpha", alpha), ("beta", beta)] {
            if value <= 0.0 || value >= 1.0 {
                return Err(SprtError::Probability { field, value });
            }
        }
        if alpha + beta >= 1.0 {
            return Err(SprtError::ProbabilitySum { alpha, beta });
        }
        Ok(Sprt {
            elo0,
            elo1,
            alpha,
            beta,
        })
    }

    /// Wald's stopping bounds on the log-likelihood ratio, `(lower, upper)`
    /// = `(ln(beta / (1 - alpha)), ln((1 - beta) / alpha))`; for alpha =
    /// beta = 0.05, (-2.944, 2.944).
    ///
    /// `alpha` and `beta` are clamped into `[1e-12, 1 - 1e-12]` (NaN taken
    /// as 0.5), so the bounds are always finite.
    pub fn bounds(&self) -> (f64, f64) {
        let alpha = clamp_probability(self.alpha);
        let beta = clamp_probability(self.beta);
        ((beta / (1.0 - alpha)).ln(), ((1.0 - beta) / alpha).ln())
    }

    /// The log-likelihood ratio of H1 against H0 after the games of `score`,
    /// in the "GSPRT" approximation of the generalized SPRT on the
    /// trinomial model with logistic Elo (Michel Van den Bergh, "A practical
    /// introduction to the GSPRT"; fishtest `stat_util.py`, `LLR_alt2`, also
    /// used by cutechess-cli and fastchess):
    ///
    /// `LLR ≈ n · (s1 - s0) · (2s - s0 - s1) / (2 var)`
    ///
    /// where `sX = 1 / (1 + 10^(-eloX/400))` is the expected score under
    /// hypothesis X, `s` the observed mean score per game, `var` the observed
    /// per-game variance of the score (`w (1-s)² + d (1/2-s)² + l s²` with
    /// frequencies `w, d, l`) and `n` the number of games.
    ///
    /// When A has no win or no loss yet, `var` is too small (zero when only
    /// one kind of result occurred); the counts then get one virtual win and
    /// one virtual loss ([`Score::sprt_counts`]), and `n` counts them.
    /// (fishtest instead raises zero counts to 0.001, which makes `var` so
    /// small that two straight wins would accept H1 and six straight draws
    /// H0; with the virtual games, 28 straight wins, 28 straight losses or
    /// 237 straight draws are needed for `0,5,0.05,0.05`, and 1 win with 14
    /// draws no longer accepts H0 of `30,80,0.05,0.05`.) No games gives
    /// 0.0; so does a NaN `elo0` or `elo1`.
    pub fn llr(&self, score: &Score) -> f64 {
        if self.elo0.is_nan() || self.elo1.is_nan() {
            return 0.0;
        }
        let Some((w, d, l)) = score.sprt_counts() else {
            return 0.0;
        };
        let n = w + d + l;
        let s = (w + 0.5 * d) / n;
        let var = (w * (1.0 - s).powi(2) + d * (0.5 - s).powi(2) + l * s.powi(2)) / n;
        let s0 = score_from_elo(self.elo0);
        let s1 = score_from_elo(self.elo1);
        let llr = n * (s1 - s0) * (2.0 * s - s0 - s1) / (2.0 * var);
        if llr.is_finite() {
            llr
        } else {
            0.0
        }
    }

    /// [`Sprt::llr`] compared with [`Sprt::bounds`]: `AcceptH1` when the LLR
    /// is at or above the upper bound, `AcceptH0` when at or below the lower
    /// one, `Continue` otherwise. (With unchecked fields making the lower
    /// bound exceed the upper one, the upper bound is tested first.)
    pub fn status(&self, score: &Score) -> SprtStatus {
        let llr = self.llr(score);
        let (lower, upper) = self.bounds();
        if llr >= upper {
            SprtStatus::AcceptH1
        } else if llr <= lower {
            SprtStatus::AcceptH0
        } else {
            SprtStatus::Continue
        }
    }
}

impl FromStr for Sprt {
    type Err = SprtError;

    /// Parses `"elo0,elo1,alpha,beta"`, e.g. `"0,5,0.05,0.05"` (spaces
    /// around the values are allowed), and checks it as [`Sprt::new`] does.
    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let fields: Vec<&str> = text.split(',').map(str::trim).collect();
        if fields.len() != 4 {
            return Err(SprtError::FieldCount(fields.len()));
        }
        let mut values = [0.0; 4];
        for ((value, field), name) in values
            .iter_mut()
            .zip(&fields)
            .zip(["elo0", "elo1", "alpha", "beta"])
        {
            *value = field.parse().map_err(|_| SprtError::NotANumber {
                field: name,
                text: (*field).to_string(),
            })?;
        }
        Sprt::new(values[0], values[1], values[2], values[3])
    }
}

// ---------------------------------------------------------------------------
// Rating list

/// One player's line in a [`rating_list`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Rating {
    /// The player's index, as in the results.
    pub player: usize,
    /// The rating in Elo, relative to the mean of all players (which is 0).
    pub elo: f64,
    /// The half-width of the 95% confidence interval of `elo`, in Elo.
    pub error95: f64,
    /// Games the player played (saturating at `u32::MAX`).
    pub games: u32,
    /// The player's points per game, draws counting half (0.5 with no
    /// games).
    pub score: f64,
}

/// Players up to this many are fitted by Newton's method with the exact
/// inverse Hessian for the error bars; beyond it, by minorization-
/// maximization with the diagonal approximation of the errors.
const DENSE_LIMIT: usize = 500;

/// The games between two players, aggregated.
#[derive(Debug, Clone, Copy)]
struct Pair {
    /// The lower player index (into the players that played).
    a: usize,
    /// The higher player index.
    b: usize,
    /// Games between them.
    games: f64,
    /// `a`'s points in those games.
    points: f64,
}

/// The Bradley–Terry model of the players that played, in natural units
/// `x = elo * ln 10 / 400` (so the expected score of `a` against `b` is
/// `σ(x_a - x_b)`), with the one-draw prior against a 0-rated opponent.
#[derive(Debug)]
struct Model {
    /// Number of players.
    m: usize,
    /// The games, one entry per pair that played.
    pairs: Vec<Pair>,
}

/// The logistic function `1 / (1 + e^-z)`, without overflow.
fn sigmoid(z: f64) -> f64 {
    if z >= 0.0 {
        1.0 / (1.0 + (-z).exp())
    } else {
        let e = z.exp();
        e / (1.0 + e)
    }
}

/// `ln σ(z) = -ln(1 + e^-z)`, without overflow.
fn ln_sigmoid(z: f64) -> f64 {
    let t = -z;
    -(t.max(0.0) + (-t.abs()).exp().ln_1p())
}

impl Model {
    /// The log-likelihood of ratings `x`, prior included.
    fn log_likelihood(&self, x: &[f64]) -> f64 {
        let games: f64 = self
            .pairs
            .iter()
            .map(|p| {
                let z = x[p.a] - x[p.b];
                p.points * ln_sigmoid(z) + (p.games - p.points) * ln_sigmoid(-z)
            })
            .sum();
        let prior: f64 = x
            .iter()
            .map(|&xi| 0.5 * ln_sigmoid(xi) + 0.5 * ln_sigmoid(-xi))
            .sum();
        games + prior
    }

    /// The gradient of the log-likelihood at `x`.
    fn gradient(&self, x: &[f64]) -> Vec<f64> {
        let mut g: Vec<f64> = x.iter().map(|&xi| 0.5 - sigmoid(xi)).collect();
        for p in &self.pairs {
            let d = p.points - p.games * sigmoid(x[p.a] - x[p.b]);
            g[p.a] += d;
            g[p.b] -= d;
        }
        g
    }

    /// The observed information (minus the Hessian of the log-likelihood)
    /// at `x`, dense, row-major `m × m`. Positive definite: a weighted graph
    /// Laplacian plus the prior's positive diagonal.
    fn information(&self, x: &[f64]) -> Vec<f64> {
        let m = self.m;
        let mut h = vec![0.0; m * m];
        for (i, &xi) in x.iter().enumerate() {
            let p = sigmoid(xi);
            h[i * m + i] = p * (1.0 - p);
        }
        for p in &self.pairs {
            let q = sigmoid(x[p.a] - x[p.b]);
            let v = p.games * q * (1.0 - q);
            h[p.a * m + p.a] += v;
            h[p.b * m + p.b] += v;
            h[p.a * m + p.b] -= v;
            h[p.b * m + p.a] -= v;
        }
        h
    }

    /// The diagonal of [`Model::information`].
    fn information_diagonal(&self, x: &[f64]) -> Vec<f64> {
        let mut h: Vec<f64> = x
            .iter()
            .map(|&xi| {
                let p = sigmoid(xi);
                p * (1.0 - p)
            })
            .collect();
        for p in &self.pairs {
            let q = sigmoid(x[p.a] - x[p.b]);
            let v = p.games * q * (1.0 - q);
            h[p.a] += v;
            h[p.b] += v;
        }
        h
    }

    /// The maximum-likelihood ratings by Newton's method with backtracking
    /// line search (the log-likelihood is strictly concave), from 0. `None`
    /// if the information matrix is numerically not positive definite.
    fn fit_newton(&self) -> Option<Vec<f64>> {
        let m = self.m;
        let mut x = vec![0.0; m];
        let mut ll = self.log_likelihood(&x);
        for _ in 0..200 {
            let mut step = self.gradient(&x);
            let l = cholesky(&self.information(&x), m)?;
            cholesky_solve(&l, m, &mut step);
            let size = step.iter().fold(0.0f64, |a, s| a.max(s.abs()));
            if !size.is_finite() {
                return None;
            }
            let mut t = 1.0;
            let mut moved = false;
            for _ in 0..60 {
                let candidate: Vec<f64> = x.iter().zip(&step).map(|(xi, si)| xi + t * si).collect();
                let candidate_ll = self.log_likelihood(&candidate);
                // Near the optimum the change is below rounding: allow it.
                if candidate_ll >= ll - 1e-12 * (1.0 + ll.abs()) {
                    x = candidate;
                    ll = candidate_ll.max(ll);
                    moved = true;
                    break;
                }
                t *= 0.5;
            }
            if !moved || t * size < 1e-12 {
                break;
            }
        }
        Some(x)
    }

    /// The maximum-likelihood ratings by cyclic minorization-maximization
    /// (Hunter 2004, "MM algorithms for generalized Bradley–Terry models"):
    /// `γ_a ← W_a / Σ_b n_ab / (γ_a + γ_b)` with `γ = e^x`, `W_a` the points
    /// of `a` (prior included) and the prior's virtual opponent at `γ = 1`.
    /// Memory linear in the pairs; slower to converge than Newton.
    fn fit_mm(&self) -> Vec<f64> {
        let m = self.m;
        let mut neighbours: Vec<Vec<(usize, f64)>> = vec![Vec::new(); m];
        let mut points = vec![0.5; m];
        for p in &self.pairs {
            neighbours[p.a].push((p.b, p.games));
            neighbours[p.b].push((p.a, p.games));
            points[p.a] += p.points;
            points[p.b] += p.games - p.points;
        }
        let mut x = vec![0.0; m];
        for _ in 0..100_000 {
            let mut change = 0.0f64;
            for a in 0..m {
                // W / Σ n/(γa+γb) = γa · W / Σ n σ(xa - xb).
                let expected = sigmoid(x[a])
                    + neighbours[a]
                        .iter()
                        .map(|&(b, n)| n * sigmoid(x[a] - x[b]))
                        .sum::<f64>();
                let delta = points[a].ln() - expected.ln();
                if delta.is_finite() {
                    x[a] += delta;
                    change = change.max(delta.abs());
                }
            }
            if change < 1e-13 {
                break;
            }
        }
        x
    }
}

/// The lower-triangular Cholesky factor of the symmetric `m × m` matrix `a`
/// (row-major); `None` if `a` is not (numerically) positive definite.
fn cholesky(a: &[f64], m: usize) -> Option<Vec<f64>> {
    let mut l = vec![0.0; m * m];
    for i in 0..m {
        for j in 0..=i {
            let dot: f64 = l[i * m..i * m + j]
                .iter()
                .zip(&l[j * m..j * m + j])
                .map(|(p, q)| p * q)
                .sum();
            let v = a[i * m + j] - dot;
            if i == j {
                if !(v > 0.0 && v.is_finite()) {
                    return None;
                }
                l[i * m + i] = v.sqrt();
            } else {
                l[i * m + j] = v / l[j * m + j];
            }
        }
    }
    Some(l)
}

/// Solves `L Lᵀ y = b` in place, `l` from [`cholesky`].
fn cholesky_solve(l: &[f64], m: usize, b: &mut [f64]) {
    for i in 0..m {
        let dot: f64 = l[i * m..i * m + i]
            .iter()
            .zip(&b[..i])
            .map(|(p, q)| p * q)
            .sum();
        b[i] = (b[i] - dot) / l[i * m + i];
    }
    for i in (0..m).rev() {
        let dot: f64 = (i + 1..m).map(|k| l[k * m + i] * b[k]).sum();
        b[i] = (b[i] - dot) / l[i * m + i];
    }
}

/// The rating list of a tournament (round robin, gauntlet or any other
/// pairing) among players `0..players`, from `results`: one
/// `(white, black, score for white)` per game, the score 1, 0.5 or 0
/// (other values are clamped into `[0, 1]` and count as fractional points).
/// Sorted by Elo, highest first (ties by player index).
///
/// Model (as Ordo and BayesElo): the expected score of `i` against `j` is
/// `1 / (1 + 10^((r_j - r_i)/400))`, the colours are ignored, and a draw
/// counts as half a win and half a loss, so the log-likelihood is
/// `Σ_games s ln E + (1 - s) ln (1 - E)`. The ratings maximize it plus a
/// prior of one virtual draw per player against a 0-rated opponent, which
/// keeps a player who won (or lost) every game finite and pins the level of
/// groups of players that never met; it shrinks each rating towards 0 by
/// about the weight of one game (70% over 200 games: 146.4 instead of
/// 147.2), more in long chains of sparsely played pairings, where the pulls
/// add up. The ratings are then shifted so that their mean over all players
/// is 0.
///
/// Fitting: Newton's method with a line search (the log-likelihood is
/// strictly concave, so it converges to the unique maximum). `error95` is
/// `1.959964 ×` the standard deviation of the player's rating relative to
/// the mean, from the inverse of the observed information (minus the
/// Hessian, prior included) at the maximum: for two players it is half the
/// margin of their difference. With more than 500 players that played, the
/// fit is by minorization-maximization instead (at most 100 000 sweeps
/// over the pairings) and `error95` uses only the diagonal of the
/// information (`1.959964 / sqrt(I_ii)`, the error if the others' ratings
/// were known), to keep memory and time in bounds.
///
/// Edge cases: a player with no games gets elo 0.0, error95 0.0, games 0
/// and score 0.5 (check `games`). Games with a player index `>= players`, a
/// player against himself or a non-finite score are ignored. The result has
/// one entry per player (none if `players` is 0), so memory grows with
/// `players`. Nothing is NaN or infinite.
pub fn rating_list(players: usize, results: &[(usize, usize, f64)]) -> Vec<Rating> {
    let mut games = vec![0u64; players];
    let mut points = vec![0.0f64; players];
    for &(white, black, score) in results {
        if !valid_game(players, white, black, score) {
            continue;
        }
        let score = score.clamp(0.0, 1.0);
        games[white] += 1;
        games[black] += 1;
        points[white] += score;
        points[black] += 1.0 - score;
    }
    let pairs = pair_sums(players, results);

    // Index the players that played.
    let active: Vec<usize> = (0..players).filter(|&p| games[p] > 0).collect();
    let mut index = vec![usize::MAX; players];
    for (i, &p) in active.iter().enumerate() {
        index[p] = i;
    }
    let model = Model {
        m: active.len(),
        pairs: pairs
            .into_iter()
            .map(|((a, b), (n, s))| Pair {
                a: index[a],
                b: index[b],
                games: n,
                points: s,
            })
            .collect(),
    };

    let (x, errors) = fit(&model);
    let mut elo = vec![0.0; players];
    let mut error95 = vec![0.0; players];
    for (i, &p) in active.iter().enumerate() {
        elo[p] = x[i] * ELO_PER_NAT;
        error95[p] = errors[i] * ELO_PER_NAT;
    }

    let mut list: Vec<Rating> = (0..players)
        .map(|p| Rating {
            player: p,
            elo: elo[p],
            error95: error95[p],
            games: u32::try_from(games[p]).unwrap_or(u32::MAX),
            score: if games[p] == 0 {
                0.5
            } else {
                points[p] / games[p] as f64
            },
        })
        .collect();
    list.sort_by(|a, b| b.elo.total_cmp(&a.elo).then(a.player.cmp(&b.player)));
    list
}

/// Whether a game `(white, black, score)` can be rated among `players`.
fn valid_game(players: usize, white: usize, black: usize, score: f64) -> bool {
    white < players && black < players && white != black && score.is_finite()
}

/// Games and points per pairing: (low, high) -> (games, points of low),
/// invalid games skipped. A BTreeMap keeps the order of the sums, and so
/// the ratings, deterministic.
fn pair_sums(
    players: usize,
    results: &[(usize, usize, f64)],
) -> BTreeMap<(usize, usize), (f64, f64)> {
    let mut pairs = BTreeMap::new();
    for &(white, black, score) in results {
        if !valid_game(players, white, black, score) {
            continue;
        }
        let score = score.clamp(0.0, 1.0);
        let (key, low_points) = if white < black {
            ((white, black), score)
        } else {
            ((black, white), 1.0 - score)
        };
        let entry: &mut (f64, f64) = pairs.entry(key).or_insert((0.0, 0.0));
        entry.0 += 1.0;
        entry.1 += low_points;
    }
    pairs
}

/// Fits `model`: the ratings in natural units centred on their mean over
/// all players (those without games sit at 0, so the mean over the players
/// that played is 0 too), and their 95% margins in natural units.
fn fit(model: &Model) -> (Vec<f64>, Vec<f64>) {
    let m = model.m;
    if m == 0 {
        return (Vec::new(), Vec::new());
    }
    let dense = if m <= DENSE_LIMIT {
        model.fit_newton().and_then(|x| {
            let l = cholesky(&model.information(&x), m)?;
            Some((x, l))
        })
    } else {
        None
    };
    let (mut x, errors) = match dense {
        Some((x, l)) => {
            // Covariance Σ = I⁻¹, column by column; the variance of
            // x_i - mean(x) is Σ_ii - 2/m Σ_k Σ_ik + 1/m² Σ_kl Σ_kl.
            let mf = m as f64;
            let mut diagonal = vec![0.0; m];
            let mut row_sums = vec![0.0; m];
            let mut column = vec![0.0; m];
            for j in 0..m {
                column.fill(0.0);
                column[j] = 1.0;
                cholesky_solve(&l, m, &mut column);
                diagonal[j] = column[j];
                row_sums[j] = column.iter().sum();
            }
            let total: f64 = row_sums.iter().sum();
            let errors: Vec<f64> = (0..m)
                .map(|i| {
                    let var = diagonal[i] - 2.0 * row_sums[i] / mf + total / (mf * mf);
                    Z95 * var.max(0.0).sqrt()
                })
                .collect();
            (x, errors)
        }
        None => {
            let x = model.fit_mm();
            let errors = model
                .information_diagonal(&x)
                .iter()
                .map(|&h| if h > 0.0 { Z95 / h.sqrt() } else { 0.0 })
                .collect();
            (x, errors)
        }
    };
    let mean = x.iter().sum::<f64>() / m as f64;
    for xi in &mut x {
        *xi -= mean;
    }
    // Belt and braces: nothing non-finite leaves this module.
    let finite = |v: f64| if v.is_finite() { v } else { 0.0 };
    (
        x.into_iter().map(finite).collect(),
        errors.into_iter().map(finite).collect(),
    )
}

// ---------------------------------------------------------------------------
// Output

/// `v` with one decimal, `-0.0` written `0.0`.
fn one_decimal(v: f64) -> String {
    let text = format!("{v:.1}");
    if text == "-0.0" {
        "0.0".to_string()
    } else {
        text
    }
}

/// The documented line `elo=<diff> +/- <margin>` that scripts parse, both
/// numbers with one decimal, e.g. `format_elo(35.24, 20.06)` gives
/// `elo=35.2 +/- 20.1`. A value that rounds to zero is written `0.0`, never
/// `-0.0`. Non-finite inputs are written as Rust prints them (`NaN`, `inf`,
/// `-inf`); nothing in this module produces them.
pub fn format_elo(elo: f64, err: f64) -> String {
    format!("elo={} +/- {}", one_decimal(elo), one_decimal(err))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64, tol: f64) -> bool {
        (a - b).abs() <= tol
    }

    macro_rules! assert_close {
        ($a:expr, $b:expr, $tol:expr) => {{
            let (a, b, tol): (f64, f64, f64) = ($a, $b, $tol);
            assert!(close(a, b, tol), "{a} is not within {tol} of {b}");
        }};
    }

    /// `n` games of `white` against `black` with `white` scoring `points`
    /// in total (made of wins, losses and at most one draw).
    fn games(white: usize, black: usize, n: usize, points: f64) -> Vec<(usize, usize, f64)> {
        let wins = points.floor() as usize;
        let draw = points - wins as f64 > 0.0;
        (0..n)
            .map(|k| {
                let s = if k < wins {
                    1.0
                } else if k == wins && draw {
                    0.5
                } else {
                    0.0
                };
                // Alternate colours: the model ignores them.
                if k % 2 == 0 {
                    (white, black, s)
                } else {
                    (black, white, 1.0 - s)
                }
            })
            .collect()
    }

    /// The model of all `players` (indexed directly) from `results`.
    fn dense_model(players: usize, results: &[(usize, usize, f64)]) -> Model {
        Model {
            m: players,
            pairs: pair_sums(players, results)
                .into_iter()
                .map(|((a, b), (games, points))| Pair {
                    a,
                    b,
                    games,
                    points,
                })
                .collect(),
        }
    }

    fn rating_of(list: &[Rating], player: usize) -> Rating {
        *list.iter().find(|r| r.player == player).unwrap()
    }

    // --- Elo ---------------------------------------------------------------

    #[test]
    fn elo_conversions_are_inverse_and_known() {
        assert_close!(elo_from_score(0.5), 0.0, 1e-12);
        // 70%: 400 log10(7/3) = 147.19.
        assert_close!(elo_from_score(0.7), 147.190_714_117_837_8, 1e-9);
        assert_close!(elo_from_score(0.3), -147.190_714_117_837_8, 1e-9);
        // 10^(1/4) to 1 odds: exactly 100 Elo.
        let s100 = 1.0 / (1.0 + 10f64.powf(-0.25));
        assert_close!(elo_from_score(s100), 100.0, 1e-9);
        for elo in [-800.0, -100.0, -5.0, 0.0, 3.5, 250.0, 1000.0] {
            assert_close!(elo_from_score(score_from_elo(elo)), elo, 1e-7);
        }
        // Clamped, finite.
        assert!(elo_from_score(1.0) > 3500.0 && elo_from_score(1.0) < 3700.0);
        assert_close!(elo_from_score(0.0), -elo_from_score(1.0), 1e-4);
        assert_close!(elo_from_score(2.0), elo_from_score(1.0), 0.0);
        assert_close!(elo_from_score(-1.0), elo_from_score(0.0), 0.0);
        assert_eq!(elo_from_score(f64::NAN), 0.0);
        assert_eq!(score_from_elo(f64::NAN), 0.5);
        assert_eq!(score_from_elo(f64::INFINITY), 1.0);
        assert_eq!(score_from_elo(f64::NEG_INFINITY), 0.0);
    }

    #[test]
    fn score_counts_and_fraction() {
        let s = Score::new(60, 20, 20);
        assert_eq!(s.games(), 100);
        assert_close!(s.score(), 0.7, 1e-15);
        assert_close!(s.elo(), 147.190_714_117_837_8, 1e-9);
        let big = Score::new(u32::MAX, u32::MAX, u32::MAX);
        assert_eq!(big.games(), 3 * u64::from(u32::MAX));
        assert_close!(big.score(), 0.5, 1e-15);
        assert_close!(big.elo(), 0.0, 1e-9);
        assert!(big.elo_error95().is_finite() && big.elo_error95() > 0.0);
    }

    #[test]
    fn elo_error_matches_cutechess_formula() {
        // 60 W, 20 D, 20 L: s = 0.7, var = 0.6·0.09 + 0.2·0.04 + 0.2·0.49
        // = 0.16, sd of the mean = 0.04, dev = 0.078399; the margin is
        // (elo(0.778399) - elo(0.621601)) / 2 = (219.20 - 87.17) / 2
        // = 66.013 (checked with Python).
        assert_close!(
            Score::new(60, 20, 20).elo_error95(),
            66.013_381_760_137_92,
            1e-6
        );
        // 40 W, 30 D, 30 L: elo 34.86, margin 57.676.
        let s = Score::new(40, 30, 30);
        assert_close!(s.elo(), 34.860_070_287_560_08, 1e-9);
        assert_close!(s.elo_error95(), 57.676_170_851_820_64, 1e-6);
        // Symmetric in A and B.
        let t = Score::new(30, 30, 40);
        assert_close!(t.elo(), -s.elo(), 1e-9);
        assert_close!(t.elo_error95(), s.elo_error95(), 1e-9);
    }

    #[test]
    fn elo_error_shrinks_like_one_over_sqrt_n() {
        let small = Score::new(45, 30, 25).elo_error95();
        let large = Score::new(4500, 3000, 2500).elo_error95();
        assert!(large < small);
        assert_close!(small / large, 10.0, 0.3);
        // Draws lower the variance, and so the margin.
        assert!(Score::new(20, 60, 20).elo_error95() < Score::new(50, 0, 50).elo_error95());
    }

    #[test]
    fn elo_edge_cases_are_finite_and_documented() {
        let none = Score::default();
        assert_eq!(none.games(), 0);
        assert_eq!(none.score(), 0.5);
        assert_eq!(none.elo(), 0.0);
        assert_eq!(none.elo_error95(), 0.0);
        // All wins: one virtual draw. 10 W + 1 D: s = 10.5/11.
        let all = Score::new(10, 0, 0);
        assert_eq!(all.score(), 1.0);
        assert_close!(all.elo(), elo_from_score(10.5 / 11.0), 1e-12);
        assert_close!(all.elo(), 528.9, 0.1);
        assert!(all.elo_error95() > 0.0 && all.elo_error95().is_finite());
        let one = Score::new(1, 0, 0);
        assert_close!(one.elo(), 190.8, 0.1);
        assert!(one.elo_error95().is_finite());
        // All losses mirror all wins.
        let lost = Score::new(0, 0, 10);
        assert_close!(lost.elo(), -all.elo(), 1e-9);
        assert_close!(lost.elo_error95(), all.elo_error95(), 1e-4);
        // All draws: zero observed variance.
        let drawn = Score::new(0, 50, 0);
        // All draws: one virtual win and one virtual loss. 1 W, 50 D, 1 L:
        // var = 2·0.25/52, dev = 1.96·sqrt(var/52) = 0.026652, margin =
        // elo(0.526652) = 18.537.
        assert_eq!(drawn.elo(), 0.0);
        assert!(drawn.elo().is_sign_positive());
        assert_close!(drawn.elo_error95(), 18.537_274_175_160_8, 1e-6);
        assert_close!(drawn.elo_error95(), Score::new(1, 50, 1).elo_error95(), 0.0);
        // Wins and draws only: no virtual draw needed, still finite.
        let wd = Score::new(5, 5, 0);
        assert_close!(wd.elo(), elo_from_score(0.75), 1e-12);
        assert!(wd.elo_error95().is_finite());
        for w in 0..4 {
            for d in 0..4 {
                for l in 0..4 {
                    let s = Score::new(w, d, l);
                    assert!(s.elo().is_finite() && s.elo_error95().is_finite());
                    assert!(s.elo_error95() >= 0.0);
                    assert!(los(&s).is_finite());
                }
            }
        }
    }

    // --- erf and LOS -------------------------------------------------------

    #[test]
    fn erf_matches_known_values() {
        // Reference values: Python's math.erf (C library, correctly rounded
        // to about 1 ulp).
        let known = [
            (0.0, 0.0),
            (0.1, 0.112_462_916_018_284_9),
            (0.5, 0.520_499_877_813_046_5),
            (-0.7, -0.677_801_193_837_418_4),
            (1.0, 0.842_700_792_949_714_9),
            (2.0, 0.995_322_265_018_952_7),
            (3.0, 0.999_977_909_503_001_4),
            (4.5, 0.999_999_999_803_383_9),
        ];
        for (x, want) in known {
            assert_close!(erf(x), want, 1e-14);
            assert_close!(erf(-x), -want, 1e-14);
        }
        assert_eq!(erf(6.0), 1.0);
        assert_eq!(erf(-40.0), -1.0);
        assert_eq!(erf(f64::INFINITY), 1.0);
        assert_eq!(erf(f64::NEG_INFINITY), -1.0);
        assert!(erf(f64::NAN).is_nan());
        // Close to 1 below 6 and monotone on a grid.
        assert!(1.0 - erf(5.999) < 1e-15);
        let mut last = -1.0;
        for k in -700..=700 {
            let v = erf(f64::from(k) / 100.0);
            assert!(v >= last, "erf not monotone at {k}");
            last = v;
        }
    }

    #[test]
    fn z95_is_the_normal_quantile_of_0_975() {
        // Φ(z) = (1 + erf(z / √2)) / 2 within 2e-16 of 0.975: through the
        // slope φ(Z95) ≈ 0.058, Z95 is within 4e-15 of the quantile.
        let phi = |z: f64| 0.5 * (1.0 + erf(z / std::f64::consts::SQRT_2));
        assert_close!(phi(Z95), 0.975, 2e-16);
        assert!(phi(Z95 - 1e-14) < 0.975 && phi(Z95 + 1e-14) > 0.975);
    }

    #[test]
    fn los_matches_known_values() {
        // 60 W, 40 L: erf(20 / sqrt(200)) = erf(√2): LOS = Φ(2) = 0.97725.
        assert_close!(los(&Score::new(60, 10, 40)), 0.977_249_868_051_820_8, 1e-12);
        assert_close!(los(&Score::new(40, 10, 60)), 0.022_750_131_948_179_2, 1e-12);
        // 55 W, 45 L: Φ(1) = 0.84134.
        assert_close!(los(&Score::new(55, 0, 45)), 0.841_344_746_068_542_9, 1e-12);
        assert_close!(los(&Score::new(10, 3, 0)), 0.999_217_298_870_998_7, 1e-12);
        assert_close!(
            los(&Score::new(520, 0, 480)),
            0.897_048_394_633_965_8,
            1e-12
        );
        assert_eq!(los(&Score::new(7, 0, 7)), 0.5);
        assert_eq!(los(&Score::new(0, 9, 0)), 0.5);
        assert_eq!(los(&Score::default()), 0.5);
        let huge = los(&Score::new(u32::MAX, 0, 0));
        assert_eq!(huge, 1.0);
        assert_eq!(los(&Score::new(0, 0, u32::MAX)), 0.0);
    }

    // --- SPRT --------------------------------------------------------------

    fn sprt05() -> Sprt {
        "0,5,0.05,0.05".parse().unwrap()
    }

    #[test]
    fn sprt_bounds() {
        let (lower, upper) = sprt05().bounds();
        assert_close!(lower, -2.944_438_979_166_440_3, 1e-12);
        assert_close!(upper, 2.944_438_979_166_440_3, 1e-12);
        let (lower, upper) = Sprt::new(-3.0, 1.0, 0.1, 0.02).unwrap().bounds();
        assert_close!(lower, (0.02f64 / 0.9).ln(), 1e-12);
        assert_close!(upper, (0.98f64 / 0.1).ln(), 1e-12);
        // Unchecked extreme fields still give finite bounds.
        let wild = Sprt {
            elo0: f64::NAN,
            elo1: f64::INFINITY,
            alpha: 0.0,
            beta: f64::NAN,
        };
        let (lower, upper) = wild.bounds();
        assert!(lower.is_finite() && upper.is_finite());
        assert_eq!(wild.llr(&Score::new(10, 5, 3)), 0.0);
        let _ = wild.status(&Score::new(10, 5, 3));
    }

    #[test]
    fn sprt_llr_known_value() {
        // By hand, 60 W, 20 D, 20 L with elo0 = 0, elo1 = 5:
        //   n = 100, s = (60 + 10) / 100 = 0.7,
        //   var = 0.6·(1-0.7)² + 0.2·(0.5-0.7)² + 0.2·(0-0.7)²
        //       = 0.054 + 0.008 + 0.098 = 0.16,
        //   s0 = 1/(1 + 10^0) = 0.5,
        //   s1 = 1/(1 + 10^(-5/400)) = 1/(1 + 0.971628) = 0.5071951,
        //   LLR = 100 · (0.5071951 - 0.5) · (1.4 - 0.5 - 0.5071951) / (2·0.16)
        //       = 100 · 0.0071951 · 0.3928049 / 0.32 = 0.88321.
        let llr = sprt05().llr(&Score::new(60, 20, 20));
        assert_close!(llr, 0.883_207_338_381_443_8, 1e-9);
        assert_eq!(
            sprt05().status(&Score::new(60, 20, 20)),
            SprtStatus::Continue
        );
        // 1000 each: s = 0.5 lies below the midpoint (s0 + s1)/2, so the
        // evidence favours H0: -0.46592.
        assert_close!(
            sprt05().llr(&Score::new(1000, 1000, 1000)),
            -0.465_922_807_199_329_7,
            1e-9
        );
        assert_close!(
            sprt05().llr(&Score::new(400, 200, 600)),
            -3.726_966_743_429_420_7,
            1e-9
        );
        assert_eq!(sprt05().llr(&Score::default()), 0.0);
    }

    #[test]
    fn sprt_accepts_h1_when_winning() {
        let sprt = sprt05();
        let score = Score::new(600, 800, 400);
        assert!(sprt.llr(&score) > sprt.bounds().1, "{}", sprt.llr(&score));
        assert_eq!(sprt.status(&score), SprtStatus::AcceptH1);
        // All wins: huge but finite.
        let all = Score::new(50, 0, 0);
        assert!(sprt.llr(&all).is_finite());
        assert_eq!(sprt.status(&all), SprtStatus::AcceptH1);
    }

    #[test]
    fn sprt_continues_when_balanced() {
        let sprt = sprt05();
        for (w, d, l) in [(100, 100, 100), (251, 500, 249), (10, 0, 10), (1, 1, 1)] {
            let score = Score::new(w, d, l);
            let llr = sprt.llr(&score);
            let (lower, upper) = sprt.bounds();
            assert!(lower < llr && llr < upper, "{w} {d} {l}: {llr}");
            assert_eq!(sprt.status(&score), SprtStatus::Continue);
        }
        // With H0: -5 Elo against H1: +5, an even score is exactly midway.
        let mid = Sprt::new(-5.0, 5.0, 0.05, 0.05).unwrap();
        assert_close!(mid.llr(&Score::new(5000, 10000, 5000)), 0.0, 1e-9);
    }

    #[test]
    fn sprt_accepts_h0_when_losing() {
        let sprt = sprt05();
        let score = Score::new(400, 800, 600);
        assert!(sprt.llr(&score) < sprt.bounds().0);
        assert_eq!(sprt.status(&score), SprtStatus::AcceptH0);
        let all = Score::new(0, 0, 50);
        assert!(sprt.llr(&all).is_finite());
        assert_eq!(sprt.status(&all), SprtStatus::AcceptH0);
        // All draws: s = 0.5 < (s0 + s1)/2; the zero variance is regularized
        // by a virtual win and loss, so n draws count as 1 W, n D, 1 L.
        let drawn = Score::new(0, 3000, 0);
        assert_close!(sprt.llr(&drawn), sprt.llr(&Score::new(1, 3000, 1)), 0.0);
        assert_close!(sprt.llr(&drawn), -466.544_244_685_731_9, 1e-6);
        assert_eq!(sprt.status(&drawn), SprtStatus::AcceptH0);
    }

    #[test]
    fn sprt_streaks_need_enough_games() {
        // Straight wins, draws or losses stop the test only after a sensible
        // number of games (see Sprt::llr): 28 wins, 237 draws, 28 losses.
        let sprt = sprt05();
        assert_eq!(sprt.status(&Score::new(27, 0, 0)), SprtStatus::Continue);
        assert_eq!(sprt.status(&Score::new(28, 0, 0)), SprtStatus::AcceptH1);
        assert_eq!(sprt.status(&Score::new(0, 0, 27)), SprtStatus::Continue);
        assert_eq!(sprt.status(&Score::new(0, 0, 28)), SprtStatus::AcceptH0);
        assert_eq!(sprt.status(&Score::new(0, 236, 0)), SprtStatus::Continue);
        assert_eq!(sprt.status(&Score::new(0, 237, 0)), SprtStatus::AcceptH0);
        // Without a loss, one virtual win and one virtual loss are counted.
        assert_close!(
            sprt.llr(&Score::new(13, 0, 0)),
            0.745_389_033_795_553_4,
            1e-9
        );
        assert_close!(
            sprt.llr(&Score::new(13, 0, 0)),
            sprt.llr(&Score::new(14, 0, 1)),
            0.0
        );
        assert!(sprt.llr(&Score::new(1, 0, 0)) > 0.0 && sprt.llr(&Score::new(1, 0, 0)) < 0.1);
        // A drawish match with no loss yet goes on: 1 win and 14 draws
        // against SPRT(30, 80) (once accepted H0 with llr -3.02).
        let wide: Sprt = "30,80,0.05,0.05".parse().unwrap();
        assert_close!(
            wide.llr(&Score::new(1, 14, 0)),
            -1.340_941_118_318_871,
            1e-9
        );
        assert_eq!(wide.status(&Score::new(1, 14, 0)), SprtStatus::Continue);
        // Once A has both won and lost, the observed counts are used.
        assert_close!(
            wide.llr(&Score::new(3, 14, 1)),
            {
                let (s0, s1) = (score_from_elo(30.0), score_from_elo(80.0));
                let s = 10.0 / 18.0;
                let var =
                    (3.0 * (1.0 - s) * (1.0 - s) + 14.0 * (0.5 - s) * (0.5 - s) + s * s) / 18.0;
                18.0 * (s1 - s0) * (2.0 * s - s0 - s1) / (2.0 * var)
            },
            1e-12
        );
    }

    #[test]
    fn sprt_llr_grows_with_games() {
        let sprt = sprt05();
        let a = sprt.llr(&Score::new(55, 20, 45));
        let b = sprt.llr(&Score::new(550, 200, 450));
        assert!(a > 0.0);
        assert_close!(b / a, 10.0, 1e-9);
    }

    #[test]
    fn sprt_parses_and_rejects() {
        let s: Sprt = " -1.5 , 3.5,0.1, 0.2 ".parse().unwrap();
        assert_eq!(
            s,
            Sprt {
                elo0: -1.5,
                elo1: 3.5,
                alpha: 0.1,
                beta: 0.2
            }
        );
        let err = |t: &str| t.parse::<Sprt>().unwrap_err();
        assert_eq!(err(""), SprtError::FieldCount(1));
        assert_eq!(err("0,5,0.05"), SprtError::FieldCount(3));
        assert_eq!(err("0,5,0.05,0.05,1"), SprtError::FieldCount(5));
        assert_eq!(
            err("0,five,0.05,0.05"),
            SprtError::NotANumber {
                field: "elo1",
                text: "five".into()
            }
        );
        assert_eq!(
            err("0,5,,0.05"),
            SprtError::NotANumber {
                field: "alpha",
                text: String::new()
            }
        );
        assert!(matches!(
            err("inf,5,0.05,0.05"),
            SprtError::NotFinite { field: "elo0", .. }
        ));
        assert!(matches!(
            err("0,NaN,0.05,0.05"),
            SprtError::NotFinite { field: "elo1", .. }
        ));
        assert_eq!(
            err("5,0,0.05,0.05"),
            SprtError::EloOrder {
                elo0: 5.0,
                elo1: 0.0
            }
        );
        assert_eq!(
            err("5,5,0.05,0.05"),
            SprtError::EloOrder {
                elo0: 5.0,
                elo1: 5.0
            }
        );
        assert_eq!(
            err("0,5,0,0.05"),
            SprtError::Probability {
                field: "alpha",
                value: 0.0
            }
        );
        assert_eq!(
            err("0,5,0.05,1"),
            SprtError::Probability {
                field: "beta",
                value: 1.0
            }
        );
        assert_eq!(
            err("0,5,0.6,0.5"),
            SprtError::ProbabilitySum {
                alpha: 0.6,
                beta: 0.5
            }
        );
        // The messages name the problem.
        assert!(err("0,5").to_string().contains("elo0,elo1,alpha,beta"));
        assert!(err("0,x,0.05,0.05").to_string().contains("elo1"));
        assert!(err("5,0,0.05,0.05")
            .to_string()
            .contains("elo0 must be below elo1"));
        assert!(err("0,5,2,0.05")
            .to_string()
            .contains("alpha must be strictly between 0 and 1"));
    }

    // --- Rating list -------------------------------------------------------

    #[test]
    fn rating_chain_70_percent() {
        // A (0) scores 70% against B (1), B 70% against C (2); A and C never
        // meet. Without the prior the maximum is exactly ±147.19 around B.
        let mut results = games(0, 1, 200, 140.0);
        results.extend(games(1, 2, 200, 140.0));
        let list = rating_list(3, &results);
        let order: Vec<usize> = list.iter().map(|r| r.player).collect();
        assert_eq!(order, vec![0, 1, 2]);
        let (a, b, c) = (list[0], list[1], list[2]);
        // The prior shrinks them by less than a point: 146.4.
        assert_close!(a.elo, 146.4, 0.5);
        assert_close!(b.elo, 0.0, 1e-6);
        assert_close!(c.elo, -146.4, 0.5);
        assert_close!(a.elo + b.elo + c.elo, 0.0, 1e-9);
        assert_eq!((a.games, b.games, c.games), (200, 400, 200));
        assert_close!(a.score, 0.7, 1e-12);
        assert_close!(b.score, 0.5, 1e-12);
        assert_close!(c.score, 0.3, 1e-12);
        // The ends are less certain than the middle.
        assert!(a.error95 > b.error95 && close(a.error95, c.error95, 1e-6));
        assert_close!(a.error95, 39.0, 0.5);
        assert_close!(b.error95, 24.7, 0.5);
    }

    #[test]
    fn rating_round_robin_with_draws() {
        // A 70% against B, B 70% against C, A 84.5% against C (147.2 + 147.2
        // = 294.4 Elo gives 84.5%): consistent, so A ≈ +147, C ≈ -147.
        let mut results = games(0, 1, 100, 70.0);
        results.extend(games(1, 2, 100, 70.0));
        results.extend(games(0, 2, 100, 84.5));
        let list = rating_list(3, &results);
        assert_eq!(
            list.iter().map(|r| r.player).collect::<Vec<_>>(),
            vec![0, 1, 2]
        );
        assert_close!(list[0].elo, 147.2, 1.5);
        assert_close!(list[1].elo, 0.0, 1e-6);
        assert_close!(list[2].elo, -147.2, 1.5);
    }

    #[test]
    fn rating_symmetric_results_are_equal() {
        // Rock, paper, scissors: each beats the next 70%.
        let mut results = games(0, 1, 100, 70.0);
        results.extend(games(1, 2, 100, 70.0));
        results.extend(games(2, 0, 100, 70.0));
        let list = rating_list(3, &results);
        for r in &list {
            assert_close!(r.elo, 0.0, 1e-9);
            assert_close!(r.error95, list[0].error95, 1e-9);
            assert_close!(r.score, 0.5, 1e-12);
        }
        // Ties are listed by player index.
        assert_eq!(
            list.iter().map(|r| r.player).collect::<Vec<_>>(),
            vec![0, 1, 2]
        );
        // All draws among four.
        let mut draws = Vec::new();
        for i in 0..4 {
            for j in 0..4 {
                if i != j {
                    draws.push((i, j, 0.5));
                }
            }
        }
        for r in rating_list(4, &draws) {
            assert_close!(r.elo, 0.0, 1e-9);
            assert!(r.error95 > 0.0);
        }
    }

    #[test]
    fn rating_two_players_agree_with_score() {
        // 60 W, 40 L (no draws, where the Bernoulli and trinomial variances
        // coincide): the difference is Score::elo shrunk slightly by the
        // prior, each margin about half the margin of the difference.
        let results = games(0, 1, 100, 60.0);
        let list = rating_list(2, &results);
        let (a, b) = (rating_of(&list, 0), rating_of(&list, 1));
        let score = Score::new(60, 0, 40);
        assert_close!(a.elo, -b.elo, 1e-9);
        let diff = a.elo - b.elo;
        assert!(diff < score.elo() && diff > score.elo() - 3.0, "{diff}");
        assert_close!(2.0 * a.error95, score.elo_error95(), 3.0);
    }

    #[test]
    fn rating_errors_shrink_with_games() {
        let mut small = games(0, 1, 40, 24.0);
        small.extend(games(1, 2, 40, 24.0));
        small.extend(games(0, 2, 40, 28.0));
        let mut large = Vec::new();
        for _ in 0..16 {
            large.extend(small.iter().copied());
        }
        let s = rating_list(3, &small);
        let l = rating_list(3, &large);
        for p in 0..3 {
            let (es, el) = (rating_of(&s, p).error95, rating_of(&l, p).error95);
            assert!(el < es);
            // 16 times the games: about a quarter of the margin.
            assert_close!(es / el, 4.0, 0.3);
        }
        // Same order, ratings close (the prior weighs less with more games).
        for p in 0..3 {
            assert_close!(rating_of(&s, p).elo, rating_of(&l, p).elo, 15.0);
        }
    }

    #[test]
    fn rating_perfect_score_stays_finite() {
        // 0 wins every game against 1 and 2; 1 and 2 draw.
        let mut results = games(0, 1, 30, 30.0);
        results.extend(games(0, 2, 30, 30.0));
        results.extend(games(1, 2, 30, 15.0));
        let list = rating_list(3, &results);
        let top = rating_of(&list, 0);
        assert_eq!(list[0].player, 0);
        assert!(
            top.elo.is_finite() && top.elo > 300.0 && top.elo < 1500.0,
            "{}",
            top.elo
        );
        assert!(top.error95.is_finite() && top.error95 > 0.0);
        assert_close!(top.score, 1.0, 0.0);
        // Two players, one game.
        let list = rating_list(2, &[(1, 0, 1.0)]);
        assert_eq!(list[0].player, 1);
        assert!(list[0].elo > 0.0 && list[0].elo < 1000.0);
        assert_close!(list[0].elo, -list[1].elo, 1e-9);
    }

    #[test]
    fn rating_gauntlet() {
        // Player 0 against four opponents at 50%, 60%, 70% and 80%.
        let mut results = Vec::new();
        for (opp, pts) in [(1, 100.0), (2, 120.0), (3, 140.0), (4, 160.0)] {
            results.extend(games(0, opp, 200, pts));
        }
        let list = rating_list(5, &results);
        assert_eq!(
            list.iter().map(|r| r.player).collect::<Vec<_>>(),
            vec![0, 1, 2, 3, 4]
        );
        let r0 = rating_of(&list, 0).elo;
        for (opp, pct) in [(1, 0.5), (2, 0.6), (3, 0.7), (4, 0.8)] {
            let gap = r0 - rating_of(&list, opp).elo;
            // Shrunk a little by the prior.
            assert_close!(gap, elo_from_score(pct), 0.02 * elo_from_score(pct) + 2.0);
        }
        assert_close!(list.iter().map(|r| r.elo).sum::<f64>(), 0.0, 1e-9);
        assert_eq!(rating_of(&list, 0).games, 800);
    }

    #[test]
    fn rating_edge_cases() {
        assert!(rating_list(0, &[]).is_empty());
        assert!(rating_list(0, &[(0, 1, 1.0)]).is_empty());
        // No games at all.
        let list = rating_list(3, &[]);
        assert_eq!(list.len(), 3);
        for (i, r) in list.iter().enumerate() {
            assert_eq!(r.player, i);
            assert_eq!((r.elo, r.error95, r.games, r.score), (0.0, 0.0, 0, 0.5));
        }
        // Invalid games ignored; player 2 idle.
        let results = [
            (0, 1, 1.0),
            (1, 0, 0.0),
            (0, 1, 0.5),
            (0, 0, 1.0),
            (0, 7, 1.0),
            (9, 1, 0.0),
            (1, 0, f64::NAN),
            (1, 0, f64::INFINITY),
        ];
        let list = rating_list(3, &results);
        let idle = rating_of(&list, 2);
        assert_eq!(
            (idle.elo, idle.error95, idle.games, idle.score),
            (0.0, 0.0, 0, 0.5)
        );
        assert_eq!(rating_of(&list, 0).games, 3);
        assert_close!(rating_of(&list, 0).score, 2.5 / 3.0, 1e-12);
        // The mean over all players, idle one included, is 0.
        assert_close!(list.iter().map(|r| r.elo).sum::<f64>(), 0.0, 1e-9);
        // Out-of-range scores are clamped.
        let clamped = rating_list(2, &[(0, 1, 7.0), (0, 1, -3.0)]);
        assert_close!(rating_of(&clamped, 0).elo, 0.0, 1e-9);
        // Two groups that never meet: each is pinned by the prior.
        let mut split = games(0, 1, 50, 35.0);
        split.extend(games(2, 3, 50, 25.0));
        for r in rating_list(4, &split) {
            assert!(r.elo.is_finite() && r.error95.is_finite());
        }
    }

    #[test]
    fn newton_and_mm_agree() {
        // A small random tournament, fitted both ways.
        let mut state = 0x2545_f491_4f6c_dd1du64;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        let players = 7;
        let strength = [300.0, 150.0, 80.0, 0.0, -40.0, -200.0, -350.0];
        let mut results = Vec::new();
        for _ in 0..3000 {
            let w = (next() % players as u64) as usize;
            let b = (next() % players as u64) as usize;
            if w == b {
                continue;
            }
            let p = score_from_elo(strength[w] - strength[b]);
            let u = (next() >> 11) as f64 / (1u64 << 53) as f64;
            // Expected score p: draws with probability d = min(p, 1 - p),
            // wins with p - d/2, losses with 1 - p - d/2.
            let d = p.min(1.0 - p);
            let s = if u < p - d / 2.0 {
                1.0
            } else if u < p + d / 2.0 {
                0.5
            } else {
                0.0
            };
            results.push((w, b, s));
        }
        let model = dense_model(players, &results);
        let newton = model.fit_newton().unwrap();
        let mm = model.fit_mm();
        for (n, m) in newton.iter().zip(&mm) {
            assert_close!(*n * ELO_PER_NAT, *m * ELO_PER_NAT, 1e-6);
        }
        // At the maximum the gradient vanishes.
        for g in model.gradient(&newton) {
            assert_close!(g, 0.0, 1e-8);
        }
        // The fit recovers the true strengths (centred) within the margins.
        let mean = strength.iter().sum::<f64>() / players as f64;
        for r in &rating_list(players, &results) {
            assert!(r.error95 > 0.0);
            assert_close!(r.elo, strength[r.player] - mean, 1.5 * r.error95);
        }
    }

    #[test]
    fn rating_many_players_uses_mm() {
        // More players than DENSE_LIMIT: rating_list fits by MM; the result
        // must match Newton's maximum, and the diagonal margins must be of
        // the size of the exact ones.
        let players = DENSE_LIMIT + 40;
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        let mut results = Vec::new();
        for w in 0..players {
            for _ in 0..12 {
                let b = (next() % players as u64) as usize;
                let s = [0.0, 0.5, 1.0][(next() % 3) as usize];
                // Lower indices a little stronger.
                let s = if b > w && s < 1.0 && next() % 4 == 0 {
                    s + 0.5
                } else {
                    s
                };
                results.push((w, b, s));
            }
        }
        let list = rating_list(players, &results);
        assert_eq!(list.len(), players);
        assert_close!(list.iter().map(|r| r.elo).sum::<f64>(), 0.0, 1e-6);

        let model = dense_model(players, &results);
        let newton = model.fit_newton().unwrap();
        let mean = newton.iter().sum::<f64>() / players as f64;
        for r in &list {
            assert_close!(r.elo, (newton[r.player] - mean) * ELO_PER_NAT, 1e-4);
            assert!(r.error95 > 20.0 && r.error95 < 400.0, "{}", r.error95);
        }
        // Sorted, highest first.
        assert!(list.windows(2).all(|w| w[0].elo >= w[1].elo));
    }

    // --- Output ------------------------------------------------------------

    #[test]
    fn format_elo_pattern() {
        assert_eq!(format_elo(35.24, 20.06), "elo=35.2 +/- 20.1");
        assert_eq!(format_elo(-147.19, 66.01), "elo=-147.2 +/- 66.0");
        assert_eq!(format_elo(0.0, 0.0), "elo=0.0 +/- 0.0");
        assert_eq!(format_elo(-0.04, 3.0), "elo=0.0 +/- 3.0");
        assert_eq!(format_elo(1234.56, 7.0), "elo=1234.6 +/- 7.0");
        let s = Score::new(60, 20, 20);
        assert_eq!(format_elo(s.elo(), s.elo_error95()), "elo=147.2 +/- 66.0");
        // Parseable back.
        let line = format_elo(-12.345, 9.87);
        let rest = line.strip_prefix("elo=").unwrap();
        let (diff, margin) = rest.split_once(" +/- ").unwrap();
        assert_eq!(diff.parse::<f64>().unwrap(), -12.3);
        assert_eq!(margin.parse::<f64>().unwrap(), 9.9);
    }
}
