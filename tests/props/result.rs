//! Properties of the result.json loader (`drivebench::results::read_result`, what `report`,
//! `compare` and `check` read) and of what is built from a result it accepts: whatever the
//! bytes, a `RunReport` or a `ReadError` naming the file, never a panic; an accepted result
//! renders summary.md and report.html, regenerates its run directory and compares with a
//! shipped fixture.

use std::path::{Path, PathBuf};

use proptest::prelude::*;
use proptest::test_runner::TestCaseError;

use super::harness::{Saved, Verdict, check, fail};
use super::tree::{EDGE_INTS, Mutation, apply, mutations, odd_string};
use drivebench::report::{self, RESULT_FILE, compare};
use drivebench::results::{self, RunReport};

/// The result.json fixtures in tests/data/compare/, as text.
pub fn fixtures() -> Vec<String> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/compare");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    files.sort();
    files
        .iter()
        .map(|p| std::fs::read_to_string(p).unwrap())
        .collect()
}

fn odd_json() -> BoxedStrategy<serde_json::Value> {
    use serde_json::{Value as V, json};
    let float = |f: f64| {
        serde_json::Number::from_f64(f)
            .map(V::Number)
            .unwrap_or(V::Null)
    };
    prop_oneof![
        2 => proptest::sample::select(EDGE_INTS).prop_map(|i| json!(i)),
        1 => proptest::sample::select(vec![u64::MAX, u64::MAX - 1, 1 << 63]).prop_map(|u| json!(u)),
        1 => any::<f64>().prop_map(float),
        1 => proptest::sample::select(vec![1e308, -1e308, 5e-324, -0.0, 0.5, 1e-9]).prop_map(float),
        1 => Just(V::Null),
        1 => any::<bool>().prop_map(V::Bool),
        3 => odd_string().prop_map(V::String),
        1 => Just(json!([])),
        1 => Just(json!({})),
        1 => Just(json!([0, -1, 1e308])),
    ]
    .boxed()
}

fn result_key() -> BoxedStrategy<String> {
    prop_oneof![
        proptest::sample::select(vec![
            "schema_version",
            "status",
            "phases",
            "series",
            "summary",
            "per_instance",
            "sweeps",
            "curves",
            "telemetry",
            "checks",
            "tpcc",
            "latency_ms",
            "tps",
            "plan",
            "instances",
        ])
        .prop_map(String::from),
        "\\PC{0,8}",
    ]
    .boxed()
}

/// Where a case's bytes are written: one scratch run directory per property.
pub struct Scratch {
    _dir: tempfile::TempDir,
    pub run: PathBuf,
}

impl Scratch {
    pub fn new() -> Self {
        let dir = tempfile::tempdir().unwrap();
        let run = dir.path().join("run");
        std::fs::create_dir(&run).unwrap();
        Scratch { _dir: dir, run }
    }
}

/// The property every result.json case must have.
pub fn report_or_typed_error(scratch: &Scratch, bytes: &[u8], other: &RunReport) -> Verdict {
    let file = scratch.run.join(RESULT_FILE);
    std::fs::write(&file, bytes).unwrap();
    let r = match results::read_result(&file) {
        Err(e) => {
            let shown = e.to_string();
            return if shown.starts_with(&file.display().to_string()) {
                Ok(())
            } else {
                fail(format!("error without the file's path: {shown:?}"))
            };
        }
        Ok(r) => r,
    };
    super::harness::accepted();
    let _ = report::markdown::summary(&r);
    let _ = report::html::page(&r);
    if let Err(e) = report::regenerate(&scratch.run) {
        return fail(format!("an accepted result did not regenerate: {e}"));
    }
    let runs = vec![
        (None, "fixture".to_string(), other.clone()),
        (None, "fuzzed".to_string(), r),
    ];
    if let Ok(c) = compare::compare(runs, true) {
        let _ = compare::markdown(&c);
        let _ = compare::html(&c);
        serde_json::to_string(&c).map_err(|e| TestCaseError::fail(e.to_string()))?;
    }
    Ok(())
}

fn save_json(bytes: &[u8]) -> Saved {
    Saved {
        ext: "json",
        bytes: bytes.to_vec(),
    }
}

/// The first fixture, read: what a fuzzed result is compared with.
pub fn reference() -> RunReport {
    serde_json::from_str(&fixtures()[0]).unwrap()
}

#[test]
fn mutated_results_give_a_report_or_a_typed_error() {
    let docs: Vec<serde_json::Value> = fixtures()
        .iter()
        .map(|t| serde_json::from_str(t).unwrap())
        .collect();
    let strategy = (
        proptest::sample::select(docs),
        mutations(odd_json(), result_key(), 6),
    )
        .prop_map(|(mut doc, m)| {
            apply(&mut doc, &m as &[Mutation<serde_json::Value>]);
            serde_json::to_vec_pretty(&doc).unwrap()
        });
    let (scratch, other) = (Scratch::new(), reference());
    check(
        "result_mutated",
        strategy,
        |b: &Vec<u8>| save_json(b),
        |bytes| report_or_typed_error(&scratch, bytes, &other),
    );
}

/// Pieces spliced into result.json text: JSON syntax, numbers no integer holds, bytes that
/// are not UTF-8.
const PIECES: &[&[u8]] = &[
    b"{",
    b"}",
    b"[",
    b"]",
    b"\"",
    b",",
    b":",
    b"null",
    b"-",
    b"1e999",
    b"-1e999",
    b"99999999999999999999999",
    b"18446744073709551616",
    b"-9223372036854775809",
    b"0.0",
    b"\xff",
    b"\xc3",
    b"\xed\xa0\x80",
    b"\\u0000",
    b"\\ud800",
    b"\n",
    b"NaN",
    b"Infinity",
];

#[test]
fn spliced_result_bytes_give_a_report_or_a_typed_error() {
    let texts: Vec<Vec<u8>> = fixtures().into_iter().map(String::into_bytes).collect();
    let splice = (
        any::<proptest::sample::Index>(),
        0usize..64,
        proptest::collection::vec(proptest::sample::select(PIECES), 0..3),
    );
    let strategy = (
        proptest::sample::select(texts),
        proptest::collection::vec(splice, 1..4),
        proptest::option::of(any::<proptest::sample::Index>()),
    )
        .prop_map(|(mut bytes, splices, cut)| {
            for (at, len, insert) in splices {
                let start = at.index(bytes.len() + 1);
                let end = (start + len).min(bytes.len());
                bytes.splice(start..end, insert.concat());
            }
            if let Some(cut) = cut {
                bytes.truncate(cut.index(bytes.len() + 1));
            }
            bytes
        });
    let (scratch, other) = (Scratch::new(), reference());
    check(
        "result_spliced",
        strategy,
        |b: &Vec<u8>| save_json(b),
        |bytes| report_or_typed_error(&scratch, bytes, &other),
    );
}
