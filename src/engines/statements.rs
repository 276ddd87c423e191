//! Named SQL statements loaded from `schemas/<benchmark>/<engine>/*.sql`: SQL is data. A file is
//! a sequence of blocks, each starting with a `-- name: NAME` line; `{placeholders}` are filled
//! by `render`.

use std::collections::HashMap;

/// A statements file without a single `-- name:` block.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{file}: no `-- name:` blocks")]
pub struct NoStatements {
    pub file: &'static str,
}

#[derive(Debug, Clone)]
pub struct Statements {
    source: &'static str,
    by_name: HashMap<String, String>,
    /// The names in the file's order.
    order: Vec<String>,
}

impl Statements {
    /// Parse a statements file; `source` names it in errors.
    pub fn parse(source: &'static str, text: &str) -> Result<Self, NoStatements> {
        let mut by_name = HashMap::new();
        let mut order = Vec::new();
        let mut current: Option<(String, String)> = None;
        for line in text.lines() {
            if let Some(name) = line.trim().strip_prefix("-- name:") {
                if let Some((n, body)) = current.take() {
                    by_name.insert(n, body.trim().to_string());
                }
                order.push(name.trim().to_string());
                current = Some((name.trim().to_string(), String::new()));
            } else if let Some((_, body)) = current.as_mut()
                && !line.trim_start().starts_with("--")
            {
                body.push_str(line);
                body.push('\n');
            }
        }
        if let Some((n, body)) = current.take() {
            by_name.insert(n, body.trim().to_string());
        }
        if by_name.is_empty() {
            return Err(NoStatements { file: source });
        }
        Ok(Statements {
            source,
            by_name,
            order,
        })
    }

    /// The statement text with `{key}` placeholders replaced.
    pub fn render(&self, name: &str, vars: &[(&str, &str)]) -> String {
        let Some(text) = self.by_name.get(name) else {
            // Statement files are compiled in and checked by tests; a missing name is a bug.
            panic!("{}: no statement named {name:?}", self.source);
        };
        let mut out = text.trim_end_matches(';').to_string();
        for (k, v) in vars {
            out = out.replace(&format!("{{{k}}}"), v);
        }
        out
    }

    /// Every statement's name, in the file's order.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.order.iter().map(String::as_str)
    }

    pub fn has(&self, name: &str) -> bool {
        self.by_name.contains_key(name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocks_are_split_by_name_and_placeholders_filled() {
        let s = Statements::parse(
            "t.sql",
            "-- name: a\nSELECT c FROM sbtest{table} WHERE id=?1;\n\n-- name: b\n-- a comment\nCOMMIT\n",
        )
        .unwrap();
        assert_eq!(
            s.render("a", &[("table", "3")]),
            "SELECT c FROM sbtest3 WHERE id=?1"
        );
        assert_eq!(s.render("b", &[]), "COMMIT");
        assert!(!s.has("c"));
    }
}
