//! Scenario files: the TOML as written (`file`), `--set` overrides, units, and the resolved,
//! validated `Plan` (`plan`); `sweep` holds the `[[sweep]]` entries. Parsing happens once, here;
//! errors carry file, line:column and key.

mod bounds;
pub mod curve;
pub mod file;
pub mod plan;
pub mod resolve;
pub mod sweep;
mod tpcc;

use std::path::Path;

use crate::config::{KeyPath, Origin, ScenarioError, Seg};
use crate::config::{locate, settings};
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
            .map_err(|m| err_at(Origin::Override(item.clone()), None, m))?;
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

/// Apply one `KEY=VALUE` override to the table; returns the key path it set.
fn apply_override(table: &mut toml::Table, item: &str) -> Result<KeyPath, String> {
    let (key, value) = item
        .split_once('=')
        .ok_or_else(|| "expected KEY=VALUE, e.g. --set workload.clients=64".to_string())?;
    let path = KeyPath::parse(key.trim())?;
    let value = parse_value(value.trim());
    let mut root = toml::Value::Table(std::mem::take(table));
    let result = set_path(&mut root, &path.0, value, key);
    if let toml::Value::Table(t) = root {
        *table = t;
    }
    result.map(|_| path)
}

fn set_path(
    node: &mut toml::Value,
    segs: &[Seg],
    value: toml::Value,
    key: &str,
) -> Result<(), String> {
    let Some((first, rest)) = segs.split_first() else {
        *node = value;
        return Ok(());
    };
    match (first, node) {
        (Seg::Key(k), toml::Value::Table(t)) => {
            let child = t
                .entry(k.clone())
                .or_insert_with(|| toml::Value::Table(toml::Table::new()));
            set_path(child, rest, value, key)
        }
        (Seg::Index(i), toml::Value::Array(a)) => {
            let len = a.len();
            let child = a
                .get_mut(*i)
                .ok_or_else(|| format!("{key}: index {i} is out of range (there are {len})"))?;
            set_path(child, rest, value, key)
        }
        (Seg::Key(k), _) => Err(format!(
            "{key}: cannot set {k:?} inside a value that is not a table"
        )),
        (Seg::Index(i), _) => Err(format!(
            "{key}: cannot index [{i}] into a value that is not an array"
        )),
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
