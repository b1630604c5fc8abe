//! Search nodes do not allocate per node: a `Sequential` optimisation of max clique and of
//! TSP makes a number of heap allocations bounded by the depth and the thread count, not by
//! the node count (measured by a counting global allocator), and still finds the optimum
//! with a checked certificate. The hand-written TSP branch and bound expands exactly the
//! nodes the skeleton expands (the fair comparison of the `overhead` experiment).

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;

use magpie::search::{optimise, Options, Skeleton};
use magpie_apps::{knapsack, maxclique, testdata, tsp};

/// Counts allocations and reallocations (of every thread).
struct Counting;

static ALLOCATIONS: AtomicU64 = AtomicU64::new(0);

// SAFETY: forwards every call to the system allocator unchanged; it only counts calls.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        // SAFETY: the caller's contract for `alloc` is passed on unchanged.
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: `ptr` came from `System.alloc`/`realloc` with this layout.
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        // SAFETY: the caller's contract for `realloc` is passed on unchanged.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// The tests of this file run one at a time, so that each counts only its own allocations.
static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());

/// Runs `f` on a fresh 1-worker pool; returns its value and the allocations made while it
/// ran (the pool is built and torn down outside the count).
fn count_allocations<T: Send>(f: impl FnOnce() -> T + Send) -> (T, u64) {
    let pool = magpie::ThreadPoolBuilder::new()
        .num_workers(1)
        .build()
        .unwrap();
    let before = ALLOCATIONS.load(Ordering::Relaxed);
    let value = pool.install(f);
    let allocations = ALLOCATIONS.load(Ordering::Relaxed) - before;
    (value, allocations)
}

/// At most this many allocations for a whole search, whatever its node count: the pooled
/// buffers of the open depths (two per depth), per-depth scratch, the outcome.
const FEW: u64 = 1_000;

/// Prints what a search of `nodes` nodes allocated, and asserts that it visited more than
/// `min_nodes` nodes (enough for a per-node allocation to show) with fewer than [`FEW`]
/// allocations.
fn assert_few_allocations(search: &str, allocations: u64, nodes: u64, min_nodes: u64) {
    eprintln!("{search}: {allocations} allocations for {nodes} nodes");
    assert!(
        nodes > min_nodes && allocations < FEW,
        "{search}: {allocations} allocations for {nodes} nodes"
    );
}

#[test]
fn sequential_max_clique_on_brock200_4_allocates_per_depth_not_per_node() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let g = maxclique::read_dimacs(testdata::path("dimacs/brock200_4.clq")).unwrap();
    let space = maxclique::CliqueSpace::new(&g);
    let opts = Options {
        prune_level: true,
        ..Options::default()
    };
    let (out, allocations) = count_allocations(|| optimise(&space, Skeleton::Sequential, &opts));
    let (omega, node) = out.value.expect("a clique");
    let clique = space.clique(&node);
    assert_eq!(omega, 17, "brock200_4 has ω = 17");
    assert_eq!(clique.len(), 17);
    assert!(maxclique::is_clique(&g, &clique), "{clique:?}");
    // The same tree as the hand-written solver.
    assert_eq!(
        out.stats.expanded,
        maxclique::max_clique_counted(&g).1,
        "node counts"
    );
    assert_few_allocations("brock200_4", allocations, out.stats.expanded, 50 * FEW);
}

#[test]
fn sequential_tsp_on_bayg29_allocates_per_depth_not_per_node() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let inst = tsp::read(testdata::path("tsplib/bayg29.tsp")).unwrap();
    // No initial bound (the heuristic tour would leave only 124 nodes to expand).
    let opts = Options::default();
    let (out, allocations) = count_allocations(|| optimise(&inst, Skeleton::Sequential, &opts));
    let optimum = 1610; // TSPLIB
    let (value, node) = out.value.expect("a tour");
    assert_eq!(value, -optimum);
    let tour = node.tour(&inst);
    assert_eq!(tour.length, optimum);
    assert_eq!(tsp::tour_length(&inst, &tour.cities), optimum);
    let mut sorted = tour.cities.clone();
    sorted.sort_unstable();
    assert_eq!(
        sorted,
        (1..=29).collect::<Vec<_>>(),
        "a permutation of the cities"
    );
    assert_few_allocations("bayg29", allocations, out.stats.expanded, 10 * FEW);
    // The hand-written branch and bound from the same bound: the same nodes, few allocations.
    let ((best, nodes), hand_allocations) =
        count_allocations(|| tsp::branch_and_bound(&inst, i64::MAX));
    assert_eq!(nodes, out.stats.expanded, "node counts");
    assert_eq!(best.map(|t| t.length), Some(optimum));
    assert!(hand_allocations < FEW, "{hand_allocations} allocations");
}

/// A knapsack node is a fixed-size value: optimising a 200-item instance (78,740 nodes)
/// makes a bounded number of allocations, not one per node (the old node allocated a
/// selection bitset per node).
#[test]
fn sequential_knapsack_allocates_o1_not_per_node() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let path = testdata::path("knapsack/large_scale/knapPI_3_200_1000_1");
    let inst = knapsack::read(path).unwrap().pop().unwrap();
    assert_eq!(inst.len(), 200);
    let opts = Options::default();
    // Once to warm up lazily initialised state (thread locals, the global pool).
    let warm = optimise(&inst, Skeleton::Sequential, &opts);
    let before = ALLOCATIONS.load(Ordering::Relaxed);
    let out = optimise(&inst, Skeleton::Sequential, &opts);
    let allocations = ALLOCATIONS.load(Ordering::Relaxed) - before;
    let (value, node) = out.value.expect("a solution");
    // The README's optimum; the node count is that of the C peer's calls (same tree).
    assert_eq!(value, 2697);
    assert_eq!(out.stats.expanded, 78_740);
    assert_eq!(out.stats.expanded, warm.stats.expanded);
    assert_few_allocations("knapPI_3_200", allocations, out.stats.expanded, 0);
    // The certificate, made on demand, reaches the optimum.
    let cert = inst.certificate(node.profit).expect("a certificate");
    let (p, w) = inst.evaluate(&cert.items);
    assert!(p == 2697 && w <= inst.capacity(), "profit {p}, weight {w}");
}
