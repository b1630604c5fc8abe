//! Loom models of the replicable optimisation's ledger (`search/engine/ledger.rs`): the
//! Mutex + Condvar protocol by which the Ordered pool's view for task k waits for tasks
//! `0..=k - window` and sees exactly their results, whatever order they finish in.
//!
//! Run with:
//! `RUSTFLAGS="--cfg loom" CARGO_TARGET_DIR=target/loom cargo test -p magpie --lib --profile test-release -- loom_ledger`
//!
//! A lost wake-up leaves the viewer blocked forever, which loom reports as a deadlock. The
//! `broken_*` model is a negative control: a view whose task is never finished must be
//! reported (checked by `negative_controls_fail`).
use crate::search::engine::ledger::TaskLedger;
use crate::sync::loom_common;
use loom::sync::Arc;
use loom::thread;

fn model(f: impl Fn() + Sync + Send + 'static) {
    loom::model::Builder::new().check(f);
}

/// Runs `f` with the ledger on a new loom thread (a worker finishing tasks).
fn on_thread(
    ledger: &Arc<TaskLedger<u32>>,
    f: impl FnOnce(&TaskLedger<u32>) + Send + 'static,
) -> thread::JoinHandle<()> {
    let ledger = Arc::clone(ledger);
    thread::spawn(move || f(&ledger))
}

/// Window 1: the view after one task is handed out waits for that task and sees its best.
#[test]
fn a_view_waits_for_the_task_it_counts() {
    model(|| {
        let ledger = Arc::new(TaskLedger::<u32>::new(0, 1));
        let worker = on_thread(&ledger, move |ledger| ledger.done(0, 7, Some((7, 70))));
        assert_eq!(ledger.view(1, None), 7);
        worker.join().unwrap();
        let ledger = Arc::try_unwrap(ledger).ok().unwrap();
        assert_eq!(ledger.into_answer(), Some((7, 70)));
    });
}

/// Window 2: task 1 may finish before task 0, but the view for task 2 counts task 0 only
/// (never task 1's better value), and the view for task 3 counts both.
#[test]
fn tasks_finishing_out_of_order_count_in_number_order() {
    model(|| {
        let ledger = Arc::new(TaskLedger::<u32>::new(0, 2));
        let workers: Vec<_> = [(0, 5), (1, 9)]
            .into_iter()
            .map(|(task, best)| {
                on_thread(&ledger, move |ledger| {
                    ledger.done(task, best, Some((best, task as u32)))
                })
            })
            .collect();
        assert_eq!(ledger.view(2, None), 5);
        assert_eq!(ledger.view(3, None), 9);
        for w in workers {
            w.join().unwrap();
        }
    });
}

/// Window 4: the views of tasks 1..=3 count task 0's checkpoint value, never its final one,
/// even when it has finished; task 4's counts its final value.
#[test]
fn early_views_see_task_0_at_its_checkpoint() {
    model(|| {
        let ledger = Arc::new(TaskLedger::<u32>::new(0, 4));
        let first = on_thread(&ledger, move |ledger| {
            ledger.checkpoint(5);
            ledger.done(0, 9, Some((9, 0)));
        });
        assert_eq!(ledger.view(1, None), 5);
        assert_eq!(ledger.view(3, None), 5);
        assert_eq!(ledger.view(4, None), 9);
        first.join().unwrap();
    });
}

/// Task 0 finishing before its checkpoint: its final value is its checkpoint value.
#[test]
fn a_task_0_smaller_than_its_checkpoint_counts_when_it_finishes() {
    model(|| {
        let ledger = Arc::new(TaskLedger::<u32>::new(0, 4));
        let first = on_thread(&ledger, move |ledger| ledger.done(0, 6, None));
        assert_eq!(ledger.view(2, None), 6);
        first.join().unwrap();
    });
}

/// Equal values found by two tasks: the answer is the lower-numbered task's, whatever order
/// they finish in; a frontier find made before task 1 was handed out beats task 1's.
#[test]
fn equal_finds_resolve_to_the_earliest_source() {
    model(|| {
        let ledger = Arc::new(TaskLedger::<u32>::new(0, 4));
        let late = on_thread(&ledger, move |ledger| ledger.done(2, 8, Some((8, 2))));
        let early = on_thread(&ledger, move |ledger| ledger.done(1, 8, Some((8, 1))));
        ledger.frontier_find(8, (1, 0), 100);
        late.join().unwrap();
        early.join().unwrap();
        let ledger = Arc::try_unwrap(ledger).ok().unwrap();
        assert_eq!(ledger.into_answer(), Some((8, 100)));
    });
}

/// A cancelled search (a panic in another task) wakes a viewer waiting for a task that will
/// never finish.
#[test]
fn cancel_wakes_a_waiting_view() {
    model(|| {
        let ledger = Arc::new(TaskLedger::<u32>::new(0, 1));
        let panicking = on_thread(&ledger, move |ledger| ledger.cancel());
        let _ = ledger.view(1, None);
        assert!(ledger.cancelled());
        panicking.join().unwrap();
    });
}

/// Negative control: the view waits for task 0, which another thread never finishes (it
/// finishes task 1 instead): loom must report the deadlock.
#[test]
#[ignore = "negative control: must fail; run by negative_controls_fail"]
fn broken_view_whose_task_never_finishes() {
    model(|| {
        let ledger = Arc::new(TaskLedger::<u32>::new(0, 1));
        let worker = on_thread(&ledger, move |ledger| ledger.done(1, 3, None));
        let _ = ledger.view(1, None);
        worker.join().unwrap();
    });
}

/// The broken model above must deadlock under loom.
#[test]
fn negative_controls_fail() {
    loom_common::negative_controls_fail(module_path!(), &["broken_view_whose_task_never_finishes"]);
}
