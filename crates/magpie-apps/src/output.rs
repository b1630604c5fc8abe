//! Filling an output vector from a scheduled loop, one value per iteration, without
//! `unsafe` and without a per-chunk allocation: each slot is an atomic cell written once with
//! a relaxed store (a plain store on x86-64 and AArch64), so the loop body costs what it
//! costs in C with `out[i] = f(i)`, which keeps the OpenMP and rayon peers comparable.

use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};

use magpie::loops::Loop;

/// A value that can live in an atomic cell of the same size.
pub trait Cell: Copy + Send + Sync {
    /// The atomic cell holding one value.
    type Atomic: Send + Sync;
    /// A cell holding the zero value.
    fn zero() -> Self::Atomic;
    /// Stores `v` into `cell` (relaxed: the loop's end publishes every store).
    fn store(cell: &Self::Atomic, v: Self);
    /// The value of a cell no one else can reach any more.
    fn take(cell: Self::Atomic) -> Self;
}

impl Cell for u32 {
    type Atomic = AtomicU32;
    fn zero() -> AtomicU32 {
        AtomicU32::new(0)
    }
    fn store(cell: &AtomicU32, v: u32) {
        cell.store(v, Ordering::Relaxed);
    }
    fn take(cell: AtomicU32) -> u32 {
        cell.into_inner()
    }
}

impl Cell for f64 {
    type Atomic = AtomicU64;
    fn zero() -> AtomicU64 {
        AtomicU64::new(0)
    }
    fn store(cell: &AtomicU64, v: f64) {
        cell.store(v.to_bits(), Ordering::Relaxed);
    }
    fn take(cell: AtomicU64) -> f64 {
        f64::from_bits(cell.into_inner())
    }
}

/// `(0..n).map(f)` computed by the loop `lp` on the current pool, in index order.
///
/// ```
/// use magpie::loops::{Loop, Schedule};
/// let lp = Loop::new("ss,3".parse::<Schedule>().unwrap());
/// let squares: Vec<u32> = magpie_apps::output::map_indexed(&lp, 5, |i| (i * i) as u32);
/// assert_eq!(squares, [0, 1, 4, 9, 16]);
/// ```
pub fn map_indexed<T: Cell>(lp: &Loop, n: usize, f: impl Fn(usize) -> T + Sync) -> Vec<T> {
    let out: Vec<T::Atomic> = (0..n).map(|_| T::zero()).collect();
    lp.for_chunks(0..n, |r| {
        for i in r {
            T::store(&out[i], f(i));
        }
    });
    out.into_iter().map(T::take).collect()
}

/// FNV-1a (64-bit) over `words`, each as 8 little-endian bytes: the checksum of the
/// histogram's counts and of SpMV's `y` (as the bits of each entry).
///
/// ```
/// use magpie_apps::output::fnv64;
/// assert_eq!(fnv64([]), 0xcbf2_9ce4_8422_2325);
/// assert_ne!(fnv64([1, 2]), fnv64([2, 1]));
/// ```
pub fn fnv64(words: impl IntoIterator<Item = u64>) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for w in words {
        for b in w.to_le_bytes() {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x0000_0100_0000_01b3);
        }
    }
    h
}

/// `value / 10^decimals` written exactly (knapsack profits and weights in the units of
/// their file).
///
/// ```
/// use magpie_apps::output::scaled;
///
/// assert_eq!(scaled(4810694, 4), "481.0694");
/// assert_eq!(scaled(5, 3), "0.005");
/// assert_eq!(scaled(295, 0), "295");
/// ```
pub fn scaled(value: u64, decimals: u32) -> String {
    if decimals == 0 {
        return value.to_string();
    }
    let unit = 10u64.pow(decimals);
    format!(
        "{}.{:0width$}",
        value / unit,
        value % unit,
        width = decimals as usize
    )
}
