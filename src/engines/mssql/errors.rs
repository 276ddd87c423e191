//! SQL Server errors into our classes, by error number:
//!
//! | number | meaning | class |
//! |---|---|---|
//! | 1205 | chosen as deadlock victim (the server rolled the transaction back) | retryable |
//! | 1222 | lock request time-out (`SET LOCK_TIMEOUT`) | retryable |
//! | 3960 | snapshot isolation update conflict | retryable |
//! | 2601, 2627 | duplicate key (sysbench's delete+insert racing another client on the same id; the PostgreSQL and MySQL drivers retry it too) | retryable |
//! | severity 20 and above | the server closes the connection | reconnect |
//! | I/O error, command timeout, protocol error | the connection is gone or out of step | reconnect |
//! | anything else | | fatal: the phase stops, naming the statement and the server's message |

use tiberius::error::{Error, IoErrorKind};

use crate::engines::{EngineError, ErrorClass};

const RETRYABLE: [u32; 5] = [1205, 1222, 3960, 2601, 2627];

/// The class of a server error number at a severity.
pub fn class_of(number: u32, severity: u8) -> ErrorClass {
    if RETRYABLE.contains(&number) {
        ErrorClass::Retryable
    } else if severity >= 20 {
        ErrorClass::Reconnect
    } else {
        ErrorClass::Fatal
    }
}

pub fn classify(e: Error) -> EngineError {
    let (class, code, message) = match &e {
        Error::Server(t) => (
            class_of(t.code(), t.class()),
            t.code().to_string(),
            t.message().to_string(),
        ),
        Error::Io { kind, message } if *kind == IoErrorKind::TimedOut => (
            ErrorClass::Reconnect,
            "TIMEOUT".to_string(),
            format!(
                "command timeout: {message} (raise [instance.config] command_timeout if the server is only slow)"
            ),
        ),
        Error::Io { message, .. } => (
            ErrorClass::Reconnect,
            "IO".to_string(),
            format!("lost connection: {message}"),
        ),
        Error::Protocol(m) => (
            ErrorClass::Reconnect,
            "PROTOCOL".to_string(),
            format!("connection out of step: {m}"),
        ),
        Error::Routing { host, port } => (
            ErrorClass::Fatal,
            "ROUTING".to_string(),
            format!("the server redirects to {host}:{port}; put that address in the url"),
        ),
        other => (ErrorClass::Fatal, "CLIENT".to_string(), other.to_string()),
    };
    EngineError::new(class, code, message)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn error_numbers_map_to_classes() {
        let cases = [
            (1205, 13, ErrorClass::Retryable),
            (1222, 16, ErrorClass::Retryable),
            (3960, 16, ErrorClass::Retryable),
            (2627, 14, ErrorClass::Retryable),
            (2601, 14, ErrorClass::Retryable),
            (208, 16, ErrorClass::Fatal),
            (102, 15, ErrorClass::Fatal),
            (8134, 16, ErrorClass::Fatal),
            (3903, 16, ErrorClass::Fatal),
            (596, 21, ErrorClass::Reconnect),
            (4060, 11, ErrorClass::Fatal),
        ];
        for (n, sev, want) in cases {
            assert_eq!(class_of(n, sev), want, "error {n} severity {sev}");
        }
    }

    #[test]
    fn client_side_failures_mean_reconnect() {
        let timeout = classify(Error::Io {
            kind: IoErrorKind::TimedOut,
            message: "request timed out".into(),
        });
        assert_eq!(timeout.class, ErrorClass::Reconnect);
        assert!(timeout.message.contains("command_timeout"), "{timeout}");
        let reset = classify(Error::Io {
            kind: IoErrorKind::ConnectionReset,
            message: "reset by peer".into(),
        });
        assert_eq!(
            (reset.class, reset.code.as_str()),
            (ErrorClass::Reconnect, "IO")
        );
        let conv = classify(Error::Conversion("bad".into()));
        assert_eq!(conv.class, ErrorClass::Fatal);
    }
}
