//! `[capture]`: record the block requests the target's drive sees during some phases (the
//! recorded ones by default). `run --capture` / `curve --capture` turn it on without the
//! section.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use drivebench_core::config::{Invalid, KeyPath};

/// `[capture]` as written.
#[derive(Debug, Clone, Default, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CaptureSection {
    /// Names of the phases whose block I/O is captured. Default: the recorded phases.
    pub phases: Option<Vec<String>>,
}

/// The capture as resolved: the phases to capture, each a phase of the plan.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct PlanCapture {
    /// Phase names, in the plan's order.
    pub phases: Vec<String>,
}

impl PlanCapture {
    /// The default: every recorded phase, from each phase's name and whether it is recorded.
    pub fn recorded<'a>(phases: impl IntoIterator<Item = (&'a str, bool)>) -> PlanCapture {
        PlanCapture {
            phases: phases
                .into_iter()
                .filter(|(_, record)| *record)
                .map(|(name, _)| name.to_owned())
                .collect(),
        }
    }

    /// Whether the phase named `name` is captured.
    pub fn covers(&self, name: &str) -> bool {
        self.phases.iter().any(|p| p == name)
    }
}

/// Resolve `[capture]` against the plan's phases: each one's name and whether it is recorded.
pub fn resolve(
    section: Option<&CaptureSection>,
    phases: &[(&str, bool)],
    key: &KeyPath,
) -> Result<Option<PlanCapture>, Invalid> {
    let Some(section) = section else {
        return Ok(None);
    };
    let Some(names) = &section.phases else {
        return Ok(Some(PlanCapture::recorded(phases.iter().copied())));
    };
    if names.is_empty() {
        return Err(Invalid::new(
            key.key("phases"),
            "must name at least one phase (leave it out to capture the recorded phases)",
        ));
    }
    for (i, name) in names.iter().enumerate() {
        if !phases.iter().any(|(p, _)| p == name) {
            let known: Vec<&str> = phases.iter().map(|(p, _)| *p).collect();
            return Err(Invalid::new(
                key.key("phases").index(i),
                format!("no phase named {name:?} (phases: {})", known.join(", ")),
            ));
        }
    }
    Ok(Some(PlanCapture {
        phases: phases
            .iter()
            .filter(|(p, _)| names.iter().any(|n| n == p))
            .map(|(p, _)| (*p).to_owned())
            .collect(),
    }))
}
