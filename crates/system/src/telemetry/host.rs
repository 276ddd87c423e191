//! Host counters: CPU time from `/proc/stat`, a process's CPU time and resident memory from
//! `/proc/PID/stat`, page-cache state from `/proc/meminfo`, and pressure stall totals from
//! `/proc/pressure/{cpu,io}`.

use serde::{Deserialize, Serialize};

use super::error::{ParseProblem, TelemetryError, counter};

/// The host's CPU time since boot (or over an interval), summed over all CPUs, in clock ticks
/// (`USER_HZ`, see [`Clock`]). Guest time is already part of user time.
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema,
)]
pub struct CpuTicks {
    pub user_ticks: u64,
    pub nice_ticks: u64,
    pub system_ticks: u64,
    pub idle_ticks: u64,
    /// Idle time with I/O outstanding: a hint that tasks wait for I/O, not a measure of it.
    pub iowait_ticks: u64,
    pub irq_ticks: u64,
    pub softirq_ticks: u64,
    /// Time a hypervisor ran something else while this guest wanted to run.
    pub steal_ticks: u64,
}

impl CpuTicks {
    pub fn total(&self) -> u64 {
        self.fields().iter().sum()
    }

    fn fields(&self) -> [u64; 8] {
        [
            self.user_ticks,
            self.nice_ticks,
            self.system_ticks,
            self.idle_ticks,
            self.iowait_ticks,
            self.irq_ticks,
            self.softirq_ticks,
            self.steal_ticks,
        ]
    }

    fn from_fields(f: [u64; 8]) -> Self {
        let [user, nice, system, idle, iowait, irq, softirq, steal] = f;
        CpuTicks {
            user_ticks: user,
            nice_ticks: nice,
            system_ticks: system,
            idle_ticks: idle,
            iowait_ticks: iowait,
            irq_ticks: irq,
            softirq_ticks: softirq,
            steal_ticks: steal,
        }
    }

    /// The ticks between `earlier` and `self`. The kernel's counters are 64-bit and do not go
    /// back, except iowait, which may dip; a dip counts as 0.
    pub fn delta(&self, earlier: &CpuTicks) -> CpuTicks {
        let (now, before) = (self.fields(), earlier.fields());
        CpuTicks::from_fields(std::array::from_fn(|i| now[i].saturating_sub(before[i])))
    }

    /// Add another interval's ticks.
    pub fn add(&mut self, other: &CpuTicks) {
        let (mine, theirs) = (self.fields(), other.fields());
        *self = CpuTicks::from_fields(std::array::from_fn(|i| mine[i].saturating_add(theirs[i])));
    }
}

/// The first line of `/proc/stat` (`cpu  user nice system idle iowait irq softirq steal …`);
/// fields a kernel does not print read as 0.
pub fn parse_cpu(text: &str) -> Result<CpuTicks, TelemetryError> {
    let parse_error = |line, problem| TelemetryError::Parse {
        file: "/proc/stat",
        line,
        problem,
    };
    let (index, line) = text
        .lines()
        .enumerate()
        .find(|(_, l)| l.starts_with("cpu "))
        .ok_or_else(|| parse_error(1, ParseProblem::Missing("cpu ")))?;
    let fields: Vec<&str> = line.split_whitespace().skip(1).collect();
    if fields.len() < 4 {
        let problem = ParseProblem::TooFewFields {
            found: fields.len() + 1,
            needed: 5,
        };
        return Err(parse_error(index + 1, problem));
    }
    let mut values = [0u64; 8];
    for (i, text) in fields.iter().take(8).enumerate() {
        values[i] = counter(text, i + 2).map_err(|p| parse_error(index + 1, p))?;
    }
    Ok(CpuTicks::from_fields(values))
}

/// What `/proc/PID/stat` tells of one process.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ProcessStat {
    /// The parent's process id (field 4).
    pub ppid: u32,
    /// CPU time in user mode (field 14), ticks.
    pub utime_ticks: u64,
    /// CPU time in kernel mode (field 15), ticks.
    pub stime_ticks: u64,
    /// CPU time of its children that have exited and been waited for (fields 16 and 17),
    /// ticks.
    pub reaped_children_ticks: u64,
    /// Resident set size (field 24, pages) in bytes.
    pub rss_bytes: u64,
}

impl ProcessStat {
    pub fn cpu_ticks(&self) -> u64 {
        self.utime_ticks.saturating_add(self.stime_ticks)
    }
}

/// Parse `/proc/PID/stat`. The command name (field 2) is in parentheses and may itself hold
/// spaces and parentheses, so fields are counted from the last `)`.
pub fn parse_process(text: &str, page_size: u64) -> Result<ProcessStat, TelemetryError> {
    let parse_error = |problem| TelemetryError::Parse {
        file: "/proc/PID/stat",
        line: 1,
        problem,
    };
    let (_, rest) = text
        .rsplit_once(')')
        .ok_or_else(|| parse_error(ParseProblem::NoCommandEnd))?;
    // rest[0] is field 3 (state): field n is rest[n - 3].
    let rest: Vec<&str> = rest.split_whitespace().collect();
    let field = |n: usize| -> Result<u64, TelemetryError> {
        let text = rest.get(n - 3).ok_or_else(|| {
            parse_error(ParseProblem::TooFewFields {
                found: rest.len() + 2,
                needed: n,
            })
        })?;
        counter(text, n).map_err(parse_error)
    };
    Ok(ProcessStat {
        ppid: u32::try_from(field(4)?).unwrap_or(0),
        utime_ticks: field(14)?,
        stime_ticks: field(15)?,
        reaped_children_ticks: field(16)?.saturating_add(field(17)?),
        rss_bytes: field(24)?.saturating_mul(page_size),
    })
}

/// Page-cache state from `/proc/meminfo`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct MemoryFigures {
    /// Page cache (`Cached`).
    pub cached_bytes: u64,
    /// Modified pages not yet written back (`Dirty`).
    pub dirty_bytes: u64,
    /// Pages being written back now (`Writeback`).
    pub writeback_bytes: u64,
}

/// Parse `/proc/meminfo` (values in kB, meaning KiB).
pub fn parse_meminfo(text: &str) -> Result<MemoryFigures, TelemetryError> {
    let value = |key: &'static str| -> Result<u64, TelemetryError> {
        let found = text.lines().enumerate().find_map(|(i, line)| {
            let rest = line.strip_prefix(key)?.strip_prefix(':')?;
            Some((i, rest.trim().trim_end_matches("kB").trim()))
        });
        let (i, number) = found.ok_or(TelemetryError::Parse {
            file: "/proc/meminfo",
            line: 1,
            problem: ParseProblem::Missing(key),
        })?;
        let kib = counter(number, 2).map_err(|problem| TelemetryError::Parse {
            file: "/proc/meminfo",
            line: i + 1,
            problem,
        })?;
        Ok(kib.saturating_mul(1024))
    };
    Ok(MemoryFigures {
        cached_bytes: value("Cached")?,
        dirty_bytes: value("Dirty")?,
        writeback_bytes: value("Writeback")?,
    })
}

/// Stall totals of one resource from `/proc/pressure/RESOURCE`, µs since boot.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Pressure {
    /// Time at least one task was stalled on the resource.
    pub some_total_us: u64,
    /// Time every non-idle task was stalled at once (no `full` line for cpu before 5.13).
    pub full_total_us: Option<u64>,
}

/// Parse a pressure file: `some avg10=… avg60=… avg300=… total=N` and the same for `full`.
pub fn parse_pressure(text: &str) -> Result<Pressure, TelemetryError> {
    let total = |kind: &'static str| -> Result<Option<u64>, TelemetryError> {
        let Some((i, line)) = text
            .lines()
            .enumerate()
            .find(|(_, l)| l.split_whitespace().next() == Some(kind))
        else {
            return Ok(None);
        };
        let parse_error = |problem| TelemetryError::Parse {
            file: "/proc/pressure",
            line: i + 1,
            problem,
        };
        let value = line
            .split_whitespace()
            .find_map(|f| f.strip_prefix("total="))
            .ok_or(parse_error(ParseProblem::Missing("total=")))?;
        counter(value, 5).map(Some).map_err(parse_error)
    };
    let some = total("some")?.ok_or(TelemetryError::Parse {
        file: "/proc/pressure",
        line: 1,
        problem: ParseProblem::Missing("some"),
    })?;
    Ok(Pressure {
        some_total_us: some,
        full_total_us: total("full")?,
    })
}

/// Read `/proc/pressure/RESOURCE`; None when the kernel has no such file (before 4.20, or
/// pressure accounting off), which is not an error.
pub fn read_pressure(resource: &'static str) -> Result<Option<Pressure>, TelemetryError> {
    let path = format!("/proc/pressure/{resource}");
    match std::fs::read_to_string(&path) {
        Ok(text) => parse_pressure(&text).map(Some),
        // Absent, or present but refusing reads (psi=0 on the kernel command line).
        Err(e) if matches!(e.raw_os_error(), Some(libc::ENOENT | libc::EOPNOTSUPP)) => Ok(None),
        Err(source) => Err(TelemetryError::Read {
            path: path.into(),
            source,
        }),
    }
}

/// Read `/proc/stat`'s CPU line.
pub fn read_cpu() -> Result<CpuTicks, TelemetryError> {
    parse_cpu(&super::error::read("/proc/stat")?)
}

/// Read `/proc/meminfo`.
pub fn read_meminfo() -> Result<MemoryFigures, TelemetryError> {
    parse_meminfo(&super::error::read("/proc/meminfo")?)
}

/// Read `/proc/PID/stat`, or `/proc/self/stat` when `pid` is None.
pub fn read_process(pid: Option<u32>, clock: &Clock) -> Result<ProcessStat, TelemetryError> {
    let path = match pid {
        Some(pid) => format!("/proc/{pid}/stat"),
        None => "/proc/self/stat".to_owned(),
    };
    let text = std::fs::read_to_string(&path).map_err(|source| TelemetryError::Read {
        path: path.into(),
        source,
    })?;
    parse_process(&text, clock.page_size)
}

/// Servers' CPU time with their worker processes' (PostgreSQL runs a process per connection,
/// MariaDB threads that its own figures hold already): each server's own, its live
/// children's, and its exited children's that it has waited for (added to `utime_ticks`: only
/// the sum is used); resident memory is its own only (its children share its buffers).
/// `/proc` is listed once for all of them (a server may have thousands of backends); the
/// parents' own figures when it cannot be listed.
pub fn read_servers(pids: &[u32], clock: &Clock) -> Vec<Result<ProcessStat, TelemetryError>> {
    let mut out: Vec<_> = pids
        .iter()
        .map(|&pid| {
            let mut own = read_process(Some(pid), clock)?;
            own.utime_ticks = own.utime_ticks.saturating_add(own.reaped_children_ticks);
            Ok(own)
        })
        .collect();
    let entries = match std::fs::read_dir("/proc") {
        Ok(entries) if !pids.is_empty() => entries,
        _ => return out,
    };
    let children = entries
        .filter_map(|e| e.ok()?.file_name().to_str()?.parse::<u32>().ok())
        .filter_map(|child| read_process(Some(child), clock).ok());
    for child in children {
        let parent = pids.iter().position(|&pid| pid == child.ppid);
        if let Some(Ok(tree)) = parent.map(|i| &mut out[i]) {
            tree.utime_ticks = tree.utime_ticks.saturating_add(child.utime_ticks);
            tree.stime_ticks = tree.stime_ticks.saturating_add(child.stime_ticks);
        }
    }
    out
}

/// The units the kernel counts host figures in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Clock {
    /// `USER_HZ`: ticks per second of `/proc/stat` and `/proc/PID/stat` (100 almost everywhere).
    pub ticks_per_s: u64,
    /// Bytes per page, for the RSS of `/proc/PID/stat`.
    pub page_size: u64,
}

impl Clock {
    /// This system's `sysconf(_SC_CLK_TCK)` and page size.
    pub fn system() -> Clock {
        Clock {
            ticks_per_s: rustix::param::clock_ticks_per_second().max(1),
            page_size: rustix::param::page_size() as u64,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_cpu_line_of_proc_stat_parses_into_ticks() {
        // The first line copied from /proc/stat of a 2-vCPU guest (6.18), a cpu0 line after it.
        let text = "cpu  256769 7976 45729 62472 5297 0 3089 855 0 0\ncpu0 128000 4000 22000 31000 2600 0 1500 400 0 0\n";
        let ticks = parse_cpu(text).expect("parse");
        let expected = CpuTicks {
            user_ticks: 256_769,
            nice_ticks: 7976,
            system_ticks: 45_729,
            idle_ticks: 62_472,
            iowait_ticks: 5297,
            irq_ticks: 0,
            softirq_ticks: 3089,
            steal_ticks: 855,
        };
        assert_eq!(ticks, expected);
        assert_eq!(ticks.total(), 382_187);
        let older = parse_cpu("cpu  10 20 30 40\n").expect("four fields");
        assert_eq!((older.idle_ticks, older.steal_ticks), (40, 0));
        assert!(parse_cpu("intr 1 2 3\n").is_err());
    }

    #[test]
    fn process_stat_is_read_after_the_last_parenthesis() {
        // /proc/PID/stat of `cat`, copied from a 6.18 kernel with utime and stime set to 7
        // and 3, then the same with a command name holding spaces and parentheses, as a
        // thread can name itself.
        let plain = "13388 (cat) R 13378 13378 12237 0 -1 4194304 103 0 0 0 7 3 0 0 20 0 1 0 192110 3133440 415 18446744073709551615 94284955009024 94284955028905 140725800182784 0 0 0 0 0 0 0 0 0 17 1 0 0 0 0 0 94284955044912 94284955046528 94285222014976 140725800188640 140725800188660 140725800188660 140725800189931 0";
        let odd = plain.replace("(cat)", "(my (odd) name) x)");
        for text in [plain.to_owned(), odd] {
            let stat = parse_process(&text, 4096).expect("parse");
            let expected = ProcessStat {
                ppid: 13378,
                utime_ticks: 7,
                stime_ticks: 3,
                reaped_children_ticks: 0,
                rss_bytes: 415 * 4096,
            };
            assert_eq!(stat, expected, "{text}");
            assert_eq!(stat.cpu_ticks(), 10);
        }
        let err = parse_process("13388 (cat R 1 2", 4096).expect_err("no )");
        assert!(err.to_string().contains("no `)`"), "{err}");
        let err = parse_process("13388 (cat) R 1 2", 4096).expect_err("short");
        assert!(err.to_string().contains("at least 14 are needed"), "{err}");
    }

    #[test]
    fn a_servers_cpu_counts_its_worker_processes() {
        // A parent that burns nothing itself: a child burns a second and is reaped, then a
        // second child burns until killed.
        let script = "(end=$(($(date +%s) + 1)); while [ $(date +%s) -le $end ]; do :; done); \
                      (while :; do :; done) & wait";
        let mut parent = std::process::Command::new("sh")
            .args(["-c", script])
            .spawn()
            .expect("sh");
        std::thread::sleep(std::time::Duration::from_millis(3500));
        let clock = Clock::system();
        let pid = parent.id();
        let own = read_process(Some(pid), &clock).expect("own").cpu_ticks();
        let tree = read_servers(&[pid], &clock).remove(0).expect("tree");
        let reaped = tree.reaped_children_ticks;
        let _ = std::process::Command::new("pkill")
            .args(["-P", &pid.to_string()])
            .status();
        let _ = parent.kill();
        let _ = parent.wait();
        assert!(reaped >= 5, "the reaped child's time: {reaped} ticks");
        assert!(
            tree.cpu_ticks() >= own + reaped + 5,
            "own {own}, reaped {reaped}, tree {}",
            tree.cpu_ticks()
        );
    }

    #[test]
    fn meminfo_gives_cached_dirty_and_writeback_in_bytes() {
        let text = "MemTotal:       32863680 kB\nMemFree:         1012345 kB\nBuffers:           81234 kB\nCached:         21615592 kB\nSwapCached:            0 kB\nDirty:            233660 kB\nWriteback:             0 kB\nWritebackTmp:          0 kB\n";
        let m = parse_meminfo(text).expect("parse");
        let expected = MemoryFigures {
            cached_bytes: 21_615_592 * 1024,
            dirty_bytes: 233_660 * 1024,
            writeback_bytes: 0,
        };
        assert_eq!(m, expected);
        assert!(parse_meminfo("MemTotal: 1 kB\n").is_err());
    }

    #[test]
    fn pressure_totals_parse_with_and_without_a_full_line() {
        let io = "some avg10=14.00 avg60=5.26 avg300=2.99 total=71072295\nfull avg10=0.00 avg60=0.00 avg300=0.36 total=28070036\n";
        let p = parse_pressure(io).expect("parse");
        assert_eq!(p.some_total_us, 71_072_295);
        assert_eq!(p.full_total_us, Some(28_070_036));
        let cpu_before_5_13 = "some avg10=0.00 avg60=0.00 avg300=0.00 total=12345\n";
        assert_eq!(
            parse_pressure(cpu_before_5_13)
                .expect("parse")
                .full_total_us,
            None
        );
        assert!(parse_pressure("full avg10=0.00 total=1\n").is_err());
    }

    #[test]
    fn the_real_host_files_parse() {
        let clock = Clock::system();
        assert!(
            clock.ticks_per_s >= 1 && clock.page_size >= 512,
            "{clock:?}"
        );
        assert!(read_cpu().expect("/proc/stat").total() > 0);
        let me = read_process(None, &clock).expect("/proc/self/stat");
        assert!(me.rss_bytes > 0);
        let by_pid = read_process(Some(std::process::id()), &clock).expect("by pid");
        assert!(by_pid.rss_bytes > 0);
        read_meminfo().expect("/proc/meminfo");
        read_pressure("io").expect("/proc/pressure/io");
    }
}
