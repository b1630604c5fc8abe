//! The parallel steps the PBBS kernels share, over [`Join`], in one place: loops over
//! chunks or pieces of a slice ([`par_chunks`], [`par_pieces`], [`for_pieces`]), a
//! reduction ([`reduce`]), order-keeping passes whose outputs are concatenated in parallel
//! ([`flat_map`], [`filter`], [`concat()`]), a parallel copy ([`par_copy`]) and PBBS's
//! blocked counting scatter (count per block and bucket, prefix sums, scatter), the core of
//! radix and sample sort. A slice is halved recursively (each half in a `join`) until a
//! piece is small enough to run sequentially; results combine in slice order, so a filter
//! keeps the order of its input whatever runtime runs it.
//!
//! ```
//! use magpie_apps::join::{Magpie, Sequential};
//! use magpie_apps::pbbs::par;
//!
//! let src = [31u32, 10, 22, 11, 30, 20];
//! let mut dst = [0; 6];
//! let starts = par::scatter(&mut Sequential, &src, &mut dst, 4, &|x: &u32| (*x / 10) as usize);
//! assert_eq!(dst, [10, 11, 22, 20, 31, 30]); // by tens, stable within each
//! assert_eq!(starts, [0, 0, 2, 4, 6]);
//!
//! let v: Vec<u32> = (0..10_000).collect();
//! let evens = par::filter(&mut Sequential, &v, 100, &|&x| x % 2 == 0);
//! assert_eq!(evens.len(), 5_000);
//! let pool = magpie::ThreadPoolBuilder::new().num_workers(2).build().unwrap();
//! let sum = pool.install(|| {
//!     par::reduce(&mut Magpie, &v, 100, &|s| s.iter().map(|&x| u64::from(x)).sum::<u64>(), &|a, b| a + b)
//! });
//! assert_eq!(sum, 49_995_000);
//! ```

use crate::join::Join;
use std::marker::PhantomData;

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

/// Reduces `items`: `leaf` on each piece of at most `grain` items (at least one piece, empty
/// when `items` is), `combine(left, right)` up the halving tree (in slice order, so
/// `combine` need only be associative).
///
/// ```
/// use magpie_apps::join::Sequential;
/// use magpie_apps::pbbs::par::reduce;
/// let v = [3, 1, 4, 1, 5];
/// assert_eq!(reduce(&mut Sequential, &v, 2, &|p: &[i32]| p.to_vec(), &|mut a, b| { a.extend(b); a }), v);
/// assert_eq!(reduce(&mut Sequential, &[] as &[i32], 2, &|p| p.len(), &|a, b| a + b), 0);
/// ```
pub fn reduce<J, T, R, L, C>(j: &mut J, items: &[T], grain: usize, leaf: &L, combine: &C) -> R
where
    J: Join,
    T: Sync,
    R: Send,
    L: Fn(&[T]) -> R + Sync,
    C: Fn(R, R) -> R + Sync,
{
    if items.len() <= grain.max(1) {
        return leaf(items);
    }
    let (lo, hi) = items.split_at(items.len() / 2);
    let (a, b) = j.join(
        |j| reduce(j, lo, grain, leaf, combine),
        |j| reduce(j, hi, grain, leaf, combine),
    );
    combine(a, b)
}

/// Runs `f(piece)` on pieces of at most `grain` items covering `items` (read-only; for
/// writes to disjoint parts of a slice see [`par_chunks`] and [`par_pieces`]): [`reduce`]
/// with nothing to combine.
///
/// ```
/// use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};
/// use magpie_apps::join::Sequential;
/// let (pieces, sum) = (AtomicUsize::new(0), AtomicUsize::new(0));
/// magpie_apps::pbbs::par::for_pieces(&mut Sequential, &[1, 2, 3, 4, 5], 2, &|p: &[usize]| {
///     pieces.fetch_add(1, Relaxed);
///     sum.fetch_add(p.iter().sum(), Relaxed);
/// });
/// assert_eq!((pieces.into_inner(), sum.into_inner()), (3, 15)); // [1, 2], [3], [4, 5]
/// ```
pub fn for_pieces<J, T, F>(j: &mut J, items: &[T], grain: usize, f: &F)
where
    J: Join,
    T: Sync,
    F: Fn(&[T]) + Sync,
{
    reduce(j, items, grain, f, &|(), ()| ())
}

/// The outputs of the pieces of a parallel pass, in order, not yet concatenated:
/// combining two is a move of vector headers, so a pass's span does not grow with its
/// output; [`concat()`] then copies them into one vector in parallel.
pub type Pieces<U> = Vec<Vec<U>>;

/// Joins the piece lists of two halves (left first): moves no elements.
pub fn join_pieces<U>(mut a: Pieces<U>, mut b: Pieces<U>) -> Pieces<U> {
    a.append(&mut b);
    a
}

/// The pieces' items in order in one vector; the copying runs in parallel, a `join` per
/// halving of the list of pieces.
pub fn concat<J, U>(j: &mut J, pieces: Pieces<U>) -> Vec<U>
where
    J: Join,
    U: Copy + Default + Send + Sync,
{
    let pieces: Vec<Vec<U>> = pieces.into_iter().filter(|p| !p.is_empty()).collect();
    match pieces.len() {
        0 => return Vec::new(),
        1 => return pieces.into_iter().next().expect("one piece"),
        _ => {}
    }
    let total = pieces.iter().map(Vec::len).sum();
    let mut out = vec![U::default(); total];
    copy_pieces(j, &pieces, &mut out);
    out
}

/// Copies `pieces` into `out` (exactly as long as all of them): a `join` per halving of
/// the list of pieces, each piece by [`par_copy`].
fn copy_pieces<J: Join, U: Copy + Send + Sync>(j: &mut J, pieces: &[Vec<U>], out: &mut [U]) {
    if pieces.len() == 1 {
        par_copy(j, out, &pieces[0]);
        return;
    }
    let (lo, hi) = pieces.split_at(pieces.len() / 2);
    let (out_lo, out_hi) = out.split_at_mut(lo.iter().map(Vec::len).sum());
    j.join(
        |j| copy_pieces(j, lo, out_lo),
        |j| copy_pieces(j, hi, out_hi),
    );
}

/// Whatever `f(piece, out)` pushes onto `out` for each piece, concatenated in the order of
/// the pieces.
pub fn flat_map<J, T, U, F>(j: &mut J, items: &[T], grain: usize, f: &F) -> Vec<U>
where
    J: Join,
    T: Sync,
    U: Copy + Default + Send + Sync,
    F: Fn(&[T], &mut Vec<U>) + Sync,
{
    let pieces = reduce(
        j,
        items,
        grain,
        &|piece| {
            let mut out = Vec::new();
            f(piece, &mut out);
            vec![out]
        },
        &join_pieces,
    );
    concat(j, pieces)
}

/// The items for which `keep` holds, in their order.
pub fn filter<J, T, F>(j: &mut J, items: &[T], grain: usize, keep: &F) -> Vec<T>
where
    J: Join,
    T: Copy + Default + Send + Sync,
    F: Fn(&T) -> bool + Sync,
{
    flat_map(j, items, grain, &|piece: &[T], out: &mut Vec<T>| {
        out.extend(piece.iter().copied().filter(|x| keep(x)))
    })
}

/// Copies `src` into `dst` in parallel (chunks of [`COPY_CHUNK`]).
///
/// # Panics
///
/// If the lengths differ.
///
/// ```
/// use magpie_apps::join::Sequential;
/// let mut dst = [0u8; 3];
/// magpie_apps::pbbs::par::par_copy(&mut Sequential, &mut dst, &[7, 8, 9]);
/// assert_eq!(dst, [7, 8, 9]);
/// ```
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::join::Sequential;

    #[test]
    fn pieces_cover_in_order() {
        let v: Vec<usize> = (0..1000).collect();
        for grain in [1, 7, 64, 5000] {
            let got = flat_map(
                &mut Sequential,
                &v,
                grain,
                &|p: &[usize], o: &mut Vec<usize>| o.extend_from_slice(p),
            );
            assert_eq!(got, v);
            let mut w = vec![0usize; 1000];
            par_chunks(&mut Sequential, &mut w, grain, &|c, xs: &mut [usize]| {
                for (k, x) in xs.iter_mut().enumerate() {
                    *x = (c * grain + k) * 3;
                }
            });
            assert!(w.iter().enumerate().all(|(i, &x)| x == i * 3));
            let pieces = std::sync::Mutex::new(Vec::new());
            for_pieces(&mut Sequential, &v, grain, &|p| {
                assert!(!p.is_empty() && p.len() <= grain);
                pieces.lock().unwrap().push((p[0], p.len()));
            });
            let mut pieces = pieces.into_inner().unwrap();
            pieces.sort_unstable();
            let mut next = 0;
            for (first, len) in pieces {
                assert_eq!(first, next, "pieces tile the slice");
                next += len;
            }
            assert_eq!(next, 1000);
        }
        assert!(filter(&mut Sequential, &[] as &[u32], 4, &|_| true).is_empty());
        let pieces = vec![vec![1u8, 2], vec![], vec![3], vec![4, 5, 6]];
        assert_eq!(concat(&mut Sequential, pieces), [1, 2, 3, 4, 5, 6]);
        assert!(concat::<_, u8>(&mut Sequential, vec![vec![], vec![]]).is_empty());
        // A piece longer than a copy chunk goes through par_copy's chunks.
        let long: Vec<u32> = (0..(COPY_CHUNK as u32 * 2 + 5)).collect();
        let got = concat(&mut Sequential, vec![vec![9], long.clone(), vec![7]]);
        assert_eq!(got.len(), long.len() + 2);
        assert_eq!(
            (got[0], &got[1..=long.len()], got[long.len() + 1]),
            (9, &long[..], 7)
        );
    }
}
