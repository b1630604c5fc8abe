use super::*;

#[test]
fn bitset_edges() {
    let s = Bitset::full(64);
    assert_eq!(s.words(), &[u64::MAX]);
    assert_eq!(Bitset::full(65).count(), 65);
    assert_eq!(Bitset::full(0).count(), 0);
    assert!(Bitset::new(0).is_empty() && Bitset::new(0).first().is_none());
    let mut s = Bitset::new(130);
    s.insert(129);
    s.insert(64);
    assert_eq!(s.iter().collect::<Vec<_>>(), vec![64, 129]);
    s.remove(500); // out of range: no effect
    assert!(!s.contains(500));
    assert_eq!(s.capacity(), 130);
}

#[test]
fn colouring_is_proper_and_complete() {
    let mut rng = crate::rng::XorShift64Star::new(5);
    for n in [1, 10, 63, 64, 65, 130] {
        let mut g = Graph::new(n);
        for u in 0..n {
            for v in u + 1..n {
                if rng.next_u64().is_multiple_of(2) {
                    g.add_edge(u, v);
                }
            }
        }
        let mut cand = Bitset::new(n);
        for v in 0..n {
            if !rng.next_u64().is_multiple_of(3) {
                cand.insert(v);
            }
        }
        let (order, colours) = colour_order(&g, &cand);
        let mut sorted = order.clone();
        sorted.sort_unstable();
        assert_eq!(sorted, cand.iter().collect::<Vec<_>>());
        assert!(colours.windows(2).all(|w| w[0] <= w[1] && w[1] <= w[0] + 1));
        for i in 0..order.len() {
            for j in i + 1..order.len() {
                if colours[i] == colours[j] {
                    assert!(!g.adjacent(order[i], order[j]));
                }
            }
        }
    }
}

#[test]
fn children_bounds_non_increasing_and_candidates_adjacent() {
    let g = Graph::from_edges(
        6,
        &[
            (0, 1),
            (0, 2),
            (1, 2),
            (2, 3),
            (3, 4),
            (4, 5),
            (3, 5),
            (2, 4),
        ],
    );
    let root = CliqueNode::root(&g);
    let kids: Vec<_> = root.children(&g).collect();
    assert_eq!(kids.len(), 6);
    assert!(kids.windows(2).all(|w| w[0].0 >= w[1].0));
    for (_, k) in &kids {
        let v = k.clique()[0];
        assert!(k.candidates().all(|w| g.adjacent(v, w)));
    }
    let grand: Vec<_> = kids[0].1.children(&g).collect();
    assert!(grand.iter().all(|(b, k)| *b >= 1 && k.clique().len() == 2));
}

#[test]
fn searches_from_the_root_children_find_omega() {
    // Splitting at the root, as a parallel search does: the root's children, each
    // searched by max_clique_from against one shared incumbent, in order, find omega
    // and visit exactly max_clique_counted's tree.
    for seed in 1..6 {
        let g = Graph::random(60, 0.6, seed);
        let (want, want_nodes) = max_clique_counted(&g);
        let (sorted, order) = g.sorted_by_degree();
        let shared = AtomicUsize::new(0);
        let mut best: Vec<usize> = Vec::new();
        let mut nodes = 1;
        for (bound, child) in CliqueNode::root(&sorted).children(&sorted) {
            if bound <= shared.load(Ordering::Relaxed) {
                break;
            }
            let (c, n) = max_clique_from(&sorted, &child, &shared);
            nodes += n + 1;
            if let Some(c) = c {
                assert!(c.len() > best.len() && child.clique().iter().all(|v| c.contains(v)));
                best = c;
            }
        }
        let mut ids: Vec<usize> = best.iter().map(|&v| order[v] + 1).collect();
        ids.sort_unstable();
        assert!(is_clique(&g, &ids), "seed {seed}");
        assert_eq!(ids.len(), want.len(), "seed {seed}");
        assert_eq!(shared.into_inner(), want.len());
        // Sequentially, in the same order, it is the same search as max_clique_counted.
        assert_eq!(nodes, want_nodes, "seed {seed}");
    }
}

#[test]
fn reader_handles_crlf_and_trailing_spaces() {
    let g = parse_dimacs("p edge 3 2   \r\ne 1 2\r\n\r\ne 2 3\r\n", "x").unwrap();
    assert_eq!(g.edge_count(), 2);
}

#[test]
fn reader_rejects_huge_n_without_allocating() {
    let e = parse_dimacs("p edge 99999999999 1\n", "x").unwrap_err();
    assert!(e.to_string().starts_with("x:1: "), "{e}");
    assert!(e.message.contains("the limit is 65536 vertices"), "{e}");
}
