//! `[target]`'s known starting state: a whole block device the run owns (`device`, confirmed
//! by `destroy_data`), purged (`purge`), a filesystem made on it without discard
//! (`filesystem`), mounted on the target directory and filled to a share of its capacity
//! (`fill`) — or the whole scenario run once per fill level (`fullness`). Resolved here into
//! [`StartState`]; every refusal names its key, before anything is touched.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::file::{PurgeSection, TargetSection};
use drivebench_core::config::{Invalid, KeyPath};
pub use drivebench_system::target::device_state::Filesystem;

/// The state a run's device is brought to before the load.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct StartState {
    /// The whole block device, as written (e.g. "/dev/nvme1n1").
    pub device: String,
    pub purge: Purge,
    pub filesystem: Filesystem,
    pub fill: Fill,
}

/// How the device is purged before its filesystem is made.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Purge {
    /// Every block discarded (BLKDISCARD over the whole device).
    Discard,
    /// Nothing: the blocks keep what earlier runs wrote.
    None,
    /// NVMe Format NVM of the namespace with a user data erase, its LBA format kept.
    Format,
    /// NVMe Sanitize of the whole controller (block erase, else crypto erase).
    Sanitize,
}

/// What is written on the new filesystem before the load.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Fill {
    /// Nothing.
    None,
    /// A fill file of this share of the device's capacity, in percent (0 < share < 100).
    SharePct(f64),
    /// The whole scenario once per level, in percent, increasing (a fullness run).
    LevelsPct(Vec<f64>),
}

impl StartState {
    /// The levels of a fullness run; empty for a single run.
    pub fn levels_pct(&self) -> &[f64] {
        match &self.fill {
            Fill::LevelsPct(levels) => levels,
            Fill::None | Fill::SharePct(_) => &[],
        }
    }

    /// One line for `drivebench plan`: "/dev/nvme1n1 (its data destroyed): discard, ext4
    /// made without discard and mounted on the target, fill 50 %".
    pub fn describe(&self) -> String {
        let purge = match self.purge {
            Purge::Discard => "discard",
            Purge::None => "no purge",
            Purge::Format => "NVMe Format NVM with a user data erase",
            Purge::Sanitize => "NVMe Sanitize of the controller (block erase, else crypto erase)",
        };
        let fill = match &self.fill {
            Fill::None => "no fill".to_owned(),
            Fill::SharePct(share) => format!("fill {share} %"),
            Fill::LevelsPct(levels) => {
                let each: Vec<String> = levels.iter().map(|l| format!("{l} %")).collect();
                format!("one run per fill level: {}", each.join(", "))
            }
        };
        format!(
            "{} (its data destroyed): {purge}, {} made without discard and mounted on the target, {fill}",
            self.device,
            self.filesystem.as_str()
        )
    }

    /// This state with one fill level in place of a fullness run's list.
    pub fn at_level(&self, pct: f64) -> StartState {
        StartState {
            fill: Fill::SharePct(pct),
            ..self.clone()
        }
    }
}

/// `[target]` resolved: `None` without `device` (then no other start-state key may be set).
pub fn resolve(t: &TargetSection, target: &KeyPath) -> Result<Option<StartState>, Invalid> {
    let Some(device) = &t.device else {
        return refuse_without_device(t, target);
    };
    if device.trim().is_empty() {
        return Err(Invalid::new(target.key("device"), "must not be empty"));
    }
    let purge = match t.purge.unwrap_or(PurgeSection::Discard) {
        PurgeSection::Discard => Purge::Discard,
        PurgeSection::None => Purge::None,
        PurgeSection::Format => Purge::Format,
        PurgeSection::Sanitize => Purge::Sanitize,
    };
    if t.destroy_data != Some(true) {
        return Err(Invalid::new(
            target.key("destroy_data"),
            format!(
                "purging {device} and making a filesystem on it destroys its data: set destroy_data = true to allow it"
            ),
        ));
    }
    let fill = match (&t.fill, &t.fullness) {
        (Some(_), Some(_)) => {
            return Err(Invalid::new(
                target.key("fullness"),
                "not with target.fill: a fullness run sets the fill of each of its levels",
            ));
        }
        (Some(share), None) => Fill::SharePct(share_pct(share, &target.key("fill"))?),
        (None, Some(levels)) => Fill::LevelsPct(levels_pct(levels, &target.key("fullness"))?),
        (None, None) => Fill::None,
    };
    Ok(Some(StartState {
        device: device.clone(),
        purge,
        filesystem: t.filesystem.unwrap_or(Filesystem::Ext4),
        fill,
    }))
}

/// Without `device`, the keys that describe its state are refused by name.
fn refuse_without_device(
    t: &TargetSection,
    target: &KeyPath,
) -> Result<Option<StartState>, Invalid> {
    let set = [
        ("destroy_data", t.destroy_data.is_some()),
        ("purge", t.purge.is_some()),
        ("filesystem", t.filesystem.is_some()),
        ("fill", t.fill.is_some()),
        ("fullness", t.fullness.is_some()),
    ];
    match set.iter().find(|(_, is_set)| *is_set) {
        Some((key, _)) => Err(Invalid::new(
            target.key(key),
            "needs target.device, the whole block device the run owns (e.g. --set target.device=/dev/loop0)",
        )),
        None => Ok(None),
    }
}

/// "50%" as 50.0: a share of the device, above 0 and below 100 %.
fn share_pct(text: &str, key: &KeyPath) -> Result<f64, Invalid> {
    let number = text
        .trim()
        .strip_suffix('%')
        .and_then(|n| n.trim().parse::<f64>().ok())
        .ok_or_else(|| {
            Invalid::new(
                key.clone(),
                format!("must be a share of the device such as \"50%\", got {text:?}"),
            )
        })?;
    check_share(number).map_err(|e| Invalid::new(key.clone(), e.to_string()))
}

/// A fill share or a fullness level list that cannot be used.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ShareError {
    #[error("must be above 0 %, got {0}%")]
    NotAboveZero(f64),
    #[error(
        "must be below 100 % of the device (the fill cannot be larger than the device, and its filesystem needs room of its own), got {0}%"
    )]
    NotBelowWhole(f64),
    #[error("must list at least one fill level, e.g. [\"25%\", \"50%\"]")]
    NoLevels,
    #[error("level {level}%: {source}")]
    Level {
        level: f64,
        #[source]
        source: Box<ShareError>,
    },
    #[error("levels must increase, got {next}% after {previous}%")]
    NotIncreasing { previous: f64, next: f64 },
}

/// A share in percent: above 0 and below 100 (the filesystem needs room of its own, so a fill
/// of the whole device or more cannot be written).
pub fn check_share(pct: f64) -> Result<f64, ShareError> {
    match pct {
        p if !p.is_finite() || p <= 0.0 => Err(ShareError::NotAboveZero(pct)),
        p if p >= 100.0 => Err(ShareError::NotBelowWhole(pct)),
        p => Ok(p),
    }
}

/// `fullness`: at least one level, each a share, strictly increasing.
fn levels_pct(levels: &[String], key: &KeyPath) -> Result<Vec<f64>, Invalid> {
    let shares = levels
        .iter()
        .enumerate()
        .map(|(i, text)| share_pct(text, &key.index(i)))
        .collect::<Result<Vec<f64>, Invalid>>()?;
    check_levels(&shares).map_err(|e| Invalid::new(key.clone(), e.to_string()))
}

/// Fill levels in percent: at least one, each above 0 and below 100, strictly increasing
/// (`run --fullness` checks its list with this too).
pub fn check_levels(levels: &[f64]) -> Result<Vec<f64>, ShareError> {
    if levels.is_empty() {
        return Err(ShareError::NoLevels);
    }
    for &level in levels {
        check_share(level).map_err(|e| ShareError::Level {
            level,
            source: Box::new(e),
        })?;
    }
    if let Some(pair) = levels.windows(2).find(|w| w[1] <= w[0]) {
        return Err(ShareError::NotIncreasing {
            previous: pair[0],
            next: pair[1],
        });
    }
    Ok(levels.to_vec())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// "key: message", as the CLI shows it after the position.
    fn text(e: Invalid) -> String {
        format!("{}: {}", e.key, e.message)
    }

    fn section(fill: Option<&str>, fullness: Option<&[&str]>) -> TargetSection {
        TargetSection {
            device: Some("/dev/loop9".into()),
            destroy_data: Some(true),
            fill: fill.map(str::to_owned),
            fullness: fullness.map(|l| l.iter().map(|s| s.to_string()).collect()),
            ..TargetSection::default()
        }
    }

    #[test]
    fn shares_and_levels_resolve_or_name_their_key() {
        let root = KeyPath::root().key("target");
        type Case<'a> = (
            Option<&'a str>,
            Option<&'a [&'a str]>,
            Result<Fill, &'a str>,
        );
        let cases: [Case; 8] = [
            (None, None, Ok(Fill::None)),
            (Some("50%"), None, Ok(Fill::SharePct(50.0))),
            (
                None,
                Some(&["25%", "50%", "90%"]),
                Ok(Fill::LevelsPct(vec![25.0, 50.0, 90.0])),
            ),
            (Some("100%"), None, Err("target.fill: must be below 100 %")),
            (Some("half"), None, Err("target.fill: must be a share")),
            (
                None,
                Some(&["50%", "25%"]),
                Err("target.fullness: levels must increase"),
            ),
            (
                None,
                Some(&["25%", "100%"]),
                Err("target.fullness[1]: must be below 100 %"),
            ),
            (
                Some("50%"),
                Some(&["25%"]),
                Err("target.fullness: not with target.fill"),
            ),
        ];
        for (fill, fullness, expected) in cases {
            let got = resolve(&section(fill, fullness), &root);
            match (got, expected) {
                (Ok(Some(state)), Ok(fill)) => assert_eq!(state.fill, fill),
                (Err(e), Err(want)) => {
                    let e = text(e);
                    assert!(e.contains(want), "{e} lacks {want}")
                }
                (got, expected) => panic!("{fill:?} {fullness:?}: {got:?} vs {expected:?}"),
            }
        }
    }

    #[test]
    fn a_device_needs_confirmation_and_its_keys_need_a_device() {
        let root = KeyPath::root().key("target");
        let mut unconfirmed = section(None, None);
        unconfirmed.destroy_data = None;
        let e = resolve(&unconfirmed, &root)
            .map(|_| ())
            .map_err(text)
            .unwrap_err();
        assert!(e.contains("target.destroy_data: purging /dev/loop9"), "{e}");
        let no_device = TargetSection {
            fill: Some("50%".into()),
            ..TargetSection::default()
        };
        let e = resolve(&no_device, &root)
            .map(|_| ())
            .map_err(text)
            .unwrap_err();
        assert!(e.contains("target.fill: needs target.device"), "{e}");
        for (written, purge) in [
            (PurgeSection::Format, Purge::Format),
            (PurgeSection::Sanitize, Purge::Sanitize),
        ] {
            let mut nvme = section(None, None);
            nvme.purge = Some(written);
            let state = resolve(&nvme, &root).unwrap().expect("a start state");
            assert_eq!(state.purge, purge);
            assert!(state.describe().contains("NVMe"), "{}", state.describe());
        }
    }
}
