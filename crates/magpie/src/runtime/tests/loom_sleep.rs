//! Loom models of the latch / sleep protocol (`runtime/latch.rs`, `runtime/sleep.rs`).
//!
//! Run with:
//! `RUSTFLAGS="--cfg loom" CARGO_TARGET_DIR=target/loom cargo test -p magpie --lib --profile test-release -- loom_sleep`
//!
//! Under loom a condvar wait has no timeout (see `sleep.rs`), so a lost wake-up leaves the
//! sleeper blocked forever, which loom reports as a deadlock: every model below fails if any
//! interleaving loses a wake-up. The `broken_*` models are negative controls: they break one
//! step of the protocol on purpose and must fail (checked by `negative_controls_fail`), which
//! shows the models can catch it.
use crate::runtime::latch::CoreLatch;
use crate::runtime::sleep::{Sleep, Wakeup};
use crate::sync::loom_common;
use loom::sync::atomic::{fence, AtomicBool, Ordering::SeqCst};
use loom::sync::Arc;
use loom::thread;

/// Runs `f` under loom, exhaustively (`None`) or with at most `bound` preemptions per
/// execution (the models with three or four threads and a condvar are too large to explore
/// exhaustively in a test run; a lost wake-up in this protocol needs one or two
/// preemptions). `LOOM_MAX_PREEMPTIONS` overrides the bound.
fn model(bound: Option<usize>, f: impl Fn() + Sync + Send + 'static) {
    let mut b = loom::model::Builder::new();
    if b.preemption_bound.is_none() {
        b.preemption_bound = bound;
    }
    b.check(f);
}

/// The sleeper side of `Registry::has_work`, as the protocol needs it: a SeqCst fence, then
/// the loads of the work queues.
///
/// Loom models SeqCst loads / stores / RMWs as AcqRel (see loom's "Unsupported features"),
/// so the runtime's Dekker pair (sleeper: `sleeping.fetch_add(SeqCst)` then the queue loads;
/// publisher: queue store, `fence(SeqCst)`, `sleeping.load(SeqCst)`) only verifies with a
/// `fence(SeqCst)` on the sleeper side too. `Sleep::sleep` has no such fence today; see
/// `published_work_without_sleeper_fence` below, which is that exact protocol and fails.
fn fenced(work: &AtomicBool) -> bool {
    fence(SeqCst);
    work.load(SeqCst)
}

/// The waiter side of a spinning latch, as `WorkerThread::wait_until` runs it (minus the
/// search for work): sleep until the latch is set, re-checking `has_work` before blocking.
fn wait_for_latch(sleep: &Sleep, index: usize, latch: &CoreLatch, has_work: impl Fn() -> bool) {
    while !latch.probe() {
        sleep.sleep(index, latch, &has_work);
    }
}

/// The sleep protocol of a pool of one worker, and that worker's latch (not set).
fn one_worker() -> (Arc<Sleep>, Arc<CoreLatch>) {
    (Arc::new(Sleep::new(1)), Arc::new(CoreLatch::new()))
}

/// A publisher thread: stores the work, runs a SeqCst fence, then announces it with
/// `announce` (`Sleep::new_work` for a push, `Sleep::new_external_work` for an injection).
fn publish(
    sleep: &Arc<Sleep>,
    work: &Arc<AtomicBool>,
    announce: fn(&Sleep) -> bool,
) -> thread::JoinHandle<()> {
    let (sleep, work) = (Arc::clone(sleep), Arc::clone(work));
    thread::spawn(move || {
        work.store(true, SeqCst);
        fence(SeqCst);
        // Whether it woke someone is not the question here.
        let _ = announce(&sleep);
    })
}

/// (a) A sleeper waiting on its latch vs a setter that sets the latch and wakes the sleeper
/// if `set` says it was asleep (what `SpinLatch::set` / `CountLatch::set` do).
#[test]
fn latch_set_wakes_sleeper() {
    model(None, || {
        let (sleep, latch) = one_worker();
        let setter = {
            let (sleep, latch) = (Arc::clone(&sleep), Arc::clone(&latch));
            thread::spawn(move || {
                // SAFETY: the Arc keeps the latch alive for the whole call.
                if unsafe { CoreLatch::set(&*latch) } {
                    assert!(sleep.wake_specific(0), "set said asleep, slot said awake");
                }
            })
        };
        wait_for_latch(&sleep, 0, &latch, || false);
        setter.join().unwrap();
        assert!(latch.probe());
        assert_eq!(sleep.sleeping_hint(), 0);
        // Once set, the latch stays set: a later sleep attempt does not block.
        assert_eq!(sleep.sleep(0, &latch, || false), Wakeup::DidNotSleep);
    });
}

/// (b) A parked sleeper vs a publisher that stores work, runs a SeqCst fence, then
/// `new_work()` (a push that wakes parked workers): the sleeper either sees the work in its
/// re-check or is woken. The re-check is [`fenced`].
#[test]
fn published_work_is_seen_or_wakes() {
    model(None, || {
        let (sleep, latch) = one_worker();
        let work = Arc::new(AtomicBool::new(false));
        let publisher = publish(&sleep, &work, |s| s.new_work());
        while !work.load(SeqCst) {
            sleep.sleep(0, &latch, || fenced(&work));
        }
        publisher.join().unwrap();
        assert_eq!(sleep.sleeping_hint(), 0);
        assert!(!latch.probe());
    });
}

/// (b) exactly as the runtime runs it: the re-check in `has_work` is a plain SeqCst load
/// and relies on `Sleep::sleep`'s own `fence(SeqCst)` after `sleeping.fetch_add` (protocol
/// step 1 → 2). Without that fence loom finds a lost wake-up (a deadlock): the test that
/// found the gap, kept as its regression test.
#[test]
fn published_work_without_sleeper_fence() {
    model(None, || {
        let (sleep, latch) = one_worker();
        let work = Arc::new(AtomicBool::new(false));
        let publisher = publish(&sleep, &work, |s| s.new_work());
        while !work.load(SeqCst) {
            sleep.sleep(0, &latch, || work.load(SeqCst));
        }
        publisher.join().unwrap();
        assert_eq!(sleep.sleeping_hint(), 0);
        assert!(!latch.probe());
    });
}

/// How long a model's doze lasts: irrelevant under loom, where a wait only ends when notified
/// (so a doze that nobody wakes deadlocks the model instead of timing out).
const DOZE: std::time::Duration = std::time::Duration::from_micros(500);

/// (b1) A dozing worker (a backoff's timed sleep) vs work injected from outside the pool
/// (what `Registry::inject` does: store, `fence(SeqCst)`, `new_external_work()`): the dozer
/// sees the work in its re-check or is woken, without waiting for its timeout.
#[test]
fn injected_work_wakes_a_dozer() {
    model(None, || {
        let (sleep, latch) = one_worker();
        let work = Arc::new(AtomicBool::new(false));
        let publisher = publish(&sleep, &work, |s| s.new_external_work());
        while !work.load(SeqCst) {
            sleep.doze(0, &latch, || work.load(SeqCst), DOZE);
        }
        publisher.join().unwrap();
        assert_eq!(sleep.dozing_hint(), 0);
        assert_eq!(sleep.sleeping_hint(), 0);
    });
}

/// (b2) Injected work wakes a parked worker too: two published jobs, a parked and a dozing
/// worker; each either sees the work or is woken (both return).
#[test]
fn injected_work_wakes_parked_or_dozing() {
    model(Some(4), || {
        let sleep = Arc::new(Sleep::new(2));
        let work = Arc::new(AtomicBool::new(false));
        let dozer = {
            let (sleep, work) = (Arc::clone(&sleep), Arc::clone(&work));
            thread::spawn(move || {
                let latch = CoreLatch::new();
                while !work.load(SeqCst) {
                    sleep.doze(1, &latch, || work.load(SeqCst), DOZE);
                }
            })
        };
        // One wake per published job.
        let publisher = publish(&sleep, &work, |s| {
            s.new_external_work();
            s.new_external_work()
        });
        let latch = CoreLatch::new();
        while !work.load(SeqCst) {
            sleep.sleep(0, &latch, || work.load(SeqCst));
        }
        publisher.join().unwrap();
        dozer.join().unwrap();
        assert_eq!(sleep.dozing_hint() + sleep.sleeping_hint(), 0);
    });
}

/// (b3) A dozing worker waiting on its latch vs the latch's setter (a stolen job finished):
/// the set wakes it, as it wakes a parked worker.
#[test]
fn latch_set_wakes_dozer() {
    model(None, || {
        let (sleep, latch) = one_worker();
        let setter = {
            let (sleep, latch) = (Arc::clone(&sleep), Arc::clone(&latch));
            thread::spawn(move || {
                // SAFETY: the Arc keeps the latch alive for the whole call.
                if unsafe { CoreLatch::set(&*latch) } {
                    assert!(sleep.wake_specific(0), "set said asleep, slot said awake");
                }
            })
        };
        while !latch.probe() {
            sleep.doze(0, &latch, || false, DOZE);
        }
        setter.join().unwrap();
        assert_eq!(sleep.dozing_hint(), 0);
    });
}

/// (c) Two sleepers and one `wake_all` after a termination flag (what
/// `Registry::terminate` does): both sleepers return.
#[test]
fn wake_all_wakes_both_sleepers() {
    // Bound 5 explores this 3-thread model in about 4 s (release); unbounded is too slow.
    model(Some(5), || {
        let sleep = Arc::new(Sleep::new(2));
        let stop = Arc::new(AtomicBool::new(false));
        let sleepers: Vec<_> = (0..2)
            .map(|i| {
                let (sleep, stop) = (Arc::clone(&sleep), Arc::clone(&stop));
                thread::spawn(move || {
                    let latch = CoreLatch::new();
                    while !stop.load(SeqCst) {
                        sleep.sleep(i, &latch, || stop.load(SeqCst));
                    }
                })
            })
            .collect();
        stop.store(true, SeqCst);
        sleep.wake_all();
        for s in sleepers {
            s.join().unwrap();
        }
        assert_eq!(sleep.sleeping_hint(), 0);
    });
}

/// (d) Two sleepers, each waiting on its own latch, and one setter that sets both latches
/// (waking as `set` says) while a third party calls `new_work` concurrently: spurious wakes
/// from `new_work` must not eat a latch wake-up.
#[test]
fn latch_wakes_survive_concurrent_new_work() {
    // Bound 3 explores this 4-thread model in about 11 s (release); bound 4 takes minutes.
    model(Some(3), || {
        let sleep = Arc::new(Sleep::new(2));
        let latches = Arc::new([CoreLatch::new(), CoreLatch::new()]);
        let setter = {
            let (sleep, latches) = (Arc::clone(&sleep), Arc::clone(&latches));
            thread::spawn(move || {
                for (i, l) in latches.iter().enumerate() {
                    // SAFETY: the Arc keeps the latches alive.
                    if unsafe { CoreLatch::set(l) } {
                        sleep.wake_specific(i);
                    }
                }
            })
        };
        let noise = {
            let sleep = Arc::clone(&sleep);
            thread::spawn(move || {
                fence(SeqCst);
                sleep.new_work();
            })
        };
        let other = {
            let (sleep, latches) = (Arc::clone(&sleep), Arc::clone(&latches));
            thread::spawn(move || wait_for_latch(&sleep, 1, &latches[1], || false))
        };
        wait_for_latch(&sleep, 0, &latches[0], || false);
        setter.join().unwrap();
        noise.join().unwrap();
        other.join().unwrap();
        assert_eq!(sleep.sleeping_hint(), 0);
    });
}

/// Negative control for (a): a setter that ignores `set`'s answer and never wakes. Must fail
/// (run by [`negative_controls_fail`]).
#[test]
#[ignore = "negative control: must fail; run by negative_controls_fail"]
fn broken_setter_that_never_wakes() {
    model(None, || {
        let (sleep, latch) = one_worker();
        let setter = {
            let latch = Arc::clone(&latch);
            thread::spawn(move || {
                // SAFETY: the Arc keeps the latch alive.
                let _ = unsafe { CoreLatch::set(&*latch) };
            })
        };
        wait_for_latch(&sleep, 0, &latch, || false);
        setter.join().unwrap();
    });
}

/// Negative control for (b): a sleeper that skips the `has_work` re-check (step 2) misses
/// work published just before it announced itself. Must fail (run by
/// [`negative_controls_fail`]).
#[test]
#[ignore = "negative control: must fail; run by negative_controls_fail"]
fn broken_sleeper_without_recheck() {
    model(None, || {
        let (sleep, latch) = one_worker();
        let work = Arc::new(AtomicBool::new(false));
        let publisher = publish(&sleep, &work, |s| s.new_work());
        while !work.load(SeqCst) {
            // The broken step: no re-check at all (not even a fenced one).
            sleep.sleep(0, &latch, || false);
        }
        publisher.join().unwrap();
    });
}

/// Negative control: a local push (`new_work`) does not wake a dozing worker, by design (a
/// backoff keeps backing off; the doze ends by its timeout, which loom does not model). Must
/// deadlock under loom: it shows that the dozer models above are woken by
/// `new_external_work` or the latch and by nothing else.
#[test]
#[ignore = "negative control: must fail; run by negative_controls_fail"]
fn broken_dozer_woken_by_local_push() {
    model(None, || {
        let (sleep, latch) = one_worker();
        let work = Arc::new(AtomicBool::new(false));
        let publisher = publish(&sleep, &work, |s| s.new_work());
        while !work.load(SeqCst) {
            sleep.doze(0, &latch, || false, DOZE);
        }
        publisher.join().unwrap();
    });
}

/// The broadcast (`Registry::inject_broadcast`): one job per worker in the worker's own
/// queue, a SeqCst fence, then a targeted wake of every worker; each sleeper re-checks only
/// its own queue (`has_work(index)`). Two sleepers: neither may be left asleep. With
/// `wake_all = false` the publisher wakes only worker 0 (the negative control).
fn broadcast_model(wake_all: bool) {
    model(Some(2), move || {
        let sleep = Arc::new(Sleep::new(2));
        let queues = Arc::new([AtomicBool::new(false), AtomicBool::new(false)]);
        let publisher = {
            let (sleep, queues) = (Arc::clone(&sleep), Arc::clone(&queues));
            thread::spawn(move || {
                for q in queues.iter() {
                    q.store(true, SeqCst);
                }
                fence(SeqCst);
                let woken = if wake_all { 2 } else { 1 };
                for i in 0..woken {
                    sleep.wake_specific(i);
                }
            })
        };
        let other = {
            let (sleep, queues) = (Arc::clone(&sleep), Arc::clone(&queues));
            thread::spawn(move || {
                let latch = CoreLatch::new();
                while !queues[1].load(SeqCst) {
                    sleep.sleep(1, &latch, || queues[1].load(SeqCst));
                }
            })
        };
        let latch = CoreLatch::new();
        while !queues[0].load(SeqCst) {
            sleep.sleep(0, &latch, || queues[0].load(SeqCst));
        }
        publisher.join().unwrap();
        other.join().unwrap();
        assert_eq!(sleep.sleeping_hint(), 0);
    });
}

/// (f) Broadcast jobs reach every worker, asleep or not.
#[test]
fn broadcast_wakes_every_sleeper() {
    broadcast_model(true);
}

/// Negative control: a broadcast that wakes only worker 0 leaves worker 1 asleep forever
/// (run by [`negative_controls_fail`]).
#[test]
#[ignore = "negative control: must fail; run by negative_controls_fail"]
fn broken_broadcast_that_wakes_one() {
    broadcast_model(false);
}

/// The broken models above must deadlock under loom.
#[test]
fn negative_controls_fail() {
    loom_common::negative_controls_fail(
        module_path!(),
        &[
            "broken_setter_that_never_wakes",
            "broken_sleeper_without_recheck",
            "broken_dozer_woken_by_local_push",
            "broken_broadcast_that_wakes_one",
        ],
    );
}
