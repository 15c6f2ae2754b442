//! `kondavo match` with external Hub engines: small shell-script engines
//! that fail on purpose, and `kondavo hub` behind a script that records
//! what it is sent. Games are tiny (fixed depth, few plies).
#![cfg(unix)]

mod common;
use common::{kondavo, script, KONDAVO};

/// A fresh directory for one test.
fn dir(test: &str) -> String {
    common::fresh_dir("kondavo-match", test)
        .to_string_lossy()
        .to_string()
}

/// A minimal Hub engine: the handshake, `pong`, and `go` handled by
/// `on_go` (shell commands).
fn fake_engine(dir: &str, name: &str, id: &str, on_go: &str) -> String {
    script(
        dir,
        name,
        &format!(
            r#"while read -r line; do
  case "$line" in
    hub) echo "id name={id} version=1"; echo 'param name=variant value=normal type=enum values="normal english"'; echo wait;;
    init) echo ready;;
    ping) echo pong;;
    go*) {on_go};;
    quit) exit 0;;
  esac
done
"#
        ),
    )
}

fn result_games(stdout: &str) -> u32 {
    let last = stdout.lines().last().unwrap_or("");
    let i = last
        .find("games=")
        .unwrap_or_else(|| panic!("no result in '{last}'"));
    last[i + 6..]
        .split_whitespace()
        .next()
        .unwrap()
        .parse()
        .unwrap()
}

/// `endings: a 1, b 2`: the counts per kind.
fn endings(stdout: &str) -> Vec<(String, u32)> {
    let line = stdout
        .lines()
        .find_map(|l| l.strip_prefix("endings: "))
        .unwrap_or_else(|| panic!("no endings line in {stdout}"));
    line.split(", ")
        .map(|p| {
            let (k, n) = p.rsplit_once(' ').unwrap();
            (k.to_string(), n.parse().unwrap())
        })
        .collect()
}

/// A missing program, a program that is no Hub engine, one that never
/// finishes the handshake and one without the variant: each stops the match
/// before any game with an error and no result line.
#[test]
fn an_engine_that_cannot_play_stops_the_match_at_once() {
    let d = dir("nostart");
    let silent = script(&d, "silent", "while read -r line; do :; done\n");
    let international_only = script(
        &d,
        "intl",
        "while read -r line; do case \"$line\" in hub) echo 'id name=intl'; echo wait;; init) echo ready;; esac; done\n",
    );
    let version = format!("{KONDAVO} --version");
    let cases: [(&str, &str, &str); 4] = [
        (
            "/nonexistent/engine hub",
            "international",
            "cannot start '/nonexistent/engine hub'",
        ),
        (
            &version,
            "international",
            "the engine exited while waiting for 'wait' after 'hub'",
        ),
        (
            &silent,
            "international",
            "no 'wait' within 1.0 s after 'hub'",
        ),
        (
            &international_only,
            "english",
            "declares no 'variant' parameter",
        ),
    ];
    for (engine, variant, why) in cases {
        let (out, err, ok) = kondavo(&[
            "match",
            "--variant",
            variant,
            "--games",
            "200",
            "--a",
            "kondavo:depth=1",
            "--b",
            engine,
            "--start-timeout",
            "1",
            "--engine-log",
            &format!("{d}/engines.log"),
        ]);
        assert!(!ok, "{engine}: {out}");
        assert!(!out.contains("result"), "{engine}: {out}");
        assert!(
            err.contains("engine B (") && err.contains(why),
            "{engine}: {err}"
        );
    }
}

/// An engine that dies during its first game loses it by forfeit, is
/// restarted, and plays the next game; the forfeit is named in the output
/// and in the PDN, and its stderr and exit are in the engine log.
#[test]
fn an_engine_that_dies_is_restarted_and_its_game_forfeited() {
    let d = dir("phoenix");
    let pdn = format!("{d}/games.pdn");
    let engine = script(
        &d,
        "phoenix",
        r#"marker="$0.started"
if [ -e "$marker" ]; then exec KONDAVO hub; fi
touch "$marker"
echo "phoenix: about to die" >&2
while read -r line; do
  case "$line" in
    hub) echo "id name=phoenix"; echo 'param name=variant value=normal type=enum values="normal"'; echo wait;;
    init) echo ready;;
    ping) echo pong;;
    go*) exit 3;;
  esac
done
"#,
    );
    let (out, err, ok) = kondavo(&[
        "match",
        "--games",
        "2",
        "--max-plies",
        "40",
        "--a",
        "kondavo:depth=2",
        "--b",
        &engine,
        "--b-option",
        "depth=2",
        "--pdn",
        &pdn,
    ]);
    assert!(ok, "{out}\n{err}");
    assert_eq!(result_games(&out), 2, "{out}");
    let forfeit = "forfeit: game 1: forfeit (engine failure): phoenix (Black): the engine exited while thinking (exit status: 3)";
    assert!(out.contains(forfeit), "{out}");
    assert!(err.contains(forfeit), "{err}");
    let e = endings(&out);
    assert!(e.contains(&("forfeit (engine failure)".into(), 1)), "{out}");
    assert_eq!(e.iter().map(|(_, n)| n).sum::<u32>(), 2, "{out}");
    let text = std::fs::read_to_string(&pdn).unwrap();
    assert_eq!(text.matches("[Event ").count(), 2);
    assert!(
        text.contains("[Termination \"forfeit (engine failure): phoenix (Black)"),
        "{text}"
    );
    assert!(text.contains("[Black \"phoenix\"]"), "{text}");
    // Game 2 was played to its end by the restarted engine.
    assert_eq!(text.matches("forfeit").count(), 1, "{text}");
    let log = std::fs::read_to_string(format!("{d}/games.engines.log")).unwrap();
    assert!(log.contains("stderr: phoenix: about to die"), "{log}");
    assert!(log.contains("exit status: 3"), "{log}");
}

/// An engine that fails every game stops the match after --max-failures
/// failures in a row, with an error and no result.
#[test]
fn an_engine_failing_game_after_game_stops_the_match() {
    let d = dir("failing");
    let pdn = format!("{d}/games.pdn");
    let engine = fake_engine(&d, "dies", "dies", "exit 1");
    let (out, err, ok) = kondavo(&[
        "match",
        "--games",
        "10",
        "--a",
        "kondavo:depth=1",
        "--b",
        &engine,
        "--max-failures",
        "2",
        "--pdn",
        &pdn,
    ]);
    assert!(!ok, "{out}");
    assert!(!out.contains("result"), "{out}");
    assert!(
        err.contains("engine B (dies) failed 2 games in a row (--max-failures 2)"),
        "{err}"
    );
    let text = std::fs::read_to_string(&pdn).unwrap();
    assert_eq!(text.matches("[Event ").count(), 2);
}

/// A slow move: lost on time with the default margin, accepted (and found
/// illegal) with a larger --time-margin. Both forfeits are named.
#[test]
fn the_time_margin_is_an_option_and_forfeits_are_named() {
    let d = dir("slow");
    let engine = fake_engine(&d, "slow", "slowpoke", "sleep 0.5; echo 'done move=1-2'");
    let run = |margin: &str| {
        kondavo(&[
            "match",
            "--games",
            "2",
            "--movetime",
            "0.05",
            "--time-margin",
            margin,
            "--a",
            "kondavo:depth=1",
            "--b",
            &engine,
            "--engine-log",
            &format!("{d}/engines.log"),
        ])
    };
    let (out, err, ok) = run("0.1");
    assert!(ok, "{out}\n{err}");
    assert!(
        out.contains("result games=2 wins=2 draws=0 losses=0"),
        "{out}"
    );
    assert!(
        out.contains("forfeit: game 1: forfeit (time): slowpoke (Black): no move within 0.050 s (and a margin of 0.100 s)"),
        "{out}"
    );
    assert!(
        endings(&out).contains(&("forfeit (time)".into(), 2)),
        "{out}"
    );
    let (out, err, ok) = run("5");
    assert!(ok, "{out}\n{err}");
    assert!(
        out.contains("forfeit: game 2: forfeit (illegal move): slowpoke (White): sent '1-2', not a legal move"),
        "{out}"
    );
    assert!(
        endings(&out).contains(&("forfeit (illegal move)".into(), 2)),
        "{out}"
    );
}

/// Time odds: an engine's `tc=` gives it its own clock. A slow engine (half
/// a second a move) loses on time at the match's 0.2 s clock, but with
/// `tc=30+0` it has the time and loses by its illegal move instead; the PDN
/// names each side's clock.
#[test]
fn an_engine_option_gives_that_engine_its_own_clock() {
    let d = dir("odds");
    let engine = fake_engine(&d, "slow", "slowpoke", "sleep 0.5; echo 'done move=1-2'");
    let run = |b: String, pdn: &str| {
        kondavo(&[
            "match",
            "--games",
            "2",
            "--tc",
            "0.2+0",
            "--time-margin",
            "0.1",
            "--a",
            "kondavo:depth=1",
            "--b",
            &b,
            "--pdn",
            &format!("{d}/{pdn}"),
        ])
    };
    let (out, err, ok) = run(engine.clone(), "even.pdn");
    assert!(ok, "{out}\n{err}");
    assert!(
        endings(&out).contains(&("forfeit (time)".into(), 2)),
        "{out}"
    );
    let even = std::fs::read_to_string(format!("{d}/even.pdn")).unwrap();
    assert!(even.contains("[TimeControl \"0.2+0\"]"), "{even}");
    assert!(!even.contains("WhiteTimeControl"), "{even}");

    let (out, err, ok) = run(format!("cmd={engine},tc=30+0"), "odds.pdn");
    assert!(ok, "{out}\n{err}");
    assert!(
        endings(&out).contains(&("forfeit (illegal move)".into(), 2)),
        "{out}"
    );
    let odds = std::fs::read_to_string(format!("{d}/odds.pdn")).unwrap();
    // Game 1: kondavo has White (the match's clock), slowpoke Black.
    assert!(
        odds.contains("[WhiteTimeControl \"0.2+0\"]\n[BlackTimeControl \"30+0\"]"),
        "{odds}"
    );
    assert!(
        odds.contains("[WhiteTimeControl \"30+0\"]\n[BlackTimeControl \"0.2+0\"]"),
        "{odds}"
    );
    let (out, _, ok) = run(format!("cmd={engine},tc=0.1/move"), "bad.pdn");
    assert!(!ok, "{out}");
}

/// What an external engine is sent: the documented handshake with its
/// options as set-param, new-game and ping before each game, and with
/// history=game the game's initial position and every move. Names come
/// from `id name=` and `name=`; the engine's stderr goes to the log next
/// to the PDN; moves carry [%emt]; without a terminal progress lines go to
/// stderr; the endings add up to the games.
#[test]
fn options_history_names_and_log_of_an_external_engine() {
    let d = dir("teed");
    let pdn = format!("{d}/games.pdn");
    let engine = script(
        &d,
        "teed",
        "echo 'teed: started' >&2\ntee -a \"$0.in\" | KONDAVO hub\n",
    );
    let (out, err, ok) = kondavo(&[
        "match",
        "--variant",
        "russian",
        "--games",
        "2",
        "--max-plies",
        "30",
        "--a",
        "kondavo:depth=2",
        "--a-option",
        "name=Inside",
        "--b",
        &format!("cmd={engine},hash=32,threads=1,param.multipv=1"),
        "--b-option",
        "depth=2",
        "--each",
        "history=game",
        "--pdn",
        &pdn,
        "--progress-interval",
        "0",
    ]);
    assert!(ok, "{out}\n{err}");
    assert_eq!(result_games(&out), 2);
    assert!(
        out.contains(&format!("engine B: kondavo ({engine})")),
        "{out}"
    );
    assert_eq!(
        endings(&out).iter().map(|(_, n)| n).sum::<u32>(),
        2,
        "{out}"
    );
    for k in 1..=2 {
        assert!(err.contains(&format!("progress: {k}/2 games, A ")), "{err}");
    }
    assert!(err.contains("games/min"), "{err}");

    let sent = std::fs::read_to_string(format!("{engine}.in")).unwrap();
    let lines: Vec<&str> = sent.lines().collect();
    assert_eq!(
        lines[..9],
        [
            "hub",
            "set-param name=variant value=russian",
            "set-param name=threads value=1",
            "set-param name=hash value=32",
            "set-param name=book value=false",
            "set-param name=multipv value=1",
            "init",
            "new-game",
            "ping",
        ],
        "{sent}"
    );
    assert_eq!(lines.iter().filter(|l| **l == "new-game").count(), 2);
    assert_eq!(
        lines.iter().filter(|l| **l == "level depth=2").count(),
        lines.iter().filter(|l| **l == "go think").count()
    );
    // history=game: within a game every pos has the same initial position
    // and two more moves than the last.
    let mut last: Option<(String, usize)> = None;
    let mut checked = 0;
    for l in &lines {
        if *l == "new-game" {
            last = None;
        }
        let Some(rest) = l.strip_prefix("pos pos=") else {
            continue;
        };
        let (base, moves) = match rest.split_once(" moves=\"") {
            Some((b, m)) => (b.to_string(), m.trim_end_matches('"').split(' ').count()),
            None => (rest.to_string(), 0),
        };
        if let Some((b, n)) = &last {
            assert_eq!((b, n + 2), (&base, moves), "{sent}");
            checked += 1;
        }
        last = Some((base, moves));
    }
    assert!(checked > 5, "{sent}");

    let text = std::fs::read_to_string(&pdn).unwrap();
    assert!(
        text.contains("[White \"Inside\"]") && text.contains("[Black \"kondavo\"]"),
        "{text}"
    );
    assert!(!text.contains(&engine), "{text}");
    assert!(text.contains("[%emt 0:00:0"), "{text}");
    let log = std::fs::read_to_string(format!("{d}/games.engines.log")).unwrap();
    assert!(log.contains("stderr: teed: started"), "{log}");
}

/// --resume matches engines by name: the same engine under another command
/// line continues the match; another name is refused.
#[test]
fn resume_matches_engines_by_name() {
    let d = dir("resume");
    let pdn = format!("{d}/games.pdn");
    let run = |games: &str, b: &str, extra: &[&str]| {
        let mut args = vec![
            "match",
            "--variant",
            "english",
            "--games",
            games,
            "--max-plies",
            "30",
            "--a",
            "kondavo:depth=1",
            "--b",
            b,
            "--b-option",
            "depth=1",
            "--pdn",
            &pdn,
        ];
        args.extend_from_slice(extra);
        kondavo(&args)
    };
    let (out, err, ok) = run("2", &format!("{KONDAVO} hub"), &[]);
    assert!(ok, "{out}\n{err}");
    let (out, err, ok) = run(
        "4",
        &format!("cmd={KONDAVO} hub,history=game"),
        &["--resume"],
    );
    assert!(ok, "{out}\n{err}");
    assert!(out.contains("resume: 2 games already played"), "{out}");
    assert_eq!(result_games(&out), 4);
    let (out, err, ok) = run("6", &format!("cmd={KONDAVO} hub,name=other"), &["--resume"]);
    assert!(!ok, "{out}");
    assert!(err.contains("engines are matched by name"), "{err}");
}
