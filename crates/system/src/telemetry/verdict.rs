//! What held a phase (or a curve point) back: the drive, the host's CPU, or the client, judged
//! from telemetry with written-down thresholds, showing the figures that decided.
//!
//! The rules, in the order they are tried (the first that holds decides):
//!
//! 1. **client**: drivebench itself used at least [`CLIENT_OWN_CPU_PCT`] of the host's CPU.
//!    Tried first, so that when drivebench is what keeps the CPUs busy the run is called
//!    client-bound rather than host-CPU-bound.
//! 2. **host_cpu**: host CPU busy at least [`HOST_CPU_BUSY_PCT`] (or CPU pressure `some` at
//!    least [`HOST_CPU_SOME_PRESSURE_PCT`]) while I/O pressure `full` stays below
//!    [`HOST_CPU_MAX_IO_FULL_PCT`].
//! 3. **drive**: I/O pressure `full` at least [`DRIVE_IO_FULL_PCT`]; or, without that signal
//!    or below it, a queue at the drive (aqu-sz at least [`DRIVE_AQU_SZ`]) with CPUs idling
//!    on I/O (iowait at least [`DRIVE_IOWAIT_PCT`]) and CPU to spare (busy below
//!    [`DRIVE_MAX_CPU_BUSY_PCT`]). Never from %util alone: one outstanding request keeps
//!    %util at 100 on a device that could serve many more in parallel.
//! 4. **client**: at least [`CLIENT_LATE_WAKE_PCT`] of transactions found their client
//!    waking late (more than 2 ms after the transaction was due and the client free) while
//!    neither the CPU nor the drive was found saturated. Tried after the drive, because a
//!    starved host also wakes clients late. A start late because the client was still busy
//!    with its previous transaction is queueing at the system under test, not the client's.
//! 5. **unclear** otherwise: mixed or low signals; the figures are shown all the same.

use serde::{Deserialize, Serialize};

use super::diskstats::DeviceFigures;
use super::interval::IntervalTelemetry;

/// drivebench's own CPU use, % of the host's CPU time, from which the client is the bottleneck.
/// A load generator should be cheap next to the engine it drives: when it takes two fifths of
/// the machine (80 % of one core on a 2-CPU host), it competes with the engine for CPU and its
/// own scheduling delays show in the latencies, whatever else is true.
pub const CLIENT_OWN_CPU_PCT: f64 = 40.0;

/// Share of transactions whose client woke late for them (more than 2 ms after they were due
/// while it was free) from which the client is the bottleneck. Timer jitter makes an odd late
/// wake normal; one in twenty is systematic: the client did not deliver its schedule.
pub const CLIENT_LATE_WAKE_PCT: f64 = 5.0;

/// Host CPU busy (100 − idle − iowait), %, from which the host's CPU is the bottleneck. At
/// 90 % a run queue is rarely empty and a ready thread waits about as long as it runs
/// (queueing delay grows as busy/(1 − busy)); 100 % is never reached in a sample that also
/// contains the sampler's own wake-ups, and 1-tick resolution blurs a few percent.
pub const HOST_CPU_BUSY_PCT: f64 = 90.0;

/// CPU pressure `some`, %, that also marks the CPU as the bottleneck: half of the time at
/// least one runnable task found no free CPU. Catches a CPU quota (a container's cgroup) that
/// leaves the host's busy share below [`HOST_CPU_BUSY_PCT`].
pub const HOST_CPU_SOME_PRESSURE_PCT: f64 = 50.0;

/// I/O pressure `full`, %, below which a busy CPU is the bottleneck on its own. Above it every
/// task was stalled on I/O a tenth of the time: the drive shares the blame, and the verdict
/// goes to the drive rule or to unclear.
pub const HOST_CPU_MAX_IO_FULL_PCT: f64 = 10.0;

/// I/O pressure `full`, %, from which the drive is the bottleneck: a fifth of the wall time
/// every non-idle task was waiting for I/O and nothing else ran. Commit-bound OLTP on a slow
/// drive shows tens of percent; on a fast one, a few percent at most.
pub const DRIVE_IO_FULL_PCT: f64 = 20.0;

/// Average number of I/Os in flight (aqu-sz) from which requests queue at the drive: below 1
/// the drive is idle part of the time.
pub const DRIVE_AQU_SZ: f64 = 1.0;

/// iowait, %, from which CPUs wait for I/O rather than work: a fifth of CPU time idle with I/O
/// outstanding. Only taken as evidence together with a queue at the drive, since iowait is a
/// hint (an idle CPU while some task waits), not a measure.
pub const DRIVE_IOWAIT_PCT: f64 = 20.0;

/// Host CPU busy, %, under which the CPU has room to spare, so a queue at the drive with high
/// iowait is the drive's doing. Between this and [`HOST_CPU_BUSY_PCT`] both resources are
/// loaded and the verdict is left unclear unless pressure decides.
pub const DRIVE_MAX_CPU_BUSY_PCT: f64 = 80.0;

/// What held a phase or point back.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub enum Bound {
    #[serde(rename = "drive")]
    DriveBound,
    #[serde(rename = "host_cpu")]
    HostCpuBound,
    #[serde(rename = "client")]
    ClientBound,
    #[serde(rename = "unclear")]
    Unclear,
}

/// One figure a verdict rests on.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Figure {
    /// e.g. "io_full_pressure".
    pub name: String,
    pub value: f64,
    /// The limit it was held against (the reason says which way), None when shown for
    /// context only.
    pub threshold: Option<f64>,
    /// e.g. "%", "ms", "requests".
    pub unit: String,
}

/// The judgement, with the figures that decided it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Verdict {
    pub bound: Bound,
    pub deciding: Vec<Figure>,
    pub reason: String,
}

/// The figures a verdict is judged from; None where a figure is not known.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct VerdictInput {
    /// Host CPU busy, 100 − idle − iowait, %.
    pub host_cpu_busy_pct: Option<f64>,
    /// drivebench's own part of the host's CPU time, %.
    pub own_cpu_share_pct: Option<f64>,
    pub iowait_pct: Option<f64>,
    pub cpu_some_pressure_pct: Option<f64>,
    pub io_some_pressure_pct: Option<f64>,
    pub io_full_pressure_pct: Option<f64>,
    /// Average I/Os in flight at the drive (summed over its members).
    pub aqu_sz: Option<f64>,
    /// Average time per completed read or write, ms.
    pub await_ms: Option<f64>,
    pub util_pct: Option<f64>,
    /// Share of transactions whose client woke late for them, %; None in a closed loop.
    pub late_wake_pct: Option<f64>,
}

impl VerdictInput {
    /// The input an interval's (or a phase summary's) figures give, with the caller's
    /// lateness figure.
    pub fn from_telemetry(t: &IntervalTelemetry, late_wake_pct: Option<f64>) -> Self {
        let dev = t.device.as_ref().map(|d| &d.total);
        VerdictInput {
            host_cpu_busy_pct: t.cpu.as_ref().map(|c| c.busy_pct),
            own_cpu_share_pct: t.own_process.as_ref().and_then(|p| p.host_share_pct),
            iowait_pct: t.cpu.as_ref().map(|c| c.iowait_pct),
            cpu_some_pressure_pct: t.pressure.cpu_some_pct,
            io_some_pressure_pct: t.pressure.io_some_pct,
            io_full_pressure_pct: t.pressure.io_full_pct,
            aqu_sz: dev.map(|d| d.aqu_sz),
            await_ms: dev.and_then(DeviceFigures::await_ms),
            util_pct: dev.map(|d| d.util_pct),
            late_wake_pct,
        }
    }
}

/// Judge `input` by the rules of the module documentation.
pub fn judge(input: &VerdictInput) -> Verdict {
    client_cpu(input)
        .or_else(|| host_cpu(input))
        .or_else(|| drive(input))
        .or_else(|| client_late(input))
        .unwrap_or_else(|| unclear(input))
}

fn figure(name: &str, value: f64, threshold: Option<f64>, unit: &str) -> Figure {
    Figure {
        name: name.to_owned(),
        value,
        threshold,
        unit: unit.to_owned(),
    }
}

fn client_cpu(i: &VerdictInput) -> Option<Verdict> {
    let own = i.own_cpu_share_pct.filter(|v| *v >= CLIENT_OWN_CPU_PCT)?;
    let mut deciding = vec![figure("own_cpu_share", own, Some(CLIENT_OWN_CPU_PCT), "%")];
    deciding.extend(
        i.host_cpu_busy_pct
            .map(|v| figure("host_cpu_busy", v, None, "%")),
    );
    Some(Verdict {
        bound: Bound::ClientBound,
        deciding,
        reason: format!(
            "drivebench itself used {own:.1} % of the host's CPU (≥ {CLIENT_OWN_CPU_PCT} %): \
             the load generator competes with the engine for CPU"
        ),
    })
}

fn host_cpu(i: &VerdictInput) -> Option<Verdict> {
    let busy = i.host_cpu_busy_pct.filter(|v| *v >= HOST_CPU_BUSY_PCT);
    let some = i
        .cpu_some_pressure_pct
        .filter(|v| *v >= HOST_CPU_SOME_PRESSURE_PCT);
    let signal = match (busy, some) {
        (Some(b), _) => format!("host CPU {b:.1} % busy (≥ {HOST_CPU_BUSY_PCT} %)"),
        (None, Some(s)) => format!(
            "a task waited for a CPU {s:.1} % of the time (cpu.some ≥ {HOST_CPU_SOME_PRESSURE_PCT} %)"
        ),
        (None, None) => return None,
    };
    let io_full = i.io_full_pressure_pct;
    if io_full.is_some_and(|v| v >= HOST_CPU_MAX_IO_FULL_PCT) {
        return None;
    }
    let limits = [
        ("host_cpu_busy", i.host_cpu_busy_pct, HOST_CPU_BUSY_PCT),
        (
            "cpu_some_pressure",
            i.cpu_some_pressure_pct,
            HOST_CPU_SOME_PRESSURE_PCT,
        ),
        ("io_full_pressure", io_full, HOST_CPU_MAX_IO_FULL_PCT),
    ];
    let deciding = limits
        .into_iter()
        .filter_map(|(name, value, limit)| Some(figure(name, value?, Some(limit), "%")))
        .collect();
    let io = match io_full {
        Some(v) => format!(
            "all tasks stalled on I/O only {v:.1} % of the time (< {HOST_CPU_MAX_IO_FULL_PCT} %)"
        ),
        None => "no I/O pressure figure to say otherwise".to_owned(),
    };
    Some(Verdict {
        bound: Bound::HostCpuBound,
        deciding,
        reason: format!("{signal} while {io}: the host is short of CPU, not of drive"),
    })
}

fn drive(i: &VerdictInput) -> Option<Verdict> {
    if let Some(full) = i.io_full_pressure_pct.filter(|v| *v >= DRIVE_IO_FULL_PCT) {
        let mut deciding = vec![figure(
            "io_full_pressure",
            full,
            Some(DRIVE_IO_FULL_PCT),
            "%",
        )];
        deciding.extend(context(i));
        return Some(Verdict {
            bound: Bound::DriveBound,
            deciding,
            reason: format!(
                "every non-idle task waited for I/O {full:.1} % of the time \
                 (io.full ≥ {DRIVE_IO_FULL_PCT} %): the drive sets the pace"
            ),
        });
    }
    let aqu = i.aqu_sz.filter(|v| *v >= DRIVE_AQU_SZ)?;
    let iowait = i.iowait_pct.filter(|v| *v >= DRIVE_IOWAIT_PCT)?;
    let busy = i
        .host_cpu_busy_pct
        .filter(|v| *v < DRIVE_MAX_CPU_BUSY_PCT)?;
    let mut deciding = vec![
        figure("aqu_sz", aqu, Some(DRIVE_AQU_SZ), "requests"),
        figure("iowait", iowait, Some(DRIVE_IOWAIT_PCT), "%"),
        figure("host_cpu_busy", busy, Some(DRIVE_MAX_CPU_BUSY_PCT), "%"),
    ];
    deciding.extend(context(i));
    Some(Verdict {
        bound: Bound::DriveBound,
        deciding,
        reason: format!(
            "{aqu:.2} I/Os in flight on average (aqu-sz ≥ {DRIVE_AQU_SZ}) with CPUs idle on \
             I/O {iowait:.1} % of the time (≥ {DRIVE_IOWAIT_PCT} %) and only {busy:.1} % busy \
             (< {DRIVE_MAX_CPU_BUSY_PCT} %): the drive sets the pace"
        ),
    })
}

/// Device figures shown beside a drive verdict, not tested against anything.
fn context(i: &VerdictInput) -> Vec<Figure> {
    let mut shown = Vec::new();
    shown.extend(i.await_ms.map(|v| figure("await", v, None, "ms")));
    shown.extend(i.util_pct.map(|v| figure("util", v, None, "%")));
    shown
}

fn client_late(i: &VerdictInput) -> Option<Verdict> {
    let late = i.late_wake_pct.filter(|v| *v >= CLIENT_LATE_WAKE_PCT)?;
    let mut deciding = vec![figure("late_wakes", late, Some(CLIENT_LATE_WAKE_PCT), "%")];
    deciding.extend(
        i.host_cpu_busy_pct
            .map(|v| figure("host_cpu_busy", v, None, "%")),
    );
    deciding.extend(
        i.io_full_pressure_pct
            .map(|v| figure("io_full_pressure", v, None, "%")),
    );
    Some(Verdict {
        bound: Bound::ClientBound,
        deciding,
        reason: format!(
            "for {late:.1} % of transactions the client woke more than 2 ms after they were \
             due (≥ {CLIENT_LATE_WAKE_PCT} %) while neither CPU nor drive was found saturated: \
             the clients did not deliver the offered rate"
        ),
    })
}

fn unclear(i: &VerdictInput) -> Verdict {
    let candidates = [
        ("host_cpu_busy", i.host_cpu_busy_pct, HOST_CPU_BUSY_PCT, "%"),
        (
            "io_full_pressure",
            i.io_full_pressure_pct,
            DRIVE_IO_FULL_PCT,
            "%",
        ),
        ("aqu_sz", i.aqu_sz, DRIVE_AQU_SZ, "requests"),
        ("iowait", i.iowait_pct, DRIVE_IOWAIT_PCT, "%"),
        (
            "own_cpu_share",
            i.own_cpu_share_pct,
            CLIENT_OWN_CPU_PCT,
            "%",
        ),
        ("late_wakes", i.late_wake_pct, CLIENT_LATE_WAKE_PCT, "%"),
    ];
    let mut deciding: Vec<Figure> = candidates
        .into_iter()
        .filter_map(|(name, value, limit, unit)| Some(figure(name, value?, Some(limit), unit)))
        .collect();
    deciding.extend(context(i));
    let shown: Vec<String> = deciding
        .iter()
        .filter_map(|f| Some(format!("{} {:.1} of {}", f.name, f.value, f.threshold?)))
        .collect();
    let reason = if shown.is_empty() {
        "no figures to judge from".to_owned()
    } else {
        format!(
            "no rule holds ({}): neither CPU, drive nor client is clearly the limit",
            shown.join(", ")
        )
    };
    Verdict {
        bound: Bound::Unclear,
        deciding,
        reason,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A `VerdictInput` recorded as JSON: `VerdictInput::from_telemetry` of a 3-second interval
    /// between two `Sampler` snapshots on a 2-vCPU guest (kernel 6.18, virtio disk, pressure
    /// accounting on).
    fn recorded(json: &str) -> VerdictInput {
        serde_json::from_str(json).expect("a recorded input")
    }

    fn names(v: &Verdict) -> Vec<&str> {
        v.deciding.iter().map(|f| f.name.as_str()).collect()
    }

    #[test]
    fn a_throttled_drive_is_drive_bound() {
        // Four `dd oflag=direct,dsync bs=4k` writers on ext4 over a loop device throttled to
        // 200 write IOPS (blkio cgroup), the host otherwise quiet. The throttle holds requests
        // above the loop device, so its queue looks short: pressure is what tells.
        let input = recorded(
            r#"{"host_cpu_busy_pct":26.395939086294405,"own_cpu_share_pct":0.0,"iowait_pct":70.38917089678512,"cpu_some_pressure_pct":6.128755956769336,"io_some_pressure_pct":86.10924616529702,"io_full_pressure_pct":69.53392510909057,"aqu_sz":0.10865347591738334,"await_ms":0.16400336417157274,"util_pct":3.4662458574870754,"late_wake_pct":null}"#,
        );
        let v = judge(&input);
        assert_eq!(v.bound, Bound::DriveBound, "{v:?}");
        assert_eq!(names(&v), ["io_full_pressure", "await", "util"]);
        assert_eq!(v.deciding[0].threshold, Some(DRIVE_IO_FULL_PCT));
        assert!(v.reason.contains("69.5 %"), "{}", v.reason);
    }

    #[test]
    fn processes_spinning_on_every_cpu_make_the_host_cpu_bound() {
        // Four shell busy-loops on the two vCPUs while other builds ran: drivebench idle.
        let input = recorded(
            r#"{"host_cpu_busy_pct":100.0,"own_cpu_share_pct":0.0,"iowait_pct":0.0,"cpu_some_pressure_pct":100.0,"io_some_pressure_pct":0.0,"io_full_pressure_pct":0.0,"aqu_sz":0.0,"await_ms":null,"util_pct":0.0,"late_wake_pct":null}"#,
        );
        let v = judge(&input);
        assert_eq!(v.bound, Bound::HostCpuBound, "{v:?}");
        let expected = ["host_cpu_busy", "cpu_some_pressure", "io_full_pressure"];
        assert_eq!(names(&v), expected);
        assert!(v.reason.contains("100.0 % busy"), "{}", v.reason);
    }

    #[test]
    fn drivebench_using_much_of_the_cpu_is_client_bound_before_host_cpu() {
        // drivebench's own process spinning two threads on the two vCPUs: the host is 100 %
        // busy too, and the client rule takes priority.
        let input = recorded(
            r#"{"host_cpu_busy_pct":100.0,"own_cpu_share_pct":48.59038142620232,"iowait_pct":0.0,"cpu_some_pressure_pct":76.79663557211519,"io_some_pressure_pct":3.584839936619224,"io_full_pressure_pct":0.012367593055749963,"aqu_sz":1.7929685309048269,"await_ms":13.108040201005025,"util_pct":8.378046908733847,"late_wake_pct":null}"#,
        );
        let v = judge(&input);
        assert_eq!(v.bound, Bound::ClientBound, "{v:?}");
        assert_eq!(names(&v), ["own_cpu_share", "host_cpu_busy"]);
        assert_eq!(v.deciding[0].threshold, Some(CLIENT_OWN_CPU_PCT));
    }

    #[test]
    fn an_idle_host_is_unclear_and_shows_its_figures() {
        let input = recorded(
            r#"{"host_cpu_busy_pct":1.8456375838926107,"own_cpu_share_pct":0.0,"iowait_pct":0.0,"cpu_some_pressure_pct":0.31218613266319145,"io_some_pressure_pct":0.013797913838215143,"io_full_pressure_pct":0.011131650294598693,"aqu_sz":0.0003332829429520566,"await_ms":0.3333333333333333,"util_pct":0.0,"late_wake_pct":null}"#,
        );
        let v = judge(&input);
        assert_eq!(v.bound, Bound::Unclear, "{v:?}");
        let expected = [
            "host_cpu_busy",
            "io_full_pressure",
            "aqu_sz",
            "iowait",
            "own_cpu_share",
            "await",
            "util",
        ];
        assert_eq!(names(&v), expected);
        assert!(v.reason.starts_with("no rule holds"), "{}", v.reason);
        assert_eq!(
            judge(&VerdictInput::default()).reason,
            "no figures to judge from"
        );
    }

    #[test]
    fn full_utilisation_alone_is_never_drive_bound() {
        let input = VerdictInput {
            host_cpu_busy_pct: Some(35.0),
            iowait_pct: Some(5.0),
            io_full_pressure_pct: Some(2.0),
            aqu_sz: Some(0.9),
            util_pct: Some(100.0),
            ..VerdictInput::default()
        };
        assert_eq!(judge(&input).bound, Bound::Unclear);
    }

    #[test]
    fn a_queue_with_iowait_and_spare_cpu_is_drive_bound_without_pressure_figures() {
        let input = VerdictInput {
            host_cpu_busy_pct: Some(40.0),
            iowait_pct: Some(35.0),
            aqu_sz: Some(4.0),
            await_ms: Some(12.0),
            ..VerdictInput::default()
        };
        let v = judge(&input);
        assert_eq!(v.bound, Bound::DriveBound, "{v:?}");
        assert_eq!(names(&v), ["aqu_sz", "iowait", "host_cpu_busy", "await"]);
        let busy = VerdictInput {
            host_cpu_busy_pct: Some(85.0),
            ..input
        };
        assert_eq!(judge(&busy).bound, Bound::Unclear, "both loaded");
    }

    #[test]
    fn lateness_is_the_clients_unless_cpu_or_drive_explain_it() {
        let late = VerdictInput {
            host_cpu_busy_pct: Some(30.0),
            io_full_pressure_pct: Some(1.0),
            late_wake_pct: Some(12.0),
            ..VerdictInput::default()
        };
        assert_eq!(judge(&late).bound, Bound::ClientBound);
        let drive = VerdictInput {
            io_full_pressure_pct: Some(45.0),
            ..late.clone()
        };
        assert_eq!(judge(&drive).bound, Bound::DriveBound);
        let cpu = VerdictInput {
            host_cpu_busy_pct: Some(97.0),
            ..late
        };
        assert_eq!(judge(&cpu).bound, Bound::HostCpuBound);
    }

    #[test]
    fn a_busy_cpu_with_io_pressure_in_between_is_unclear() {
        let input = VerdictInput {
            host_cpu_busy_pct: Some(95.0),
            io_full_pressure_pct: Some(15.0),
            ..VerdictInput::default()
        };
        assert_eq!(judge(&input).bound, Bound::Unclear);
    }

    #[test]
    fn bounds_serialise_with_their_short_names() {
        let names = [
            (Bound::DriveBound, "drive"),
            (Bound::HostCpuBound, "host_cpu"),
            (Bound::ClientBound, "client"),
            (Bound::Unclear, "unclear"),
        ];
        for (bound, name) in names {
            let json = serde_json::to_value(bound).expect("serialise");
            assert_eq!(json, name);
            assert_eq!(serde_json::from_value::<Bound>(json).expect("back"), bound);
        }
    }
}
