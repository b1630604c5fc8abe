//! The parallel steps the PBBS kernels share, over [`Join`]: loops over chunks or pieces of
//! a slice, a map-reduce over an index range, and PBBS's blocked counting scatter (count
//! per block and bucket, prefix sums, scatter), the core of radix and sample sort.
//!
//! ```
//! use magpie_apps::join::Sequential;
//! use magpie_apps::pbbs::par::scatter;
//!
//! let src = [31u32, 10, 22, 11, 30, 20];
//! let mut dst = [0; 6];
//! let starts = scatter(&mut Sequential, &src, &mut dst, 4, &|x: &u32| (*x / 10) as usize);
//! assert_eq!(dst, [10, 11, 22, 20, 31, 30]); // by tens, stable within each
//! assert_eq!(starts, [0, 0, 2, 4, 6]);
//! ```

use crate::join::Join;
use std::marker::PhantomData;
use std::ops::Range;

/// Runs `f(i, chunk)` on the `i`-th chunk of `len` consecutive elements of `data` (the last
/// may be shorter), in parallel by halving the chunks.
///
/// # Panics
///
/// If `len` is 0.
///
/// ```
/// use magpie_apps::join::Sequential;
/// let mut v = [0usize; 7];
/// magpie_apps::pbbs::par::par_chunks(&mut Sequential, &mut v, 3, &|i, c: &mut [usize]| c.fill(i));
/// assert_eq!(v, [0, 0, 0, 1, 1, 1, 2]);
/// ```
pub fn par_chunks<J, T, F>(j: &mut J, data: &mut [T], len: usize, f: &F)
where
    J: Join,
    T: Send,
    F: Fn(usize, &mut [T]) + Sync,
{
    assert!(len > 0, "par_chunks: chunks of 0 elements");
    chunks_from(j, data, len, 0, f);
}

fn chunks_from<J: Join, T: Send, F: Fn(usize, &mut [T]) + Sync>(
    j: &mut J,
    data: &mut [T],
    len: usize,
    first: usize,
    f: &F,
) {
    let chunks = data.len().div_ceil(len);
    if chunks <= 1 {
        if chunks == 1 {
            f(first, data);
        }
        return;
    }
    let half = chunks / 2;
    let (a, b) = data.split_at_mut(half * len);
    j.join(
        |j| chunks_from(j, a, len, first, f),
        |j| chunks_from(j, b, len, first + half, f),
    );
}

/// Runs `f(i, piece)` on each piece `data[bounds[i] - bounds[0]..bounds[i + 1] - bounds[0]]`
/// (`bounds` ascending, its last minus its first `data.len()`), in parallel by halving the
/// pieces.
///
/// # Panics
///
/// If `bounds` is not ascending or does not span `data`.
///
/// ```
/// use magpie_apps::join::Sequential;
/// let mut v = [5, 4, 3, 2, 1];
/// magpie_apps::pbbs::par::par_pieces(&mut Sequential, &mut v, &[0, 2, 5], &|_, p: &mut [i32]| p.sort());
/// assert_eq!(v, [4, 5, 1, 2, 3]);
/// ```
pub fn par_pieces<J, T, F>(j: &mut J, data: &mut [T], bounds: &[usize], f: &F)
where
    J: Join,
    T: Send,
    F: Fn(usize, &mut [T]) + Sync,
{
    match bounds {
        [] => assert!(
            data.is_empty(),
            "par_pieces: no bounds for {} elements",
            data.len()
        ),
        [first, .., last] => assert_eq!(last - first, data.len(), "par_pieces: bounds"),
        [_] => assert!(data.is_empty(), "par_pieces: bounds"),
    }
    pieces_from(j, data, bounds, 0, f);
}

fn pieces_from<J: Join, T: Send, F: Fn(usize, &mut [T]) + Sync>(
    j: &mut J,
    data: &mut [T],
    bounds: &[usize],
    first: usize,
    f: &F,
) {
    let pieces = bounds.len().saturating_sub(1);
    if pieces <= 1 {
        if pieces == 1 {
            f(first, data);
        }
        return;
    }
    let half = pieces / 2;
    let (a, b) = data.split_at_mut(bounds[half] - bounds[0]);
    j.join(
        |j| pieces_from(j, a, &bounds[..=half], first, f),
        |j| pieces_from(j, b, &bounds[half..], first + half, f),
    );
}

/// `combine` over `map(i)` for every `i` of `range` (in index order, so `combine` need only
/// be associative), in parallel by halving the range; `None` for an empty range.
///
/// ```
/// use magpie_apps::join::Sequential;
/// use magpie_apps::pbbs::par::map_reduce;
/// assert_eq!(map_reduce(&mut Sequential, 0..5, &|i| vec![i], &|mut a, b| { a.extend(b); a }), Some(vec![0, 1, 2, 3, 4]));
/// assert_eq!(map_reduce(&mut Sequential, 3..3, &|i| i, &|a, b| a + b), None);
/// ```
pub fn map_reduce<J, R, M, C>(j: &mut J, range: Range<usize>, map: &M, combine: &C) -> Option<R>
where
    J: Join,
    R: Send,
    M: Fn(usize) -> R + Sync,
    C: Fn(R, R) -> R + Sync,
{
    match range.len() {
        0 => None,
        1 => Some(map(range.start)),
        len => {
            let mid = range.start + len / 2;
            let (a, b) = j.join(
                |j| map_reduce(j, range.start..mid, map, combine),
                |j| map_reduce(j, mid..range.end, map, combine),
            );
            match (a, b) {
                (Some(a), Some(b)) => Some(combine(a, b)),
                (a, b) => a.or(b),
            }
        }
    }
}

/// Copies `src` into `dst` in parallel (chunks of [`COPY_CHUNK`]).
///
/// # Panics
///
/// If the lengths differ.
pub fn par_copy<J: Join, T: Copy + Send + Sync>(j: &mut J, dst: &mut [T], src: &[T]) {
    assert_eq!(dst.len(), src.len(), "par_copy: lengths");
    par_chunks(j, dst, COPY_CHUNK, &|i, d: &mut [T]| {
        d.copy_from_slice(&src[i * COPY_CHUNK..i * COPY_CHUNK + d.len()]);
    });
}

/// Elements per task of [`par_copy`].
pub const COPY_CHUNK: usize = 1 << 16;

/// At most this many blocks in [`scatter`] (enough for 2–64 workers; each block keeps one
/// count per bucket).
pub const SCATTER_BLOCKS: usize = 256;

/// Elements per block of [`scatter`] over `n` elements and `buckets` buckets: at most
/// [`SCATTER_BLOCKS`] blocks, each of at least 2048 elements and 4 per bucket (so that the
/// counting tables stay small next to the data).
pub fn scatter_block(n: usize, buckets: usize) -> usize {
    n.div_ceil(SCATTER_BLOCKS).max(2048).max(4 * buckets)
}

/// PBBS's blocked counting scatter: moves `src` into `dst` grouped by `bucket(x)` (in
/// `0..buckets`), stably, and returns the `buckets + 1` start offsets of the groups in
/// `dst`. In parallel: each block of [`scatter_block`] elements counts its elements per
/// bucket; prefix sums over (bucket, block) give every block a disjoint range of `dst` per
/// bucket; each block then writes its elements into its ranges.
///
/// # Panics
///
/// If the lengths differ, if `buckets` is 0 while `src` is not empty, if `bucket` returns a
/// value `≥ buckets`, or if it gives an element a different bucket in the scatter than in
/// the count (a non-deterministic `bucket`): every write is checked to fall in its block's
/// range, so no such closure can make two tasks write the same element.
pub fn scatter<J, T, F>(
    j: &mut J,
    src: &[T],
    dst: &mut [T],
    buckets: usize,
    bucket: &F,
) -> Vec<usize>
where
    J: Join,
    T: Copy + Send + Sync,
    F: Fn(&T) -> usize + Sync,
{
    let n = src.len();
    assert_eq!(n, dst.len(), "scatter: source and destination lengths");
    if n == 0 {
        return vec![0; buckets + 1];
    }
    assert!(buckets > 0, "scatter: no buckets");
    let block = scatter_block(n, buckets);
    let blocks = n.div_ceil(block);
    let block_of = |b: usize| &src[b * block..n.min((b + 1) * block)];
    // Counts, one row of `buckets` per block.
    let mut cursor = vec![0usize; blocks * buckets];
    par_chunks(j, &mut cursor, buckets, &|b, row: &mut [usize]| {
        for x in block_of(b) {
            row[bucket(x)] += 1;
        }
    });
    // Bucket-major prefix sums: block b's elements of bucket d go to
    // cursor[b][d]..end[b][d].
    let mut end = vec![0usize; blocks * buckets];
    let mut starts = Vec::with_capacity(buckets + 1);
    let mut total = 0;
    for d in 0..buckets {
        starts.push(total);
        for b in 0..blocks {
            let i = b * buckets + d;
            let count = cursor[i];
            cursor[i] = total;
            total += count;
            end[i] = total;
        }
    }
    starts.push(total);
    let out = SharedSlice::new(dst);
    par_chunks(j, &mut cursor, buckets, &|b, row: &mut [usize]| {
        let end = &end[b * buckets..(b + 1) * buckets];
        for x in block_of(b) {
            let d = bucket(x);
            let at = row[d];
            assert!(
                at < end[d],
                "scatter: the bucket function is not deterministic"
            );
            // SAFETY: `at` lies in block b's range for bucket d (checked just above), and
            // the ranges of all (block, bucket) pairs are disjoint sub-ranges of
            // `0..n = 0..dst.len()` by the prefix sums; only this task writes block b's
            // ranges, each position once (its cursor only grows), and nothing reads `dst`
            // until every task has finished (the join returns).
            unsafe { out.write(at, *x) };
            row[d] = at + 1;
        }
    });
    starts
}

/// A slice that tasks write at disjoint positions (the writes' disjointness is the
/// caller's proof, see [`SharedSlice::write`]).
struct SharedSlice<'a, T> {
    ptr: *mut T,
    len: usize,
    _borrow: PhantomData<&'a mut [T]>,
}

// SAFETY: a `SharedSlice` only gives `write`, whose contract makes every position written
// by at most one thread while it is shared; sending `T`s between threads needs `T: Send`.
unsafe impl<T: Send> Sync for SharedSlice<'_, T> {}

impl<'a, T: Copy> SharedSlice<'a, T> {
    fn new(slice: &'a mut [T]) -> Self {
        SharedSlice {
            ptr: slice.as_mut_ptr(),
            len: slice.len(),
            _borrow: PhantomData,
        }
    }

    /// Writes `value` at `i`.
    ///
    /// # Safety
    ///
    /// `i < len`, and no other thread reads or writes position `i` while the slice is
    /// shared.
    unsafe fn write(&self, i: usize, value: T) {
        debug_assert!(i < self.len);
        // SAFETY: in bounds and unshared by the caller's contract; `T: Copy` has no drop.
        unsafe { self.ptr.add(i).write(value) }
    }
}
