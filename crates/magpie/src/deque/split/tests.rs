//! Unit tests of the split deque (single-threaded and small threaded checks; the loom models are in `deque/tests/loom_split.rs`).

use super::*;
use std::sync::atomic::AtomicUsize as StdAtomicUsize;

/// A deque whose logical indices start at `isize::MAX` crosses the wrap-around.
#[test]
fn indices_start_anywhere() {
    let c = WorkerCounters::default();
    let w = Worker::with_start_index(Exposure::User, 2, isize::MAX);
    for v in 0..3 {
        w.push(v, &c); // indices MAX, MIN, MIN + 1
    }
    assert_eq!(w.len(), 3);
    assert_eq!(w.pop(&c), Some(2));
}

/// A deque that never holds more than one task keeps its first array.
#[test]
fn a_push_pop_loop_keeps_its_array() {
    let c = WorkerCounters::default();
    let w = Worker::with_capacity(Exposure::User, 4);
    for round in 0..1000 {
        w.push(round, &c);
        assert_eq!(w.pop(&c), Some(round));
    }
    assert_eq!(w.allocated_slots(), 4);
}

fn ctr() -> WorkerCounters {
    WorkerCounters::default()
}

/// The owner's and a thief's counters, and the deque `w` holding `0..n` (pushed in
/// order) with its stealer.
fn filled(
    w: Worker<usize>,
    n: usize,
) -> (
    WorkerCounters,
    WorkerCounters,
    Worker<usize>,
    Stealer<usize>,
) {
    let (c, t) = (ctr(), ctr());
    let s = w.stealer();
    for i in 0..n {
        w.push(i, &c);
    }
    (c, t, w, s)
}

const ALL: [Exposure; 4] = [
    Exposure::User,
    Exposure::Signal,
    Exposure::Conservative,
    Exposure::Half,
];

#[test]
fn lifo_pops_and_counts() {
    for e in ALL {
        let c = ctr();
        let w = Worker::new(e);
        crate::deque::tests::smoke::ten_pushes_popped_lifo(&w, &c);
        assert_eq!(w.pop(&c), None);
        let s = c.snapshot();
        assert_eq!((s.pushes, s.private_pops, s.public_pops), (10, 10, 0));
        assert_eq!((s.fences, s.cas), (0, 0), "{e:?}: empty pops are free");
        // Indices are consistent after empty pops.
        w.push(7, &c);
        assert_eq!(w.pop(&c), Some(7));
    }
}

#[test]
fn exposure_rules_per_variant() {
    // (variant, private tasks r) -> tasks exposed
    let cases = [
        (Exposure::User, 0, 0),
        (Exposure::User, 1, 1),
        (Exposure::User, 5, 1),
        (Exposure::Signal, 1, 1),
        (Exposure::Signal, 4, 1),
        (Exposure::Conservative, 1, 0),
        (Exposure::Conservative, 2, 1),
        (Exposure::Conservative, 5, 1),
        (Exposure::Half, 0, 0),
        (Exposure::Half, 1, 1),
        (Exposure::Half, 2, 1),
        (Exposure::Half, 3, 2),
        (Exposure::Half, 4, 2),
        (Exposure::Half, 5, 3),
        (Exposure::Half, 8, 4),
    ];
    for (e, r, k) in cases {
        let c = ctr();
        let w = Worker::new(e);
        for i in 0..r {
            w.push(i, &c);
        }
        w.inner.update_public_bottom(&c);
        assert_eq!(w.private_len(), (r - k) as usize, "{e:?} r={r}");
        let s = c.snapshot();
        assert_eq!((s.exposures_served, s.tasks_exposed), (1, k as u64));
        // Exposed tasks are the top-most ones: a thief gets 0, 1, ...
        for i in 0..k {
            assert_eq!(w.stealer().steal(&c), Steal::Success(i));
        }
    }
}

#[test]
fn conservative_never_exposes_the_last_private_task() {
    let c = ctr();
    let w = Worker::new(Exposure::Conservative);
    for i in 0..3 {
        w.push(i, &c);
    }
    for _ in 0..10 {
        w.inner.update_public_bottom(&c);
    }
    assert_eq!(w.private_len(), 1);
    assert_eq!(c.snapshot().tasks_exposed, 2);
    // A thief that empties the public part is not told to signal for the last task.
    let s = w.stealer();
    let t = ctr();
    assert_eq!(s.steal(&t), Steal::Success(0));
    assert_eq!(s.steal(&t), Steal::Success(1));
    assert_eq!(
        s.steal(&t),
        Steal::Empty,
        "the last private task is never exposed"
    );
    assert_eq!(t.snapshot().exposure_requests, 0);
    assert!(!w.inner.targeted.load(Ordering::Relaxed));
}

#[test]
fn steal_outcomes_and_user_flag() {
    let c = ctr();
    let t = ctr();
    let w = Worker::new(Exposure::User);
    let s = w.stealer();
    assert_eq!(s.steal(&t), Steal::Empty);
    w.push(1, &c);
    w.push(2, &c);
    // Erratum fixed: public part empty, private work exists -> Private.
    assert_eq!(s.steal(&t), Steal::Private);
    assert_eq!(s.steal(&t), Steal::Private);
    assert_eq!(t.snapshot().exposure_requests, 1, "one request per flag");
    assert!(w.inner.targeted.load(Ordering::Relaxed));
    // The owner serves it at its next scheduling point (after the pop).
    assert_eq!(w.pop(&c), Some(2));
    assert!(!w.inner.targeted.load(Ordering::Relaxed));
    assert_eq!(c.snapshot().tasks_exposed, 1);
    assert_eq!(s.steal(&t), Steal::Success(1));
    assert_eq!(s.steal(&t), Steal::Empty);
    let ts = t.snapshot();
    assert_eq!(
        (ts.steal_attempts, ts.steals, ts.cas, ts.fences),
        (5, 1, 1, 5)
    );
    assert_eq!(w.pop(&c), None);
}

#[test]
fn public_pops_and_the_last_task() {
    for e in [Exposure::User, Exposure::Signal, Exposure::Half] {
        let c = ctr();
        let w = Worker::new(e);
        for i in 0..4 {
            w.push(i, &c);
        }
        for _ in 0..4 {
            w.inner.update_public_bottom(&c);
        }
        assert_eq!(w.private_len(), 0);
        for i in (0..4).rev() {
            assert_eq!(w.pop(&c), Some(i), "{e:?}");
        }
        assert_eq!(w.pop(&c), None);
        let s = c.snapshot();
        assert_eq!((s.public_pops, s.exposed_taken_back), (4, 4));
        // 3 fast fences, then the last task: fence + CAS; the empty pop is free.
        assert_eq!((s.fences, s.cas), (4, 1), "{e:?}");
        // No reset: all three indices meet just past the last task taken (index 0).
        let i = &w.inner;
        let idx = [&i.top, &i.public_bot, &i.bot].map(|a| a.load(Ordering::Relaxed));
        assert_eq!(idx, [1, 1, 1], "{e:?}");
    }
}

#[test]
fn stale_thief_loses_after_wrap_around() {
    let c = ctr();
    let w = Worker::with_capacity(Exposure::Signal, 1);
    w.push(10, &c);
    w.inner.update_public_bottom(&c);
    let stale = w.inner.top.load(Ordering::Relaxed);
    assert_eq!(w.pop(&c), Some(10));
    // Index 1 reuses slot 0 (no growth): index 0 was taken.
    w.push(20, &c);
    w.inner.update_public_bottom(&c);
    assert_eq!(w.allocated_slots(), 1);
    // A thief holding the old `top` must fail although its slot holds a task again.
    assert!(w
        .inner
        .top
        .compare_exchange(stale, stale + 1, Ordering::SeqCst, Ordering::Relaxed)
        .is_err());
    assert_eq!(w.stealer().steal(&c), Steal::Success(20));
}

#[test]
fn never_empty_deque_keeps_its_array() {
    // The pattern that grew without bound with absolute, reset-on-empty indices: the
    // deque never empties while a thief keeps taking its oldest task.
    for e in ALL {
        let c = ctr();
        let w = Worker::with_capacity(e, 4);
        let s = w.stealer();
        w.push(0, &c);
        w.push(1, &c);
        for v in 2..10_000 {
            w.push(v, &c);
            w.inner.update_public_bottom(&c);
            assert_eq!(s.steal(&c), Steal::Success(v - 2), "{e:?}");
        }
        assert_eq!(w.len(), 2);
        assert_eq!(w.allocated_slots(), 4, "{e:?}");
    }
}

#[test]
fn indices_wrap_around_isize_max() {
    for e in ALL {
        let c = ctr();
        let w = Worker::with_start_index(e, 2, isize::MAX - 5);
        let s = w.stealer();
        let mut stolen = Vec::new();
        for v in 0..40 {
            w.push(v, &c);
            if v % 3 == 0 {
                w.inner.update_public_bottom(&c);
                w.inner.update_public_bottom(&c);
                while let Steal::Success(x) = s.steal(&c) {
                    stolen.push(x);
                }
            }
        }
        assert!(
            w.inner.bot.load(Ordering::Relaxed) < 0,
            "the indices wrapped"
        );
        assert_eq!(w.len(), 40 - stolen.len(), "{e:?}");
        let mut popped = Vec::new();
        while let Some(x) = w.pop(&c) {
            popped.push(x);
        }
        // Thieves take the oldest tasks in order, the owner the rest newest first.
        let k = stolen.len();
        assert_eq!(stolen, (0..k).collect::<Vec<_>>(), "{e:?}");
        assert_eq!(popped, (k..40).rev().collect::<Vec<_>>(), "{e:?}");
    }
}

#[test]
fn growth_copies_a_wrapped_live_range() {
    let (c, _, w, s) = filled(Worker::with_capacity(Exposure::User, 4), 4);
    w.expose_all(&c);
    assert_eq!(s.steal(&c), Steal::Success(0));
    assert_eq!(s.steal(&c), Steal::Success(1));
    // Indices 4, 5 reuse slots 0, 1; the live range 2..6 now wraps the array.
    w.push(4, &c);
    w.push(5, &c);
    assert_eq!(w.allocated_slots(), 4);
    // Full: index 6 doubles the array, copying the wrapped range.
    w.push(6, &c);
    assert_eq!(w.allocated_slots(), 4 + 8);
    w.expose_all(&c);
    for v in 2..7 {
        assert_eq!(s.steal(&c), Steal::Success(v));
    }
    assert_eq!(s.steal(&c), Steal::Empty);
}

#[test]
fn growth_keeps_tasks_and_retires_arrays() {
    let c = ctr();
    let w = Worker::with_capacity(Exposure::Half, 2);
    let s = w.stealer();
    for i in 0..100 {
        w.push(i, &c);
        if i % 10 == 0 {
            w.inner.update_public_bottom(&c);
        }
    }
    assert_eq!(w.len(), 100);
    let mut got = Vec::new();
    while let Steal::Success(v) = s.steal(&c) {
        got.push(v);
    }
    while let Some(v) = w.pop(&c) {
        got.push(v);
    }
    got.sort_unstable();
    assert_eq!(got, (0..100).collect::<Vec<_>>());
    // SAFETY: the owner is this thread and no operation is in progress.
    let retired = w.inner.retired.with(|r| unsafe { (*r).len() });
    assert_eq!(retired, 6, "2 -> 4 -> ... -> 128");
}

#[test]
fn drops_remaining_tasks_once() {
    static DROPS: StdAtomicUsize = StdAtomicUsize::new(0);
    struct D;
    impl Drop for D {
        fn drop(&mut self) {
            DROPS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        }
    }
    let c = ctr();
    {
        let w = Worker::with_capacity(Exposure::Signal, 2);
        let s = w.stealer();
        for _ in 0..20 {
            w.push(D, &c);
        }
        w.inner.update_public_bottom(&c);
        w.inner.update_public_bottom(&c);
        drop(s.steal(&c).success());
        drop(w.pop(&c));
        assert_eq!(DROPS.load(std::sync::atomic::Ordering::Relaxed), 2);
        drop(w);
        // The stealer keeps the deque alive.
        assert_eq!(DROPS.load(std::sync::atomic::Ordering::Relaxed), 2);
    }
    assert_eq!(DROPS.load(std::sync::atomic::Ordering::Relaxed), 20);
}

#[test]
fn signal_variant_exposes_through_the_handler() {
    let (c, t, w, s) = filled(Worker::new(Exposure::Signal), 3);
    // Unbound: flag only, no signal.
    assert_eq!(s.steal(&t), Steal::Private);
    assert_eq!(t.snapshot().signals_sent, 0);
    assert_eq!(c.snapshot().exposures_served, 0);
    // A push clears the flag.
    w.push(3, &c);
    assert!(!w.inner.targeted.load(Ordering::Relaxed));
    {
        // SAFETY: the guard is dropped at the end of this block.
        let _g = unsafe { w.bind_current_thread(signal::DEFAULT_SIGNAL, &c) }.expect("bind");
        // The thief is this very thread: pthread_kill to self delivers the signal before
        // it returns, so the handler has run when `steal` returns.
        assert_eq!(s.steal(&t), Steal::Private);
        assert_eq!(t.snapshot().signals_sent, 1);
        assert_eq!(c.snapshot().exposures_served, 1);
        assert_eq!(c.snapshot().tasks_exposed, 1);
        assert_eq!(s.steal(&t), Steal::Success(0));
        // The steal cleared the flag; the next request signals again.
        assert_eq!(s.steal(&t), Steal::Private);
        assert_eq!(t.snapshot().signals_sent, 2);
        assert_eq!(s.steal(&t), Steal::Success(1));
    }
    // Unbound again.
    assert_eq!(w.inner.owner_thread.load(Ordering::Relaxed), 0);
    assert!(signal::current_target().is_null());
    assert_eq!(s.steal(&t), Steal::Private);
    assert_eq!(t.snapshot().signals_sent, 2);
    assert_eq!(w.pop(&c), Some(3));
    assert_eq!(w.pop(&c), Some(2));
    assert_eq!(w.pop(&c), None);
}

#[test]
fn signal_exposure_across_threads() {
    use std::sync::atomic::AtomicBool as StdBool;
    use std::sync::Arc as StdArc;
    const N: usize = 20_000;
    for e in [Exposure::Signal, Exposure::Conservative, Exposure::Half] {
        let w = Worker::new(e);
        let s = w.stealer();
        let done = StdArc::new(StdBool::new(false));
        let thieves: Vec<_> = (0..2)
            .map(|_| {
                let s = s.clone();
                let done = done.clone();
                std::thread::spawn(move || {
                    let t = ctr();
                    let mut got = Vec::new();
                    while !done.load(std::sync::atomic::Ordering::Acquire) {
                        if let Steal::Success(v) = s.steal(&t) {
                            got.push(v);
                        }
                    }
                    (got, t.snapshot())
                })
            })
            .collect();
        let c = ctr();
        let mut got = Vec::new();
        {
            // SAFETY: the guard is dropped at the end of this block.
            let _g = unsafe { w.bind_current_thread(signal::DEFAULT_SIGNAL, &c) }.unwrap();
            for i in 0..N {
                w.push(i, &c);
                if i % 4 == 3 {
                    got.extend(w.pop(&c));
                }
                // A little work between scheduling points, so that signals land anywhere.
                std::hint::black_box((0..50).sum::<usize>());
            }
            while let Some(v) = w.pop(&c) {
                got.push(v);
            }
            done.store(true, std::sync::atomic::Ordering::Release);
            // The guard drops here while thieves may still be signalling.
        }
        let mut signals = 0;
        for t in thieves {
            let (g, st) = t.join().unwrap();
            got.extend(g);
            signals += st.signals_sent;
        }
        got.sort_unstable();
        assert_eq!(got, (0..N).collect::<Vec<_>>(), "{e:?}");
        let cs = c.snapshot();
        assert!(
            cs.exposures_served <= signals,
            "{e:?}: served {cs:?}, sent {signals}"
        );
    }
}

#[test]
fn half_handler_exposes_half() {
    let (c, t, w, s) = filled(Worker::new(Exposure::Half), 5);
    // SAFETY: the guard is dropped at the end of the test, before `w` and `c`.
    let _g = unsafe { w.bind_current_thread(signal::DEFAULT_SIGNAL, &c) }.unwrap();
    assert_eq!(s.steal(&t), Steal::Private);
    assert_eq!(c.snapshot().tasks_exposed, 3);
    assert_eq!(w.private_len(), 2);
}
