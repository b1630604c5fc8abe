//! Idle workers park: once they have parked, an idle pool uses (almost) no CPU, and work
//! sent to a parked pool is run (no lost wake-up).
//!
//! Nothing here bounds a latency, because the machine may be shared and the workers may get
//! little CPU: the tests wait (polling, up to [`DEADLINE`]) until every worker has parked
//! before they measure, and work sent to a parked pool must be done within the same generous
//! deadline (a worker that missed its wake-up would leave it undone until a later, unrelated
//! event: the pool's own safety net is a 10 ms park timeout, so a lost wake-up of the sleep
//! protocol itself is checked by `loom_sleep`, not here). What is measured is the process's
//! own CPU time over one idle second of a parked pool (under 100 ms), which other processes'
//! load does not raise: a worker spinning or yielding instead of parking burns a core.
//!
//! The tests of this file measure the whole process, so they run one at a time (a lock).
#![cfg(not(loom))]

mod common;

use std::sync::Mutex;
use std::time::{Duration, Instant};

use common::{deques, fib, pool, COUNTERS};

static SERIAL: Mutex<()> = Mutex::new(());

fn serial() -> std::sync::MutexGuard<'static, ()> {
    SERIAL.lock().unwrap_or_else(|e| e.into_inner())
}

/// User + system CPU time consumed by this process so far.
fn process_cpu() -> Duration {
    // SAFETY: getrusage only writes the struct we pass.
    let ru = unsafe {
        let mut ru: libc::rusage = std::mem::zeroed();
        assert_eq!(libc::getrusage(libc::RUSAGE_SELF, &mut ru), 0);
        ru
    };
    let tv = |t: libc::timeval| {
        Duration::from_secs(t.tv_sec as u64) + Duration::from_micros(t.tv_usec as u64)
    };
    tv(ru.ru_utime) + tv(ru.ru_stime)
}

/// A burst of join and scope work, checked.
fn burst(pool: &magpie::ThreadPool) {
    assert_eq!(pool.install(|| fib(24)), 46368);
    let hits = std::sync::atomic::AtomicUsize::new(0);
    pool.scope(|s| {
        for _ in 0..1000 {
            s.spawn(|_| {
                hits.fetch_add(fib(8) as usize, std::sync::atomic::Ordering::Relaxed);
            });
        }
    });
    assert_eq!(hits.into_inner(), 21_000);
}

const IDLE_CPU_LIMIT: Duration = Duration::from_millis(100);
/// How long the workers may take to park, and work sent to a parked pool to be done.
const DEADLINE: Duration = Duration::from_secs(30);

/// Waits until every worker of `pool` has parked since the last `reset_stats` (with the
/// counters: a completed park, or time spent parked so far), polling; panics after
/// [`DEADLINE`]. Without the counters: until a 100 ms window costs under 10 ms of process
/// CPU (the workers stopped spinning).
fn wait_until_parked(pool: &magpie::ThreadPool, what: &str) {
    let start = Instant::now();
    loop {
        let parked = if COUNTERS {
            let s = pool.stats();
            s.workers.iter().all(|w| w.parks > 0 || w.parked_ns > 0)
        } else {
            let before = process_cpu();
            std::thread::sleep(Duration::from_millis(100));
            process_cpu() - before < Duration::from_millis(10)
        };
        if parked {
            eprintln!("{what}: all workers parked after {:?}", start.elapsed());
            return;
        }
        assert!(
            start.elapsed() < DEADLINE,
            "{what}: the workers did not all park within {DEADLINE:?} (stats {:?})",
            pool.stats().workers
        );
        std::thread::sleep(Duration::from_millis(10));
    }
}

#[test]
fn idle_pool_parks_and_does_not_burn_cpu() {
    let _s = serial();
    for deque in deques() {
        for n in [2, 4] {
            let what = format!("{deque}, {n} workers");
            let pool = pool(deque, n);
            burst(&pool);
            // Idle workers park eventually (however little CPU they get on a shared machine).
            pool.reset_stats();
            wait_until_parked(&pool, &what);
            // Parked, they cost next to nothing: measure one idle second.
            pool.reset_stats();
            let before = process_cpu();
            std::thread::sleep(Duration::from_secs(1));
            let used = process_cpu() - before;
            eprintln!("{what}: idle second cost {used:?} of CPU");
            assert!(
                used < IDLE_CPU_LIMIT,
                "{what}: an idle second cost {used:?} of CPU (limit {IDLE_CPU_LIMIT:?})"
            );
            if COUNTERS {
                let t = pool.stats().total();
                assert!(t.parked_ns > 0, "{what}: no time parked: {t:?}");
                assert_eq!(t.tasks_run, 0, "{what}: work while idle?");
            }
            // And the pool still works.
            burst(&pool);
        }
    }
}

/// Runs `op` on a helper thread and returns its result, panicking if it is not done within
/// [`DEADLINE`] (a hang would otherwise stop the test binary rather than fail the test).
fn within_deadline<R: Send + 'static>(what: &str, op: impl FnOnce() -> R + Send + 'static) -> R {
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(op());
    });
    rx.recv_timeout(DEADLINE)
        .unwrap_or_else(|e| panic!("{what}: not done within {DEADLINE:?} ({e})"))
}

#[test]
fn new_work_wakes_parked_workers() {
    let _s = serial();
    for deque in deques() {
        let pool = std::sync::Arc::new(pool(deque, 2));
        burst(&pool);
        for round in 0..5 {
            let what = format!("{deque}, round {round}");
            // Work installed into a parked pool is run.
            pool.reset_stats();
            wait_until_parked(&pool, &format!("{what}, before install"));
            pool.reset_stats();
            let p = pool.clone();
            let v = within_deadline(&format!("{what}: install into a parked pool"), move || {
                p.install(|| fib(12))
            });
            assert_eq!(v, 144, "{what}");
            if COUNTERS {
                let t = pool.stats().total();
                assert!(
                    t.injected_taken >= 1,
                    "{what}: the installed job was not taken from the injector: {t:?}"
                );
            }
            // A spawn from outside wakes a worker too.
            pool.reset_stats();
            wait_until_parked(&pool, &format!("{what}, before spawn"));
            let (tx, rx) = std::sync::mpsc::channel();
            pool.spawn(move || tx.send(fib(10)).unwrap());
            assert_eq!(
                rx.recv_timeout(DEADLINE),
                Ok(55),
                "{what}: spawn into a parked pool not run within {DEADLINE:?}"
            );
        }
    }
}
