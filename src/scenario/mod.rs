//! Scenario files: the TOML as written (`file`), `--set` overrides, units, and the resolved,
//! validated `Plan` (`plan`); `sweep` holds the `[[sweep]]` entries, `start_state` the
//! device's known start of `[target]`. Parsing happens once, here;
//! errors carry file, line:column and key.

mod bounds;
pub mod capture;
pub mod curve;
pub mod file;
mod phases;
pub mod plan;
pub mod resolve;
pub mod start_state;
pub mod sweep;

use std::path::Path;

use drivebench_core::config::error::KeyPathError;
use drivebench_core::config::{KeyPath, Origin, ScenarioError, Seg};
use drivebench_core::config::{locate, settings};
pub use file::ScenarioFile;
pub use plan::Plan;

/// Read, override, validate and resolve a scenario file. No side effects.
pub fn load(path: &Path, overrides: &[String], time_scale: f64) -> Result<Plan, ScenarioError> {
    let file_name = path.display().to_string();
    let text = std::fs::read_to_string(path).map_err(|e| ScenarioError {
        file: file_name.clone(),
        origin: Origin::Whole,
        key: None,
        message: format!("cannot read scenario file: {e}"),
    })?;
    load_str(&text, &file_name, overrides, time_scale)
}

/// As `load`, from text already read (`file_name` is used in messages).
pub fn load_str(
    text: &str,
    file_name: &str,
    overrides: &[String],
    time_scale: f64,
) -> Result<Plan, ScenarioError> {
    let err_at = |origin: Origin, key: Option<KeyPath>, message: String| ScenarioError {
        file: file_name.to_string(),
        origin,
        key,
        message,
    };
    let mut table: toml::Table = toml::from_str(text).map_err(|e| {
        let origin = match e.span() {
            Some(span) => {
                let (line, column) = locate::line_col(text, span.start);
                Origin::File { line, column }
            }
            None => Origin::Whole,
        };
        err_at(
            origin,
            None,
            format!("invalid TOML: {}", e.message().trim()),
        )
    })?;
    let mut overridden = Vec::new();
    for item in overrides {
        let path = apply_override(&mut table, item)
            .map_err(|m| err_at(Origin::Override(item.clone()), None, m.to_string()))?;
        overridden.push((path, item.clone()));
    }
    let position = |key: &KeyPath| -> Origin {
        if let Some((_, item)) = overridden.iter().rev().find(|(p, _)| key.starts_with(p)) {
            return Origin::Override(item.clone());
        }
        match locate::offset_of(text, key) {
            Some(off) => {
                let (line, column) = locate::line_col(text, off);
                Origin::File { line, column }
            }
            None => Origin::Whole,
        }
    };
    let file: ScenarioFile =
        serde_path_to_error::deserialize(toml::Value::Table(table)).map_err(|e| {
            let inv = settings::invalid(&KeyPath::root(), &e);
            err_at(position(&inv.key), Some(inv.key), inv.message)
        })?;
    resolve::resolve(&file, file_name, time_scale, overrides).map_err(|inv| {
        let origin = position(&inv.key);
        err_at(origin, Some(inv.key), inv.message)
    })
}

/// A plan refused when the run samples no telemetry (`--no-telemetry`): a `cliff` phase
/// reads the drive's write counters.
pub fn refuse_without_telemetry(plan: &Plan) -> Result<(), ScenarioError> {
    let Some(db) = plan.database() else {
        return Ok(());
    };
    match db.db.phases.iter().position(|p| p.rounds.cliff().is_some()) {
        None => Ok(()),
        Some(i) => Err(ScenarioError {
            file: plan.scenario_file.clone(),
            origin: Origin::Whole,
            key: Some(KeyPath::root().key("phase").index(i).key("cliff")),
            message: "needs the drive's write counters, which --no-telemetry turns off; \
                      remove one"
                .into(),
        }),
    }
}

/// Why a `--set KEY=VALUE` could not be applied to the scenario.
#[derive(Debug, thiserror::Error)]
pub enum OverrideError {
    #[error("expected KEY=VALUE, e.g. --set workload.clients=64")]
    NoEquals,
    #[error(transparent)]
    Key(#[from] KeyPathError),
    #[error("{key}: index {index} is out of range (there are {len})")]
    OutOfRange {
        key: String,
        index: usize,
        len: usize,
    },
    #[error(
        "{key}: {list} is a list of {len}; address one entry by its position{by_name}, e.g. {example}"
    )]
    List {
        key: String,
        list: String,
        len: usize,
        by_name: String,
        example: String,
    },
    #[error("{key}: cannot set {name:?} inside a value that is not a table")]
    NotATable { key: String, name: String },
    #[error("{key}: cannot index [{index}] into a value that is not a list")]
    NotAList { key: String, index: usize },
}

/// Apply one `KEY=VALUE` override to the table; returns the key path it set.
fn apply_override(table: &mut toml::Table, item: &str) -> Result<KeyPath, OverrideError> {
    let (key, value) = item.split_once('=').ok_or(OverrideError::NoEquals)?;
    let path = KeyPath::parse(key.trim())?;
    let value = parse_value(value.trim());
    let mut root = toml::Value::Table(std::mem::take(table));
    let result = set_path(&mut root, &path, 0, value);
    if let toml::Value::Table(t) = root {
        *table = t;
    }
    result.map(|_| path)
}

/// Set `path[depth..]` under `node`. In a list of tables a key picks the entry of that `name`
/// (`phase.sample.duration`), an index the entry at that position (`instance.0.config…`).
fn set_path(
    node: &mut toml::Value,
    path: &KeyPath,
    depth: usize,
    value: toml::Value,
) -> Result<(), OverrideError> {
    let Some(first) = path.0.get(depth) else {
        *node = value;
        return Ok(());
    };
    let key = || path.to_string();
    match (first, node) {
        (Seg::Key(k), toml::Value::Table(t)) => {
            let child = t
                .entry(k.clone())
                .or_insert_with(|| toml::Value::Table(toml::Table::new()));
            set_path(child, path, depth + 1, value)
        }
        (Seg::Index(i), toml::Value::Array(a)) => {
            let len = a.len();
            let child = a.get_mut(*i).ok_or_else(|| OverrideError::OutOfRange {
                key: key(),
                index: *i,
                len,
            })?;
            set_path(child, path, depth + 1, value)
        }
        (Seg::Key(k), toml::Value::Array(a)) => {
            let named = |v: &toml::Value| v.get("name").and_then(|n| n.as_str()) == Some(k);
            match a.iter().position(named) {
                Some(i) => set_path(&mut a[i], path, depth + 1, value),
                None => Err(list_error(path, depth, a)),
            }
        }
        (Seg::Key(k), _) => Err(OverrideError::NotATable {
            key: key(),
            name: k.clone(),
        }),
        (Seg::Index(i), _) => Err(OverrideError::NotAList {
            key: key(),
            index: *i,
        }),
    }
}

/// A key used where the scenario has a list (`[[instance]]`, `[[phase]]`): show the key with
/// an index in place, and the entries' names when they can be picked by name. A key that no
/// entry has is taken for a name that is not there, and replaced by the index in the example.
fn list_error(path: &KeyPath, depth: usize, list: &[toml::Value]) -> OverrideError {
    let list_key = KeyPath(path.0[..depth].to_vec());
    let names: Vec<&str> = list
        .iter()
        .filter_map(|v| v.get("name").and_then(|n| n.as_str()))
        .collect();
    let is_field = match &path.0[depth] {
        Seg::Key(k) => list.iter().any(|v| v.get(k).is_some()),
        Seg::Index(_) => false,
    };
    let rest = if is_field || names.is_empty() {
        depth
    } else {
        depth + 1
    };
    let mut example = list_key.index(0);
    example.0.extend(path.0[rest..].iter().cloned());
    OverrideError::List {
        key: path.to_string(),
        list: list_key.to_string(),
        len: list.len(),
        by_name: if names.is_empty() {
            String::new()
        } else {
            format!(" or its name ({})", names.join(", "))
        },
        example: example.to_string().replace('[', ".").replace(']', ""),
    }
}

/// A `--set` value: TOML if it parses as one (`64`, `true`, `"x"`, `[1, 2]`), a string otherwise.
fn parse_value(text: &str) -> toml::Value {
    let doc = format!("v = {text}");
    match toml::from_str::<toml::Table>(&doc) {
        Ok(mut t) => t
            .remove("v")
            .unwrap_or_else(|| toml::Value::String(text.to_string())),
        Err(_) => toml::Value::String(text.to_string()),
    }
}
