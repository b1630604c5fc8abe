//! The one abstraction the fork-join kernels are written against: [`Join`].
//!
//! Each kernel of this crate ([`crate::fib`], [`crate::quicksort`], …) is written once,
//! generic over a `J: Join`, and every runtime that runs it provides an implementation:
//! [`Magpie`] (magpie's [`magpie::join`]) and [`Sequential`] (the baseline), and behind the
//! cargo features `rayon` and `chili` the peers' `Rayon` and `Chili`, which magpie-bench and
//! `magpie experiment` compare magpie with on the same kernel code.
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

/// `Join` for a zero-sized marker `$ty` whose runtime has a free `join` function `$join`
/// (magpie's, rayon's): each closure gets a fresh marker.
macro_rules! free_join {
    ($ty:ident, $join:path) => {
        impl Join for $ty {
            #[inline]
            fn join<RA, RB, A, B>(&mut self, a: A, b: B) -> (RA, RB)
            where
                A: FnOnce(&mut Self) -> RA + Send,
                B: FnOnce(&mut Self) -> RB + Send,
                RA: Send,
                RB: Send,
            {
                $join(|| a(&mut $ty), || b(&mut $ty))
            }
        }
    };
}

free_join!(Magpie, magpie::join);

/// rayon: `rayon::join`, in whatever rayon pool the caller is `install`ed in (feature
/// `rayon`).
///
/// ```
/// use magpie_apps::join::Rayon;
/// let pool = rayon::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
/// assert_eq!(pool.install(|| magpie_apps::fib(&mut Rayon, 20)), 6765);
/// ```
#[cfg(feature = "rayon")]
#[derive(Debug, Clone, Copy, Default)]
pub struct Rayon;

#[cfg(feature = "rayon")]
free_join!(Rayon, rayon::join);

/// chili: a [`chili::Scope`] whose `join` forwards to [`chili::Scope::join`]. Built with
/// [`Chili::new`] from the pool's scope (feature `chili`).
///
/// ```
/// use magpie_apps::join::Chili;
/// let pool = chili::ThreadPool::new();
/// assert_eq!(magpie_apps::fib(&mut Chili::new(pool.scope()), 20), 6765);
/// ```
#[cfg(feature = "chili")]
#[repr(transparent)]
pub struct Chili<'s>(chili::Scope<'s>);

#[cfg(feature = "chili")]
impl<'s> Chili<'s> {
    /// Wraps `scope` (from [`chili::ThreadPool::scope`]).
    pub fn new(scope: chili::Scope<'s>) -> Self {
        Chili(scope)
    }
}

#[cfg(feature = "chili")]
impl Join for Chili<'_> {
    #[inline]
    fn join<RA, RB, A, B>(&mut self, a: A, b: B) -> (RA, RB)
    where
        A: FnOnce(&mut Self) -> RA + Send,
        B: FnOnce(&mut Self) -> RB + Send,
        RA: Send,
        RB: Send,
    {
        self.0.join(
            // SAFETY: see `same_scope`.
            move |s| a(unsafe { same_scope(s) }),
            // SAFETY: see `same_scope`.
            move |s| b(unsafe { same_scope(s) }),
        )
    }
}

/// Re-labels the scope chili hands to a `join` closure as the [`Chili`] the closure expects.
///
/// chili calls each closure with a `&mut Scope<'x>` for some `'x` of its choosing (the
/// caller's scope, or the scope of the worker that took the job), while [`Join`] promises
/// the closure a `&mut Self`. `Chili` is a `repr(transparent)` wrapper of `Scope`, so the
/// cast changes no layout. A `Scope`'s lifetime parameter only bounds its borrow of the
/// job queue of the thread it runs on; the kernels never move, swap or keep a scope (they
/// only ever hold one `&mut` at a time, which a generic `join` caller cannot swap with
/// anything), so the scope is only used, during the closure's call, on the thread chili
/// gave it to, exactly as chili would use it.
///
/// # Safety
/// The returned reference must not be used to move a `Scope` out or in (`mem::swap`,
/// `mem::replace`), nor outlive the closure call.
#[cfg(feature = "chili")]
#[inline(always)]
unsafe fn same_scope<'a, 'x, 's>(s: &'a mut chili::Scope<'x>) -> &'a mut Chili<'s> {
    // SAFETY: `Chili<'s>` is `repr(transparent)` over `Scope<'s>`, the same type as
    // `Scope<'x>` up to a lifetime; the caller upholds the contract above.
    unsafe { &mut *(s as *mut chili::Scope<'x>).cast::<Chili<'s>>() }
}
