//! Mandelbrot set as a scheduled parallel loop (the irregular loop of the LB4OMP
//! experiments): one iteration per pixel, whose cost is its escape count, so that the rows
//! crossing the set are far more expensive than those outside it.
//!
//! The image covers `[-2, 1] × [-1.5, 1.5]`, row-major: pixel `(x, y)` (index `y * width + x`)
//! is the point `c = (-2 + 3(x + 0.5)/width, -1.5 + 3(y + 0.5)/height)`, and its value is
//! [`pixel`]`(c)`. [`run`] renders the image `steps` times through the same
//! [`magpie::loops::Loop`], as the time steps of an application, so that adaptive schedules
//! learn across them.
//!
//! ```
//! use magpie::loops::{Loop, Schedule};
//! use magpie_apps::mandelbrot::{render, render_seq, Params};
//! let p = Params::new(64, 48, 200, 1).unwrap();
//! let pool = magpie::ThreadPoolBuilder::new().num_workers(2).build().unwrap();
//! let step = Loop::new("fac2".parse::<Schedule>().unwrap());
//! assert_eq!(pool.install(|| render(&p, &step)), render_seq(&p));
//! ```

use std::fs::File;
use std::io::BufWriter;
use std::path::{Path, PathBuf};

use magpie::loops::Loop;
use serde_json::{json, Value};

use crate::input::InputError;
use crate::output::map_indexed;
use crate::registry::{LoopApp, LoopError, LoopInput, LoopOptions, LoopOutput, LoopReport};

/// The description of `mandelbrot` in [`crate::registry::LOOP_APPS`].
pub static APP: LoopApp = LoopApp {
    name: "mandelbrot",
    options: &["--width", "--height", "--max-iter", "--png"],
    default_steps: crate::registry::DEFAULT_LOOP_STEPS,
    input: Input::build,
};

/// The pixels per row without `--width`.
pub const DEFAULT_WIDTH: usize = 800;
/// The rows without `--height`.
pub const DEFAULT_HEIGHT: usize = 600;
/// The iteration limit per pixel without `--max-iter`.
pub const DEFAULT_MAX_ITER: u32 = 1000;

/// Mandelbrot's input in [`crate::registry`]: the image to render at each time step, and
/// where to write the last one.
#[derive(Debug, Clone, PartialEq)]
pub struct Input {
    /// The image's size and iteration limit, and the steps.
    pub params: Params,
    /// `--png`: the file the last image goes to.
    pub png: Option<PathBuf>,
}

impl Input {
    /// From `--width` ([`DEFAULT_WIDTH`]), `--height` ([`DEFAULT_HEIGHT`]), `--max-iter`
    /// ([`DEFAULT_MAX_ITER`]), the steps, and `--png` (created now, so that an unwritable
    /// path fails before the run rather than after it).
    pub fn build(o: &LoopOptions) -> Result<Box<dyn LoopInput>, LoopError> {
        let width = o.number("--width", DEFAULT_WIDTH, 1, "the width")?;
        let height = o.number("--height", DEFAULT_HEIGHT, 1, "the height")?;
        let max_iter = o.number("--max-iter", DEFAULT_MAX_ITER, 1, "the iteration limit")?;
        let params = Params::new(width, height, max_iter, o.steps())?;
        let png = o.get("--png").map(PathBuf::from);
        if let Some(path) = &png {
            File::create(path).map_err(|e| {
                LoopError::new(format!(
                    "--png {}: cannot create the file: {e}",
                    path.display()
                ))
            })?;
        }
        Ok(Box::new(Input { params, png }))
    }
}

impl LoopInput for Input {
    fn app(&self) -> &'static LoopApp {
        &APP
    }

    fn parameters(&self) -> Value {
        let p = &self.params;
        json!({"width": p.width, "height": p.height, "max_iter": p.max_iter})
    }

    fn step(&self, _: usize, lp: &Loop) -> LoopOutput {
        LoopOutput::Image(render(&self.params, lp))
    }

    fn step_seq(&self, _: usize) -> LoopOutput {
        LoopOutput::Image(render_seq(&self.params))
    }

    /// Every step's image by its total and checksum, the last one exactly.
    fn check_with(&self, want: &LoopOutput, outs: &[LoopOutput]) -> Result<&'static str, String> {
        let w = (want.total(), want.checksum());
        if let Some(s) = outs.iter().position(|o| (o.total(), o.checksum()) != w) {
            let (got, step) = (&outs[s], s + 1);
            return Err(format!(
                "mandelbrot step {step}: {} iterations, checksum {:#018x}; the sequential \
                 image has {} and {:#018x}",
                got.total(),
                got.checksum(),
                w.0,
                w.1
            ));
        }
        match outs.last() {
            Some(last) if last != want => {
                Err("the last image differs from the sequential one".into())
            }
            _ => Ok("every step's image equals the sequential one (render_seq)"),
        }
    }

    /// The steps, the iterations of them all and the last image's checksum.
    fn report(&self, outs: &[LoopOutput]) -> LoopReport {
        let iterations: u64 = outs.iter().map(LoopOutput::total).sum();
        let checksum = outs.last().map_or(checksum(&[]), LoopOutput::checksum);
        LoopReport::new(
            json!({"steps": outs.len(), "iterations": iterations, "checksum": checksum}),
            format!("iterations {iterations}, checksum {checksum:#018x}"),
        )
    }

    /// The last image to `--png`, if given.
    fn write(&self, outs: &[LoopOutput]) -> Result<(), LoopError> {
        match (&self.png, outs.last()) {
            (Some(path), Some(LoopOutput::Image(image))) => write_png(path, &self.params, image)
                .map_err(|e| LoopError::new(format!("--png {e}"))),
            _ => Ok(()),
        }
    }
}

/// Memory per pixel counted against [`crate::MAX_GENERATED_BYTES`]: the image and the
/// sequential check's image, one `u32` each.
pub const BYTES_PER_PIXEL: u64 = 8;

/// The size of the image, the iteration limit and the number of time steps of [`run`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Params {
    /// Pixels per row (≥ 1).
    pub width: usize,
    /// Rows (≥ 1).
    pub height: usize,
    /// The most iterations per pixel (≥ 1): the value of the pixels inside the set.
    pub max_iter: u32,
    /// How many times [`run`] renders the image (≥ 1).
    pub steps: usize,
}

impl Params {
    /// Checked parameters (see [`Params::validate`]).
    ///
    /// ```
    /// use magpie_apps::mandelbrot::Params;
    /// assert!(Params::new(800, 600, 1000, 20).is_ok());
    /// let e = Params::new(0, 600, 1000, 20).unwrap_err();
    /// assert_eq!(e.to_string(), "--width: the width must be at least 1 (got 0)");
    /// ```
    pub fn new(
        width: usize,
        height: usize,
        max_iter: u32,
        steps: usize,
    ) -> Result<Params, InputError> {
        let p = Params {
            width,
            height,
            max_iter,
            steps,
        };
        p.validate()?;
        Ok(p)
    }

    /// Checks that every size is at least 1 and that the `width × height` image fits in
    /// [`crate::MAX_GENERATED_BYTES`] (checked before any allocation); the error names the offending parameter (`--width`, `--height`,
    /// `--max-iter`, `--steps`).
    ///
    /// ```
    /// let p = magpie_apps::mandelbrot::Params { width: 4, height: 4, max_iter: 0, steps: 1 };
    /// assert!(p.validate().unwrap_err().to_string().contains("--max-iter"));
    /// let huge = magpie_apps::mandelbrot::Params { width: 100_000, height: 100_000, max_iter: 1, steps: 1 };
    /// let e = huge.validate().unwrap_err().to_string();
    /// assert!(e.contains("100000 x 100000 image") && e.contains("74.5 GiB"), "{e}");
    /// ```
    pub fn validate(&self) -> Result<(), InputError> {
        let at_least_one = |name: &str, what: &str, v: u64| {
            if v == 0 {
                Err(InputError::file(
                    format!("--{name}"),
                    format!("the {what} must be at least 1 (got 0)"),
                ))
            } else {
                Ok(())
            }
        };
        at_least_one("width", "width", self.width as u64)?;
        at_least_one("height", "height", self.height as u64)?;
        at_least_one("max-iter", "iteration limit", u64::from(self.max_iter))?;
        at_least_one("steps", "number of time steps", self.steps as u64)?;
        // The image and the sequential check's image: two u32 per pixel.
        crate::check_generated_size(
            "--width/--height",
            &format!("a {} x {} image", self.width, self.height),
            (self.width as u64).saturating_mul(self.height as u64),
            BYTES_PER_PIXEL,
        )
    }

    /// The number of pixels, `width × height`.
    pub fn pixels(&self) -> usize {
        self.width * self.height
    }

    /// The point of pixel index `i` (row-major): `(c_re, c_im)`.
    ///
    /// ```
    /// let p = magpie_apps::mandelbrot::Params::new(2, 2, 10, 1).unwrap();
    /// assert_eq!(p.point(0), (-1.25, -0.75));
    /// assert_eq!(p.point(3), (0.25, 0.75));
    /// ```
    pub fn point(&self, i: usize) -> (f64, f64) {
        let (x, y) = (i % self.width, i / self.width);
        (
            -2.0 + 3.0 * (x as f64 + 0.5) / self.width as f64,
            -1.5 + 3.0 * (y as f64 + 0.5) / self.height as f64,
        )
    }
}

/// The escape count of `c = c_re + i·c_im`: starting from `z = 0`, the number of updates
/// `z ← z² + c` made before `|z|² > 4` holds, at most `max_iter`. The test comes before each
/// update, so a point with `|c|² > 4` counts 1 and a point of the set counts `max_iter`.
///
/// The exact arithmetic, in plain `f64` without fused multiply-adds (Rust never contracts),
/// for other implementations to mirror bit for bit:
///
/// ```text
/// zr2 = zr * zr;  zi2 = zi * zi;
/// if zr2 + zi2 > 4.0 { stop }
/// zi = 2.0 * zr * zi + c_im;      // (2.0 * zr) * zi, then + c_im
/// zr = zr2 - zi2 + c_re;          // (zr2 - zi2) + c_re
/// ```
///
/// ```
/// use magpie_apps::mandelbrot::pixel;
/// assert_eq!(pixel(0.0, 0.0, 1000), 1000); // inside
/// assert_eq!(pixel(2.0, 2.0, 1000), 1); // |c|² = 8: escapes after the first update
/// assert_eq!(pixel(1.0, 0.0, 1000), 3); // 0 → 1 → 2 → 5
/// ```
// Not inlined: inlined into a loop over pixels, LLVM's SLP vectorizer packs `zr` and `zi`
// into one SIMD register and puts shuffles on the iteration's critical path, which made the
// image about 25% slower than the same code compiled alone (or GCC's C). A call per pixel
// costs a few ns against hundreds per pixel.
#[inline(never)]
pub fn pixel(c_re: f64, c_im: f64, max_iter: u32) -> u32 {
    let (mut zr, mut zi) = (0.0f64, 0.0f64);
    let mut n = 0;
    while n < max_iter {
        let zr2 = zr * zr;
        let zi2 = zi * zi;
        if zr2 + zi2 > 4.0 {
            break;
        }
        zi = 2.0 * zr * zi + c_im;
        zr = zr2 - zi2 + c_re;
        n += 1;
    }
    n
}

/// The image, sequentially: `width × height` escape counts, row-major.
///
/// ```
/// use magpie_apps::mandelbrot::{render_seq, Params};
/// let img = render_seq(&Params::new(3, 3, 50, 1).unwrap());
/// assert_eq!(img.len(), 9);
/// assert_eq!(img[4], 50); // c = -0.5: inside
/// ```
pub fn render_seq(p: &Params) -> Vec<u32> {
    (0..p.pixels())
        .map(|i| {
            let (re, im) = p.point(i);
            pixel(re, im, p.max_iter)
        })
        .collect()
}

/// The image, in parallel on the current pool: one loop iteration per pixel, scheduled by
/// `lp` (which keeps its history), each writing its own pixel. Equal to [`render_seq`] for
/// every schedule.
pub fn render(p: &Params, lp: &Loop) -> Vec<u32> {
    map_indexed(lp, p.pixels(), |i| {
        let (re, im) = p.point(i);
        pixel(re, im, p.max_iter)
    })
}

/// What [`run`] (or [`run_seq`]) computed over its time steps.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Summary {
    /// The number of images rendered (`steps`).
    pub steps: usize,
    /// The sum of every pixel's count over every step (the loop's total work).
    pub iterations: u64,
    /// [`checksum`] of the last image.
    pub checksum: u64,
}

/// FNV-1a (64-bit) over the counts of `image`, each as 4 little-endian bytes, in pixel
/// order: a position-sensitive fingerprint of an image.
///
/// ```
/// assert_eq!(magpie_apps::mandelbrot::checksum(&[]), 0xcbf2_9ce4_8422_2325);
/// ```
pub fn checksum(image: &[u32]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &c in image {
        for b in c.to_le_bytes() {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x0000_0100_0000_01b3);
        }
    }
    h
}

fn summarize(p: &Params, mut render_one: impl FnMut() -> Vec<u32>) -> Summary {
    let mut iterations = 0u64;
    let mut last = Vec::new();
    for _ in 0..p.steps {
        last = render_one();
        iterations += last.iter().map(|&c| u64::from(c)).sum::<u64>();
    }
    Summary {
        steps: p.steps,
        iterations,
        checksum: checksum(&last),
    }
}

/// [`render_seq`] `steps` times.
///
/// ```
/// use magpie_apps::mandelbrot::{run_seq, Params};
/// let s = run_seq(&Params::new(2, 1, 10, 3).unwrap());
/// assert_eq!(s.steps, 3);
/// assert_eq!(s.iterations, 3 * (10 + 10)); // c = -1.25 and c = 0.25: both in the set
/// ```
pub fn run_seq(p: &Params) -> Summary {
    summarize(p, || render_seq(p))
}

/// [`render`] `steps` times through the same loop `lp` (the time steps of the thesis'
/// experiments: adaptive schedules carry what they learned from one step to the next).
///
/// ```
/// use magpie::loops::{Loop, Schedule};
/// use magpie_apps::mandelbrot::{run, run_seq, Params};
/// let p = Params::new(40, 30, 100, 4).unwrap();
/// let step = Loop::new("awf-b".parse::<Schedule>().unwrap());
/// let pool = magpie::ThreadPoolBuilder::new().num_workers(2).build().unwrap();
/// assert_eq!(pool.install(|| run(&p, &step)), run_seq(&p));
/// assert_eq!(step.calls(), 4);
/// ```
pub fn run(p: &Params, lp: &Loop) -> Summary {
    summarize(p, || render(p, lp))
}

/// The colour of a pixel whose escape count is `count` (of at most `max_iter`): black for
/// the points of the set (`count >= max_iter`), otherwise a gradient from dark blue through
/// white to orange over `ln(count + 1) / ln(max_iter + 1)`, so that the many points that
/// escape quickly are still told apart.
///
/// ```
/// use magpie_apps::mandelbrot::color;
/// assert_eq!(color(1000, 1000), [0, 0, 0]);
/// assert_eq!(color(0, 1000), [0, 7, 100]);
/// assert_ne!(color(10, 1000), color(100, 1000));
/// ```
pub fn color(count: u32, max_iter: u32) -> [u8; 3] {
    if count >= max_iter {
        return [0, 0, 0];
    }
    const STOPS: [[f64; 3]; 4] = [
        [0.0, 7.0, 100.0],
        [32.0, 107.0, 203.0],
        [237.0, 255.0, 255.0],
        [255.0, 170.0, 0.0],
    ];
    let t = (f64::from(count) + 1.0).ln() / (f64::from(max_iter) + 1.0).ln();
    let x = t.clamp(0.0, 1.0) * (STOPS.len() - 1) as f64;
    let i = (x as usize).min(STOPS.len() - 2);
    let f = x - i as f64;
    let (a, b) = (STOPS[i], STOPS[i + 1]);
    [0, 1, 2].map(|k| (a[k] + (b[k] - a[k]) * f).round().clamp(0.0, 255.0) as u8)
}

/// Writes `image` (the escape counts of [`render`] or [`render_seq`] for `p`, row-major) to
/// `path` as an 8-bit RGB PNG of `p.width × p.height` pixels coloured by [`color`] (the set
/// in black). The error names the path: an image of the wrong size, a file that cannot be
/// created, or a failed write.
///
/// ```
/// use magpie_apps::mandelbrot::{render_seq, write_png, Params};
/// let p = Params::new(32, 24, 100, 1).unwrap();
/// let path = std::env::temp_dir().join(format!("magpie-doc-{}.png", std::process::id()));
/// write_png(&path, &p, &render_seq(&p)).unwrap();
/// assert!(std::fs::metadata(&path).unwrap().len() > 0);
/// std::fs::remove_file(&path).unwrap();
/// let e = write_png("/nonexistent-dir/x.png", &p, &render_seq(&p)).unwrap_err();
/// assert!(e.to_string().starts_with("/nonexistent-dir/x.png: cannot create"));
/// ```
pub fn write_png(path: impl AsRef<Path>, p: &Params, image: &[u32]) -> Result<(), InputError> {
    let path = path.as_ref();
    if image.len() != p.pixels() {
        return Err(InputError::file(
            path,
            format!(
                "the image has {} pixels, but a {} × {} image has {}",
                image.len(),
                p.width,
                p.height,
                p.pixels()
            ),
        ));
    }
    let too_large = |what: &str, v: usize| {
        u32::try_from(v)
            .map_err(|_| InputError::file(path, format!("the {what} {v} is too large for a PNG")))
    };
    let (width, height) = (too_large("width", p.width)?, too_large("height", p.height)?);
    let file = File::create(path)
        .map_err(|e| InputError::file(path, format!("cannot create the PNG file: {e}")))?;
    let failed =
        |e: png::EncodingError| InputError::file(path, format!("cannot write the PNG: {e}"));
    let mut encoder = png::Encoder::new(BufWriter::new(file), width, height);
    encoder.set_color(png::ColorType::Rgb);
    encoder.set_depth(png::BitDepth::Eight);
    let mut writer = encoder.write_header().map_err(failed)?;
    let data: Vec<u8> = image.iter().flat_map(|&c| color(c, p.max_iter)).collect();
    writer.write_image_data(&data).map_err(failed)?;
    writer.finish().map_err(failed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn png_decodes_to_the_image() {
        let p = Params::new(30, 20, 60, 1).unwrap();
        let image = render_seq(&p);
        let dir = std::env::temp_dir().join(format!("magpie-png-test-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("m.png");
        write_png(&path, &p, &image).unwrap();

        let decoder = png::Decoder::new(File::open(&path).unwrap());
        let mut reader = decoder.read_info().unwrap();
        let mut buf = vec![0; reader.output_buffer_size()];
        let info = reader.next_frame(&mut buf).unwrap();
        assert_eq!((info.width, info.height), (30, 20));
        assert_eq!(info.color_type, png::ColorType::Rgb);
        assert_eq!(info.bit_depth, png::BitDepth::Eight);
        let at = |x: usize, y: usize| {
            let i = 3 * (y * info.line_size / 3 + x);
            [buf[i], buf[i + 1], buf[i + 2]]
        };
        // The centre row crosses the set at c = -0.5 (x = 15): black; the corner escapes.
        assert_eq!(image[10 * 30 + 15], 60);
        assert_eq!(at(15, 10), [0, 0, 0]);
        assert_ne!(at(0, 0), [0, 0, 0]);
        for (i, &c) in image.iter().enumerate() {
            assert_eq!(at(i % 30, i / 30), color(c, 60), "pixel {i}");
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn png_errors_name_the_path() {
        let p = Params::new(4, 4, 10, 1).unwrap();
        let e = write_png("/nonexistent-magpie/x.png", &p, &[0; 16]).unwrap_err();
        assert_eq!(e.path, Path::new("/nonexistent-magpie/x.png"));
        let e = write_png("x.png", &p, &[0; 3]).unwrap_err();
        assert!(e.to_string().contains("has 3 pixels"), "{e}");
    }
}
