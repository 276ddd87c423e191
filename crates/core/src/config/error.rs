//! Scenario errors that point at the culprit: the file, `line:column` and the dotted key, or
//! the `--set` override that introduced the bad value.

use std::fmt;

/// One step of a key path: a table key or an array index.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Seg {
    Key(String),
    Index(usize),
}

/// Why a dotted key (`--set KEY=…`) was not understood.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum KeyPathError {
    #[error("empty key")]
    Empty,
    #[error("empty key segment in {0:?}")]
    EmptySegment(String),
    #[error("unclosed '[' in {0:?}")]
    Unclosed(String),
    #[error("invalid index in {0:?}")]
    Index(String),
    #[error("unexpected {rest:?} in key {text:?}")]
    Unexpected { rest: String, text: String },
}

/// A dotted key path such as `workload.clients` or `phase[1].duration`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct KeyPath(pub Vec<Seg>);

impl KeyPath {
    pub fn root() -> Self {
        KeyPath(Vec::new())
    }
    pub fn key(&self, key: &str) -> Self {
        let mut p = self.clone();
        p.0.push(Seg::Key(key.to_string()));
        p
    }
    pub fn index(&self, i: usize) -> Self {
        let mut p = self.clone();
        p.0.push(Seg::Index(i));
        p
    }
    /// Parse the dotted form used by `--set`: `workload.clients`, `phase.1.duration` or
    /// `phase[1].duration`.
    pub fn parse(text: &str) -> Result<Self, KeyPathError> {
        let mut segs = Vec::new();
        for part in text.split('.') {
            let (name, mut rest) = match part.find('[') {
                Some(i) => (&part[..i], &part[i..]),
                None => (part, ""),
            };
            if name.is_empty() && rest.is_empty() {
                return Err(KeyPathError::EmptySegment(text.into()));
            }
            if !name.is_empty() {
                match name.parse::<usize>() {
                    Ok(i) if !segs.is_empty() => segs.push(Seg::Index(i)),
                    _ => segs.push(Seg::Key(name.to_string())),
                }
            }
            while let Some(stripped) = rest.strip_prefix('[') {
                let close = stripped
                    .find(']')
                    .ok_or_else(|| KeyPathError::Unclosed(text.into()))?;
                let i = stripped[..close]
                    .parse::<usize>()
                    .map_err(|_| KeyPathError::Index(text.into()))?;
                segs.push(Seg::Index(i));
                rest = &stripped[close + 1..];
            }
            if !rest.is_empty() {
                return Err(KeyPathError::Unexpected {
                    rest: rest.into(),
                    text: text.into(),
                });
            }
        }
        if segs.is_empty() {
            return Err(KeyPathError::Empty);
        }
        Ok(KeyPath(segs))
    }
    pub fn starts_with(&self, other: &KeyPath) -> bool {
        self.0.len() >= other.0.len() && self.0[..other.0.len()] == other.0[..]
    }
}

impl fmt::Display for KeyPath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut first = true;
        for seg in &self.0 {
            match seg {
                Seg::Key(k) => {
                    if !first {
                        f.write_str(".")?;
                    }
                    f.write_str(k)?;
                }
                Seg::Index(i) => write!(f, "[{i}]")?,
            }
            first = false;
        }
        Ok(())
    }
}

/// Where an error came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Origin {
    /// A place in the file (1-based line and column).
    File { line: usize, column: usize },
    /// A `--set KEY=VALUE` override.
    Override(String),
    /// The file as a whole (no better position known).
    Whole,
}

/// An invalid scenario: nothing has been started when this is returned.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub struct ScenarioError {
    pub file: String,
    pub origin: Origin,
    pub key: Option<KeyPath>,
    pub message: String,
}

impl fmt::Display for ScenarioError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.origin {
            Origin::File { line, column } => write!(f, "{}:{line}:{column}: ", self.file)?,
            Origin::Override(text) => write!(f, "{}: --set {text}: ", self.file)?,
            Origin::Whole => write!(f, "{}: ", self.file)?,
        }
        if let Some(key) = &self.key
            && !key.0.is_empty()
        {
            write!(f, "{key}: ")?;
        }
        f.write_str(&self.message)
    }
}

/// A validation failure before it is given a position: the key and what is wrong with it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Invalid {
    pub key: KeyPath,
    pub message: String,
}

impl Invalid {
    pub fn new(key: KeyPath, message: impl std::fmt::Display) -> Self {
        Invalid {
            key,
            message: message.to_string(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn key_paths_parse_and_print_in_both_index_styles() {
        let cases: &[(&str, &str)] = &[
            ("workload.clients", "workload.clients"),
            ("phase.1.duration", "phase[1].duration"),
            ("phase[1].duration", "phase[1].duration"),
            (
                "instance[0].config.synchronous",
                "instance[0].config.synchronous",
            ),
            ("name", "name"),
        ];
        for (text, shown) in cases {
            assert_eq!(KeyPath::parse(text).unwrap().to_string(), *shown, "{text}");
        }
        for bad in ["", "a..b", "phase[x]", "phase[1"] {
            assert!(KeyPath::parse(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn errors_print_file_line_column_key_and_message() {
        let e = ScenarioError {
            file: "quickstart.toml".into(),
            origin: Origin::File {
                line: 14,
                column: 1,
            },
            key: Some(KeyPath::parse("workload.clients").unwrap()),
            message: "must be at least 1, got -3".into(),
        };
        assert_eq!(
            e.to_string(),
            "quickstart.toml:14:1: workload.clients: must be at least 1, got -3"
        );
    }
}
