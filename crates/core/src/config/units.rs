//! Units as scenario files write them: durations (`"90s"`, `"1h30m"` or `"1h 30m"`, `"250ms"`), sizes
//! (`"24GiB"`, `"512KB"`, plain byte counts) and percentages (`"25%"`). Parsing is strict:
//! anything not understood is an error that says what was expected.

use std::time::Duration;

/// Why a duration, size or percentage was not understood; each says what was expected.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum UnitError {
    #[error("empty duration; expected e.g. \"30s\", \"2h\" or \"1h30m\"")]
    EmptyDuration,
    #[error(
        "invalid duration {0:?}; expected a number followed by a unit (ms, s, m, h, d), e.g. \"90s\" or \"1h30m\""
    )]
    Duration(String),
    #[error("invalid number in {what} {text:?}")]
    Number { what: &'static str, text: String },
    #[error("duration {text:?} has no unit; write e.g. \"{number}s\"")]
    NoUnit { text: String, number: f64 },
    #[error("unknown unit {unit:?} in duration {text:?}; use ms, s, m, h or d")]
    DurationUnit { unit: String, text: String },
    #[error("duration {0:?} is too long")]
    TooLong(String),
    #[error("invalid size {0:?}; expected a number with an optional unit, e.g. \"24GiB\"")]
    Size(String),
    #[error("unknown unit {unit:?} in size {text:?}; use B, KiB, MiB, GiB, TiB, KB, MB, GB or TB")]
    SizeUnit { unit: String, text: String },
    #[error("size {0:?} is too large")]
    TooLarge(String),
    #[error("invalid percentage {0:?}; expected e.g. \"25%\"")]
    Percent(String),
    #[error("percentage {0:?} must be above 0% and at most 100%")]
    PercentRange(String),
    #[error(
        "invalid time {0:?}; expected RFC 3339 (e.g. \"2026-12-02T10:00:00Z\" or \"2026-12-02T11:00:00+01:00\") or \"+DURATION\" from now (e.g. \"+90s\")"
    )]
    Time(String),
}

/// Parse a duration such as `"90s"`, `"2h"`, `"1h30m"`, `"250ms"` or `"1.5s"`; spaces may
/// separate the parts (`"1h 30m"`, `"30 s"`). A bare number is refused: a duration always
/// carries its unit.
pub fn parse_duration(text: &str) -> Result<Duration, UnitError> {
    let s = text.trim();
    if s.is_empty() {
        return Err(UnitError::EmptyDuration);
    }
    let mut total_ns: f64 = 0.0;
    let mut rest = s;
    while !rest.is_empty() {
        let num_len = rest
            .find(|c: char| !(c.is_ascii_digit() || c == '.'))
            .unwrap_or(rest.len());
        if num_len == 0 {
            return Err(UnitError::Duration(text.into()));
        }
        let number: f64 = rest[..num_len].parse().map_err(|_| UnitError::Number {
            what: "duration",
            text: text.into(),
        })?;
        rest = rest[num_len..].trim_start();
        let unit_len = rest
            .find(|c: char| c.is_ascii_digit() || c == '.' || c.is_whitespace())
            .unwrap_or(rest.len());
        let unit = &rest[..unit_len];
        rest = rest[unit_len..].trim_start();
        let unit_ns = match unit {
            "ns" => 1.0,
            "us" | "µs" => 1e3,
            "ms" => 1e6,
            "s" => 1e9,
            "m" | "min" => 60e9,
            "h" => 3600e9,
            "d" => 86400e9,
            "" => {
                return Err(UnitError::NoUnit {
                    text: text.into(),
                    number,
                });
            }
            other => {
                return Err(UnitError::DurationUnit {
                    unit: other.into(),
                    text: text.into(),
                });
            }
        };
        total_ns += number * unit_ns;
    }
    if !total_ns.is_finite() || total_ns > 1e18 {
        return Err(UnitError::TooLong(text.into()));
    }
    Ok(Duration::from_nanos(total_ns.round() as u64))
}

/// Format a duration the way scenario files write them: `"2h"`, `"1h30m"`, `"45s"`, `"1.5s"`.
pub fn format_duration(d: Duration) -> String {
    let ms = d.as_millis();
    if d.is_zero() {
        return "0s".into();
    }
    if ms == 0 {
        return format!("{}us", d.as_micros());
    }
    if !ms.is_multiple_of(1000) {
        if ms < 1000 {
            return format!("{ms}ms");
        }
        let secs = format!("{:.3}", d.as_secs_f64());
        return format!("{}s", secs.trim_end_matches('0').trim_end_matches('.'));
    }
    let secs = d.as_secs();
    let (h, m, s) = (secs / 3600, (secs % 3600) / 60, secs % 60);
    let mut out = String::new();
    if h > 0 {
        out.push_str(&format!("{h}h"));
    }
    if m > 0 {
        out.push_str(&format!("{m}m"));
    }
    if s > 0 || out.is_empty() {
        out.push_str(&format!("{s}s"));
    }
    out
}

/// A length in seconds as read from a result (`summary.seconds`), formatted like
/// [`format_duration`]; a value no duration holds (negative, too large) is shown as it is.
pub fn format_seconds(seconds: f64) -> String {
    match Duration::try_from_secs_f64(seconds) {
        Ok(d) => format_duration(d),
        Err(_) => format!("{seconds} s"),
    }
}

/// A count with thousands separators: 1000000 -> "1,000,000".
pub fn format_count(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, ch) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(ch);
    }
    out
}

/// Parse a size such as `"24GiB"`, `"512MB"`, `"4k"` or `"1048576"` into bytes.
/// Binary (KiB, MiB, GiB, TiB) and decimal (KB, MB, GB, TB) units; K/M/G/T alone are binary.
pub fn parse_size(text: &str) -> Result<u64, UnitError> {
    let s = text.trim();
    let split = s
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(s.len());
    if split == 0 {
        return Err(UnitError::Size(text.into()));
    }
    let number: f64 = s[..split].parse().map_err(|_| UnitError::Number {
        what: "size",
        text: text.into(),
    })?;
    let unit = s[split..].trim();
    let mult: f64 = match unit.to_ascii_lowercase().as_str() {
        "" | "b" => 1.0,
        "k" | "kib" => 1024.0,
        "m" | "mib" => 1024.0 * 1024.0,
        "g" | "gib" => 1024.0 * 1024.0 * 1024.0,
        "t" | "tib" => 1024.0f64.powi(4),
        "kb" => 1e3,
        "mb" => 1e6,
        "gb" => 1e9,
        "tb" => 1e12,
        other => {
            return Err(UnitError::SizeUnit {
                unit: other.into(),
                text: text.into(),
            });
        }
    };
    let bytes = number * mult;
    if !bytes.is_finite() || bytes > u64::MAX as f64 {
        return Err(UnitError::TooLarge(text.into()));
    }
    Ok(bytes.round() as u64)
}

/// Parse a percentage such as `"25%"` into a fraction (0.25). Must lie in (0, 100].
pub fn parse_percent(text: &str) -> Result<f64, UnitError> {
    let s = text.trim();
    let Some(num) = s.strip_suffix('%') else {
        return Err(UnitError::Percent(text.into()));
    };
    let v: f64 = num
        .trim()
        .parse()
        .map_err(|_| UnitError::Percent(text.into()))?;
    if !(v > 0.0 && v <= 100.0) {
        return Err(UnitError::PercentRange(text.into()));
    }
    Ok(v / 100.0)
}

/// Human-readable binary size, e.g. 1536 -> "1.5 KiB", 25769803776 -> "24.0 GiB", 512 -> "512 B".
pub fn format_bytes(bytes: u64) -> String {
    const UNITS: [&str; 6] = ["KiB", "MiB", "GiB", "TiB", "PiB", "EiB"];
    if bytes < 1024 {
        return format!("{bytes} B");
    }
    let mut value = bytes as f64 / 1024.0;
    let mut unit = 0;
    // Move up a unit when one decimal would round to 1024.0.
    while value >= 1023.95 && unit + 1 < UNITS.len() {
        value /= 1024.0;
        unit += 1;
    }
    format!("{value:.1} {}", UNITS[unit])
}

/// How big one amount is next to another, as prose: 8.3 -> "8.3x", 0.064 -> "6% of",
/// 0.0004 -> "under 0.1% of". A ratio below 1 as "0.0x" would read as none at all.
pub fn format_ratio(ratio: f64) -> String {
    let pct = ratio * 100.0;
    if ratio >= 1.0 {
        format!("{ratio:.1}x")
    } else if pct >= 1.0 {
        format!("{pct:.0}% of")
    } else if pct >= 0.1 {
        format!("{pct:.1}% of")
    } else {
        "under 0.1% of".to_string()
    }
}

/// Now, as RFC 3339 UTC to the second (when a run started, finished or was checked).
pub fn utc_now() -> String {
    humantime::format_rfc3339_seconds(std::time::SystemTime::now()).to_string()
}

/// An instant as RFC 3339 UTC with milliseconds, e.g. "2026-12-02T10:00:00.250Z".
pub fn format_utc_ms(t: std::time::SystemTime) -> String {
    humantime::format_rfc3339_millis(t).to_string()
}

/// An RFC 3339 instant: UTC ("Z") or with a numeric offset ("+01:00"), fractions allowed.
pub fn parse_utc(text: &str) -> Result<std::time::SystemTime, UnitError> {
    let bad = || UnitError::Time(text.to_string());
    let t = text.trim();
    let split = t.len().checked_sub(6).filter(|&i| {
        let tail = t.as_bytes().get(i..).unwrap_or_default();
        matches!(tail.first(), Some(b'+' | b'-')) && tail.get(3) == Some(&b':')
    });
    let Some(i) = split else {
        return humantime::parse_rfc3339_weak(t.strip_suffix('Z').unwrap_or(t)).map_err(|_| bad());
    };
    let (local, offset) = t.split_at(i);
    let hours: u64 = offset
        .get(1..3)
        .and_then(|h| h.parse().ok())
        .ok_or_else(bad)?;
    let minutes: u64 = offset
        .get(4..6)
        .and_then(|m| m.parse().ok())
        .ok_or_else(bad)?;
    let shift = Duration::from_secs(hours * 3600 + minutes * 60);
    let at = humantime::parse_rfc3339_weak(local).map_err(|_| bad())?;
    match offset.as_bytes()[0] {
        b'+' => at.checked_sub(shift),
        _ => at.checked_add(shift),
    }
    .ok_or_else(bad)
}

/// `--start-at`: an RFC 3339 instant, or `+DURATION` counted from `now`.
pub fn parse_start_at(
    text: &str,
    now: std::time::SystemTime,
) -> Result<std::time::SystemTime, UnitError> {
    match text.trim().strip_prefix('+') {
        Some(d) => {
            let d = parse_duration(d).map_err(|_| UnitError::Time(text.to_string()))?;
            now.checked_add(d)
                .ok_or_else(|| UnitError::Time(text.to_string()))
        }
        None => parse_utc(text),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn start_times_are_rfc3339_or_from_now() {
        let now = humantime::parse_rfc3339("2026-12-02T10:00:00Z").unwrap();
        let at = |s| parse_start_at(s, now).map(format_utc_ms);
        assert_eq!(at("+90s").unwrap(), "2026-12-02T10:01:30.000Z");
        assert_eq!(
            at("2026-12-02T10:05:00Z").unwrap(),
            "2026-12-02T10:05:00.000Z"
        );
        assert_eq!(
            at("2026-12-02T10:05:00.5Z").unwrap(),
            "2026-12-02T10:05:00.500Z"
        );
        assert_eq!(
            at("2026-12-02T11:05:00+01:00").unwrap(),
            "2026-12-02T10:05:00.000Z"
        );
        assert_eq!(
            at("2026-12-02T08:35:00-01:30").unwrap(),
            "2026-12-02T10:05:00.000Z"
        );
        for bad in [
            "",
            "+",
            "+90",
            "tomorrow",
            "2026-13-02T10:00:00Z",
            "2026-12-02T10:00:00+1:00",
        ] {
            assert!(matches!(at(bad), Err(UnitError::Time(_))), "{bad}");
        }
    }

    #[test]
    fn seconds_from_a_result_format_as_durations_or_as_they_are() {
        // issue 23: a result.json's `seconds` can hold anything; formatting never panics.
        let cases: &[(f64, &str)] = &[
            (5.008, "5.008s"),
            (90.0, "1m30s"),
            (0.0, "0s"),
            (-9.223372036854776e18, "-9223372036854776000 s"),
            (1e20, "100000000000000000000 s"),
        ];
        for (seconds, shown) in cases {
            assert_eq!(format_seconds(*seconds), *shown, "{seconds}");
        }
    }

    #[test]
    fn durations_parse_as_scenario_files_write_them() {
        let cases: &[(&str, u64)] = &[
            ("90s", 90_000),
            ("2h", 7_200_000),
            ("1h30m", 5_400_000),
            ("250ms", 250),
            ("1.5s", 1_500),
            ("15m", 900_000),
            ("1d", 86_400_000),
            (" 10s ", 10_000),
            // issue 24: spaces between the parts, as people write them.
            ("1h 30m", 5_400_000),
            ("2h 5m 10s", 7_510_000),
            ("30 s", 30_000),
        ];
        for (text, ms) in cases {
            assert_eq!(
                parse_duration(text).unwrap().as_millis() as u64,
                *ms,
                "{text}"
            );
        }
    }

    #[test]
    fn durations_without_unit_or_with_unknown_unit_are_refused() {
        for bad in [
            "",
            "10",
            "ten seconds",
            "5parsecs",
            "s",
            "1h30",
            "1h 30",
            "1 30m",
        ] {
            assert!(parse_duration(bad).is_err(), "{bad:?} should be refused");
        }
        assert!(
            parse_duration("10")
                .unwrap_err()
                .to_string()
                .contains("no unit")
        );
    }

    #[test]
    fn durations_format_back_to_their_shortest_form() {
        let cases: &[(u64, &str)] = &[
            (7_200_000, "2h"),
            (5_400_000, "1h30m"),
            (45_000, "45s"),
            (1_500, "1.5s"),
            (250, "250ms"),
            (10_800_000, "3h"),
            (30_000, "30s"),
        ];
        for (ms, text) in cases {
            assert_eq!(format_duration(Duration::from_millis(*ms)), *text);
        }
    }

    #[test]
    fn counts_get_thousands_separators() {
        let cases: &[(u64, &str)] = &[
            (0, "0"),
            (999, "999"),
            (1000, "1,000"),
            (10_000_000, "10,000,000"),
        ];
        for (n, text) in cases {
            assert_eq!(format_count(*n), *text);
        }
        assert_eq!(format_duration(Duration::ZERO), "0s");
        assert_eq!(format_duration(Duration::from_micros(30_000_400)), "30s");
    }

    #[test]
    fn ratios_read_as_times_or_as_a_share() {
        let cases: &[(f64, &str)] = &[
            (8.3, "8.3x"),
            (1.0, "1.0x"),
            (0.5, "50% of"),
            (0.064, "6% of"),
            (0.0042, "0.4% of"),
            (0.0004, "under 0.1% of"),
        ];
        for (ratio, text) in cases {
            assert_eq!(format_ratio(*ratio), *text, "{ratio}");
        }
    }

    #[test]
    fn sizes_parse_binary_and_decimal_units() {
        let cases: &[(&str, u64)] = &[
            ("24GiB", 24 * 1024 * 1024 * 1024),
            ("512KB", 512_000),
            ("4k", 4096),
            ("1048576", 1_048_576),
            ("1.5MiB", 1_572_864),
            ("2TB", 2_000_000_000_000),
        ];
        for (text, bytes) in cases {
            assert_eq!(parse_size(text).unwrap(), *bytes, "{text}");
        }
        for bad in ["", "GiB", "12 parsecs", "-1GiB"] {
            assert!(parse_size(bad).is_err(), "{bad:?} should be refused");
        }
    }

    #[test]
    fn percentages_are_fractions_within_bounds() {
        assert_eq!(parse_percent("25%").unwrap(), 0.25);
        assert_eq!(parse_percent("100%").unwrap(), 1.0);
        for bad in ["25", "0%", "101%", "abc%"] {
            assert!(parse_percent(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn sizes_are_written_in_binary_units_with_one_decimal() {
        const KIB: u64 = 1 << 10;
        const MIB: u64 = 1 << 20;
        const GIB: u64 = 1 << 30;
        const TIB: u64 = 1 << 40;
        let cases = [
            (0, "0 B"),
            (1, "1 B"),
            (512, "512 B"),
            (1023, "1023 B"),
            (KIB, "1.0 KiB"),
            (1536, "1.5 KiB"),
            (10 * KIB + 100, "10.1 KiB"),
            (MIB - 1, "1.0 MiB"),
            (MIB, "1.0 MiB"),
            (500 * MIB, "500.0 MiB"),
            (25_769_803_776, "24.0 GiB"),
            (23 * GIB + 400 * MIB, "23.4 GiB"),
            (TIB, "1.0 TiB"),
            (3 * TIB / 2, "1.5 TiB"),
            (1 << 50, "1.0 PiB"),
            (u64::MAX, "16.0 EiB"),
        ];
        for (bytes, expected) in cases {
            assert_eq!(format_bytes(bytes), expected, "{bytes} bytes");
        }
    }
}
