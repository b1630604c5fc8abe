//! Several pools at once: concurrent pools, nested `install` across pools, worker
//! identity, shutdown on drop, and builder / environment errors.
#![cfg(not(loom))]

mod common;

use std::sync::atomic::{AtomicU8, Ordering::Relaxed};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use common::{deques, fib, pool};
use magpie::deque::DequeKind;
use magpie::{BuildError, ThreadPool, ThreadPoolBuilder};

/// Serialises the tests that read or write process-global state (environment variables,
/// the global pool).
static GLOBAL_STATE: Mutex<()> = Mutex::new(());

fn lock_global() -> std::sync::MutexGuard<'static, ()> {
    GLOBAL_STATE.lock().unwrap_or_else(|e| e.into_inner())
}

fn join_sum(lo: u64, hi: u64) -> u64 {
    if hi - lo <= 1 {
        return if hi > lo { lo } else { 0 };
    }
    let mid = lo + (hi - lo) / 2;
    let (a, b) = magpie::join(|| join_sum(lo, mid), || join_sum(mid, hi));
    a + b
}

/// Two pools (each deque paired with the next one in the list) computing at the same time,
/// driven from two plain threads.
#[test]
fn two_pools_compute_concurrently() {
    const N: u64 = 1 << 18;
    let ds = deques();
    for (k, &da) in ds.iter().enumerate() {
        let db = ds[(k + 1) % ds.len()];
        let a = pool(da, 2);
        let b = pool(db, 3);
        std::thread::scope(|s| {
            let ta = s.spawn(|| {
                (0..10)
                    .map(|_| a.install(|| join_sum(0, N)))
                    .collect::<Vec<_>>()
            });
            let tb = s.spawn(|| {
                (0..10)
                    .map(|_| b.install(|| (fib(18), magpie::current_num_workers())))
                    .collect::<Vec<_>>()
            });
            assert_eq!(ta.join().unwrap(), vec![N * (N - 1) / 2; 10], "{da}");
            assert_eq!(tb.join().unwrap(), vec![(2584, 3); 10], "{db}");
        });
    }
}

/// A worker of A installs into B, whose worker installs back into A (A → B → A), with join
/// trees at every level: no deadlock, right values, right identities at each level.
#[test]
fn nested_install_across_pools() {
    let ds = deques();
    for (k, &da) in ds.iter().enumerate() {
        let db = ds[(k + 1) % ds.len()];
        // One-worker pools are the hardest case: the only worker of A waits for B while
        // B needs A.
        for (na, nb) in [(1, 1), (2, 3)] {
            let what = format!("A={da}x{na}, B={db}x{nb}");
            let a = pool(da, na);
            let b = pool(db, nb);
            for _ in 0..20 {
                let r = a.install(|| {
                    let ia = a.current_worker_index().expect("on A");
                    assert!(ia < na);
                    assert_eq!(b.current_worker_index(), None, "{what}: on B?");
                    assert_eq!(magpie::current_num_workers(), na);
                    let (x, inner) = magpie::join(
                        || fib(15),
                        || {
                            b.install(|| {
                                assert!(b.current_worker_index().expect("on B") < nb);
                                assert_eq!(a.current_worker_index(), None, "{what}: on A?");
                                assert_eq!(magpie::current_num_workers(), nb);
                                let (y, z) = magpie::join(
                                    || fib(14),
                                    || {
                                        a.install(|| {
                                            assert!(a.current_worker_index().is_some());
                                            assert_eq!(b.current_worker_index(), None);
                                            assert_eq!(magpie::current_num_workers(), na);
                                            join_sum(0, 1000)
                                        })
                                    },
                                );
                                y + z
                            })
                        },
                    );
                    x + inner
                });
                assert_eq!(r, 610 + 377 + 499_500, "{what}");
            }
            // Both pools still work after all the cross traffic.
            assert_eq!(a.install(|| fib(20)), 6765, "{what}");
            assert_eq!(b.install(|| fib(20)), 6765, "{what}");
        }
    }
}

/// `current_worker_index` / `current_num_workers` inside pools, and outside (global pool).
#[test]
fn worker_identity_inside_and_outside() {
    for deque in deques() {
        for n in [1, 2, 5] {
            let pool = pool(deque, n);
            assert_eq!(pool.num_workers(), n);
            assert_eq!(pool.deque(), deque);
            assert_eq!(magpie::current_worker_index(), None);
            assert_eq!(pool.current_worker_index(), None);
            // Every job of a join tree runs on some worker of this pool with a valid index.
            fn indices(depth: u32, n: usize) -> u32 {
                let i = magpie::current_worker_index().expect("inside a pool");
                assert!(i < n, "index {i} of {n}");
                assert_eq!(magpie::current_num_workers(), n);
                if depth == 0 {
                    return 1;
                }
                let (a, b) = magpie::join(|| indices(depth - 1, n), || indices(depth - 1, n));
                a + b
            }
            assert_eq!(pool.install(|| indices(12, n)), 1 << 12, "{deque} x{n}");
            let (i, same) =
                pool.install(|| (magpie::current_worker_index(), pool.current_worker_index()));
            assert_eq!(i, same);
            assert!(i.unwrap() < n);
        }
    }
    // Outside any pool the free functions use the global pool, which this binary defines.
    let _g = lock_global();
    ensure_global();
    let again = ThreadPoolBuilder::new()
        .num_workers(1)
        .deque(deques()[0])
        .build_global();
    assert!(
        matches!(again, Err(BuildError::GlobalAlreadyInitialized)),
        "{again:?}"
    );
    assert_eq!(magpie::current_num_workers(), 3);
    assert_eq!(magpie::current_worker_index(), None);
    let (a, b) = magpie::join(magpie::current_worker_index, || fib(10));
    assert!(a.expect("join outside a pool runs on the global pool") < 3);
    assert_eq!(b, 55);
}

/// Builds this binary's global pool (3 workers on the first test deque) unless a test
/// already did. Call with the [`lock_global`] guard held.
fn ensure_global() {
    match ThreadPoolBuilder::new()
        .num_workers(3)
        .deque(deques()[0])
        .build_global()
    {
        Ok(()) | Err(BuildError::GlobalAlreadyInitialized) => {}
        Err(e) => panic!("building the global pool: {e}"),
    }
}

/// Threads of this process whose name (`comm`, at most 15 bytes) starts with `prefix`.
fn threads_named(prefix: &str) -> usize {
    std::fs::read_dir("/proc/self/task")
        .expect("/proc/self/task")
        .filter_map(|e| std::fs::read_to_string(e.ok()?.path().join("comm")).ok())
        .filter(|comm| comm.trim_end().starts_with(prefix))
        .count()
}

/// Polls `f` until it returns true or `limit` passes; returns whether it did.
fn eventually(limit: Duration, mut f: impl FnMut() -> bool) -> bool {
    let start = Instant::now();
    loop {
        if f() {
            return true;
        }
        if start.elapsed() > limit {
            return false;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// Asserts that every thread named `prefix*` is gone within 2 s (the threads were joined;
/// the kernel drops their /proc entries right after); `what` says whose they were.
fn assert_threads_gone(prefix: &str, what: &str) {
    assert!(
        eventually(Duration::from_secs(2), || threads_named(prefix) == 0),
        "{what}: {} threads named {prefix}* left",
        threads_named(prefix)
    );
}

fn named_pool(deque: DequeKind, n: usize, prefix: &'static str) -> ThreadPool {
    ThreadPoolBuilder::new()
        .num_workers(n)
        .deque(deque)
        .thread_name(move |i| format!("{prefix}{i}"))
        .build()
        .unwrap()
}

/// Dropping an idle pool returns promptly and its threads are gone.
#[test]
fn drop_idle_pool_joins_its_threads() {
    for (k, deque) in deques().into_iter().enumerate() {
        // A distinct prefix per pool, so that no other pool's threads are counted.
        let prefix: &'static str = ["mpdrA", "mpdrB", "mpdrC", "mpdrD", "mpdrE"][k % 5];
        for n in [1, 4] {
            assert_eq!(threads_named(prefix), 0);
            let pool = named_pool(deque, n, prefix);
            assert_eq!(pool.install(|| fib(18)), 2584);
            // Worker threads name themselves as they start: wait until all have.
            assert!(
                eventually(Duration::from_secs(5), || threads_named(prefix) == n),
                "{deque}: expected {n} threads named {prefix}*, saw {}",
                threads_named(prefix)
            );
            // Let the workers go idle and park.
            std::thread::sleep(Duration::from_millis(100));
            let start = Instant::now();
            drop(pool);
            let took = start.elapsed();
            assert!(took < Duration::from_secs(2), "{deque}: drop took {took:?}");
            assert_threads_gone(prefix, &format!("{deque}, after drop"));
        }
    }
}

/// A `build_global` that fails because the global pool already exists must not start (and
/// leak) workers: it once built a whole registry before finding the slot taken, and every
/// failed call leaked `num_workers` threads.
#[test]
fn failed_build_global_leaks_no_threads() {
    let _g = lock_global();
    ensure_global();
    let r = ThreadPoolBuilder::new()
        .num_workers(2)
        .deque(deques()[0])
        .thread_name(|i| format!("mpglob{i}"))
        .build_global();
    assert!(
        matches!(r, Err(BuildError::GlobalAlreadyInitialized)),
        "{r:?}"
    );
    // The rejected pool's threads name themselves once they run: give them time to start
    // (a leaked one then stays; a terminated one exits).
    std::thread::sleep(Duration::from_millis(300));
    assert_threads_gone("mpglob", "the rejected global pool's workers");
}

/// Dropping a pool right after queueing `spawn`s runs them first (documented: "after the
/// work already queued").
#[test]
fn drop_runs_queued_spawns() {
    for deque in deques() {
        let counter = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let pool = pool(deque, 2);
        for _ in 0..1000 {
            let c = std::sync::Arc::clone(&counter);
            pool.spawn(move || {
                c.fetch_add(1, Relaxed);
            });
        }
        drop(pool);
        assert_eq!(counter.load(Relaxed), 1000, "{deque}");
    }
}

fn build_err(b: ThreadPoolBuilder) -> (BuildError, String) {
    let e = b.build().expect_err("build should fail");
    let msg = e.to_string();
    (e, msg)
}

fn assert_names_all(msg: &str, names: &[&str]) {
    for n in names {
        assert!(msg.contains(n), "message {msg:?} does not name {n:?}");
    }
}

/// More workers than [`magpie::MAX_WORKERS`] fail at once, naming the count and the
/// limit, without starting a thread; the limit itself is allowed by the check.
#[test]
fn too_many_workers_fail_fast_naming_the_count() {
    use magpie::MAX_WORKERS;
    for n in [MAX_WORKERS + 1, 100_000, usize::MAX] {
        let start = Instant::now();
        let (e, msg) = build_err(
            ThreadPoolBuilder::new()
                .num_workers(n)
                .thread_name(|i| format!("mptoo{i}")),
        );
        assert!(
            matches!(e, BuildError::TooManyWorkers { requested } if requested == n),
            "{e:?}"
        );
        assert_names_all(&msg, &[&n.to_string(), &MAX_WORKERS.to_string()]);
        assert!(
            start.elapsed() < Duration::from_secs(1),
            "{n}: {:?}",
            start.elapsed()
        );
        assert_eq!(threads_named("mptoo"), 0, "{n}: no worker started");
    }
}

/// A worker thread the OS refuses to start (here: a stack larger than the address space) is
/// a `BuildError::Spawn` naming the worker and the count, not a panic, and leaves no thread.
#[test]
fn failed_thread_spawn_is_an_error_naming_the_count() {
    let (e, msg) = build_err(
        ThreadPoolBuilder::new()
            .num_workers(3)
            .stack_size(1 << 50)
            .thread_name(|i| format!("mpspawn{i}")),
    );
    assert!(
        matches!(
            e,
            BuildError::Spawn {
                index: 0,
                count: 3,
                ..
            }
        ),
        "{e:?}"
    );
    assert!(
        msg.starts_with("could not start worker thread 0 of 3: "),
        "{msg}"
    );
    assert_threads_gone("mpspawn", "the dropped pool");
}

#[test]
fn builder_errors_name_the_problem() {
    let (e, msg) = build_err(ThreadPoolBuilder::new().num_workers(0));
    assert!(matches!(e, BuildError::ZeroWorkers), "{e:?}");
    assert!(msg.contains("num_workers") && msg.contains('0'), "{msg}");

    let (_, msg) = build_err(ThreadPoolBuilder::new().num_workers(1).join_push_limit(0));
    assert!(msg.contains("join_push_limit"), "{msg}");

    let (e, msg) = build_err(ThreadPoolBuilder::new().num_workers(2).deque("abp"));
    assert!(matches!(e, BuildError::UnknownName(_)), "{e:?}");
    assert!(msg.contains("deque") && msg.contains("\"abp\""), "{msg}");
    assert_names_all(&msg, &DequeKind::names());
    assert_eq!(
        DequeKind::names(),
        [
            "chase-lev",
            "lcws-user",
            "lcws-signal",
            "lcws-conservative",
            "lcws-half"
        ]
    );

    let (e, msg) = build_err(
        ThreadPoolBuilder::new()
            .num_workers(2)
            .victims("round-robin"),
    );
    assert!(matches!(e, BuildError::UnknownName(_)), "{e:?}");
    assert!(
        msg.contains("victim") && msg.contains("\"round-robin\""),
        "{msg}"
    );
    assert_names_all(&msg, &["random"]);

    let (e, msg) = build_err(ThreadPoolBuilder::new().num_workers(2).idle("snooze"));
    assert!(matches!(e, BuildError::UnknownName(_)), "{e:?}");
    assert!(msg.contains("idle") && msg.contains("\"snooze\""), "{msg}");
    assert_names_all(&msg, &["park"]);

    // The first bad setting is reported even when later ones are fine, and a later good
    // setting overrides an earlier bad one.
    let (_, msg) = build_err(ThreadPoolBuilder::new().deque("nope").num_workers(1));
    assert!(msg.contains("\"nope\""), "{msg}");
    let ok = ThreadPoolBuilder::new()
        .num_workers(1)
        .deque("nope")
        .deque(deques()[0])
        .build()
        .expect("the later deque() wins");
    assert_eq!(ok.install(|| fib(10)), 55);
    assert_eq!(ok.victims(), "random");
    assert_eq!(ok.idle(), "park");

    // Names are matched case-insensitively and trimmed.
    assert_eq!(
        "  Chase-Lev ".parse::<DequeKind>().unwrap(),
        DequeKind::ChaseLev
    );
}

/// All environment-variable cases in one test: the environment is process-global.
#[test]
fn from_env_errors_name_the_variable() {
    let _g = lock_global();
    let vars = magpie::ThreadPoolBuilder::ENV_VARS;
    let saved: Vec<_> = vars.iter().map(|v| (v, std::env::var_os(v))).collect();
    let clear = || {
        for v in vars {
            std::env::remove_var(v);
        }
    };

    let cases: [(&str, &str, &[&str]); 6] = [
        (
            "MAGPIE_DEQUE",
            "abp",
            &["chase-lev", "lcws-user", "lcws-half"],
        ),
        ("MAGPIE_JOIN_LIMIT", "lots", &["eager"]),
        ("MAGPIE_VICTIMS", "steal-half", &["random"]),
        ("MAGPIE_IDLE", "doze", &["park"]),
        ("MAGPIE_NUM_WORKERS", "many", &[]),
        ("MAGPIE_SIGNAL", "SIGFOO", &["SIGUSR1"]),
    ];
    for (var, value, accepted) in cases {
        clear();
        std::env::set_var(var, value);
        let (e, msg) = build_err(ThreadPoolBuilder::from_env());
        assert!(matches!(e, BuildError::Env { .. }), "{var}: {e:?}");
        assert!(msg.contains(var), "{var}: {msg}");
        assert!(msg.contains(value), "{var}: {msg}");
        assert_names_all(&msg, accepted);
    }

    // A zero join limit is refused naming the variable.
    clear();
    std::env::set_var("MAGPIE_JOIN_LIMIT", "0");
    let (e, msg) = build_err(ThreadPoolBuilder::from_env().num_workers(1));
    assert!(matches!(e, BuildError::Env { .. }), "{e:?}");
    assert!(msg.contains("MAGPIE_JOIN_LIMIT"), "{msg}");

    // Valid values are applied.
    clear();
    std::env::set_var("MAGPIE_NUM_WORKERS", "3");
    std::env::set_var("MAGPIE_DEQUE", deques()[0].name());
    std::env::set_var("MAGPIE_VICTIMS", "random");
    std::env::set_var("MAGPIE_IDLE", "park");
    let p = ThreadPoolBuilder::from_env()
        .build()
        .expect("valid environment");
    assert_eq!(p.num_workers(), 3);
    assert_eq!(p.deque(), deques()[0]);
    assert_eq!(p.install(|| fib(12)), 144);
    drop(p);

    // A setter called after from_env() replaces that setting, bad environment value
    // included; a setter of another setting does not hide the bad variable.
    std::env::set_var("MAGPIE_DEQUE", "abp");
    let p = ThreadPoolBuilder::from_env()
        .deque(deques()[0])
        .build()
        .expect("deque() replaces the bad MAGPIE_DEQUE");
    assert_eq!(p.deque(), deques()[0]);
    assert_eq!(p.num_workers(), 3, "MAGPIE_NUM_WORKERS still applies");
    drop(p);
    let (_, msg) = build_err(ThreadPoolBuilder::from_env().num_workers(1));
    assert!(msg.contains("MAGPIE_DEQUE") && msg.contains("abp"), "{msg}");

    // Empty values are ignored.
    clear();
    std::env::set_var("MAGPIE_DEQUE", "  ");
    std::env::set_var("MAGPIE_NUM_WORKERS", "2");
    let p = ThreadPoolBuilder::from_env()
        .deque(deques()[0])
        .build()
        .expect("blank value ignored");
    assert_eq!(p.num_workers(), 2);
    drop(p);

    clear();
    for (v, val) in saved {
        if let Some(val) = val {
            std::env::set_var(v, val);
        }
    }
}

/// `MAGPIE_JOIN_LIMIT=0` is refused naming the variable, like every other bad `MAGPIE_*`
/// value (it once slipped through to the builder's generic message).
#[test]
fn join_limit_zero_in_env_names_the_variable() {
    let _g = lock_global();
    let saved = std::env::var_os("MAGPIE_JOIN_LIMIT");
    std::env::set_var("MAGPIE_JOIN_LIMIT", "0");
    let r = ThreadPoolBuilder::from_env()
        .num_workers(1)
        .deque(deques()[0])
        .build();
    match saved {
        Some(v) => std::env::set_var("MAGPIE_JOIN_LIMIT", v),
        None => std::env::remove_var("MAGPIE_JOIN_LIMIT"),
    }
    let msg = r.expect_err("a zero limit is refused").to_string();
    assert!(msg.contains("MAGPIE_JOIN_LIMIT"), "{msg}");
}

/// Hammer: many short-lived pools, each used once and dropped (no leaks, no hangs).
#[test]
fn many_short_lived_pools() {
    for deque in deques() {
        let hits: Vec<AtomicU8> = (0..50).map(|_| AtomicU8::new(0)).collect();
        for (i, h) in hits.iter().enumerate() {
            let p = pool(deque, 1 + i % 4);
            assert_eq!(p.install(|| fib(12)), 144);
            p.install(|| {
                h.fetch_add(1, Relaxed);
            });
        }
        assert!(hits.iter().all(|h| h.load(Relaxed) == 1), "{deque}");
    }
}
