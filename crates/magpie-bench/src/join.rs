//! The peers' implementations of [`Join`], the trait every kernel of `magpie_apps` is
//! written against: [`Rayon`] and [`Chili`] here, beside magpie's and the sequential
//! baseline's from `magpie_apps::join` (re-exported).

pub use magpie_apps::join::{Join, Magpie, Sequential};

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

/// chili: a [`chili::Scope`] whose `join` forwards to [`chili::Scope::join`]. Built with
/// [`Chili::new`] from the pool's scope.
#[repr(transparent)]
pub struct Chili<'s>(chili::Scope<'s>);

impl<'s> Chili<'s> {
    /// Wraps `scope` (from [`chili::ThreadPool::scope`]).
    pub fn new(scope: chili::Scope<'s>) -> Self {
        Chili(scope)
    }
}

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
#[inline(always)]
unsafe fn same_scope<'a, 'x, 's>(s: &'a mut chili::Scope<'x>) -> &'a mut Chili<'s> {
    // SAFETY: `Chili<'s>` is `repr(transparent)` over `Scope<'s>`, the same type as
    // `Scope<'x>` up to a lifetime; the caller upholds the contract above.
    unsafe { &mut *(s as *mut chili::Scope<'x>).cast::<Chili<'s>>() }
}

#[cfg(test)]
mod tests {
    use super::*;
    use magpie_apps::{fib, nqueens};
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
        assert_eq!(fib(&mut Chili::new(chili_pool.scope()), 20), 6765);
        assert_eq!(nqueens(&mut Chili::new(chili_pool.scope()), 8), 92);
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
