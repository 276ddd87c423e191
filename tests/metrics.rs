//! The live metrics endpoint (`run --metrics-listen`): scraped by curl during a real SQLite
//! run, the page is parsed by Prometheus's own client library (its strict OpenMetrics parser)
//! and carries the running phase, TPS, latency quantiles, counters, drive and host figures
//! with an `instance` label; the endpoint goes away with the run. Addresses other than
//! loopback are refused (exit 2) unless `--metrics-listen-public`.

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::common::needs::{self, Need};
use crate::common::{bin, root, run, text};

/// The parser: Prometheus's Python client, reading a page on stdin and printing every sample
/// as JSON `[name, labels, value]`; it raises on anything that is not valid OpenMetrics text.
const PARSE: &str = r#"
import json, sys
from prometheus_client.openmetrics.parser import text_string_to_metric_families
out = []
for family in text_string_to_metric_families(sys.stdin.read()):
    for s in family.samples:
        out.append([s.name, s.labels, s.value])
print(json.dumps(out))
"#;

/// `curl -s -i URL`: the status line, headers and body.
fn curl(url: &str) -> Option<String> {
    let out = Command::new("curl")
        .args(["-s", "-i", "--max-time", "5", url])
        .output()
        .expect("curl runs");
    out.status.success().then(|| text(&out.stdout))
}

fn parse(page: &str) -> Vec<(String, serde_json::Value, f64)> {
    let mut child = Command::new("python3")
        .args(["-c", PARSE])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    use std::io::Write;
    child
        .stdin
        .take()
        .unwrap()
        .write_all(page.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "not OpenMetrics: {}\n{page}",
        text(&out.stderr)
    );
    serde_json::from_slice::<Vec<(String, serde_json::Value, f64)>>(&out.stdout).unwrap()
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

#[test]
fn a_run_serves_its_live_metrics_to_a_real_scraper_and_stops_serving_at_its_end() {
    if !needs::have(&[Need::PrometheusClient]) {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let port = free_port();
    let url = format!("http://127.0.0.1:{port}/metrics");
    let mut child = bin()
        .args([
            "run",
            "scenarios/quickstart.toml",
            "--quiet",
            "--time-scale",
            "0.3",
        ])
        .arg("--out")
        .arg(tmp.path().join("run"))
        .arg("--target")
        .arg(tmp.path().join("target"))
        .args(["--metrics-listen", &format!("127.0.0.1:{port}")])
        .current_dir(root())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    // Scrape until the recorded sample has had an interval (the load and precondition first).
    let deadline = Instant::now() + Duration::from_secs(120);
    let page = loop {
        assert!(
            Instant::now() < deadline,
            "no sample interval served in time"
        );
        let served =
            curl(&url).filter(|p| p.contains("phase=\"sample\"") && p.contains("drivebench_tps{"));
        if let Some(page) = served {
            break page;
        }
        std::thread::sleep(Duration::from_millis(300));
    };
    let (head, body) = page.split_once("\r\n\r\n").unwrap();
    assert!(head.starts_with("HTTP/1.1 200"), "{head}");
    assert!(
        head.contains("content-type: application/openmetrics-text; version=1.0.0"),
        "{head}"
    );
    let samples = parse(body);
    let find = |name: &str| -> Vec<&(String, serde_json::Value, f64)> {
        samples.iter().filter(|s| s.0 == name).collect()
    };
    let phase = find("drivebench_phase");
    assert_eq!(phase.len(), 1, "one current phase: {phase:?}");
    assert_eq!(phase[0].1["phase"], "sample");
    assert_eq!(phase[0].1["recorded"], "true");
    let tps = find("drivebench_tps");
    assert_eq!(tps[0].1["instance"], "sqlite-1");
    assert!(tps[0].2 > 0.0, "{tps:?}");
    let quantiles: Vec<&str> = find("drivebench_latency_seconds")
        .iter()
        .filter_map(|s| s.1["quantile"].as_str())
        .collect();
    for q in ["0.5", "0.95", "0.99", "1"] {
        assert!(quantiles.contains(&q), "quantile {q} in {quantiles:?}");
    }
    assert!(find("drivebench_transactions_total")[0].2 > 0.0);
    assert_eq!(find("drivebench_errors_total")[0].2, 0.0);
    let cpu: f64 = find("drivebench_cpu_ratio").iter().map(|s| s.2).sum();
    assert!((cpu - 1.0).abs() < 0.05, "CPU modes sum to {cpu}");
    let own = find("drivebench_process_cpu_cores");
    assert!(
        own.iter().any(|s| s.1["process"] == "drivebench"),
        "{own:?}"
    );
    // Another path is not found.
    let other = curl(&format!("http://127.0.0.1:{port}/")).unwrap();
    assert!(other.starts_with("HTTP/1.1 404"), "{other}");
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(0));
    assert!(curl(&url).is_none(), "still serving after the run ended");
}

#[test]
fn a_public_address_is_refused_unless_asked_for_and_bad_addresses_exit_2() {
    let quickstart = "scenarios/quickstart.toml";
    let cases: [(&[&str], &str); 3] = [
        (
            &["--metrics-listen", "0.0.0.0:9100"],
            "add --metrics-listen-public",
        ),
        (&["--metrics-listen", "localhost"], "--metrics-listen"),
        (&["--metrics-listen-public"], "--metrics-listen"),
    ];
    for (flags, says) in cases {
        let tmp = tempfile::tempdir().unwrap();
        let out_dir = tmp.path().join("run");
        let mut args = vec!["run", quickstart, "--out", out_dir.to_str().unwrap()];
        args.extend_from_slice(flags);
        let out = run(&args);
        let err = text(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{flags:?}: {err}");
        assert!(err.contains(says), "{flags:?}: {err}");
        assert!(!out_dir.exists(), "{flags:?} created the run directory");
    }
    // A port already taken: refused before anything starts, naming the address.
    let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = taken.local_addr().unwrap().to_string();
    let tmp = tempfile::tempdir().unwrap();
    let out_dir = tmp.path().join("run");
    let out = run(&[
        "run",
        quickstart,
        "--out",
        out_dir.to_str().unwrap(),
        "--metrics-listen",
        &addr,
    ]);
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains(&addr) && err.contains("cannot listen"),
        "{err}"
    );
}
