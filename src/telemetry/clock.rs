//! When a run's phase clock started and how far the host's clock could be trusted then: what
//! `drivebench merge` aligns several hosts' runs on. The clock's state is read from chrony
//! (`chronyc tracking`: the measured offset) or systemd (`timedatectl`: synchronised or not),
//! and is "unknown" where neither answers.

use std::process::Command;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// The phase clock of a run.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema, PartialEq)]
pub struct ClockReport {
    /// When the first phase started on this host, RFC 3339 UTC with milliseconds; series rows'
    /// `elapsed_s` count from here.
    pub phases_started_at: String,
    /// `run --start-at`: the instant asked for, and how late the phases began against it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub start_at: Option<StartAtReport>,
    /// The host clock's synchronisation when the phases began.
    pub state: ClockState,
}

/// A synchronised start (`--start-at`).
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema, PartialEq)]
pub struct StartAtReport {
    /// The instant asked for, RFC 3339 UTC with milliseconds.
    pub requested: String,
    /// Seconds the phases began after it: milliseconds when the host was ready in time (it
    /// waited), more when loading and connecting took longer.
    pub late_by_s: f64,
}

/// How far the host's clock is from true time, as the host's time service says.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema, PartialEq)]
#[serde(tag = "source", rename_all = "lowercase")]
pub enum ClockState {
    /// `chronyc tracking`: the system clock's offset from NTP time (positive: fast), and
    /// whether chrony considers it synchronised (leap status normal).
    Chrony { offset_s: f64, synchronized: bool },
    /// `timedatectl`: synchronised or not; no offset is reported.
    Timedatectl { synchronized: bool },
    /// Neither chrony nor timedatectl answered.
    Unknown { why: String },
}

impl ClockState {
    /// Read the state now: chrony first, then timedatectl.
    pub fn read() -> Self {
        let chrony = output("chronyc", &["tracking"]);
        if let Some(state) = chrony.as_deref().ok().and_then(parse_chrony) {
            return state;
        }
        let timedatectl = output("timedatectl", &["show", "-p", "NTPSynchronized", "--value"]);
        match timedatectl.as_deref().map(str::trim) {
            Ok("yes") => ClockState::Timedatectl { synchronized: true },
            Ok("no") => ClockState::Timedatectl {
                synchronized: false,
            },
            other => ClockState::Unknown {
                why: format!(
                    "chronyc: {}; timedatectl: {}",
                    chrony
                        .err()
                        .map_or("no offset in its answer".into(), |e| e.to_string()),
                    other.err().map_or("no answer".into(), |e| e.to_string())
                ),
            },
        }
    }

    /// The offset in seconds, when known.
    pub fn offset_s(&self) -> Option<f64> {
        match self {
            ClockState::Chrony { offset_s, .. } => Some(*offset_s),
            _ => None,
        }
    }

    /// One line for tables: "chrony +0.000012 s", "timedatectl synchronized", "unknown".
    pub fn line(&self) -> String {
        match self {
            ClockState::Chrony {
                offset_s,
                synchronized,
            } => format!(
                "chrony {offset_s:+.6} s{}",
                if *synchronized {
                    ""
                } else {
                    " (not synchronised)"
                }
            ),
            ClockState::Timedatectl { synchronized: true } => "timedatectl synchronised".into(),
            ClockState::Timedatectl { .. } => "timedatectl not synchronised".into(),
            ClockState::Unknown { .. } => "unknown".into(),
        }
    }
}

/// Why a time service gave no answer.
#[derive(Debug, thiserror::Error)]
enum NoAnswer {
    #[error("{program} cannot run ({source})")]
    Spawn {
        program: String,
        source: std::io::Error,
    },
    #[error("{program} failed ({first_line})")]
    Failed { program: String, first_line: String },
}

/// A command's standard output, or why there is none.
fn output(program: &str, args: &[&str]) -> Result<String, NoAnswer> {
    let out = Command::new(program)
        .args(args)
        .stdin(std::process::Stdio::null())
        .output()
        .map_err(|source| NoAnswer::Spawn {
            program: program.into(),
            source,
        })?;
    if !out.status.success() {
        let err = String::from_utf8_lossy(&out.stderr);
        return Err(NoAnswer::Failed {
            program: program.into(),
            first_line: err.lines().next().unwrap_or("").trim().to_string(),
        });
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

/// `chronyc tracking`'s "System time : 0.000012345 seconds fast of NTP time" and "Leap status".
fn parse_chrony(text: &str) -> Option<ClockState> {
    let field = |name: &str| {
        text.lines().find_map(|l| {
            let (k, v) = l.split_once(':')?;
            (k.trim() == name).then(|| v.trim())
        })
    };
    let mut words = field("System time")?.split_whitespace();
    let seconds: f64 = words.next()?.parse().ok()?;
    let sign = match words.nth(1)? {
        "fast" => 1.0,
        "slow" => -1.0,
        _ => return None,
    };
    Some(ClockState::Chrony {
        offset_s: sign * seconds,
        synchronized: field("Leap status") == Some("Normal"),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chrony_offset_and_leap_status_are_read() {
        let text = "Reference ID    : C0A80001 (gw)\nStratum         : 3\n\
                    System time     : 0.000012345 seconds slow of NTP time\n\
                    Last offset     : -0.000001 seconds\nLeap status     : Normal\n";
        assert_eq!(
            parse_chrony(text),
            Some(ClockState::Chrony {
                offset_s: -0.000012345,
                synchronized: true
            })
        );
        let unsynced = text
            .replace("slow", "fast")
            .replace("Normal", "Not synchronised");
        assert_eq!(
            parse_chrony(&unsynced),
            Some(ClockState::Chrony {
                offset_s: 0.000012345,
                synchronized: false
            })
        );
        assert_eq!(parse_chrony("506 Cannot talk to daemon"), None);
    }
}
