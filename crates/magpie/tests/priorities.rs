//! Task priorities (`Scope::spawn_with_priority`, `spawn_with_priority`): every prioritised
//! task runs exactly once on every deque with 1, 2 and 4 workers, spawned from workers, from
//! plain threads and mixed with joins and ordinary spawns; on one worker the promised order
//! holds exactly (higher first, LIFO among equals, ordinary deque work of the running task
//! before any prioritised task); the pool's counters count each prioritised task once.
#![cfg(not(loom))]

mod common;

use std::sync::atomic::{
    AtomicU8, AtomicUsize,
    Ordering::{Acquire, Relaxed, Release},
};
use std::sync::{mpsc, Mutex};

use common::{assert_pool_works, deques, fib, pool, COUNTERS};
use magpie::deque::DequeKind;
use magpie::policy::XorShift64Star;
use magpie::{Scope, WorkerStats};

const WORKERS: [usize; 3] = [1, 2, 4];

fn hits(n: usize) -> Vec<AtomicU8> {
    (0..n).map(|_| AtomicU8::new(0)).collect()
}

fn assert_all_once(hits: &[AtomicU8], what: &str) {
    if let Some((i, h)) = hits.iter().enumerate().find(|(_, h)| h.load(Relaxed) != 1) {
        panic!("{what}: task {i} ran {} times", h.load(Relaxed));
    }
}

/// A priority in -8..8 from `i` (deterministic, many ties).
fn prio(i: usize) -> i64 {
    (i.wrapping_mul(0x9E37_79B9) >> 7) as i64 % 16 - 8
}

/// Spawns the tasks `lo..hi` as a binary tree of prioritised spawns; each task bumps its hit.
/// Spawns jobs `0..jobs` with [`prio`] priorities from the calling (non-pool) thread: each
/// sends its index on the returned channel, which closes when all have run.
fn spawn_from_outside(pool: &magpie::ThreadPool, jobs: usize) -> mpsc::Receiver<usize> {
    let (tx, rx) = mpsc::channel();
    for i in 0..jobs {
        let tx = tx.clone();
        pool.spawn_with_priority(prio(i), move || tx.send(i).unwrap());
    }
    rx
}

fn spawn_tree<'s>(s: &Scope<'s>, hits: &'s [AtomicU8], lo: usize, hi: usize) {
    if hi - lo == 1 {
        hits[lo].fetch_add(1, Relaxed);
        return;
    }
    let mid = lo + (hi - lo) / 2;
    s.spawn_with_priority(prio(lo), move |s| spawn_tree(s, hits, lo, mid));
    s.spawn_with_priority(prio(mid), move |s| spawn_tree(s, hits, mid, hi));
}

#[test]
fn each_prioritised_task_runs_exactly_once() {
    const FLAT: usize = 20_000;
    const TREE: usize = 1 << 14;
    for deque in deques() {
        for n in WORKERS {
            let pool = pool(deque, n);
            let what = format!("{deque}, {n} workers");
            // Flat: one task spawns them all, with a join inside each.
            let h = hits(FLAT);
            let sum = AtomicUsize::new(0);
            pool.scope(|s| {
                for i in 0..FLAT {
                    let (h, sum) = (&h, &sum);
                    s.spawn_with_priority(prio(i), move |_| {
                        let (a, b) = magpie::join(|| i, || fib(5) as usize);
                        sum.fetch_add(a + b, Relaxed);
                        h[i].fetch_add(1, Relaxed);
                    });
                }
            });
            assert_all_once(&h, &format!("flat, {what}"));
            assert_eq!(sum.into_inner(), FLAT * (FLAT - 1) / 2 + FLAT * 5, "{what}");
            // Tree: prioritised tasks spawn prioritised tasks.
            let h = hits(TREE);
            pool.scope(|s| spawn_tree(s, &h, 0, TREE));
            assert_all_once(&h, &format!("tree, {what}"));
            assert_pool_works(&pool);
        }
    }
}

#[test]
fn tasks_spawned_from_outside_the_pool_run_exactly_once() {
    const JOBS: usize = 4_000;
    for deque in deques() {
        for n in WORKERS {
            let pool = pool(deque, n);
            // `ThreadPool::spawn_with_priority` from the test thread: the shared heap.
            let mut got: Vec<usize> = spawn_from_outside(&pool, JOBS).iter().collect();
            got.sort_unstable();
            assert_eq!(got, (0..JOBS).collect::<Vec<_>>(), "{deque}, {n} workers");
            // A scope's handle used from plain threads while its body runs on the pool.
            let h = hits(JOBS);
            pool.scope(|s| {
                std::thread::scope(|t| {
                    for part in 0..4 {
                        let h = &h;
                        t.spawn(move || {
                            for i in (part..JOBS).step_by(4) {
                                s.spawn_with_priority(prio(i), move |_| {
                                    h[i].fetch_add(1, Relaxed);
                                });
                            }
                        });
                    }
                });
            });
            assert_all_once(&h, &format!("from plain threads, {deque}, {n} workers"));
        }
    }
}

/// Eight root tasks (8 threads' worth), each spawning a random tree of prioritised, plain and
/// joined work with random priorities, on 2 and 4 workers and every deque.
#[test]
fn stress_random_priorities_exactly_once() {
    const PER_ROOT: usize = 6_000;
    const ROOTS: usize = 8;
    fn grow<'s>(
        s: &Scope<'s>,
        hits: &'s [AtomicU8],
        next: &'s AtomicUsize,
        rng: &mut XorShift64Star,
    ) {
        let i = next.fetch_add(1, Relaxed);
        if i >= hits.len() {
            return;
        }
        hits[i].fetch_add(1, Relaxed);
        for _ in 0..rng.below(3) + 1 {
            let mut child = XorShift64Star::new(rng.next_u64());
            let p = rng.below(1000) as i64 - 500;
            match rng.below(4) {
                0 => s.spawn(move |s| grow(s, hits, next, &mut child)),
                1 => {
                    let (_, ()) = magpie::join(|| fib(3), || grow(s, hits, next, &mut child));
                }
                _ => s.spawn_with_priority(p, move |s| grow(s, hits, next, &mut child)),
            }
        }
    }
    for deque in deques() {
        for n in [2, 4] {
            let pool = pool(deque, n);
            let total = ROOTS * PER_ROOT;
            let h = hits(total);
            let next = AtomicUsize::new(0);
            pool.scope(|s| {
                for root in 0..ROOTS {
                    let (h, next) = (&h, &next);
                    s.spawn_with_priority(root as i64, move |s| {
                        let mut rng = XorShift64Star::new(root as u64 + 1);
                        // Keep growing until every index is taken.
                        while next.load(Relaxed) < total {
                            grow(s, h, next, &mut rng);
                        }
                    });
                }
            });
            assert_all_once(&h, &format!("stress, {deque}, {n} workers"));
        }
    }
}

/// Runs `body` in a scope on a one-worker pool of every deque and returns the labels the
/// tasks pushed, in the order they ran.
fn one_worker_order(
    body: impl for<'s> Fn(&Scope<'s>, &'s Mutex<Vec<&'static str>>) + Sync,
) -> Vec<Vec<&'static str>> {
    deques()
        .into_iter()
        .map(|deque| {
            let pool = pool(deque, 1);
            let log = Mutex::new(Vec::new());
            pool.scope(|s| body(s, &log));
            log.into_inner().unwrap()
        })
        .collect()
}

fn record(log: &Mutex<Vec<&'static str>>, label: &'static str) {
    log.lock().unwrap().push(label);
}

#[test]
fn one_worker_runs_by_priority_then_lifo() {
    for order in one_worker_order(|s, log| {
        for (p, label) in [(3, "3a"), (1, "1"), (2, "2"), (3, "3b")] {
            s.spawn_with_priority(p, move |_| record(log, label));
        }
    }) {
        assert_eq!(order, ["3b", "3a", "2", "1"]);
    }
}

#[test]
fn one_worker_runs_a_later_higher_priority_task_first() {
    for order in one_worker_order(|s, log| {
        s.spawn_with_priority(1, move |_| record(log, "low"));
        s.spawn_with_priority(2, move |s| {
            record(log, "mid");
            // Spawned while "low" waits: the higher one overtakes it, the lower one not.
            s.spawn_with_priority(0, move |_| record(log, "zero"));
            s.spawn_with_priority(5, move |s| {
                record(log, "high");
                s.spawn_with_priority(1, move |_| record(log, "low-later"));
            });
        });
    }) {
        // "low-later" (priority 1) was pushed after "low": LIFO among equals.
        assert_eq!(order, ["mid", "high", "low-later", "low", "zero"]);
    }
}

#[test]
fn one_worker_runs_ordinary_work_of_the_running_task_first() {
    for order in one_worker_order(|s, log| {
        s.spawn_with_priority(9, move |s| {
            record(log, "prio-9");
            // An ordinary spawn and a join's work go before any prioritised task.
            s.spawn_with_priority(100, move |_| record(log, "prio-100"));
            s.spawn(move |_| record(log, "plain"));
            magpie::join(|| record(log, "join-a"), || record(log, "join-b"));
        });
        s.spawn(move |_| record(log, "plain-root"));
    }) {
        assert_eq!(
            order,
            [
                "plain-root",
                "prio-9",
                "join-a",
                "join-b",
                "plain",
                "prio-100"
            ]
        );
    }
}

#[test]
fn static_spawns_with_priority_run_on_the_global_pool() {
    let (tx, rx) = mpsc::channel();
    for i in 0..100u32 {
        let tx = tx.clone();
        magpie::spawn_with_priority(i64::from(i % 7) - 3, move || tx.send(i).unwrap());
    }
    drop(tx);
    assert_eq!(rx.iter().map(u64::from).sum::<u64>(), 4950);
}

#[test]
fn extreme_priorities_are_ordered() {
    for order in one_worker_order(|s, log| {
        s.spawn_with_priority(i64::MIN, move |_| record(log, "min"));
        s.spawn_with_priority(0, move |_| record(log, "zero"));
        s.spawn_with_priority(i64::MAX, move |_| record(log, "max"));
        s.spawn_with_priority(i64::MIN + 1, move |_| record(log, "min+1"));
    }) {
        assert_eq!(order, ["max", "zero", "min+1", "min"]);
    }
}

/// A thief takes the best prioritised task it sees: the spawning worker stays busy (it
/// waits, without running anything, until its four tasks ran), so the other worker takes
/// them all, best first and LIFO among equals.
///
/// The other worker is held in a first task until all four are published (it takes that
/// task first, since nothing else exists yet, and the spawner waits until it has), so
/// that the order it finds does not depend on when it wakes: a thief that looked while the
/// spawner was still publishing could take "1" before "5a" existed, which the schedule
/// allows.
#[test]
fn a_thief_takes_the_best_task_first() {
    for deque in deques() {
        let pool = pool(deque, 2);
        let log = Mutex::new(Vec::new());
        let (held, published, done) = (
            AtomicUsize::new(0),
            AtomicUsize::new(0),
            AtomicUsize::new(0),
        );
        pool.scope(|s| {
            let me = magpie::current_worker_index();
            let (held, published) = (&held, &published);
            // A prioritised task, public at once: a plain one could sit in an LCWS
            // deque's private part, which the spawner (busy waiting) never exposes.
            s.spawn_with_priority(100, move |_| {
                assert_ne!(magpie::current_worker_index(), me, "{deque}: the holder");
                held.store(1, Relaxed);
                while published.load(Acquire) == 0 {
                    std::thread::yield_now();
                }
            });
            while held.load(Relaxed) == 0 {
                std::thread::yield_now();
            }
            for (p, label) in [(1, "1"), (5, "5a"), (3, "3"), (5, "5b")] {
                let (log, done) = (&log, &done);
                s.spawn_with_priority(p, move |_| {
                    assert_ne!(
                        magpie::current_worker_index(),
                        me,
                        "{deque}: ran by its spawner"
                    );
                    record(log, label);
                    done.fetch_add(1, Relaxed);
                });
            }
            // Release: the four tasks are in the heap before the holder lets go.
            published.store(1, Release);
            while done.load(Relaxed) < 4 {
                std::thread::yield_now();
            }
        });
        assert_eq!(log.into_inner().unwrap(), ["5b", "5a", "3", "1"], "{deque}");
    }
}

#[test]
fn a_panic_in_a_prioritised_task_reaches_the_scope_after_all_ran() {
    for deque in deques() {
        for n in WORKERS {
            let pool = pool(deque, n);
            let ran = AtomicUsize::new(0);
            let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                pool.scope(|s| {
                    for i in 0..100 {
                        let ran = &ran;
                        s.spawn_with_priority(i % 5, move |_| {
                            ran.fetch_add(1, Relaxed);
                            if i == 37 {
                                panic!("task 37");
                            }
                        });
                    }
                })
            }));
            let payload = result.expect_err("the scope must propagate the panic");
            assert_eq!(payload.downcast_ref::<&str>(), Some(&"task 37"));
            assert_eq!(ran.load(Relaxed), 100, "{deque}, {n} workers");
            assert_pool_works(&pool);
        }
    }
}

/// Runs one scope on a fresh pool of `n` workers that spawns `prioritised` prioritised and
/// `plain` ordinary tasks (interleaved), checks that each ran once, and returns the pool's
/// counters (the total, checked equal to the sum of the workers').
fn counted_scope(deque: DequeKind, n: usize, prioritised: usize, plain: usize) -> WorkerStats {
    let pool = pool(deque, n);
    let h = hits(prioritised + plain);
    pool.scope(|s| {
        let (mut p, mut q) = (0, 0);
        for i in 0..prioritised + plain {
            let h = &h;
            // Two prioritised spawns for each plain one while both last.
            if q == plain || (p < prioritised && i % 3 != 2) {
                p += 1;
                s.spawn_with_priority(prio(i), move |_| {
                    h[i].fetch_add(1, Relaxed);
                });
            } else {
                q += 1;
                s.spawn(move |_| {
                    h[i].fetch_add(1, Relaxed);
                });
            }
        }
    });
    assert_all_once(&h, &format!("counted scope, {deque}, {n} workers"));
    let stats = pool.stats();
    let t = stats.total();
    let per_worker: u64 = stats.workers.iter().map(|w| w.tasks_run).sum();
    assert_eq!(per_worker, t.tasks_run, "total() != sum of workers ({t:?})");
    t
}

/// `tasks_run` counts prioritised tasks, each once: the scope's body (one injected job),
/// its plain spawns (deque pops and steals) and its prioritised spawns (`priority_taken` +
/// `priority_stolen`, which together count exactly the prioritised tasks). One worker takes
/// all of its own prioritised tasks from its own heap. A build without the `counters`
/// feature counts nothing.
#[test]
fn stats_count_each_prioritised_task_once() {
    const PRIORITISED: usize = 300;
    const PLAIN: usize = 200;
    let counted = |n: u64| if COUNTERS { n } else { 0 };
    for deque in deques() {
        for n in [1, 2] {
            let what = format!("{deque}, {n} workers");
            let without = counted_scope(deque, n, 0, PLAIN);
            let with = counted_scope(deque, n, PRIORITISED, PLAIN);
            assert_eq!(
                without.priority_taken + without.priority_stolen,
                0,
                "{what}"
            );
            assert_eq!(
                with.priority_taken + with.priority_stolen,
                counted(PRIORITISED as u64),
                "{what}: prioritised tasks ({with:?})"
            );
            assert_eq!(
                with.tasks_run - without.tasks_run,
                counted(PRIORITISED as u64),
                "{what}: tasks_run with and without priorities ({with:?}, {without:?})"
            );
            assert_eq!(
                with.tasks_run,
                counted((PRIORITISED + PLAIN + 1) as u64),
                "{what}: tasks_run ({with:?})"
            );
            if n == 1 {
                assert_eq!(with.priority_stolen, 0, "{what}: {with:?}");
            }
        }
    }
}

/// Prioritised tasks spawned from outside the pool go to the shared heap: every worker takes
/// them as `priority_stolen`, and they are all the pool runs.
#[test]
fn stats_count_prioritised_tasks_from_outside_the_pool() {
    const JOBS: usize = 500;
    for deque in deques() {
        for n in [1, 2] {
            let pool = pool(deque, n);
            // Each job's counter is bumped before the job runs, so before its send.
            assert_eq!(spawn_from_outside(&pool, JOBS).iter().count(), JOBS);
            let t = pool.stats().total();
            let want = if COUNTERS { JOBS as u64 } else { 0 };
            let what = format!("{deque}, {n} workers ({t:?})");
            assert_eq!(t.priority_stolen, want, "{what}");
            assert_eq!(t.priority_taken, 0, "{what}");
            assert_eq!(t.tasks_run, want, "{what}");
        }
    }
}
