//! The server settings in effect (InnoDB's buffer pool and flush method, PostgreSQL's
//! shared_buffers and wal_sync_method, ...), as each instance's server reported them once
//! connected: one table in summary.md and report.html, with one value column when every
//! instance runs with the same settings and a column per instance when they differ.

use std::collections::BTreeMap;
use std::fmt::Write;

use super::svg::escape;
use crate::config::units::format_bytes;
use crate::results::run::InstanceReport;

/// The settings as a table: column heads, then per setting its value in each column.
#[derive(Debug, PartialEq)]
pub struct SettingsTable {
    pub heads: Vec<String>,
    pub rows: Vec<(String, Vec<String>)>,
}

/// The table of `instances`' settings; `None` when no instance reported any (SQLite).
pub fn table(instances: &[InstanceReport]) -> Option<SettingsTable> {
    let with: Vec<&InstanceReport> = instances
        .iter()
        .filter(|i| !i.variables.is_empty())
        .collect();
    let first = with.first()?;
    let same = with.iter().all(|i| i.variables == first.variables);
    let columns: Vec<(String, &BTreeMap<String, String>)> = match (same, with.len()) {
        (true, 1) => vec![(first.name.clone(), &first.variables)],
        (true, n) => vec![(format!("all {n} instances"), &first.variables)],
        (false, _) => with
            .iter()
            .map(|i| (i.name.clone(), &i.variables))
            .collect(),
    };
    let mut keys: Vec<&String> = with.iter().flat_map(|i| i.variables.keys()).collect();
    keys.sort();
    keys.dedup();
    let rows = keys
        .into_iter()
        .map(|k| {
            let values = columns
                .iter()
                .map(|(_, vars)| vars.get(k).map_or("-".to_string(), |v| readable(k, v)))
                .collect();
            (k.clone(), values)
        })
        .collect();
    Some(SettingsTable {
        heads: columns.into_iter().map(|(h, _)| h).collect(),
        rows,
    })
}

/// A value as the server gave it, with a byte count of a `..._size` setting also in binary
/// units: "134217728 (128.0 MiB)".
fn readable(key: &str, value: &str) -> String {
    match value.parse::<u64>() {
        Ok(bytes) if key.ends_with("_size") && bytes >= 1024 => {
            format!("{value} ({})", format_bytes(bytes))
        }
        _ => value.to_string(),
    }
}

/// The "Server settings in effect" section of summary.md.
pub fn markdown(s: &mut String, instances: &[InstanceReport]) {
    let Some(t) = table(instances) else {
        return;
    };
    let _ = writeln!(
        s,
        "\n## Server settings in effect\n\n| setting | {} |",
        t.heads.join(" | ")
    );
    let _ = writeln!(s, "|---|{}", "---|".repeat(t.heads.len()));
    for (key, values) in &t.rows {
        let _ = writeln!(s, "| {key} | {} |", values.join(" | "));
    }
}

/// The same section of report.html.
pub fn html(s: &mut String, instances: &[InstanceReport]) {
    let Some(t) = table(instances) else {
        return;
    };
    s.push_str("<h2>Server settings in effect</h2><table><tr><th>setting</th>");
    for h in &t.heads {
        let _ = write!(s, "<th class=\"l\">{}</th>", escape(h));
    }
    s.push_str("</tr>");
    for (key, values) in &t.rows {
        let _ = write!(s, "<tr><td>{}</td>", escape(key));
        for v in values {
            let _ = write!(s, "<td class=\"l\">{}</td>", escape(v));
        }
        s.push_str("</tr>");
    }
    s.push_str("</table>");
}

#[cfg(test)]
mod tests {
    use super::*;

    fn instance(name: &str, vars: &[(&str, &str)]) -> InstanceReport {
        InstanceReport {
            name: name.into(),
            engine: "mariadb".into(),
            version: "MariaDB 10.11".into(),
            data_path: String::new(),
            url: None,
            load: None,
            variables: vars
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
            prebuilt: None,
        }
    }

    #[test]
    fn identical_instances_share_one_column_and_sizes_read_in_binary_units() {
        let vars = [
            ("innodb_buffer_pool_size", "134217728"),
            ("innodb_flush_method", "O_DIRECT"),
        ];
        let t = table(&[instance("mariadb-1", &vars), instance("mariadb-2", &vars)]).unwrap();
        assert_eq!(t.heads, ["all 2 instances"]);
        assert_eq!(
            t.rows,
            [
                (
                    "innodb_buffer_pool_size".to_string(),
                    vec!["134217728 (128.0 MiB)".to_string()]
                ),
                (
                    "innodb_flush_method".to_string(),
                    vec!["O_DIRECT".to_string()]
                ),
            ]
        );
    }

    #[test]
    fn differing_instances_get_a_column_each_and_sqlite_no_section() {
        let t = table(&[
            instance("a", &[("fsync", "on")]),
            instance("b", &[("fsync", "off"), ("wal_sync_method", "fdatasync")]),
        ])
        .unwrap();
        assert_eq!(t.heads, ["a", "b"]);
        assert_eq!(t.rows[1].1, ["-", "fdatasync"]);
        assert_eq!(table(&[instance("sqlite-1", &[])]), None);
    }
}
