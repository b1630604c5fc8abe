//! The one abstraction the fork-join kernels are written against: [`Join`].
//!
//! Each kernel of this crate ([`crate::fib`], [`crate::quicksort`], …) is written once,
//! generic over a `J: Join`, and every runtime that runs it provides an implementation:
//! [`Magpie`] (magpie's [`magpie::join`]) and [`Sequential`] (the baseline) here, rayon and
//! chili in `magpie-bench`, which compares them on the same kernel code.
//!
//! The context (`&mut Self`) is threaded through every call so that a runtime whose `join`
//! hands each closure a scope (chili's `Scope::join`) fits the same shape as one whose `join`
//! is a free function (magpie, rayon), which uses a zero-sized marker. The kernels are
//! monomorphised per implementation: `fib(&mut Magpie, n)` compiles to the same code as a
//! `fib` written with `magpie::join` directly (no `dyn`, nothing in the hot path).
//!
//! ```
//! use magpie_apps::join::{Join, Magpie, Sequential};
//!
//! /// The number of leaves of a complete binary tree of depth `d`, forking at every node.
//! fn leaves<J: Join>(j: &mut J, d: u32) -> u64 {
//!     if d == 0 {
//!         return 1;
//!     }
//!     let (a, b) = j.join(|j| leaves(j, d - 1), |j| leaves(j, d - 1));
//!     a + b
//! }
//!
//! let pool = magpie::ThreadPoolBuilder::new().num_workers(2).build().unwrap();
//! assert_eq!(pool.install(|| leaves(&mut Magpie, 10)), 1024);
//! assert_eq!(leaves(&mut Sequential, 10), 1024);
//! ```

/// A fork-join context: `join(a, b)` runs `a` and `b`, possibly in parallel, and returns
/// both results. Each closure gets the context to fork further.
pub trait Join {
    /// Runs `a` and `b`, potentially in parallel, and returns `(a's result, b's result)`.
    fn join<RA, RB, A, B>(&mut self, a: A, b: B) -> (RA, RB)
    where
        A: FnOnce(&mut Self) -> RA + Send,
        B: FnOnce(&mut Self) -> RB + Send,
        RA: Send,
        RB: Send;
}

/// The baseline: `join` runs `a`, then `b`, on the calling thread.
///
/// ```
/// use magpie_apps::join::Sequential;
/// assert_eq!(magpie_apps::fib(&mut Sequential, 20), 6765);
/// ```
#[derive(Debug, Clone, Copy, Default)]
pub struct Sequential;

impl Join for Sequential {
    #[inline]
    fn join<RA, RB, A, B>(&mut self, a: A, b: B) -> (RA, RB)
    where
        A: FnOnce(&mut Self) -> RA + Send,
        B: FnOnce(&mut Self) -> RB + Send,
        RA: Send,
        RB: Send,
    {
        let ra = a(self);
        let rb = b(self);
        (ra, rb)
    }
}

/// magpie: [`magpie::join`], on the pool the caller is [`install`](magpie::ThreadPool::install)ed
/// in (elsewhere, magpie's global pool).
///
/// ```
/// use magpie_apps::join::Magpie;
/// let pool = magpie::ThreadPoolBuilder::new().num_workers(2).deque("chase-lev").build().unwrap();
/// assert_eq!(pool.install(|| magpie_apps::fib(&mut Magpie, 20)), 6765);
/// ```
#[derive(Debug, Clone, Copy, Default)]
pub struct Magpie;

impl Join for Magpie {
    #[inline]
    fn join<RA, RB, A, B>(&mut self, a: A, b: B) -> (RA, RB)
    where
        A: FnOnce(&mut Self) -> RA + Send,
        B: FnOnce(&mut Self) -> RB + Send,
        RA: Send,
        RB: Send,
    {
        magpie::join(|| a(&mut Magpie), || b(&mut Magpie))
    }
}
