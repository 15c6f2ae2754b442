//! Every command of the README's shell examples runs as written: each
//! `sh` block's lines (continuations joined, comments and `cargo` lines
//! left out: those build the binary under test) run in order, in one
//! scratch directory, with this build's `kondavo` first on the `PATH`.
//! A command that fails, or prints nothing, fails the test.

use std::path::{Path, PathBuf};
use std::process::Command;

/// The commands of the `sh` blocks of `markdown`, in order.
fn shell_commands(markdown: &str) -> Vec<String> {
    let mut commands = Vec::new();
    let mut in_sh = false;
    let mut pending = String::new();
    for line in markdown.lines() {
        let trimmed = line.trim();
        if trimmed.starts_with("```") {
            in_sh = !in_sh && trimmed == "```sh";
            continue;
        }
        if !in_sh || trimmed.is_empty() || trimmed.starts_with('#') {
            continue;
        }
        if let Some(head) = trimmed.strip_suffix('\\') {
            pending.push_str(head.trim_end());
            pending.push(' ');
            continue;
        }
        pending.push_str(trimmed);
        let command = std::mem::take(&mut pending);
        if !command.starts_with("cargo ") {
            commands.push(command);
        }
    }
    commands
}

fn scratch_dir() -> PathBuf {
    let dir = std::env::temp_dir().join(format!("kondavo-readme-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[test]
fn the_parser_finds_commands_and_skips_the_rest() {
    let md = "text\n```sh\ncargo test   # the tests\n# a comment\nkondavo a \\\n    --b c\n```\n```rust\nkondavo not_shell\n```\n```sh\nkondavo d\n```\n";
    assert_eq!(shell_commands(md), vec!["kondavo a --b c", "kondavo d"]);
}

#[test]
fn every_readme_command_runs_as_written() {
    let readme = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md"))
        .expect("README.md");
    let commands = shell_commands(&readme);
    // The README has an example for each use: GUI, analysis, match,
    // databases, learning.
    for needle in [
        "| kondavo",
        "kondavo analyse",
        "kondavo match",
        "kondavo egdb build",
        "kondavo train",
    ] {
        assert!(
            commands.iter().any(|c| c.contains(needle)),
            "no README command contains {needle:?}: {commands:?}"
        );
    }
    let bin = PathBuf::from(env!("CARGO_BIN_EXE_kondavo"));
    let path = format!(
        "{}:{}",
        bin.parent().unwrap().display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let dir = scratch_dir();
    for command in &commands {
        let out = Command::new("sh")
            .arg("-c")
            .arg(command)
            .current_dir(&dir)
            .env("PATH", &path)
            .output()
            .expect("run sh");
        let stdout = String::from_utf8_lossy(&out.stdout);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            out.status.success(),
            "README command failed: {command}\nstatus: {:?}\nstdout:\n{stdout}\nstderr:\n{stderr}",
            out.status
        );
        assert!(
            !stdout.trim().is_empty(),
            "README command printed nothing: {command}\nstderr:\n{stderr}"
        );
        if command.contains("| kondavo") {
            assert!(
                stdout.contains("done move="),
                "the Hub example found no move:\n{stdout}"
            );
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}
