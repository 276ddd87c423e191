//! Inputs that once panicked, kept under tests/data/fuzz/ (bench/fuzz.sh saves what it finds
//! there): each is replayed through the library and through the binary, and must give the typed
//! error this table names, exit 2, and no panic (or, for a result now accepted, a rendered
//! report). A scenario file's `# set: KEY=VALUE` and
//! `# time-scale: F` comment lines are the overrides and time scale it was found with; a
//! `.json` file is a run directory's result.json.

use std::path::{Path, PathBuf};

/// File under tests/data/fuzz/, and what its error must say; for a result that is now read
/// and rendered, what its summary.md must say instead (`Rendered`).
const CASES: &[(&str, Expect)] = &[
    (
        "time_scale_1e300.toml",
        Expect::Refused(
            "report_interval: 5s scaled by --time-scale 1e300 is longer than the longest duration",
        ),
    ),
    // Duration::from_secs_f64 panicked on a phase's negative `seconds` in summary.md and
    // report.html; now the value is shown as it is.
    (
        "negative_phase_seconds.json",
        Expect::Rendered("## sample (recorded, -9223372036854776000 s)"),
    ),
];

enum Expect {
    Refused(&'static str),
    Rendered(&'static str),
}

fn dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/fuzz")
}

/// The overrides and time scale a kept scenario was found with.
fn found_with(text: &str) -> (Vec<String>, String) {
    let mut sets = Vec::new();
    let mut scale = "1".to_string();
    for line in text.lines() {
        if let Some(s) = line.strip_prefix("# set: ") {
            sets.push(s.to_string());
        } else if let Some(s) = line.strip_prefix("# time-scale: ") {
            scale = s.trim().to_string();
        }
    }
    (sets, scale)
}

#[test]
fn every_kept_input_has_a_row_in_the_table() {
    let mut files: Vec<String> = std::fs::read_dir(dir())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    files.sort();
    let mut rows: Vec<String> = CASES.iter().map(|(f, _)| f.to_string()).collect();
    rows.sort();
    assert_eq!(
        files, rows,
        "tests/data/fuzz/ and CASES must list the same files"
    );
}

#[test]
fn kept_scenarios_give_their_typed_error() {
    for (file, expect) in CASES.iter().filter(|(f, _)| f.ends_with(".toml")) {
        let Expect::Refused(expected) = expect else {
            panic!("{file}: a scenario is refused");
        };
        let path = dir().join(file);
        let text = std::fs::read_to_string(&path).unwrap();
        let (sets, scale) = found_with(&text);
        let err = drivebench::scenario::load_str(&text, file, &sets, scale.parse().unwrap())
            .expect_err(file);
        assert!(err.to_string().contains(expected), "{file}: {err}");
        let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_drivebench"));
        cmd.arg("plan").arg(&path).args(["--time-scale", &scale]);
        for s in &sets {
            cmd.args(["--set", s]);
        }
        let out = cmd.output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{file}: {stderr}");
        assert!(stderr.contains(expected), "{file}: {stderr}");
        assert!(!stderr.contains("panicked"), "{file}: {stderr}");
    }
}

#[test]
fn kept_results_give_their_typed_error_or_render() {
    for (file, expect) in CASES.iter().filter(|(f, _)| f.ends_with(".json")) {
        let run = tempfile::tempdir().unwrap();
        let result = run.path().join("result.json");
        std::fs::copy(dir().join(file), &result).unwrap();
        let read = drivebench::results::read_result(&result);
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_drivebench"))
            .arg("report")
            .arg(run.path())
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!stderr.contains("panicked"), "{file}: {stderr}");
        match expect {
            Expect::Refused(expected) => {
                let err = read.expect_err(file);
                assert!(err.to_string().contains(expected), "{file}: {err}");
                assert_eq!(out.status.code(), Some(2), "{file}: {stderr}");
                assert!(stderr.contains(expected), "{file}: {stderr}");
            }
            Expect::Rendered(expected) => {
                read.unwrap_or_else(|e| panic!("{file}: {e}"));
                assert_eq!(out.status.code(), Some(0), "{file}: {stderr}");
                let summary = std::fs::read_to_string(run.path().join("summary.md")).unwrap();
                assert!(summary.contains(expected), "{file}: {summary}");
            }
        }
    }
}
