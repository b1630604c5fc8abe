//! Maximum clique: ω of the repository's DIMACS instances (every file of
//! `tests/data/dimacs/`, with the sizes and ω of `tests/data/README.md`'s table), Hamming
//! graphs built from their definition (hamming10-2's ω = 512), seeded random graphs
//! against an independent Bron–Kerbosch, the decision variant, brute-force cross-checks on
//! random small graphs, the search-node type, and the DIMACS reader's error reports.

use magpie_apps::maxclique::{
    find_clique_of_size, is_clique, max_clique, max_clique_counted, parse_dimacs, read_dimacs,
    to_dimacs, CliqueNode, Graph,
};
use magpie_apps::rng::XorShift64Star;
use magpie_apps::testdata;
use std::time::Instant;

fn load(name: &str) -> Graph {
    let p = testdata::path(&format!("dimacs/{name}"));
    read_dimacs(&p).unwrap_or_else(|e| panic!("{e}"))
}

/// `(file, N, edges, ω)`: the rows of the `dimacs/` table of `tests/data/README.md`.
fn readme_rows() -> Vec<(String, usize, usize, usize)> {
    let readme = std::fs::read_to_string(testdata::path("README.md")).unwrap();
    let section = readme
        .split("## `dimacs/`")
        .nth(1)
        .expect("a dimacs section")
        .split("\n## ")
        .next()
        .unwrap();
    section
        .lines()
        .filter(|l| l.starts_with("| ") && l.contains(".clq"))
        .map(|l| {
            let cells: Vec<&str> = l.split('|').map(str::trim).collect();
            let num = |i: usize| cells[i].parse::<usize>().unwrap_or_else(|_| panic!("{l}"));
            (cells[1].to_string(), num(2), num(3), num(4))
        })
        .collect()
}

fn check_omega(name: &str, g: &Graph, n: usize, m: usize, omega: usize) {
    assert_eq!((g.n(), g.edge_count()), (n, m), "{name}: size");
    let t = Instant::now();
    let (c, nodes) = max_clique_counted(g);
    let dt = t.elapsed();
    eprintln!("{name}: ω = {} in {dt:.2?}, {nodes} nodes", c.len());
    assert!(is_clique(g, &c), "{name}: {c:?} is not a clique");
    assert_eq!(c.len(), omega, "{name}: ω");
}

/// Every DIMACS file of the test data has a row in its README, with the size it reads as
/// and the ω the solver proves; and every row has its file.
#[test]
fn every_dimacs_file_has_the_size_and_omega_of_its_readme_row() {
    let rows = readme_rows();
    let mut on_disk: Vec<String> = std::fs::read_dir(testdata::dir().join("dimacs"))
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    on_disk.sort();
    let mut named: Vec<String> = rows.iter().map(|r| r.0.clone()).collect();
    named.sort();
    assert_eq!(
        on_disk, named,
        "files in tests/data/dimacs vs the README's table"
    );
    assert!(rows.len() >= 16, "{rows:?}");
    for (name, n, m, omega) in &rows {
        check_omega(name, &load(name), *n, *m, *omega);
    }
}

/// The Hamming graph H(bits, d): the `bits`-bit words, adjacent when they differ in at
/// least `d` bits (the DIMACS definition; vertex k is the word k − 1).
fn hamming(bits: u32, d: u32) -> Graph {
    let n = 1usize << bits;
    let mut g = Graph::new(n);
    for u in 0..n {
        for v in u + 1..n {
            if (u ^ v).count_ones() >= d {
                g.add_edge(u, v);
            }
        }
    }
    g
}

/// The definition gives the shipped hamming6-2 and hamming6-4 edge for edge, and the big
/// ones their published sizes and ω: hamming8-4 (ω = 16) and hamming10-2 (ω = 512, the
/// even-weight words), which are too big to ship.
#[test]
fn hamming_graphs_from_their_definition() {
    assert_eq!(hamming(6, 2), load("hamming6-2.clq"));
    assert_eq!(hamming(6, 4), load("hamming6-4.clq"));
    check_omega("hamming8-4", &hamming(8, 4), 256, 20864, 16);
    check_omega("hamming10-2", &hamming(10, 2), 1024, 518_656, 512);
}

/// ω by Bron–Kerbosch with Tomita's pivot, on plain vertex lists: an independent reference
/// that shares nothing with the library's colouring bound.
fn bron_kerbosch_omega(g: &Graph) -> usize {
    fn expand(g: &Graph, size: usize, p: Vec<usize>, x: Vec<usize>, best: &mut usize) {
        if p.is_empty() {
            *best = (*best).max(size);
            return;
        }
        if size + p.len() <= *best {
            return;
        }
        let pivot = *p
            .iter()
            .chain(&x)
            .max_by_key(|&&u| p.iter().filter(|&&v| g.adjacent(u, v)).count())
            .unwrap();
        let (mut p, mut x) = (p, x);
        let branch: Vec<usize> = p
            .iter()
            .copied()
            .filter(|&v| !g.adjacent(pivot, v))
            .collect();
        for v in branch {
            let np = p.iter().copied().filter(|&w| g.adjacent(v, w)).collect();
            let nx = x.iter().copied().filter(|&w| g.adjacent(v, w)).collect();
            expand(g, size + 1, np, nx, best);
            p.retain(|&w| w != v);
            x.push(v);
        }
    }
    let mut best = 0;
    expand(g, 0, (0..g.n()).collect(), Vec::new(), &mut best);
    best
}

/// Seeded random graphs of a few hundred vertices (in place of the big DIMACS files): the
/// solver's ω equals the independent reference's, through a DIMACS round trip whose `p`
/// line states twice the edges (as DSJC500_5's does: the e-lines count).
#[test]
fn random_graphs_against_bron_kerbosch() {
    for (n, density, seed) in [(300, 0.5, 1), (200, 0.6, 2), (100, 0.8, 3)] {
        let g = Graph::random(n, density, seed);
        let text = to_dimacs(&g);
        let doubled = text.replacen(
            &format!("p edge {n} {}", g.edge_count()),
            &format!("p edge {n} {}", 2 * g.edge_count()),
            1,
        );
        let read = parse_dimacs(&doubled, "g.clq").unwrap();
        assert_eq!(read, g);
        let omega = bron_kerbosch_omega(&g);
        check_omega(
            &format!("G({n}, {density}) seed {seed}"),
            &read,
            n,
            g.edge_count(),
            omega,
        );
    }
}

#[test]
fn decision_variant_on_small_instances() {
    for (name, omega) in [
        ("hamming6-4.clq", 4),
        ("johnson8-2-4.clq", 4),
        ("johnson8-4-4.clq", 14),
        ("MANN_a9.clq", 16),
        ("hamming6-2.clq", 32),
        ("brock200_2.clq", 12),
        ("c-fat200-1.clq", 12),
    ] {
        let g = load(name);
        for k in [1, omega / 2, omega] {
            let c = find_clique_of_size(&g, k).unwrap_or_else(|| panic!("{name}: no {k}-clique"));
            assert_eq!(c.len(), k, "{name}");
            assert!(is_clique(&g, &c), "{name}: {c:?}");
        }
        assert_eq!(find_clique_of_size(&g, omega + 1), None, "{name}: ω + 1");
    }
}

// ---------------------------------------------------------------------------------------------
// Brute force on random small graphs
// ---------------------------------------------------------------------------------------------

fn random_graph(n: usize, density_percent: u64, rng: &mut XorShift64Star) -> Graph {
    let mut g = Graph::new(n);
    for u in 0..n {
        for v in u + 1..n {
            if rng.next_u64() % 100 < density_percent {
                g.add_edge(u, v);
            }
        }
    }
    g
}

/// ω by enumerating every vertex subset (n ≤ 20).
fn brute_force_omega(g: &Graph) -> usize {
    let n = g.n();
    let adj: Vec<u32> = (0..n)
        .map(|v| (0..n).filter(|&w| g.adjacent(v, w)).map(|w| 1 << w).sum())
        .collect();
    let mut best = 0;
    for mask in 0u32..(1 << n) {
        let size = mask.count_ones() as usize;
        if size <= best {
            continue;
        }
        let clique = (0..n)
            .filter(|&v| mask >> v & 1 == 1)
            .all(|v| mask & !(adj[v] | 1 << v) == 0);
        if clique {
            best = size;
        }
    }
    best
}

/// A depth-first branch-and-bound written only with [`CliqueNode`], as a skeleton would.
fn node_dfs(g: &Graph, node: &CliqueNode, best: &mut Vec<usize>) {
    if node.size() > best.len() {
        *best = node.clique();
    }
    for (bound, child) in node.children(g) {
        if bound <= best.len() {
            break; // bounds never increase along the children
        }
        node_dfs(g, &child, best);
    }
}

#[test]
fn random_graphs_match_brute_force() {
    let mut rng = XorShift64Star::new(2024);
    for n in 0..=20usize {
        for density in [10, 30, 50, 70, 90, 100] {
            let g = random_graph(n, density, &mut rng);
            let omega = brute_force_omega(&g);
            let c = max_clique(&g);
            assert!(is_clique(&g, &c), "n {n} d {density}: {c:?}");
            assert_eq!(c.len(), omega, "n {n} d {density}");
            let mut sorted = c.clone();
            sorted.sort_unstable();
            assert_eq!(c, sorted, "ids come back ascending");
            for k in 0..=omega {
                let d = find_clique_of_size(&g, k).expect("a k-clique for k ≤ ω");
                assert!(d.len() == k && is_clique(&g, &d), "n {n} d {density} k {k}");
            }
            assert_eq!(
                find_clique_of_size(&g, omega + 1),
                None,
                "n {n} d {density}"
            );
            let mut best = Vec::new();
            node_dfs(&g, &CliqueNode::root(&g), &mut best);
            assert_eq!(best.len(), omega, "CliqueNode search, n {n} d {density}");
            let ids: Vec<usize> = best.iter().map(|v| v + 1).collect();
            assert!(is_clique(&g, &ids));
        }
    }
}

#[test]
fn clique_node_search_on_instances() {
    for (name, omega) in [
        ("brock200_2.clq", 12),
        ("MANN_a9.clq", 16),
        ("hamming6-4.clq", 4),
    ] {
        let g = load(name);
        let mut best = Vec::new();
        node_dfs(&g, &CliqueNode::root(&g), &mut best);
        assert_eq!(best.len(), omega, "{name}");
    }
}

#[test]
fn child_bounds_are_valid() {
    // Every child's bound is at least the best clique in its subtree.
    let mut rng = XorShift64Star::new(99);
    for _ in 0..30 {
        let g = random_graph(14, 60, &mut rng);
        let root = CliqueNode::root(&g);
        for (bound, child) in root.children(&g) {
            let mut best = Vec::new();
            node_dfs(&g, &child, &mut best);
            assert!(best.len() <= bound, "{} > {bound}", best.len());
            let clique = child.clique();
            assert_eq!(clique.len(), child.size());
            assert!(child
                .candidates()
                .all(|w| clique.iter().all(|&v| g.adjacent(v, w))));
        }
    }
}

#[test]
fn degree_sort_maps_back() {
    let mut rng = XorShift64Star::new(7);
    let g = random_graph(40, 40, &mut rng);
    let (h, order) = g.sorted_by_degree();
    assert!((1..40).all(|i| h.degree(i - 1) >= h.degree(i)));
    for u in 0..40 {
        for v in 0..40 {
            assert_eq!(h.adjacent(u, v), g.adjacent(order[u], order[v]));
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Malformed input
// ---------------------------------------------------------------------------------------------

fn parse_err(text: &str) -> String {
    parse_dimacs(text, "bad.clq")
        .expect_err("should be rejected")
        .to_string()
}

#[test]
fn missing_p_line() {
    let e = parse_dimacs("c nothing here\n\n", "bad.clq").unwrap_err();
    assert_eq!(e.line, Some(2));
    assert_eq!(e.to_string(), "bad.clq:2: missing `p edge N M` line");
    assert_eq!(parse_err(""), "bad.clq:1: missing `p edge N M` line");
}

#[test]
fn duplicate_p_line() {
    assert_eq!(
        parse_err("c x\np edge 3 1\ne 1 2\np edge 3 1\n"),
        "bad.clq:4: duplicate `p` line (the first is on line 2)"
    );
}

#[test]
fn e_before_p() {
    assert_eq!(
        parse_err("c x\ne 1 2\np edge 3 1\n"),
        "bad.clq:2: `e` line before the `p` line"
    );
}

#[test]
fn vertex_out_of_range() {
    assert_eq!(
        parse_err("p edge 3 2\ne 1 2\ne 3 4\n"),
        "bad.clq:3: vertex 4 out of range 1..=3"
    );
    assert_eq!(
        parse_err("p edge 3 1\ne 0 2\n"),
        "bad.clq:2: vertex 0 out of range 1..=3"
    );
    assert_eq!(
        parse_err("p edge 0 1\ne 1 2\n"),
        "bad.clq:2: vertex 1 out of range 1..=0"
    );
}

#[test]
fn malformed_numbers() {
    assert_eq!(
        parse_err("p edge 3 1\ne 1 x\n"),
        "bad.clq:2: malformed vertex number `x`"
    );
    assert_eq!(
        parse_err("p edge 3 1\ne -1 2\n"),
        "bad.clq:2: malformed vertex number `-1`"
    );
    assert_eq!(
        parse_err("p edge 3 1\ne 1 2.0\n"),
        "bad.clq:2: malformed vertex number `2.0`"
    );
    assert_eq!(
        parse_err("p edge 99999999999999999999999 1\n"),
        "bad.clq:1: malformed vertex count `99999999999999999999999`"
    );
    assert_eq!(
        parse_err("c\np edge ten 1\n"),
        "bad.clq:2: malformed vertex count `ten`"
    );
    assert_eq!(
        parse_err("p col 3 many\n"),
        "bad.clq:1: malformed edge count `many`"
    );
}

#[test]
fn malformed_line_shapes() {
    assert_eq!(
        parse_err("p edge 3 1\ne 1\n"),
        "bad.clq:2: expected `e U V`, found `e 1`"
    );
    assert_eq!(
        parse_err("p edge 3 1\ne 1 2 3\n"),
        "bad.clq:2: expected `e U V`, found `e 1 2 3`"
    );
    assert_eq!(
        parse_err("p edge 3\n"),
        "bad.clq:1: expected `p edge N M`, found `p edge 3`"
    );
    assert_eq!(
        parse_err("p clique 3 1\n"),
        "bad.clq:1: unknown problem format `clique` (expected `edge` or `col`)"
    );
    assert_eq!(
        parse_err("p edge 100000 1\n"),
        "bad.clq:1: 100000 vertices need a 1250400000-byte adjacency matrix; \
         the limit is 65536 vertices (536870912 bytes)"
    );
}

#[test]
fn unknown_line_type() {
    assert_eq!(
        parse_err("p edge 3 1\ne 1 2\nn 1 5\n"),
        "bad.clq:3: unknown line type `n` (expected `c`, `p` or `e`)"
    );
    assert_eq!(
        parse_err("x comment\n"),
        "bad.clq:1: unknown line type `x` (expected `c`, `p` or `e`)"
    );
}

#[test]
fn self_loop() {
    assert_eq!(
        parse_err("p edge 3 2\ne 1 2\ne 2 2\n"),
        "bad.clq:3: self-loop on vertex 2"
    );
}

#[test]
fn duplicate_edges_and_wrong_m_are_harmless() {
    let g = parse_dimacs("p edge 3 7\ne 1 2\ne 2 1\ne 1 2\ne 2 3\n", "ok.clq").unwrap();
    assert_eq!((g.n(), g.edge_count()), (3, 2));
    let c = max_clique(&g);
    assert!(c.len() == 2 && is_clique(&g, &c), "{c:?}");
}

#[test]
fn unreadable_file() {
    let e = read_dimacs("/nonexistent/dir/g.clq").unwrap_err();
    assert_eq!(e.line, None);
    assert!(
        e.to_string()
            .starts_with("/nonexistent/dir/g.clq: cannot read"),
        "{e}"
    );
}

#[test]
fn garbage_never_panics() {
    let mut rng = XorShift64Star::new(31);
    let pieces = [
        "p",
        "e",
        "c",
        "edge",
        "col",
        "0",
        "1",
        "2",
        "3",
        "-1",
        "x",
        "\n",
        "\n",
        " ",
        "\r\n",
        "99999999999",
        "n",
    ];
    for _ in 0..5000 {
        let len = (rng.next_u64() % 30) as usize;
        let text: String = (0..len)
            .map(|_| pieces[(rng.next_u64() % pieces.len() as u64) as usize])
            .collect::<Vec<_>>()
            .join(" ");
        if let Ok(g) = parse_dimacs(&text, "fuzz") {
            assert!(is_clique(&g, &max_clique(&g)));
        }
    }
}
