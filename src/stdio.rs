//! Standard output and standard error of the program, where a closed pipe
//! ends the process quietly.
//!
//! Rust starts every program with SIGPIPE ignored, so a write to a pipe
//! whose reader has gone (`kondavo perft --divide | head -1`, a Hub GUI
//! that closed its end) fails with [`io::ErrorKind::BrokenPipe`] instead
//! of killing the process, and `println!` turns that failure into a panic
//! (an abort in release builds). The crate forbids unsafe code, so the
//! signal cannot be given back its default action; instead every line of
//! the command line goes through [`out`] or [`err`] (and the Hub's output
//! through [`Stdout`]), which end the process at once with
//! [`BROKEN_PIPE_STATUS`] and write nothing more.

use std::fmt::Display;
use std::io::{self, Write};

/// The exit status after a write to a closed pipe: 128 + 13 (SIGPIPE),
/// what a shell reports for a program that the signal killed, which is
/// the end a pipeline expects of its writer (`set -o pipefail` scripts,
/// and shells that say nothing about a 141, treat it as such).
pub const BROKEN_PIPE_STATUS: i32 = 141;

/// Ends the process on a closed pipe; hands every other result back.
fn closed_pipe_ends<T>(result: io::Result<T>) -> io::Result<T> {
    match result {
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => {
            // Nothing to say: nobody reads, and stderr may be the same pipe.
            std::process::exit(BROKEN_PIPE_STATUS)
        }
        other => other,
    }
}

/// Writes `line` and a newline to standard output and flushes it (what
/// `println!` does). A closed pipe ends the process with
/// [`BROKEN_PIPE_STATUS`]; any other failure (a full disk) is named on
/// standard error and ends it with status 1.
pub fn out(line: impl Display) {
    let result = {
        let mut lock = io::stdout().lock();
        writeln!(lock, "{line}").and_then(|()| lock.flush())
    };
    if let Err(e) = closed_pipe_ends(result) {
        err(format_args!(
            "kondavo: cannot write to standard output: {e}"
        ));
        std::process::exit(1);
    }
}

/// Writes `line` and a newline to standard error (what `eprintln!` does).
/// A closed pipe ends the process with [`BROKEN_PIPE_STATUS`]; any other
/// failure is ignored, since there is nowhere left to report it.
pub fn err(line: impl Display) {
    let mut lock = io::stderr().lock();
    let _ = closed_pipe_ends(writeln!(lock, "{line}"));
}

/// Standard output as a [`Write`]r, for the Hub loop's protocol output
/// (`protocol::Output::stdout`): a closed pipe ends the process with
/// [`BROKEN_PIPE_STATUS`], other failures are returned.
#[derive(Clone, Copy, Debug, Default)]
pub struct Stdout;

impl Write for Stdout {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        closed_pipe_ends(io::stdout().write(buf))
    }

    fn write_all(&mut self, buf: &[u8]) -> io::Result<()> {
        closed_pipe_ends(io::stdout().write_all(buf))
    }

    fn flush(&mut self) -> io::Result<()> {
        closed_pipe_ends(io::stdout().flush())
    }
}
