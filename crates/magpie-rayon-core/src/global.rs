//! The free functions that may start the global pool: each is magpie's, after one check.
//!
//! Outside any pool, magpie's free functions use its global pool, built on first use with
//! magpie's defaults. A rayon program expects rayon's (`ThreadPoolBuilder::new()`: Chase-Lev
//! unless `MAGPIE_DEQUE` says otherwise, abort on an unhandled spawn panic; see
//! `magpie::ThreadPoolBuilder::rayon_defaults`). So each function here first makes sure,
//! when the calling thread is no pool's worker, that the global pool exists, building it with
//! this crate's builder if nobody did (a `build_global` that finds it built already changes
//! nothing). On a worker, the check is one thread-local read.

use std::sync::Once;

use crate::{BroadcastContext, FnContext, Scope, ScopeFifo};

/// Builds the global pool with rayon's defaults unless it exists; a bad `MAGPIE_*` variable
/// is said in one line on stderr, and the global pool then starts with the defaults.
#[cold]
fn start_global() {
    static START: Once = Once::new();
    START.call_once(|| {
        if let Err(e) = crate::ThreadPoolBuilder::new().build_global() {
            if e.is_config() {
                use std::io::Write;
                let _ = writeln!(
                    std::io::stderr(),
                    "rayon-core (magpie): global pool: {e}; using the default configuration instead"
                );
                let _ = crate::ThreadPoolBuilder::from_defaults().build_global();
            }
        }
    });
}

/// Makes sure a pool is there for a call from this thread.
#[inline(always)]
fn ensure_pool() {
    if magpie::current_worker_index().is_none() {
        start_global();
    }
}

/// Runs `a` and `b`, potentially in parallel (`magpie::join`).
#[inline]
pub fn join<A, B, RA, RB>(oper_a: A, oper_b: B) -> (RA, RB)
where
    A: FnOnce() -> RA + Send,
    B: FnOnce() -> RB + Send,
    RA: Send,
    RB: Send,
{
    ensure_pool();
    magpie::join(oper_a, oper_b)
}

/// [`join`], telling each closure whether it migrated (`magpie::join_context`).
#[inline]
pub fn join_context<A, B, RA, RB>(oper_a: A, oper_b: B) -> (RA, RB)
where
    A: FnOnce(FnContext) -> RA + Send,
    B: FnOnce(FnContext) -> RB + Send,
    RA: Send,
    RB: Send,
{
    ensure_pool();
    magpie::join_context(oper_a, oper_b)
}

/// The number of threads of the current pool (the global pool outside any pool).
///
/// ```
/// let pool = rayon_core::ThreadPoolBuilder::new().num_threads(3).build().unwrap();
/// assert_eq!(pool.install(rayon_core::current_num_threads), 3);
/// ```
#[inline]
pub fn current_num_threads() -> usize {
    ensure_pool();
    magpie::current_num_workers()
}

/// The scope functions: each makes sure a pool exists, then runs `magpie`'s function of the
/// same name. `NAME(SCOPE TYPE) [BOUNDS];` each, the bounds added to the `where` clause.
macro_rules! scopes {
    ($($(#[$doc:meta])* $name:ident($scope:ident) [$($bound:tt)*];)*) => {$(
        $(#[$doc])*
        pub fn $name<'scope, OP, R>(op: OP) -> R
        where
            OP: FnOnce(&$scope<'scope>) -> R,
            $($bound)*
        {
            ensure_pool();
            magpie::$name(op)
        }
    )*};
}

scopes! {
    /// A scope on the current pool (`magpie::scope`).
    scope(Scope) [OP: Send, R: Send];
    /// A FIFO scope on the current pool (`magpie::scope_fifo`).
    scope_fifo(ScopeFifo) [OP: Send, R: Send];
    /// A scope whose body runs on the calling thread (`magpie::in_place_scope`).
    in_place_scope(Scope) [];
    /// A FIFO scope whose body runs on the calling thread (`magpie::in_place_scope_fifo`).
    in_place_scope_fifo(ScopeFifo) [];
}

/// Spawns a `'static` job on the current pool (`magpie::spawn`).
pub fn spawn<F>(func: F)
where
    F: FnOnce() + Send + 'static,
{
    ensure_pool();
    magpie::spawn(func)
}

/// Spawns a `'static` job run in FIFO order (`magpie::spawn_fifo`).
pub fn spawn_fifo<F>(func: F)
where
    F: FnOnce() + Send + 'static,
{
    ensure_pool();
    magpie::spawn_fifo(func)
}

/// Runs `op` on every thread of the current pool (`magpie::broadcast`).
pub fn broadcast<OP, R>(op: OP) -> Vec<R>
where
    OP: Fn(BroadcastContext<'_>) -> R + Sync,
    R: Send,
{
    ensure_pool();
    magpie::broadcast(op)
}

/// Spawns `op` on every thread of the current pool (`magpie::spawn_broadcast`).
pub fn spawn_broadcast<OP>(op: OP)
where
    OP: Fn(BroadcastContext<'_>) + Send + Sync + 'static,
{
    ensure_pool();
    magpie::spawn_broadcast(op)
}
