//! An interval's figures as CSV columns, to sit beside a series' own columns. Names are stable
//! and prefixed by what they describe (`dev_`, `cpu_`, `mem_`, `psi_`, `proc_self_`); named
//! processes vary from run to run and are not columns. A figure that is not known is an empty
//! cell.

use std::sync::LazyLock;

use super::diskstats::DeviceFigures;
use super::interval::IntervalTelemetry;

enum Cell {
    Figure(Option<f64>),
    Count(Option<u64>),
}

type Column = (&'static str, fn(&IntervalTelemetry) -> Cell);

fn dev(t: &IntervalTelemetry) -> Option<&DeviceFigures> {
    t.device.as_ref().map(|d| &d.total)
}

const COLUMNS: [Column; 29] = [
    ("dev_read_ops_per_s", |t| {
        Cell::Figure(dev(t).map(|d| d.read_ops_per_s))
    }),
    ("dev_read_mib_per_s", |t| {
        Cell::Figure(dev(t).map(|d| d.read_mib_per_s))
    }),
    ("dev_read_avg_request_kib", |t| {
        Cell::Figure(dev(t).and_then(|d| d.read_avg_request_kib))
    }),
    ("dev_read_await_ms", |t| {
        Cell::Figure(dev(t).and_then(|d| d.read_await_ms))
    }),
    ("dev_write_ops_per_s", |t| {
        Cell::Figure(dev(t).map(|d| d.write_ops_per_s))
    }),
    ("dev_write_mib_per_s", |t| {
        Cell::Figure(dev(t).map(|d| d.write_mib_per_s))
    }),
    ("dev_write_avg_request_kib", |t| {
        Cell::Figure(dev(t).and_then(|d| d.write_avg_request_kib))
    }),
    ("dev_write_await_ms", |t| {
        Cell::Figure(dev(t).and_then(|d| d.write_await_ms))
    }),
    ("dev_flushes_per_s", |t| {
        Cell::Figure(dev(t).map(|d| d.flushes_per_s))
    }),
    ("dev_discards_per_s", |t| {
        Cell::Figure(dev(t).map(|d| d.discards_per_s))
    }),
    ("dev_aqu_sz", |t| Cell::Figure(dev(t).map(|d| d.aqu_sz))),
    ("dev_util_pct", |t| Cell::Figure(dev(t).map(|d| d.util_pct))),
    ("dev_read_bytes", |t| {
        Cell::Count(dev(t).map(|d| d.counts.read_bytes))
    }),
    ("dev_written_bytes", |t| {
        Cell::Count(dev(t).map(|d| d.counts.written_bytes))
    }),
    ("dev_flushes", |t| {
        Cell::Count(dev(t).map(|d| d.counts.flushes))
    }),
    ("cpu_user_pct", |t| {
        Cell::Figure(t.cpu.as_ref().map(|c| c.user_pct))
    }),
    ("cpu_system_pct", |t| {
        Cell::Figure(t.cpu.as_ref().map(|c| c.system_pct))
    }),
    ("cpu_iowait_pct", |t| {
        Cell::Figure(t.cpu.as_ref().map(|c| c.iowait_pct))
    }),
    ("cpu_steal_pct", |t| {
        Cell::Figure(t.cpu.as_ref().map(|c| c.steal_pct))
    }),
    ("cpu_idle_pct", |t| {
        Cell::Figure(t.cpu.as_ref().map(|c| c.idle_pct))
    }),
    ("cpu_busy_pct", |t| {
        Cell::Figure(t.cpu.as_ref().map(|c| c.busy_pct))
    }),
    ("mem_cached_bytes", |t| {
        Cell::Count(t.memory.map(|m| m.cached_bytes))
    }),
    ("mem_dirty_bytes", |t| {
        Cell::Count(t.memory.map(|m| m.dirty_bytes))
    }),
    ("mem_writeback_bytes", |t| {
        Cell::Count(t.memory.map(|m| m.writeback_bytes))
    }),
    ("psi_cpu_some_pct", |t| {
        Cell::Figure(t.pressure.cpu_some_pct)
    }),
    ("psi_io_some_pct", |t| Cell::Figure(t.pressure.io_some_pct)),
    ("psi_io_full_pct", |t| Cell::Figure(t.pressure.io_full_pct)),
    ("proc_self_cpu_pct", |t| {
        Cell::Figure(t.own_process.as_ref().map(|p| p.cpu_pct))
    }),
    ("proc_self_rss_bytes", |t| {
        Cell::Count(t.own_process.as_ref().map(|p| p.rss_bytes))
    }),
];

static HEADER: LazyLock<String> = LazyLock::new(|| {
    let names: Vec<&str> = COLUMNS.iter().map(|(name, _)| *name).collect();
    names.join(",")
});

impl IntervalTelemetry {
    /// The column names of [`IntervalTelemetry::csv_fields`], comma-separated, no newline.
    pub fn csv_header() -> &'static str {
        HEADER.as_str()
    }

    /// This interval's cells, in the order of [`IntervalTelemetry::csv_header`],
    /// comma-separated, no newline; figures with three decimals.
    pub fn csv_fields(&self) -> String {
        let cells: Vec<String> = COLUMNS
            .iter()
            .map(|(_, cell)| match cell(self) {
                Cell::Figure(Some(v)) => format!("{v:.3}"),
                Cell::Count(Some(n)) => n.to_string(),
                Cell::Figure(None) | Cell::Count(None) => String::new(),
            })
            .collect();
        cells.join(",")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::telemetry::interval::PressureFigures;

    #[test]
    fn the_header_is_stable_and_every_row_has_its_columns() {
        let header = IntervalTelemetry::csv_header();
        assert!(header.starts_with("dev_read_ops_per_s,dev_read_mib_per_s,"));
        assert!(header.ends_with(",proc_self_cpu_pct,proc_self_rss_bytes"));
        let prefixes = ["dev_", "cpu_", "mem_", "psi_", "proc_self_"];
        for name in header.split(',') {
            assert!(prefixes.iter().any(|p| name.starts_with(p)), "{name}");
        }
        let empty = IntervalTelemetry {
            elapsed_ms: 1000.0,
            device: None,
            cpu: None,
            memory: None,
            pressure: PressureFigures::from_stalls(None, Some(12_000), None, 1000.0),
            own_process: None,
            processes: Vec::new(),
        };
        let row = empty.csv_fields();
        assert_eq!(row.split(',').count(), header.split(',').count());
        let psi_io_some = header.split(',').position(|c| c == "psi_io_some_pct");
        assert_eq!(
            row.split(',').nth(psi_io_some.expect("column")),
            Some("1.200")
        );
    }
}
