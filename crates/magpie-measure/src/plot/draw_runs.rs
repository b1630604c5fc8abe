//! The pictures of run times: box plots per configuration and speedup curves.

use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use super::canvas::{err, font, label_width, rows_mesh, shorten, Picture};
use super::runs::{Runs, Sample};

/// The configurations' colours, in order of first appearance (cycled).
pub(crate) const PALETTE: [RGBColor; 10] = [
    RGBColor(0x94, 0x67, 0xbd),
    RGBColor(0x8c, 0x56, 0x4b),
    RGBColor(0xe3, 0x77, 0xc2),
    RGBColor(0x17, 0xbe, 0xcf),
    RGBColor(0xbc, 0xbd, 0x22),
    RGBColor(0x1f, 0x77, 0xb4),
    RGBColor(0xff, 0x7f, 0x0e),
    RGBColor(0x2c, 0xa0, 0x2c),
    RGBColor(0xd6, 0x27, 0x28),
    RGBColor(0x7f, 0x7f, 0x7f),
];

/// A configuration's colour in `panel`: by its place among the report's configurations, so
/// that it has the same colour in every panel, while they fit in the palette; else (a suite
/// with many configurations, such as the search suite's) by its place among the panel's
/// own, so that two configurations of one panel never share a colour up to ten.
fn config_colour(runs: &Runs, panel: &str, config: &str) -> RGBColor {
    let all = runs.configs();
    let order: Vec<&str> = if all.len() <= PALETTE.len() {
        all
    } else {
        let mut mine: Vec<&str> = Vec::new();
        for s in runs.samples.iter().filter(|s| s.panel == panel) {
            if !mine.contains(&s.config.as_str()) {
                mine.push(&s.config);
            }
        }
        mine
    };
    let i = order.iter().position(|c| *c == config).unwrap_or(0);
    PALETTE[i % PALETTE.len()]
}

/// The quartiles (linear interpolation between order statistics) of non-empty `x`:
/// min, q1, median, q3, max.
pub(crate) fn five_numbers(x: &[f64]) -> [f64; 5] {
    let mut v = x.to_vec();
    v.sort_by(f64::total_cmp);
    let q = |p: f64| {
        let pos = p * (v.len() - 1) as f64;
        let i = pos.floor() as usize;
        let j = (i + 1).min(v.len() - 1);
        v[i] + (v[j] - v[i]) * (pos - i as f64)
    };
    [v[0], q(0.25), q(0.5), q(0.75), v[v.len() - 1]]
}

/// A panel's caption, `{panel}: {what} ({source})`, that fits `width` pixels in the
/// 18-pixel caption font (about 11 pixels a character): where it does not, the source goes
/// first, then the panel's name is shortened, so that what the picture shows stays readable.
fn caption(panel: &str, what: &str, source: &str, width: u32) -> String {
    let fits = (width as usize / 11).max(20);
    let full = format!("{panel}: {what} ({source})");
    let short = format!("{panel}: {what}");
    let tail = what.chars().count() + 2;
    if full.chars().count() <= fits {
        full
    } else if short.chars().count() <= fits {
        short
    } else if fits >= tail + 12 {
        format!("{}: {what}", shorten(panel, fits - tail))
    } else {
        shorten(&short, fits)
    }
}

/// The narrowest box drawn, in pixels.
const MIN_BOX_PX: f64 = 6.0;

/// Pixels per box row and per panel's frame.
const ROW_PX: u32 = 26;
const PANEL_PX: u32 = 96;

/// Box plots of the run times: one panel per application or kernel, one horizontal box
/// per configuration and worker count (whiskers min to max, box the quartiles, a line at
/// the median, a dot per run).
pub(crate) struct Boxes<'a>(pub &'a Runs);

impl Picture for Boxes<'_> {
    fn default_size(&self) -> (u32, u32) {
        let r = self.0;
        let h: u32 = r
            .panels()
            .iter()
            .map(|p| PANEL_PX + ROW_PX * r.samples.iter().filter(|s| s.panel == *p).count() as u32)
            .sum();
        (1100, h.clamp(300, 12000))
    }

    fn paint<DB: DrawingBackend>(&self, area: &DrawingArea<DB, Shift>) -> Result<(), String> {
        let r = self.0;
        let panels = r.panels();
        let weights: Vec<u32> = panels
            .iter()
            .map(|p| PANEL_PX + ROW_PX * r.samples.iter().filter(|s| s.panel == *p).count() as u32)
            .collect();
        let total: u32 = weights.iter().sum();
        let (_, h) = area.dim_in_pixel();
        let mut rest = area.clone();
        for (k, panel) in panels.iter().enumerate() {
            let this = if k + 1 == panels.len() {
                rest.clone()
            } else {
                let px = (h as u64 * weights[k] as u64 / total as u64) as u32;
                let (a, b) = rest.split_vertically(px);
                rest = b;
                a
            };
            let samples: Vec<&Sample> = r.samples.iter().filter(|s| s.panel == *panel).collect();
            box_panel(&this, r, panel, &samples)?;
        }
        Ok(())
    }
}

fn box_panel<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    runs: &Runs,
    panel: &str,
    samples: &[&Sample],
) -> Result<(), String> {
    let all: Vec<f64> = samples
        .iter()
        .flat_map(|s| s.times.iter().copied())
        .collect();
    let max = all.iter().copied().fold(0f64, f64::max);
    let min = all.iter().copied().fold(f64::INFINITY, f64::min);
    let (unit, per) = if max < 2.0 { ("ms", 1e-3) } else { ("s", 1.0) };
    let span = if max > min {
        max - min
    } else {
        max.max(1e-9) * 0.1
    };
    let lo = ((min - span * 0.08).max(0.0)) / per;
    let hi = (max + span * 0.08) / per;
    let labels: Vec<String> = samples.iter().map(|s| s.label()).collect();
    let label_w = label_width(area, &labels)?;
    let n = samples.len().max(1) as f64;
    let (w, _) = area.dim_in_pixel();
    let caption = caption(panel, "run times", &runs.source, w);
    let mut chart = ChartBuilder::on(area)
        .caption(caption, font(18))
        .margin(10)
        .margin_right(24)
        .x_label_area_size(42)
        .y_label_area_size(label_w.max(30))
        .build_cartesian_2d(lo..hi, 0f64..n)
        .map_err(err)?;
    rows_mesh(&mut chart, format!("run time ({unit})"))?;
    // Row i from the top sits at y in [n - i - 1, n - i].
    let (base_x, base_y) = area.get_base_pixel();
    let (px, py) = chart.plotting_area().get_base_pixel();
    let (_, ph) = chart.plotting_area().dim_in_pixel();
    let band = ph as f64 / n;
    let style = font(14).pos(Pos::new(HPos::Right, VPos::Center));
    for (i, l) in labels.iter().enumerate() {
        let y = py - base_y + (band * (i as f64 + 0.5)) as i32;
        area.draw(&Text::new(l.clone(), (px - base_x - 6, y), style.clone()))
            .map_err(err)?;
    }
    // A box at least MIN_BOX_PX wide (around its median), so that a configuration of one
    // run, or of equal runs, still shows its colour.
    let (pw, _) = chart.plotting_area().dim_in_pixel();
    let min_box = (hi - lo) * MIN_BOX_PX / pw.max(1) as f64;
    for (i, s) in samples.iter().enumerate() {
        let [a, q1, med, q3, b] = five_numbers(&s.times).map(|x| x / per);
        let (q1, q3) = if q3 - q1 < min_box {
            (med - min_box / 2.0, med + min_box / 2.0)
        } else {
            (q1, q3)
        };
        let mid = n - i as f64 - 0.5;
        let colour = config_colour(runs, panel, &s.config);
        let plot = chart.plotting_area();
        let line = |x0: f64, y0: f64, x1: f64, y1: f64| {
            PathElement::new(vec![(x0, y0), (x1, y1)], BLACK.stroke_width(1))
        };
        plot.draw(&line(a, mid, b, mid)).map_err(err)?;
        for x in [a, b] {
            plot.draw(&line(x, mid - 0.2, x, mid + 0.2)).map_err(err)?;
        }
        plot.draw(&Rectangle::new(
            [(q1, mid - 0.32), (q3, mid + 0.32)],
            colour.filled(),
        ))
        .map_err(err)?;
        plot.draw(&Rectangle::new(
            [(q1, mid - 0.32), (q3, mid + 0.32)],
            BLACK.stroke_width(1),
        ))
        .map_err(err)?;
        plot.draw(&PathElement::new(
            vec![(med, mid - 0.32), (med, mid + 0.32)],
            BLACK.stroke_width(3),
        ))
        .map_err(err)?;
        for &t in &s.times {
            plot.draw(&Circle::new(
                (t / per, mid),
                2,
                RGBColor(40, 40, 40).filled(),
            ))
            .map_err(err)?;
        }
    }
    Ok(())
}

/// Speedup curves: one panel per application or kernel, one line per configuration (the
/// baseline's median over the configuration's median at each worker count), the ideal
/// speedup dashed (from 1 worker, or from a relative curve's base).
pub(crate) struct Speedup<'a>(pub &'a Runs);

impl Speedup<'_> {
    fn grid(&self) -> (usize, usize) {
        let mut panels: Vec<String> = self.0.speedups().into_iter().map(|c| c.panel).collect();
        panels.dedup();
        let cols = panels.len().clamp(1, 2);
        (cols, panels.len().div_ceil(cols).max(1))
    }
}

impl Picture for Speedup<'_> {
    fn default_size(&self) -> (u32, u32) {
        let (cols, rows) = self.grid();
        (
            if cols == 1 { 800 } else { 1200 },
            (rows as u32 * 480).min(12000),
        )
    }

    fn paint<DB: DrawingBackend>(&self, area: &DrawingArea<DB, Shift>) -> Result<(), String> {
        let r = self.0;
        let curves = r.speedups();
        let mut panels: Vec<&str> = curves.iter().map(|c| c.panel.as_str()).collect();
        panels.dedup();
        let (cols, rows) = self.grid();
        let cells = area.split_evenly((rows, cols));
        for (cell, panel) in cells.iter().zip(&panels) {
            let mine: Vec<_> = curves.iter().filter(|c| c.panel == *panel).collect();
            let max_w = mine
                .iter()
                .flat_map(|c| c.points.iter().map(|p| p.0))
                .max()
                .unwrap_or(1) as i32;
            // At least the highest ideal line: from the smallest base the panel's curves start at.
            let min_base = mine.iter().map(|c| c.base).min().unwrap_or(1).max(1);
            let max_s = mine
                .iter()
                .flat_map(|c| c.points.iter().map(|p| p.1))
                .fold(max_w as f64 / min_base as f64, f64::max);
            let mut chart = ChartBuilder::on(cell)
                .caption(
                    caption(panel, "speedup", &r.source, cell.dim_in_pixel().0),
                    font(18),
                )
                .margin(12)
                .margin_right(24)
                .x_label_area_size(44)
                .y_label_area_size(56)
                .build_cartesian_2d(0i32..max_w + 1, 0f64..max_s * 1.1)
                .map_err(err)?;
            chart
                .configure_mesh()
                .x_desc(r.workers_axis())
                .y_desc("speedup")
                .label_style(font(14))
                .axis_desc_style(font(15))
                .draw()
                .map_err(err)?;
            // The ideal speedup from each base the panel's curves start from.
            let mut bases: Vec<usize> = mine.iter().map(|c| c.base).collect();
            bases.sort_unstable();
            bases.dedup();
            for &b in &bases {
                let grey = RGBColor(150, 150, 150);
                let b = b as i32;
                chart
                    .draw_series(DashedLineSeries::new(
                        [(b, 1.0), (max_w, max_w as f64 / b as f64)],
                        8,
                        6,
                        grey.stroke_width(2),
                    ))
                    .map_err(err)?
                    .label(if b == 1 {
                        "ideal".to_string()
                    } else {
                        format!("ideal from ×{b}")
                    })
                    .legend(move |(x, y)| {
                        PathElement::new(vec![(x, y), (x + 18, y)], grey.stroke_width(2))
                    });
            }
            for c in mine {
                let colour = config_colour(r, panel, &c.config);
                chart
                    .draw_series(
                        LineSeries::new(
                            c.points.iter().map(|&(w, s)| (w as i32, s)),
                            colour.stroke_width(3),
                        )
                        .point_size(4),
                    )
                    .map_err(err)?
                    .label(if c.base == 1 {
                        c.config.clone()
                    } else {
                        format!("{} (relative to ×{})", c.config, c.base)
                    })
                    .legend(move |(x, y)| {
                        Rectangle::new([(x, y - 5), (x + 18, y + 5)], colour.filled())
                    });
            }
            chart
                .configure_series_labels()
                .position(SeriesLabelPosition::UpperLeft)
                .label_font(font(14))
                .background_style(WHITE.mix(0.85))
                .border_style(BLACK)
                .draw()
                .map_err(err)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn colours_are_the_report_s_while_they_fit_else_the_panel_s() {
        let sample = |panel: &str, config: &str| Sample {
            panel: panel.into(),
            config: config.into(),
            workers: 1,
            ranks: None,
            sequential: false,
            times: vec![1.0],
        };
        let mut runs = Runs {
            source: "magpie-bench search".into(),
            samples: vec![sample("a", "x"), sample("b", "y"), sample("b", "x")],
        };
        assert_eq!(config_colour(&runs, "b", "x"), PALETTE[0]);
        assert_eq!(config_colour(&runs, "b", "y"), PALETTE[1]);
        // Eleven configurations: panel b's two are its first and second colours.
        for i in 0..9 {
            runs.samples.insert(0, sample("c", &format!("c{i}")));
        }
        assert_eq!(runs.configs().len(), 11);
        assert_eq!(config_colour(&runs, "b", "y"), PALETTE[0]);
        assert_eq!(config_colour(&runs, "b", "x"), PALETTE[1]);
    }

    #[test]
    fn captions_drop_the_source_then_shorten_the_panel() {
        let src = "magpie-bench search";
        assert_eq!(
            caption("fib", "speedup", src, 600),
            "fib: speedup (magpie-bench search)"
        );
        // 700 / 11 = 63 characters.
        let long = "replicable maxclique brock200_4 with a long name";
        assert_eq!(
            caption(long, "speedup", src, 700),
            format!("{long}: speedup")
        );
        let longer = format!("{long} and more");
        assert_eq!(
            caption(&longer, "speedup", src, 700),
            "replicable maxclique brock200_4 with a long name and …: speedup"
        );
        assert_eq!(caption(&longer, "speedup", src, 300).chars().count(), 27);
    }

    #[test]
    fn quartiles_interpolate() {
        assert_eq!(
            five_numbers(&[4.0, 1.0, 3.0, 2.0, 5.0]),
            [1.0, 2.0, 3.0, 4.0, 5.0]
        );
        assert_eq!(five_numbers(&[2.0]), [2.0; 5]);
        assert_eq!(five_numbers(&[1.0, 2.0]), [1.0, 1.25, 1.5, 1.75, 2.0]);
    }
}
