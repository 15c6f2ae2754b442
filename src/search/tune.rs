//! The search parameters that games tune. Their defaults are what the
//! engine plays with; for experiments, `KONDAVO_TUNE=name=value,...` in the
//! environment overrides them, so that one build can play a match against
//! itself with other settings (`kondavo match --a "cmd=kondavo" --b
//! "cmd=env KONDAVO_TUNE=prune-margin=14 kondavo"`). A change is kept only
//! by changing a default here, once games have proven it.

use std::sync::OnceLock;

use super::Score;

/// Tunable search parameters.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Params {
    /// Half-width of the first aspiration window (centi-men); doubled on
    /// each failure (`aspiration`).
    pub aspiration_window: Score,
    /// The reduced-depth pruning test (Scan's substitute for null move)
    /// runs at non-PV nodes from this depth (`prune-min-depth`)...
    pub prune_min_depth: i32,
    /// ...against `beta + prune_margin_per_depth * depth`
    /// (`prune-margin`)...
    pub prune_margin_per_depth: Score,
    /// ...with a search of this percentage of the depth (`prune-percent`).
    pub prune_depth_percent: i32,
    /// Late move reductions from this depth (`lmr-min-depth`)...
    pub lmr_min_depth: i32,
    /// ...after this many moves at PV nodes (`lmr-pv-moves`)...
    pub lmr_pv_moves: usize,
    /// ...and this many at other nodes (`lmr-moves`)...
    pub lmr_non_pv_moves: usize,
    /// ...reducing by two plies after this many moves at non-PV nodes
    /// (`lmr-deep-moves`)...
    pub lmr_deep_moves: usize,
    /// ...and by three after this many, from depth 6 (`lmr-third-moves`;
    /// 1000: never).
    pub lmr_third_moves: usize,
    /// Quiet positions where the opponent threatens a capture are looked at
    /// one ply deeper this many times per quiescence line (`q-threats`; 0
    /// in International and Turkish, see [`default_for`]).
    pub q_threats: u8,
    /// Quiet moves tried before a cut-off lose history (`history-malus`,
    /// 0 or 1).
    pub history_malus: bool,
    /// Late move pruning: at non-PV nodes of at most this depth with no
    /// capture pending, quiet moves that are neither the table's move, a
    /// killer nor a promotion are skipped from the
    /// `lmp_moves + depth * depth`-th on (`lmp-depth`; 0: never)...
    pub lmp_depth: i32,
    /// ...(`lmp-moves`).
    pub lmp_moves: usize,
    /// Futility pruning: at non-PV nodes of at most this depth with no
    /// capture pending, when the static evaluation plus
    /// `futility_margin * depth` does not reach alpha, the moves after the
    /// first that are neither the table's move, a killer nor a promotion
    /// are skipped (`futility-depth`; 0: never; 1 gained 37 Elo in
    /// English, 5 in International)...
    pub futility_depth: i32,
    /// ...(`futility-margin`, centi-men a ply).
    pub futility_margin: Score,
    /// Late move reductions one ply deeper for quiet moves with a negative
    /// history score (`lmr-bad-history`, 0 or 1; off: +21.7 +/- 19.0 in
    /// International at 100,000 nodes a move over 400 games, -1.7 +/- 16.3
    /// at 5 s + 0.05 s over 200; docs/learning.md, "Twelfth round").
    pub lmr_bad_history: bool,
    /// Internal iterative reduction: a node of at least this depth with no
    /// move from the table is searched one ply shallower (`iir-depth`; 0:
    /// never).
    pub iir_depth: i32,
    /// With a clock, no new iteration starts after this percentage of the
    /// move's budget (`time-soft`; 90, and 60 in Spanish and Turkish, see
    /// [`default_for`])...
    pub time_soft_percent: u32,
    /// ...scaled by the root's stability (`time-stability`, 0 or 1): more
    /// time while the best move changes from one iteration to the next or
    /// the score falls, less once both have settled.
    pub time_stability: bool,
    /// When the clock stops an iteration after a root move beat the
    /// previous best, play that move rather than the last complete
    /// iteration's (`root-partial`, 0 or 1; +1.7 +/- 28.8 at 5 s + 0.05 s
    /// in English, 200 games: not proven, off).
    pub root_partial: bool,
    /// Singular extension: at nodes of at least this depth whose table
    /// entry (a lower bound or exact, at most 3 plies shallower) gives a
    /// move, the other moves are searched to half the depth against the
    /// table's score less `se_margin * depth`; when none reaches it, the
    /// table's move is searched one ply deeper (`se-depth`; 0: never; 8 in
    /// International, Russian, Brazilian and Turkish, see
    /// [`default_for`])...
    pub se_depth: i32,
    /// ...(`se-margin`, centi-men a ply)...
    pub se_margin: Score,
    /// ...and when that reduced search of the other moves clears beta
    /// anyway, the node returns it (multi-cut; `se-multicut`, 0 or 1; on
    /// in International, Russian, Brazilian and Turkish).
    pub se_multicut: bool,
    /// Move ordering: the quiet move that last refuted the opponent's
    /// previous move is tried after the killers (`counter-move`, 0 or 1;
    /// -5.2 +/- 19.4 in International and +13.9 +/- 21.8 in English at
    /// 100,000 nodes a move, 400 games each: not proven, off).
    pub counter_move: bool,
    /// Late move reductions grow with the depth and the move's place: a
    /// move at non-PV nodes is reduced at least 100 ln(depth)
    /// ln(place + 1) / `lmr_log` plies (rounded down; one less at PV
    /// nodes) where the rules above reduce it less (`lmr-log`; 0: never).
    pub lmr_log: i32,
    /// The reduced-depth pruning test runs only where the static
    /// evaluation plus this many centi-men reaches its bound
    /// (`prune-eval`, -1000 to 1000; 1000: wherever it may run; below 0:
    /// only where the evaluation clears the bound by that much). 0 by
    /// default: +41.0 +/- 19.0 in International, +20.9 and +32.2 in
    /// English, +34.9 in Russian, +29.6 in Italian, +27.0 in Spanish,
    /// +22.6 in Brazilian and +14.8 and +36.6 in Turkish (two sets of
    /// openings) at 100,000 nodes a move, 400 games each, against the test
    /// everywhere (docs/learning.md, "Fifth round" and "Sixth round"); a
    /// stricter gate (-30) +4.3 in International ("Seventh round").
    pub prune_eval: Score,
    /// Reverse futility pruning: at non-PV nodes of at most this depth with
    /// no capture pending, a static evaluation that clears beta by
    /// `rfp_margin` a ply is returned less that margin (`rfp-depth`; 0:
    /// never)...
    pub rfp_depth: i32,
    /// ...(`rfp-margin`, centi-men a ply).
    pub rfp_margin: Score,
    /// Where the opponent threatens a capture, neither the reduced-depth
    /// pruning test nor futility pruning runs: the static evaluation does
    /// not see the threat (`threat-guard`; off by default).
    pub threat_guard: bool,
    /// The tests that read the static evaluation (the reduced-depth test's
    /// gate, futility and reverse futility pruning) read the table's score
    /// instead where the entry's bound says the node is worth more (lower
    /// bound above the evaluation), less (upper bound below it) or exactly
    /// that (`tt-eval`; off by default).
    pub tt_eval: bool,
    /// A late move that leaves the opponent a capture (an exchange or a
    /// sacrifice: the moves a shot starts with) is reduced at most one ply
    /// at 1, not at all at 2 (`lmr-tactical`; 0, off, by default: at 1,
    /// -8.7 +/- 18.8 in International and +5.2 +/- 21.7 in English at
    /// 100,000 nodes a move, 400 games each; docs/learning.md, "Eighth
    /// round").
    pub lmr_tactical: u8,
    /// Continuation history for the ordering of quiet moves: besides the
    /// history by from and to, a move's score after the opponent's last
    /// move lands on a square (bit 1) and after our own move before it
    /// (bit 2), learned like the history (`cont-history`, 0 to 3; 0, off,
    /// by default).
    pub cont_history: u8,
    /// Late moves at an expected cut node (a non-PV node whose first move
    /// should refute the parent's move: the late moves' zero-window
    /// searches, the reduced-depth test, and every other non-PV ply below
    /// them) are reduced this many plies more (`lmr-cut`; 0, off, by
    /// default: at 1, -7.8 +/- 14.3 in Russian and -3.5 +/- 18.8 in
    /// International at 100,000 nodes a move, 400 games each;
    /// docs/learning.md, "Tenth round").
    pub lmr_cut: i32,
    /// The quiescence search's threat look-ahead (`q_threats`) only where
    /// the evaluation plus this margin (centi-men) clears alpha
    /// (`q-margin`; [`Q_MARGIN_OFF`], everywhere, by default: at 0,
    /// +2.6 +/- 14.4 in Russian at 100,000 nodes a move, 400 games).
    pub q_margin: Score,
    /// With a clock that does not give the moves to the next control, each
    /// move's budget is the clock left divided by this many moves, plus
    /// most of the increment (`moves-to-go`, 5 to 60; 30 by default):
    /// fewer spend more of the clock early, more keep it for the endgame.
    /// In Russian at 5 s + 0.05 s, against 30 (200 games each;
    /// docs/learning.md, "Moves to go"): 15 scored -8.7 +/- 18.3 and 45
    /// -15.6 +/- 16.9.
    pub moves_to_go: u32,
    /// Contempt: a draw (by repetition, by the draw rules, or in the
    /// endgame databases) scores this many centi-men below 0 for the side
    /// to move at the root and as much above 0 for its opponent, so that
    /// the engine plays on rather than draw a level position
    /// (`contempt`; 0, off, by default: 20 and 50 in Russian and 30 in
    /// Brazilian lost 1.5 to 2 points in 200 games against 41f0412 at
    /// 100,000 nodes a move; docs/learning.md, "Eleventh round").
    pub contempt: Score,
    /// The history of quiet moves is kept per side, not one table for
    /// both (`history-side`, 0 or 1): a king's move from and to the same
    /// squares is another move for the other side. Off by default: fewer
    /// nodes to the same depth (Russian 24.5 M against 29.6 M at depth
    /// 20), and -3.5 in Russian and -14.8 in Brazilian at 100,000 nodes a
    /// move, 400 games each (docs/learning.md, "Eleventh round").
    pub history_side: bool,
    /// Late moves at non-PV nodes are reduced this many plies more where
    /// the static evaluation is not above the one two plies up, at our
    /// previous move (`lmr-improving`, 0 to 2; 0, off, by default: at 1,
    /// +15.6 +/- 20.4 in International and -3.5 +/- 20.4 in Russian at
    /// 100,000 nodes a move, +1.7 +/- 17.7 in International at 5 s +
    /// 0.05 s; docs/learning.md, "Twelfth round"). Nodes
    /// with a capture pending, and those within two plies of the root,
    /// count as improving.
    pub lmr_improving: i32,
}

/// `q-margin` at or above this: the threat look-ahead runs whatever the
/// evaluation.
pub const Q_MARGIN_OFF: Score = 10_000;

/// The parameters the engine plays with.
pub const DEFAULT: Params = Params {
    aspiration_window: 15,
    prune_min_depth: 3,
    prune_margin_per_depth: 7,
    prune_depth_percent: 40,
    lmr_min_depth: 2,
    lmr_pv_moves: 3,
    lmr_non_pv_moves: 1,
    lmr_deep_moves: 4,
    lmr_third_moves: 1000,
    q_threats: 1,
    history_malus: true,
    lmp_depth: 0,
    lmp_moves: 3,
    futility_depth: 1,
    futility_margin: 30,
    lmr_bad_history: false,
    iir_depth: 0,
    time_soft_percent: 90,
    time_stability: false,
    root_partial: false,
    se_depth: 0,
    se_margin: 2,
    se_multicut: false,
    counter_move: false,
    lmr_log: 0,
    prune_eval: 0,
    rfp_depth: 0,
    rfp_margin: 50,
    threat_guard: false,
    tt_eval: false,
    lmr_tactical: 0,
    cont_history: 0,
    lmr_cut: 0,
    q_margin: Q_MARGIN_OFF,
    moves_to_go: super::time::DEFAULT_MOVES_TO_GO,
    contempt: 0,
    history_side: false,
    lmr_improving: 0,
};

/// The parameters a variant plays with: [`DEFAULT`], except where games
/// proved a variant better off with another value.
///
/// - Turkish plays without futility pruning: with it, the same build
///   scored -26.1 +/- 26.4 at 30,000 nodes a move (400 games) and
///   -38.4 +/- 29.2 at 5 s + 0.05 s (200 games) against itself without it
///   (docs/learning.md, "Tuning the search").
/// - International plays with the singular extension from depth 8 and its
///   multi-cut: +33.1 +/- 21.0 at 100,000 nodes a move and +27.0 +/- 19.9
///   at 200,000, 400 games each, and +12.2 +/- 22.8 at 5 s + 0.05 s (200
///   games), against itself without them (docs/learning.md, "Third
///   round"); so do Russian: +14.8 +/- 17.4 and +16.5 +/- 17.1 at
///   100,000 nodes, 400 games each on other openings, Brazilian:
///   +15.6 +/- 14.6 at 100,000 nodes (400 games) and +6.9 +/- 14.4 at
///   5 s + 0.05 s (200 games), and Turkish: +17.8 +/- 17.1 at 100,000
///   nodes (800 games) and +33.1 +/- 26.5 at 5 s + 0.05 s (200 games).
/// - International's quiescence does not look a ply deeper at a threatened
///   capture (`q-threats=0`): +35.7 +/- 19.2 at 100,000 nodes a move and
///   +27.9 +/- 18.1 at 200,000, 400 games each, and +15.6 +/- 21.2 at
///   5 s + 0.05 s (200 games), against itself with one threat a line
///   (docs/learning.md, "Fourth round"); so does Turkish's: +30.5 +/-
///   25.5 and +28.7 +/- 24.9 at 100,000 nodes, 400 games each on other
///   openings. The other variants keep one threat a line (Russian -0.9,
///   English -8.7, Italian +1.7, Spanish 0.0 at 100,000 nodes).
/// - Spanish and Turkish start no iteration after 60 % of the move's
///   budget; the others play [`DEFAULT`]'s 90 % (`time-soft=90`), which
///   gained +13.5 +/- 13.2 over 800 games in English, +16.5 +/- 14.5 and
///   +13.9 +/- 12.9 over 400 in International and Russian, +12.2 +/- 10.7
///   over 600 in Brazilian and +34.9 +/- 27.6 over 200 in Italian at 5 s +
///   0.05 s against itself with 60 (docs/learning.md, "Clock use"), but
///   not in Spanish (+5.2 +/- 13.2 over 400 games) nor in Turkish (-6.9 +/-
///   26.9 over 200).
pub fn default_for(variant: &str) -> Params {
    let mut p = DEFAULT;
    if matches!(variant, "spanish" | "turkish") {
        p.time_soft_percent = 60;
    }
    if variant == "turkish" {
        p.futility_depth = 0;
    }
    if matches!(
        variant,
        "international" | "russian" | "brazilian" | "turkish"
    ) {
        p.se_depth = 8;
        p.se_multicut = true;
    }
    if matches!(variant, "international" | "turkish") {
        p.q_threats = 0;
    }
    p
}

/// Every setting `KONDAVO_TUNE` takes, as named in an error.
pub const NAMES: [&str; 38] = [
    "aspiration",
    "prune-min-depth",
    "prune-margin",
    "prune-percent",
    "lmr-min-depth",
    "lmr-pv-moves",
    "lmr-moves",
    "lmr-deep-moves",
    "lmr-third-moves",
    "q-threats",
    "history-malus",
    "lmp-depth",
    "lmp-moves",
    "futility-depth",
    "futility-margin",
    "lmr-bad-history",
    "iir-depth",
    "time-soft",
    "time-stability",
    "root-partial",
    "se-depth",
    "se-margin",
    "se-multicut",
    "counter-move",
    "lmr-log",
    "prune-eval",
    "rfp-depth",
    "rfp-margin",
    "threat-guard",
    "tt-eval",
    "lmr-tactical",
    "cont-history",
    "lmr-cut",
    "q-margin",
    "moves-to-go",
    "contempt",
    "history-side",
    "lmr-improving",
];

impl Params {
    /// The defaults with `text` (`name=value,...`) applied.
    pub fn parse(text: &str) -> Result<Params, String> {
        Params::parse_over(DEFAULT, text)
    }

    /// `base` with `text` (`name=value,...`) applied.
    pub fn parse_over(base: Params, text: &str) -> Result<Params, String> {
        let mut p = base;
        for item in text.split(',').map(str::trim).filter(|s| !s.is_empty()) {
            let (name, value) = item
                .split_once('=')
                .ok_or_else(|| format!("'{item}' is not name=value"))?;
            // The gate's allowance may be negative (a stricter gate).
            let low = if name.trim() == "prune-eval" {
                -1000
            } else {
                0
            };
            let v: i64 = value
                .trim()
                .parse()
                .ok()
                .filter(|v| (low..=1000).contains(v))
                .ok_or_else(|| {
                    format!("{name}: '{value}' is not a whole number from {low} to 1000")
                })?;
            match name.trim() {
                "aspiration" => p.aspiration_window = v.max(1) as Score,
                "prune-min-depth" => p.prune_min_depth = v as i32,
                "prune-margin" => p.prune_margin_per_depth = v as Score,
                "prune-percent" => p.prune_depth_percent = v.min(100) as i32,
                "lmr-min-depth" => p.lmr_min_depth = v as i32,
                "lmr-pv-moves" => p.lmr_pv_moves = v as usize,
                "lmr-moves" => p.lmr_non_pv_moves = v as usize,
                "lmr-deep-moves" => p.lmr_deep_moves = v as usize,
                "lmr-third-moves" => p.lmr_third_moves = v as usize,
                "q-threats" => p.q_threats = v.min(8) as u8,
                "history-malus" => p.history_malus = v != 0,
                "lmp-depth" => p.lmp_depth = v as i32,
                "lmp-moves" => p.lmp_moves = v as usize,
                "futility-depth" => p.futility_depth = v as i32,
                "futility-margin" => p.futility_margin = v as Score,
                "lmr-bad-history" => p.lmr_bad_history = v != 0,
                "iir-depth" => p.iir_depth = v as i32,
                "time-soft" => p.time_soft_percent = v.clamp(10, 400) as u32,
                "time-stability" => p.time_stability = v != 0,
                "root-partial" => p.root_partial = v != 0,
                "se-depth" => p.se_depth = v as i32,
                "se-margin" => p.se_margin = v as Score,
                "se-multicut" => p.se_multicut = v != 0,
                "counter-move" => p.counter_move = v != 0,
                "lmr-log" => p.lmr_log = v as i32,
                "prune-eval" => p.prune_eval = v as Score,
                "rfp-depth" => p.rfp_depth = v as i32,
                "rfp-margin" => p.rfp_margin = v as Score,
                "threat-guard" => p.threat_guard = v != 0,
                "tt-eval" => p.tt_eval = v != 0,
                "lmr-tactical" => p.lmr_tactical = v.min(2) as u8,
                "cont-history" => p.cont_history = v.min(3) as u8,
                "lmr-cut" => p.lmr_cut = v.clamp(0, 3) as i32,
                "q-margin" => p.q_margin = v.clamp(-1000, Q_MARGIN_OFF as i64) as Score,
                "moves-to-go" => p.moves_to_go = v.clamp(5, 60) as u32,
                "contempt" => p.contempt = v.min(200) as Score,
                "history-side" => p.history_side = v != 0,
                "lmr-improving" => p.lmr_improving = v.min(2) as i32,
                other => {
                    return Err(format!(
                        "unknown parameter '{other}' ({})",
                        NAMES.join(", ")
                    ))
                }
            }
        }
        Ok(p)
    }
}

/// `KONDAVO_TUNE`, when it is set and valid (read once; a bad value is
/// reported on standard error and ignored).
fn overrides() -> Option<&'static str> {
    static T: OnceLock<Option<String>> = OnceLock::new();
    T.get_or_init(|| {
        let t = std::env::var("KONDAVO_TUNE").ok()?;
        match Params::parse(&t) {
            Ok(_) => Some(t),
            Err(e) => {
                crate::stdio::err(format_args!("kondavo: KONDAVO_TUNE ignored: {e}"));
                None
            }
        }
    })
    .as_deref()
}

/// The parameters in use for `variant`: its defaults ([`default_for`]),
/// with `KONDAVO_TUNE` applied to them.
pub fn params_for(variant: &str) -> Params {
    let base = default_for(variant);
    overrides()
        .and_then(|t| Params::parse_over(base, t).ok())
        .unwrap_or(base)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn settings_parse_and_bad_ones_are_refused() {
        let p = Params::parse("prune-margin=14, lmr-deep-moves=6, q-threats=2, history-malus=0")
            .unwrap();
        let q = Params::parse(
            "lmp-depth=2,lmp-moves=4,futility-depth=1,futility-margin=25,lmr-bad-history=1,iir-depth=5",
        )
        .unwrap();
        assert_eq!(
            (
                q.lmp_depth,
                q.lmp_moves,
                q.futility_depth,
                q.futility_margin
            ),
            (2, 4, 1, 25)
        );
        assert!(q.lmr_bad_history);
        assert_eq!(q.iir_depth, 5);
        assert!(Params::parse("root-partial=1").unwrap().root_partial);
        let se = Params::parse("se-depth=8,se-margin=3,se-multicut=1").unwrap();
        assert_eq!((se.se_depth, se.se_margin, se.se_multicut), (8, 3, true));
        assert_eq!(DEFAULT.se_depth, 0);
        // The ideas games did not prove are off by default; futility
        // pruning at depth 1 is on.
        let d = DEFAULT;
        assert_eq!(
            (
                d.lmp_depth,
                d.futility_depth,
                d.iir_depth,
                d.lmr_bad_history
            ),
            (0, 1, 0, false)
        );
        assert!(!d.root_partial);
        assert_eq!((d.prune_eval, d.rfp_depth), (0, 0));
        let g = Params::parse("prune-eval=40,rfp-depth=2,rfp-margin=60").unwrap();
        assert_eq!((g.prune_eval, g.rfp_depth, g.rfp_margin), (40, 2, 60));
        assert!(!d.threat_guard && Params::parse("threat-guard=1").unwrap().threat_guard);
        assert!(!d.tt_eval && Params::parse("tt-eval=1").unwrap().tt_eval);
        assert_eq!(d.lmr_tactical, 0);
        assert_eq!(Params::parse("lmr-tactical=7").unwrap().lmr_tactical, 2);
        assert_eq!(d.cont_history, 0);
        assert_eq!(Params::parse("cont-history=9").unwrap().cont_history, 3);
        assert_eq!(
            (d.contempt, Params::parse("contempt=25").unwrap().contempt),
            (0, 25)
        );
        assert_eq!(p.prune_margin_per_depth, 14);
        assert_eq!(p.lmr_deep_moves, 6);
        assert_eq!(p.q_threats, 2);
        assert!(!p.history_malus);
        assert_eq!(p.lmr_pv_moves, DEFAULT.lmr_pv_moves);
        assert_eq!(Params::parse("").unwrap(), DEFAULT);
        // Turkish plays without futility pruning unless told otherwise;
        // the others with it.
        assert_eq!(default_for("turkish").futility_depth, 0);
        assert_eq!(default_for("turkish").q_threats, 0);
        assert_eq!(default_for("turkish").prune_eval, 0);
        // Spanish and Turkish start no iteration after 60 % of the budget;
        // the others play the default's 90 %.
        assert_eq!(DEFAULT.time_soft_percent, 90);
        for v in [
            "english",
            "international",
            "russian",
            "brazilian",
            "italian",
        ] {
            assert_eq!(default_for(v).time_soft_percent, 90, "{v}");
        }
        for v in ["spanish", "turkish"] {
            assert_eq!(default_for(v).time_soft_percent, 60, "{v}");
        }
        assert_eq!(default_for("english"), DEFAULT);
        let i = default_for("international");
        assert_eq!((i.se_depth, i.se_multicut), (8, true));
        assert_eq!((i.q_threats, i.prune_eval), (0, 0));
        let r = default_for("russian");
        assert_eq!((r.se_depth, r.se_multicut, r.q_threats), (8, true, 1));
        assert_eq!(Params { q_threats: 1, ..i }, r);
        assert_eq!(default_for("brazilian"), r, "Brazilian searches as Russian");
        // Turkish: the singular extension with multi-cut as International
        // plays it, with its own clock and no futility pruning.
        assert_eq!(
            default_for("turkish"),
            Params {
                time_soft_percent: 60,
                futility_depth: 0,
                ..i
            }
        );
        assert_eq!(
            Params::parse_over(i, "se-depth=0").unwrap().se_depth,
            0,
            "KONDAVO_TUNE turns it off"
        );
        let t = Params::parse_over(default_for("turkish"), "futility-depth=1").unwrap();
        assert_eq!(t.futility_depth, 1);
        assert_eq!(
            Params::parse_over(default_for("turkish"), "lmp-depth=2")
                .unwrap()
                .futility_depth,
            0
        );
        assert!(Params::parse("prune-margin")
            .unwrap_err()
            .contains("name=value"));
        assert!(Params::parse("prune-margin=-3")
            .unwrap_err()
            .contains("0 to 1000"));
        assert_eq!(Params::parse("prune-eval=-30").unwrap().prune_eval, -30);
        assert!(Params::parse("prune-eval=-1001")
            .unwrap_err()
            .contains("-1000 to 1000"));
        assert!(Params::parse("speed=9")
            .unwrap_err()
            .contains("unknown parameter"));
        for name in NAMES {
            assert!(Params::parse(&format!("{name}=2")).is_ok(), "{name}");
        }
    }
}
