//! Bar charts drawn on the server as SVG (requests per day, scans per day), with a title per bar and a table beside them for screen readers.

use askama::Template;

/// Plot area: SVG user units; the chart scales with the page (`viewBox`).
const WIDTH: f64 = 720.0;
const HEIGHT: f64 = 200.0;
/// Room for the value labels on the left and the dates below.
const LEFT: f64 = 44.0;
const BOTTOM: f64 = 22.0;
const TOP: f64 = 8.0;
/// The widest bar.
const MAX_BAR: f64 = 36.0;

/// A bar chart ready for its template.
#[derive(Template)]
#[template(path = "chart.svg", escape = "html")]
pub(crate) struct BarChart {
    /// What the chart shows, for `aria-label`.
    pub(crate) label: String,
    pub(crate) bars: Vec<Bar>,
    /// Horizontal grid lines with their values.
    pub(crate) lines: Vec<Line>,
    /// Date labels under the axis.
    pub(crate) ticks: Vec<Tick>,
    pub(crate) width: String,
    pub(crate) height: String,
    pub(crate) left: String,
    pub(crate) axis_y: String,
}

/// One bar.
pub(crate) struct Bar {
    pub(crate) x: String,
    pub(crate) y: String,
    pub(crate) w: String,
    pub(crate) h: String,
    /// The tooltip, such as `2024-05-03: 12`.
    pub(crate) title: String,
}

/// A grid line.
pub(crate) struct Line {
    pub(crate) y: String,
    pub(crate) text_y: String,
    pub(crate) value: String,
}

/// A label under the axis.
pub(crate) struct Tick {
    pub(crate) x: String,
    pub(crate) text: String,
}

fn n(v: f64) -> String {
    format!("{v:.1}")
}

/// A "nice" top for the axis: 1, 2 or 5 times a power of ten, at least `max`.
fn nice_top(max: u64) -> u64 {
    let mut step = 1u64;
    loop {
        for f in [1, 2, 5] {
            if step.saturating_mul(f) >= max.max(1) {
                return step.saturating_mul(f);
            }
        }
        step = step.saturating_mul(10);
    }
}

impl BarChart {
    /// A chart of `(label, value)` pairs (dates, oldest first); `unit` names the values.
    pub(crate) fn new(label: &str, unit: &str, points: &[(String, u64)]) -> Self {
        let top = nice_top(points.iter().map(|(_, v)| *v).max().unwrap_or(0));
        let plot_w = WIDTH - LEFT;
        let plot_h = HEIGHT - BOTTOM - TOP;
        let slot = plot_w / points.len().max(1) as f64;
        let gap = (slot * 0.2).min(4.0);
        // A few days do not make bars as wide as the chart.
        let bar_w = (slot - gap).clamp(1.0, MAX_BAR);
        let bars = points
            .iter()
            .enumerate()
            .map(|(i, (day, value))| {
                let h = plot_h * (*value as f64) / top as f64;
                Bar {
                    x: n(LEFT + slot * i as f64 + (slot - bar_w) / 2.0),
                    y: n(TOP + plot_h - h),
                    w: n(bar_w),
                    h: n(h),
                    title: format!("{day}: {value} {unit}"),
                }
            })
            .collect();
        let lines = [0, top / 2, top]
            .iter()
            .map(|v| {
                let y = TOP + plot_h - plot_h * (*v as f64) / top as f64;
                Line {
                    y: n(y),
                    text_y: n(y + 4.0),
                    value: v.to_string(),
                }
            })
            .collect();
        // At most about 8 date labels, evenly spaced, the last day always shown.
        let every = points.len().div_ceil(8).max(1);
        let ticks = points
            .iter()
            .enumerate()
            .filter(|(i, _)| i % every == 0 || *i + 1 == points.len())
            .map(|(i, (day, _))| Tick {
                x: n(LEFT + slot * (i as f64 + 0.5)),
                text: day.get(5..).unwrap_or(day).to_owned(),
            })
            .collect();
        Self {
            label: label.to_owned(),
            bars,
            lines,
            ticks,
            width: n(WIDTH),
            height: n(HEIGHT),
            left: n(LEFT),
            axis_y: n(HEIGHT - BOTTOM + 14.0),
        }
    }

    /// The SVG markup (escaped by the template).
    pub(crate) fn svg(&self) -> String {
        self.render().unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn axis_tops_are_round() {
        assert_eq!(nice_top(0), 1);
        assert_eq!(nice_top(3), 5);
        assert_eq!(nice_top(7), 10);
        assert_eq!(nice_top(101), 200);
        assert_eq!(nice_top(1_000_000), 1_000_000);
    }

    #[test]
    fn bars_scale_and_labels_escape() {
        let points: Vec<(String, u64)> = (1..=30).map(|d| (format!("2024-05-{d:02}"), d)).collect();
        let chart = BarChart::new("Requests <per> day", "requests", &points);
        assert_eq!(chart.bars.len(), 30);
        // The axis tops at 50 for a largest value of 30.
        assert_eq!(chart.bars[29].h, n((HEIGHT - BOTTOM - TOP) * 30.0 / 50.0));
        assert!(chart.ticks.len() <= 9 && chart.ticks.last().unwrap().text == "05-30");
        let svg = chart.svg();
        assert!(svg.starts_with("<svg"), "{svg}");
        assert!(svg.contains("Requests &#60;per&#62; day"), "{svg}");
        assert!(svg.contains("2024-05-30: 30 requests"));
    }
}
