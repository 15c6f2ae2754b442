//! Match statistics through the public API (`kondavo::tools::stats`): an
//! SPRT run to its end on simulated games, the rating list of a simulated
//! round robin, and the `elo=<diff> +/- <margin>` line scripts parse.

use kondavo::tools::stats::{
    format_elo, los, rating_list, score_from_elo, Score, Sprt, SprtStatus,
};

/// xorshift64: a tiny deterministic generator of uniform numbers in [0, 1).
struct Uniform(u64);

impl Uniform {
    fn next(&mut self) -> f64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// One game's score for a side `elo` stronger: expected score
/// `score_from_elo(elo)`, draws with probability min(p, 1 - p).
fn game(rng: &mut Uniform, elo: f64) -> f64 {
    let p = score_from_elo(elo);
    let d = p.min(1.0 - p);
    let u = rng.next();
    if u < p - d / 2.0 {
        1.0
    } else if u < p + d / 2.0 {
        0.5
    } else {
        0.0
    }
}

/// Plays games until the SPRT stops (or 200 000 games); the status and the
/// score.
fn run_sprt(sprt: &Sprt, elo: f64, seed: u64) -> (SprtStatus, Score) {
    let mut rng = Uniform(seed);
    let mut score = Score::default();
    for _ in 0..200_000 {
        match game(&mut rng, elo) {
            1.0 => score.wins += 1,
            0.5 => score.draws += 1,
            _ => score.losses += 1,
        }
        let status = sprt.status(&score);
        if status != SprtStatus::Continue {
            return (status, score);
        }
    }
    (SprtStatus::Continue, score)
}

#[test]
fn sprt_stops_the_right_way() {
    let sprt: Sprt = "0,5,0.05,0.05".parse().unwrap();
    for seed in 1..=5u64 {
        let (status, score) = run_sprt(&sprt, 30.0, seed * 0x9E37_79B9);
        assert_eq!(status, SprtStatus::AcceptH1, "{score:?}");
        assert!(score.elo() > 0.0 && los(&score) > 0.9, "{score:?}");
        let (status, score) = run_sprt(&sprt, -25.0, seed * 0x85EB_CA6B);
        assert_eq!(status, SprtStatus::AcceptH0, "{score:?}");
        assert!(score.elo() < 5.0, "{score:?}");
    }
}

#[test]
fn round_robin_recovers_strengths() {
    let strength = [120.0, 40.0, 0.0, -60.0];
    let mut rng = Uniform(0x5EED);
    let mut results = Vec::new();
    for _ in 0..400 {
        for w in 0..4 {
            for b in 0..4 {
                if w != b {
                    results.push((w, b, game(&mut rng, strength[w] - strength[b])));
                }
            }
        }
    }
    let list = rating_list(4, &results);
    assert_eq!(
        list.iter().map(|r| r.player).collect::<Vec<_>>(),
        vec![0, 1, 2, 3]
    );
    let mean = strength.iter().sum::<f64>() / 4.0;
    for r in &list {
        assert_eq!(r.games, 2400);
        assert!(r.error95 > 5.0 && r.error95 < 20.0, "{r:?}");
        assert!(
            (r.elo - (strength[r.player] - mean)).abs() < 1.5 * r.error95,
            "{r:?}"
        );
    }
}

#[test]
fn elo_line_for_scripts() {
    let score = Score::new(60, 20, 20);
    let line = format_elo(score.elo(), score.elo_error95());
    assert_eq!(line, "elo=147.2 +/- 66.0");
    let (diff, margin) = line
        .strip_prefix("elo=")
        .and_then(|rest| rest.split_once(" +/- "))
        .unwrap();
    assert_eq!(diff.parse::<f64>().unwrap(), 147.2);
    assert_eq!(margin.parse::<f64>().unwrap(), 66.0);
}
