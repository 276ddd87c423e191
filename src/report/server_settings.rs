//! The server settings in effect (InnoDB's buffer pool and flush method, PostgreSQL's
//! shared_buffers and wal_sync_method, ...), as each instance's server reported them once
//! connected: one table in summary.md and report.html, with one value column when every
//! instance runs with the same settings and a column per instance when they differ.

use std::collections::BTreeMap;

use crate::results::run::InstanceReport;
use drivebench_core::config::units::format_bytes;
use drivebench_core::table::{Column, Table};

/// The table of `instances`' settings: "setting", then a column per distinct set of values,
/// a row per setting; `None` when no instance reported any (SQLite).
pub fn table(instances: &[InstanceReport]) -> Option<Table> {
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
    let heads = std::iter::once(Column::left("setting"));
    let mut t = Table::new(
        heads
            .chain(columns.iter().map(|(h, _)| Column::left(h)))
            .collect(),
    );
    for k in keys {
        let values = columns
            .iter()
            .map(|(_, vars)| vars.get(k).map_or("-".to_string(), |v| readable(k, v)));
        t.row(std::iter::once(k.clone()).chain(values).collect());
    }
    Some(t)
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
    s.push_str("\n## Server settings in effect\n\n");
    super::table::markdown(s, &t);
}

/// The same section of report.html.
pub fn html(s: &mut String, instances: &[InstanceReport]) {
    let Some(t) = table(instances) else {
        return;
    };
    s.push_str("<h2>Server settings in effect</h2>");
    super::table::html(s, &t);
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
            engine_io_missing: Vec::new(),
        }
    }

    #[test]
    fn identical_instances_share_one_column_and_sizes_read_in_binary_units() {
        let vars = [
            ("innodb_buffer_pool_size", "134217728"),
            ("innodb_flush_method", "O_DIRECT"),
        ];
        let t = table(&[instance("mariadb-1", &vars), instance("mariadb-2", &vars)]).unwrap();
        assert_eq!(t.columns[1], Column::left("all 2 instances"));
        let rows: Vec<Vec<&str>> = t.rows.iter().map(texts).collect();
        assert_eq!(
            rows,
            [
                ["innodb_buffer_pool_size", "134217728 (128.0 MiB)"],
                ["innodb_flush_method", "O_DIRECT"],
            ]
        );
    }

    fn texts(row: &drivebench_core::table::Row) -> Vec<&str> {
        row.cells.iter().map(|c| c.text.as_str()).collect()
    }

    #[test]
    fn differing_instances_get_a_column_each_and_sqlite_no_section() {
        let t = table(&[
            instance("a", &[("fsync", "on")]),
            instance("b", &[("fsync", "off"), ("wal_sync_method", "fdatasync")]),
        ])
        .unwrap();
        let heads: Vec<&str> = t.columns.iter().map(|c| c.head.as_str()).collect();
        assert_eq!(heads, ["setting", "a", "b"]);
        assert_eq!(texts(&t.rows[1]), ["wal_sync_method", "-", "fdatasync"]);
        assert_eq!(table(&[instance("sqlite-1", &[])]), None);
    }
}
