//! Exit codes and the usage error that maps to exit code 2.

use std::fmt;
use std::io;

/// The command succeeded.
pub const SUCCESS: u8 = 0;
/// The command failed (I/O, database, not found, partial batch failure, ...).
pub const FAILURE: u8 = 1;
/// The command line was wrong: an unknown option, a missing or invalid value.
pub const USAGE: u8 = 2;

/// An invalid command-line value found after parsing; `main` exits with [`USAGE`] for it.
#[derive(Debug)]
pub struct UsageError(pub String);

impl fmt::Display for UsageError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for UsageError {}

/// Builds an `anyhow` error that exits with code 2.
pub fn usage(message: impl Into<String>) -> anyhow::Error {
    anyhow::Error::new(UsageError(message.into()))
}

/// An error's message followed by those of its sources, joined with `: `.
pub fn with_sources(error: &dyn std::error::Error) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(e) = source {
        text.push_str(": ");
        text.push_str(&e.to_string());
        source = e.source();
    }
    text
}

/// The exit code for an error: 2 for usage errors, 0 for a closed stdout pipe, 1 otherwise.
pub fn exit_code(error: &anyhow::Error) -> u8 {
    if is_broken_pipe(error) {
        SUCCESS
    } else if error.chain().any(|e| e.is::<UsageError>()) {
        USAGE
    } else {
        FAILURE
    }
}

/// Whether the error is a write to a pipe whose reader has gone (as in `qr keys list | head -1`).
pub fn is_broken_pipe(error: &anyhow::Error) -> bool {
    error.chain().any(|e| {
        e.downcast_ref::<io::Error>()
            .is_some_and(|io| io.kind() == io::ErrorKind::BrokenPipe)
    })
}

/// The error and its causes on one line, as `qr: error: outer: inner`. A cause whose text an
/// outer message already includes (an error that prints its source itself) is not repeated.
pub fn one_line(error: &anyhow::Error) -> String {
    let mut text = String::new();
    for cause in error.chain() {
        let message = cause.to_string();
        if text.contains(&message) {
            continue;
        }
        if !text.is_empty() {
            text.push_str(": ");
        }
        text.push_str(&message);
    }
    let flat: Vec<&str> = text.split_whitespace().collect();
    format!("qr: error: {}", flat.join(" "))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_follow_the_kind_of_error() {
        assert_eq!(exit_code(&usage("bad")), USAGE);
        assert_eq!(exit_code(&usage("bad").context("while parsing")), USAGE);
        assert_eq!(exit_code(&anyhow::anyhow!("failed")), FAILURE);
        let pipe = anyhow::Error::new(io::Error::from(io::ErrorKind::BrokenPipe));
        assert_eq!(exit_code(&pipe.context("writing the table")), SUCCESS);
    }

    #[test]
    fn messages_fit_on_one_line() {
        let e = anyhow::anyhow!("two\nlines").context("outer");
        assert_eq!(one_line(&e), "qr: error: outer: two lines");
    }

    #[test]
    fn each_cause_is_printed_once() {
        #[derive(Debug)]
        struct Bind(io::Error);
        impl fmt::Display for Bind {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                write!(f, "cannot listen on 127.0.0.1:8080: {}", self.0)
            }
        }
        impl std::error::Error for Bind {
            fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
                Some(&self.0)
            }
        }
        let busy = io::Error::new(
            io::ErrorKind::AddrInUse,
            "Address already in use (os error 98)",
        );
        let line = one_line(&anyhow::Error::new(Bind(busy)));
        assert_eq!(
            line,
            "qr: error: cannot listen on 127.0.0.1:8080: Address already in use (os error 98)"
        );
    }
}
