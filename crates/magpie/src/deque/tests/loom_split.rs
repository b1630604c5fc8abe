//! Loom models of the LCWS split deque (`deque::split`).
//!
//! Run with
//! `RUSTFLAGS="--cfg loom" CARGO_TARGET_DIR=target/loom cargo test -p magpie --lib --profile test-release -- loom_split`.
//!
//! Signals cannot be delivered under loom, so the signal handler is modelled as an
//! interleaving point inside the owner's code: `split::loom_hook::arm(n)` makes the `n`-th
//! handler point that the owner reaches run `update_public_bottom` with the variant's rule,
//! exactly what the handler would do if the signal arrived there. Each scenario loops over
//! every point (and "never"), for every exposure variant, against a concurrent thief; every
//! task must be obtained exactly once.
//!
//! The deque's indices never reset and map into a circular array; the last models cover that
//! protocol: a push that reuses a slot whose task a thief is stealing (or grows the array
//! while the thief still reads the old one), indices crossing `isize::MAX` (a test-only start
//! index), and the last public task's CAS at the wrap.
use crate::deque::split::{loom_hook, Worker};
use crate::deque::{DequeOwner, DequeStealer, Exposure, Steal};
use crate::stats::WorkerCounters;
use loom::thread;
use std::sync::atomic::{AtomicUsize, Ordering};

const VARIANTS: [Exposure; 4] = [
    Exposure::User,
    Exposure::Signal,
    Exposure::Conservative,
    Exposure::Half,
];

fn check(f: impl Fn() + Sync + Send + 'static) {
    let mut b = loom::model::Builder::new();
    if b.preemption_bound.is_none() {
        b.preemption_bound = Some(3);
    }
    b.check(f);
}

/// Runs `scenario(exposure, n)` for every variant and every handler point `n` in
/// `0..=points` (0 = the handler never fires), and checks that no execution reached more
/// than `points` points, so that every point was tried.
///
/// `most` records the most handler points the owner reached in one execution; each test
/// passes its own (tests run in parallel).
fn for_all_points(
    points: usize,
    most: &'static AtomicUsize,
    scenario: fn(Exposure, usize, &'static AtomicUsize),
) {
    for e in VARIANTS {
        most.store(0, Ordering::Relaxed);
        for n in 0..=points {
            scenario(e, n, most);
        }
        let most = most.load(Ordering::Relaxed);
        assert!(
            most <= points,
            "{e:?}: {most} handler points, only {points} tried"
        );
        assert!(most > 0);
    }
}

/// A thief that tries `attempts` steals and returns what it got.
fn thief(
    s: crate::deque::split::Stealer<usize>,
    attempts: usize,
) -> thread::JoinHandle<Vec<usize>> {
    thread::spawn(move || {
        let c = WorkerCounters::default();
        let mut got = Vec::new();
        for _ in 0..attempts {
            if let Steal::Success(v) = s.steal(&c) {
                got.push(v);
            }
        }
        got
    })
}

/// Joins the thief, drains the deque, and checks that `expected` was obtained exactly once.
fn settle(
    w: &Worker<usize>,
    c: &WorkerCounters,
    mut got: Vec<usize>,
    t: thread::JoinHandle<Vec<usize>>,
    expected: &[usize],
    most: &AtomicUsize,
) {
    most.fetch_max(loom_hook::reached(), Ordering::Relaxed);
    loom_hook::arm(0);
    got.extend(t.join().unwrap());
    let mut seen = got.clone();
    seen.sort_unstable();
    seen.dedup();
    assert_eq!(seen.len(), got.len(), "a task was obtained twice: {got:?}");
    w.assert_invariants();
    while let Some(v) = w.pop(c) {
        got.push(v);
    }
    assert!(w.is_empty());
    got.sort_unstable();
    assert_eq!(got, expected, "every task exactly once");
}

/// Owner: push, push, pop, pop (the second push grows the array) vs one thief stealing twice.
fn push_push_pop_pop(e: Exposure, n: usize, most: &'static AtomicUsize) {
    check(move || {
        let w = Worker::with_capacity(e, 1);
        let t = thief(w.stealer(), 2);
        let c = WorkerCounters::default();
        loom_hook::arm(n);
        w.push(1, &c);
        w.push(2, &c);
        let mut got = Vec::new();
        got.extend(w.pop(&c));
        got.extend(w.pop(&c));
        settle(&w, &c, got, t, &[1, 2], most);
    });
}

/// The owner pops the last public task while a thief steals it: the CAS race of
/// `pop_public_bottom` (the conservative variant keeps one more, private, task).
fn last_public_task(e: Exposure, n: usize, most: &'static AtomicUsize) {
    last_public_task_from(e, n, most, 0);
}

/// As [`last_public_task`], with the indices starting at `isize::MAX`: the CAS moves `top`
/// across the wrap, to `isize::MIN`.
fn last_public_task_at_wrap(e: Exposure, n: usize, most: &'static AtomicUsize) {
    last_public_task_from(e, n, most, isize::MAX);
}

fn last_public_task_from(e: Exposure, n: usize, most: &'static AtomicUsize, start: isize) {
    check(move || {
        let w = Worker::with_start_index(e, 64, start);
        let c = WorkerCounters::default();
        let expected: &[usize] = if e == Exposure::Conservative {
            &[1, 2]
        } else {
            &[1]
        };
        for &v in expected {
            w.push(v, &c);
        }
        w.simulate_handler(&c);
        assert_eq!(w.private_len(), expected.len() - 1);
        let t = thief(w.stealer(), 1);
        loom_hook::arm(n);
        let mut got = Vec::new();
        for _ in 0..expected.len() {
            got.extend(w.pop(&c));
        }
        settle(&w, &c, got, t, expected, most);
    });
}

/// "A Subtlety": one private task; the handler fires inside `pop_bottom` while a thief tries
/// to steal the task it may expose.
fn subtlety(e: Exposure, n: usize, most: &'static AtomicUsize) {
    check(move || {
        let w = Worker::new(e);
        let c = WorkerCounters::default();
        w.push(1, &c);
        let t = thief(w.stealer(), 2);
        loom_hook::arm(n);
        let got = w.pop(&c).into_iter().collect();
        settle(&w, &c, got, t, &[1], most);
    });
}

/// Two public tasks: the owner's fast public pop (no CAS) vs a thief stealing twice (the
/// first `pop_public_bottom` fence is what keeps both from taking the second task).
fn two_public_tasks(e: Exposure, n: usize, most: &'static AtomicUsize) {
    check(move || {
        let w = Worker::new(e);
        let c = WorkerCounters::default();
        for v in 1..=3 {
            w.push(v, &c);
        }
        w.simulate_handler(&c);
        w.simulate_handler(&c);
        let t = thief(w.stealer(), 2);
        loom_hook::arm(n);
        let mut got = Vec::new();
        got.extend(w.pop(&c));
        got.extend(w.pop(&c));
        settle(&w, &c, got, t, &[1, 2, 3], most);
    });
}

/// A full 2-slot deque whose tasks 1 and 2 sit at indices `MAX - 1, MAX`, both exposed
/// (one for the conservative variant): the start of the models of the index wrap.
fn full_at_wrap(e: Exposure) -> (Worker<usize>, WorkerCounters) {
    let w = Worker::with_start_index(e, 2, isize::MAX - 1);
    let c = WorkerCounters::default();
    w.push(1, &c);
    w.push(2, &c);
    w.simulate_handler(&c);
    w.simulate_handler(&c);
    (w, c)
}

/// Circular reuse and the index wrap: a full 2-slot array at indices `MAX - 1, MAX`, both
/// tasks exposed (one for the conservative variant); a thief steals while the owner pushes a
/// third task at index `MIN`, into slot 0. If the owner's Acquire load of `top` sees the
/// thief's steal of index `MAX - 1`, the push reuses its slot (the thief's read of it must
/// happen before the write: loom checks that), otherwise it doubles the array while the
/// thief may still read the old one. Then the owner pops everything back.
fn wrap_around(e: Exposure, n: usize, most: &'static AtomicUsize) {
    check(move || {
        let (w, c) = full_at_wrap(e);
        let t = thief(w.stealer(), 2);
        loom_hook::arm(n);
        w.push(3, &c);
        assert!(w.allocated_slots() == 2 || w.allocated_slots() == 2 + 4);
        let mut got = Vec::new();
        for _ in 0..3 {
            got.extend(w.pop(&c));
        }
        settle(&w, &c, got, t, &[1, 2, 3], most);
    });
}

/// Slot reuse after a steal, at the index wrap: as [`wrap_around`], but the owner waits
/// until it sees (relaxed, through `len`) that the thief took index `MAX - 1`, so its push at
/// `MIN` must reuse slot 0 without growing. The thief's read of that slot came before its
/// CAS; the owner's Acquire reload of `top` must order it before the rewrite (with a relaxed
/// reload loom reports the concurrent read and write). Then the thief tries once more while
/// the owner pops everything back. (Loom's bounded exploration of `wrap_around` does not
/// reach the reuse on its own.)
fn reuse_after_steal(e: Exposure, n: usize, most: &'static AtomicUsize) {
    check(move || {
        let (w, c) = full_at_wrap(e);
        let s = w.stealer();
        let t = thread::spawn(move || {
            let c = WorkerCounters::default();
            let mut got = Vec::new();
            loop {
                if let Steal::Success(v) = s.steal(&c) {
                    got.push(v);
                    break;
                }
                thread::yield_now();
            }
            if let Steal::Success(v) = s.steal(&c) {
                got.push(v);
            }
            got
        });
        while w.len() == 2 {
            thread::yield_now();
        }
        loom_hook::arm(n);
        w.push(3, &c);
        assert_eq!(w.allocated_slots(), 2, "the push reused the stolen slot");
        let mut got = Vec::new();
        for _ in 0..2 {
            got.extend(w.pop(&c));
        }
        settle(&w, &c, got, t, &[1, 2, 3], most);
    });
}

/// Growth while a thief is active: one exposed task in a 1-slot array, a thief stealing
/// twice; the owner pushes a second task (reusing slot 0 if it saw the steal, else growing
/// and copying the live task), exposes it, and pops both back. The thief may take either
/// task from either array.
fn growth_vs_thief(e: Exposure, n: usize, most: &'static AtomicUsize) {
    check(move || {
        let w = Worker::with_capacity(e, 1);
        let c = WorkerCounters::default();
        w.push(1, &c);
        w.simulate_handler(&c);
        let t = thief(w.stealer(), 2);
        loom_hook::arm(n);
        w.push(2, &c);
        w.simulate_handler(&c);
        let mut got = Vec::new();
        got.extend(w.pop(&c));
        got.extend(w.pop(&c));
        settle(&w, &c, got, t, &[1, 2], most);
    });
}

/// Tests that run a scenario at every interruption point up to `points` (on every variant),
/// each with its own record of the most points a run reached: `test_name(points) =
/// scenario;`.
macro_rules! point_models {
    ($($name:ident($points:literal) = $scenario:ident;)*) => {$(
        #[test]
        fn $name() {
            static MOST: AtomicUsize = AtomicUsize::new(0);
            for_all_points($points, &MOST, $scenario);
        }
    )*};
}

point_models! {
    wrap_around_vs_thief(24) = wrap_around;
    slot_reuse_after_steal(20) = reuse_after_steal;
    growth_while_thief_steals(20) = growth_vs_thief;
    last_public_task_cas_across_index_wrap(16) = last_public_task_at_wrap;
    push_push_pop_pop_vs_thief(24) = push_push_pop_pop;
    last_public_task_cas_race(16) = last_public_task;
    subtlety_handler_inside_pop_bottom(12) = subtlety;
    fast_public_pop_vs_thief(16) = two_public_tasks;
}

/// `expose_all` (a loop publishing its participants): the owner pushes three tasks, makes
/// them all public at once while a thief is already stealing, then pops; every task exactly
/// once, and the thief can take a task it never asked to be exposed.
#[test]
fn expose_all_vs_thief() {
    check(|| {
        let w = Worker::new(Exposure::User);
        let c = WorkerCounters::default();
        let t = thief(w.stealer(), 2);
        for v in 1..=3 {
            w.push(v, &c);
        }
        w.expose_all(&c);
        assert_eq!(w.private_len(), 0);
        let mut got = Vec::new();
        got.extend(w.pop(&c));
        let most = AtomicUsize::new(0);
        settle(&w, &c, got, t, &[1, 2, 3], &most);
    });
}
