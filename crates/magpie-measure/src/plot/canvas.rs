//! Where pictures are drawn: the PNG or SVG backend by the output's extension, the embedded
//! font, and the pieces every picture shares (legend strip, time unit, notes).

use std::path::Path;
use std::sync::Once;

use plotters::coord::types::RangedCoordf64;
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use super::Size;

/// The font family every picture uses (registered from the embedded font).
pub(crate) const FONT: &str = "sans-serif";

/// A picture that can draw itself on any backend.
pub(crate) trait Picture {
    /// The default size when the caller gives none.
    fn default_size(&self) -> (u32, u32);
    /// Draws onto `area` (already white).
    fn paint<DB: DrawingBackend>(&self, area: &DrawingArea<DB, Shift>) -> Result<(), String>;
}

/// A drawing error as text.
pub(crate) fn err<E: std::fmt::Display>(e: E) -> String {
    format!("drawing failed: {e}")
}

fn register_font() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        // Hack Regular (a monospaced font derived from DejaVu Sans Mono) is a valid TrueType
        // font: registering it cannot fail.
        let _ = plotters::style::register_font(
            FONT,
            FontStyle::Normal,
            epaint_default_fonts::HACK_REGULAR,
        );
    });
}

/// Draws `picture` into `out`: PNG for `.png`, SVG for `.svg`.
pub(crate) fn render(out: &Path, size: Size, picture: &impl Picture) -> Result<(), String> {
    let (dw, dh) = picture.default_size();
    let (w, h) = (size.width.unwrap_or(dw), size.height.unwrap_or(dh));
    for (side, v) in [("width", w), ("height", h)] {
        if !(100..=20000).contains(&v) {
            return Err(format!("--{side} {v}: expected 100 to 20000 pixels"));
        }
    }
    register_font();
    let ext = out
        .extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase);
    let bytes = match ext.as_deref() {
        Some("png") => {
            let mut rgb = vec![255u8; w as usize * h as usize * 3];
            {
                let root = BitMapBackend::with_buffer(&mut rgb, (w, h)).into_drawing_area();
                root.fill(&WHITE).map_err(err)?;
                picture.paint(&root)?;
                root.present().map_err(err)?;
            }
            encode_png(&rgb, w, h)?
        }
        Some("svg") => {
            let mut svg = String::new();
            {
                let root = SVGBackend::with_string(&mut svg, (w, h)).into_drawing_area();
                root.fill(&WHITE).map_err(err)?;
                picture.paint(&root)?;
                root.present().map_err(err)?;
            }
            svg.into_bytes()
        }
        _ => {
            return Err(format!(
                "{}: the picture's name must end in .png or .svg",
                out.display()
            ))
        }
    };
    std::fs::write(out, bytes).map_err(|e| format!("{}: {e}", out.display()))
}

fn encode_png(rgb: &[u8], w: u32, h: u32) -> Result<Vec<u8>, String> {
    let mut out = Vec::new();
    let mut encoder = png::Encoder::new(&mut out, w, h);
    encoder.set_color(png::ColorType::Rgb);
    encoder.set_depth(png::BitDepth::Eight);
    encoder.set_compression(png::Compression::Best);
    let mut writer = encoder.write_header().map_err(err)?;
    writer.write_image_data(rgb).map_err(err)?;
    writer.finish().map_err(err)?;
    Ok(out)
}

/// The text style of size `px`.
/// Draws the mesh of a chart of rows (one per sample or per worker, `f64` on both axes):
/// no horizontal lines and no y labels (the rows label themselves), the x axis described
/// by `x_desc`.
pub(crate) fn rows_mesh<DB: DrawingBackend>(
    chart: &mut ChartContext<'_, DB, Cartesian2d<RangedCoordf64, RangedCoordf64>>,
    x_desc: String,
) -> Result<(), String> {
    chart
        .configure_mesh()
        .disable_y_mesh()
        .light_line_style(TRANSPARENT)
        .y_labels(0)
        .x_desc(x_desc)
        .label_style(font(14))
        .axis_desc_style(font(15))
        .draw()
        .map_err(err)
}

/// The width of the label column of a chart of rows: the widest of `labels` (at 14 px),
/// plus a margin.
pub(crate) fn label_width<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    labels: &[String],
) -> Result<u32, String> {
    let widest = labels
        .iter()
        .map(|l| area.estimate_text_size(l, &font(14)).map(|(w, _)| w))
        .collect::<Result<Vec<u32>, _>>()
        .map_err(err)?
        .into_iter()
        .max()
        .unwrap_or(0);
    Ok(widest + 16)
}

pub(crate) fn font(px: u32) -> TextStyle<'static> {
    (FONT, px).into_font().color(&BLACK)
}

/// A legend in one line across the top of `area`: a filled square and a name per item.
pub(crate) fn legend<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    items: &[(String, RGBColor)],
) -> Result<(), String> {
    let style = font(15);
    let mut x = 12i32;
    for (name, colour) in items {
        area.draw(&Rectangle::new([(x, 8), (x + 14, 22)], colour.filled()))
            .map_err(err)?;
        area.draw(&Text::new(name.clone(), (x + 20, 7), style.clone()))
            .map_err(err)?;
        let (tw, _) = area.estimate_text_size(name, &style).map_err(err)?;
        x += 20 + tw as i32 + 24;
    }
    Ok(())
}

/// A note in the middle of `area` (an empty picture says why it is empty).
pub(crate) fn note<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    text: &str,
) -> Result<(), String> {
    let (w, h) = area.dim_in_pixel();
    let style = font(18).pos(Pos::new(HPos::Center, VPos::Center));
    area.draw(&Text::new(
        text.to_string(),
        (w as i32 / 2, h as i32 / 2),
        style,
    ))
    .map_err(err)
}

/// A unit for times of up to `max_us` microseconds: (name, microseconds per unit).
pub(crate) fn time_unit(max_us: f64) -> (&'static str, f64) {
    if max_us >= 2e6 {
        ("s", 1e6)
    } else if max_us >= 2e3 {
        ("ms", 1e3)
    } else {
        ("µs", 1.0)
    }
}

/// A caption cut to `max` characters.
pub(crate) fn shorten(s: &str, max: usize) -> String {
    if s.chars().count() <= max {
        s.to_string()
    } else {
        let mut t: String = s.chars().take(max.saturating_sub(1)).collect();
        t.push('…');
        t
    }
}
