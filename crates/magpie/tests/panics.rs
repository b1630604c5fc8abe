//! Panic propagation: from either half of `join`, from both, from a scope body, from a
//! spawned scope job, from deep inside a join tree inside a scope, and from `spawn`ed jobs
//! (which go to the pool's panic handler). In each case the other work still runs exactly
//! once, the payload is the expected one, and the pool works afterwards.
#![cfg(not(loom))]

mod common;

use std::any::Any;
use std::panic::{catch_unwind, panic_any, AssertUnwindSafe};
use std::sync::atomic::{AtomicU8, AtomicUsize, Ordering::Relaxed};
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use common::{assert_pool_works, deques, fib, pool, pool_with, Joins, JOIN_MODES};
use magpie::ThreadPoolBuilder;

const WORKERS: [usize; 3] = [1, 2, 4];

/// Every join mode with every worker count.
fn modes() -> Vec<(Joins, usize)> {
    JOIN_MODES
        .iter()
        .flat_map(|&j| WORKERS.iter().map(move |&n| (j, n)))
        .collect()
}

/// Runs `f`, expects a panic, returns its payload.
fn expect_panic<R>(f: impl FnOnce() -> R) -> Box<dyn Any + Send> {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(_) => panic!("expected a panic, got a value"),
        Err(p) => p,
    }
}

fn str_payload(p: &(dyn Any + Send)) -> &'static str {
    match p.downcast_ref::<&'static str>() {
        Some(s) => s,
        None => panic!(
            "payload is not a &str (String: {:?})",
            p.downcast_ref::<String>()
        ),
    }
}

/// Some work so that the other half of a join has a chance to be stolen meanwhile.
fn busy() -> u64 {
    fib(16)
}

/// On every deque, join mode and worker count, 20 rounds of a join on a pool whose halves
/// run `a(round)` and `b(round)` (one or both panic): the payload must be `want`, each half
/// must have run exactly once, and the pool works afterwards.
fn check_join_panic(want: &str, a: impl Fn(usize) + Sync, b: impl Fn(usize) + Sync) {
    for deque in deques() {
        for (joins, n) in modes() {
            let pool = pool_with(deque, n, joins);
            for round in 0..20 {
                let (a_ran, b_ran) = (AtomicUsize::new(0), AtomicUsize::new(0));
                let p = expect_panic(|| {
                    pool.install(|| {
                        magpie::join(
                            || {
                                a_ran.fetch_add(1, Relaxed);
                                a(round)
                            },
                            || {
                                b_ran.fetch_add(1, Relaxed);
                                b(round)
                            },
                        )
                    })
                });
                let what = format!("{deque}, {joins:?}, {n} workers, round {round}");
                assert_eq!(str_payload(&*p), want, "{what}");
                assert_eq!(a_ran.load(Relaxed), 1, "{what}: a");
                assert_eq!(b_ran.load(Relaxed), 1, "{what}: b");
            }
            assert_pool_works(&pool);
        }
    }
}

#[test]
fn panic_in_a_propagates_b_runs_once() {
    check_join_panic(
        "a panicked",
        |_| {
            busy();
            panic!("a panicked")
        },
        |_| {
            busy();
        },
    );
}

#[test]
fn panic_in_b_propagates_a_runs_once() {
    check_join_panic(
        "b panicked",
        |_| {
            busy();
        },
        |_| {
            busy();
            panic!("b panicked")
        },
    );
}

#[test]
fn panic_in_both_a_wins() {
    // Alternate which half finishes first: a's payload must win either way.
    let work = |round: usize, half: usize| if round % 2 == half { 14 } else { 18 };
    check_join_panic(
        "a wins",
        |round| {
            fib(work(round, 0));
            panic!("a wins")
        },
        |round| {
            fib(work(round, 1));
            panic!("b loses")
        },
    );
}

/// A non-string payload survives the trip through `join` unchanged.
#[test]
fn panic_payload_type_preserved() {
    for deque in deques() {
        let pool = pool(deque, 2);
        let p = expect_panic(|| pool.install(|| magpie::join(busy, || panic_any(0xdead_u32))));
        assert_eq!(p.downcast_ref::<u32>(), Some(&0xdead), "{deque}");
        // A runtime argument, so the message is a formatted `String` (a literal argument
        // would be folded into a `&'static str` payload).
        let v = std::hint::black_box(42);
        let p = expect_panic(|| pool.install(|| panic!("formatted {v}")));
        assert_eq!(
            p.downcast_ref::<String>().map(String::as_str),
            Some("formatted 42"),
            "{deque}"
        );
        assert_pool_works(&pool);
    }
}

#[test]
fn panic_in_scope_body_spawned_jobs_still_run() {
    const JOBS: usize = 200;
    for deque in deques() {
        for (joins, n) in modes() {
            let pool = pool_with(deque, n, joins);
            let hits: Vec<AtomicU8> = (0..JOBS).map(|_| AtomicU8::new(0)).collect();
            let p = expect_panic(|| {
                pool.scope(|s| {
                    for i in 0..JOBS {
                        let hits = &hits;
                        s.spawn(move |_| {
                            busy();
                            hits[i].fetch_add(1, Relaxed);
                        });
                    }
                    panic!("scope body")
                })
            });
            let what = format!("{deque}, {joins:?}, {n} workers");
            assert_eq!(str_payload(&*p), "scope body", "{what}");
            for (i, h) in hits.iter().enumerate() {
                assert_eq!(h.load(Relaxed), 1, "{what}: job {i}");
            }
            assert_pool_works(&pool);
        }
    }
}

#[test]
fn panic_in_spawned_scope_job_others_still_run() {
    const JOBS: usize = 200;
    const BAD: usize = 37;
    for deque in deques() {
        for (joins, n) in modes() {
            let pool = pool_with(deque, n, joins);
            let hits: Vec<AtomicU8> = (0..JOBS).map(|_| AtomicU8::new(0)).collect();
            let body_done = AtomicUsize::new(0);
            let p = expect_panic(|| {
                pool.scope(|s| {
                    for i in 0..JOBS {
                        let hits = &hits;
                        s.spawn(move |s| {
                            hits[i].fetch_add(1, Relaxed);
                            if i == BAD {
                                // A nested spawn from the panicking job still runs too.
                                s.spawn(move |_| {
                                    hits[i].fetch_add(1, Relaxed);
                                });
                                panic!("job 37")
                            }
                            busy();
                        });
                    }
                    body_done.fetch_add(1, Relaxed);
                })
            });
            let what = format!("{deque}, {joins:?}, {n} workers");
            assert_eq!(str_payload(&*p), "job 37", "{what}");
            assert_eq!(body_done.load(Relaxed), 1, "{what}: body");
            for (i, h) in hits.iter().enumerate() {
                let want = if i == BAD { 2 } else { 1 };
                assert_eq!(h.load(Relaxed), want, "{what}: job {i}");
            }
            assert_pool_works(&pool);
        }
    }
}

/// A panic deep inside a join tree inside a spawned scope job: every other leaf of the tree
/// and the sibling job still run exactly once; the payload reaches the scope's caller.
#[test]
fn panic_deep_in_join_tree_inside_scope() {
    const LEAVES: usize = 1 << 12;
    const BAD: usize = 3001;

    fn tree(lo: usize, hi: usize, hits: &[AtomicU8]) -> u64 {
        if hi - lo == 1 {
            hits[lo].fetch_add(1, Relaxed);
            if lo == BAD {
                panic!("deep leaf");
            }
            return lo as u64;
        }
        let mid = lo + (hi - lo) / 2;
        let (a, b) = magpie::join(|| tree(lo, mid, hits), || tree(mid, hi, hits));
        a + b
    }

    for deque in deques() {
        for (joins, n) in modes() {
            let pool = pool_with(deque, n, joins);
            let hits: Vec<AtomicU8> = (0..2 * LEAVES).map(|_| AtomicU8::new(0)).collect();
            let sibling_sum = AtomicUsize::new(0);
            let p = expect_panic(|| {
                pool.scope(|s| {
                    s.spawn(|_| {
                        tree(0, LEAVES, &hits);
                    });
                    s.spawn(|_| {
                        // A clean tree over the other half of the range.
                        let v = tree(LEAVES, 2 * LEAVES, &hits);
                        sibling_sum.fetch_add(v as usize, Relaxed);
                    });
                })
            });
            let what = format!("{deque}, {joins:?}, {n} workers");
            assert_eq!(str_payload(&*p), "deep leaf", "{what}");
            for (i, h) in hits.iter().enumerate() {
                assert_eq!(h.load(Relaxed), 1, "{what}: leaf {i}");
            }
            let want: usize = (LEAVES..2 * LEAVES).sum();
            assert_eq!(sibling_sum.load(Relaxed), want, "{what}: sibling");
            assert_pool_works(&pool);
        }
    }
}

/// Payloads of `spawn`ed jobs go to the panic handler; the pool stays usable.
#[test]
fn spawn_panics_go_to_panic_handler() {
    for deque in deques() {
        for n in [1, 3] {
            let what = format!("{deque}, {n} workers");
            let (tx, rx) = mpsc::channel::<String>();
            let tx = Mutex::new(tx);
            let handled = Arc::new(AtomicUsize::new(0));
            let handled2 = Arc::clone(&handled);
            let pool = ThreadPoolBuilder::new()
                .num_workers(n)
                .deque(deque)
                .panic_handler(move |p| {
                    handled2.fetch_add(1, Relaxed);
                    let msg = match p.downcast_ref::<&str>() {
                        Some(s) => s.to_string(),
                        None => format!("non-&str payload: {:?}", p.downcast_ref::<String>()),
                    };
                    tx.lock().unwrap().send(msg).unwrap();
                })
                .build()
                .unwrap();
            let recv = || {
                rx.recv_timeout(Duration::from_secs(10))
                    .unwrap_or_else(|e| panic!("{what}: panic handler not called: {e}"))
            };

            // From outside the pool.
            pool.spawn(|| panic!("pool.spawn panicked"));
            assert_eq!(recv(), "pool.spawn panicked", "{what}");
            assert_pool_works(&pool);

            // From inside: `magpie::spawn` on a worker targets the worker's pool.
            pool.install(|| magpie::spawn(|| panic!("magpie::spawn panicked")));
            assert_eq!(recv(), "magpie::spawn panicked", "{what}");
            assert_pool_works(&pool);

            // Many at once, interleaved with ones that succeed.
            let ok = Arc::new(AtomicUsize::new(0));
            for i in 0..100 {
                let ok = Arc::clone(&ok);
                pool.spawn(move || {
                    if i % 4 == 0 {
                        panic!("batch panic");
                    }
                    ok.fetch_add(1, Relaxed);
                });
            }
            for _ in 0..25 {
                assert_eq!(recv(), "batch panic", "{what}");
            }
            assert_pool_works(&pool);
            // Every panic was reported exactly once; no spurious extra call.
            assert_eq!(handled.load(Relaxed), 27, "{what}: handler calls");
            assert!(rx.try_recv().is_err(), "{what}: extra handler call");
            // Dropping the pool runs what is still queued: every good job ran by then.
            drop(pool);
            assert_eq!(ok.load(Relaxed), 75, "{what}: successful spawns");
        }
    }
}

/// Without a handler, a spawned panic is reported (stderr) and the pool survives.
#[test]
fn spawn_panic_without_handler_pool_survives() {
    for deque in deques() {
        let pool = pool(deque, 2);
        let (tx, rx) = mpsc::channel();
        pool.spawn(|| panic!("unhandled spawned panic"));
        pool.spawn(move || tx.send(fib(15)).unwrap());
        assert_eq!(rx.recv_timeout(Duration::from_secs(10)), Ok(610), "{deque}");
        assert_pool_works(&pool);
    }
}

/// Panicking joins at the leaves of a join tree, caught right there: deep in the tree the
/// worker holds several tasks, so a coarsened join runs `a` and `b` in sequence instead of
/// pushing `b`; the panic contract must hold on that path too (and on the eager one).
#[test]
fn panics_caught_inside_deep_join_trees() {
    // Depth 8 already puts most leaves under a worker holding more than the default
    // join_push_limit of 4 tasks; every leaf panics once or twice, so keep it small.
    const LEAVES: usize = 1 << 8;

    /// Leaf `i`: a join whose `a` panics when `i % 3 == 0`, whose `b` panics when
    /// `i % 3 == 1`, and both when `i % 3 == 2`; the leaf checks the payload itself.
    fn tree(lo: usize, hi: usize, a_ran: &[AtomicU8], b_ran: &[AtomicU8]) -> usize {
        if hi - lo == 1 {
            let i = lo;
            let p = expect_panic(|| {
                magpie::join(
                    || {
                        a_ran[i].fetch_add(1, Relaxed);
                        if i % 3 != 1 {
                            panic!("leaf a");
                        }
                    },
                    || {
                        b_ran[i].fetch_add(1, Relaxed);
                        if i % 3 != 0 {
                            panic!("leaf b");
                        }
                    },
                )
            });
            let want = if i % 3 == 1 { "leaf b" } else { "leaf a" };
            assert_eq!(str_payload(&*p), want, "leaf {i}");
            return 1;
        }
        let mid = lo + (hi - lo) / 2;
        let (x, y) = magpie::join(
            || tree(lo, mid, a_ran, b_ran),
            || tree(mid, hi, a_ran, b_ran),
        );
        x + y
    }

    for deque in deques() {
        for (joins, n) in modes() {
            let pool = pool_with(deque, n, joins);
            let what = format!("{deque}, {joins:?}, {n} workers");
            let a_ran: Vec<AtomicU8> = (0..LEAVES).map(|_| AtomicU8::new(0)).collect();
            let b_ran: Vec<AtomicU8> = (0..LEAVES).map(|_| AtomicU8::new(0)).collect();
            pool.reset_stats();
            let leaves = pool.install(|| tree(0, LEAVES, &a_ran, &b_ran));
            assert_eq!(leaves, LEAVES, "{what}");
            if common::COUNTERS && joins == Joins::Coarsened && n == 1 {
                // With one worker nobody steals: the sequential path must have been taken
                // (2 * LEAVES - 1 joins in all, far fewer pushes).
                let pushes = pool.stats().total().pushes;
                assert!(
                    pushes < LEAVES as u64,
                    "{what}: {pushes} pushes, no coarsening?"
                );
            }
            for i in 0..LEAVES {
                assert_eq!(a_ran[i].load(Relaxed), 1, "{what}: a of leaf {i}");
                assert_eq!(b_ran[i].load(Relaxed), 1, "{what}: b of leaf {i}");
            }
            assert_pool_works(&pool);
        }
    }
}
