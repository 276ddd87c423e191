//! `drivebench plan SCENARIO`: validate and print the resolved timeline, data size, memory
//! and preflight findings. No side effects: nothing is created, nothing is started (an external
//! SQL Server is only asked for its limits, read only).

use std::fmt::Write;
use std::time::Duration;

use super::{CliError, EXIT_OK, ScenarioArgs};
use crate::protocol::preflight;
use crate::scenario::Plan;
use crate::scenario::plan::{DatabaseRun, Estimates, PlanWorkload};
use drivebench_core::config::units::format_bytes;
use drivebench_core::config::units::{format_count, format_duration};

#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    pub scenario: ScenarioArgs,
    /// Print the resolved plan as JSON (what plan.json will hold) instead of text.
    #[arg(long)]
    pub json: bool,
}

pub async fn plan(args: Args) -> Result<i32, CliError> {
    let plan = args.scenario.resolve()?;
    if let Some(state) = &plan.start_state {
        // A purge by the drive that sysfs shows cannot be done, refused as `run` refuses it.
        let device =
            std::fs::canonicalize(&state.device).unwrap_or_else(|_| (&state.device).into());
        crate::protocol::start_state::check_purge(&device, state.purge).map_err(|e| {
            let refused = crate::protocol::start_state::StartStateRefused::from(e);
            CliError::Invalid(format!("{}: {refused}", args.scenario.scenario.display()))
        })?;
    }
    if args.json {
        let text =
            serde_json::to_string_pretty(&plan).map_err(|e| CliError::Failed(e.to_string()))?;
        crate::console::stdout_text(&format!("{text}\n"));
        return Ok(EXIT_OK);
    }
    let mut findings = preflight::check(&plan);
    if let Some(db) = &plan.database {
        findings.extend(preflight::external_findings(db).await);
    }
    crate::console::stdout_text(&render(&plan, &findings));
    // The plan is valid, but this host cannot run it: exit 2, as `run` would.
    let missing =
        (plan.database.as_ref()).and_then(|db| preflight::missing_server(db, &plan.target_path));
    if let Some(missing) = missing {
        return Err(CliError::Invalid(missing));
    }
    Ok(EXIT_OK)
}

fn dur(ms: u64) -> String {
    format_duration(Duration::from_millis(ms))
}

pub fn render(plan: &Plan, findings: &[crate::results::finding::Finding]) -> String {
    let mut s = String::new();
    header(&mut s, plan);
    if let Some(db) = &plan.database {
        workload(&mut s, &db.workload);
    }
    if plan.time_scale != 1.0 {
        let _ = writeln!(s, "scale     every duration x {}", plan.time_scale);
    }
    if let Some(db) = &plan.database {
        timeline(&mut s, plan.report_interval_ms, db);
        sizes(&mut s, &db.estimates);
    }
    sweeps(&mut s, plan);
    let _ = writeln!(s, "\npreflight");
    for f in findings {
        let _ = writeln!(s, "  {:<8} {}", f.level.as_str(), f.message);
    }
    s
}

/// The scenario, its overrides, the instances and the target.
fn header(s: &mut String, plan: &Plan) {
    let _ = writeln!(s, "scenario  {} ({})", plan.name, plan.scenario_file);
    for o in &plan.overrides {
        let _ = writeln!(s, "override  {o}");
    }
    let engines: Vec<String> = plan
        .instances()
        .iter()
        .map(|i| format!("{} ({:?})", i.name, i.provision).to_lowercase())
        .collect();
    let _ = writeln!(s, "instances {}", engines.join(", "));
    let _ = writeln!(s, "target    {}", plan.target_path);
    if let Some(state) = &plan.start_state {
        let _ = writeln!(s, "device    {}", state.describe());
    }
}

/// The workload line (sysbench or TPC-C-like), TPC-C's departures from the spec, and the
/// connection pool when the clients share one.
fn workload(s: &mut String, w: &PlanWorkload) {
    let pacing = match w.rate {
        Some(r) => format!("open model, {r} tx/s per instance (Poisson arrivals)"),
        None => "closed loop".to_string(),
    };
    for line in w
        .benchmark
        .plan_lines(w.clients, w.rate, &pacing, w.prepare)
    {
        let _ = writeln!(s, "{line}");
    }
    if w.pooled() {
        let _ = writeln!(
            s,
            "          {} connections per instance shared by the {} clients (held per transaction)",
            w.connections(),
            w.clients
        );
    }
}

/// What `plan` says of a phase's rate and rounds (steady end or write cliff), after its kind.
fn phase_rounds(p: &crate::scenario::plan::PlanPhase) -> String {
    use crate::scenario::plan::PhaseRounds;
    let rate = p.rate.map_or(String::new(), |r| {
        format!("; open loop at {r} tx/s per instance")
    });
    let rounds = match p.rounds {
        PhaseRounds::Steady { steady: st } => format!(
            "; ends when steady: {} rounds of {} within {} % range and {} % slope, at most this long",
            st.rule.window,
            dur(st.round_ms),
            st.rule.max_range_pct,
            st.rule.max_slope_pct
        ),
        PhaseRounds::Cliff { cliff: c } => format!(
            "; write cliff: rounds of {}, p99 departs when {} rounds in a row leave ± {} % of the first {} rounds' mean",
            dur(c.round_ms),
            c.rule.window,
            c.rule.max_range_pct,
            c.rule.window
        ),
        PhaseRounds::None {} => String::new(),
    };
    format!("{rate}{rounds}")
}

/// The phases with their start offsets and durations, then the curve's steps when there is one.
fn timeline(s: &mut String, report_interval_ms: u64, plan: &DatabaseRun) {
    let _ = writeln!(s, "\ntimeline (report every {})", dur(report_interval_ms));
    let _ = writeln!(s, "  {:>10}  {:<16} {:>10}", "start", "phase", "duration");
    let _ = writeln!(
        s,
        "  {:>10}  {:<16} {:>10}  before the clock; reused when present and matching (prepare = auto)",
        "-", "load", "-"
    );
    for p in &plan.phases {
        let rec = if p.record { "recorded" } else { "not recorded" };
        let until = phase_rounds(p);
        let _ = writeln!(
            s,
            "  {:>10}  {:<16} {:>10}  {rec}{until}",
            format!("+{}", dur(p.start_offset_ms)),
            p.name,
            dur(p.duration_ms)
        );
    }
    let phases = plan.estimates.phases_total_ms;
    let Some(c) = &plan.curve else {
        let _ = writeln!(
            s,
            "  {:>10}  {:<16} {:>10}",
            format!("+{}", dur(phases)),
            "end",
            ""
        );
        let _ = writeln!(s, "  total {} of phases, plus the load", dur(phases));
        return;
    };
    // The curve follows the phases at once: one "end", after the curve.
    *s += &c.timeline(phases);
    let _ = writeln!(
        s,
        "  total at most {}: {} of phases and at most {} of curve, plus the load",
        dur(phases + c.max_total_ms()),
        dur(phases),
        dur(c.max_total_ms())
    );
}

/// The data and client memory estimates.
fn sizes(s: &mut String, e: &Estimates) {
    let _ = writeln!(
        s,
        "\ndata      {} rows per instance, about {} per instance, {} in total (estimate)",
        format_count(e.rows_per_instance),
        format_bytes(e.data_bytes_per_instance),
        format_bytes(e.data_bytes_total)
    );
    let _ = writeln!(
        s,
        "memory    about {} on the client side",
        format_bytes(e.client_memory_bytes)
    );
}

/// Each sweep as it will run.
fn sweeps(s: &mut String, plan: &Plan) {
    for (i, sweep) in plan.sweeps.iter().enumerate() {
        let _ = writeln!(s, "\nsweep[{i}] (after the phases)");
        for line in sweep.describe(&plan.target_path) {
            let _ = writeln!(s, "  {line}");
        }
    }
}
