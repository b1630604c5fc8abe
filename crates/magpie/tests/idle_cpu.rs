//! Idle workers park: an idle pool uses (almost) no CPU, and new work wakes a parked worker
//! promptly. The bounds are generous on purpose (this is not a performance test): an idle
//! second must cost under 100 ms of process CPU time, a wake-up under 1 s.
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

#[test]
fn idle_pool_does_not_burn_cpu() {
    let _s = serial();
    for deque in deques() {
        for n in [2, 4] {
            let pool = pool(deque, n);
            burst(&pool);
            // Give the workers their spin / yield rounds, then measure one idle second.
            std::thread::sleep(Duration::from_millis(50));
            pool.reset_stats();
            let before = process_cpu();
            std::thread::sleep(Duration::from_secs(1));
            let used = process_cpu() - before;
            eprintln!("{deque}, {n} workers: idle second cost {used:?} of CPU");
            assert!(
                used < IDLE_CPU_LIMIT,
                "{deque}, {n} workers: an idle second cost {used:?} of CPU (limit {IDLE_CPU_LIMIT:?})"
            );
            if COUNTERS {
                let t = pool.stats().total();
                assert!(
                    t.parks >= n as u64,
                    "{deque}, {n} workers: parks = {}",
                    t.parks
                );
                assert_eq!(t.tasks_run, 0, "{deque}, {n} workers: work while idle?");
            }
            // And the pool still works.
            burst(&pool);
        }
    }
}

#[test]
fn new_work_wakes_parked_workers_promptly() {
    let _s = serial();
    for deque in deques() {
        let pool = pool(deque, 2);
        burst(&pool);
        for round in 0..5 {
            std::thread::sleep(Duration::from_millis(200));
            let start = Instant::now();
            let v = pool.install(|| fib(12));
            let took = start.elapsed();
            assert_eq!(v, 144);
            assert!(
                took < Duration::from_secs(1),
                "{deque}, round {round}: install into a parked pool took {took:?}"
            );
            // A spawn from outside wakes a worker too.
            let (tx, rx) = std::sync::mpsc::channel();
            std::thread::sleep(Duration::from_millis(200));
            let start = Instant::now();
            pool.spawn(move || tx.send(fib(10)).unwrap());
            assert_eq!(rx.recv_timeout(Duration::from_secs(5)), Ok(55));
            let took = start.elapsed();
            assert!(
                took < Duration::from_secs(1),
                "{deque}, round {round}: spawn into a parked pool took {took:?}"
            );
        }
    }
}
