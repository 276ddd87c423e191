//! Maps a key path back to its `line:column` in the scenario text, using the TOML parser's
//! spans. A path that does not exist in the file resolves to its deepest existing ancestor.

use super::{KeyPath, Seg};
use toml::de::{DeTable, DeValue};

/// Byte offset of the key (or array element) named by `path`, or of its deepest ancestor.
pub fn offset_of(text: &str, path: &KeyPath) -> Option<usize> {
    let root = DeTable::parse(text).ok()?;
    let mut best = None;
    let mut table: Option<&DeTable> = Some(root.get_ref());
    let mut value: Option<&DeValue> = None;
    for seg in &path.0 {
        match seg {
            Seg::Key(k) => {
                let t = match (table, value) {
                    (Some(t), _) => t,
                    (None, Some(v)) => v.as_table()?,
                    _ => return best,
                };
                let Some((key, v)) = t.iter().find(|(key, _)| key.get_ref().as_ref() == k) else {
                    return best;
                };
                best = Some(key.span().start);
                table = None;
                value = Some(v.get_ref());
            }
            Seg::Index(i) => {
                let Some(arr) = value.and_then(|v| v.as_array()) else {
                    return best;
                };
                let Some(item) = arr.get(*i) else {
                    return best;
                };
                let start = item.span().start;
                // An array-of-tables element spans from its body; point at the header line.
                best = Some(header_start(text, start));
                table = None;
                value = Some(item.get_ref());
            }
        }
    }
    best
}

/// For an offset inside a `[[table]]` body, the start of the line it is on.
fn header_start(text: &str, offset: usize) -> usize {
    let offset = offset.min(text.len());
    text[..offset].rfind('\n').map(|i| i + 1).unwrap_or(0)
}

/// 1-based line and column of a byte offset.
pub fn line_col(text: &str, offset: usize) -> (usize, usize) {
    let offset = offset.min(text.len());
    let before = &text[..offset];
    let line = before.matches('\n').count() + 1;
    let col = before
        .rfind('\n')
        .map(|i| before[i + 1..].chars().count() + 1)
        .unwrap_or(before.chars().count() + 1);
    (line, col)
}

#[cfg(test)]
mod tests {
    use super::*;

    const TEXT: &str = "name = \"x\"\n\n[workload]\nbenchmark = \"sysbench\"\nclients = -3\n\n[[phase]]\nname = \"a\"\nduration = \"1s\"\n\n[[phase]]\nname = \"b\"\nduration = \"zz\"\n";

    #[test]
    fn keys_resolve_to_their_line_and_column() {
        let cases: &[(&str, (usize, usize))] = &[
            ("name", (1, 1)),
            ("workload.clients", (5, 1)),
            ("workload.benchmark", (4, 1)),
            ("phase[1].duration", (13, 1)),
            ("phase[0].name", (8, 1)),
            // missing key: its deepest existing ancestor
            ("workload.tables", (3, 2)),
        ];
        for (path, expected) in cases {
            let off = offset_of(TEXT, &KeyPath::parse(path).unwrap()).unwrap();
            assert_eq!(line_col(TEXT, off), *expected, "{path}");
        }
    }
}
