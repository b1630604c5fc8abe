//! The pictures of a trace: the timeline per worker, the utilisation over time and the
//! loop's chunk Gantt chart.

use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use super::canvas::{err, font, label_width, legend, note, rows_mesh, shorten, time_unit, Picture};
use super::trace::{State, Trace};
use super::{IDLE, PARKED, STEALING, WORKING};

/// The colour of a state.
pub(crate) fn colour(s: State) -> RGBColor {
    match s {
        State::Working => WORKING,
        State::Stealing => STEALING,
        State::Idle => IDLE,
        State::Parked => PARKED,
    }
}

fn index(s: State) -> usize {
    State::ALL.iter().position(|&x| x == s).unwrap_or(0)
}

/// The rows' picture height: a band of 26 pixels per row, at least 300 in all.
fn rows_height(t: &Trace) -> u32 {
    (130 + 26 * t.rows.len() as u32).clamp(300, 4000)
}

/// The time axis' end in microseconds (1 ms for an empty trace).
fn end_us(t: &Trace) -> f64 {
    if t.end > 0.0 {
        t.end
    } else {
        1000.0
    }
}

/// The states present in the trace, as legend items.
fn state_items(t: &Trace) -> Vec<(String, RGBColor)> {
    State::ALL
        .into_iter()
        .filter(|s| t.spans.iter().any(|sp| sp.state == *s))
        .map(|s| (s.name().to_string(), colour(s)))
        .collect()
}

/// The title strip and the legend strip above the chart; returns the chart's area.
fn header<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    title: &str,
    items: &[(String, RGBColor)],
) -> Result<DrawingArea<DB, Shift>, String> {
    let (top, body) = area.split_vertically(62);
    let (w, _) = area.dim_in_pixel();
    let (title_area, legend_area) = top.split_vertically(30);
    title_area
        .draw(&Text::new(
            // Hack at 19 px: about 11.4 px a character.
            shorten(title, (w as usize / 12).max(20)),
            (12, 8),
            font(19),
        ))
        .map_err(err)?;
    legend(&legend_area, items)?;
    Ok(body)
}

fn title(kind: &str, t: &Trace) -> String {
    match &t.command {
        Some(c) => format!("{kind}: {c}"),
        None => kind.to_string(),
    }
}

/// A chart of rows (top to bottom) over time; `bands` draws into the plotting area in
/// pixels, given its width and the band height.
fn rows_chart<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    t: &Trace,
    bands: impl FnOnce(&DrawingArea<DB, Shift>, u32, f64) -> Result<(), String>,
) -> Result<(), String> {
    let (unit, per) = time_unit(end_us(t));
    let labels: Vec<String> = (0..t.rows.len()).map(|i| t.row_label(i)).collect();
    let label_w = label_width(area, &labels)?;
    let rows = t.rows.len().max(1) as f64;
    let mut chart = ChartBuilder::on(area)
        .margin(10)
        .margin_right(24)
        .x_label_area_size(44)
        .y_label_area_size(label_w.max(30))
        .build_cartesian_2d(0f64..end_us(t) / per, 0f64..rows)
        .map_err(err)?;
    rows_mesh(&mut chart, format!("time ({unit})"))?;
    let plot = chart.plotting_area().strip_coord_spec();
    let (pw, ph) = plot.dim_in_pixel();
    let band = ph as f64 / rows;
    // The row labels, right-aligned left of the plotting area, at each band's middle.
    let (base_x, base_y) = area.get_base_pixel();
    let (px, py) = chart.plotting_area().get_base_pixel();
    let style = font(14).pos(Pos::new(HPos::Right, VPos::Center));
    for (i, l) in labels.iter().enumerate() {
        let y = py - base_y + (band * (i as f64 + 0.5)) as i32;
        area.draw(&Text::new(l.clone(), (px - base_x - 6, y), style.clone()))
            .map_err(err)?;
    }
    if t.spans.is_empty() {
        note(&plot, "(no spans recorded)")?;
        return Ok(());
    }
    bands(&plot, pw, band)
}

/// A band's pixel rows: a gap of an eighth of the band (at least 1 pixel) on each side.
fn band_y(i: usize, band: f64) -> (i32, i32) {
    let gap = (band / 8.0).max(1.0);
    let y0 = (i as f64 * band + gap).round() as i32;
    let y1 = ((i + 1) as f64 * band - gap).round() as i32;
    (y0, y1.max(y0 + 1))
}

/// The timeline: one row per (rank, worker), each pixel column coloured by the state the
/// worker spent most of that column's time in (nothing where it spent most of it outside
/// any span); successful steals as black ticks at the top of the thief's row.
pub(crate) struct Timeline<'a>(pub &'a Trace);

impl Picture for Timeline<'_> {
    fn default_size(&self) -> (u32, u32) {
        (1200, rows_height(self.0))
    }

    fn paint<DB: DrawingBackend>(&self, area: &DrawingArea<DB, Shift>) -> Result<(), String> {
        let t = self.0;
        let mut items = state_items(t);
        if !t.steals.is_empty() {
            items.push(("successful steal".to_string(), RGBColor(0, 0, 0)));
        }
        let body = header(area, &title("timeline", t), &items)?;
        rows_chart(&body, t, |plot, pw, band| {
            let end = end_us(t);
            let col = end / pw as f64;
            for (i, segs) in t.segments().iter().enumerate() {
                // Per column: the time in each state, then the time in none.
                let mut acc = vec![[0f64; 4]; pw as usize];
                for &(a, b, s) in segs {
                    let (c0, c1) = (
                        (a / col) as usize,
                        ((b / col) as usize).min(pw as usize - 1),
                    );
                    for (c, slot) in acc.iter_mut().enumerate().take(c1 + 1).skip(c0) {
                        let lo = a.max(c as f64 * col);
                        let hi = b.min((c + 1) as f64 * col);
                        slot[index(s)] += (hi - lo).max(0.0);
                    }
                }
                let dominant: Vec<Option<State>> = acc
                    .iter()
                    .map(|a| {
                        let (k, v) = a
                            .iter()
                            .enumerate()
                            .max_by(|x, y| x.1.total_cmp(y.1))
                            .expect("four states");
                        let none = col - a.iter().sum::<f64>();
                        (*v > 0.0 && *v >= none).then_some(State::ALL[k])
                    })
                    .collect();
                let (y0, y1) = band_y(i, band);
                let mut c = 0;
                while c < dominant.len() {
                    let s = dominant[c];
                    let mut e = c + 1;
                    while e < dominant.len() && dominant[e] == s {
                        e += 1;
                    }
                    if let Some(s) = s {
                        plot.draw(&Rectangle::new(
                            [(c as i32, y0), (e as i32, y1)],
                            colour(s).filled(),
                        ))
                        .map_err(err)?;
                    }
                    c = e;
                }
            }
            for &(row, ts) in &t.steals {
                let x = (ts / col) as i32;
                let (y0, y1) = band_y(row, band);
                let y_mid = y0 + ((y1 - y0) / 3).max(2);
                plot.draw(&Rectangle::new([(x, y0), (x + 1, y_mid)], BLACK.filled()))
                    .map_err(err)?;
            }
            Ok(())
        })
    }
}

/// The utilisation over time: per time bucket, the share of the workers' time in each
/// state, stacked (working at the bottom); the rest of the bucket was outside any span.
pub(crate) struct Utilisation<'a>(pub &'a Trace);

impl Utilisation<'_> {
    /// Per bucket of `n` over the trace, the share (0..=1) of the workers' time per state.
    pub(crate) fn shares(&self, n: usize) -> Vec<[f64; 4]> {
        let t = self.0;
        let width = end_us(t) / n as f64;
        let mut out = vec![[0f64; 4]; n];
        for segs in t.segments() {
            for (a, b, s) in segs {
                let (c0, c1) = ((a / width) as usize, ((b / width) as usize).min(n - 1));
                for (c, slot) in out.iter_mut().enumerate().take(c1 + 1).skip(c0) {
                    let lo = a.max(c as f64 * width);
                    let hi = b.min((c + 1) as f64 * width);
                    slot[index(s)] += (hi - lo).max(0.0);
                }
            }
        }
        let all = width * t.rows.len().max(1) as f64;
        for slot in &mut out {
            for v in slot.iter_mut() {
                *v /= all;
            }
        }
        out
    }
}

impl Picture for Utilisation<'_> {
    fn default_size(&self) -> (u32, u32) {
        (1200, 500)
    }

    fn paint<DB: DrawingBackend>(&self, area: &DrawingArea<DB, Shift>) -> Result<(), String> {
        let t = self.0;
        let (w, _) = area.dim_in_pixel();
        let n = ((w / 5) as usize).clamp(1, 200);
        let shares = self.shares(n);
        let mean_working = shares.iter().map(|s| s[0]).sum::<f64>() / n as f64;
        let heading = format!(
            "{} (working {:.1}% of the workers' time)",
            title("utilisation", t),
            mean_working * 100.0
        );
        let body = header(area, &heading, &state_items(t))?;
        let (unit, per) = time_unit(end_us(t));
        let end = end_us(t) / per;
        let mut chart = ChartBuilder::on(&body)
            .margin(10)
            .margin_right(24)
            .x_label_area_size(44)
            .y_label_area_size(64)
            .build_cartesian_2d(0f64..end, 0f64..100f64)
            .map_err(err)?;
        chart
            .configure_mesh()
            .x_desc(format!("time ({unit})"))
            .y_desc("workers (%)")
            .y_labels(6)
            .label_style(font(14))
            .axis_desc_style(font(15))
            .draw()
            .map_err(err)?;
        if t.spans.is_empty() {
            return note(
                &chart.plotting_area().strip_coord_spec(),
                "(no spans recorded)",
            );
        }
        let width = end / n as f64;
        chart
            .draw_series(shares.iter().enumerate().flat_map(|(i, s)| {
                let x0 = i as f64 * width;
                let mut y = 0.0;
                State::ALL
                    .iter()
                    .enumerate()
                    .filter(|(k, _)| s[*k] > 0.0)
                    .map(|(k, &st)| {
                        let r = Rectangle::new(
                            [(x0, y), (x0 + width, y + s[k] * 100.0)],
                            colour(st).filled(),
                        );
                        y += s[k] * 100.0;
                        r
                    })
                    .collect::<Vec<_>>()
            }))
            .map_err(err)?;
        Ok(())
    }
}

/// The colour of a chunk of `size` on a scale from `min` to `max` (logarithmic; viridis,
/// dark purple for the smallest to yellow for the largest).
pub(crate) fn size_colour(size: u64, min: u64, max: u64) -> RGBColor {
    const STOPS: [(u8, u8, u8); 5] = [
        (68, 1, 84),
        (59, 82, 139),
        (33, 145, 140),
        (94, 201, 98),
        (253, 231, 37),
    ];
    let (lo, hi) = ((min.max(1) as f64).ln(), (max.max(1) as f64).ln());
    let f = if hi > lo {
        (((size.max(1) as f64).ln() - lo) / (hi - lo)).clamp(0.0, 1.0)
    } else {
        0.5
    };
    let x = f * (STOPS.len() - 1) as f64;
    let i = (x.floor() as usize).min(STOPS.len() - 2);
    let u = x - i as f64;
    let mix = |a: u8, b: u8| (a as f64 + (b as f64 - a as f64) * u).round() as u8;
    let (a, b) = (STOPS[i], STOPS[i + 1]);
    RGBColor(mix(a.0, b.0), mix(a.1, b.1), mix(a.2, b.2))
}

/// The chunk Gantt chart: one bar per chunk on its worker's row, coloured by its size
/// (labelled with it where the bar is wide enough).
pub(crate) struct Gantt<'a>(pub &'a Trace);

impl Picture for Gantt<'_> {
    fn default_size(&self) -> (u32, u32) {
        (1200, rows_height(self.0))
    }

    fn paint<DB: DrawingBackend>(&self, area: &DrawingArea<DB, Shift>) -> Result<(), String> {
        let t = self.0;
        let chunks: Vec<_> = t
            .spans
            .iter()
            .filter_map(|s| s.chunk.map(|c| (s, c)))
            .collect();
        let min = chunks.iter().map(|c| c.1.size).min().unwrap_or(1);
        let max = chunks.iter().map(|c| c.1.size).max().unwrap_or(1);
        let heading = format!(
            "{} ({} chunks of {} to {} iterations)",
            title("chunks", t),
            chunks.len(),
            min,
            max
        );
        let mut items = vec![(format!("size {min}"), size_colour(min, min, max))];
        if max > min {
            let mid = ((min as f64) * (max as f64)).sqrt().round() as u64;
            if mid > min && mid < max {
                items.push((format!("{mid}"), size_colour(mid, min, max)));
            }
            items.push((format!("{max} iterations"), size_colour(max, min, max)));
        }
        let body = header(area, &heading, &items)?;
        rows_chart(&body, t, |plot, pw, band| {
            let scale = pw as f64 / end_us(t);
            let label = font(12).pos(Pos::new(HPos::Center, VPos::Center));
            for (s, c) in &chunks {
                let x0 = (s.start * scale).floor() as i32;
                let x1 = ((s.end * scale).ceil() as i32).max(x0 + 1);
                let (y0, y1) = band_y(s.row, band);
                // A 1-pixel gap between neighbouring bars that are wide enough.
                let x1g = if x1 - x0 >= 4 { x1 - 1 } else { x1 };
                let fill = size_colour(c.size, min, max);
                plot.draw(&Rectangle::new([(x0, y0), (x1g, y1)], fill.filled()))
                    .map_err(err)?;
                let text = c.size.to_string();
                let (tw, th) = plot.estimate_text_size(&text, &label).map_err(err)?;
                if (x1g - x0) as u32 >= tw + 6 && (y1 - y0) as u32 >= th + 2 {
                    let light = fill.0 as u32 + fill.1 as u32 + fill.2 as u32 > 3 * 140;
                    let ink = if light { BLACK } else { WHITE };
                    plot.draw(&Text::new(
                        text,
                        ((x0 + x1g) / 2, (y0 + y1) / 2),
                        label.clone().color(&ink),
                    ))
                    .map_err(err)?;
                }
            }
            Ok(())
        })
    }
}

#[cfg(test)]
mod tests {
    use super::super::Data;
    use super::*;

    #[test]
    fn utilisation_shares_are_time_weighted() {
        // Two workers over [0, 100): w0 works throughout, w1 parks during [50, 100).
        let Data::Trace(t) = Data::parse(
            r#"{"traceEvents":[
            {"ph":"X","cat":"task","name":"task","pid":0,"tid":0,"ts":0,"dur":100},
            {"ph":"X","cat":"park","name":"park","pid":0,"tid":1,"ts":50,"dur":50}]}"#,
        )
        .unwrap() else {
            panic!("a trace")
        };
        let s = Utilisation(&t).shares(2);
        assert_eq!(s, [[0.5, 0.0, 0.0, 0.0], [0.5, 0.0, 0.0, 0.5]]);
    }

    #[test]
    fn chunk_colours_run_from_purple_to_yellow() {
        assert_eq!(size_colour(1, 1, 1000), RGBColor(68, 1, 84));
        assert_eq!(size_colour(1000, 1, 1000), RGBColor(253, 231, 37));
        assert_eq!(size_colour(7, 7, 7), RGBColor(33, 145, 140));
    }

    #[test]
    fn canvas_time_units() {
        assert_eq!(super::super::canvas::time_unit(1500.0), ("µs", 1.0));
        assert_eq!(super::super::canvas::time_unit(2e3), ("ms", 1e3));
        assert_eq!(super::super::canvas::time_unit(3e6), ("s", 1e6));
    }
}
