//! Typed values for the engine settings scenario files write, and reading a TOML table into a
//! serde type. `Size` and `Period` read the strings (and integers) `units` parses, `RawValue`
//! is a raw server setting passed through, and `AnyCase` reads a closed set's names in any
//! case. A serde error becomes an `Invalid` naming the full key path, its message worded for a
//! scenario author (`friendly`); the scenario file itself is read the same way.

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::fmt;
use std::time::Duration;

use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};
use serde::de::{self, DeserializeOwned, Deserializer, IntoDeserializer, Unexpected, Visitor};
use serde::{Deserialize, Serialize};

use super::units::{parse_duration, parse_size};
use super::{Invalid, KeyPath, Seg};

/// A size in bytes, written `"24GiB"`, `"512KB"`, `"4k"` or as a byte count.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Size(pub u64);

impl<'de> Deserialize<'de> for Size {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let text = RawValue::deserialize(d)?.number_or_text("a size such as \"24GiB\"")?;
        parse_size(&text).map(Size).map_err(de::Error::custom)
    }
}

impl JsonSchema for Size {
    fn schema_name() -> Cow<'static, str> {
        "Size".into()
    }

    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({
            "description": "Bytes: a count, or a number with a unit: B, KiB, MiB, GiB, TiB \
                            (K, M, G and T alone are binary too), KB, MB, GB or TB, \
                            e.g. \"24GiB\".",
            "type": ["string", "integer"],
            "minimum": 0,
            "pattern": "^\\s*[0-9.]+\\s*([bB]|[kKmMgGtT]([iI]?[bB])?)?\\s*$"
        })
    }
}

/// A period of time, written with its unit: `"90s"`, `"15m"`, `"1h30m"`, `"250ms"`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Period(pub Duration);

impl<'de> Deserialize<'de> for Period {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        // A bare integer is read as text so that the message says the unit is missing.
        let text = RawValue::deserialize(d)?.number_or_text("a duration such as \"90s\"")?;
        parse_duration(&text).map(Period).map_err(de::Error::custom)
    }
}

impl JsonSchema for Period {
    fn schema_name() -> Cow<'static, str> {
        "Period".into()
    }

    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({
            "description": "A duration: numbers each followed by a unit (ns, us, ms, s, m, min, \
                            h or d), e.g. \"90s\", \"15m\" or \"1h30m\".",
            "type": "string",
            "pattern": "^\\s*([0-9.]+(ns|us|µs|ms|s|m|min|h|d))+\\s*$"
        })
    }
}

/// A raw setting as written: a string, an integer, a float or a boolean. The engine writes it
/// into the server's configuration as text (`RawValue::text`).
#[derive(Debug, Clone, PartialEq)]
pub enum RawValue {
    Text(String),
    Int(i64),
    Float(f64),
    Bool(bool),
}

impl RawValue {
    /// The value as the server reads it: numbers in decimal, booleans as `on` or `off`.
    pub fn text(&self, on: &str, off: &str) -> String {
        match self {
            RawValue::Text(s) => s.clone(),
            RawValue::Int(i) => i.to_string(),
            RawValue::Float(f) => f.to_string(),
            RawValue::Bool(b) => if *b { on } else { off }.to_string(),
        }
    }

    /// A string as it is, an integer in decimal; anything else is refused as not `expected`.
    pub fn number_or_text<E: de::Error>(self, expected: &str) -> Result<String, E> {
        match self {
            RawValue::Text(s) => Ok(s),
            RawValue::Int(i) => Ok(i.to_string()),
            RawValue::Float(f) => Err(E::invalid_type(Unexpected::Float(f), &expected)),
            RawValue::Bool(b) => Err(E::invalid_type(Unexpected::Bool(b), &expected)),
        }
    }
}

impl<'de> Deserialize<'de> for RawValue {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(RawVisitor)
    }
}

struct RawVisitor;

impl Visitor<'_> for RawVisitor {
    type Value = RawValue;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a string, a number or true/false")
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<RawValue, E> {
        Ok(RawValue::Text(v.to_string()))
    }
    fn visit_i64<E: de::Error>(self, v: i64) -> Result<RawValue, E> {
        Ok(RawValue::Int(v))
    }
    fn visit_u64<E: de::Error>(self, v: u64) -> Result<RawValue, E> {
        Ok(i64::try_from(v).map_or(RawValue::Text(v.to_string()), RawValue::Int))
    }
    fn visit_f64<E: de::Error>(self, v: f64) -> Result<RawValue, E> {
        Ok(RawValue::Float(v))
    }
    fn visit_bool<E: de::Error>(self, v: bool) -> Result<RawValue, E> {
        Ok(RawValue::Bool(v))
    }
}

impl JsonSchema for RawValue {
    fn schema_name() -> Cow<'static, str> {
        "RawValue".into()
    }

    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({
            "description": "A raw server setting: a string, a number or true/false.",
            "type": ["string", "number", "boolean"]
        })
    }
}

/// Settings as a server's configuration takes them: name, then the value's text.
pub type ServerSettings = BTreeMap<String, String>;

/// Raw settings (`extra`, at `key`) as the server's configuration takes them, booleans written
/// as `on_off`. A name other than ASCII letters, digits, `_` and `punct` is refused: the error
/// is its key.
pub fn raw_settings(
    extra: &BTreeMap<String, RawValue>,
    key: &KeyPath,
    punct: char,
    (on, off): (&str, &str),
) -> Result<ServerSettings, KeyPath> {
    let mut out = BTreeMap::new();
    for (name, value) in extra {
        if !name
            .chars()
            .all(|ch| ch.is_ascii_alphanumeric() || ch == '_' || ch == punct)
        {
            return Err(key.key(name));
        }
        out.insert(name.clone(), value.text(on, off));
    }
    Ok(out)
}

/// A value of a closed set (a unit enum whose names are lowercase) read leniently: the name in
/// any case (`"NORMAL"` is `normal`), `true`/`false` as `on`/`off`, an integer as its digits.
/// Its schema is the set's own.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AnyCase<T>(pub T);

impl<'de, T: DeserializeOwned> Deserialize<'de> for AnyCase<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let text = RawValue::deserialize(d)?.text("on", "off");
        let read = |name: &str| -> Result<T, de::value::Error> {
            T::deserialize(name.into_deserializer())
        };
        // Read as written when the lowercase name is not in the set, so the error quotes it.
        read(&text.to_ascii_lowercase())
            .or_else(|_| read(&text))
            .map(AnyCase)
            .map_err(de::Error::custom)
    }
}

impl<T: JsonSchema> JsonSchema for AnyCase<T> {
    fn schema_name() -> Cow<'static, str> {
        T::schema_name()
    }
    fn schema_id() -> Cow<'static, str> {
        T::schema_id()
    }
    fn json_schema(generator: &mut SchemaGenerator) -> Schema {
        T::json_schema(generator)
    }
}

/// The name a closed set's value is written as (its serde name), e.g. `remote_write`.
pub fn name<T: Serialize>(value: &T) -> String {
    match serde_json::to_value(value) {
        Ok(serde_json::Value::String(name)) => name,
        other => format!("{other:?}"),
    }
}

/// Read `table`, the table at `key`, as `T`. An error names the full key path; an unknown key
/// is "unknown setting for {owner}" followed by the keys `T` knows.
pub fn from_table<T: DeserializeOwned>(
    table: &toml::Table,
    key: &KeyPath,
    owner: &str,
) -> Result<T, Invalid> {
    serde_path_to_error::deserialize(toml::Value::Table(table.clone())).map_err(|e| {
        let mut inv = invalid(key, &e);
        if let Some(rest) = inv.message.strip_prefix("unknown key") {
            inv.message = format!("unknown setting for {owner}{rest}");
        }
        inv
    })
}

/// A serde error as an `Invalid`: the key path below `base` in full (an unknown key's own name
/// included) and the message as `friendly` words it.
pub fn invalid<E: fmt::Display>(base: &KeyPath, e: &serde_path_to_error::Error<E>) -> Invalid {
    let mut key = base.clone();
    for seg in e.path().iter() {
        match seg {
            serde_path_to_error::Segment::Map { key: k } => key = key.key(k),
            serde_path_to_error::Segment::Seq { index } => key = key.index(*index),
            serde_path_to_error::Segment::Enum { variant } => key = key.key(variant),
            serde_path_to_error::Segment::Unknown => {}
        }
    }
    let full = e.inner().to_string();
    // The TOML deserializer appends "in `path`"; the path is printed separately.
    let message = full.split("\nin `").next().unwrap_or(&full).trim();
    if let Some(field) = unknown_field(message)
        && key.0.last() != Some(&Seg::Key(field.clone()))
    {
        key = key.key(&field);
    }
    Invalid::new(key, friendly(message))
}

fn unknown_field(message: &str) -> Option<String> {
    let rest = message.strip_prefix("unknown field `")?;
    Some(rest[..rest.find('`')?].to_string())
}

/// serde's messages, reworded where they would confuse a scenario author.
pub fn friendly(message: &str) -> String {
    if let Some(rest) = message.strip_prefix("unknown field `") {
        let expected = rest.split_once(", expected ").map(|(_, e)| e).unwrap_or("");
        return format!("unknown key; expected {expected}");
    }
    if let Some(rest) = message.strip_prefix("unknown variant `") {
        let (value, expected) = rest.split_once("`, expected ").unwrap_or((rest, ""));
        return format!("unknown value {value:?}; expected {expected}");
    }
    let message = match message.split_once("expected struct ") {
        // A table where a number or string was given: serde names the Rust type.
        Some((head, _)) => format!("{head}expected a table"),
        None => message.to_string(),
    };
    message
        .replace("expected i64", "expected an integer")
        .replace("expected a sequence", "expected a list")
        .replace("expected f64", "expected a number")
        .replace("expected u64", "expected an integer of at least 0")
        .replace("expected a boolean", "expected true or false")
        .replace("expected a map", "expected a table")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, Deserialize)]
    #[serde(deny_unknown_fields)]
    struct Sample {
        size: Option<Size>,
        period: Option<Period>,
        #[serde(default)]
        extra: BTreeMap<String, RawValue>,
    }

    fn read(text: &str) -> Result<Sample, Invalid> {
        let t: toml::Table = toml::from_str(text).unwrap();
        from_table(&t, &KeyPath::root().key("config"), "engine x")
    }

    #[test]
    fn sizes_and_periods_read_strings_and_integers() {
        let s = read("size = \"24GiB\"\nperiod = \"1h30m\"").unwrap();
        assert_eq!(s.size, Some(Size(24 << 30)));
        assert_eq!(s.period, Some(Period(Duration::from_secs(5400))));
        assert_eq!(read("size = 4096").unwrap().size, Some(Size(4096)));
        let e = read("period = 5").unwrap_err();
        assert_eq!(e.key.to_string(), "config.period");
        assert!(e.message.contains("has no unit"), "{}", e.message);
        let e = read("size = true").unwrap_err();
        assert!(e.message.contains("expected a size"), "{}", e.message);
    }

    #[test]
    fn raw_values_keep_their_type_and_errors_name_the_path() {
        let s = read("extra = { a = \"x\", b = 1, c = 1.5, d = true }").unwrap();
        let text: Vec<String> = s.extra.values().map(|v| v.text("ON", "OFF")).collect();
        assert_eq!(text, ["x", "1", "1.5", "ON"]);
        let e = read("extra = { a = [1] }").unwrap_err();
        assert_eq!(e.key.to_string(), "config.extra.a");
        let e = read("colour = 1").unwrap_err();
        assert_eq!(e.key.to_string(), "config.colour");
        assert_eq!(
            e.message,
            "unknown setting for engine x; expected one of `size`, `period`, `extra`"
        );
    }
}
