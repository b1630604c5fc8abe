//! The one abstraction every kernel is written against: a fork-join `join`.
//!
//! Each kernel is written once, generic over [`Join`]; every runtime provides an
//! implementation. The context (`&mut Self`) is threaded through so that chili, whose
//! `Scope::join` hands each closure a `&mut Scope`, fits the same shape as rayon and
//! magpie, whose `join` is a free function (they use zero-sized markers).

/// A fork-join context: `join(a, b)` runs `a` and `b`, possibly in parallel, and returns
/// both results.
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

/// `rayon::join`, in whatever rayon pool the caller is `install`ed in.
#[derive(Debug, Clone, Copy, Default)]
pub struct Rayon;

impl Join for Rayon {
    #[inline]
    fn join<RA, RB, A, B>(&mut self, a: A, b: B) -> (RA, RB)
    where
        A: FnOnce(&mut Self) -> RA + Send,
        B: FnOnce(&mut Self) -> RB + Send,
        RA: Send,
        RB: Send,
    {
        rayon::join(|| a(&mut Rayon), || b(&mut Rayon))
    }
}

/// `magpie::join`, in whatever magpie pool the caller is `install`ed in.
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

/// chili: forwards to [`chili::Scope::join`].
impl<'s> Join for chili::Scope<'s> {
    #[inline]
    fn join<RA, RB, A, B>(&mut self, a: A, b: B) -> (RA, RB)
    where
        A: FnOnce(&mut Self) -> RA + Send,
        B: FnOnce(&mut Self) -> RB + Send,
        RA: Send,
        RB: Send,
    {
        chili::Scope::join(
            self,
            // SAFETY: see `same_scope`.
            move |s| a(unsafe { same_scope(s) }),
            // SAFETY: see `same_scope`.
            move |s| b(unsafe { same_scope(s) }),
        )
    }
}

/// Re-labels the lifetime of the scope chili hands to a `join` closure.
///
/// chili calls each closure with a `&mut Scope<'x>` for some `'x` of its choosing (the
/// caller's scope, or the scope of the worker that took the job), while [`Join`] promises
/// the closure a `&mut Self`. A `Scope`'s lifetime parameter only bounds its borrow of the
/// job queue of the thread it runs on; the kernels never move, swap or keep a scope (they
/// only ever hold one `&mut` at a time, which a generic `join` caller cannot swap with
/// anything), so the scope is only used, during the closure's call, on the thread chili
/// gave it to, exactly as chili would use it.
///
/// # Safety
/// The returned reference must not be used to move a `Scope` out or in (`mem::swap`,
/// `mem::replace`), nor outlive the closure call.
#[inline(always)]
unsafe fn same_scope<'a, 'x, 's>(s: &'a mut chili::Scope<'x>) -> &'a mut chili::Scope<'s> {
    // SAFETY: same type up to a lifetime; the caller upholds the contract above.
    unsafe { &mut *(s as *mut chili::Scope<'x>).cast::<chili::Scope<'s>>() }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernels::{fib, nqueens};
    use std::num::NonZeroUsize;

    #[test]
    fn every_join_gives_the_same_answers() {
        let rayon_pool = rayon::ThreadPoolBuilder::new()
            .num_threads(2)
            .build()
            .unwrap();
        assert_eq!(rayon_pool.install(|| fib(&mut Rayon, 20)), 6765);
        let chili_pool = chili::ThreadPool::with_config(chili::Config {
            thread_count: NonZeroUsize::new(2),
            ..Default::default()
        });
        assert_eq!(fib(&mut chili_pool.scope(), 20), 6765);
        assert_eq!(nqueens(&mut chili_pool.scope(), 8), 92);
        assert_eq!(fib(&mut Sequential, 20), 6765);
        for kind in magpie::deque::DequeKind::ALL {
            let pool = magpie::ThreadPoolBuilder::new()
                .num_workers(2)
                .deque(kind)
                .build()
                .unwrap();
            assert_eq!(pool.install(|| fib(&mut Magpie, 20)), 6765, "{kind}");
            assert_eq!(pool.install(|| nqueens(&mut Magpie, 8)), 92, "{kind}");
        }
    }
}
