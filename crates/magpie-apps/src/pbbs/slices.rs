//! The data-parallel building blocks of the graph and geometry kernels, written over
//! [`Join`]: a slice is halved recursively (each half in a `join`) until a piece has at
//! most `grain` items, which runs sequentially. Results combine in slice order, so a
//! filter keeps the order of its input whatever runtime runs it.
//!
//! ```
//! use magpie_apps::join::{Magpie, Sequential};
//! use magpie_apps::pbbs::slices as par;
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

/// Reduces `items`: `leaf` on each piece of at most `grain` items (at least one piece, empty
/// when `items` is), `combine(left, right)` up the halving tree.
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

/// Runs `f(start, piece)` on pieces of at most `grain` items covering `items`, where
/// `start` is the index of the piece's first item in `items`.
pub fn for_pieces<J, T, F>(j: &mut J, items: &[T], grain: usize, f: &F)
where
    J: Join,
    T: Sync,
    F: Fn(usize, &[T]) + Sync,
{
    pieces_from(j, items, 0, grain, f)
}

fn pieces_from<J, T, F>(j: &mut J, items: &[T], start: usize, grain: usize, f: &F)
where
    J: Join,
    T: Sync,
    F: Fn(usize, &[T]) + Sync,
{
    if items.len() <= grain.max(1) {
        return f(start, items);
    }
    let mid = items.len() / 2;
    let (lo, hi) = items.split_at(mid);
    j.join(
        |j| pieces_from(j, lo, start, grain, f),
        |j| pieces_from(j, hi, start + mid, grain, f),
    );
}

/// Runs `f(i, &mut items[i])` for every index, in pieces of at most `grain` items.
pub fn for_each_mut<J, T, F>(j: &mut J, items: &mut [T], grain: usize, f: &F)
where
    J: Join,
    T: Send,
    F: Fn(usize, &mut T) + Sync,
{
    each_mut_from(j, items, 0, grain, f)
}

fn each_mut_from<J, T, F>(j: &mut J, items: &mut [T], start: usize, grain: usize, f: &F)
where
    J: Join,
    T: Send,
    F: Fn(usize, &mut T) + Sync,
{
    if items.len() <= grain.max(1) {
        for (k, x) in items.iter_mut().enumerate() {
            f(start + k, x);
        }
        return;
    }
    let mid = items.len() / 2;
    let (lo, hi) = items.split_at_mut(mid);
    j.join(
        |j| each_mut_from(j, lo, start, grain, f),
        |j| each_mut_from(j, hi, start + mid, grain, f),
    );
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

/// Copies `pieces` into `out` (exactly as long as all of them).
fn copy_pieces<J: Join, U: Copy + Send + Sync>(j: &mut J, pieces: &[Vec<U>], out: &mut [U]) {
    if pieces.len() == 1 {
        out.copy_from_slice(&pieces[0]);
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
            for_each_mut(&mut Sequential, &mut w, grain, &|i, x| *x = i * 3);
            assert!(w.iter().enumerate().all(|(i, &x)| x == i * 3));
            let starts = std::sync::Mutex::new(Vec::new());
            for_pieces(&mut Sequential, &v, grain, &|s, p| {
                assert_eq!(p[0], s);
                starts.lock().unwrap().push((s, p.len()));
            });
            let starts = starts.into_inner().unwrap();
            assert_eq!(starts.iter().map(|p| p.1).sum::<usize>(), 1000);
        }
        assert!(filter(&mut Sequential, &[] as &[u32], 4, &|_| true).is_empty());
        let pieces = vec![vec![1u8, 2], vec![], vec![3], vec![4, 5, 6]];
        assert_eq!(concat(&mut Sequential, pieces), [1, 2, 3, 4, 5, 6]);
        assert!(concat::<_, u8>(&mut Sequential, vec![vec![], vec![]]).is_empty());
    }
}
