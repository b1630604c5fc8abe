//! `sssp`: the prioritised parallel SSSP gives Dijkstra's distances on random and grid graphs
//! of several sizes and seeds, with 1, 2 and 4 workers, with and without priorities; on one
//! worker with priorities it relaxes each reachable vertex exactly once (Dijkstra's count),
//! and never more than without priorities.

use magpie::ThreadPoolBuilder;
use magpie_apps::sssp::{
    check, dijkstra, instance, reachable, sssp, Graph, GraphKind, Priorities, UNREACHABLE,
};

fn pool(n: usize) -> magpie::ThreadPool {
    ThreadPoolBuilder::new().num_workers(n).build().unwrap()
}

const CASES: [(GraphKind, usize, u64); 8] = [
    (GraphKind::Random, 200, 1),
    (GraphKind::Random, 1_000, 11),
    (GraphKind::Random, 3_000, 2),
    (GraphKind::Random, 20_000, 3),
    (GraphKind::Grid, 100, 4),
    (GraphKind::Grid, 900, 14),
    (GraphKind::Grid, 2_500, 5),
    (GraphKind::Grid, 40_000, 6),
];

/// The largest graphs run without priorities: a LIFO label-correcting search relaxes
/// vertices very many times (one worker, debug build: 2.2 million relaxations for the random
/// graph of 3,000 vertices, 11 million for the 50 × 50 grid), which is Pheet's point but too
/// slow for a test.
const OFF_MAX_VERTICES: usize = 1_000;

/// The modes to run on `g`.
fn modes(g: &Graph) -> &'static [Priorities] {
    if g.n() <= OFF_MAX_VERTICES {
        &[Priorities::On, Priorities::Off]
    } else {
        &[Priorities::On]
    }
}

#[test]
fn distances_equal_dijkstra() {
    for n in [1, 2, 4] {
        let pool = pool(n);
        for (kind, size, seed) in CASES {
            let g = instance(kind, size, seed).unwrap();
            for &prio in modes(&g) {
                let run = pool.install(|| sssp(&g, 0, prio));
                if let Err(e) = check(&g, 0, &run) {
                    panic!("{kind} {size} seed {seed}, {n} workers, {prio:?}: {e}");
                }
                assert!(run.relaxations >= reachable(&run.distances));
                assert!(run.tasks >= run.relaxations);
                eprintln!(
                    "{kind:>6} n={:>6} seed={seed} workers={n} {prio:?}: relaxations {} \
                     (Dijkstra {}), tasks {}",
                    g.n(),
                    run.relaxations,
                    reachable(&run.distances),
                    run.tasks
                );
            }
        }
    }
}

#[test]
fn one_worker_with_priorities_relaxes_like_dijkstra() {
    let pool = pool(1);
    for (kind, size, seed) in CASES {
        let g = instance(kind, size, seed).unwrap();
        let with = pool.install(|| sssp(&g, 0, Priorities::On));
        let dijkstra_count = reachable(&dijkstra(&g, 0));
        assert_eq!(
            with.relaxations, dijkstra_count,
            "{kind} {size} seed {seed}"
        );
        if modes(&g).len() < 2 {
            continue;
        }
        let without = pool.install(|| sssp(&g, 0, Priorities::Off));
        assert!(
            without.relaxations >= with.relaxations,
            "{kind} {size} seed {seed}: {} without priorities, {} with",
            without.relaxations,
            with.relaxations
        );
    }
}

#[test]
fn a_hand_checked_graph() {
    // 0 -1- 1 -1- 2, and a direct 0-2 edge of 5; 3 is isolated.
    let g = Graph::from_edges(4, &[(0, 1, 1), (1, 2, 1), (0, 2, 5)]);
    let pool = pool(2);
    for prio in [Priorities::On, Priorities::Off] {
        let run = pool.install(|| sssp(&g, 0, prio));
        assert_eq!(run.distances, [0, 1, 2, UNREACHABLE]);
        let from2 = pool.install(|| sssp(&g, 2, prio));
        assert_eq!(from2.distances, [2, 1, 0, UNREACHABLE]);
    }
}

#[test]
fn generators_are_deterministic_and_seeded() {
    for kind in GraphKind::ALL {
        let a = instance(kind, 1_000, 9).unwrap();
        assert_eq!(a, instance(kind, 1_000, 9).unwrap());
        assert_ne!(a, instance(kind, 1_000, 10).unwrap());
    }
    // Every grid vertex is reachable; its corner is at least 2·(side-1) unit steps away.
    let g = instance(GraphKind::Grid, 10_000, 1).unwrap();
    let d = dijkstra(&g, 0);
    assert_eq!(reachable(&d), 10_000);
    assert!(d[9_999] >= 2 * 99);
    for bad in [0, 1] {
        let e = instance(GraphKind::Random, bad, 1).unwrap_err().to_string();
        assert_eq!(
            e,
            format!("--size: an SSSP graph needs 2 to 67108864 vertices (got {bad})")
        );
    }
}
