//! The PBBS graph and geometry kernels (`magpie_apps::pbbs`: BFS, back-forward BFS, maximal
//! matching, convex hull, all nearest neighbours) against their checkers, on several generators, sizes and
//! seeds, on `Sequential` and on magpie pools of 1, 2 and 4 workers with the chase-lev and
//! lcws-signal deques (and on rayon and chili when those features are on). Each kernel's
//! result is unique by construction, so every runtime must also give the same digest as
//! `Sequential`.

use magpie::{ThreadPool, ThreadPoolBuilder};
use magpie_apps::join::{Join, Magpie, Sequential};
use magpie_apps::pbbs::backforward_bfs::{self, Steps, ALPHA, BETA};
use magpie_apps::pbbs::graph_gen::{self, Graph, GraphKind, NONE};
use magpie_apps::pbbs::point_gen::{Point, PointKind};
use magpie_apps::pbbs::{bfs, hull, matching, neighbours};
use magpie_apps::registry::KernelId;

const DEQUES: [&str; 2] = ["chase-lev", "lcws-signal"];
const WORKERS: [usize; 3] = [1, 2, 4];

/// Every magpie pool the kernels run on, with its name.
fn pools() -> Vec<(String, ThreadPool)> {
    let mut out = Vec::new();
    for deque in DEQUES {
        for workers in WORKERS {
            let pool = ThreadPoolBuilder::new()
                .num_workers(workers)
                .deque(deque)
                .build()
                .unwrap();
            out.push((format!("{deque} × {workers}"), pool));
        }
    }
    out
}

/// `run` on `Sequential`, inside every magpie pool on `Magpie`, and on rayon (2 threads)
/// and chili when those features are on: each result with its runtime's name, sequential
/// first.
fn every_runtime<R: Send>(run: impl Fn(&mut dyn Kernels) -> R + Sync) -> Vec<(String, R)> {
    let mut out = vec![("sequential".to_string(), run(&mut Sequential))];
    for (name, pool) in pools() {
        out.push((name, pool.install(|| run(&mut Magpie))));
    }
    #[cfg(feature = "rayon")]
    {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(2)
            .build()
            .unwrap();
        out.push((
            "rayon × 2".into(),
            pool.install(|| run(&mut magpie_apps::join::Rayon)),
        ));
    }
    #[cfg(feature = "chili")]
    {
        let pool = chili::ThreadPool::new();
        out.push((
            "chili".into(),
            run(&mut magpie_apps::join::Chili::new(pool.scope())),
        ));
    }
    out
}

/// The kernels behind one `Join` type, so that a test can run them on any runtime.
trait Kernels {
    fn bfs(&mut self, g: &Graph, source: u32) -> bfs::Bfs;
    fn backforward_bfs(
        &mut self,
        g: &Graph,
        source: u32,
        alpha: usize,
        beta: usize,
    ) -> (bfs::Bfs, Steps);
    fn kernel_digest(&mut self, input: &mut magpie_apps::registry::KernelInput) -> u64;
    fn matching(&mut self, e: &matching::EdgeList) -> Vec<u32>;
    fn hull(&mut self, pts: &[Point]) -> Vec<u32>;
    fn neighbours(&mut self, pts: &[Point]) -> Vec<u32>;
}

impl<J: Join> Kernels for J {
    fn bfs(&mut self, g: &Graph, source: u32) -> bfs::Bfs {
        bfs::bfs(self, g, source)
    }
    fn backforward_bfs(
        &mut self,
        g: &Graph,
        source: u32,
        alpha: usize,
        beta: usize,
    ) -> (bfs::Bfs, Steps) {
        backforward_bfs::backforward_bfs_with(self, g, source, alpha, beta)
    }
    fn kernel_digest(&mut self, input: &mut magpie_apps::registry::KernelInput) -> u64 {
        input.prepare();
        let ret = input.run(self);
        input.digest(ret).unwrap()
    }
    fn matching(&mut self, e: &matching::EdgeList) -> Vec<u32> {
        matching::maximal_matching(self, e)
    }
    fn hull(&mut self, pts: &[Point]) -> Vec<u32> {
        hull::convex_hull(self, pts)
    }
    fn neighbours(&mut self, pts: &[Point]) -> Vec<u32> {
        neighbours::all_nearest(self, pts)
    }
}

/// Every generator at sizes 1, 50 and 3000, two seeds.
fn graphs() -> Vec<(String, Graph)> {
    let mut out = Vec::new();
    for kind in GraphKind::ALL {
        for (size, seed) in [(1, 1), (50, 2), (3000, 3), (3000, 4)] {
            out.push((
                format!("{kind} size {size} seed {seed}"),
                bfs::input(kind, size, seed).unwrap(),
            ));
        }
    }
    out
}

#[test]
fn bfs_matches_the_sequential_levels_on_every_runtime() {
    for (what, g) in graphs() {
        let n = g.num_vertices() as u32;
        for source in [0, n / 2, n - 1] {
            let results = every_runtime(|k| k.bfs(&g, source));
            let want = bfs::digest(&results[0].1);
            for (runtime, r) in &results {
                bfs::check(&g, source, r)
                    .unwrap_or_else(|e| panic!("{what}, source {source}, {runtime}: {e}"));
                assert_eq!(bfs::digest(r), want, "{what}, source {source}, {runtime}");
            }
        }
    }
}

#[test]
fn bfs_levels_on_tori_are_the_wrapped_manhattan_distances() {
    let side = 60u32;
    let g = graph_gen::grid2d(side as usize);
    let d = |a: u32| a.min(side - a);
    for (runtime, r) in every_runtime(|k| k.bfs(&g, 0)) {
        for v in 0..side * side {
            let (x, y) = (v % side, v / side);
            assert_eq!(r.levels[v as usize], d(x) + d(y), "{runtime}: vertex {v}");
        }
        // (1, 1) is reached from (0, 1) = vertex 60 and (1, 0) = vertex 1: the smaller.
        assert_eq!(r.parents[61], 1, "{runtime}");
        assert_eq!(r.parents[0], 0, "{runtime}");
    }
    let side = 9u32;
    let g = graph_gen::grid3d(side as usize);
    let d = |a: u32| a.min(side - a);
    for (runtime, r) in every_runtime(|k| k.bfs(&g, 0)) {
        assert_eq!(r.levels.iter().max(), Some(&12), "{runtime}");
        for v in 0..side.pow(3) {
            let (x, y, z) = (v % side, v / side % side, v / side / side);
            assert_eq!(
                r.levels[v as usize],
                d(x) + d(y) + d(z),
                "{runtime}: vertex {v}"
            );
        }
    }
}

#[test]
fn bfs_leaves_other_components_unreached() {
    let g = Graph::from_edges(6, &[(0, 1), (1, 2), (3, 4), (2, 0)]).unwrap();
    let results = every_runtime(|k| k.bfs(&g, 1));
    let peers = usize::from(cfg!(feature = "rayon")) + usize::from(cfg!(feature = "chili"));
    assert_eq!(results.len(), 1 + DEQUES.len() * WORKERS.len() + peers);
    for (runtime, r) in results {
        assert_eq!(r.levels, [1, 0, 1, NONE, NONE, NONE], "{runtime}");
        assert_eq!(r.parents, [1, 1, 1, NONE, NONE, NONE], "{runtime}");
    }
}

/// The thresholds the back-forward BFS tests use: Beamer's, never bottom-up (`alpha = 1`:
/// a frontier's arcs never exceed the arcs not yet expanded), and bottom-up from the first
/// step with an arc to the end (`alpha = beta = usize::MAX`).
const THRESHOLDS: [(&str, usize, usize); 3] = [
    ("beamer", ALPHA, BETA),
    ("top-down only", 1, 1),
    ("bottom-up only", usize::MAX, usize::MAX),
];

/// The deepest level reached.
fn depth(r: &bfs::Bfs) -> u32 {
    r.levels
        .iter()
        .copied()
        .filter(|&l| l != NONE)
        .max()
        .unwrap()
}

#[test]
fn backforward_bfs_is_bfs_on_every_runtime_with_any_thresholds() {
    for (what, g) in graphs() {
        let n = g.num_vertices() as u32;
        for source in [0, n / 2, n - 1] {
            let want = bfs::bfs(&mut Sequential, &g, source);
            bfs::check(&g, source, &want).unwrap();
            for (rule, alpha, beta) in THRESHOLDS {
                let what = format!("{what}, source {source}, {rule}");
                let results = every_runtime(|k| k.backforward_bfs(&g, source, alpha, beta));
                let steps = results[0].1 .1;
                for (runtime, (r, s)) in &results {
                    bfs::check(&g, source, r).unwrap_or_else(|e| panic!("{what}, {runtime}: {e}"));
                    assert_eq!(bfs::digest(r), bfs::digest(&want), "{what}, {runtime}");
                    assert_eq!(r, &want, "{what}, {runtime}");
                    // The directions depend on the frontiers only, not on the runtime.
                    assert_eq!(*s, steps, "{what}, {runtime}");
                }
                // One step per level, the last one finding nothing.
                assert_eq!(steps.top_down + steps.bottom_up, depth(&want) + 1, "{what}");
                match rule {
                    "top-down only" => assert_eq!(steps.bottom_up, 0, "{what}"),
                    "bottom-up only" => {
                        assert_eq!(steps.top_down, u32::from(g.degree(source) == 0), "{what}")
                    }
                    _ => {}
                }
            }
        }
    }
}

#[test]
fn beamers_thresholds_go_bottom_up_on_rmat_and_tori() {
    // Large frontiers: rMat's hubs, the middle levels of a torus.
    for (kind, size) in [
        (GraphKind::Rmat, 1 << 14),
        (GraphKind::Grid2d, 10_000),
        (GraphKind::Grid3d, 27_000),
    ] {
        let g = bfs::input(kind, size, 5).unwrap();
        let want = bfs::bfs(&mut Sequential, &g, 0);
        for (runtime, (r, steps)) in every_runtime(|k| k.backforward_bfs(&g, 0, ALPHA, BETA)) {
            let what = format!("{kind} of {size}, {runtime}");
            assert!(steps.bottom_up > 0, "{what}: {steps:?}");
            assert!(steps.top_down > 0, "{what}: {steps:?}");
            assert_eq!(r, want, "{what}");
        }
    }
}

#[test]
fn bottom_up_steps_take_the_smallest_frontier_neighbour_and_skip_other_components() {
    // A star (centre 0, leaves 1..=20) and, apart, a path 21 - 22 - 23 and a lone 24.
    let mut edges: Vec<(u32, u32)> = (1..=20).map(|v| (v, 0)).collect();
    edges.extend([(21, 22), (22, 23)]);
    let g = Graph::from_edges(25, &edges).unwrap();
    let mut levels = vec![2; 21];
    levels[0] = 1;
    levels[1] = 0;
    levels.extend([NONE; 4]);
    let mut parents = vec![0; 21];
    parents[0] = 1;
    parents[1] = 1;
    parents.extend([NONE; 4]);
    // From leaf 1 with Beamer's thresholds: top-down to the centre (1 arc, not above
    // 44 / 15), then its 20 arcs exceed the 43 left / 15: bottom-up to the other leaves,
    // and bottom-up again (the frontier grew), finding nothing.
    for (runtime, (r, steps)) in every_runtime(|k| k.backforward_bfs(&g, 1, ALPHA, BETA)) {
        assert_eq!(
            steps,
            Steps {
                top_down: 1,
                bottom_up: 2
            },
            "{runtime}"
        );
        assert_eq!(r.levels, levels, "{runtime}");
        assert_eq!(r.parents, parents, "{runtime}");
    }
    // From the path's middle, bottom-up only: the ends, then nothing; the star untouched.
    for (runtime, (r, steps)) in
        every_runtime(|k| k.backforward_bfs(&g, 22, usize::MAX, usize::MAX))
    {
        assert_eq!(
            steps,
            Steps {
                top_down: 0,
                bottom_up: 2
            },
            "{runtime}"
        );
        assert_eq!(&r.levels[21..], [1, 0, 1, NONE], "{runtime}");
        assert_eq!(&r.parents[21..], [22, 22, 22, NONE], "{runtime}");
        assert!(r.levels[..21].iter().all(|&l| l == NONE), "{runtime}");
        assert!(r.parents[..21].iter().all(|&p| p == NONE), "{runtime}");
    }
    // Several frontier neighbours: a bottom-up step takes the smallest. 0 - {1, 2, 3},
    // 4 - {3, 2, 1}, 5 - {3, 2}: 4's parent is 1 and 5's is 2, not the last ones found.
    let g = Graph::from_edges(
        6,
        &[
            (0, 1),
            (0, 2),
            (0, 3),
            (4, 3),
            (4, 2),
            (4, 1),
            (5, 3),
            (5, 2),
        ],
    )
    .unwrap();
    for (alpha, beta) in [(ALPHA, BETA), (usize::MAX, usize::MAX)] {
        for (runtime, (r, steps)) in every_runtime(|k| k.backforward_bfs(&g, 0, alpha, beta)) {
            let what = format!("alpha {alpha} beta {beta}, {runtime}");
            assert_eq!(
                steps,
                Steps {
                    top_down: 0,
                    bottom_up: 3
                },
                "{what}"
            );
            assert_eq!(r.levels, [0, 1, 1, 1, 2, 2], "{what}");
            assert_eq!(r.parents, [0, 0, 0, 0, 1, 2], "{what}");
        }
    }
}

#[test]
fn the_backforward_bfs_kernel_gives_the_bfs_kernels_digest() {
    let bf = KernelId::from_name("backforward-bfs").unwrap();
    assert_eq!(bf.name(), "backforward-bfs");
    for (size, seed) in [(1, 1), (3000, 2), (5000, 3)] {
        let mut top_down = KernelId::Bfs.build(size, seed).unwrap();
        let want = Sequential.kernel_digest(&mut top_down);
        let mut input = bf.build(size, seed).unwrap();
        assert!(input
            .describe()
            .starts_with("back-forward BFS from vertex 0 of an rMat graph"));
        for (runtime, d) in every_runtime(|k| {
            let mut input = bf.build(size, seed).unwrap();
            k.kernel_digest(&mut input)
        }) {
            assert_eq!(d, want, "size {size} seed {seed}, {runtime}");
        }
        assert_eq!(Sequential.kernel_digest(&mut input), want);
    }
    let Err(e) = bf.build(0, 1) else {
        panic!("a graph of size 0 built")
    };
    assert!(e.starts_with("--size"), "{e}");
}

#[test]
fn matching_is_the_greedy_maximal_matching_on_every_runtime() {
    for kind in GraphKind::ALL {
        for (size, seed) in [(1, 1), (50, 2), (3000, 3), (20_000, 4)] {
            let input = matching::input(kind, size, seed).unwrap();
            let want = matching::greedy(&input);
            matching::check(&input, &want).unwrap();
            for (runtime, m) in every_runtime(|k| k.matching(&input)) {
                let what = format!("{kind} size {size} seed {seed}, {runtime}");
                matching::check(&input, &m).unwrap_or_else(|e| panic!("{what}: {e}"));
                assert_eq!(m, want, "{what}");
            }
        }
    }
}

#[test]
fn matching_on_paths_and_stars() {
    let n = 10_001u32; // a path of 10,000 edges
    let forward = matching::EdgeList {
        n: n as usize,
        edges: (0..n - 1).map(|i| (i, i + 1)).collect(),
    };
    let mut backward = forward.clone();
    backward.edges.reverse();
    // A star: every edge shares vertex 0, so only the first is chosen.
    let star = matching::EdgeList {
        n: 5000,
        edges: (1..5000).rev().map(|i| (i, 0)).collect(),
    };
    for (runtime, (f, b, s)) in every_runtime(|k| {
        (
            k.matching(&forward),
            k.matching(&backward),
            k.matching(&star),
        )
    }) {
        assert_eq!(f, (0..n - 1).step_by(2).collect::<Vec<_>>(), "{runtime}");
        assert_eq!(b, (0..n - 1).step_by(2).collect::<Vec<_>>(), "{runtime}");
        assert_eq!(s, [0], "{runtime}");
    }
    let empty = matching::EdgeList {
        n: 3,
        edges: vec![],
    };
    assert!(Sequential.matching(&empty).is_empty());
}

/// `h` is a strictly convex counter-clockwise polygon of points of `pts` with every point
/// inside or on it (O(n·h): for small inputs).
fn encloses(pts: &[Point], h: &[u32]) -> bool {
    let k = h.len();
    let p = |i: usize| pts[h[i % k] as usize];
    k < 3
        || (0..k).all(|i| Point::cross(p(i), p(i + 1), p(i + 2)) > 0)
            && (0..k).all(|i| pts.iter().all(|&c| Point::cross(p(i), p(i + 1), c) >= 0))
}

#[test]
fn hull_matches_the_monotone_chain_on_every_runtime() {
    for kind in PointKind::ALL {
        for (size, seed) in [(1, 1), (2, 2), (3, 3), (10, 4), (1000, 5), (30_000, 6)] {
            let pts = hull::input(kind, size, seed).unwrap();
            let want = hull::monotone_chain(&pts);
            if size <= 1000 {
                assert!(encloses(&pts, &want), "{kind} {size}");
            }
            for (runtime, h) in every_runtime(|k| k.hull(&pts)) {
                assert_eq!(h, want, "{kind} size {size} seed {seed}, {runtime}");
            }
        }
    }
    // A circle of radius 2^10 (the generator's, shrunk): 30,000 points on about 6,400
    // lattice positions, with many repeats and many collinear runs on the hull.
    let small: Vec<Point> = hull::input(PointKind::Circle, 30_000, 8)
        .unwrap()
        .iter()
        .map(|p| Point::new(p.x >> 20, p.y >> 20))
        .collect();
    let want = hull::monotone_chain(&small);
    for (runtime, (h, nn)) in every_runtime(|k| (k.hull(&small), k.neighbours(&small[..3000]))) {
        assert_eq!(h, want, "small circle, {runtime}");
        assert_eq!(
            nn,
            neighbours::brute_force(&small[..3000]),
            "small circle, {runtime}"
        );
    }
    // On a circle almost every point is a hull vertex.
    let pts = hull::input(PointKind::Circle, 30_000, 6).unwrap();
    assert!(hull::monotone_chain(&pts).len() > 25_000);
}

#[test]
fn hull_of_lattices_duplicates_and_lines() {
    // A 50 × 50 lattice listed column by column, twice: the four corners, each by its
    // first index, from the lowest leftmost counter-clockwise.
    let lattice: Vec<Point> = (0..2)
        .flat_map(|_| (0..50).flat_map(|x| (0..50).map(move |y| Point::new(x, y))))
        .collect();
    let line: Vec<Point> = (0..1000)
        .map(|i| Point::new(3 * (i % 17), -2 * (i % 17)))
        .collect();
    let same = vec![Point::new(-5, 7); 100];
    // Three points tie as farthest below the edge (0, 0) → (10, 0); the middle one, with
    // the smallest index, lies between two hull vertices and is not one.
    let tie = [(5, -5), (0, 0), (10, 0), (2, -5), (8, -5), (5, -5)].map(|(x, y)| Point::new(x, y));
    for (runtime, (a, b, c, d)) in
        every_runtime(|k| (k.hull(&lattice), k.hull(&line), k.hull(&same), k.hull(&tie)))
    {
        assert_eq!(d, [1, 3, 4, 2], "{runtime}");
        assert_eq!(a, [0, 2450, 2499, 49], "{runtime}");
        assert_eq!(b, [0, 16], "{runtime}");
        assert_eq!(c, [0], "{runtime}");
    }
    assert!(Sequential.hull(&[]).is_empty());
}

#[test]
fn neighbours_match_brute_force_on_small_inputs() {
    for kind in PointKind::ALL {
        for (size, seed) in [(1, 1), (2, 2), (17, 3), (500, 4), (2000, 5)] {
            let pts = neighbours::input(kind, size, seed).unwrap();
            let want = neighbours::brute_force(&pts);
            for (runtime, nn) in every_runtime(|k| k.neighbours(&pts)) {
                assert_eq!(nn, want, "{kind} size {size} seed {seed}, {runtime}");
            }
        }
    }
}

#[test]
fn neighbours_match_the_sequential_tree_and_sampled_scans_on_large_inputs() {
    for kind in PointKind::ALL {
        let pts = neighbours::input(kind, 20_000, 7).unwrap();
        let results = every_runtime(|k| k.neighbours(&pts));
        let want = &results[0].1;
        for i in (0..pts.len()).step_by(211) {
            assert_eq!(
                want[i],
                neighbours::nearest_by_scan(&pts, i),
                "{kind} point {i}"
            );
        }
        for (runtime, nn) in &results {
            assert_eq!(nn, want, "{kind}, {runtime}");
        }
    }
}

#[test]
fn neighbours_on_a_lattice_break_ties_by_index() {
    // Point i is (i mod 40, i / 40): its four lattice neighbours are at distance 1, and the
    // smallest index among them is the one below, else the one to the left, else the right.
    let side = 40;
    let pts: Vec<Point> = (0..side * side)
        .map(|i| Point::new(i % side, i / side))
        .collect();
    let want: Vec<u32> = (0..side * side)
        .map(|i| {
            let (x, y) = (i % side, i / side);
            (if y > 0 {
                i - side
            } else if x > 0 {
                i - 1
            } else {
                i + 1
            }) as u32
        })
        .collect();
    let mut dup = pts.clone();
    dup.extend_from_slice(&pts[..10]);
    for (runtime, (nn, d)) in every_runtime(|k| (k.neighbours(&pts), k.neighbours(&dup))) {
        assert_eq!(nn, want, "{runtime}");
        // A duplicated point's neighbour is its twin, at distance 0.
        assert_eq!(&d[..10], (1600..1610).collect::<Vec<u32>>(), "{runtime}");
        assert_eq!(&d[1600..], (0..10).collect::<Vec<u32>>(), "{runtime}");
    }
    assert_eq!(Sequential.neighbours(&pts[..1]), [NONE]);
}
