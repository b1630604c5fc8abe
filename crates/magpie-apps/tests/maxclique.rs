//! Maximum clique: ω of the shared DIMACS instances (values from
//! `shared/instances/README.md`), the decision variant, brute-force cross-checks on random
//! small graphs, the search-node type, and the DIMACS reader's error reports.

use magpie_apps::maxclique::{
    find_clique_of_size, is_clique, max_clique, max_clique_counted, parse_dimacs, read_dimacs,
    CliqueNode, Graph,
};
use magpie_apps::rng::XorShift64Star;
use std::time::Instant;

fn load(name: &str) -> Graph {
    let p = magpie_apps::shared::path(&format!("instances/dimacs/{name}"));
    read_dimacs(&p).unwrap_or_else(|e| panic!("{e}"))
}

/// `(file, N, edges (e-lines), ω)` from the README table, for the instances marked checked
/// whose sequential solve takes at most a few seconds in release.
const FAST: &[(&str, usize, usize, usize)] = &[
    ("brock200_1.clq", 200, 14834, 21),
    ("brock200_2.clq", 200, 9876, 12),
    ("brock200_3.clq", 200, 12048, 15),
    ("brock200_4.clq", 200, 13089, 17),
    ("C125.9.clq", 125, 6963, 34),
    ("hamming6-2.clq", 64, 1824, 32),
    ("hamming6-4.clq", 64, 704, 4),
    ("johnson8-2-4.clq", 28, 210, 4),
    ("johnson8-4-4.clq", 70, 1855, 14),
    ("MANN_a9.clq", 45, 918, 16),
    ("san200_0.7_1.clq", 200, 13930, 30),
    ("sanr200_0.7.clq", 200, 13868, 18),
    ("c-fat200-1.clq", 200, 1534, 12),
    ("p_hat300-1.clq", 300, 10933, 8),
    ("p_hat500-1.clq", 500, 31569, 9),
    ("p_hat700-1.clq", 700, 60999, 11),
];

/// Checked instances that take a few tenths of a second to a few seconds each.
const MEDIUM: &[(&str, usize, usize, usize)] = &[
    ("san200_0.9_2.clq", 200, 17910, 60),
    ("gen200_p0.9_55.clq", 200, 17910, 55),
    ("p_hat1000-1.clq", 1000, 122253, 10),
    ("johnson16-2-4.clq", 120, 5460, 8),
    ("MANN_a27.clq", 378, 70551, 126),
    ("hamming10-2.clq", 1024, 518656, 512),
];

fn check_omega(name: &str, n: usize, m: usize, omega: usize) {
    let g = load(name);
    assert_eq!((g.n(), g.edge_count()), (n, m), "{name}: size");
    let t = Instant::now();
    let (c, nodes) = max_clique_counted(&g);
    let dt = t.elapsed();
    eprintln!("{name}: ω = {} in {dt:.2?}, {nodes} nodes", c.len());
    assert!(is_clique(&g, &c), "{name}: {c:?} is not a clique");
    assert_eq!(c.len(), omega, "{name}: ω");
}

#[test]
fn omega_of_fast_checked_instances() {
    for &(name, n, m, omega) in FAST {
        check_omega(name, n, m, omega);
    }
}

#[test]
fn omega_of_medium_checked_instances() {
    for &(name, n, m, omega) in MEDIUM {
        check_omega(name, n, m, omega);
    }
}

#[test]
fn omega_of_dsjc500_5() {
    // Its `p` line says 125248 edges; the 62624 e-lines are what counts.
    check_omega("DSJC500_5.clq", 500, 62624, 13);
}

/// `(file, N, edges (e-lines))` for every file in `dimacs/`, from the README table.
const ALL_SIZES: &[(&str, usize, usize)] = &[
    ("brock200_1.clq", 200, 14834),
    ("brock200_2.clq", 200, 9876),
    ("brock200_3.clq", 200, 12048),
    ("brock200_4.clq", 200, 13089),
    ("brock400_1.clq", 400, 59723),
    ("brock400_3.clq", 400, 59681),
    ("brock800_1.clq", 800, 207505),
    ("brock800_2.clq", 800, 208166),
    ("brock800_3.clq", 800, 207333),
    ("brock800_4.clq", 800, 207643),
    ("C125.9.clq", 125, 6963),
    ("C250.9.clq", 250, 27984),
    ("keller5.clq", 776, 225990),
    ("hamming6-2.clq", 64, 1824),
    ("hamming6-4.clq", 64, 704),
    ("hamming10-2.clq", 1024, 518656),
    ("johnson8-2-4.clq", 28, 210),
    ("johnson8-4-4.clq", 70, 1855),
    ("johnson16-2-4.clq", 120, 5460),
    ("MANN_a9.clq", 45, 918),
    ("MANN_a27.clq", 378, 70551),
    ("MANN_a45.clq", 1035, 533115),
    ("p_hat300-1.clq", 300, 10933),
    ("p_hat500-1.clq", 500, 31569),
    ("p_hat700-1.clq", 700, 60999),
    ("p_hat1000-1.clq", 1000, 122253),
    ("san200_0.7_1.clq", 200, 13930),
    ("san200_0.9_2.clq", 200, 17910),
    ("sanr200_0.7.clq", 200, 13868),
    ("sanr400_0.7.clq", 400, 55869),
    ("gen200_p0.9_55.clq", 200, 17910),
    ("gen400_p0.9_55.clq", 400, 71820),
    ("c-fat200-1.clq", 200, 1534),
    ("DSJC500_5.clq", 500, 62624),
    ("DSJC1000_5.clq", 1000, 249826),
    ("frb30-15-1.mis", 450, 17827),
    ("frb30-15-1.clq", 450, 83198),
];

#[test]
fn every_instance_reads_with_the_published_size() {
    let dir = magpie_apps::shared::path("instances/dimacs");
    let on_disk = std::fs::read_dir(dir).unwrap().count();
    assert_eq!(on_disk, ALL_SIZES.len(), "files in dimacs/ vs the table");
    for &(name, n, m) in ALL_SIZES {
        let g = load(name);
        // DSJC*: the `p` line says 2·M; the e-lines are what counts.
        assert_eq!((g.n(), g.edge_count()), (n, m), "{name}");
    }
}

#[test]
fn frb_mis_is_the_complement_of_frb_clq() {
    // The .mis file has CRLF line ends and trailing spaces on its `p` line.
    assert_eq!(load("frb30-15-1.mis").complement(), load("frb30-15-1.clq"));
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
