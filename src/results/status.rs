//! How a run stands, with its error where it has one: running, complete (with the consistency
//! checks that failed, if any), failed with why, or interrupted. result.json keeps it as the
//! three fields it always had (`complete`, `status`, `error`), which could disagree; this
//! value cannot.

use std::borrow::Cow;

use schemars::{JsonSchema, Schema, SchemaGenerator};
use serde::{Deserialize, Serialize};

/// How a run stands.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(into = "StatusFields", from = "StatusFields")]
pub enum RunStatus {
    Running,
    /// Every phase ran to its end; the consistency checks that failed, if any.
    Complete {
        failed_checks: Option<String>,
    },
    Failed {
        error: String,
    },
    /// Stopped by a signal; why, when more is known than that.
    Interrupted {
        why: Option<String>,
    },
}

impl RunStatus {
    /// True only when every phase ran to its end.
    pub fn is_complete(&self) -> bool {
        matches!(self, RunStatus::Complete { .. })
    }

    /// Why the run stopped early or failed its checks, when it did.
    pub fn error(&self) -> Option<&str> {
        match self {
            RunStatus::Running => None,
            RunStatus::Complete { failed_checks: e } | RunStatus::Interrupted { why: e } => {
                e.as_deref()
            }
            RunStatus::Failed { error } => Some(error),
        }
    }

    /// The status's name, as result.json's `status` has it.
    pub fn name(&self) -> StatusName {
        match self {
            RunStatus::Running => StatusName::Running,
            RunStatus::Complete { .. } => StatusName::Complete,
            RunStatus::Failed { .. } => StatusName::Failed,
            RunStatus::Interrupted { .. } => StatusName::Interrupted,
        }
    }
}

// result.json's `status` (no doc comment: the schema keeps its description-less `RunStatus`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
#[schemars(rename = "RunStatus")]
pub enum StatusName {
    Running,
    Complete,
    Failed,
    Interrupted,
}

// The status as result.json writes it (no doc comment: it would become the schema's own).
#[derive(Serialize, Deserialize, JsonSchema)]
struct StatusFields {
    /// True only when every phase ran to its end.
    complete: bool,
    status: StatusName,
    /// Why the run stopped early, when it did.
    error: Option<String>,
}

impl From<RunStatus> for StatusFields {
    fn from(s: RunStatus) -> Self {
        StatusFields {
            complete: s.is_complete(),
            status: s.name(),
            error: s.error().map(str::to_string),
        }
    }
}

impl From<StatusFields> for RunStatus {
    fn from(f: StatusFields) -> Self {
        match f.status {
            StatusName::Running => RunStatus::Running,
            StatusName::Complete => RunStatus::Complete {
                failed_checks: f.error,
            },
            StatusName::Failed => RunStatus::Failed {
                error: f.error.unwrap_or_else(|| "unknown error".to_string()),
            },
            StatusName::Interrupted => RunStatus::Interrupted { why: f.error },
        }
    }
}

impl JsonSchema for RunStatus {
    fn schema_name() -> Cow<'static, str> {
        "RunStatusFields".into()
    }

    fn inline_schema() -> bool {
        true
    }

    fn json_schema(generator: &mut SchemaGenerator) -> Schema {
        StatusFields::json_schema(generator)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_status_keeps_its_three_fields_in_result_json() {
        let cases = [
            (
                RunStatus::Running,
                r#"{"complete":false,"status":"running","error":null}"#,
            ),
            (
                RunStatus::Complete {
                    failed_checks: Some("checks failed".into()),
                },
                r#"{"complete":true,"status":"complete","error":"checks failed"}"#,
            ),
            (
                RunStatus::Failed {
                    error: "load: no space".into(),
                },
                r#"{"complete":false,"status":"failed","error":"load: no space"}"#,
            ),
            (
                RunStatus::Interrupted { why: None },
                r#"{"complete":false,"status":"interrupted","error":null}"#,
            ),
        ];
        for (status, json) in cases {
            assert_eq!(serde_json::to_string(&status).unwrap(), json);
            assert_eq!(serde_json::from_str::<RunStatus>(json).unwrap(), status);
        }
    }
}
