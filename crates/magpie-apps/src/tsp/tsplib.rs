//! The TSPLIB95 readers: `.tsp` instances ([`parse`], [`read`]) and `.tour` files
//! ([`parse_tour`], [`read_tour`]), with their limits checked before anything is allocated.

use super::{Instance, MAX_CITIES, MAX_COORDINATE, MAX_WEIGHT};
use crate::input::InputError;
use std::path::Path;

/// Reads a TSPLIB `.tsp` file (see [`parse`]).
///
/// ```
/// let p = magpie_apps::testdata::path("tsplib/burma14.tsp");
/// let inst = magpie_apps::tsp::read(p).unwrap();
/// assert_eq!(inst.len(), 14);
/// assert_eq!(magpie_apps::tsp::solve(&inst).length, 3323);
/// ```
pub fn read(path: impl AsRef<Path>) -> Result<Instance, InputError> {
    let path = path.as_ref();
    parse(path, &InputError::read_to_string(path)?)
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Weight {
    Euc2d,
    Ceil2d,
    Att,
    Geo,
    Explicit,
}

/// Reads the whole-line numeric entries of a section: `count` entries of `per_line` fields
/// each (`per_line == 0`: a free stream of `count` numbers across lines).
fn section(
    path: &Path,
    lines: &[&str],
    at: &mut usize,
    count: usize,
    per_line: usize,
    what: &str,
) -> Result<Vec<(usize, Vec<f64>)>, InputError> {
    let mut out: Vec<(usize, Vec<f64>)> = Vec::new();
    let mut got = 0;
    while got < count {
        let Some(line) = lines.get(*at) else {
            return Err(InputError::at(
                path,
                lines.len().max(1),
                format!("file ends early: expected {count} {what}, found {got}"),
            ));
        };
        let ln = *at + 1;
        *at += 1;
        let toks = line.split_whitespace();
        let mut nums = Vec::new();
        for t in toks {
            match t.parse::<f64>() {
                Ok(v) if v.is_finite() => nums.push(v),
                _ => {
                    return Err(InputError::at(
                        path,
                        ln,
                        format!("`{t}` is not a number (expected {count} {what}, found {got})"),
                    ))
                }
            }
        }
        if nums.is_empty() {
            continue;
        }
        if per_line > 0 {
            if nums.len() != per_line {
                return Err(InputError::at(
                    path,
                    ln,
                    format!("expected {per_line} fields, found {}", nums.len()),
                ));
            }
            got += 1;
        } else {
            got += nums.len();
            if got > count {
                return Err(InputError::at(
                    path,
                    ln,
                    format!("too many {what}: expected {count}, found {got}"),
                ));
            }
        }
        out.push((ln, nums));
    }
    Ok(out)
}

/// Parses TSPLIB text; `path` only labels errors. Errors name the line: unknown keywords or
/// keyword values, a section before DIMENSION, a missing DIMENSION, EDGE_WEIGHT_TYPE or
/// section (reported at the last line), wrong numbers of coordinates or weights, values out
/// of range ([`MAX_CITIES`], [`MAX_COORDINATE`], [`MAX_WEIGHT`]), and a file that ends early.
/// Nothing is allocated from DIMENSION before the data is there.
///
/// ```
/// use magpie_apps::tsp::parse;
/// let e = parse("x.tsp", "TYPE: TSP\nEDGE_WEIGHT_TYPE: MAN_2D\n").unwrap_err();
/// assert_eq!(e.to_string(), "x.tsp:2: unsupported EDGE_WEIGHT_TYPE `MAN_2D`");
/// let t = "DIMENSION: 3\nEDGE_WEIGHT_TYPE: EXPLICIT\nEDGE_WEIGHT_FORMAT: UPPER_ROW\n\
///          EDGE_WEIGHT_SECTION\n1 2\n4\nEOF\n";
/// assert_eq!(parse("x.tsp", t).unwrap().dist(2, 1), 4);
/// ```
pub fn parse(path: impl AsRef<Path>, text: &str) -> Result<Instance, InputError> {
    let path = path.as_ref();
    let err = |line: usize, msg: String| InputError::at(path, line, msg);
    let lines: Vec<&str> = text.lines().collect();
    let mut name = String::new();
    let mut n: Option<usize> = None;
    let mut wtype: Option<Weight> = None;
    let mut format: Option<(String, usize)> = None;
    let mut coords: Option<Vec<(f64, f64)>> = None;
    // The weights with the EDGE_WEIGHT_FORMAT they were read under.
    let mut weights: Option<(String, Vec<f64>)> = None;
    let mut at = 0;
    while at < lines.len() {
        let ln = at + 1;
        let line = lines[at].trim();
        at += 1;
        if line.is_empty() {
            continue;
        }
        let (key, value) = match line.split_once(':') {
            Some((k, v)) => (k.trim(), v.trim()),
            None => (line, ""),
        };
        let need_n = |what: &str| n.ok_or_else(|| err(ln, format!("{what} before DIMENSION")));
        match key {
            "NAME" => name = value.to_string(),
            "COMMENT" | "DISPLAY_DATA_TYPE" | "NODE_COORD_TYPE" => {}
            "TYPE" => {
                if value != "TSP" {
                    return Err(err(ln, format!("unsupported TYPE `{value}` (only TSP)")));
                }
            }
            "DIMENSION" => match value.parse::<usize>() {
                Ok(d) if d > MAX_CITIES => {
                    return Err(err(
                        ln,
                        format!(
                            "DIMENSION {d} needs {}; the limit is {MAX_CITIES} cities ({} bytes)",
                            matrix(d),
                            matrix_bytes(MAX_CITIES).unwrap_or(u128::MAX)
                        ),
                    ))
                }
                Ok(_) if n.is_some() => return Err(err(ln, "DIMENSION given twice".into())),
                Ok(d) if d > 0 => n = Some(d),
                _ => return Err(err(ln, format!("bad DIMENSION `{value}`"))),
            },
            "EDGE_WEIGHT_TYPE" => {
                wtype = Some(match value {
                    "EUC_2D" => Weight::Euc2d,
                    "CEIL_2D" => Weight::Ceil2d,
                    "ATT" => Weight::Att,
                    "GEO" => Weight::Geo,
                    "EXPLICIT" => Weight::Explicit,
                    _ => return Err(err(ln, format!("unsupported EDGE_WEIGHT_TYPE `{value}`"))),
                })
            }
            "EDGE_WEIGHT_FORMAT" => match value {
                "FUNCTION" | "FULL_MATRIX" | "UPPER_ROW" | "LOWER_ROW" | "UPPER_DIAG_ROW"
                | "LOWER_DIAG_ROW" => format = Some((value.to_string(), ln)),
                _ => return Err(err(ln, format!("unsupported EDGE_WEIGHT_FORMAT `{value}`"))),
            },
            "NODE_COORD_SECTION" => {
                let n = need_n("NODE_COORD_SECTION")?;
                let rows = section(path, &lines, &mut at, n, 3, "coordinate lines")?;
                let mut c = vec![None; n];
                for (ln, r) in rows {
                    let id = r[0];
                    if id.fract() != 0.0 || id < 1.0 || id > n as f64 {
                        return Err(err(ln, format!("city id {id} out of range 1..={n}")));
                    }
                    if r[1].abs() > MAX_COORDINATE || r[2].abs() > MAX_COORDINATE {
                        return Err(err(
                            ln,
                            format!("coordinate beyond ±{MAX_COORDINATE:e} (MAX_COORDINATE)"),
                        ));
                    }
                    let slot = &mut c[id as usize - 1];
                    if slot.is_some() {
                        return Err(err(ln, format!("city {id} given twice")));
                    }
                    *slot = Some((r[1], r[2]));
                }
                coords = Some(c.into_iter().map(Option::unwrap).collect());
            }
            "DISPLAY_DATA_SECTION" => {
                let n = need_n("DISPLAY_DATA_SECTION")?;
                section(path, &lines, &mut at, n, 3, "display lines")?;
            }
            "EDGE_WEIGHT_SECTION" => {
                let n = need_n("EDGE_WEIGHT_SECTION")?;
                let Some((f, _)) = &format else {
                    return Err(err(
                        ln,
                        "EDGE_WEIGHT_SECTION without EDGE_WEIGHT_FORMAT".into(),
                    ));
                };
                let count = match f.as_str() {
                    "FULL_MATRIX" => n * n,
                    "UPPER_ROW" | "LOWER_ROW" => n * (n - 1) / 2,
                    "UPPER_DIAG_ROW" | "LOWER_DIAG_ROW" => n * (n + 1) / 2,
                    _ => {
                        return Err(err(
                            ln,
                            format!("EDGE_WEIGHT_SECTION with EDGE_WEIGHT_FORMAT {f}"),
                        ))
                    }
                };
                let rows = section(path, &lines, &mut at, count, 0, "weights")?;
                let mut all = Vec::new(); // grows with the data, not with DIMENSION
                for (ln, r) in rows {
                    for w in r {
                        if w.fract() != 0.0 || w < 0.0 {
                            return Err(err(
                                ln,
                                format!("weight {w} is not a non-negative integer"),
                            ));
                        }
                        if w > MAX_WEIGHT {
                            return Err(err(
                                ln,
                                format!("weight {w} is more than {MAX_WEIGHT} (MAX_WEIGHT)"),
                            ));
                        }
                        all.push(w);
                    }
                }
                weights = Some((f.clone(), all));
            }
            "EOF" => break,
            _ if key.starts_with(|c: char| c.is_ascii_digit() || c == '-') => {
                return Err(err(
                    ln,
                    format!("unexpected data `{line}` (too many entries in the section above?)"),
                ))
            }
            _ => return Err(err(ln, format!("unknown keyword `{key}`"))),
        }
    }
    // A missing part is reported at the last line, where it was still expected.
    let missing = |what: &str| err(lines.len().max(1), format!("missing {what}"));
    let n = n.ok_or_else(|| missing("DIMENSION"))?;
    let wtype = wtype.ok_or_else(|| missing("EDGE_WEIGHT_TYPE"))?;
    // Every section is there (so DIMENSION is backed by data) before the matrix is allocated.
    let data = if wtype == Weight::Explicit {
        let (f, w) = weights.ok_or_else(|| missing("EDGE_WEIGHT_SECTION"))?;
        Data::Weights(f, w)
    } else {
        if let Some((f, ln)) = &format {
            if f != "FUNCTION" {
                return Err(err(
                    *ln,
                    format!("EDGE_WEIGHT_FORMAT {f} needs EDGE_WEIGHT_TYPE EXPLICIT"),
                ));
            }
        }
        Data::Coords(coords.ok_or_else(|| missing("NODE_COORD_SECTION"))?)
    };
    let mut d = vec![0i64; n * n];
    match data {
        Data::Weights(f, w) => {
            let mut it = w.into_iter().map(|x| x as i64);
            for i in 0..n {
                let js: Box<dyn Iterator<Item = usize>> = match f.as_str() {
                    "FULL_MATRIX" => Box::new(0..n),
                    "UPPER_ROW" => Box::new(i + 1..n),
                    "LOWER_ROW" => Box::new(0..i),
                    "UPPER_DIAG_ROW" => Box::new(i..n),
                    _ => Box::new(0..=i), // LOWER_DIAG_ROW
                };
                for j in js {
                    let v = it.next().expect("counted");
                    if f == "FULL_MATRIX" {
                        d[i * n + j] = v;
                    } else if i != j {
                        d[i * n + j] = v;
                        d[j * n + i] = v;
                    }
                }
            }
            for i in 0..n {
                d[i * n + i] = 0;
            }
        }
        Data::Coords(c) => {
            for i in 0..n {
                for j in 0..n {
                    if i != j {
                        d[i * n + j] = coord_dist(wtype, c[i], c[j]);
                    }
                }
            }
        }
    }
    Ok(Instance {
        name,
        n,
        d,
        pi: Vec::new(),
    }
    .with_penalties())
}

/// Where the distances come from.
enum Data {
    /// Explicit weights, in this EDGE_WEIGHT_FORMAT.
    Weights(String, Vec<f64>),
    /// City coordinates.
    Coords(Vec<(f64, f64)>),
}

/// The bytes of the distance matrix of `n` cities (`None` beyond `u128`: a DIMENSION near
/// `usize::MAX` is untrusted input, not an overflow panic).
fn matrix_bytes(n: usize) -> Option<u128> {
    (n as u128).checked_mul(n as u128)?.checked_mul(8)
}

/// "a 800-byte distance matrix", for an error message.
fn matrix(n: usize) -> String {
    match matrix_bytes(n) {
        Some(b) => format!("a {b}-byte distance matrix"),
        None => "a distance matrix of more than 2^128 bytes".into(),
    }
}

/// TSPLIB's distance function for the coordinate types.
fn coord_dist(w: Weight, a: (f64, f64), b: (f64, f64)) -> i64 {
    let (xd, yd) = (a.0 - b.0, a.1 - b.1);
    match w {
        Weight::Euc2d => ((xd * xd + yd * yd).sqrt() + 0.5) as i64,
        Weight::Ceil2d => (xd * xd + yd * yd).sqrt().ceil() as i64,
        Weight::Att => {
            let r = ((xd * xd + yd * yd) / 10.0).sqrt();
            let t = (r + 0.5) as i64;
            if (t as f64) < r {
                t + 1
            } else {
                t
            }
        }
        Weight::Geo => {
            // TSPLIB's truncated value, on purpose: the published distances use it.
            #[allow(clippy::approx_constant)]
            const PI: f64 = 3.141592;
            const RRR: f64 = 6378.388;
            let rad = |x: f64| {
                let deg = x.trunc();
                let min = x - deg;
                PI * (deg + 5.0 * min / 3.0) / 180.0
            };
            let (lat_a, lon_a, lat_b, lon_b) = (rad(a.0), rad(a.1), rad(b.0), rad(b.1));
            let q1 = (lon_a - lon_b).cos();
            let q2 = (lat_a - lat_b).cos();
            let q3 = (lat_a + lat_b).cos();
            (RRR * (0.5 * ((1.0 + q1) * q2 - (1.0 - q1) * q3)).acos() + 1.0) as i64
        }
        Weight::Explicit => unreachable!("explicit weights have no coordinates"),
    }
}

/// Reads a TSPLIB `.tour` file's TOUR_SECTION (1-based ids up to the closing `-1`).
///
/// ```
/// use magpie_apps::{testdata, tsp};
/// let inst = tsp::read(testdata::path("tsplib/ulysses16.tsp")).unwrap();
/// let tour = tsp::read_tour(testdata::path("tsplib/ulysses16.opt.tour")).unwrap();
/// assert_eq!(tsp::tour_length(&inst, &tour), 6859);
/// ```
pub fn read_tour(path: impl AsRef<Path>) -> Result<Vec<usize>, InputError> {
    let path = path.as_ref();
    parse_tour(path, &InputError::read_to_string(path)?)
}

/// Parses a TSPLIB tour (see [`read_tour`]); `path` only labels errors.
///
/// ```
/// let t = magpie_apps::tsp::parse_tour("t", "TYPE: TOUR\nTOUR_SECTION\n1 3\n2\n-1\nEOF\n");
/// assert_eq!(t.unwrap(), vec![1, 3, 2]);
/// ```
pub fn parse_tour(path: impl AsRef<Path>, text: &str) -> Result<Vec<usize>, InputError> {
    let path = path.as_ref();
    let mut in_tour = false;
    let mut tour = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let line = line.trim();
        if !in_tour {
            if line == "TOUR_SECTION" {
                in_tour = true;
            }
            continue;
        }
        for t in line.split_whitespace() {
            match t.parse::<i64>() {
                Ok(-1) => return Ok(tour),
                Ok(v) if v >= 1 => tour.push(v as usize),
                _ => return Err(InputError::at(path, i + 1, format!("bad city id `{t}`"))),
            }
        }
    }
    Err(InputError::at(
        path,
        text.lines().count().max(1),
        if in_tour {
            "file ends before the closing -1"
        } else {
            "no TOUR_SECTION"
        },
    ))
}
