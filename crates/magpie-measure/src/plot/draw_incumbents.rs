//! The incumbent curve: the best value found over time, a red step line.

use plotters::coord::Shift;
use plotters::prelude::*;

use super::canvas::{err, font, note, Picture};
use super::{Incumbent, INCUMBENT};

/// The incumbent over time: a step line (each value holds until the next improvement,
/// and the last one a little past its time), a dot per improvement.
pub(crate) struct Curve<'a>(pub &'a [Incumbent]);

impl Picture for Curve<'_> {
    fn default_size(&self) -> (u32, u32) {
        (1000, 600)
    }

    fn paint<DB: DrawingBackend>(&self, area: &DrawingArea<DB, Shift>) -> Result<(), String> {
        let log = self.0;
        let caption = match log.last() {
            Some(last) => format!(
                "incumbent over time: {} improvement{}, last {} at {:.3} s",
                log.len(),
                if log.len() == 1 { "" } else { "s" },
                last.value,
                last.time_s
            ),
            None => "incumbent over time".to_string(),
        };
        let t_end = log.last().map_or(1.0, |l| l.time_s).max(1e-6) * 1.05;
        let (lo, hi) = log
            .iter()
            .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), i| {
                (a.min(i.value), b.max(i.value))
            });
        let (lo, hi) = if log.is_empty() {
            (0.0, 1.0)
        } else if hi > lo {
            let pad = (hi - lo) * 0.08;
            (lo - pad, hi + pad)
        } else {
            (lo - 1.0, hi + 1.0)
        };
        let mut chart = ChartBuilder::on(area)
            .caption(caption, font(19))
            .margin(12)
            .margin_right(24)
            .x_label_area_size(44)
            .y_label_area_size(72)
            .build_cartesian_2d(0f64..t_end, lo..hi)
            .map_err(err)?;
        chart
            .configure_mesh()
            .x_desc("time (s)")
            .y_desc("incumbent value")
            .label_style(font(14))
            .axis_desc_style(font(15))
            .draw()
            .map_err(err)?;
        if log.is_empty() {
            return note(
                &chart.plotting_area().strip_coord_spec(),
                "(no improvement logged)",
            );
        }
        let mut steps = Vec::with_capacity(log.len() * 2 + 1);
        for (i, inc) in log.iter().enumerate() {
            if i > 0 {
                steps.push((inc.time_s, log[i - 1].value));
            }
            steps.push((inc.time_s, inc.value));
        }
        steps.push((t_end, log[log.len() - 1].value));
        chart
            .draw_series(LineSeries::new(steps, INCUMBENT.stroke_width(3)))
            .map_err(err)?;
        chart
            .draw_series(
                log.iter()
                    .map(|i| Circle::new((i.time_s, i.value), 4, INCUMBENT.filled())),
            )
            .map_err(err)?;
        Ok(())
    }
}
