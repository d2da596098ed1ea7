//! Core errors and refusals as PostgreSQL errors: `ERR_…: message` with a fitting SQLSTATE,
//! raised with `ereport(ERROR)` (the statement fails; the backend lives on).

use idmint::{Error, ErrorKind};
use pgrx::pg_sys::panic::ErrorReport;
use pgrx::{PgLogLevel, PgSqlErrorCode};

/// Why a call could not answer.
#[derive(Debug)]
pub enum Refusal {
    /// A core (or coord) error.
    Core(Error),
    /// The extension's settings or setup: a configuration problem, explained in full.
    Config(String),
    /// The extension is loaded without `shared_preload_libraries` or waits for its lease.
    NotReady(String),
}

impl From<Error> for Refusal {
    fn from(e: Error) -> Refusal {
        Refusal::Core(e)
    }
}

fn sqlstate(e: &Error) -> PgSqlErrorCode {
    use PgSqlErrorCode::*;
    match e.kind() {
        ErrorKind::InvalidEncoding => ERRCODE_INVALID_TEXT_REPRESENTATION,
        ErrorKind::InvalidLayout | ErrorKind::InvalidConfig | ErrorKind::InvalidArgument => {
            ERRCODE_INVALID_PARAMETER_VALUE
        }
        ErrorKind::LayoutExpired | ErrorKind::BeforeEpoch | ErrorKind::OutOfRange => {
            ERRCODE_DATETIME_FIELD_OVERFLOW
        }
        ErrorKind::NodeRequired => ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE,
        ErrorKind::StoreUnavailable => ERRCODE_CONNECTION_FAILURE,
        ErrorKind::LimitExceeded => ERRCODE_PROGRAM_LIMIT_EXCEEDED,
        _ => ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE,
    }
}

/// Raises `r` as an SQL error; never returns.
pub fn raise(r: Refusal) -> ! {
    let (code, message, hint) = match r {
        Refusal::Core(e) => {
            let hint = match e.kind() {
                ErrorKind::NodeRequired => Some(
                    "set idmint.node (a node no other generator uses) or idmint.lease (a lease store URL) in postgresql.conf and restart",
                ),
                _ => None,
            };
            (sqlstate(&e), format!("{}: {e}", e.code()), hint)
        }
        Refusal::Config(m) => (
            PgSqlErrorCode::ERRCODE_INVALID_PARAMETER_VALUE,
            format!("ERR_INVALID_CONFIG: {m}"),
            Some("fix the idmint.* settings in postgresql.conf and restart the server"),
        ),
        Refusal::NotReady(m) => (
            PgSqlErrorCode::ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE,
            m,
            None,
        ),
    };
    let mut report = ErrorReport::new(code, message, "idmint");
    if let Some(h) = hint {
        report = report.set_hint(h);
    }
    report.report(PgLogLevel::ERROR);
    unreachable!("ereport(ERROR) does not return")
}

/// The value, or the error raised.
pub fn check<T>(r: Result<T, impl Into<Refusal>>) -> T {
    match r {
        Ok(v) => v,
        Err(e) => raise(e.into()),
    }
}
