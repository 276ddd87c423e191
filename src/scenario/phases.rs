//! `[[phase]]` resolved: names unique, durations scaled, offsets from the first phase's start,
//! a phase's fixed rate, and the rounds of an `until = "steady"` or a `cliff` phase checked
//! against the report interval and the phase's maximum.

use std::collections::HashSet;

use super::bounds::{positive_duration, scale_ms};
use super::file::{PhaseSection, PhaseUntil, SteadySection};
use super::plan::{PhaseRounds, PhaseSteady, PlanPhase};
use drivebench_core::config::error::{Invalid, KeyPath};
use drivebench_core::curve::steady::SteadyRule;

/// Default length of a steady-state round.
const DEFAULT_ROUND: &str = "1m";

pub(super) fn resolve(
    sections: &[PhaseSection],
    key: &KeyPath,
    time_scale: f64,
    report_interval_ms: u64,
) -> Result<Vec<PlanPhase>, Invalid> {
    if sections.is_empty() {
        return Err(Invalid::new(
            key.clone(),
            "at least one [[phase]] is needed",
        ));
    }
    let mut names = HashSet::new();
    let mut offset = 0;
    let mut out = Vec::new();
    for (i, p) in sections.iter().enumerate() {
        let k = key.index(i);
        let name = p.name.trim();
        if name.is_empty() {
            return Err(Invalid::new(k.key("name"), "must not be empty"));
        }
        if !names.insert(name.to_string()) {
            return Err(Invalid::new(
                k.key("name"),
                format!("phase name {name:?} is used twice"),
            ));
        }
        let d = positive_duration(&p.duration, k.key("duration"))?;
        let duration_ms = scale_ms(d, time_scale, &k.key("duration"))?.max(1);
        let clock = (time_scale, report_interval_ms, duration_ms);
        out.push(PlanPhase {
            name: name.to_string(),
            start_offset_ms: offset,
            duration_ms,
            record: p.record.unwrap_or(true),
            rounds: rounds(p, &k, clock)?,
            rate: rate(p.rate, &k)?,
        });
        offset = offset.saturating_add(duration_ms);
    }
    Ok(out)
}

/// The phase's rounds: the steady-state end (`until = "steady"`), the write cliff's
/// (`cliff = true`, on a recorded phase), or none; `[phase.steady]` only with one of them.
fn rounds(p: &PhaseSection, k: &KeyPath, clock: (f64, u64, u64)) -> Result<PhaseRounds, Invalid> {
    let refuse = |msg: &str| Err(Invalid::new(k.key("cliff"), msg));
    match (
        p.until.unwrap_or(PhaseUntil::Duration),
        p.cliff.unwrap_or(false),
    ) {
        (PhaseUntil::Steady, true) => refuse(
            "cannot go with until = \"steady\": a cliff phase runs its whole duration at a \
             fixed load; remove one",
        ),
        (PhaseUntil::Duration, true) if !p.record.unwrap_or(true) => {
            refuse("is judged on a recorded phase; remove record = false or cliff")
        }
        (PhaseUntil::Steady, false) => Ok(PhaseRounds::Steady {
            steady: steady(p.steady.as_ref(), k, clock)?,
        }),
        (PhaseUntil::Duration, true) => Ok(PhaseRounds::Cliff {
            cliff: steady(p.steady.as_ref(), k, clock)?,
        }),
        (PhaseUntil::Duration, false) if p.steady.is_some() => Err(Invalid::new(
            k.key("steady"),
            "is read only with until = \"steady\" or cliff = true; add one or remove \
             [phase.steady]",
        )),
        (PhaseUntil::Duration, false) => Ok(PhaseRounds::None {}),
    }
}

/// A phase's `rate`: a positive number of transactions per second, when given.
fn rate(rate: Option<f64>, k: &KeyPath) -> Result<Option<f64>, Invalid> {
    match rate {
        Some(r) if !(r.is_finite() && r > 0.0) => Err(Invalid::new(
            k.key("rate"),
            format!("must be a positive number of transactions per second, got {r}"),
        )),
        r => Ok(r),
    }
}

/// The rule of a steady phase at `k`; `clock` is the time scale, the report interval and the
/// phase's maximum (ms).
fn steady(
    s: Option<&SteadySection>,
    k: &KeyPath,
    (time_scale, report_interval_ms, duration_ms): (f64, u64, u64),
) -> Result<PhaseSteady, Invalid> {
    let key = k.key("steady");
    let round_text = s.and_then(|s| s.round.as_deref()).unwrap_or(DEFAULT_ROUND);
    let round = positive_duration(round_text, key.key("round"))?;
    let round_ms = scale_ms(round, time_scale, &key.key("round"))?.max(1);
    if !round_ms.is_multiple_of(report_interval_ms) {
        return Err(Invalid::new(
            key.key("round"),
            format!(
                "must be a whole number of report intervals ({} ms), got {round_ms} ms",
                report_interval_ms
            ),
        ));
    }
    let defaults = SteadyRule::default();
    let window = match s.and_then(|s| s.window) {
        None => defaults.window,
        Some(w) if (2..=1000).contains(&w) => w as usize,
        Some(w) => {
            return Err(Invalid::new(
                key.key("window"),
                format!("must be 2 to 1000 rounds, got {w}"),
            ));
        }
    };
    let pct = |v: Option<f64>, name: &str, default: f64| match v {
        None => Ok(default),
        Some(x) if x > 0.0 && x.is_finite() => Ok(x),
        Some(x) => Err(Invalid::new(
            key.key(name),
            format!("must be a percentage above 0, got {x}"),
        )),
    };
    let max_range_pct = pct(
        s.and_then(|s| s.max_range_pct),
        "max_range_pct",
        defaults.max_range_pct,
    )?;
    let max_slope_pct = pct(
        s.and_then(|s| s.max_slope_pct),
        "max_slope_pct",
        defaults.max_slope_pct,
    )?;
    let max_rounds = (duration_ms / round_ms) as usize;
    if max_rounds < window {
        return Err(Invalid::new(
            k.key("duration"),
            format!(
                "holds {max_rounds} round(s) of {round_text}, fewer than the steady-state \
                 window of {window}: lengthen the phase or shorten steady.round"
            ),
        ));
    }
    Ok(PhaseSteady {
        round_ms,
        rule: SteadyRule {
            window,
            max_range_pct,
            max_slope_pct,
            max_rounds,
        },
    })
}

#[cfg(test)]
mod tests {
    use super::super::load_str;
    use super::super::plan::{PhaseRounds, PlanPhase};

    const HEAD: &str = "name = \"x\"\nreport_interval = \"1s\"\n[[instance]]\nengine = \"sqlite\"\n\
                        [workload]\nbenchmark = \"sysbench\"\ntest = \"oltp_write_only\"\n\
                        rate = 5.0\n";

    /// The phases of a scenario whose `[[phase]]` tables are `phases`.
    fn phases(phases: &str) -> Vec<PlanPhase> {
        let plan = load_str(&format!("{HEAD}{phases}"), "x.toml", &[], 1.0).unwrap();
        plan.database.unwrap().phases
    }

    #[test]
    fn a_phase_has_steady_cliff_or_no_rounds_and_plan_json_keeps_which() {
        let p = phases(
            "[[phase]]\nname = \"a\"\nduration = \"10s\"\nuntil = \"steady\"\n\
             [phase.steady]\nround = \"2s\"\nwindow = 3\n\
             [[phase]]\nname = \"b\"\nduration = \"10s\"\nrate = 40.0\ncliff = true\n\
             [phase.steady]\nround = \"2s\"\nwindow = 2\n\
             [[phase]]\nname = \"c\"\nduration = \"10s\"\n",
        );
        assert!(matches!(p[0].rounds, PhaseRounds::Steady { steady } if steady.rule.window == 3));
        let cliff = p[1].rounds.cliff().unwrap();
        assert_eq!(
            (cliff.round_ms, cliff.rule.window, p[1].rate),
            (2000, 2, Some(40.0))
        );
        assert_eq!((p[2].rounds, p[2].rate), (PhaseRounds::None {}, None));
        for phase in &p {
            let json = serde_json::to_value(phase).unwrap();
            let back: PlanPhase = serde_json::from_value(json.clone()).unwrap();
            assert_eq!(&back, phase, "{json}");
        }
        let json = serde_json::to_value(&p[1]).unwrap();
        assert_eq!(json["cliff"]["round_ms"], 2000, "{json}");
        assert!(json.get("steady").is_none(), "{json}");
    }
}
