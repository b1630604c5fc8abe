//! Stress tests of `magpie::team`: regions, barriers, worksharing state and OpenMP-style
//! tasks, each asserting exact counts (every task run exactly once, every phase complete
//! before the next) over many repetitions and pool sizes.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use magpie::team::{self, DepKind, TaskOptions};
use magpie::ThreadPoolBuilder;

fn pool(n: usize) -> magpie::ThreadPool {
    ThreadPoolBuilder::new().num_workers(n).build().unwrap()
}

/// fib with a task per call: the number of tasks is exact.
fn fib_tasks(n: u64, tasks: &Arc<AtomicUsize>, out: &Arc<AtomicUsize>) {
    tasks.fetch_add(1, Ordering::Relaxed);
    if n < 2 {
        out.fetch_add(n as usize, Ordering::Relaxed);
        return;
    }
    for k in [n - 1, n - 2] {
        let (t, o) = (Arc::clone(tasks), Arc::clone(out));
        team::spawn_task(TaskOptions::default(), move || fib_tasks(k, &t, &o));
    }
}

#[test]
fn barriers_wait_for_every_task_of_every_member() {
    for workers in [1, 2, 3, 4] {
        let pool = pool(workers);
        for round in 0..50 {
            let tasks = Arc::new(AtomicUsize::new(0));
            let fib = Arc::new(AtomicUsize::new(0));
            let phases = AtomicUsize::new(0);
            pool.install(|| {
                team::parallel(workers, &|_| {
                    // Every member makes a tree of tasks; the barrier waits for all of them.
                    fib_tasks(12, &tasks, &fib);
                    team::barrier();
                    // fib(12) = 144 leaves summed per member; 465 calls per tree.
                    assert_eq!(fib.load(Ordering::Relaxed), 144 * workers, "round {round}");
                    assert_eq!(tasks.load(Ordering::Relaxed), 465 * workers);
                    phases.fetch_add(1, Ordering::Relaxed);
                    team::barrier();
                    assert_eq!(phases.load(Ordering::Relaxed), workers);
                })
            });
            // The region's end waits too.
            assert_eq!(tasks.load(Ordering::Relaxed), 465 * workers);
        }
    }
}

#[test]
fn the_region_end_waits_for_tasks_made_after_the_last_barrier() {
    let pool = pool(3);
    for _ in 0..100 {
        let n = Arc::new(AtomicUsize::new(0));
        pool.install(|| {
            team::parallel(3, &|_| {
                for _ in 0..20 {
                    let n = Arc::clone(&n);
                    team::spawn_task(TaskOptions::default(), move || {
                        n.fetch_add(1, Ordering::Relaxed);
                    });
                }
            })
        });
        assert_eq!(n.load(Ordering::Relaxed), 60);
    }
}

#[test]
fn dependences_order_writers_and_readers() {
    let pool = pool(4);
    for _ in 0..100 {
        let log = Arc::new(Mutex::new(Vec::new()));
        pool.install(|| {
            team::parallel(4, &|_| {
                if team::single() {
                    let x = 0x1000usize;
                    // out, then three ins, then inout: readers after the first writer, the
                    // second writer after every reader.
                    let push = |tag: &'static str, kind| {
                        let log = Arc::clone(&log);
                        let opts = TaskOptions {
                            depend: vec![(x, kind)],
                            ..TaskOptions::default()
                        };
                        team::spawn_task(opts, move || log.lock().unwrap().push(tag));
                    };
                    push("w1", DepKind::Out);
                    for _ in 0..3 {
                        push("r", DepKind::In);
                    }
                    push("w2", DepKind::Out);
                    team::taskwait();
                    assert_eq!(log.lock().unwrap().len(), 5);
                }
            })
        });
        let log = log.lock().unwrap();
        assert_eq!(log.first(), Some(&"w1"), "{log:?}");
        assert_eq!(log.last(), Some(&"w2"), "{log:?}");
    }
}

#[test]
fn taskgroups_wait_for_descendants_and_taskwait_for_children() {
    let pool = pool(2);
    for _ in 0..200 {
        let grandchildren = Arc::new(AtomicUsize::new(0));
        pool.install(|| {
            team::parallel(2, &|_| {
                team::taskgroup_start();
                for _ in 0..4 {
                    let g = Arc::clone(&grandchildren);
                    team::spawn_task(TaskOptions::default(), move || {
                        let g2 = Arc::clone(&g);
                        team::spawn_task(TaskOptions::default(), move || {
                            g2.fetch_add(1, Ordering::Relaxed);
                        });
                    });
                }
                team::taskgroup_end();
                // Both members' groups are done; each saw at least its own four.
                assert!(grandchildren.load(Ordering::Relaxed) >= 4);
            })
        });
        assert_eq!(grandchildren.load(Ordering::Relaxed), 8);
    }
}

#[test]
fn worksharing_state_is_shared_and_singles_run_once() {
    let pool = pool(4);
    for size in [1, 2, 4] {
        let singles = AtomicUsize::new(0);
        let made = AtomicUsize::new(0);
        pool.install(|| {
            team::parallel(size, &|_| {
                for _ in 0..50 {
                    let (c, _) = team::workshare(|| {
                        made.fetch_add(1, Ordering::Relaxed);
                        AtomicUsize::new(0)
                    });
                    c.fetch_add(1, Ordering::Relaxed);
                    if team::single() {
                        singles.fetch_add(1, Ordering::Relaxed);
                    }
                }
            })
        });
        assert_eq!(made.into_inner(), 50, "size {size}");
        assert_eq!(singles.into_inner(), 50, "size {size}");
    }
}

#[test]
fn nested_regions_are_serialized_with_their_levels() {
    let pool = pool(2);
    let seen = Mutex::new(Vec::new());
    pool.install(|| {
        team::parallel(2, &|outer| {
            team::parallel(2, &|inner| {
                let i = team::info();
                seen.lock().unwrap().push((outer, inner, i.size, i.level));
                assert_eq!(team::ancestor(1).map(|a| a.0), Some(outer));
            })
        })
    });
    let mut seen = seen.into_inner().unwrap();
    seen.sort();
    assert_eq!(seen, [(0, 0, 1, 2), (1, 0, 1, 2)]);
}

#[test]
fn a_team_smaller_than_the_pool_runs_its_tasks_on_its_members() {
    let pool = pool(4);
    for _ in 0..50 {
        let wrong = Arc::new(AtomicUsize::new(0));
        let ran = Arc::new(AtomicUsize::new(0));
        pool.install(|| {
            team::parallel(2, &|_| {
                for _ in 0..50 {
                    let (wrong, ran) = (Arc::clone(&wrong), Arc::clone(&ran));
                    team::spawn_task(TaskOptions::default(), move || {
                        let i = team::info();
                        if i.size != 2 || i.member >= 2 {
                            wrong.fetch_add(1, Ordering::Relaxed);
                        }
                        ran.fetch_add(1, Ordering::Relaxed);
                    });
                }
            })
        });
        assert_eq!(ran.load(Ordering::Relaxed), 100);
        assert_eq!(wrong.load(Ordering::Relaxed), 0);
    }
}

#[test]
fn a_region_inside_a_serialized_one_inside_an_active_one_is_serialized() {
    // Outer team of 2 in a pool of 4 (the other two workers held), a serialized region in
    // it, and a third level: still one member (it once picked held workers and hung).
    let pool = pool(4);
    let seen = Mutex::new(Vec::new());
    pool.install(|| {
        team::parallel(2, &|_| {
            team::parallel(2, &|_| {
                team::parallel(4, &|m| {
                    let i = team::info();
                    seen.lock()
                        .unwrap()
                        .push((m, i.size, i.level, i.active_level));
                })
            })
        })
    });
    assert_eq!(seen.into_inner().unwrap(), [(0, 1, 3, 1), (0, 1, 3, 1)]);
}

#[test]
fn tasks_taken_before_a_members_share_started_do_not_nest_it() {
    // Member 0 makes tasks that yield, right at the start of each region: a worker that
    // steals one before its own share ran must not start that share inside the task (the
    // share would wait at the barrier for the task under it, forever).
    let pool = ThreadPoolBuilder::new()
        .num_workers(4)
        .idle("dynamic-quanta")
        .build()
        .unwrap();
    for _ in 0..300 {
        let ran = Arc::new(AtomicUsize::new(0));
        pool.install(|| {
            team::parallel(4, &|m| {
                if m == 0 {
                    for _ in 0..8 {
                        let ran = Arc::clone(&ran);
                        team::spawn_task(TaskOptions::default(), move || {
                            team::taskyield();
                            assert!(team::info().member < 4);
                            ran.fetch_add(1, Ordering::Relaxed);
                        });
                    }
                }
            })
        });
        assert_eq!(ran.load(Ordering::Relaxed), 8);
    }
}

#[test]
fn jobs_run_while_a_member_waits_do_not_see_its_frame() {
    let pool = pool(2);
    for _ in 0..50 {
        let levels = Mutex::new(Vec::new());
        pool.install(|| {
            magpie::join(
                || team::parallel(2, &|_| team::barrier()),
                || team::parallel(1, &|_| levels.lock().unwrap().push(team::info().level)),
            )
        });
        assert_eq!(levels.into_inner().unwrap(), [1]);
    }
}

/// Back-to-back regions from one thread reuse its team (`team.rs`, "Reuse"): each region
/// still starts from scratch (members, `single`s, worksharing state, dependences), whatever
/// the size of the region before it.
#[test]
fn back_to_back_regions_start_afresh_whatever_came_before() {
    let pool = pool(3);
    pool.install(|| {
        for round in 0..3000usize {
            let size = [3, 3, 2, 3, 1, 3, 2, 2][round % 8];
            let members = Mutex::new(Vec::new());
            let singles = AtomicUsize::new(0);
            let made = AtomicUsize::new(0);
            let log = Arc::new(Mutex::new(Vec::new()));
            team::parallel(size, &|m| {
                members.lock().unwrap().push(m);
                for _ in 0..3 {
                    if team::single() {
                        singles.fetch_add(1, Ordering::Relaxed);
                    }
                }
                let (c, _) = team::workshare(|| {
                    made.fetch_add(1, Ordering::Relaxed);
                    AtomicUsize::new(0)
                });
                c.fetch_add(1, Ordering::Relaxed);
                // Member 0 writes then reads one address through dependent tasks, on both
                // sides of a barrier (the barrier forgets the first writer).
                for phase in 0..2 {
                    if m == 0 {
                        for (tag, kind) in [(phase * 2, DepKind::Out), (phase * 2 + 1, DepKind::In)]
                        {
                            let log = Arc::clone(&log);
                            let opts = TaskOptions {
                                depend: vec![(0x2000, kind)],
                                ..TaskOptions::default()
                            };
                            team::spawn_task(opts, move || log.lock().unwrap().push(tag));
                        }
                    }
                    team::barrier();
                }
                assert_eq!(c.load(Ordering::Relaxed), size, "round {round}");
            });
            let mut members = members.into_inner().unwrap();
            members.sort_unstable();
            assert_eq!(members, (0..size).collect::<Vec<_>>(), "round {round}");
            assert_eq!(singles.into_inner(), 3, "round {round}");
            assert_eq!(made.into_inner(), 1, "round {round}");
            assert_eq!(*log.lock().unwrap(), [0, 1, 2, 3], "round {round}");
        }
    });
}

/// In a team of one a task runs at once where it is made, as a plain call (`task.rs`,
/// `runs_as_parent`): its children run inside it, `final` is scoped to the final task and
/// its descendants, and a taskgroup it opens closes inside it.
#[test]
fn a_team_of_one_runs_each_task_where_it_is_made() {
    let pool = pool(2);
    let log = Arc::new(Mutex::new(Vec::new()));
    pool.install(|| {
        team::parallel(1, &|_| {
            let note = |what: &'static str| {
                let log = Arc::clone(&log);
                move || log.lock().unwrap().push(what)
            };
            let (outer, inner, after) = (note("outer"), note("inner"), note("after"));
            team::spawn_task(TaskOptions::default(), move || {
                outer();
                team::spawn_task(TaskOptions::default(), inner);
                after();
            });
            let (in_final, child_final) = (note("final"), note("child final"));
            let final_task = TaskOptions {
                final_task: true,
                ..TaskOptions::default()
            };
            team::spawn_task(final_task, move || {
                if team::in_final() {
                    in_final();
                }
                team::spawn_task(TaskOptions::default(), move || {
                    if team::in_final() {
                        child_final();
                    }
                });
            });
            if !team::in_final() {
                note("not final after it")();
            }
            let grouped = note("grouped");
            team::spawn_task(TaskOptions::default(), move || {
                team::taskgroup_start();
                team::spawn_task(TaskOptions::default(), grouped);
                team::taskgroup_end();
            });
            note("end")();
        })
    });
    assert_eq!(
        *log.lock().unwrap(),
        [
            "outer",
            "inner",
            "after",
            "final",
            "child final",
            "not final after it",
            "grouped",
            "end"
        ]
    );
}
