//! A fullness run: the whole scenario once per fill level of `[target] fullness`, each level
//! reaching its start state again (purge, filesystem, fill to that level) and running into a
//! sub-directory of its own (`fill-<level>pct/`); or an ad-hoc sweep of a raw device once per
//! level of `sweep --fullness` (purged, its first share written, that part swept). After
//! every level the table of the levels so far (fullness.json, fullness.md, fullness.html) is
//! written beside them. A level refused before anything started ends the run with its error;
//! a level interrupted ends it with the levels so far.

use std::path::{Path, PathBuf};

use super::entry::{self, EntryError, RunOptions, SweepOptions};
use super::lifecycle::{self, Outcome};
use super::start_state::{RawStart, StartStateRefused};
use crate::report::OutputError;
use crate::results::ReadError;
use crate::results::fullness::{FullnessReport, FullnessRow};
use crate::scenario::Plan;
use crate::scenario::start_state::Purge;
use crate::scenario::sweep::PlanSweep;

/// Why a fullness run stopped before its table was complete.
#[derive(Debug, thiserror::Error)]
pub enum FullnessError {
    /// A level's run refused before it started, or its results not written.
    #[error(transparent)]
    Level(#[from] EntryError),
    #[error("reading a level's result: {0}")]
    Read(#[from] ReadError),
    #[error("writing the fullness table: {0}")]
    Write(#[from] OutputError),
    #[error("the plan has no fill levels (target.fullness)")]
    NoLevels,
}

impl FullnessError {
    /// Invalid input, nothing started at that level (exit code 2).
    pub fn is_invalid(&self) -> bool {
        match self {
            FullnessError::Level(e) => e.is_invalid(),
            FullnessError::NoLevels => true,
            FullnessError::Read(_) | FullnessError::Write(_) => false,
        }
    }
}

/// The table's files in the fullness run's directory.
pub const FULLNESS_JSON: &str = "fullness.json";
pub const FULLNESS_MD: &str = "fullness.md";
pub const FULLNESS_HTML: &str = "fullness.html";

/// The sub-directory of one level's run.
pub fn level_dir(level_pct: f64) -> String {
    format!("fill-{level_pct}pct")
}

/// Run `plan` once per level of its `fullness`; the worst outcome of its levels' runs.
/// `options` is asked for each level's options (its `out` is replaced by the level's directory).
pub async fn run(plan: Plan, options: impl Fn() -> RunOptions) -> Result<Outcome, FullnessError> {
    let state = plan.start_state.clone().ok_or(FullnessError::NoLevels)?;
    let out = options()
        .out
        .unwrap_or_else(|| lifecycle::default_out(&plan.name));
    let table = FullnessReport {
        scenario: plan.name.clone(),
        device: state.device.clone(),
        levels: Vec::new(),
    };
    let one = async |i: usize, level: f64, dir: PathBuf| {
        let mut level_plan = plan.clone();
        level_plan.start_state = Some(state.at_level(level));
        let mut o = options();
        o.out = Some(dir);
        if i > 0 {
            o.start_at = None;
        }
        entry::run_plan(level_plan, o).await
    };
    each_level(&out, table, state.levels_pct(), one).await
}

/// Sweep a raw device once per level in `levels`: each level purged as `purge` says, its
/// first share written and only that part swept. `options` is asked for each level's options
/// (its `out` replaced by the level's directory, its `start` by the level's state).
pub async fn sweep(
    sweep: PlanSweep,
    device: String,
    levels: &[f64],
    purge: Purge,
    options: impl Fn() -> SweepOptions,
) -> Result<Outcome, FullnessError> {
    let out = options()
        .out
        .unwrap_or_else(|| lifecycle::default_out("sweep"));
    let table = FullnessReport {
        scenario: "sweep".into(),
        device: device.clone(),
        levels: Vec::new(),
    };
    let one = async |_: usize, level: f64, dir: PathBuf| {
        // The previous level's descriptor can hold the device a moment after its close.
        let claimed = super::start_state::claim(&device);
        drop(claimed.map_err(|e| EntryError::from(StartStateRefused::from(e)))?);
        let start = RawStart {
            purge,
            fill_pct: Some(level),
        };
        let level_sweep = PlanSweep {
            region: start.region(),
            fill_passes: 0,
            ..sweep.clone()
        };
        let mut o = options();
        o.out = Some(dir);
        o.start = Some(start);
        entry::sweep(level_sweep, o).await
    };
    each_level(&out, table, levels, one).await
}

/// Each level run by `one` (its index, level and directory) into `out`'s sub-directory, its
/// row added to `table` and the table rewritten after it; stopped after an interrupted level.
/// The worst outcome of the levels'.
async fn each_level(
    out: &Path,
    mut table: FullnessReport,
    levels: &[f64],
    mut one: impl AsyncFnMut(usize, f64, PathBuf) -> Result<Outcome, EntryError>,
) -> Result<Outcome, FullnessError> {
    let mut worst = Outcome::Complete;
    for (i, &level) in levels.iter().enumerate() {
        let dir = level_dir(level);
        crate::console::stderr_line(&format!(
            "fullness: level {level} % -> {}",
            out.join(&dir).display()
        ));
        let outcome = one(i, level, out.join(&dir)).await?;
        let result = crate::results::read_result(&out.join(&dir).join("result.json"))?;
        table.levels.push(FullnessRow::of(level, dir, &result));
        write_table(out, &table)?;
        worst = worse(worst, outcome);
        if outcome == Outcome::Interrupted {
            break;
        }
    }
    crate::console::stdout_text(&crate::report::start_state::fullness_markdown(&table));
    Ok(worst)
}

fn write_table(out: &Path, table: &FullnessReport) -> Result<(), OutputError> {
    crate::report::write_json(&out.join(FULLNESS_JSON), table)?;
    let md = crate::report::start_state::fullness_markdown(table);
    crate::report::write_atomic(&PathBuf::from(out).join(FULLNESS_MD), md.as_bytes())?;
    let html = crate::report::start_state::fullness_html(table);
    crate::report::write_atomic(&PathBuf::from(out).join(FULLNESS_HTML), html.as_bytes())
}

/// Interrupted over failed over complete.
fn worse(a: Outcome, b: Outcome) -> Outcome {
    let rank = |o: Outcome| match o {
        Outcome::Complete => 0,
        Outcome::Failed => 1,
        Outcome::Interrupted => 2,
    };
    if rank(b) > rank(a) { b } else { a }
}
