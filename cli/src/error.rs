//! The CLI's error type: a message, optional note lines, and the exit code it maps to.

use std::fmt;
use std::io;

use idmint::{Error, ErrorKind};

/// Exit code for bad command-line input (clap uses the same code for its own usage errors).
pub const EXIT_USAGE: u8 = 2;
/// Exit code for failures while running (expired layout, clock trouble, I/O).
pub const EXIT_RUNTIME: u8 = 1;

/// What went wrong, printed as `error: <message>` followed by indented notes.
#[derive(Debug)]
pub enum CliError {
    /// A failure to report, with its exit code.
    Failed {
        /// The exit code.
        code: u8,
        /// The one-line message (after `error: `).
        message: String,
        /// Extra lines: a caret under a bad spec, a hint.
        notes: Vec<String>,
    },
    /// The reader of our stdout went away (`idmint gen | head`): stop quietly.
    BrokenPipe,
}

pub type CliResult<T = ()> = Result<T, CliError>;

impl CliError {
    /// A bad-input error (exit 2).
    pub fn usage(message: impl Into<String>) -> CliError {
        CliError::Failed {
            code: EXIT_USAGE,
            message: message.into(),
            notes: Vec::new(),
        }
    }

    /// A runtime failure (exit 1).
    pub fn runtime(message: impl Into<String>) -> CliError {
        CliError::Failed {
            code: EXIT_RUNTIME,
            message: message.into(),
            notes: Vec::new(),
        }
    }

    /// A failure of `idmint serve`: a bad setting exits 2, the rest 1.
    pub fn serve(e: idmint_server::ServeError) -> CliError {
        match e {
            idmint_server::ServeError::Idmint(e) => CliError::from(e),
            idmint_server::ServeError::Config(m) => CliError::usage(m),
            idmint_server::ServeError::Io(e) => CliError::runtime(e.to_string()),
        }
    }

    /// Adds a note line printed under the message.
    pub fn note(mut self, line: impl Into<String>) -> CliError {
        if let CliError::Failed { notes, .. } = &mut self {
            notes.push(line.into());
        }
        self
    }

    /// Prefixes the message with some context (`"xyz": ...`).
    pub fn context(mut self, what: impl fmt::Display) -> CliError {
        if let CliError::Failed { message, .. } = &mut self {
            *message = format!("{what}: {message}");
        }
        self
    }

    /// The process exit code.
    pub fn exit_code(&self) -> u8 {
        match self {
            CliError::Failed { code, .. } => *code,
            CliError::BrokenPipe => 0,
        }
    }
}

/// Core errors that come from what the user typed exit 2; the rest (an expired layout, a
/// clock that went backwards, a fork, no randomness) are runtime failures and exit 1.
impl From<Error> for CliError {
    fn from(e: Error) -> CliError {
        let input = matches!(
            e.kind(),
            ErrorKind::InvalidLayout
                | ErrorKind::OutOfRange
                | ErrorKind::InvalidConfig
                | ErrorKind::InvalidEncoding
                | ErrorKind::InvalidArgument
        );
        let err = if input {
            CliError::usage(e.to_string())
        } else {
            CliError::runtime(e.to_string())
        };
        if let Error::LayoutExpired { .. } = e {
            err.note(
                "hint: this layout cannot represent the current time any more; pick a layout with \
                 a later epoch, e.g. --layout time=28@1s,worker=22,seq=13,epoch=2025-01-01",
            )
        } else {
            err
        }
    }
}

impl From<io::Error> for CliError {
    fn from(e: io::Error) -> CliError {
        if e.kind() == io::ErrorKind::BrokenPipe {
            CliError::BrokenPipe
        } else {
            CliError::runtime(format!("I/O error: {e}"))
        }
    }
}

impl fmt::Display for CliError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CliError::Failed { message, notes, .. } => {
                write!(f, "error: {message}")?;
                for n in notes {
                    write!(f, "\n  {n}")?;
                }
                Ok(())
            }
            CliError::BrokenPipe => f.write_str("broken pipe"),
        }
    }
}
