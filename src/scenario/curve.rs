//! `[[curve]]`: a database load curve after the load and the scenario's phases (its
//! precondition). A closed-loop max run with the scenario's clients measures each instance's
//! peak TPS; each point then runs the same workload as an open model at a percentage of that
//! peak, all instances at the same percentage together, with a settle time excluded from the
//! point's figures. `stop_at_p99` ends the curve early; `slo = { p99 = "20ms" }` searches the
//! highest rate within the objective by bisection (`drivebench_core::curve`, shared with I/O sweeps).

use std::time::Duration;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::bounds::scale_ms;
use drivebench_core::config::error::{Invalid, KeyPath};
use drivebench_core::config::units::parse_duration;
use drivebench_core::curve::CurveSpec;

/// A `[[curve]]` table as written.
#[derive(Debug, Clone, Default, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CurveSection {
    /// Points in % of the measured peak TPS, in the order they run (over 100 asks for more
    /// than the peak). Default [10, 50, 70, 80, 90, 100].
    pub points: Option<Vec<f64>>,
    /// Measured time of each point (and of each SLO step), e.g. "60s". Default "60s".
    pub point_duration: Option<String>,
    /// Time at the start of each point excluded from its figures, e.g. "10s". Default "10s".
    pub settle: Option<String>,
    /// Measured time of the closed-loop max run. Default: point_duration.
    pub max_duration: Option<String>,
    /// End the curve after the first point whose p99 response time passes this, e.g. "50ms".
    pub stop_at_p99: Option<String>,
    /// Latency objective searched by bisection between the curve's points.
    pub slo: Option<SloSection>,
    /// Bisection steps of the SLO search at most. Default 4.
    pub slo_steps: Option<i64>,
}

#[derive(Debug, Clone, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SloSection {
    /// The p99 response time the rate must stay within, e.g. "20ms".
    pub p99: String,
}

/// The resolved curve.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema, PartialEq)]
pub struct PlanCurve {
    /// Points, stop threshold and SLO, as the shared curve mechanism takes them.
    pub spec: CurveSpec,
    pub point_duration_ms: u64,
    pub settle_ms: u64,
    pub max_duration_ms: u64,
}

impl PlanCurve {
    /// Longest the curve can take: the max run, every point and every SLO step, each with
    /// its settle time.
    pub fn max_total_ms(&self) -> u64 {
        let runs = self.spec.points_pct.len() as u64
            + if self.spec.slo_p99_ms.is_some() {
                u64::from(self.spec.slo_steps)
            } else {
                0
            };
        let each = self.settle_ms.saturating_add(self.point_duration_ms);
        (self.settle_ms.saturating_add(self.max_duration_ms))
            .saturating_add(runs.saturating_mul(each))
    }

    /// `drivebench plan`'s lines for the curve, starting `offset_ms` after the first phase.
    pub fn timeline(&self, offset_ms: u64) -> String {
        use drivebench_core::config::units::format_duration;
        let d = |ms: u64| format_duration(Duration::from_millis(ms));
        let pcts: Vec<String> = self
            .spec
            .points_pct
            .iter()
            .map(|p| format!("{p}"))
            .collect();
        let mut s = format!(
            "  {:>10}  {:<16} {:>10}  closed loop with the scenario's clients: peak TPS per instance (after {} settle)\n",
            format!("+{}", d(offset_ms)),
            "curve max",
            d(self.max_duration_ms),
            d(self.settle_ms)
        );
        s += &format!(
            "  {:>10}  {:<16} {:>10}  each, open model at {} % of the peak, {} settle excluded\n",
            "",
            format!("curve {} points", self.spec.points_pct.len()),
            d(self.point_duration_ms),
            pcts.join(", "),
            d(self.settle_ms)
        );
        if let Some(p99) = self.spec.stop_p99_ms {
            s += &format!(
                "  {:>10}  {:<16} {:>10}  stops after a point with p99 > {p99} ms\n",
                "", "", ""
            );
        }
        if let Some(slo) = self.spec.slo_p99_ms {
            s += &format!(
                "  {:>10}  {:<16} {:>10}  each, at most {} bisection steps for max TPS at p99 <= {slo} ms\n",
                "",
                "curve SLO search",
                d(self.point_duration_ms),
                self.spec.slo_steps
            );
        }
        s += &format!(
            "  {:>10}  {:<16} {:>10}  at most {} of curve\n",
            format!("+{}", d(offset_ms + self.max_total_ms())),
            "end",
            "",
            d(self.max_total_ms())
        );
        s
    }

    /// The curve `drivebench curve` runs when the scenario has none.
    pub fn default_for(time_scale: f64) -> Self {
        resolve_one(&CurveSection::default(), &KeyPath::root(), time_scale)
            .expect("the default curve is valid")
    }
}

/// Highest point, in % of the peak.
const MAX_POINT_PCT: f64 = 1000.0;
/// Most bisection steps.
const MAX_SLO_STEPS: i64 = 20;

/// At most one `[[curve]]` (the caller checks it against the workload it runs:
/// `PlanWorkload::check_curve`).
pub fn resolve(
    sections: &[CurveSection],
    key: &KeyPath,
    time_scale: f64,
) -> Result<Option<PlanCurve>, Invalid> {
    match sections {
        [] => Ok(None),
        [one] => resolve_one(one, &key.index(0), time_scale).map(Some),
        _ => Err(Invalid::new(
            key.index(1),
            "one [[curve]] per scenario; run another scenario for another curve",
        )),
    }
}

fn resolve_one(c: &CurveSection, key: &KeyPath, time_scale: f64) -> Result<PlanCurve, Invalid> {
    let points_pct = match &c.points {
        None => CurveSpec::DEFAULT_POINTS.to_vec(),
        Some(p) if p.is_empty() => {
            return Err(Invalid::new(key.key("points"), "needs at least one point"));
        }
        Some(p) => p.clone(),
    };
    for (i, &p) in points_pct.iter().enumerate() {
        if !(p > 0.0 && p <= MAX_POINT_PCT) {
            return Err(Invalid::new(
                key.key("points").index(i),
                format!(
                    "a point is a percentage of the peak above 0 and at most {MAX_POINT_PCT}, got {p}"
                ),
            ));
        }
    }
    let duration = |text: &Option<String>, name: &str, default: u64, zero_ok: bool| {
        let d = match text {
            None => Duration::from_secs(default),
            Some(t) => parse_duration(t).map_err(|m| Invalid::new(key.key(name), m))?,
        };
        if d.is_zero() && !zero_ok {
            return Err(Invalid::new(key.key(name), "must be longer than zero"));
        }
        scale_ms(d, time_scale, &key.key(name))
    };
    let point_duration_ms = duration(&c.point_duration, "point_duration", 60, false)?.max(1);
    let settle_ms = duration(&c.settle, "settle", 10, true)?;
    let max_duration_ms = match &c.max_duration {
        None => point_duration_ms,
        Some(_) => duration(&c.max_duration, "max_duration", 60, false)?.max(1),
    };
    let latency_ms = |text: &str, k: KeyPath| {
        let d = parse_duration(text).map_err(|m| Invalid::new(k.clone(), m))?;
        if d.is_zero() {
            return Err(Invalid::new(k, "must be longer than zero"));
        }
        Ok::<f64, Invalid>(d.as_secs_f64() * 1000.0)
    };
    let stop_p99_ms = match &c.stop_at_p99 {
        Some(t) => Some(latency_ms(t, key.key("stop_at_p99"))?),
        None => None,
    };
    let slo_p99_ms = match &c.slo {
        Some(s) => Some(latency_ms(&s.p99, key.key("slo").key("p99"))?),
        None => None,
    };
    let slo_steps = drivebench_core::config::bounds::int_in(
        c.slo_steps,
        4,
        0,
        MAX_SLO_STEPS,
        key.key("slo_steps"),
    )?;
    Ok(PlanCurve {
        spec: CurveSpec {
            points_pct,
            stop_mean_ms: None,
            stop_p99_ms,
            slo_p99_ms,
            slo_steps,
        },
        point_duration_ms,
        settle_ms,
        max_duration_ms,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn section(toml_text: &str) -> CurveSection {
        toml::from_str(toml_text).unwrap()
    }

    #[test]
    fn defaults_and_units_resolve_and_scale() {
        let c = resolve_one(&section(""), &KeyPath::root(), 1.0).unwrap();
        assert_eq!(c.spec.points_pct, CurveSpec::DEFAULT_POINTS.to_vec());
        assert_eq!(
            (c.point_duration_ms, c.settle_ms, c.max_duration_ms),
            (60_000, 10_000, 60_000)
        );
        assert_eq!(
            (c.spec.slo_p99_ms, c.spec.stop_p99_ms, c.spec.slo_steps),
            (None, None, 4)
        );
        let c = resolve_one(
            &section("points = [50, 120]\npoint_duration = \"20s\"\nsettle = \"0s\"\nstop_at_p99 = \"50ms\"\nslo = { p99 = \"20ms\" }\nslo_steps = 3"),
            &KeyPath::root(),
            0.5,
        )
        .unwrap();
        assert_eq!(c.spec.points_pct, vec![50.0, 120.0]);
        assert_eq!((c.point_duration_ms, c.settle_ms), (10_000, 0));
        assert_eq!(
            (c.spec.stop_p99_ms, c.spec.slo_p99_ms),
            (Some(50.0), Some(20.0))
        );
        // max run + 2 points + 3 SLO steps
        assert_eq!(c.max_total_ms(), 10_000 + 5 * 10_000);
    }

    #[test]
    fn bad_values_name_their_key() {
        let cases = [
            ("points = []", "curve[0].points", "at least one"),
            ("points = [10, 0]", "curve[0].points[1]", "above 0"),
            (
                "point_duration = \"0s\"",
                "curve[0].point_duration",
                "longer than zero",
            ),
            ("settle = \"ten\"", "curve[0].settle", ""),
            (
                "slo = { p99 = \"0ms\" }",
                "curve[0].slo.p99",
                "longer than zero",
            ),
            ("slo_steps = 99", "curve[0].slo_steps", "at most 20"),
        ];
        for (text, key, msg) in cases {
            let e = resolve_one(&section(text), &KeyPath::root().key("curve").index(0), 1.0)
                .unwrap_err();
            assert_eq!(e.key.to_string(), key, "{text}");
            assert!(e.message.contains(msg), "{text}: {}", e.message);
        }
    }
}
