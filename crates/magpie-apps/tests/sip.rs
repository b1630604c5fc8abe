//! Subgraph isomorphism against known answers: counts worked out by hand (paths, cycles and
//! cliques into cycles and complete graphs), a pattern cut out of a seeded random target
//! (found, and the embedding checks), a clique larger than the target's ω (none), and counts
//! equal to this file's own brute-force enumerator on small random pairs; each on the
//! Sequential skeleton and on parallel skeletons with 2 workers.

use magpie::search::{self, Options, Skeleton, TaskOrder};
use magpie_apps::maxclique::{max_clique, Graph};
use magpie_apps::rng::SplitMix64;
use magpie_apps::sip::{check_embedding, Embeddings, SipSpace};

const SKELETONS: [Skeleton; 5] = [
    Skeleton::Sequential,
    Skeleton::DepthBounded { spawn_depth: 2 },
    Skeleton::Budget { backtracks: 4 },
    Skeleton::StackStealing { steal_all: false },
    Skeleton::Ordered {
        spawn_depth: 2,
        order: TaskOrder::Sequential,
    },
];

fn pool() -> magpie::ThreadPool {
    magpie::ThreadPoolBuilder::new()
        .num_workers(2)
        .build()
        .unwrap()
}

fn complete(n: usize) -> Graph {
    let mut g = Graph::new(n);
    for u in 0..n {
        for v in u + 1..n {
            g.add_edge(u, v);
        }
    }
    g
}

fn path(n: usize) -> Graph {
    let edges: Vec<(usize, usize)> = (1..n).map(|v| (v - 1, v)).collect();
    Graph::from_edges(n, &edges)
}

fn cycle(n: usize) -> Graph {
    let mut g = path(n);
    g.add_edge(n - 1, 0);
    g
}

/// The number of embeddings on every skeleton (each counted one checked by the fold), which
/// must agree; and the decision's answer on every skeleton, its embedding checked.
fn count_everywhere(p: &Graph, t: &Graph) -> u64 {
    let pool = pool();
    let space = SipSpace::new(p.clone(), t.clone()).unwrap();
    let opts = Options::default();
    let mut counts = Vec::new();
    for sk in SKELETONS {
        let out = pool.install(|| search::enumerate(&space, &Embeddings(&space), sk, &opts));
        assert_eq!(out.value.invalid, 0, "{sk}");
        counts.push(out.value.found);
        let found = pool.install(|| search::decide(&space, space.goal(), sk, &opts));
        match found.value {
            Some(node) => {
                let f = space.embedding(&node);
                check_embedding(p, t, &f).unwrap_or_else(|e| panic!("{sk}: {e}"));
            }
            None => assert_eq!(out.value.found, 0, "{sk}: none found, but some counted"),
        }
    }
    assert!(counts.iter().all(|&c| c == counts[0]), "{counts:?}");
    counts[0]
}

#[test]
fn counts_worked_out_by_hand() {
    // P3 (3 vertices) into Kn: n(n-1)(n-2).
    for n in [3u64, 4, 6] {
        assert_eq!(
            count_everywhere(&path(3), &complete(n as usize)),
            n * (n - 1) * (n - 2),
            "P3 into K{n}"
        );
    }
    // C4 into K4, K3 into K4: every injective map, 4! = 24.
    assert_eq!(count_everywhere(&cycle(4), &complete(4)), 24);
    assert_eq!(count_everywhere(&complete(3), &complete(4)), 24);
    // K4 into K3: more pattern vertices than target vertices.
    assert_eq!(count_everywhere(&complete(4), &complete(3)), 0);
    // Ck into Cn: 2n rotations and reflections if k = n, else none (Cn has no other cycle).
    for n in 3..=7u64 {
        for k in 3..=n {
            let want = if k == n { 2 * n } else { 0 };
            assert_eq!(
                count_everywhere(&cycle(k as usize), &cycle(n as usize)),
                want,
                "C{k} into C{n}"
            );
        }
    }
    // Pk into Cn for 2 <= k < n: a start and a direction, 2n.
    assert_eq!(count_everywhere(&path(4), &cycle(7)), 14);
    // One vertex into n: n; the empty pattern: one (empty) embedding.
    assert_eq!(count_everywhere(&Graph::new(1), &cycle(5)), 5);
    assert_eq!(count_everywhere(&Graph::new(0), &cycle(5)), 1);
    // K_{1,3} into the Petersen graph: 10 centres, 3! orders of their 3 neighbours.
    // Petersen: an outer 5-cycle, its spokes and the inner pentagram.
    let edges: Vec<(usize, usize)> = (0..5)
        .flat_map(|i| [(i, (i + 1) % 5), (i, i + 5), (5 + i, 5 + (i + 2) % 5)])
        .collect();
    let petersen = Graph::from_edges(10, &edges);
    let claw = Graph::from_edges(4, &[(0, 1), (0, 2), (0, 3)]);
    assert_eq!(count_everywhere(&claw, &petersen), 60);
    // Petersen has girth 5: no C3 or C4, and C5 embeds 12 · 10 = 120 times (12 5-cycles).
    assert_eq!(count_everywhere(&cycle(3), &petersen), 0);
    assert_eq!(count_everywhere(&cycle(4), &petersen), 0);
    assert_eq!(count_everywhere(&cycle(5), &petersen), 120);
}

/// A seeded random permutation of `0..n`.
fn shuffled(n: usize, rng: &mut SplitMix64) -> Vec<usize> {
    let mut v: Vec<usize> = (0..n).collect();
    for i in (1..n).rev() {
        let j = (rng.next_u64() % (i as u64 + 1)) as usize;
        v.swap(i, j);
    }
    v
}

#[test]
fn a_pattern_cut_out_of_a_random_target_is_found_on_every_skeleton() {
    let pool = pool();
    for seed in 1..=4u64 {
        let target = Graph::random(60, 0.3, seed);
        let mut rng = SplitMix64::new(seed);
        // 12 random target vertices, renumbered at random; every other edge among them kept.
        let picked: Vec<usize> = shuffled(60, &mut rng)[..12].to_vec();
        let mut pattern = Graph::new(12);
        let mut kept = 0;
        for i in 0..12 {
            for j in i + 1..12 {
                if target.adjacent(picked[i], picked[j]) {
                    kept += 1;
                    if kept % 2 == 1 {
                        pattern.add_edge(i, j);
                    }
                }
            }
        }
        assert!(
            pattern.edge_count() >= 5,
            "seed {seed}: a pattern with edges"
        );
        let space = SipSpace::new(pattern.clone(), target.clone()).unwrap();
        for sk in SKELETONS {
            let out =
                pool.install(|| search::decide(&space, space.goal(), sk, &Options::default()));
            let node = out
                .value
                .unwrap_or_else(|| panic!("seed {seed} {sk}: not found"));
            let f = space.embedding(&node);
            check_embedding(&pattern, &target, &f).unwrap_or_else(|e| panic!("{sk}: {e}"));
        }
    }
}

#[test]
fn a_clique_larger_than_omega_is_not_found() {
    for seed in [3u64, 9] {
        let target = Graph::random(30, 0.4, seed);
        let omega = max_clique(&target).len();
        assert_eq!(
            count_everywhere(&complete(omega + 1), &target),
            0,
            "seed {seed}"
        );
        // K_omega is there: at least omega! embeddings of the clique found.
        let fact: u64 = (1..=omega as u64).product();
        let c = count_everywhere(&complete(omega), &target);
        assert!(
            c >= fact && c.is_multiple_of(fact),
            "seed {seed}: {c} embeddings of K{omega}"
        );
    }
}

/// Every injective map of the pattern into the target, tried one by one.
fn brute_force(p: &Graph, t: &Graph) -> u64 {
    fn extend(p: &Graph, t: &Graph, f: &mut Vec<usize>, used: &mut [bool]) -> u64 {
        let v = f.len();
        if v == p.n() {
            return 1;
        }
        let mut total = 0;
        for w in 0..t.n() {
            if used[w] || (0..v).any(|u| p.adjacent(u, v) && !t.adjacent(f[u], w)) {
                continue;
            }
            used[w] = true;
            f.push(w);
            total += extend(p, t, f, used);
            f.pop();
            used[w] = false;
        }
        total
    }
    extend(p, t, &mut Vec::new(), &mut vec![false; t.n()])
}

#[test]
fn counts_equal_brute_force_on_small_random_pairs() {
    let mut some = 0;
    for seed in 0..24u64 {
        let np = 3 + (seed % 3) as usize;
        let nt = 5 + (seed % 4) as usize;
        let p = Graph::random(np, 0.5, 1000 + seed);
        let t = Graph::random(nt, 0.6, 2000 + seed);
        let want = brute_force(&p, &t);
        some += u64::from(want > 0);
        assert_eq!(count_everywhere(&p, &t), want, "seed {seed}");
    }
    assert!(some >= 8, "only {some} of the pairs have an embedding");
}
