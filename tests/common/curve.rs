//! What a load-curve run directory must hold, checked against its own result.json (valid
//! against the committed schema): the max run then the planned percentages then SLO steps;
//! every instance's target at the same percentage of its own peak; sustainable points on their
//! rate; the SLO answers (total and per instance) consistent with the points; curves.csv rows;
//! the summary.md and report.html sections.

use std::path::Path;

use serde_json::Value;

use super::{read_json, validate};

pub fn f(v: &Value) -> f64 {
    v.as_f64().unwrap_or_else(|| panic!("not a number: {v}"))
}

/// The names of a result's instances, in order.
pub fn instance_names(result: &Value) -> Vec<&str> {
    result["instances"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["name"].as_str().unwrap())
        .collect()
}

/// Check the curve of the run in `out_dir` (planned `pcts`, objective `slo_p99_ms`); returns
/// its result.json.
pub fn check_curve_run(out_dir: &Path, pcts: &[f64], slo_p99_ms: f64) -> Value {
    let result = read_json(&out_dir.join("result.json"));
    validate("schemas/json/result.schema.json", &result);
    let names = instance_names(&result);
    let curve = &result["curves"][0];
    assert_eq!(curve["completed"], true);
    let points = curve["points"].as_array().unwrap();
    let kinds: Vec<&str> = points.iter().map(|p| p["kind"].as_str().unwrap()).collect();
    assert_eq!(kinds[0], "max", "{kinds:?}");
    assert!(
        kinds[1..=pcts.len()].iter().all(|k| *k == "curve"),
        "{kinds:?}"
    );
    assert!(
        kinds[pcts.len() + 1..].iter().all(|k| *k == "slo"),
        "{kinds:?}"
    );
    let peak = f(&curve["peak_tps"]);
    assert!(peak > 0.0);
    assert_eq!(f(&points[0]["total"]["achieved_tps"]), peak);
    let peaks: Vec<f64> = names
        .iter()
        .enumerate()
        .map(|(i, name)| {
            assert_eq!(points[0]["per_instance"][i]["instance"], *name);
            f(&points[0]["per_instance"][i]["achieved_tps"])
        })
        .collect();
    assert!((peaks.iter().sum::<f64>() - peak).abs() < 1e-6 * peak);
    for (p, pct) in points[1..].iter().zip(pcts) {
        assert_eq!(f(&p["pct"]), *pct, "{p}");
    }
    for p in &points[1..] {
        let pct = f(&p["pct"]);
        let per = p["per_instance"].as_array().unwrap();
        assert_eq!(per.len(), names.len());
        for (i, inst) in per.iter().enumerate() {
            let target = f(&inst["target_tps"]);
            assert!(
                (target - peaks[i] * pct / 100.0).abs() < 1e-6 * peaks[i],
                "{p}"
            );
            check_figures(inst, f(&p["seconds"]), true);
        }
        let all_kept_up = per.iter().all(|i| i["sustainable"] == true);
        check_figures(&p["total"], f(&p["seconds"]), all_kept_up);
        let sum: f64 = per.iter().map(|i| f(&i["target_tps"])).sum();
        assert!((f(&p["total"]["target_tps"]) - sum).abs() < 1e-6 * sum);
    }
    // Low load is always carried.
    assert_eq!(points[1]["total"]["sustainable"], true, "{}", points[1]);

    let slo = &curve["slo"];
    assert_eq!(f(&slo["p99_ms"]), slo_p99_ms);
    let total: Vec<&Value> = points[1..].iter().map(|p| &p["total"]).collect();
    check_slo(slo, &total, slo_p99_ms);
    let per_slo = curve["slo_per_instance"].as_array();
    if names.len() > 1 {
        let per_slo = per_slo.expect("an SLO figure per instance");
        assert_eq!(per_slo.len(), names.len());
        for (i, s) in per_slo.iter().enumerate() {
            assert_eq!(s["instance"], names[i]);
            let figures: Vec<&Value> = points[1..].iter().map(|p| &p["per_instance"][i]).collect();
            check_slo(s, &figures, slo_p99_ms);
        }
    } else {
        assert!(per_slo.is_none(), "one instance: the total is its figure");
    }

    check_files(out_dir, points, &names, slo);
    result
}

/// A point's figures: TPS from its transactions, latency ordered, and on its rate when it
/// kept up: short by no more than the backlog's tolerance (2 % of the scheduled transactions,
/// at least three standard deviations of Poisson arrivals), and over by no more than five
/// standard deviations plus the backlog carried in from the settle (its first-quarter lag,
/// four times over, at the target rate). The rate's accuracy itself is proven in virtual time
/// by the clients' unit tests; a 2 s point on a shared CI host sees the arrivals' noise and
/// the settle's leftovers, and this bound only catches a schedule that is not followed.
/// The total is sustainable only when its own backlog and every instance kept up
/// (`instances_kept_up`); an instance's own figures pass `true`.
fn check_figures(x: &Value, seconds: f64, instances_kept_up: bool) {
    let tx = x["transactions"].as_u64().unwrap() as f64;
    assert!(
        (f(&x["achieved_tps"]) * seconds - tx).abs() < 1e-6 * tx.max(1.0),
        "{x}"
    );
    let lat = &x["latency_ms"];
    assert!(
        f(&lat["p50"]) <= f(&lat["p95"]) && f(&lat["p95"]) <= f(&lat["p99"]),
        "{x}"
    );
    assert!(f(&lat["p99"]) <= f(&lat["max"]), "{x}");
    assert!(f(&x["service_ms"]["p99"]) <= f(&lat["max"]), "{x}");
    let scheduled = f(&x["target_tps"]) * seconds;
    let tolerance = (0.02 * scheduled).max(3.0 * scheduled.sqrt());
    assert!((f(&x["backlog"]["tolerance"]) - tolerance).abs() < 1e-6 * tolerance);
    let kept_up = x["backlog"]["sustainable"] == true && instances_kept_up;
    assert_eq!(x["sustainable"] == true, kept_up, "{x}");
    if x["sustainable"] == true {
        let carried_in =
            4.0 * f(&x["backlog"]["start_lag_first_ms"]) / 1000.0 * f(&x["target_tps"]);
        let over = (0.02 * scheduled).max(5.0 * scheduled.sqrt()) + carried_in;
        assert!(
            scheduled - tx <= tolerance && tx - scheduled <= over,
            "{tx} transactions for {scheduled:.1} scheduled (short by at most {tolerance:.1}, \
             over by at most {over:.1}): {x}"
        );
    }
}

/// The SLO answer against the figures it was read off: the highest achieved TPS among those
/// that kept up within the objective, and the lowest target that missed above the highest
/// target that met it.
fn check_slo(slo: &Value, figures: &[&Value], p99_ms: f64) {
    assert_eq!(f(&slo["p99_ms"]), p99_ms);
    let meets = |x: &Value| x["sustainable"] == true && f(&x["latency_ms"]["p99"]) <= p99_ms;
    let met: Vec<&&Value> = figures.iter().filter(|x| meets(x)).collect();
    let best = met
        .iter()
        .map(|x| f(&x["achieved_tps"]))
        .fold(None, |m: Option<f64>, v| Some(m.map_or(v, |m| m.max(v))));
    assert_eq!(slo["max_rate"].as_f64(), best, "{slo}");
    let met_target = met.iter().map(|x| f(&x["target_tps"])).fold(0.0, f64::max);
    let miss = figures
        .iter()
        .filter(|x| !meets(x))
        .map(|x| f(&x["target_tps"]))
        .filter(|t| *t > met_target)
        .fold(None, |m: Option<f64>, v| Some(m.map_or(v, |m| m.min(v))));
    assert_eq!(slo["first_miss_rate"].as_f64(), miss, "{slo}");
}

/// curves.csv: a total row and a row per instance for every point, with the JSON's figures;
/// summary.md's section; report.html's section (SLO answer, a table row per point, the chart
/// with the objective), self-contained and small.
fn check_files(out_dir: &Path, points: &[Value], names: &[&str], slo: &Value) {
    let csv = std::fs::read_to_string(out_dir.join("curves.csv")).unwrap();
    let mut lines = csv.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    let col = |name: &str| header.iter().position(|h| *h == name).unwrap();
    let rows: Vec<Vec<&str>> = lines.map(|l| l.split(',').collect()).collect();
    assert_eq!(rows.len(), points.len() * (1 + names.len()), "{csv}");
    for (p, chunk) in points.iter().zip(rows.chunks(1 + names.len())) {
        let who = std::iter::once("total").chain(names.iter().copied());
        for (row, who) in chunk.iter().zip(who) {
            let x = if who == "total" {
                &p["total"]
            } else {
                &p["per_instance"][names.iter().position(|n| *n == who).unwrap()]
            };
            assert_eq!(row[col("kind")], p["kind"].as_str().unwrap());
            assert_eq!(row[col("instance")], who);
            assert_eq!(
                row[col("achieved_tps")],
                format!("{:.3}", f(&x["achieved_tps"]))
            );
            assert_eq!(
                row[col("p99_ms")],
                format!("{:.3}", f(&x["latency_ms"]["p99"]))
            );
            assert_eq!(row[col("sustainable")], x["sustainable"].to_string());
        }
    }
    let summary = std::fs::read_to_string(out_dir.join("summary.md")).unwrap();
    assert!(summary.contains("## Load curve"), "{summary}");
    let p99 = f(&slo["p99_ms"]);
    assert!(
        summary.contains(&format!("max TPS at p99 <= {p99} ms")),
        "{summary}"
    );

    let html = std::fs::read_to_string(out_dir.join("report.html")).unwrap();
    assert!(html.contains("<h2>Load curves</h2>"));
    let answer = match slo["max_rate"].as_f64() {
        Some(r) => format!("Max TPS at p99 ≤ {p99} ms: <b>{r:.1}</b>"),
        None => format!("Max TPS at p99 ≤ {p99} ms: none"),
    };
    assert!(html.contains(&answer), "{answer}");
    assert!(html.contains(&format!("p99 objective {p99} ms")));
    assert!(html.contains("Load curve: latency vs TPS"));
    for p in points {
        let t = &p["total"];
        let opt = |v: &Value| v.as_f64().map_or("-".into(), |v| format!("{v:.1}"));
        let row = format!(
            "<tr><td>{}</td><td>{}</td><td>{}</td><td>{:.1}</td><td>{:.3}</td><td>{:.3}</td><td>{:.3}</td><td>{:.3}</td><td>{:.3}</td><td>{:.3}</td><td>{}</td>",
            p["kind"].as_str().unwrap(),
            opt(&p["pct"]),
            opt(&t["target_tps"]),
            f(&t["achieved_tps"]),
            f(&t["latency_ms"]["avg"]),
            f(&t["latency_ms"]["p50"]),
            f(&t["latency_ms"]["p95"]),
            f(&t["latency_ms"]["p99"]),
            f(&t["latency_ms"]["max"]),
            f(&t["service_ms"]["p99"]),
            t["errors"]
        );
        assert!(html.contains(&row), "{row}");
    }
    if names.len() > 1 {
        for n in names {
            assert!(
                html.contains(&format!("<li>{n}: max TPS at p99 ≤ {p99} ms")),
                "{n}"
            );
            assert!(
                html.contains(&format!("class=\"lg\">{n} p99</text>")),
                "{n}"
            );
        }
    }
    let lower = html.to_lowercase();
    for banned in ["http://", "https://", "<script", "src=", "url("] {
        assert!(!lower.contains(banned), "report.html references {banned}");
    }
    assert!(html.len() < 200_000, "report.html is {} bytes", html.len());
}
