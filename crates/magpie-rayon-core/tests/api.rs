//! What rayon's own test suites do not pin down about this rayon-core: panics from every
//! entry point, nested and cross-pool installs, magpie's settings and counters through the
//! rayon API, and rayon's rules for the thread count and build errors.

use rayon_core::{MagpieBuilderExt, ThreadPool, ThreadPoolBuilder};
use std::panic::{self, AssertUnwindSafe};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{mpsc, Mutex};

fn pool(n: usize) -> ThreadPool {
    ThreadPoolBuilder::new().num_threads(n).build().unwrap()
}

fn panic_message<R>(f: impl FnOnce() -> R) -> String {
    let payload = panic::catch_unwind(AssertUnwindSafe(f))
        .err()
        .expect("it should panic");
    payload
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap()
}

#[test]
fn panics_propagate_from_every_entry_point() {
    let p = pool(2);
    assert_eq!(panic_message(|| p.install(|| panic!("install"))), "install");
    assert_eq!(
        panic_message(|| p.join(|| (), || panic!("join b"))),
        "join b"
    );
    assert_eq!(
        panic_message(|| rayon_core::join(|| panic!("join a"), || ())),
        "join a"
    );
    assert_eq!(
        panic_message(|| p.install(|| rayon_core::join_context(|_| (), |_| panic!("ctx")))),
        "ctx"
    );
    assert_eq!(
        panic_message(|| p.scope(|s| s.spawn(|_| panic!("scope job")))),
        "scope job"
    );
    assert_eq!(
        panic_message(|| p.scope_fifo(|_| panic!("fifo body"))),
        "fifo body"
    );
    assert_eq!(
        panic_message(|| rayon_core::in_place_scope(|_| panic!("in place"))),
        "in place"
    );
    assert_eq!(
        panic_message(|| p.broadcast(|c| if c.index() == 0 {
            panic!("bcast")
        })),
        "bcast"
    );
    // A spawned job's panic goes to the panic handler.
    let (tx, rx) = mpsc::channel();
    let tx = Mutex::new(tx);
    let handled = ThreadPoolBuilder::new()
        .num_threads(2)
        .panic_handler(move |e| {
            tx.lock()
                .unwrap()
                .send(e.downcast_ref::<&str>().copied())
                .unwrap()
        })
        .build()
        .unwrap();
    handled.spawn(|| panic!("spawned"));
    handled.spawn_fifo(|| panic!("spawned fifo"));
    let mut got = vec![rx.recv().unwrap(), rx.recv().unwrap()];
    got.sort();
    assert_eq!(got, [Some("spawned"), Some("spawned fifo")]);
    // Every pool stays usable.
    assert_eq!(p.install(|| rayon_core::join(|| 1, || 2)), (1, 2));
}

#[test]
fn nested_and_cross_pool_installs() {
    let a = pool(2);
    let b = pool(3);
    let got = a.install(|| {
        let in_a = rayon_core::current_num_threads();
        let (in_b, back_in_a) = b.install(|| {
            let n = rayon_core::current_num_threads();
            // From b's worker back into a: a's worker waits by working, no deadlock.
            (n, a.install(rayon_core::current_num_threads))
        });
        // Nested install into the same pool runs in place.
        let same = a.install(|| a.current_thread_index().is_some());
        (in_a, in_b, back_in_a, same)
    });
    assert_eq!(got, (2, 3, 2, true));
    // Joins on both pools at once, each counted exactly.
    let runs = AtomicUsize::new(0);
    a.install(|| {
        rayon_core::join(
            || {
                b.install(|| {
                    (0..100).for_each(|_| {
                        let _ = rayon_core::join(|| runs.fetch_add(1, Ordering::SeqCst), || ());
                    })
                })
            },
            || {
                (0..100).for_each(|_| {
                    let _ = rayon_core::join(|| runs.fetch_add(1, Ordering::SeqCst), || ());
                })
            },
        )
    });
    assert_eq!(runs.into_inner(), 200);
}

#[test]
fn work_runs_on_magpie_workers_with_magpie_settings() {
    for deque in ["chase-lev", "lcws-user", "lcws-signal"] {
        let p = ThreadPoolBuilder::new()
            .num_threads(2)
            .deque(deque)
            .victims("sticky")
            .idle("linear")
            .join_push_limit(usize::MAX)
            .build()
            .unwrap();
        assert_eq!(p.magpie().deque().to_string(), deque);
        assert_eq!(p.magpie().victims(), "sticky");
        fn fib(n: u32) -> u64 {
            if n < 2 {
                return n as u64;
            }
            let (a, b) = rayon_core::join(|| fib(n - 1), || fib(n - 2));
            a + b
        }
        assert_eq!(p.install(|| fib(20)), 6765);
        let stats = p.magpie().stats().total();
        // Every join pushed its `b` (eager joins): fib(20) makes 10945 joins.
        assert_eq!(stats.pushes, 10945, "{deque}");
        assert!(stats.tasks_run >= 10945, "{deque}");
    }
}

#[test]
fn build_errors_are_rayons_or_name_magpies_setting() {
    let err = ThreadPoolBuilder::new()
        .deque("nonsense")
        .build()
        .unwrap_err();
    let msg = err.to_string();
    assert!(
        msg.contains("nonsense") && msg.contains("chase-lev"),
        "{msg}"
    );
    let err = ThreadPoolBuilder::new().idle("sleepy").build().unwrap_err();
    assert!(err.to_string().contains("sleepy"), "{err}");
    // use_current_thread on a thread that is a worker already.
    let p = pool(1);
    let err = p.install(|| {
        ThreadPoolBuilder::new()
            .use_current_thread()
            .build()
            .unwrap_err()
    });
    assert_eq!(
        err.to_string(),
        "The current thread is already part of another thread pool."
    );
    // A spawn handler's error is the build's, as an io::Error source.
    let err = ThreadPoolBuilder::new()
        .num_threads(2)
        .spawn_handler(|_| Err(std::io::Error::other("refused")))
        .build()
        .unwrap_err();
    assert_eq!(err.to_string(), "refused");
    assert!(std::error::Error::source(&err).is_some());
}

#[test]
fn thread_count_names_and_handlers() {
    assert_eq!(rayon_core::max_num_threads(), magpie::MAX_WORKERS);
    let started = std::sync::Arc::new(AtomicUsize::new(0));
    let s = std::sync::Arc::clone(&started);
    let p = ThreadPoolBuilder::new()
        .num_threads(3)
        .thread_name(|i| format!("rc-{i}"))
        .start_handler(move |_| {
            s.fetch_add(1, Ordering::SeqCst);
        })
        .build()
        .unwrap();
    let mut names = p.broadcast(|_| std::thread::current().name().unwrap().to_string());
    names.sort();
    assert_eq!(names, ["rc-0", "rc-1", "rc-2"]);
    assert_eq!(started.load(Ordering::SeqCst), 3);
    assert_eq!(p.current_num_threads(), 3);
    assert_eq!(p.current_thread_index(), None);
    assert_eq!(
        p.install(|| p.current_thread_has_pending_tasks()),
        Some(false)
    );
}
