//! Readers never allocate from a header's size before they have seen the data: a header that
//! announces a huge instance in a tiny file fails with an error naming FILE:LINE, while the
//! reader's peak heap use stays proportional to the file (measured by a counting allocator).

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

use magpie_apps::{knapsack, maxclique, sip, tsp};

/// Counts the bytes live on the heap and the most ever asked for in one allocation.
struct Counting;

static LARGEST: AtomicUsize = AtomicUsize::new(0);

// SAFETY: forwards every call to the system allocator unchanged; it only records sizes.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        LARGEST.fetch_max(layout.size(), Ordering::Relaxed);
        // SAFETY: the caller's contract for `alloc` is passed on unchanged.
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: `ptr` came from `System.alloc` with this layout (see `alloc`).
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        LARGEST.fetch_max(new_size, Ordering::Relaxed);
        // SAFETY: the caller's contract for `realloc` is passed on unchanged.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// Runs `parse` and checks that no single allocation (of any test thread of this file, all
/// of which parse tiny files) exceeded 1 MiB; returns the error it must produce.
fn error_within_small_memory<T: std::fmt::Debug>(
    parse: impl FnOnce() -> Result<T, magpie_apps::input::InputError>,
) -> String {
    let e = parse()
        .expect_err("the header is not backed by data")
        .to_string();
    let largest = LARGEST.load(Ordering::Relaxed);
    assert!(
        largest < 1 << 20,
        "an allocation of {largest} bytes for a tiny file"
    );
    e
}

#[test]
fn tsplib_dimension_of_a_hundred_million_with_two_cities() {
    let text = "NAME: big\nTYPE: TSP\nDIMENSION: 100000000\nEDGE_WEIGHT_TYPE: EUC_2D\n\
                NODE_COORD_SECTION\n1 0 0\n2 3 4\nEOF\n";
    assert_eq!(
        error_within_small_memory(|| tsp::parse("big.tsp", text)),
        "big.tsp:3: DIMENSION 100000000 needs a 80000000000000000-byte distance matrix; \
         the limit is 8192 cities (536870912 bytes)"
    );
    // A DIMENSION whose matrix size overflows even 128 bits (found by the tsplib fuzz target,
    // which panicked on the multiplication).
    assert_eq!(
        error_within_small_memory(|| tsp::parse("huge.tsp", "DIMENSION: 9999999999999999999\n\0")),
        "huge.tsp:1: DIMENSION 9999999999999999999 needs a distance matrix of more than 2^128 \
         bytes; the limit is 8192 cities (536870912 bytes)"
    );
    // Below the limit the coordinates are read as they come, and the file ends early.
    let text = text.replace("100000000", "8000");
    assert_eq!(
        error_within_small_memory(|| tsp::parse("big.tsp", &text)),
        "big.tsp:8: `EOF` is not a number (expected 8000 coordinate lines, found 2)"
    );
    // Explicit weights: the count DIMENSION implies is not reserved up front either.
    let text = "DIMENSION: 8000\nEDGE_WEIGHT_TYPE: EXPLICIT\nEDGE_WEIGHT_FORMAT: FULL_MATRIX\n\
                EDGE_WEIGHT_SECTION\n0 1\n1 0\n";
    assert_eq!(
        error_within_small_memory(|| tsp::parse("w.tsp", text)),
        "w.tsp:6: file ends early: expected 64000000 weights, found 4"
    );
}

#[test]
fn knapsack_header_of_a_trillion_items() {
    assert_eq!(
        error_within_small_memory(|| knapsack::parse_plain(
            "k.txt",
            "1000000000000 50\n3 4\n5 2\n"
        )),
        "k.txt:3: file ends after 2 of 1000000000000 items"
    );
    assert_eq!(
        error_within_small_memory(|| knapsack::parse_pisinger(
            "k.csv",
            "knapPI_1_big\nn 1000000000000\nc 50\nz 8\ntime 0.00\n1,3,4,1\n"
        )),
        "k.csv:6: file ends early: expected 1000000000000 items, found 1"
    );
}

#[test]
fn dimacs_four_billion_vertices() {
    assert_eq!(
        error_within_small_memory(|| maxclique::parse_dimacs("p edge 4000000000 1\n", "g.clq")),
        "g.clq:1: 4000000000 vertices need a 2000000000000000000-byte adjacency matrix; \
         the limit is 65536 vertices (536870912 bytes)"
    );
}

#[test]
fn lad_header_of_sixty_thousand_vertices_with_two_lines() {
    // Below the vertex limit (a 450 MiB matrix), but not backed by the file's lines.
    assert_eq!(
        error_within_small_memory(|| sip::parse_lad("60000\n1 1\n1 0\n", "g.lad")),
        "g.lad:1: the header says 60000 vertices, but the file has 2 vertex lines"
    );
}
