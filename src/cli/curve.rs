//! `drivebench curve SCENARIO`: a shortcut for running a scenario's load curve. It runs the
//! scenario's protocol (load, phases as the precondition) with its `[[curve]]`, or with the
//! default curve (points 10, 50, 70, 80, 90, 100 % of the peak, 60 s each after 10 s settle)
//! when the scenario has none. Flags are those of `run`.

use super::CliError;
use super::run::{Args as RunArgs, run_plan};
use crate::scenario::curve::PlanCurve;
use drivebench_core::config::KeyPath;

/// The flags of `run`.
pub type Args = RunArgs;

pub async fn curve(args: Args) -> Result<i32, CliError> {
    let mut plan = args.scenario.resolve()?;
    let (file, scale) = (plan.scenario_file.clone(), plan.time_scale);
    if let Some(db) = &mut plan.database
        && db.curve.is_none()
    {
        db.workload
            .benchmark
            .check_curve(&KeyPath::root().key("workload").key("pacing"))
            .map_err(|e| CliError::Invalid(format!("{file}: {}: {}", e.key, e.message)))?;
        db.curve = Some(PlanCurve::default_for(scale));
    }
    run_plan(plan, &args).await
}
