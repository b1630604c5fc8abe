//! The DIMACS ASCII clique format: [`parse_dimacs`] / [`read_dimacs`] read it (with the
//! vertex limit checked before the adjacency matrix is allocated), [`to_dimacs`] writes it.

use super::{Graph, MAX_VERTICES};
use crate::input::InputError;
use std::path::Path;

/// The graph as DIMACS ASCII text (`p edge N M`, then one `e U V` line per edge with
/// `U < V`, vertices numbered from 1), which [`parse_dimacs`] reads back as the same graph.
///
/// ```
/// use magpie_apps::maxclique::{parse_dimacs, to_dimacs, Graph};
/// let g = Graph::from_edges(3, &[(0, 1), (2, 1)]);
/// assert_eq!(to_dimacs(&g), "p edge 3 2\ne 1 2\ne 2 3\n");
/// assert_eq!(parse_dimacs(&to_dimacs(&g), "g.clq").unwrap(), g);
/// ```
pub fn to_dimacs(g: &Graph) -> String {
    use std::fmt::Write as _;
    let mut text = format!("p edge {} {}\n", g.n(), g.edge_count());
    for u in 0..g.n() {
        for v in g.neighbours(u).iter().filter(|&v| v > u) {
            let _ = writeln!(text, "e {} {}", u + 1, v + 1);
        }
    }
    text
}

/// Reads a DIMACS ASCII clique file (see [`parse_dimacs`]); errors name the file and line.
///
/// ```
/// let p = magpie_apps::testdata::path("dimacs/johnson8-2-4.clq");
/// let g = magpie_apps::maxclique::read_dimacs(&p).unwrap();
/// assert_eq!((g.n(), g.edge_count()), (28, 210));
/// ```
pub fn read_dimacs(path: impl AsRef<Path>) -> Result<Graph, InputError> {
    let path = path.as_ref();
    let text = InputError::read_to_string(path)?;
    parse_dimacs(&text, path)
}

/// Parses DIMACS ASCII clique text; `name` is the file named in errors.
///
/// Accepted: comment lines (starting with `c`) and blank lines anywhere, exactly one `p edge N M` (or
/// `p col N M`) line before any edge, then `e U V` lines with `1 <= U, V <= N`, `U != V`.
/// The edges are counted rather than trusting `M` (which must still be a number); duplicate
/// edges are harmless. Every other deviation is an [`InputError`] naming `name` and the line
/// (a file with no `p` line at all is reported at its last line).
///
/// ```
/// use magpie_apps::maxclique::parse_dimacs;
/// let g = parse_dimacs("c tiny\np col 3 99\ne 1 2\ne 2 1\n", "t.clq").unwrap();
/// assert_eq!((g.n(), g.edge_count()), (3, 1));
/// let e = parse_dimacs("p edge 3 1\ne 1 4\n", "t.clq").unwrap_err();
/// assert_eq!(e.to_string(), "t.clq:2: vertex 4 out of range 1..=3");
/// ```
pub fn parse_dimacs(text: &str, name: impl AsRef<Path>) -> Result<Graph, InputError> {
    parse_dimacs_with_limit(text, name, MAX_VERTICES)
}

/// [`parse_dimacs`] with another vertex limit than [`MAX_VERTICES`] (at most `max_vertices`
/// vertices, checked before the `N²/8`-byte adjacency matrix is allocated); the error names
/// the line, the bytes needed and the limit.
///
/// ```
/// use magpie_apps::maxclique::parse_dimacs_with_limit;
/// assert_eq!(parse_dimacs_with_limit("p edge 3 0\n", "t.clq", 3).unwrap().n(), 3);
/// let e = parse_dimacs_with_limit("p edge 4000000000 1\n", "t.clq", 3).unwrap_err();
/// assert_eq!(
///     e.to_string(),
///     "t.clq:1: 4000000000 vertices need a 2000000000000000000-byte adjacency matrix; \
///      the limit is 3 vertices (24 bytes)"
/// );
/// ```
pub fn parse_dimacs_with_limit(
    text: &str,
    name: impl AsRef<Path>,
    max_vertices: usize,
) -> Result<Graph, InputError> {
    let name = name.as_ref();
    let mut graph: Option<(Graph, usize)> = None; // the graph and the line of its `p` line
    for (idx, raw) in text.lines().enumerate() {
        let line_no = idx + 1;
        let err = |msg: String| InputError::at(name, line_no, msg);
        let mut tokens = raw.split_whitespace();
        let Some(kind) = tokens.next() else {
            continue; // blank line
        };
        if kind.starts_with('c') {
            continue; // comment (`c …`, also written `c---…` in some files)
        }
        match kind {
            "p" => {
                if let Some((_, first)) = graph {
                    return Err(err(format!(
                        "duplicate `p` line (the first is on line {first})"
                    )));
                }
                let fields: Vec<&str> = tokens.collect();
                if fields.len() != 3 {
                    return Err(err(format!(
                        "expected `p edge N M`, found `{}`",
                        raw.trim()
                    )));
                }
                if fields[0] != "edge" && fields[0] != "col" {
                    return Err(err(format!(
                        "unknown problem format `{}` (expected `edge` or `col`)",
                        fields[0]
                    )));
                }
                let n = parse_number(fields[1], "vertex count").map_err(&err)?;
                parse_number(fields[2], "edge count").map_err(&err)?;
                if n > max_vertices {
                    return Err(err(format!(
                        "{n} vertices need a {}-byte adjacency matrix; the limit is \
                         {max_vertices} vertices ({} bytes)",
                        matrix_bytes(n),
                        matrix_bytes(max_vertices)
                    )));
                }
                graph = Some((Graph::new(n), line_no));
            }
            "e" => {
                let Some((g, _)) = graph.as_mut() else {
                    return Err(err("`e` line before the `p` line".to_string()));
                };
                let fields: Vec<&str> = tokens.collect();
                if fields.len() != 2 {
                    return Err(err(format!("expected `e U V`, found `{}`", raw.trim())));
                }
                let n = g.n();
                let mut ends = [0usize; 2];
                for (end, field) in ends.iter_mut().zip(&fields) {
                    let v = parse_number(field, "vertex number").map_err(&err)?;
                    if v == 0 || v > n {
                        return Err(err(format!("vertex {v} out of range 1..={n}")));
                    }
                    *end = v;
                }
                if ends[0] == ends[1] {
                    return Err(err(format!("self-loop on vertex {}", ends[0])));
                }
                g.add_edge(ends[0] - 1, ends[1] - 1);
            }
            other => {
                return Err(err(format!(
                    "unknown line type `{other}` (expected `c`, `p` or `e`)"
                )))
            }
        }
    }
    match graph {
        Some((g, _)) => Ok(g),
        None => Err(InputError::at(
            name,
            text.lines().count().max(1),
            "missing `p edge N M` line",
        )),
    }
}

/// The bytes of the bitset adjacency matrix of `n` vertices (`n` rows of `⌈n/64⌉` words).
fn matrix_bytes(n: usize) -> u128 {
    n as u128 * n.div_ceil(64) as u128 * 8
}

fn parse_number(s: &str, what: &str) -> Result<usize, String> {
    s.parse::<usize>()
        .map_err(|_| format!("malformed {what} `{s}`"))
}
