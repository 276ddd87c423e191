//! A load curve on real MariaDB servers the test starts itself: `drivebench curve
//! scenarios/ci-curve-mariadb.toml` with two private instances side by side (4 clients each,
//! the scenario's 8 in all). It prints every point and the SLO figures, and the run directory
//! passes `common::curve`'s checks — points at the planned percentages of each instance's
//! peak, sustainable points on their rate, the total and per-instance SLO answers consistent
//! with the points, curves.csv rows, report.html's section — and no server is left running.
//! `bash scripts/test.sh` installs mariadb-server when it is missing.

use crate::common::curve::{check_curve_run, f, instance_names};
use crate::common::needs::need;
use crate::common::{ServerRun, bin, render_in_chromium, root, servers_under, text};

#[test]
fn a_mariadb_curve_on_two_instances_reports_its_points_and_slo_figures() {
    need!(Mariadb);
    let r = ServerRun::new("scenarios/ci-curve-mariadb.toml");
    let out = bin()
        .arg("curve")
        .arg(root().join("scenarios/ci-curve-mariadb.toml"))
        .arg("--out")
        .arg(r.out())
        .arg("--target")
        .arg(r.target())
        .args(["--set", "instance.0.count=2", "--set", "workload.clients=4"])
        .current_dir(root())
        .output()
        .unwrap();
    let printed = text(&out.stdout) + &text(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{printed}");
    assert!(
        servers_under(&r.target()).is_empty(),
        "no server left running"
    );

    let result = check_curve_run(&r.out(), &[10.0, 50.0, 70.0, 90.0, 100.0], 20.0);
    let names = instance_names(&result);
    assert_eq!(names, ["mariadb-1", "mariadb-2"]);
    assert!(
        result["instances"][0]["version"]
            .as_str()
            .unwrap()
            .contains("MariaDB")
    );
    let curve = &result["curves"][0];
    // The low points (after the max run) are carried by both servers, on their rate: 10 %
    // sustainably, 50 % within 5 % of it (on a host the other tests load too, a moment's lag
    // at the end of a 5 s point can leave more behind than the backlog tolerance).
    let points = curve["points"].as_array().unwrap();
    assert_eq!(points[1]["pct"], 10.0, "{}", points[1]);
    assert_eq!(points[1]["total"]["sustainable"], true, "{}", points[1]);
    assert_eq!(points[2]["pct"], 50.0, "{}", points[2]);
    let shortfall = points[2]["total"]["backlog"]["shortfall_pct"].as_f64();
    assert!(shortfall.unwrap() < 5.0, "{}", points[2]);

    // Printed live: the max run, every point, the answer in total and per instance.
    assert!(printed.contains("curve max (closed loop): "), "{printed}");
    for pct in [10, 50, 70, 90, 100] {
        assert!(
            printed.contains(&format!("curve {pct} %: ")),
            "{pct}: {printed}"
        );
    }
    let answer = |slo: &serde_json::Value| match slo["max_rate"].as_f64() {
        Some(r) => format!("max TPS at p99 <= 20 ms: {r:.1}"),
        None => "max TPS at p99 <= 20 ms: none".into(),
    };
    assert!(printed.contains(&answer(&curve["slo"])), "{printed}");
    for (i, name) in names.iter().enumerate() {
        let line = format!("{name}: {}", answer(&curve["slo_per_instance"][i]));
        assert!(printed.contains(&line), "{line}\n{printed}");
    }
    // The measured curve, for the test log (`--nocapture`).
    let summary = std::fs::read_to_string(r.out().join("summary.md")).unwrap();
    let at = summary.find("## Load curve").unwrap();
    eprintln!("peak {:.1} TPS\n{}", f(&curve["peak_tps"]), &summary[at..]);
    render_in_chromium(&r.out().join("report.html"), r.tmp.path());
}
