//! Hand-written SVG line charts for the HTML reports: several series, linear or logarithmic
//! axes (and the "nines" axis of percentile plots), labelled vertical markers for phase
//! boundaries, labelled horizontal levels, hollow marks over chosen points, a legend; and the
//! pieces every load-curve chart shares (I/O sweeps, database curves, compare): the latency
//! objective as a level, the highest rate that met it as a marker, unsustainable points as
//! marks. Self-contained markup: no scripts, no fonts, no external resources.

use std::fmt::Write;

use drivebench_core::curve::SloResult;

/// How values map onto an axis.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub enum Scale {
    #[default]
    Linear,
    /// Powers of ten; values ≤ 0 are left out.
    Log10,
    /// Percentiles 0..100 placed at −log10(1 − p/100): 90, 99, 99.9 ... equally spaced.
    Nines,
}

impl Scale {
    fn map(self, v: f64) -> Option<f64> {
        match self {
            Scale::Linear => Some(v),
            Scale::Log10 => (v > 0.0).then(|| v.log10()),
            Scale::Nines => (v < 100.0).then(|| -(1.0 - v / 100.0).max(1e-12).log10()),
        }
    }
}

#[derive(Debug, Clone)]
pub struct Series {
    pub name: String,
    pub points: Vec<(f64, f64)>,
    pub dashed: bool,
}

/// Points drawn as hollow circles over the series (e.g. points that could not keep up), with
/// one legend entry.
#[derive(Debug, Clone)]
pub struct Marks {
    pub name: String,
    pub points: Vec<(f64, f64)>,
    pub color: &'static str,
}

impl Marks {
    /// Load-curve points that did not keep up with their schedule.
    pub fn unsustainable(points: Vec<(f64, f64)>) -> Self {
        Marks {
            name: "unsustainable".into(),
            points,
            color: "#c00000",
        }
    }
}

/// Spans of x shaded over the whole plot height (e.g. intervals where the drive throttled),
/// with one legend entry.
#[derive(Debug, Clone)]
pub struct Bands {
    pub name: String,
    /// (from, to) in x values.
    pub spans: Vec<(f64, f64)>,
    pub color: &'static str,
}

impl Bands {
    /// The report intervals in which the drive throttled (thermal).
    pub fn throttled(spans: Vec<(f64, f64)>) -> Self {
        Bands {
            name: "drive throttled".into(),
            spans,
            color: "#e69f00",
        }
    }
}

#[derive(Debug, Clone, Default)]
pub struct Chart {
    pub title: String,
    pub x_label: String,
    pub y_label: String,
    pub x_scale: Scale,
    pub y_scale: Scale,
    pub series: Vec<Series>,
    /// Vertical lines at these x values, with a label each.
    pub markers: Vec<(f64, String)>,
    /// Horizontal lines at these y values, with a label each (the y axis reaches them).
    pub levels: Vec<(f64, String)>,
    /// Hollow marks over the series.
    pub marks: Vec<Marks>,
    /// Shaded spans behind the series.
    pub bands: Vec<Bands>,
    /// A dot at every point of every series (measured points of a curve).
    pub dots: bool,
}

/// A chart over the run's clock, with the phase boundaries marked.
pub fn time_chart(title: &str, y: &str, series: Vec<Series>, markers: &[(f64, String)]) -> Chart {
    Chart {
        title: title.into(),
        x_label: "seconds since the clock started".into(),
        y_label: y.into(),
        x_scale: Scale::Linear,
        y_scale: Scale::Linear,
        series,
        markers: markers.to_vec(),
        ..Chart::default()
    }
}

/// A value on an axis with its label (markers, levels).
pub type Labelled = (f64, String);

/// A latency objective on a latency-vs-rate chart (y in ms): the target as a level and, when a
/// rate met it, that rate as a marker — "max 812 TPS at p99 ≤ 20 ms" with `unit` "TPS".
pub fn slo_marks(slo: &SloResult, unit: &str) -> (Vec<Labelled>, Vec<Labelled>) {
    let level = vec![(slo.p99_ms, format!("p99 objective {} ms", slo.p99_ms))];
    let marker = slo
        .max_rate
        .map(|r| (r, format!("max {r:.0} {unit} at p99 ≤ {} ms", slo.p99_ms)))
        .into_iter()
        .collect();
    (level, marker)
}

const W: f64 = 760.0;
const H: f64 = 320.0;
const LEFT: f64 = 70.0;
const RIGHT: f64 = 20.0;
const TOP: f64 = 34.0;
const BOTTOM: f64 = 46.0;
/// Colour-blind-safe palette (Okabe–Ito), cycled.
pub const PALETTE: [&str; 8] = [
    "#0072b2", "#d55e00", "#009e73", "#cc79a7", "#e69f00", "#56b4e9", "#f0e442", "#000000",
];

pub fn escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// Width of a tick label's character at 11px, a little over the widest digit, for keeping
/// labels inside the chart.
const TICK_CHAR_W: f64 = 6.5;

/// Where an x tick label centred under pixel `x` goes: under it, or moved left just enough
/// that its right end stays inside the chart ("99.9999%" at the right edge of a percentile
/// axis was cut off).
pub(crate) fn x_label_at(x: f64, label: &str) -> f64 {
    let half = TICK_CHAR_W * label.chars().count() as f64 / 2.0;
    x.min(W - 2.0 - half)
}

/// "Nice" tick values covering [lo, hi] (steps of 1, 2 or 5 times a power of ten).
fn linear_ticks(lo: f64, hi: f64) -> Vec<f64> {
    let span = (hi - lo).max(1e-12);
    let raw = span / 5.0;
    let mag = 10f64.powf(raw.log10().floor());
    let step = [1.0, 2.0, 5.0, 10.0]
        .iter()
        .map(|m| m * mag)
        .find(|s| span / s <= 6.0)
        .unwrap_or(10.0 * mag);
    let mut t = (lo / step).ceil() * step;
    let mut out = Vec::new();
    while t <= hi + step * 1e-9 {
        out.push(if t.abs() < step * 1e-9 { 0.0 } else { t });
        t += step;
    }
    out
}

/// Short number for a tick label.
pub fn tick_label(v: f64) -> String {
    let a = v.abs();
    if a >= 1e6 {
        format!("{}M", trim(v / 1e6))
    } else if a >= 1e4 {
        format!("{}k", trim(v / 1e3))
    } else {
        trim(v)
    }
}

fn trim(v: f64) -> String {
    let s = format!("{v:.3}");
    let s = s.trim_end_matches('0').trim_end_matches('.');
    if s == "-0" { "0".into() } else { s.into() }
}

/// Axis range and ticks in mapped space: (lo, hi, [(mapped position, label)]).
fn axis(scale: Scale, values: &[f64], from_zero: bool) -> (f64, f64, Vec<(f64, String)>) {
    let mapped: Vec<f64> = values.iter().filter_map(|v| scale.map(*v)).collect();
    let (mut lo, mut hi) = mapped
        .iter()
        .fold((f64::MAX, f64::MIN), |(a, b), v| (a.min(*v), b.max(*v)));
    if mapped.is_empty() {
        (lo, hi) = (0.0, 1.0);
    }
    match scale {
        Scale::Linear => {
            if from_zero {
                lo = lo.min(0.0);
            }
            if hi - lo < 1e-9 {
                hi = lo + 1.0;
            }
            let ticks = linear_ticks(lo, hi);
            let hi = ticks.last().copied().unwrap_or(hi).max(hi);
            let labels = ticks.iter().map(|t| (*t, tick_label(*t))).collect();
            (lo, hi, labels)
        }
        Scale::Log10 => {
            let (lo, hi) = (lo.floor(), hi.ceil().max(lo.floor() + 1.0));
            let labels = (lo as i32..=hi as i32)
                .map(|e| (f64::from(e), tick_label(10f64.powi(e))))
                .collect();
            (lo, hi, labels)
        }
        Scale::Nines => {
            let hi = hi.ceil().max(1.0);
            let labels = (0..=hi as i32)
                .map(|n| {
                    let p = 100.0 - 100.0 / 10f64.powi(n);
                    let decimals = (n as usize).saturating_sub(2);
                    (f64::from(n), format!("{p:.decimals$}%"))
                })
                .collect();
            (0.0, hi, labels)
        }
    }
}

fn dash_attr(ser: &Series) -> &'static str {
    if ser.dashed {
        r#" stroke-dasharray="6 4""#
    } else {
        ""
    }
}

pub fn render(c: &Chart) -> String {
    let (xs, ys) = values(c);
    let (x0, x1, xticks) = axis(c.x_scale, &xs, false);
    let (y0, y1, yticks) = axis(c.y_scale, &ys, true);
    let plot = Plot {
        c,
        x0,
        x1,
        y0,
        y1,
        pw: W - LEFT - RIGHT,
        ph: H - TOP - BOTTOM,
    };
    let mut s = String::new();
    plot.frame(&mut s, &xticks, &yticks);
    plot.bands(&mut s);
    plot.markers(&mut s);
    plot.levels(&mut s);
    plot.series(&mut s);
    plot.marks(&mut s);
    legend(&mut s, c);
    s.push_str("</svg>");
    s
}

/// Every x and every y the axes must reach: the series, the marks, the markers (x) and the
/// levels (y).
fn values(c: &Chart) -> (Vec<f64>, Vec<f64>) {
    let xs = c
        .series
        .iter()
        .flat_map(|s| s.points.iter().map(|p| p.0))
        .chain(c.marks.iter().flat_map(|m| m.points.iter().map(|p| p.0)))
        .chain(c.markers.iter().map(|m| m.0))
        .chain(
            c.bands
                .iter()
                .flat_map(|b| b.spans.iter().flat_map(|s| [s.0, s.1])),
        )
        .collect();
    let ys = c
        .series
        .iter()
        .flat_map(|s| s.points.iter().map(|p| p.1))
        .chain(c.marks.iter().flat_map(|m| m.points.iter().map(|p| p.1)))
        .chain(c.levels.iter().map(|l| l.0))
        .collect();
    (xs, ys)
}

/// One chart's plot area: the axes' ranges in mapped space and the area's size in pixels.
struct Plot<'a> {
    c: &'a Chart,
    x0: f64,
    x1: f64,
    y0: f64,
    y1: f64,
    pw: f64,
    ph: f64,
}

impl Plot<'_> {
    /// Pixel x of a mapped x value.
    fn px(&self, x: f64) -> f64 {
        LEFT + (x - self.x0) / (self.x1 - self.x0).max(1e-12) * self.pw
    }

    /// Pixel y of a mapped y value.
    fn py(&self, y: f64) -> f64 {
        TOP + self.ph - (y - self.y0) / (self.y1 - self.y0).max(1e-12) * self.ph
    }

    /// The opening tag, the title, the grid with its tick labels and the axis labels.
    fn frame(&self, s: &mut String, xticks: &[(f64, String)], yticks: &[(f64, String)]) {
        let (c, pw, ph) = (self.c, self.pw, self.ph);
        let _ = write!(
            s,
            r#"<svg viewBox="0 0 {W} {H}" role="img" class="chart"><title>{}</title>"#,
            escape(&c.title)
        );
        let _ = write!(
            s,
            r#"<text x="{LEFT}" y="18" class="ct">{}</text>"#,
            escape(&c.title)
        );
        for (t, label) in yticks {
            let y = self.py(*t);
            let _ = write!(
                s,
                r#"<line x1="{LEFT}" x2="{}" y1="{y:.1}" y2="{y:.1}" class="grid"/><text x="{}" y="{:.1}" class="yt">{}</text>"#,
                W - RIGHT,
                LEFT - 6.0,
                y + 4.0,
                escape(label)
            );
        }
        for (t, label) in xticks {
            let x = self.px(*t);
            let _ = write!(
                s,
                r#"<line x1="{x:.1}" x2="{x:.1}" y1="{TOP}" y2="{}" class="grid"/><text x="{:.1}" y="{}" class="xt">{}</text>"#,
                TOP + ph,
                x_label_at(x, label),
                TOP + ph + 16.0,
                escape(label)
            );
        }
        let _ = write!(
            s,
            r#"<text x="{}" y="{}" class="xl">{}</text><text x="14" y="{}" class="yl" transform="rotate(-90 14 {})">{}</text>"#,
            LEFT + pw / 2.0,
            H - 6.0,
            escape(&c.x_label),
            TOP + ph / 2.0,
            TOP + ph / 2.0,
            escape(&c.y_label)
        );
    }

    /// The shaded spans, each clipped to the plot area.
    fn bands(&self, s: &mut String) {
        for b in &self.c.bands {
            for (from, to) in &b.spans {
                let (Some(a), Some(z)) = (self.c.x_scale.map(*from), self.c.x_scale.map(*to))
                else {
                    continue;
                };
                let (a, z) = (self.px(a).max(LEFT), self.px(z).min(W - RIGHT));
                let _ = write!(
                    s,
                    r#"<rect x="{a:.1}" y="{TOP}" width="{:.1}" height="{:.1}" fill="{}" fill-opacity="0.25" class="band"><title>{}</title></rect>"#,
                    (z - a).max(1.0),
                    self.ph,
                    b.color,
                    escape(&b.name)
                );
            }
        }
    }

    /// The vertical markers with their labels.
    fn markers(&self, s: &mut String) {
        for (x, label) in &self.c.markers {
            if let Some(m) = self.c.x_scale.map(*x) {
                let x = self.px(m);
                // A label past the middle of a wide chart reads leftwards, so it stays inside.
                let long = 6.0 * label.chars().count() as f64;
                let (tx, anchor) = if x + 3.0 + long > W - RIGHT {
                    (x - 3.0, r#" style="text-anchor:end""#)
                } else {
                    (x + 3.0, "")
                };
                let _ = write!(
                    s,
                    r#"<line x1="{x:.1}" x2="{x:.1}" y1="{TOP}" y2="{}" class="mark"/><text x="{tx:.1}" y="{}" class="mt"{anchor}>{}</text>"#,
                    TOP + self.ph,
                    TOP + 10.0,
                    escape(label)
                );
            }
        }
    }

    /// The horizontal levels with their labels.
    fn levels(&self, s: &mut String) {
        for (y, label) in &self.c.levels {
            if let Some(m) = self.c.y_scale.map(*y) {
                let y = self.py(m);
                let _ = write!(
                    s,
                    r#"<line x1="{LEFT}" x2="{}" y1="{y:.1}" y2="{y:.1}" class="level"/><text x="{}" y="{:.1}" class="lt">{}</text>"#,
                    W - RIGHT,
                    W - RIGHT - 3.0,
                    y - 4.0,
                    escape(label)
                );
            }
        }
    }

    /// Each series as a polyline, with a dot at each point when asked for (or when alone).
    fn series(&self, s: &mut String) {
        let c = self.c;
        for (i, ser) in c.series.iter().enumerate() {
            let color = PALETTE[i % PALETTE.len()];
            let pts: Vec<(f64, f64)> = ser
                .points
                .iter()
                .filter_map(|(x, y)| {
                    Some((self.px(c.x_scale.map(*x)?), self.py(c.y_scale.map(*y)?)))
                })
                .collect();
            let line: Vec<String> = pts.iter().map(|(x, y)| format!("{x:.1},{y:.1}")).collect();
            let dash = dash_attr(ser);
            let _ = write!(
                s,
                r#"<polyline points="{}" fill="none" stroke="{color}" stroke-width="1.8"{dash}/>"#,
                line.join(" ")
            );
            if pts.len() == 1 || c.dots {
                for (x, y) in &pts {
                    let _ = write!(
                        s,
                        r#"<circle cx="{x:.1}" cy="{y:.1}" r="2.5" fill="{color}"/>"#
                    );
                }
            }
        }
    }

    /// The hollow marks over the series.
    fn marks(&self, s: &mut String) {
        let c = self.c;
        for m in &c.marks {
            for (x, y) in &m.points {
                if let (Some(x), Some(y)) = (c.x_scale.map(*x), c.y_scale.map(*y)) {
                    let _ = write!(
                        s,
                        r#"<circle cx="{:.1}" cy="{:.1}" r="5" fill="none" stroke="{}" stroke-width="1.8"/>"#,
                        self.px(x),
                        self.py(y),
                        m.color
                    );
                }
            }
        }
    }
}

/// Where the legend's entries go: one row above the plot, right of the title, wrapping under
/// it when long.
struct LegendRow {
    lx: f64,
    ly: f64,
}

impl LegendRow {
    /// Start right of the title (about 7 px a character at 13 px), or on the next row.
    fn new(title: &str) -> Self {
        let first_x = (LEFT + 7.2 * title.chars().count() as f64 + 24.0).max(W * 0.45);
        let (lx, ly) = if first_x < W - RIGHT - 120.0 {
            (first_x, 14.0)
        } else {
            (LEFT, 27.0)
        };
        LegendRow { lx, ly }
    }

    /// Where the next entry goes: along the row, or at the start of the next one when full.
    fn slot(&mut self, name: &str) -> (f64, f64) {
        let width = 30.0 + 6.5 * name.chars().count() as f64;
        if self.lx + width > W - RIGHT && self.lx > LEFT {
            self.lx = LEFT;
            self.ly += 13.0;
        }
        let at = (self.lx, self.ly);
        self.lx += width;
        at
    }
}

/// The legend: a line per series, then a hollow mark per non-empty set of marks.
fn legend(s: &mut String, c: &Chart) {
    let mut row = LegendRow::new(&c.title);
    for (i, ser) in c.series.iter().enumerate() {
        let color = PALETTE[i % PALETTE.len()];
        let dash = dash_attr(ser);
        let (lx, ly) = row.slot(&ser.name);
        let _ = write!(
            s,
            r#"<line x1="{lx:.1}" x2="{:.1}" y1="{ly}" y2="{ly}" stroke="{color}" stroke-width="2"{dash}/><text x="{:.1}" y="{}" class="lg">{}</text>"#,
            lx + 18.0,
            lx + 22.0,
            ly + 4.0,
            escape(&ser.name)
        );
    }
    for b in c.bands.iter().filter(|b| !b.spans.is_empty()) {
        let (lx, ly) = row.slot(&b.name);
        let _ = write!(
            s,
            r#"<rect x="{lx:.1}" y="{}" width="18" height="10" fill="{}" fill-opacity="0.25"/><text x="{:.1}" y="{}" class="lg">{}</text>"#,
            ly - 5.0,
            b.color,
            lx + 22.0,
            ly + 4.0,
            escape(&b.name)
        );
    }
    for m in c.marks.iter().filter(|m| !m.points.is_empty()) {
        let (lx, ly) = row.slot(&m.name);
        let _ = write!(
            s,
            r#"<circle cx="{:.1}" cy="{ly}" r="4" fill="none" stroke="{}" stroke-width="1.8"/><text x="{:.1}" y="{}" class="lg">{}</text>"#,
            lx + 9.0,
            m.color,
            lx + 22.0,
            ly + 4.0,
            escape(&m.name)
        );
    }
}

#[cfg(test)]
#[path = "svg_tests.rs"]
mod tests;
