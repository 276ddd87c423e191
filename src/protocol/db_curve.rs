//! The database load curve, run after the scenario's phases with the same connected clients:
//! a closed-loop max run measures each instance's peak TPS, then the shared curve mechanism
//! (`drivebench_core::curve::CurveDriver`) asks for each point and SLO step in turn; every instance
//! runs at the same percentage of its own peak through its `RateControl`. Each run settles
//! first (those figures are dropped), then is measured in quarters, so a growing start lag
//! (backlog) shows between the first and the last quarter. Results are written after each
//! point.

use std::time::Duration;

use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

use super::engine_io::EngineIo;
use super::telemetry::Telemetry;
use super::{Ending, Reason, Stage};
use crate::clients::fleet::{Fleet, Wake};
use crate::console::Console;
use crate::exporter::LiveMetrics;
use crate::metrics::Recorded;
use crate::metrics::summary::Summary;
use crate::report::RunDir;
use crate::report::curves::{point_line, slo_line};
use crate::results::curves::{
    CurvePoint, CurveReport, InstancePoint, PointFigures, PointKind, instance_slo,
};
use crate::results::engine_io::ClosedSpan;
use crate::results::run::RunReport;
use crate::results::telemetry::PhaseTelemetry;
use crate::scenario::curve::PlanCurve;
use crate::scenario::plan::DbPlan;
use drivebench_core::curve::backlog::Backlog;
use drivebench_core::curve::{CurveDriver, PointOutcome, SloResult, Step};
use drivebench_system::telemetry::IntervalTelemetry;

/// The running clients a curve steers, and where it writes.
pub(super) struct CurveRun<'a> {
    pub plan: DbPlan<'a>,
    pub curve: &'a PlanCurve,
    pub fleet: &'a mut Fleet,
    pub kinds: &'static [&'static str],
    pub report: &'a mut RunReport,
    pub dir: &'a RunDir,
    pub console: &'a Console,
    pub cancel: &'a CancellationToken,
    pub telemetry: &'a mut Telemetry,
    pub engine_io: Option<&'a mut EngineIo>,
    pub live: Option<&'a LiveMetrics>,
}

/// What a run measured: its seconds, per instance its four quarters, and the drive's and
/// host's figures over it (when sampled).
struct Measured {
    seconds: f64,
    quarters: Vec<Vec<Recorded>>,
    telemetry: Option<IntervalTelemetry>,
    engine_io: Option<ClosedSpan>,
}

impl CurveRun<'_> {
    pub async fn run(mut self) -> Ending {
        let c = self.curve;
        self.console.line(&format!(
            "curve: max run, closed loop with {} clients per instance",
            self.plan.db.workload.clients
        ));
        for ctl in self.fleet.controls() {
            ctl.set_closed();
        }
        self.live_phase("curve max");
        let m = match self.measure(c.max_duration_ms).await {
            Ok(m) => m,
            Err(e) => return e,
        };
        let max = self.point(PointKind::Max, None, &[], &m);
        let peaks: Vec<f64> = max
            .per_instance
            .iter()
            .map(|p| p.figures.achieved_tps)
            .collect();
        let peak = max.total.achieved_tps;
        self.point_lines(&max);
        self.report.curves.push(CurveReport {
            peak_tps: peak,
            points: vec![max],
            slo: None,
            slo_per_instance: Vec::new(),
            completed: false,
        });
        if let Err(e) = self.dir.write_result(self.report) {
            return Ending::failed(Stage::Results, e);
        }
        if peaks.iter().any(|&p| p <= 0.0) {
            return Ending::failed(
                Stage::Curve,
                Reason("curve: an instance completed no transaction in the max run".into()),
            );
        }
        let mut driver = CurveDriver::new(c.spec.clone(), peak);
        loop {
            let (kind, pct, rate) = match driver.next_step() {
                Step::Point { pct, rate } => (PointKind::Curve, pct, rate),
                Step::Slo { rate } => (PointKind::Slo, rate / peak * 100.0, rate),
                Step::Done => break,
            };
            self.live_phase(&format!("curve {pct:.1} %"));
            let targets: Vec<f64> = peaks.iter().map(|p| p * pct / 100.0).collect();
            for (ctl, t) in self.fleet.controls().iter().zip(&targets) {
                ctl.set_rate(*t);
            }
            let m = match self.measure(c.point_duration_ms).await {
                Ok(m) => m,
                Err(e) => return e,
            };
            let point = self.point(kind, Some(pct), &targets, &m);
            driver.record(PointOutcome {
                // The instances' targets summed, as the point reports it: the SLO bracket
                // then names a target a point ran at (no float drift from `rate`).
                target_rate: point.total.target_tps.unwrap_or(rate),
                achieved_rate: point.total.achieved_tps,
                mean_ms: point.total.latency_ms.avg,
                p99_ms: point.total.latency_ms.p99,
                sustainable: point.total.sustainable,
            });
            self.point_lines(&point);
            let last = self.report.curves.len() - 1;
            self.report.curves[last].points.push(point);
            if let Err(e) = self.dir.write_result(self.report) {
                return Ending::failed(Stage::Results, e);
            }
        }
        self.finish(driver.slo());
        Ending::Complete
    }

    fn live_phase(&self, name: &str) {
        if let Some(live) = self.live {
            live.set_phase(name, true);
        }
    }

    /// A finished point's live line, and what limited it.
    fn point_lines(&self, p: &CurvePoint) {
        self.console.line(&point_line(p));
        if let Some(t) = &p.telemetry {
            self.console
                .line(&format!("  limited by: {}", t.verdict_line()));
        }
    }

    /// The curve ran to its end: its SLO figures (total and per instance) printed and kept.
    fn finish(&mut self, slo: Option<SloResult>) {
        let last = self.report.curves.len() - 1;
        let report = &mut self.report.curves[last];
        if let Some(s) = &slo {
            self.console.always(&slo_line(s));
            report.slo_per_instance = instance_slo(&report.points, s.p99_ms);
            for i in &report.slo_per_instance {
                self.console
                    .always(&format!("  {}: {}", i.instance, slo_line(&i.slo)));
            }
        }
        report.slo = slo;
        report.completed = true;
    }

    /// Settle (dropped), then `ms` measured in quarters.
    async fn measure(&mut self, ms: u64) -> Result<Measured, Ending> {
        let settle = Instant::now() + Duration::from_millis(self.curve.settle_ms);
        self.wait_until(settle).await?;
        self.fleet.collect();
        if let Some(p) = self.telemetry.probe() {
            p.restart();
        }
        if let Some(e) = self.engine_io.as_deref_mut() {
            e.restart().await;
        }
        let start = Instant::now();
        let mut quarters: Vec<Vec<Recorded>> =
            self.plan.db.instances.iter().map(|_| Vec::new()).collect();
        for q in 1..=4u32 {
            self.wait_until(start + Duration::from_millis(ms) * q / 4)
                .await?;
            for (r, out) in self.fleet.collect().into_iter().zip(&mut quarters) {
                out.push(r);
            }
        }
        let seconds = (Instant::now() - start).as_secs_f64();
        let telemetry = self.telemetry.probe().map(|p| p.tick());
        let engine_io = match self.engine_io.as_deref_mut() {
            Some(e) => {
                let summaries: Vec<Summary> = (quarters.iter())
                    .map(|q| summary_of(q, self.kinds, seconds))
                    .collect();
                e.tick(seconds, &summaries).await;
                let mut span = e.track.close();
                span.engine_io.series.clear();
                Some(span)
            }
            None => None,
        };
        Ok(Measured {
            seconds,
            quarters,
            telemetry,
            engine_io,
        })
    }

    async fn wait_until(&mut self, deadline: Instant) -> Result<(), Ending> {
        match self.fleet.wait(deadline, self.cancel).await {
            Wake::Tick => Ok(()),
            Wake::Cancelled => Err(Ending::Interrupted),
            Wake::Failed(e) => Err(Ending::failed(Stage::Curve, e)),
        }
    }

    /// A point's figures per instance and in total; `targets` per instance (empty: max run).
    fn point(
        &self,
        kind: PointKind,
        pct: Option<f64>,
        targets: &[f64],
        m: &Measured,
    ) -> CurvePoint {
        let n = self.kinds.len();
        let mut all: Vec<Recorded> = (0..4).map(|_| Recorded::new(n)).collect();
        let mut per_instance = Vec::new();
        for (i, q) in m.quarters.iter().enumerate() {
            for (a, r) in all.iter_mut().zip(q) {
                a.merge(r);
            }
            let name = &self.plan.db.instances[i].name;
            let summary = summary_of(q, self.kinds, m.seconds);
            if let Some(live) = self.live {
                live.interval(name, &summary);
            }
            per_instance.push(InstancePoint {
                instance: name.clone(),
                figures: figures(q, &summary, m.seconds, targets.get(i).copied()),
            });
        }
        let target = (!targets.is_empty()).then(|| targets.iter().sum());
        let summary = summary_of(&all, self.kinds, m.seconds);
        let mut total = figures(&all, &summary, m.seconds, target);
        total.sustainable &= per_instance.iter().all(|p| p.figures.sustainable);
        if let (Some(live), Some(t)) = (self.live, &m.telemetry) {
            live.telemetry(t);
        }
        // A rate was set on every point but the max run: late wakes count there.
        let mut telemetry =
            (m.telemetry.clone()).map(|t| PhaseTelemetry::of_span(t, &summary, target.is_some()));
        if let (Some(t), Some(span)) = (telemetry.as_mut(), &m.engine_io)
            && let (Some(f), Some(work)) = (&span.engine_io.total, span.total_work)
        {
            t.name_class(f, work);
        }
        CurvePoint {
            kind,
            pct,
            seconds: m.seconds,
            total,
            per_instance,
            telemetry,
            engine_io: m.engine_io.as_ref().map(|s| s.engine_io.clone()),
        }
    }
}

/// The summary of four quarters merged.
fn summary_of(quarters: &[Recorded], kinds: &[&str], seconds: f64) -> Summary {
    let mut r = Recorded::new(kinds.len());
    for q in quarters {
        r.merge(q);
    }
    Summary::from_recorded(&r, kinds, seconds)
}

/// Figures of four quarters (`s` their summary) at `target` tx/s (None: closed loop).
fn figures(quarters: &[Recorded], s: &Summary, seconds: f64, target: Option<f64>) -> PointFigures {
    let lag_ms = |q: Option<&Recorded>| q.map_or(0.0, |q| q.start_lag.mean() / 1000.0);
    let backlog = target.map(|t| {
        Backlog::judge(
            t,
            seconds,
            s.transactions,
            lag_ms(quarters.first()),
            lag_ms(quarters.last()),
        )
    });
    PointFigures {
        target_tps: target,
        achieved_tps: s.tps,
        transactions: s.transactions,
        latency_ms: s.latency_ms.clone(),
        service_ms: s.service_ms.clone(),
        errors: s.errors,
        sustainable: backlog.is_none_or(|b| b.sustainable),
        backlog,
    }
}
