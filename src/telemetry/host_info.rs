//! Facts about the machine a run happened on, so that results from
//! different hosts can be told apart. Read best-effort from `/proc` and
//! `/etc/os-release`; anything missing falls back to a placeholder or `None`.

use std::path::Path;

/// The machine a run happened on.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize, schemars::JsonSchema, PartialEq)]
pub struct HostInfo {
    /// Host name as the kernel knows it.
    pub hostname: String,
    /// Operating system, e.g. "Debian GNU/Linux 12 (bookworm)", or "linux".
    pub os: String,
    /// Kernel release, e.g. "6.1.0-18-amd64".
    pub kernel: String,
    /// CPU model name, when the kernel reports one.
    pub cpu_model: Option<String>,
    /// Number of CPUs this process may run on.
    pub cpus: usize,
    /// Total memory in bytes.
    pub memory_bytes: Option<u64>,
}

/// Describe the machine this process runs on.
pub fn host_info() -> HostInfo {
    HostInfo {
        hostname: read_trimmed("/proc/sys/kernel/hostname")
            .or_else(|| read_trimmed("/etc/hostname"))
            .unwrap_or_else(|| "unknown".to_owned()),
        os: ["/etc/os-release", "/usr/lib/os-release"]
            .into_iter()
            .find_map(|path| pretty_name(&std::fs::read_to_string(path).ok()?))
            .unwrap_or_else(|| "linux".to_owned()),
        kernel: read_trimmed("/proc/sys/kernel/osrelease").unwrap_or_else(|| "unknown".to_owned()),
        cpu_model: std::fs::read_to_string("/proc/cpuinfo")
            .ok()
            .and_then(|text| cpu_model(&text)),
        cpus: std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get),
        memory_bytes: std::fs::read_to_string("/proc/meminfo")
            .ok()
            .and_then(|text| mem_total(&text)),
    }
}

fn read_trimmed(path: impl AsRef<Path>) -> Option<String> {
    let text = std::fs::read_to_string(path).ok()?;
    let text = text.trim();
    (!text.is_empty()).then(|| text.to_owned())
}

/// `PRETTY_NAME` from os-release(5) text, with shell quoting removed.
fn pretty_name(os_release: &str) -> Option<String> {
    os_release
        .lines()
        .find_map(|line| line.trim().strip_prefix("PRETTY_NAME="))
        .map(unquote)
        .filter(|name| !name.is_empty())
}

/// Undo the shell-style quoting os-release values may use.
fn unquote(value: &str) -> String {
    let value = value.trim();
    if let Some(inner) = value.strip_prefix('\'').and_then(|v| v.strip_suffix('\'')) {
        return inner.to_owned();
    }
    let inner = value
        .strip_prefix('"')
        .and_then(|v| v.strip_suffix('"'))
        .unwrap_or(value);
    let mut out = String::with_capacity(inner.len());
    let mut chars = inner.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => out.extend(chars.next()),
            c => out.push(c),
        }
    }
    out
}

/// The first "model name" in /proc/cpuinfo text.
fn cpu_model(cpuinfo: &str) -> Option<String> {
    cpuinfo
        .lines()
        .filter_map(|line| line.split_once(':'))
        .find(|(key, _)| key.trim() == "model name")
        .map(|(_, value)| value.trim().to_owned())
        .filter(|model| !model.is_empty())
}

/// `MemTotal` from /proc/meminfo text, in bytes.
fn mem_total(meminfo: &str) -> Option<u64> {
    let value = meminfo
        .lines()
        .find_map(|line| line.strip_prefix("MemTotal:"))?;
    let kib = value
        .trim()
        .strip_suffix("kB")?
        .trim()
        .parse::<u64>()
        .ok()?;
    kib.checked_mul(1024)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn this_machine_has_cpus_and_a_kernel() {
        let host = host_info();
        assert!(host.cpus >= 1, "{host:?}");
        assert!(!host.kernel.is_empty(), "{host:?}");
        assert!(!host.hostname.is_empty(), "{host:?}");
        assert!(!host.os.is_empty(), "{host:?}");
    }

    #[test]
    fn os_release_pretty_name_is_unquoted() {
        let cases = [
            (
                "NAME=\"Debian GNU/Linux\"\nPRETTY_NAME=\"Debian GNU/Linux 12 (bookworm)\"\n",
                Some("Debian GNU/Linux 12 (bookworm)"),
            ),
            ("PRETTY_NAME='Arch Linux'\n", Some("Arch Linux")),
            ("PRETTY_NAME=Alpine\n", Some("Alpine")),
            (
                r#"PRETTY_NAME="Say \"hi\" \$HOME""#,
                Some(r#"Say "hi" $HOME"#),
            ),
            ("PRETTY_NAME=\"\"\n", None),
            ("NAME=Fedora\n", None),
            ("", None),
        ];
        for (text, expected) in cases {
            assert_eq!(pretty_name(text).as_deref(), expected, "{text:?}");
        }
    }

    #[test]
    fn cpu_model_is_the_first_model_name() {
        let cases = [
            (
                "processor\t: 0\nmodel name\t: AMD EPYC 7B13\nprocessor\t: 1\nmodel name\t: other\n",
                Some("AMD EPYC 7B13"),
            ),
            ("processor\t: 0\nBogoMIPS\t: 50.00\n", None),
            ("model name\t:\n", None),
        ];
        for (text, expected) in cases {
            assert_eq!(cpu_model(text).as_deref(), expected, "{text:?}");
        }
    }

    #[test]
    fn mem_total_is_converted_from_kib() {
        let cases = [
            (
                "MemTotal:       32868 kB\nMemFree: 1 kB\n",
                Some(32_868 * 1024),
            ),
            ("MemFree: 1 kB\n", None),
            ("MemTotal: lots kB\n", None),
            ("MemTotal: 5 MB\n", None),
        ];
        for (text, expected) in cases {
            assert_eq!(mem_total(text), expected, "{text:?}");
        }
    }
}
