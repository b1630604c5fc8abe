//! The colouring bound: greedy sequential colouring with bitset colour classes (MCS / BBMC),
//! shared by the search nodes and the hand-written solver.

use super::{Bitset, Graph};

/// Greedy sequential colouring of `candidates` with bitset colour classes (MCS / BBMC style).
///
/// Colour classes are built one at a time: class `c` takes, in increasing vertex order, every
/// still-uncoloured candidate not adjacent to a vertex already in class `c`. Returns the
/// vertices in colouring order and, parallel to it, their colours (`1, 1, …, 2, …`,
/// non-decreasing). Any clique among `order[..=i]` has at most `colours[i]` vertices, so a
/// branch-and-bound takes vertices from the back and stops at the first `i` with
/// `|clique| + colours[i] <= best`.
///
/// ```
/// use magpie_apps::maxclique::{colour_order, Bitset, Graph};
/// // The path 0-1-2-3 plus the triangle 1-2-4.
/// let g = Graph::from_edges(5, &[(0, 1), (1, 2), (2, 3), (1, 4), (2, 4)]);
/// let (order, colours) = colour_order(&g, &Bitset::full(5));
/// assert_eq!(order, vec![0, 2, 1, 3, 4]);
/// assert_eq!(colours, vec![1, 1, 2, 2, 3]);
/// ```
pub fn colour_order(g: &Graph, candidates: &Bitset) -> (Vec<usize>, Vec<usize>) {
    let mut packed = Vec::with_capacity(candidates.count());
    with_scratch(|scratch| colour_packed(g, &candidates.words, scratch, &mut packed));
    packed.iter().map(|&e| unpack(e)).unzip()
}

/// A coloured vertex as one word: the vertex in the high half, its colour in the low half.
fn pack(v: usize, colour: usize) -> u64 {
    (v as u64) << 32 | colour as u64
}

/// `(vertex, colour)` of a [`pack`]ed word.
pub(super) fn unpack(e: u64) -> (usize, usize) {
    ((e >> 32) as usize, (e & u32::MAX as u64) as usize)
}

/// Scratch space for [`colour_packed`], reused across calls.
#[derive(Default)]
pub(super) struct ColourScratch {
    uncoloured: Vec<u64>,
    class: Vec<u64>,
}

/// Runs `f` on this thread's colouring scratch space, so that colouring a search node
/// allocates nothing once the buffers have grown.
pub(super) fn with_scratch<R>(f: impl FnOnce(&mut ColourScratch) -> R) -> R {
    thread_local! {
        static SCRATCH: std::cell::RefCell<ColourScratch> = std::cell::RefCell::default();
    }
    let mut f = Some(f);
    let reused = SCRATCH.try_with(|scratch| match scratch.try_borrow_mut() {
        Ok(mut scratch) => f.take().map(|f| f(&mut scratch)),
        // Unreachable today (colouring does not re-enter), but never panic over scratch space.
        Err(_) => None,
    });
    match (reused, f) {
        (Ok(Some(r)), _) => r,
        (_, Some(f)) => f(&mut ColourScratch::default()),
        (_, None) => unreachable!("the closure ran but returned nothing"),
    }
}

/// The colouring of [`colour_order`] on the candidate words `candidates`, appended to `out`
/// as [`pack`]ed `(vertex, colour)` words in colouring order (`out` is not cleared). The one
/// colouring of this module: the hand-written solver and the search nodes both use it.
pub(super) fn colour_packed(
    g: &Graph,
    candidates: &[u64],
    scratch: &mut ColourScratch,
    out: &mut Vec<u64>,
) {
    let ColourScratch { uncoloured, class } = scratch;
    uncoloured.clear();
    uncoloured.extend_from_slice(candidates);
    class.clear();
    class.resize(uncoloured.len(), 0);
    let mut colour = 0;
    let mut start = 0; // words before `start` are all coloured
    while start < uncoloured.len() {
        if uncoloured[start] == 0 {
            start += 1;
            continue;
        }
        colour += 1;
        class[start..].copy_from_slice(&uncoloured[start..]);
        let mut k = start;
        while k < class.len() {
            let w = class[k];
            if w == 0 {
                k += 1;
                continue;
            }
            let bit = w & w.wrapping_neg();
            let v = k * 64 + bit.trailing_zeros() as usize;
            uncoloured[k] &= !bit;
            class[k] &= !bit;
            let adj = &g.rows[v].words[k..];
            for (c, a) in class[k..].iter_mut().zip(adj) {
                *c &= !a;
            }
            out.push(pack(v, colour));
        }
    }
}
