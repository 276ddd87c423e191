//! A phase's telemetry in summary.md and the console: the verdict and its deciding figures,
//! the drive's figures, the host's CPU.

use crate::results::telemetry::{PhaseTelemetry, bound_name};
use drivebench_core::table::{Column, Table};
use drivebench_system::telemetry::IntervalTelemetry;

/// summary.md's lines for a phase with telemetry: the verdict and its deciding figures, the
/// drive's figures and per transaction, the host's CPU.
pub fn markdown(s: &mut String, t: &PhaseTelemetry) {
    use std::fmt::Write;
    let v = t.verdict.judged();
    let _ = writeln!(
        s,
        "\nWhat limited it: **{}** — {}{}\n",
        bound_name(v.bound),
        v.reason,
        super::engine_io::class_suffix(t)
    );
    super::table::markdown(s, &deciding(t));
    let _ = writeln!(s);
    if let Some(line) = drive_line(t) {
        let _ = writeln!(s, "- Drive: {line}");
    }
    if let Some(line) = host_line(&t.summary) {
        let _ = writeln!(s, "- Host: {line}");
    }
}

/// The figures that decided the verdict, against their thresholds.
pub fn deciding(t: &PhaseTelemetry) -> Table {
    let mut table = Table::new(vec![
        Column::left("figure"),
        Column::right("value"),
        Column::right("threshold"),
    ]);
    for f in &t.verdict.judged().deciding {
        let limit = f
            .threshold
            .map_or("-".into(), |x| format!("{x:.1} {}", f.unit));
        table.row(vec![
            f.name.clone(),
            format!("{:.1} {}", f.value, f.unit),
            limit,
        ]);
    }
    table
}

/// The drive's figures over the phase, and per transaction.
pub fn drive_line(t: &PhaseTelemetry) -> Option<String> {
    let dev = &t.summary.device.as_ref()?.total;
    let d = &t.derived;
    let await_ms = dev.await_ms().map_or("-".into(), |a| format!("{a:.2} ms"));
    let per_tx = match (d.device_ios_per_tx, d.device_written_bytes_per_tx) {
        (Some(ios), Some(written)) => format!(
            "; per transaction {ios:.2} I/Os, {:.1} KiB written, {:.2} flushes",
            written / 1024.0,
            d.device_flushes_per_commit.unwrap_or(0.0)
        ),
        _ => String::new(),
    };
    Some(format!(
        "{} — {:.0} reads/s {:.1} MiB/s, {:.0} writes/s {:.1} MiB/s, await {await_ms}, aqu-sz {:.2}, util {:.0} %, {:.1} flushes/s{per_tx}",
        dev.devices.join("+"),
        dev.read_ops_per_s,
        dev.read_mib_per_s,
        dev.write_ops_per_s,
        dev.write_mib_per_s,
        dev.aqu_sz,
        dev.util_pct,
        dev.flushes_per_s,
    ))
}

/// Host CPU shares, drivebench's and the servers' CPU.
pub fn host_line(t: &IntervalTelemetry) -> Option<String> {
    let c = t.cpu.as_ref()?;
    let mut line = format!(
        "CPU busy {:.0} % (user {:.0}, system {:.0}, iowait {:.0}, steal {:.0})",
        c.busy_pct, c.user_pct, c.system_pct, c.iowait_pct, c.steal_pct
    );
    for p in t.own_process.iter().chain(&t.processes) {
        line += &format!(", {} {:.0} % of a core", p.name, p.cpu_pct);
    }
    Some(line)
}
