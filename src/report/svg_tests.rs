//! svg.rs under test: ticks and axes, self-contained markup, and the load-curve pieces
//! (objective level, answer marker, marks, dots).

use super::*;

#[test]
fn ticks_are_round_and_cover_the_range() {
    assert_eq!(
        linear_ticks(0.0, 4130.0),
        vec![0.0, 1000.0, 2000.0, 3000.0, 4000.0]
    );
    let small: Vec<String> = linear_ticks(0.0, 0.9).into_iter().map(tick_label).collect();
    assert_eq!(small, ["0", "0.2", "0.4", "0.6", "0.8"]);
    assert_eq!(tick_label(25_000.0), "25k");
    assert_eq!(tick_label(0.25), "0.25");
}

#[test]
fn the_nines_axis_spaces_90_99_and_99_9_evenly() {
    let at = |p| Scale::Nines.map(p).unwrap();
    assert!((at(90.0) - 1.0).abs() < 1e-9 && (at(99.0) - 2.0).abs() < 1e-9);
    assert!((at(99.9) - 3.0).abs() < 1e-6);
    assert_eq!(Scale::Nines.map(100.0), None);
    assert_eq!(Scale::Log10.map(0.0), None);
}

#[test]
fn the_last_percentile_label_stays_inside_the_chart() {
    // issue 24: "99.9999%" at the right edge of the percentile axis was cut off.
    let svg = render(&Chart {
        x_scale: Scale::Nines,
        y_scale: Scale::Log10,
        series: vec![Series {
            name: "t".into(),
            points: vec![(0.0, 1.0), (99.0, 5.0), (99.9999, 9.0)],
            dashed: false,
        }],
        ..Chart::default()
    });
    let label = "99.9999%";
    let at = svg.find(&format!(">{label}</text>")).expect("label drawn");
    let open = svg[..at].rfind("<text x=\"").expect("its text tag") + "<text x=\"".len();
    let x: f64 = svg[open..].split('"').next().unwrap().parse().unwrap();
    let half = TICK_CHAR_W * label.len() as f64 / 2.0;
    assert!(x + half <= W, "label centred at {x} runs past {W}");
    assert!(x > W - RIGHT - 40.0, "and stays near its tick: {x}");
}

#[test]
fn a_chart_is_self_contained_svg_with_escaped_text() {
    let svg = render(&Chart {
        title: "TPS <total>".into(),
        x_label: "s".into(),
        y_label: "tx/s".into(),
        x_scale: Scale::Linear,
        y_scale: Scale::Linear,
        series: vec![Series {
            name: "a&b".into(),
            points: vec![(0.0, 1.0), (10.0, 3.0)],
            dashed: false,
        }],
        markers: vec![(5.0, "sample".into())],
        ..Chart::default()
    });
    assert!(svg.starts_with("<svg") && svg.ends_with("</svg>"));
    assert!(svg.contains("TPS &lt;total&gt;") && svg.contains("a&amp;b"));
    assert!(svg.contains("<polyline") && svg.contains("class=\"mark\""));
    assert!(!svg.contains("href") && !svg.contains("http"));
}

#[test]
fn an_objective_is_a_level_the_answer_a_marker_and_marks_are_circled_in_range() {
    let slo = SloResult {
        p99_ms: 20.0,
        max_rate: Some(812.4),
        first_miss_rate: Some(900.0),
    };
    let (levels, markers) = slo_marks(&slo, "TPS");
    assert_eq!(levels, vec![(20.0, "p99 objective 20 ms".to_string())]);
    assert_eq!(
        markers,
        vec![(812.4, "max 812 TPS at p99 ≤ 20 ms".to_string())]
    );
    let none = slo_marks(
        &SloResult {
            max_rate: None,
            ..slo
        },
        "IOPS",
    );
    assert!(none.1.is_empty(), "nothing met it: no answer to mark");
    let svg = render(&Chart {
        series: vec![Series {
            name: "p99".into(),
            points: vec![(100.0, 2.0), (500.0, 4.0), (900.0, 8.0)],
            dashed: false,
        }],
        levels,
        markers,
        marks: vec![Marks::unsustainable(vec![(950.0, 60.0)])],
        dots: true,
        ..Chart::default()
    });
    assert_eq!(svg.matches("class=\"level\"").count(), 1);
    assert_eq!(svg.matches("r=\"2.5\"").count(), 3, "a dot per point");
    assert_eq!(svg.matches("r=\"5\" fill=\"none\"").count(), 1);
    assert!(svg.contains("class=\"lg\">unsustainable</text>"));
    // The y axis reaches the mark at 60 ms: a tick at 60.
    assert!(svg.contains("class=\"yt\">60</text>"), "{svg}");
}

#[test]
fn bands_shade_their_spans_behind_the_series_with_a_legend_entry() {
    let chart = |spans: Vec<(f64, f64)>| Chart {
        series: vec![Series {
            name: "tps".into(),
            points: vec![(0.0, 1.0), (100.0, 3.0)],
            dashed: false,
        }],
        bands: vec![Bands::throttled(spans)],
        ..Chart::default()
    };
    let svg = render(&chart(vec![(60.0, 70.0), (80.0, 90.0)]));
    assert_eq!(svg.matches("class=\"band\"").count(), 2, "{svg}");
    assert!(svg.find("class=\"band\"").unwrap() < svg.find("<polyline").unwrap());
    assert!(svg.contains(">drive throttled</text>"), "the legend entry");
    // 10 s of a 0..100 s axis across the plot's width.
    let at = svg.find("class=\"band\"").unwrap();
    let tag = &svg[svg[..at].rfind("<rect").unwrap()..at];
    let width: f64 = tag
        .split("width=\"")
        .nth(1)
        .unwrap()
        .split('"')
        .next()
        .unwrap()
        .parse()
        .unwrap();
    assert!((width - (W - LEFT - RIGHT) / 10.0).abs() < 0.2, "{tag}");
    let none = render(&chart(vec![]));
    assert!(!none.contains("class=\"band\"") && !none.contains("drive throttled"));
}
