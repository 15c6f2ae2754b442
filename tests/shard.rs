//! Sharded self-play and matches: `--shard i/n` plays the single run's
//! games at its indices, and `--merge` puts the shards back together, byte
//! for byte the single run's self-play file, and the single run's result
//! lines (with an SPRT, stopping where the single run stops). Also
//! `train --data <folder>` and `scripts/shards-local.sh`.
#![cfg(unix)]

mod common;
use std::collections::BTreeMap;

use common::kondavo;
use kondavo::notation::pdn::parse_pdn;

const KONDAVO: &str = env!("CARGO_BIN_EXE_kondavo");

/// A fresh directory for one test.
fn dir(test: &str) -> String {
    let d = std::env::temp_dir().join(format!("kondavo-shard-{}-{test}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d.to_string_lossy().to_string()
}

/// Runs kondavo; panics with its output unless it succeeds.
fn ok(args: &[&str]) -> String {
    let (out, err, success) = kondavo(args);
    assert!(success, "kondavo {args:?} failed:\n{out}\n{err}");
    out
}

/// Runs kondavo; panics unless it fails. Returns stderr.
fn fails(args: &[&str]) -> String {
    let (out, err, success) = kondavo(args);
    assert!(!success, "kondavo {args:?} should fail:\n{out}\n{err}");
    err
}

const SELFPLAY: [&str; 9] = [
    "selfplay",
    "--variant",
    "english",
    "--nodes",
    "150",
    "--seed",
    "7",
    "--max-plies",
    "120",
];

/// `selfplay` with the common settings, `games` games, into `out`.
fn selfplay(games: &str, out: &str, extra: &[&str]) -> String {
    let mut args = SELFPLAY.to_vec();
    args.extend(["--games", games, "--out", out]);
    args.extend(extra);
    ok(&args)
}

#[test]
fn selfplay_shards_merge_into_the_single_runs_file() {
    let d = dir("selfplay");
    let single = format!("{d}/single.kdsp");
    selfplay("12", &single, &["--threads", "2"]);
    let shards: Vec<String> = (0..3).map(|i| format!("{d}/shards/s{i}.kdsp")).collect();
    std::fs::create_dir_all(format!("{d}/shards")).unwrap();
    for (i, s) in shards.iter().enumerate() {
        let out = selfplay("12", s, &["--shard", &format!("{i}/3"), "--threads", "1"]);
        assert!(
            out.contains("selfplay games=4 ") && out.contains(&format!("shard={i}/3 of 12 games")),
            "{out}"
        );
        // The shard is recorded in the file's settings.
        let bytes = std::fs::read(s).unwrap();
        let h = kondavo::tools::selfplay::read_header(&bytes).unwrap();
        assert!(
            h.settings.unwrap().ends_with(&format!(" shard={i}/3")),
            "shard {i}"
        );
    }
    let merged = format!("{d}/merged.kdsp");
    // The files in any order.
    let out = ok(&[
        "selfplay", "--merge", &merged, &shards[2], &shards[0], &shards[1],
    ]);
    assert!(out.contains("merge games=12 "), "{out}");
    let (a, b) = (
        std::fs::read(&single).unwrap(),
        std::fs::read(&merged).unwrap(),
    );
    assert!(a.len() > 12 * 13);
    assert!(a == b, "the merged file differs from the single run's");

    // The merge refuses an existing output, a missing shard, a file that
    // is no shard's, and a shard count that is not the whole run's.
    let err = fails(&[
        "selfplay", "--merge", &merged, &shards[0], &shards[1], &shards[2],
    ]);
    assert!(err.contains("exists"), "{err}");
    let other = format!("{d}/other.kdsp");
    let err = fails(&["selfplay", "--merge", &other, &shards[0], &shards[1]]);
    assert!(err.contains("shard 2/3 is missing"), "{err}");
    let err = fails(&["selfplay", "--merge", &other, &shards[0], &single]);
    assert!(err.contains("single.kdsp is not a shard's file"), "{err}");
    let err = fails(&[
        "selfplay", "--merge", &other, &shards[0], &shards[1], &shards[2], "--games", "13",
    ]);
    assert!(
        err.contains("s0.kdsp (shard 0/3) has 4 games, but in a run of 13 games shard 0/3 has 5")
            && err.contains("--resume"),
        "{err}"
    );
    assert!(!std::path::Path::new(&other).exists());

    // train reads a folder's .kdsp files: the shards hold the single
    // run's positions.
    let loaded = |data: &str| {
        let out = ok(&[
            "train",
            "--variant",
            "english",
            "--data",
            data,
            "--out",
            &format!("{d}/w.kdw"),
            "--epochs",
            "1",
            "--scale",
            "300",
        ]);
        std::fs::remove_file(format!("{d}/w.kdw")).unwrap();
        out.lines()
            .find(|l| l.contains(" positions from "))
            .unwrap_or_else(|| panic!("{out}"))
            .split(" loaded")
            .next()
            .unwrap()
            .to_string()
    };
    let from_folder = loaded(&format!("{d}/shards"));
    assert!(from_folder.ends_with("from 12 games"), "{from_folder}");
    assert_eq!(from_folder, loaded(&merged));
    let err = fails(&[
        "train",
        "--variant",
        "english",
        "--data",
        &d,
        "--data",
        &format!("{d}/nothing"),
        "--out",
        &format!("{d}/w.kdw"),
    ]);
    assert!(err.contains("nothing"), "{err}");
    std::fs::create_dir_all(format!("{d}/empty")).unwrap();
    let err = fails(&[
        "train",
        "--variant",
        "english",
        "--data",
        &format!("{d}/empty"),
        "--out",
        &format!("{d}/w.kdw"),
    ]);
    assert!(err.contains("without .kdsp files"), "{err}");
}

#[test]
fn selfplay_shards_resume_and_are_checked() {
    let d = dir("resume");
    for bad in ["3/3", "0/0", "1", "x/2"] {
        let err = fails(&[
            "selfplay",
            "--variant",
            "english",
            "--nodes",
            "100",
            "--games",
            "4",
            "--out",
            &format!("{d}/bad.kdsp"),
            "--shard",
            bad,
        ]);
        assert!(err.contains("--shard"), "{bad}: {err}");
    }
    let err = fails(&[
        "selfplay",
        "--variant",
        "english",
        "--nodes",
        "100",
        "--games",
        "4",
        "--out",
        &format!("{d}/bad.kdsp"),
        "--shard",
        "3/3",
    ]);
    assert!(err.contains("0 to 2"), "{err}");

    // Shard 1 of 3 of a 6-game run (games 1 and 4), resumed to 12 games
    // (7 and 10 more), is shard 1 of a 12-game run.
    let part = format!("{d}/part.kdsp");
    let out = selfplay("6", &part, &["--shard", "1/3"]);
    assert!(out.contains("selfplay games=2 "), "{out}");
    let out = selfplay("12", &part, &["--shard", "1/3", "--resume"]);
    assert!(
        out.contains("resuming") && out.contains("selfplay games=4 "),
        "{out}"
    );
    let whole = format!("{d}/whole.kdsp");
    selfplay("12", &whole, &["--shard", "1/3"]);
    assert!(std::fs::read(&part).unwrap() == std::fs::read(&whole).unwrap());

    // A torn last game is cut off on resume, as without shards.
    let bytes = std::fs::read(&whole).unwrap();
    std::fs::write(&whole, &bytes[..bytes.len() - 5]).unwrap();
    let out = selfplay("12", &whole, &["--shard", "1/3", "--resume"]);
    assert!(out.contains("torn"), "{out}");
    assert!(std::fs::read(&whole).unwrap() == bytes);

    // Another shard's file, or a single run's, is not resumed.
    let args: Vec<&str> = SELFPLAY
        .iter()
        .copied()
        .chain([
            "--games", "12", "--out", &whole, "--shard", "2/3", "--resume",
        ])
        .collect();
    let err = fails(&args);
    assert!(
        err.contains("was made with shard=1/3, this run has shard=2/3"),
        "{err}"
    );
    let args: Vec<&str> = SELFPLAY
        .iter()
        .copied()
        .chain(["--games", "12", "--out", &whole, "--resume"])
        .collect();
    let err = fails(&args);
    assert!(
        err.contains("was made with shard=1/3, this run has no shard"),
        "{err}"
    );

    // A shard cut short is named at the merge.
    let mut shards = Vec::new();
    for i in 0..3 {
        let s = format!("{d}/m{i}.kdsp");
        let games = if i == 0 { "9" } else { "12" };
        selfplay(games, &s, &["--shard", &format!("{i}/3")]);
        shards.push(s);
    }
    let err = fails(&[
        "selfplay",
        "--merge",
        &format!("{d}/m.kdsp"),
        &shards[0],
        &shards[1],
        &shards[2],
    ]);
    assert!(
        err.contains("m0.kdsp (shard 0/3) has 3 games, but in a run of 11 games shard 0/3 has 4")
            && err.contains(
                "finish it with `selfplay --shard 0/3 --games <the run's games> --resume`"
            ),
        "{err}"
    );
}

/// The games of a match PDN by round, without what changes from run to
/// run (the date and the time each move took).
fn games_by_round(paths: &[String]) -> BTreeMap<usize, String> {
    let mut games = BTreeMap::new();
    for p in paths {
        let text = std::fs::read_to_string(p).unwrap();
        let n = parse_pdn(&text).into_iter().map(Result::unwrap).count();
        let chunks: Vec<&str> = text.split("[Event ").skip(1).collect();
        assert_eq!(chunks.len(), n, "{p}");
        for chunk in chunks {
            let round: usize = chunk
                .split("[Round \"")
                .nth(1)
                .and_then(|r| r.split('"').next())
                .unwrap()
                .parse()
                .unwrap();
            // The words, whatever the lines they are wrapped on.
            let mut kept = chunk
                .lines()
                .filter(|l| !l.starts_with("[Date "))
                .flat_map(str::split_whitespace)
                .collect::<Vec<_>>()
                .join(" ");
            // `[%emt 0:00:00.01]` comments.
            while let Some(i) = kept.find("[%emt ") {
                let j = i + kept[i..].find(']').unwrap() + 1;
                kept.replace_range(i..j, "");
            }
            assert!(kept.contains("[%eval "), "{kept}");
            assert!(games.insert(round, kept).is_none(), "round {round} twice");
        }
    }
    games
}

/// The lines of `out` from the `endings:` line on (the engine lines name
/// the engines' commands, which the merge does not know).
fn from_endings(out: &str) -> Vec<&str> {
    out.lines()
        .skip_while(|l| !l.starts_with("endings:"))
        .collect()
}

const MATCH: [&str; 9] = [
    "match",
    "--variant",
    "english",
    "--games",
    "8",
    "--a",
    "kondavo:nodes=300",
    "--b",
    "kondavo:nodes=200",
];

#[test]
fn match_shards_merge_into_the_single_runs_result() {
    let d = dir("match");
    let single = format!("{d}/single.pdn");
    // Two games at a time: each game is the same whatever plays beside it.
    let args: Vec<&str> = MATCH
        .iter()
        .copied()
        .chain(["--pdn", &single, "--concurrency", "2"])
        .collect();
    let whole = ok(&args);
    let sprt = "0,200,0.3,0.3";
    let mut shards = Vec::new();
    for i in 0..2 {
        let pdn = format!("{d}/shard{i}.pdn");
        let shard = format!("{i}/2");
        let args: Vec<&str> = MATCH
            .iter()
            .copied()
            .chain(["--pdn", &pdn, "--shard", &shard, "--sprt", sprt])
            .collect();
        let out = ok(&args);
        // The shard plays all its games, whatever the SPRT says.
        assert!(
            out.contains(&format!("shard {i}/2: 4 of the match's 8 games")),
            "{out}"
        );
        assert!(
            out.lines().last().unwrap().starts_with("result games=4 "),
            "{out}"
        );
        assert!(!out.contains("sprt elo0"), "{out}");
        shards.push(pdn);
    }
    let rounds = games_by_round(&shards);
    assert_eq!(
        rounds.keys().copied().collect::<Vec<_>>(),
        (1..=8).collect::<Vec<_>>()
    );
    let alone = games_by_round(std::slice::from_ref(&single));
    for (r, g) in &rounds {
        assert_eq!(Some(g), alone.get(r), "game {r}");
    }
    assert_eq!(rounds.len(), alone.len());
    // Shard 0 holds the odd rounds (games 0, 2, ...).
    assert!(std::fs::read_to_string(&shards[0])
        .unwrap()
        .contains("[Round \"7\"]"));

    let merged = ok(&["match", "--merge", &shards[1], &shards[0], "--games", "8"]);
    assert!(
        whole.lines().last().unwrap().starts_with("result games=8 "),
        "{whole}"
    );
    assert_eq!(
        from_endings(&merged),
        from_endings(&whole),
        "{merged}\n{whole}"
    );
    assert!(
        merged.contains("engine A: kondavo:nodes=300\nengine B: kondavo:nodes=200\n"),
        "{merged}"
    );

    // With the SPRT: the single run, one game at a time, stops where the
    // SPRT decides; the merge of the shards' games stops there too.
    let sprt_pdn = format!("{d}/sprt.pdn");
    let args: Vec<&str> = MATCH
        .iter()
        .copied()
        .chain(["--pdn", &sprt_pdn, "--sprt", sprt])
        .collect();
    let whole = ok(&args);
    let merged = ok(&["match", "--merge", &shards[0], &shards[1], "--sprt", sprt]);
    assert_eq!(
        from_endings(&merged).last(),
        from_endings(&whole).last(),
        "{merged}\n{whole}"
    );
    let sprt_line = |out: &str| {
        out.lines()
            .find(|l| l.starts_with("sprt "))
            .map(str::to_string)
    };
    assert!(sprt_line(&whole).is_some(), "{whole}");
    assert_eq!(sprt_line(&merged), sprt_line(&whole));
    let stopped: usize = whole
        .lines()
        .last()
        .unwrap()
        .split("games=")
        .nth(1)
        .and_then(|x| x.split(' ').next())
        .unwrap()
        .parse()
        .unwrap();
    if stopped < 8 {
        assert!(
            merged.contains(&format!(
                "the SPRT decided at game {stopped} of the 8 the shards played"
            )),
            "{merged}"
        );
    }

    // Every game once: a missing shard, or the same twice, is named.
    let err = fails(&["match", "--merge", &shards[0], "--games", "8"]);
    assert!(err.contains("game 2 is in none of the files"), "{err}");
    let err = fails(&["match", "--merge", &shards[0], &shards[0]]);
    assert!(err.contains("each game must be in one file only"), "{err}");
    let err = fails(&["match", "--merge", &shards[0], &shards[1], "--games", "10"]);
    assert!(err.contains("a match of --games 10"), "{err}");
    // A shard needs its own PDN.
    let args: Vec<&str> = MATCH.iter().copied().chain(["--shard", "0/2"]).collect();
    assert!(fails(&args).contains("--shard needs --pdn"));
    let x = format!("{d}/x.pdn");
    let args: Vec<&str> = MATCH
        .iter()
        .copied()
        .chain(["--shard", "2/2", "--pdn", &x])
        .collect();
    assert!(fails(&args).contains("0 to 1"));
}

#[test]
fn match_shard_resumes_its_own_games_only() {
    let d = dir("match-resume");
    let pdn = format!("{d}/s1.pdn");
    let run = |shard: &str, games: &str, resume: bool| {
        let mut args: Vec<&str> = MATCH.to_vec();
        args[4] = games;
        args.extend(["--pdn", &pdn, "--shard", shard, "--max-plies", "40"]);
        if resume {
            args.push("--resume");
        }
        kondavo(&args)
    };
    let (out, err, success) = run("1/2", "4", false);
    assert!(success, "{out}{err}");
    assert!(out.contains("2 of the match's 4 games"), "{out}");
    let (out, err, success) = run("1/2", "8", true);
    assert!(success, "{out}{err}");
    assert!(
        out.contains("resume: 2 games already played") && out.contains("4 of the match's 8"),
        "{out}"
    );
    let text = std::fs::read_to_string(&pdn).unwrap();
    let rounds: Vec<&str> = text
        .lines()
        .filter_map(|l| l.strip_prefix("[Round \""))
        .collect();
    assert_eq!(rounds, ["2\"]", "4\"]", "6\"]", "8\"]"]);
    let (out, err, success) = run("0/2", "8", true);
    assert!(!success, "{out}");
    assert!(
        err.contains("game 2 in") && err.contains("not one of shard 0/2's games"),
        "{err}"
    );
}

#[test]
fn the_local_shards_script_makes_a_generation() {
    let d = dir("script");
    let root = env!("CARGO_MANIFEST_DIR");
    let out = std::process::Command::new("bash")
        .arg(format!("{root}/scripts/shards-local.sh"))
        .env("KONDAVO", KONDAVO)
        .env("VARIANT", "turkish")
        .env("GAMES", "10")
        .env("NODES", "100")
        .env("SHARDS", "3")
        .env("SEED", "4")
        .env("EPOCHS", "1")
        .env("SELFPLAY_OPTIONS", "--max-plies 60")
        .env("WORK", &d)
        .output()
        .unwrap();
    let (stdout, stderr) = (
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr),
    );
    assert!(out.status.success(), "{stdout}\n{stderr}");
    assert!(stdout.contains("merge games=10 "), "{stdout}");
    let merged = format!("{d}/turkish-gen4.kdsp");
    let single = format!("{d}/single.kdsp");
    ok(&[
        "selfplay",
        "--variant",
        "turkish",
        "--games",
        "10",
        "--nodes",
        "100",
        "--seed",
        "4",
        "--max-plies",
        "60",
        "--out",
        &single,
    ]);
    assert!(std::fs::read(&merged).unwrap() == std::fs::read(&single).unwrap());
    assert!(
        std::path::Path::new(&format!("{d}/turkish-gen4.kdw")).exists(),
        "{stdout}"
    );
    // Run again: the shards are complete, the merge is made again.
    let again = std::process::Command::new("bash")
        .arg(format!("{root}/scripts/shards-local.sh"))
        .env("KONDAVO", KONDAVO)
        .env("VARIANT", "turkish")
        .env("GAMES", "10")
        .env("NODES", "100")
        .env("SHARDS", "3")
        .env("SEED", "4")
        .env("TRAIN", "0")
        .env("SELFPLAY_OPTIONS", "--max-plies 60")
        .env("WORK", &d)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&again.stdout);
    assert!(again.status.success(), "{stdout}");
    assert!(stdout.contains("already complete"), "{stdout}");
    assert!(std::fs::read(&merged).unwrap() == std::fs::read(&single).unwrap());

    // scripts/shards-slurm.sh with an `sbatch` that runs each job at once
    // (the array's tasks one after another) and logs its arguments.
    use std::os::unix::fs::PermissionsExt;
    let bin = format!("{d}/bin");
    std::fs::create_dir_all(&bin).unwrap();
    let log = format!("{d}/sbatch.log");
    std::fs::write(
        format!("{bin}/sbatch"),
        format!(
            r#"#!/bin/sh
echo "$@" >> {log}
array=""; script=""
for a in "$@"; do
  case "$a" in --array=*) array="${{a#--array=}}";; --*) ;; *) script="$a";; esac
done
id=$(( $(wc -l < {log}) + 100 ))
if [ -n "$array" ]; then
  i=${{array%-*}}
  while [ "$i" -le "${{array#*-}}" ]; do
    SLURM_JOB_ID=$id SLURM_ARRAY_TASK_ID=$i SLURM_SUBMIT_DIR=$PWD bash "$script" >> {log}.jobs 2>&1 || exit 1
    i=$((i + 1))
  done
else
  SLURM_JOB_ID=$id SLURM_SUBMIT_DIR=$PWD bash "$script" >> {log}.jobs 2>&1 || exit 1
fi
echo "$id"
"#
        ),
    )
    .unwrap();
    std::fs::set_permissions(
        format!("{bin}/sbatch"),
        std::fs::Permissions::from_mode(0o755),
    )
    .unwrap();
    let path = format!("{bin}:{}", std::env::var("PATH").unwrap_or_default());
    let slurm = std::process::Command::new("bash")
        .arg(format!("{root}/scripts/shards-slurm.sh"))
        .env("PATH", path)
        .env("KONDAVO", KONDAVO)
        .env("VARIANT", "turkish")
        .env("GAMES", "10")
        .env("NODES", "100")
        .env("SHARDS", "3")
        .env("SEED", "4")
        .env("NAME", "slurm")
        .env("EPOCHS", "1")
        .env("SELFPLAY_OPTIONS", "--max-plies 60")
        .env("WORK", &d)
        .env("SBATCH_ARGS", "--partition=test")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&slurm.stdout);
    let jobs = std::fs::read_to_string(format!("{log}.jobs")).unwrap_or_default();
    assert!(
        slurm.status.success(),
        "{stdout}\n{}\n{jobs}",
        String::from_utf8_lossy(&slurm.stderr)
    );
    assert!(
        stdout.contains("self-play: job array 101 (3 tasks); merge and training: job 102"),
        "{stdout}"
    );
    let calls = std::fs::read_to_string(&log).unwrap();
    assert!(calls.contains("--partition=test --array=0-2 "), "{calls}");
    assert!(calls.contains("--dependency=afterok:101 "), "{calls}");
    assert!(
        jobs.contains("merge games=10 ") && jobs.contains("weights in "),
        "{jobs}"
    );
    assert!(std::fs::read(format!("{d}/slurm.kdsp")).unwrap() == std::fs::read(&single).unwrap());
    assert!(std::path::Path::new(&format!("{d}/slurm.kdw")).exists());
}
