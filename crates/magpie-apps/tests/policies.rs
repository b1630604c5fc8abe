//! Every victim policy × every idle policy × 1, 2 and 8 workers gives the right answers on
//! fork-join and search oracles, and each policy sleeps only in the way it says it does.
//!
//! Oracles: Fibonacci numbers, a sort checked element by element and by checksum, a scope
//! whose tasks each run exactly once, UTS counts from the UTS spec, numerical semigroups per
//! genus (OEIS A007323), N-Queens solutions (OEIS A000170) and a max clique against the
//! sequential solver. The deque rotates over the configurations so that every deque meets
//! several policies.

use std::sync::atomic::{AtomicU32, Ordering};

use magpie::deque::DequeKind;
use magpie::policy::{idle, victim};
use magpie::search::{self, Options, Skeleton};
use magpie::{ThreadPool, ThreadPoolBuilder};
use magpie_apps::join::Magpie;
use magpie_apps::{maxclique, nqueens, ns, uts, NQUEENS_SOLUTIONS};

const WORKERS: [usize; 3] = [1, 2, 8];

fn pool(victims: &str, idle: &str, workers: usize, deque: &str) -> ThreadPool {
    ThreadPoolBuilder::new()
        .num_workers(workers)
        .deque(deque)
        .victims(victims)
        .idle(idle)
        .build()
        .unwrap_or_else(|e| panic!("{victims} × {idle} × {workers} ({deque}): {e}"))
}

/// A seeded pseudo-random vector.
fn shuffled(len: usize, mut seed: u64) -> Vec<u64> {
    (0..len)
        .map(|_| {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            seed >> 11
        })
        .collect()
}

/// The fork-join and search oracles on one pool.
fn check_all(pool: &ThreadPool, what: &str, clique: &(maxclique::Graph, usize)) {
    // Fork-join: join recursion.
    assert_eq!(
        pool.install(|| magpie_apps::fib(&mut Magpie, 21)),
        10_946,
        "{what}: fib"
    );

    // Fork-join: a sort (each element kept, in order).
    let mut v = shuffled(60_000, 7);
    let mut want = v.clone();
    want.sort_unstable();
    pool.install(|| magpie_apps::quicksort_with_cutoff(&mut Magpie, &mut v, 512));
    assert!(v == want, "{what}: quicksort");

    // Scope: every spawned task runs exactly once.
    let runs: Vec<AtomicU32> = (0..500).map(|_| AtomicU32::new(0)).collect();
    pool.install(|| {
        magpie::scope(|s| {
            for r in &runs {
                s.spawn(move |_| {
                    r.fetch_add(1, Ordering::Relaxed);
                });
            }
        })
    });
    assert!(
        runs.iter().all(|r| r.load(Ordering::Relaxed) == 1),
        "{what}: a spawned task did not run exactly once"
    );

    // Search: UTS (the spec's default tree), enumeration on Budget.
    let p = uts::Params::from_flags("-t 1 -a 0 -d 6 -b 4 -r 0").unwrap();
    let got = pool.install(|| {
        search::enumerate(
            &p,
            &uts::Tally(&p),
            Skeleton::Budget { backtracks: 10 },
            &Options::default(),
        )
    });
    assert_eq!(
        (got.value.nodes, got.value.leaves, got.value.max_depth),
        (1_732, 1_050, 6),
        "{what}: uts"
    );

    // Search: numerical semigroups to genus 12 on StackStealing.
    let tree = ns::Tree::new(12).unwrap();
    let got = pool.install(|| {
        search::enumerate(
            &tree,
            &search::CountPerDepth,
            Skeleton::StackStealing { steal_all: false },
            &Options::default(),
        )
    });
    assert_eq!(got.value, ns::EXPECTED_COUNTS[..=12], "{what}: ns");

    // Search: N-Queens 8 on DepthBounded.
    let got = pool.install(|| {
        search::enumerate(
            &nqueens::Board::new(8).unwrap(),
            &nqueens::Solutions(8),
            Skeleton::DepthBounded { spawn_depth: 2 },
            &Options::default(),
        )
    });
    assert_eq!(got.value, NQUEENS_SOLUTIONS[8], "{what}: nqueens");

    // Search: a max-clique optimisation on Budget.
    let (graph, omega) = clique;
    let space = maxclique::CliqueSpace::new(graph);
    let got = pool.install(|| {
        search::optimise(
            &space,
            Skeleton::Budget { backtracks: 50 },
            &Options::default(),
        )
    });
    let (size, node) = got.value.expect("a graph has a clique");
    let members = space.clique(&node);
    assert_eq!(
        (size, members.len()),
        (*omega as i64, *omega),
        "{what}: maxclique"
    );
    assert!(
        maxclique::is_clique(graph, &members),
        "{what}: not a clique"
    );
}

/// How each idle policy may block: `spin`, `yield` and `yield-abp` never sleep or park; the
/// timed backoffs and quanta sleep but never park; `park` parks but never takes a timed sleep.
fn check_blocking(idle: &str, stats: &magpie::WorkerStats, what: &str) {
    match idle {
        "spin" | "yield" | "yield-abp" => {
            assert_eq!((stats.sleeps, stats.parks), (0, 0), "{what}: blocked")
        }
        "park" => assert_eq!(stats.sleeps, 0, "{what}: park took a timed sleep"),
        _ => assert_eq!(stats.parks, 0, "{what}: a timed policy parked"),
    }
    assert!(stats.steals <= stats.steal_attempts, "{what}: {stats:?}");
}

#[test]
fn every_victim_and_idle_policy_gives_exact_answers() {
    let graph = maxclique::Graph::random(60, 0.6, 11);
    let omega = maxclique::max_clique_counted(&graph).0.len();
    let clique = (graph, omega);
    let deques = DequeKind::names();
    let mut config = 0;
    for &victims in victim::NAMES {
        for &idle in idle::NAMES {
            for workers in WORKERS {
                let deque = deques[config % deques.len()];
                config += 1;
                let what = format!("{victims} × {idle} × {workers} workers ({deque})");
                let pool = pool(victims, idle, workers, deque);
                check_all(&pool, &what, &clique);
                check_blocking(idle, &pool.stats().total(), &what);
            }
        }
    }
    assert_eq!(
        config,
        victim::NAMES.len() * idle::NAMES.len() * WORKERS.len()
    );
    assert!(victim::NAMES.len() >= 6 && idle::NAMES.len() >= 13);
}

/// A pool whose workers are all in a timed sleep of an hour still runs work sent to it from
/// outside: injected work wakes a dozing worker. (Not a timing test: without the wake-up each
/// `install` would wait an hour, which the 60 s liveness bound turns into a failure.)
#[test]
fn injected_work_wakes_workers_in_a_long_backoff() {
    let pool = std::sync::Arc::new(pool(
        "random",
        "linear:min=3600s,step=0us,max=3600s",
        2,
        "lcws-user",
    ));
    let (tx, rx) = std::sync::mpsc::channel();
    let p = std::sync::Arc::clone(&pool);
    std::thread::spawn(move || {
        for i in 0..20u32 {
            // Let both workers fail a round and start their hour-long sleep.
            std::thread::sleep(std::time::Duration::from_millis(20));
            let _ = tx.send(p.install(|| magpie_apps::fib(&mut Magpie, 10 + i % 3)));
        }
    });
    for i in 0..20u64 {
        let got = rx
            .recv_timeout(std::time::Duration::from_secs(60))
            .expect("injected work did not wake a sleeping worker within 60 s");
        assert_eq!(got, [55, 89, 144][(i % 3) as usize]);
    }
    let s = pool.stats().total();
    assert!(s.sleeps >= 1, "the workers never slept: {s:?}");
    assert_eq!(s.parks, 0, "{s:?}");
}

#[test]
fn bad_policy_specs_fail_at_build_time_naming_the_problem() {
    let err = |b: ThreadPoolBuilder| b.num_workers(2).build().unwrap_err().to_string();
    let e = err(ThreadPoolBuilder::new().idle("linear:step=fast"));
    assert!(e.contains("linear") && e.contains("step"), "{e}");
    let e = err(ThreadPoolBuilder::new().idle("linear:stride=5us"));
    assert!(e.contains("unknown parameter \"stride\""), "{e}");
    let e = err(ThreadPoolBuilder::new().victims("perf:bogus=1"));
    assert!(e.contains("perf") && e.contains("bogus"), "{e}");
    let e = err(ThreadPoolBuilder::new().victims("nearest"));
    assert!(e.contains("unknown victim policy \"nearest\""), "{e}");
    for name in victim::NAMES {
        assert!(e.contains(name), "{e} does not list {name}");
    }
}
