//! Loom model of a team's barrier with tasks (`runtime/tally.rs`, used by `team.rs` and
//! `task.rs`): the task-tree counts, the phase counter, and the members' latches reset for
//! the next phase.
//!
//! Run with:
//! `RUSTFLAGS="--cfg loom" CARGO_TARGET_DIR=target/loom cargo test -p magpie --lib --profile test-release -- loom_team`
//!
//! Two members; member 0 makes a task, which member 1 runs while it waits at the barrier
//! (the task makes a grandchild, which runs there too); then both meet at a second barrier. The model asserts what the barrier promises: no member
//! passes it before every task made before it finished, and every member passes both
//! barriers (no lost release). The `broken_*` model makes the task without counting it in
//! its maker's tree, and must fail the first assertion (checked by `negative_controls_fail`).
use crate::runtime::latch::CoreLatch;
use crate::runtime::tally::{Node, Phase, Tree};
use crate::sync::loom_common;
use loom::sync::atomic::{AtomicBool, AtomicUsize, Ordering::SeqCst};
use loom::sync::Arc;
use loom::thread;

struct Task {
    tree: Tree<Task>,
}

impl Node for Task {
    fn tree(&self) -> &Tree<Self> {
        &self.tree
    }
}

struct Team {
    phase: Phase,
    latches: [CoreLatch; 2],
    roots: [Arc<Task>; 2],
    /// Tasks of the current phase that finished their body.
    ran: AtomicUsize,
}

impl Team {
    /// `Team::count_down` and `Team::release` of team.rs.
    fn count_down(&self) {
        if self.phase.done() {
            for l in self.latches.iter().rev() {
                // SAFETY: the latch lives in the team, which every thread holds by Arc.
                unsafe { CoreLatch::set(l) };
            }
        }
    }

    /// A node's body is done (`TaskNode::finished`).
    fn finished(&self, node: &Task) {
        if node.tree.finish() {
            self.count_down();
        }
    }

    /// `Team::barrier` of team.rs for member `m`, waiting by spinning (the sleep protocol
    /// has its own models in loom_sleep.rs), then checking the promise.
    fn barrier(&self, m: usize, tasks_before: usize, work: impl FnOnce()) {
        self.finished(&self.roots[m]);
        // A waiting member runs the team's tasks.
        work();
        while !self.latches[m].probe() {
            thread::yield_now();
        }
        assert!(
            self.ran.load(SeqCst) >= tasks_before,
            "a member passed the barrier before every task finished"
        );
        self.latches[m].reset();
        self.roots[m].tree.restart();
    }
}

fn team_model(count_the_task: bool) {
    let mut b = loom::model::Builder::new();
    if b.preemption_bound.is_none() {
        b.preemption_bound = Some(3);
    }
    b.check(move || {
        let team = Arc::new(Team {
            phase: Phase::new(2),
            latches: [CoreLatch::new(), CoreLatch::new()],
            roots: [
                Arc::new(Task { tree: Tree::root() }),
                Arc::new(Task { tree: Tree::root() }),
            ],
            ran: AtomicUsize::new(0),
        });
        // Member 0 makes a task, counted in its tree (or, broken, not counted at all).
        let task = Arc::new(Task {
            tree: if count_the_task {
                Tree::child(Arc::clone(&team.roots[0]))
            } else {
                Tree::root()
            },
        });
        let published = Arc::new(AtomicBool::new(false));
        let t1 = {
            let (team, task, published) =
                (Arc::clone(&team), Arc::clone(&task), Arc::clone(&published));
            thread::spawn(move || {
                // Member 1 arrives at the barrier and, waiting there, steals the task once
                // it is published and runs it: the task makes a grandchild, finishes, and
                // the grandchild runs and finishes.
                let run = || {
                    while !published.load(SeqCst) {
                        thread::yield_now();
                    }
                    let grandchild = Task {
                        tree: Tree::child(Arc::clone(&task)),
                    };
                    team.ran.fetch_add(1, SeqCst);
                    if count_the_task {
                        team.finished(&task);
                    }
                    team.ran.fetch_add(1, SeqCst);
                    if count_the_task {
                        team.finished(&grandchild);
                    }
                };
                team.barrier(1, 2, run);
                team.barrier(1, 2, || {});
            })
        };
        published.store(true, SeqCst);
        team.barrier(0, 2, || {});
        team.barrier(0, 2, || {});
        t1.join().unwrap();
    });
}

#[test]
fn loom_team_barrier_waits_for_the_task_tree() {
    team_model(true);
}

/// Negative control: a task not counted in its maker's tree lets the barrier pass early
/// (run by [`negative_controls_fail`]).
#[test]
#[ignore = "negative control: must fail; run by negative_controls_fail"]
fn broken_task_not_counted() {
    team_model(false);
}

/// The broken model above must fail its assertion under loom.
#[test]
fn negative_controls_fail() {
    loom_common::negative_controls_fail_with(
        module_path!(),
        &["broken_task_not_counted"],
        "before every task finished",
    );
}
