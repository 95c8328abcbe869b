//! Writing what a command printed. A closed pipe (`brief … | head`) ends the command quietly;
//! any other failure to write (a full disk) is an error: a message on stderr and exit 2, since
//! a caller would otherwise take a truncated or empty output for the answer.

use std::io::{ErrorKind, IsTerminal, Write};
use std::process::ExitCode;

use brief::command::Outcome;

/// How writing stdout went.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Written {
    /// Everything was written.
    All,
    /// The reader went away: nothing more to say.
    Closed,
    /// Writing failed: the message says why.
    Failed(String),
}

/// Writes `bytes` to stdout and flushes. On a terminal, control characters in the text are
/// written out so that none can drive the terminal; to a pipe or a file the bytes are
/// exactly the document.
pub(crate) fn stdout(bytes: &[u8]) -> Written {
    let mut out = std::io::stdout().lock();
    let shown;
    let bytes = if out.is_terminal() {
        shown = brief::command::printable(&String::from_utf8_lossy(bytes)).into_owned();
        shown.as_bytes()
    } else {
        bytes
    };
    match out.write_all(bytes).and_then(|()| out.flush()) {
        Ok(()) => Written::All,
        Err(e) if e.kind() == ErrorKind::BrokenPipe => Written::Closed,
        Err(e) => Written::Failed(format!("error: cannot write the output: {e}")),
    }
}

/// Writes one line to stderr, control characters written out (`brief::command::printable`);
/// a stderr that cannot be written has no one left to tell.
pub(crate) fn note(line: &str) {
    let mut err = std::io::stderr().lock();
    let _ = writeln!(err, "{}", brief::command::printable(line));
}

/// The exit code once `bytes` went to stdout (or failed to) after a command that ended
/// with `code`.
pub(crate) fn finish(bytes: &[u8], code: u8) -> ExitCode {
    match stdout(bytes) {
        Written::All | Written::Closed => ExitCode::from(code),
        Written::Failed(message) => {
            note(&message);
            ExitCode::from(2)
        }
    }
}

/// Prints an outcome: notes to stderr, text to stdout; returns its exit code.
pub(crate) fn emit(outcome: &Outcome) -> ExitCode {
    for line in &outcome.notes {
        note(line);
    }
    if outcome.is_success() && std::io::stderr().is_terminal() {
        for line in &outcome.terminal_notes {
            note(line);
        }
    }
    finish(outcome.text.as_bytes(), outcome.exit)
}
