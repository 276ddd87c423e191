//! Block-device counters from `/proc/diskstats`, their difference over an interval, and the
//! figures iostat derives from that difference.
//!
//! `/proc/diskstats` rather than `/sys/block/*/stat`: one read returns the counters of every
//! block device of the host, taken within one pass of the kernel over its disks, so devices
//! sampled together are sampled at (nearly) the same instant; and it names partitions and
//! device-mapper devices (`loop0p1`, `dm-0`) in the same list, where sysfs would need one
//! open and read per device and a separate walk to find partitions.
//!
//! Every field after `major minor name` is a counter since boot except field 9 (I/Os in flight
//! now). Sectors are always 512-byte units. Kernels before 4.18 print 11 fields (no discard
//! counters), before 5.5 15 (no flush counters): the missing ones read as 0.

use serde::{Deserialize, Serialize};

use super::error::{ParseProblem, TelemetryError, counter};

/// Bytes per diskstats sector, whatever the device's own sector size.
const SECTOR_BYTES: u64 = 512;
const MIB: f64 = 1024.0 * 1024.0;

/// The counters of one line of `/proc/diskstats`, in the kernel's order.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct DiskCounters {
    pub reads: u64,
    pub reads_merged: u64,
    pub sectors_read: u64,
    pub read_ms: u64,
    pub writes: u64,
    pub writes_merged: u64,
    pub sectors_written: u64,
    pub write_ms: u64,
    /// I/Os in flight at the instant of reading: a gauge, not a counter.
    pub in_flight: u64,
    /// Milliseconds with at least one I/O in flight (`io_ticks`), basis of %util.
    pub io_ms: u64,
    /// In-flight count × elapsed ms, summed (`time_in_queue`), basis of aqu-sz.
    pub weighted_io_ms: u64,
    pub discards: u64,
    pub discards_merged: u64,
    pub sectors_discarded: u64,
    pub discard_ms: u64,
    pub flushes: u64,
    pub flush_ms: u64,
}

/// One device of `/proc/diskstats`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DiskLine {
    pub major: u32,
    pub minor: u32,
    pub name: String,
    pub counters: DiskCounters,
}

/// Fields a line needs: `major minor name` and the 11 counters every kernel prints.
const MIN_FIELDS: usize = 14;

/// Parse the whole of `/proc/diskstats`; blank lines are skipped, any other line that is not
/// a diskstats line is an error naming it.
pub fn parse(text: &str) -> Result<Vec<DiskLine>, TelemetryError> {
    text.lines()
        .enumerate()
        .filter(|(_, line)| !line.trim().is_empty())
        .map(|(i, line)| {
            parse_line(line).map_err(|problem| TelemetryError::Parse {
                file: "/proc/diskstats",
                line: i + 1,
                problem,
            })
        })
        .collect()
}

/// Read and parse `/proc/diskstats`.
pub fn read() -> Result<Vec<DiskLine>, TelemetryError> {
    parse(&super::error::read("/proc/diskstats")?)
}

fn parse_line(line: &str) -> Result<DiskLine, ParseProblem> {
    let fields: Vec<&str> = line.split_whitespace().collect();
    if fields.len() < MIN_FIELDS {
        return Err(ParseProblem::TooFewFields {
            found: fields.len(),
            needed: MIN_FIELDS,
        });
    }
    let number = |i: usize| -> Result<u32, ParseProblem> {
        fields[i].parse().map_err(|_| ParseProblem::NotACounter {
            field: i + 1,
            text: fields[i].to_owned(),
        })
    };
    let mut values = [0u64; 17];
    for (i, text) in fields[3..].iter().take(17).enumerate() {
        values[i] = counter(text, i + 4)?;
    }
    let [
        r,
        rm,
        rs,
        rt,
        w,
        wm,
        ws,
        wt,
        inflight,
        io,
        wio,
        d,
        dm,
        ds,
        dt,
        f,
        ft,
    ] = values;
    Ok(DiskLine {
        major: number(0)?,
        minor: number(1)?,
        name: fields[2].to_owned(),
        counters: DiskCounters {
            reads: r,
            reads_merged: rm,
            sectors_read: rs,
            read_ms: rt,
            writes: w,
            writes_merged: wm,
            sectors_written: ws,
            write_ms: wt,
            in_flight: inflight,
            io_ms: io,
            weighted_io_ms: wio,
            discards: d,
            discards_merged: dm,
            sectors_discarded: ds,
            discard_ms: dt,
            flushes: f,
            flush_ms: ft,
        },
    })
}

/// `later − earlier` for a counter that may have wrapped since `earlier`.
///
/// The kernel prints the millisecond fields as 32-bit numbers even on 64-bit machines, and
/// every field is 32 bits wide on 32-bit ones; so when `later` is below an `earlier` that fits
/// in 32 bits the counter wrapped at 2³² and the difference is taken modulo 2³², otherwise
/// modulo 2⁶⁴.
pub fn counter_delta(later: u64, earlier: u64) -> u64 {
    if later >= earlier {
        later - earlier
    } else if let (Ok(l), Ok(e)) = (u32::try_from(later), u32::try_from(earlier)) {
        u64::from(l.wrapping_sub(e))
    } else {
        later.wrapping_sub(earlier)
    }
}

impl DiskCounters {
    /// What happened between `earlier` and `self`, as interval counts.
    pub fn delta(&self, earlier: &DiskCounters) -> DiskCounts {
        let d = |later: u64, before: u64| counter_delta(later, before);
        DiskCounts {
            reads: d(self.reads, earlier.reads),
            writes: d(self.writes, earlier.writes),
            flushes: d(self.flushes, earlier.flushes),
            discards: d(self.discards, earlier.discards),
            read_bytes: d(self.sectors_read, earlier.sectors_read).saturating_mul(SECTOR_BYTES),
            written_bytes: d(self.sectors_written, earlier.sectors_written)
                .saturating_mul(SECTOR_BYTES),
            discarded_bytes: d(self.sectors_discarded, earlier.sectors_discarded)
                .saturating_mul(SECTOR_BYTES),
            read_time_ms: d(self.read_ms, earlier.read_ms),
            write_time_ms: d(self.write_ms, earlier.write_ms),
            flush_time_ms: d(self.flush_ms, earlier.flush_ms),
            discard_time_ms: d(self.discard_ms, earlier.discard_ms),
            busy_time_ms: d(self.io_ms, earlier.io_ms),
            queue_time_ms: d(self.weighted_io_ms, earlier.weighted_io_ms),
        }
    }
}

/// What one device (or several, summed) did over an interval: counts that add up over
/// consecutive intervals and over the members of a device stack.
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema,
)]
pub struct DiskCounts {
    /// Reads completed.
    pub reads: u64,
    /// Writes completed.
    pub writes: u64,
    /// Cache flushes completed (0 before kernel 5.5).
    pub flushes: u64,
    /// Discards completed (0 before kernel 4.18).
    pub discards: u64,
    pub read_bytes: u64,
    pub written_bytes: u64,
    pub discarded_bytes: u64,
    /// Time the completed reads took, summed over reads (parallel reads add up), ms.
    pub read_time_ms: u64,
    /// Time the completed writes took, summed over writes, ms.
    pub write_time_ms: u64,
    pub flush_time_ms: u64,
    pub discard_time_ms: u64,
    /// Time with at least one I/O in flight, ms (summed over devices when several).
    pub busy_time_ms: u64,
    /// In-flight count × time, ms: divided by the elapsed time it is the average queue size.
    pub queue_time_ms: u64,
}

impl DiskCounts {
    /// Add `other` to these counts (another interval, or another member device).
    pub fn add(&mut self, other: &DiskCounts) {
        let pairs = [
            (&mut self.reads, other.reads),
            (&mut self.writes, other.writes),
            (&mut self.flushes, other.flushes),
            (&mut self.discards, other.discards),
            (&mut self.read_bytes, other.read_bytes),
            (&mut self.written_bytes, other.written_bytes),
            (&mut self.discarded_bytes, other.discarded_bytes),
            (&mut self.read_time_ms, other.read_time_ms),
            (&mut self.write_time_ms, other.write_time_ms),
            (&mut self.flush_time_ms, other.flush_time_ms),
            (&mut self.discard_time_ms, other.discard_time_ms),
            (&mut self.busy_time_ms, other.busy_time_ms),
            (&mut self.queue_time_ms, other.queue_time_ms),
        ];
        for (mine, theirs) in pairs {
            *mine = mine.saturating_add(theirs);
        }
    }
}

/// iostat's figures over an interval, for one device or several summed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct DeviceFigures {
    /// The device these figures describe, or the members summed into them.
    pub devices: Vec<String>,
    pub read_ops_per_s: f64,
    pub read_mib_per_s: f64,
    /// Average size of a completed read, KiB; None when no read completed.
    pub read_avg_request_kib: Option<f64>,
    /// Average time a read took, queueing included, ms; None when no read completed.
    pub read_await_ms: Option<f64>,
    pub write_ops_per_s: f64,
    pub write_mib_per_s: f64,
    /// Average size of a completed write, KiB; None when no write completed.
    pub write_avg_request_kib: Option<f64>,
    /// Average time a write took, queueing included, ms; None when no write completed.
    pub write_await_ms: Option<f64>,
    pub flushes_per_s: f64,
    pub discards_per_s: f64,
    /// Time-weighted average number of I/Os in flight (iostat's aqu-sz), summed over devices.
    pub aqu_sz: f64,
    /// Share of the interval with I/O in flight, averaged over the devices. Not a saturation
    /// measure on devices that serve requests in parallel (see the module documentation).
    pub util_pct: f64,
    /// The counts the figures come from, for sums over a phase.
    pub counts: DiskCounts,
}

impl DeviceFigures {
    /// The figures of `counts` over `elapsed_ms`, iostat's formulas: rates are counts per
    /// second, await is time per completed request, aqu-sz is queue time over elapsed time and
    /// %util is busy time over elapsed time (over elapsed time × devices when several).
    pub fn from_counts(devices: Vec<String>, counts: DiskCounts, elapsed_ms: f64) -> Self {
        let c = &counts;
        let per_s = |n: u64| per_second(n as f64, elapsed_ms);
        let kib = |bytes: u64, ops: u64| ratio(bytes as f64 / 1024.0, ops);
        let busy_pct = 100.0 * ratio_f(c.busy_time_ms as f64, elapsed_ms * devices.len() as f64);
        DeviceFigures {
            read_ops_per_s: per_s(c.reads),
            read_mib_per_s: per_s(c.read_bytes) / MIB,
            read_avg_request_kib: kib(c.read_bytes, c.reads),
            read_await_ms: ratio(c.read_time_ms as f64, c.reads),
            write_ops_per_s: per_s(c.writes),
            write_mib_per_s: per_s(c.written_bytes) / MIB,
            write_avg_request_kib: kib(c.written_bytes, c.writes),
            write_await_ms: ratio(c.write_time_ms as f64, c.writes),
            flushes_per_s: per_s(c.flushes),
            discards_per_s: per_s(c.discards),
            aqu_sz: ratio_f(c.queue_time_ms as f64, elapsed_ms),
            // io_ticks and our clock are read at slightly different instants.
            util_pct: busy_pct.min(100.0),
            devices,
            counts,
        }
    }

    /// Average time a read or write took, both together (iostat's former `await`), ms;
    /// None when nothing completed.
    pub fn await_ms(&self) -> Option<f64> {
        let c = &self.counts;
        ratio(
            (c.read_time_ms + c.write_time_ms) as f64,
            c.reads + c.writes,
        )
    }
}

/// `n` per second over `elapsed_ms`; 0 over an empty interval.
pub(super) fn per_second(n: f64, elapsed_ms: f64) -> f64 {
    ratio_f(n * 1000.0, elapsed_ms)
}

/// `a / b`, 0 when `b` is not positive (so that no NaN reaches a JSON file).
pub(super) fn ratio_f(a: f64, b: f64) -> f64 {
    if b > 0.0 { a / b } else { 0.0 }
}

/// `value / count`, None when the count is 0.
fn ratio(value: f64, count: u64) -> Option<f64> {
    (count > 0).then(|| value / count as f64)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Copied from /proc/diskstats of a 6.18 kernel (17 counters).
    const KERNEL_6_18: &str = "   7       0 loop0 724 0 16180 83 186452 355 1662476 35092 0 1804 35440 10 0 651274 156 57 107
 254       0 vda 409105 6084 7567386 471924 3159519 190028 156579912 3855012 0 134704 4372977 70373 12 93138424 34355 301322 11684
 253       0 zram0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0
";
    /// Laid out as kernels before 4.18 print it (11 counters: 14 fields with the name).
    const KERNEL_4_15: &str =
        "   8       0 sda 75464 3201 5339778 36440 69358 70880 2958232 116672 0 58892 153100
   8       1 sda1 75372 3201 5335714 36420 69357 70880 2958224 116672 2 58880 153092
";

    #[test]
    fn a_17_field_line_parses_into_every_counter() {
        let lines = parse(KERNEL_6_18).expect("parse");
        assert_eq!(lines.len(), 3);
        let vda = &lines[1];
        assert_eq!((vda.major, vda.minor, vda.name.as_str()), (254, 0, "vda"));
        let expected = DiskCounters {
            reads: 409_105,
            reads_merged: 6084,
            sectors_read: 7_567_386,
            read_ms: 471_924,
            writes: 3_159_519,
            writes_merged: 190_028,
            sectors_written: 156_579_912,
            write_ms: 3_855_012,
            in_flight: 0,
            io_ms: 134_704,
            weighted_io_ms: 4_372_977,
            discards: 70_373,
            discards_merged: 12,
            sectors_discarded: 93_138_424,
            discard_ms: 34_355,
            flushes: 301_322,
            flush_ms: 11_684,
        };
        assert_eq!(vda.counters, expected);
    }

    #[test]
    fn a_14_field_line_reads_discards_and_flushes_as_zero() {
        let lines = parse(KERNEL_4_15).expect("parse");
        let sda1 = &lines[1];
        assert_eq!((sda1.major, sda1.minor, sda1.name.as_str()), (8, 1, "sda1"));
        let c = sda1.counters;
        assert_eq!(
            (c.reads, c.sectors_written, c.in_flight),
            (75_372, 2_958_224, 2)
        );
        assert_eq!((c.io_ms, c.weighted_io_ms), (58_880, 153_092));
        assert_eq!(
            (c.discards, c.sectors_discarded, c.flushes, c.flush_ms),
            (0, 0, 0, 0)
        );
    }

    #[test]
    fn malformed_lines_are_errors_naming_the_line() {
        let short = "   7       0 loop0 724 0 16180";
        let err = parse(&format!("{}{short}\n", KERNEL_4_15)).expect_err("too short");
        assert!(
            matches!(
                err,
                TelemetryError::Parse {
                    line: 3,
                    problem: ParseProblem::TooFewFields {
                        found: 6,
                        needed: 14
                    },
                    ..
                }
            ),
            "{err}"
        );
        let bad = "   7       0 loop0 724 0 16180 83 x 355 1662476 35092 0 1804 35440";
        let err = parse(bad).expect_err("not a number");
        assert_eq!(
            err.to_string(),
            "/proc/diskstats, line 1: field 8 is not a counter: \"x\""
        );
    }

    #[test]
    fn deltas_wrap_at_32_bits_when_the_earlier_value_fits_in_32_bits() {
        assert_eq!(counter_delta(10, 4), 6);
        assert_eq!(counter_delta(5, u64::from(u32::MAX) - 4), 10);
        assert_eq!(counter_delta(5, u64::MAX - 4), 10);
    }

    #[test]
    fn interval_figures_follow_iostat() {
        // Two samples of one device one second apart (1000 ms).
        let earlier = DiskCounters {
            reads: 100,
            sectors_read: 800,
            read_ms: 50,
            writes: 10,
            sectors_written: 80,
            io_ms: 1000,
            weighted_io_ms: 2000,
            ..DiskCounters::default()
        };
        let later = DiskCounters {
            reads: 300,
            sectors_read: 800 + 200 * 8,
            read_ms: 50 + 400,
            writes: 10 + 50,
            sectors_written: 80 + 50 * 256,
            write_ms: 1000,
            io_ms: 1000 + 500,
            weighted_io_ms: 2000 + 1500,
            flushes: 25,
            ..DiskCounters::default()
        };
        let counts = later.delta(&earlier);
        assert_eq!((counts.reads, counts.read_bytes), (200, 200 * 4096));
        let f = DeviceFigures::from_counts(vec!["sda".into()], counts, 1000.0);
        assert_eq!(f.read_ops_per_s, 200.0);
        assert_eq!(f.read_mib_per_s, 200.0 * 4096.0 / MIB);
        assert_eq!(f.read_avg_request_kib, Some(4.0));
        assert_eq!(f.read_await_ms, Some(2.0));
        assert_eq!(f.write_avg_request_kib, Some(128.0));
        assert_eq!(f.write_await_ms, Some(20.0));
        assert_eq!((f.aqu_sz, f.util_pct, f.flushes_per_s), (1.5, 50.0, 25.0));
        assert_eq!(f.await_ms(), Some(1400.0 / 250.0));
        let idle = DeviceFigures::from_counts(vec!["sda".into()], DiskCounts::default(), 0.0);
        assert_eq!(
            (idle.read_await_ms, idle.aqu_sz, idle.util_pct),
            (None, 0.0, 0.0)
        );
    }

    #[test]
    fn utilisation_of_several_devices_is_their_average() {
        let counts = DiskCounts {
            busy_time_ms: 1500,
            queue_time_ms: 3000,
            ..DiskCounts::default()
        };
        let f = DeviceFigures::from_counts(vec!["sda".into(), "sdb".into()], counts, 1000.0);
        assert_eq!((f.util_pct, f.aqu_sz), (75.0, 3.0));
    }
}
