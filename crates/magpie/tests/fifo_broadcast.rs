//! The runtime features rayon-core's API needs, tested on magpie's own API: FIFO spawns and
//! scopes, broadcasts, `join_context`'s migrated flag, the yields, `in_place_scope`, the
//! calling thread as worker 0, spawn handlers, scoped pools and thread handlers. Every
//! assertion is an exact count or order that a wrong runtime gets wrong.

use magpie::{ThreadPool, ThreadPoolBuilder, Yield};
use std::panic::{self, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{mpsc, Arc, Mutex};

const DEQUES: [&str; 5] = [
    "chase-lev",
    "lcws-user",
    "lcws-signal",
    "lcws-conservative",
    "lcws-half",
];

fn pool(n: usize, deque: &str) -> ThreadPool {
    ThreadPoolBuilder::new()
        .num_workers(n)
        .deque(deque)
        .build()
        .unwrap()
}

#[test]
fn one_worker_runs_scope_spawns_lifo_and_fifo_spawns_fifo() {
    for deque in DEQUES {
        let p = pool(1, deque);
        let order = Mutex::new(Vec::new());
        let push = |i: usize| order.lock().unwrap().push(i);
        p.scope(|s| (0..10).for_each(|i| s.spawn(move |_| push(i))));
        p.scope_fifo(|s| (10..20).for_each(|i| s.spawn_fifo(move |_| push(i))));
        let want: Vec<usize> = (0..10).rev().chain(10..20).collect();
        assert_eq!(order.into_inner().unwrap(), want, "{deque}");
    }
}

/// A FIFO job that spawns FIFO jobs of a nested scope: the nested scope's jobs run (in
/// order) before the outer scope's next job, because each scope has its own queues.
#[test]
fn nested_fifo_scopes_keep_their_own_order() {
    let p = pool(1, "lcws-user");
    let order = Mutex::new(Vec::new());
    p.scope_fifo(|s| {
        for i in 0..3 {
            let order = &order;
            s.spawn_fifo(move |_| {
                order.lock().unwrap().push(format!("{i}"));
                magpie::scope_fifo(|inner| {
                    for j in 0..2 {
                        inner.spawn_fifo(move |_| order.lock().unwrap().push(format!("{i}.{j}")));
                    }
                });
            });
        }
    });
    let got = order.into_inner().unwrap();
    assert_eq!(
        got,
        ["0", "0.0", "0.1", "1", "1.0", "1.1", "2", "2.0", "2.1"]
    );
}

/// Global `spawn_fifo` from one worker runs in spawn order; `spawn` in reverse.
#[test]
fn spawn_fifo_and_spawn_orders_on_one_worker() {
    let p = pool(1, "chase-lev");
    let (tx, rx) = mpsc::channel();
    p.install(|| {
        for i in 0..5 {
            let tx = tx.clone();
            magpie::spawn_fifo(move || tx.send(('f', i)).unwrap());
        }
    });
    let got: Vec<_> = rx.iter().take(5).collect();
    assert_eq!(got, (0..5).map(|i| ('f', i)).collect::<Vec<_>>());
}

#[test]
fn broadcast_runs_once_on_every_worker_from_anywhere() {
    for deque in DEQUES {
        for n in 1..=4 {
            let p = pool(n, deque);
            let want: Vec<(usize, usize)> = (0..n).map(|i| (i, n)).collect();
            let check = |ctx: magpie::BroadcastContext<'_>| {
                assert_eq!(magpie::current_worker_index(), Some(ctx.index()));
                (ctx.index(), ctx.num_threads())
            };
            // From outside the pool, from inside it, and from inside a join.
            assert_eq!(p.broadcast(check), want, "{deque} {n}");
            assert_eq!(p.install(|| magpie::broadcast(check)), want, "{deque} {n}");
            let (a, b) = p
                .install(|| magpie::join(|| magpie::broadcast(check), || magpie::broadcast(check)));
            assert_eq!((a, b), (want.clone(), want.clone()), "{deque} {n}");
            // spawn_broadcast: each index once, then nothing more.
            let (tx, rx) = mpsc::channel();
            p.spawn_broadcast(move |ctx| tx.send(ctx.index()).unwrap());
            let mut got: Vec<usize> = rx.iter().collect();
            got.sort_unstable();
            assert_eq!(got, (0..n).collect::<Vec<_>>(), "{deque} {n}");
            // The scopes' broadcasts, counted by the scope.
            let hits = AtomicUsize::new(0);
            p.scope(|s| {
                s.spawn_broadcast(|_, _| {
                    hits.fetch_add(1, Ordering::SeqCst);
                })
            });
            p.scope_fifo(|s| {
                s.spawn_broadcast(|_, _| {
                    hits.fetch_add(1, Ordering::SeqCst);
                })
            });
            assert_eq!(hits.into_inner(), 2 * n, "{deque} {n}");
        }
    }
}

/// Workers parked for a while still get their broadcast jobs (the broadcast wakes them).
#[test]
fn broadcast_wakes_parked_workers() {
    let p = ThreadPoolBuilder::new()
        .num_workers(3)
        .idle("park")
        .build()
        .unwrap();
    for _ in 0..20 {
        std::thread::sleep(std::time::Duration::from_millis(5));
        assert_eq!(p.broadcast(|ctx| ctx.index()), [0, 1, 2]);
    }
}

#[test]
fn broadcast_panics_propagate_after_every_worker_ran() {
    let p = pool(3, "chase-lev");
    let ran = AtomicUsize::new(0);
    let r = panic::catch_unwind(AssertUnwindSafe(|| {
        p.broadcast(|ctx| {
            ran.fetch_add(1, Ordering::SeqCst);
            if ctx.index() == 1 {
                panic!("broadcast part 1");
            }
        })
    }));
    let payload = r.unwrap_err();
    assert_eq!(payload.downcast_ref::<&str>(), Some(&"broadcast part 1"));
    assert_eq!(ran.into_inner(), 3);
    // The pool is still usable.
    assert_eq!(p.broadcast(|ctx| ctx.index()).len(), 3);
}

#[test]
fn spawn_fifo_and_spawn_broadcast_panics_go_to_the_handler() {
    let (tx, rx) = mpsc::channel::<String>();
    let tx = Mutex::new(tx);
    let p = ThreadPoolBuilder::new()
        .num_workers(2)
        .panic_handler(move |e| {
            let msg = e.downcast_ref::<&str>().unwrap().to_string();
            tx.lock().unwrap().send(msg).unwrap();
        })
        .build()
        .unwrap();
    p.spawn_fifo(|| panic!("fifo"));
    assert_eq!(rx.recv().unwrap(), "fifo");
    p.spawn_broadcast(|_| panic!("each"));
    assert_eq!([rx.recv().unwrap(), rx.recv().unwrap()], ["each", "each"]);
}

#[test]
fn join_context_reports_migration_truthfully() {
    let one = pool(1, "lcws-user");
    assert_eq!(
        one.install(|| magpie::join_context(|a| a.migrated(), |b| b.migrated())),
        (false, false)
    );
    // From outside any pool, `a` runs on a worker: it migrated.
    let (a_out, _) = magpie::join_context(|a| a.migrated(), |_| ());
    assert!(a_out);
    // `a` waits until `b` runs: `b` can only run meanwhile on the other worker, stolen.
    let two = pool(2, "chase-lev");
    for _ in 0..20 {
        let started = AtomicBool::new(false);
        let (_, b) = two.install(|| {
            magpie::join_context(
                |_| {
                    while !started.load(Ordering::Acquire) {
                        std::hint::spin_loop();
                    }
                },
                |b| {
                    started.store(true, Ordering::Release);
                    b.migrated()
                },
            )
        });
        assert!(b);
    }
}

#[test]
fn yields_run_exactly_the_pending_jobs() {
    let p = pool(1, "lcws-user");
    p.install(|| {
        assert_eq!(magpie::current_thread_has_pending_tasks(), Some(false));
        assert_eq!(magpie::yield_local(), Some(Yield::Idle));
        let ran = Arc::new(AtomicUsize::new(0));
        for _ in 0..3 {
            let ran = Arc::clone(&ran);
            magpie::spawn(move || {
                ran.fetch_add(1, Ordering::SeqCst);
            });
        }
        assert_eq!(magpie::current_thread_has_pending_tasks(), Some(true));
        assert_eq!(magpie::yield_local(), Some(Yield::Executed));
        assert_eq!(magpie::yield_now(), Some(Yield::Executed));
        assert_eq!(magpie::yield_now(), Some(Yield::Executed));
        assert_eq!(magpie::yield_now(), Some(Yield::Idle));
        assert_eq!(ran.load(Ordering::SeqCst), 3);
        assert_eq!(magpie::current_thread_has_pending_tasks(), Some(false));
    });
    assert_eq!(p.yield_now(), None);
    assert_eq!(p.yield_local(), None);
}

#[test]
fn in_place_scope_runs_its_body_here_and_its_jobs_in_the_pool() {
    let p = pool(2, "lcws-user");
    let on_pool = AtomicUsize::new(0);
    let body_thread = p.in_place_scope(|s| {
        for _ in 0..8 {
            s.spawn(|_| {
                if magpie::current_worker_index().is_some() {
                    on_pool.fetch_add(1, Ordering::SeqCst);
                }
            });
        }
        magpie::current_worker_index()
    });
    assert_eq!(body_thread, None);
    assert_eq!(on_pool.into_inner(), 8);
    // A panicking job of an in-place scope: the scope waits for the rest, then propagates.
    let done = AtomicUsize::new(0);
    let r = panic::catch_unwind(AssertUnwindSafe(|| {
        p.in_place_scope_fifo(|s| {
            s.spawn_fifo(|_| panic!("job"));
            for _ in 0..4 {
                s.spawn_fifo(|_| {
                    done.fetch_add(1, Ordering::SeqCst);
                });
            }
        })
    }));
    assert_eq!(r.unwrap_err().downcast_ref::<&str>(), Some(&"job"));
    assert_eq!(done.into_inner(), 4);
}

#[test]
fn the_calling_thread_becomes_worker_zero() {
    std::thread::spawn(|| {
        let p = ThreadPoolBuilder::new()
            .num_workers(2)
            .deque("lcws-signal")
            .use_current_thread()
            .build()
            .unwrap();
        assert_eq!(magpie::current_worker_index(), Some(0));
        assert_eq!(p.install(magpie::current_worker_index), Some(0));
        let err = ThreadPoolBuilder::new()
            .use_current_thread()
            .build()
            .unwrap_err();
        assert!(
            matches!(err, magpie::BuildError::CurrentThreadInPool),
            "{err}"
        );
        // A job it spawns is taken by worker 1, though worker 0 runs no loop.
        let (tx, rx) = mpsc::channel();
        p.spawn(move || tx.send(magpie::current_worker_index()).unwrap());
        assert_eq!(rx.recv().unwrap(), Some(1));
        // Its joins and scopes run with the pool.
        let sum: u64 = p.install(|| {
            let (a, b) = magpie::join(|| (0..1000u64).sum::<u64>(), || 7);
            a + b
        });
        assert_eq!(sum, 499_507);
    })
    .join()
    .unwrap();
}

#[test]
fn spawn_handlers_scoped_pools_and_thread_handlers() {
    let started = Arc::new(AtomicUsize::new(0));
    let exited = Arc::new(AtomicUsize::new(0));
    let (s, e) = (Arc::clone(&started), Arc::clone(&exited));
    let local = [1u64, 2, 3];
    let total = ThreadPoolBuilder::new()
        .num_workers(3)
        .start_handler(move |_| {
            s.fetch_add(1, Ordering::SeqCst);
        })
        .exit_handler(move |_| {
            e.fetch_add(1, Ordering::SeqCst);
        })
        .build_scoped(
            |worker| {
                assert_eq!(local.len(), 3);
                worker.run()
            },
            |p| p.install(|| local.iter().sum::<u64>()),
        )
        .unwrap();
    assert_eq!(total, 6);
    // build_scoped returns after every worker exited.
    assert_eq!(
        (
            started.load(Ordering::SeqCst),
            exited.load(Ordering::SeqCst)
        ),
        (3, 3)
    );
    // A spawn handler that fails fails the build, with its error.
    let err = ThreadPoolBuilder::new()
        .num_workers(2)
        .build_with_spawn_handler(|_| Err(std::io::Error::other("no threads today")))
        .unwrap_err();
    assert!(err.to_string().contains("no threads today"), "{err}");
}

#[test]
fn the_free_functions_use_the_current_pool() {
    let p = pool(3, "lcws-user");
    assert_eq!(
        p.install(|| magpie::broadcast(|c| c.num_threads())),
        [3, 3, 3]
    );
    let before = p.stats().total().tasks_run;
    p.install(|| magpie::scope_fifo(|s| (0..10).for_each(|_| s.spawn_fifo(|_| ()))));
    assert!(p.stats().total().tasks_run >= before + 10);
}

/// From outside any pool the whole join migrated: both closures say so, as in rayon.
#[test]
fn an_injected_join_migrated_as_a_whole() {
    let (a, b) = magpie::join_context(|a| a.migrated(), |b| b.migrated());
    assert_eq!((a, b), (true, true));
}

/// A spawned job that outlives its pool's handle still runs on live workers: it can
/// broadcast, and the pool's drop waits for it (the pool's live count).
#[test]
fn spawned_jobs_keep_a_dropped_pool_running() {
    for deque in DEQUES {
        let p = pool(3, deque);
        let (tx, rx) = mpsc::channel();
        p.spawn(move || {
            std::thread::sleep(std::time::Duration::from_millis(30));
            tx.send(magpie::broadcast(|ctx| ctx.index())).unwrap();
        });
        drop(p);
        assert_eq!(rx.recv().unwrap(), [0, 1, 2], "{deque}");
    }
}

/// A panic in a `thread_name` closure half-way through a build stops the workers already
/// started (`build_scoped` would otherwise wait for them forever).
#[test]
fn a_panic_during_the_build_stops_the_started_workers() {
    let exited = Arc::new(AtomicUsize::new(0));
    let e = Arc::clone(&exited);
    let r = panic::catch_unwind(AssertUnwindSafe(|| {
        ThreadPoolBuilder::new()
            .num_workers(3)
            .thread_name(|i| {
                if i == 2 {
                    panic!("no name for 2")
                } else {
                    format!("w{i}")
                }
            })
            .exit_handler(move |_| {
                e.fetch_add(1, Ordering::SeqCst);
            })
            .build_scoped(|w| w.run(), |_| ())
    }));
    assert!(r.is_err());
    // build_scoped returned: the scope joined the two started workers, which ran their
    // exit handlers.
    assert_eq!(exited.load(Ordering::SeqCst), 2);
}

/// A worker of another pool run on a worker of this one (by a spawn handler) gives the
/// thread its first worker state back when it ends.
#[test]
fn a_worker_run_inside_a_worker_restores_it() {
    let x = pool(2, "chase-lev");
    let (tx, rx) = mpsc::channel();
    let y = ThreadPoolBuilder::new()
        .num_workers(1)
        .build_with_spawn_handler(|w| {
            let tx = tx.clone();
            x.spawn(move || {
                let before = magpie::current_worker_index();
                w.run();
                tx.send((before, magpie::current_worker_index())).unwrap();
            });
            Ok(())
        })
        .unwrap();
    assert_eq!(y.install(|| 6 * 7), 42);
    drop(y);
    let (before, after) = rx.recv().unwrap();
    assert!(before.is_some());
    assert_eq!(before, after);
    assert!(x.install(magpie::current_worker_index).is_some());
}

/// Dropping a pool on its adopted worker 0 serves the pool until the other workers exited:
/// the jobs it queued run, and every other worker's exit handler ran.
#[test]
fn dropping_a_pool_on_its_adopted_thread_joins_the_others() {
    std::thread::spawn(|| {
        let exited = Arc::new(AtomicUsize::new(0));
        let e = Arc::clone(&exited);
        let p = ThreadPoolBuilder::new()
            .num_workers(3)
            .use_current_thread()
            .exit_handler(move |_| {
                e.fetch_add(1, Ordering::SeqCst);
            })
            .build()
            .unwrap();
        let ran = Arc::new(AtomicUsize::new(0));
        for _ in 0..10 {
            let ran = Arc::clone(&ran);
            p.spawn(move || {
                ran.fetch_add(1, Ordering::SeqCst);
            });
        }
        drop(p);
        assert_eq!(ran.load(Ordering::SeqCst), 10);
        assert_eq!(exited.load(Ordering::SeqCst), 2);
    })
    .join()
    .unwrap();
}
