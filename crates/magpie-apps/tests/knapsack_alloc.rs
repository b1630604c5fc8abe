//! A knapsack search node is a fixed-size value: the `Sequential` skeleton's optimisation of
//! a 200-item instance (78,740 nodes) makes a bounded number of heap allocations, not one
//! per node (counted by a global allocator; this file holds a single test so that no other
//! test thread allocates meanwhile).

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicU64, Ordering};

use magpie::search::{optimise, Options, Skeleton};
use magpie_apps::{knapsack, shared};

/// Counts allocations (and reallocations).
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
        // SAFETY: `ptr` came from `System.alloc`/`realloc` with this layout (see above).
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

/// At most this many allocations per search, whatever the node count (the engine's own
/// bookkeeping and the growth of its per-depth stack; the old node allocated a selection
/// bitset per node, 78,740 here).
const FEW: u64 = 1000;

#[test]
fn sequential_optimise_allocates_o1_not_per_node() {
    let path = shared::path("instances/knapsack/large_scale/knapPI_3_200_1000_1");
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
    eprintln!("{} nodes, {allocations} allocations", out.stats.expanded);
    assert!(
        allocations <= FEW,
        "{allocations} allocations for {} nodes",
        out.stats.expanded
    );
    // The certificate, made on demand, reaches the optimum.
    let cert = inst.certificate(node.profit).expect("a certificate");
    let (p, w) = inst.evaluate(&cert.items);
    assert!(p == 2697 && w <= inst.capacity(), "profit {p}, weight {w}");
}
