//! The adaptive schedules on a pool with one worker made slow on purpose: worker 1 runs every
//! iteration four times over, so it is a quarter as fast as worker 0. AWF and AWF-B…E must
//! learn weights that favour worker 0 and then hand worker 1 smaller chunks; AF must learn a
//! larger per-iteration time for worker 1. A schedule that ignored its measurements (equal
//! weights, FAC2's chunks) fails every check here.
//!
//! The checks use wide margins (the expected weight ratio is 1 : 4; the checks ask for
//! better than 1 : 1.7), because the machine may be shared.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;

use magpie::loops::{Loop, Schedule};

/// How much slower worker 1 is.
const SLOWDOWN: u64 = 4;
/// Rounds of busy work per iteration on worker 0 (about a microsecond).
const ROUNDS: u64 = 1_000;
const ITERATIONS: usize = 12_000;
const CALLS: usize = 5;

fn spin(rounds: u64, seed: u64) -> u64 {
    let mut x = seed | 1;
    for _ in 0..rounds {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
    }
    x
}

/// One call of `lp` on the current pool: returns the (worker, chunk length) of every chunk
/// and checks that each iteration ran exactly once.
fn call(lp: &Loop) -> Vec<(usize, usize)> {
    let runs: Vec<AtomicU64> = (0..ITERATIONS).map(|_| AtomicU64::new(0)).collect();
    let chunks = Mutex::new(Vec::new());
    let sink = AtomicU64::new(0);
    lp.for_chunks(0..ITERATIONS, |r| {
        let w = magpie::current_worker_index().expect("the loop runs on the pool");
        let rounds = if w == 1 { ROUNDS * SLOWDOWN } else { ROUNDS };
        chunks.lock().unwrap().push((w, r.len()));
        for i in r {
            runs[i].fetch_add(1, Ordering::Relaxed);
            sink.fetch_add(spin(rounds, i as u64), Ordering::Relaxed);
        }
    });
    assert!(
        runs.iter().all(|r| r.load(Ordering::Relaxed) == 1),
        "every iteration exactly once"
    );
    chunks.into_inner().unwrap()
}

/// The length of the first chunk handed to `worker`, if it got any. In a call that starts
/// from learned weights `w_0 > w_1`, worker 0's first chunk is about `w_0·R/(2P)` and worker
/// 1's about `w_1·R/(2P)`, with `R` the iterations left when each asked (close to `N` for
/// both): the first chunks show the weights whatever the order of the requests.
fn first_chunk(chunks: &[(usize, usize)], worker: usize) -> Option<usize> {
    chunks.iter().find(|c| c.0 == worker).map(|c| c.1)
}

/// The tests share the machine's cores: one at a time, so that no test's pool slows
/// another's workers.
static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());

/// Runs `schedule` for `CALLS` calls on a 2-worker pool; returns the loop and the chunks of
/// the last call.
fn learn(schedule: &str) -> (Loop, Vec<(usize, usize)>) {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let pool = magpie::ThreadPoolBuilder::new()
        .num_workers(2)
        .build()
        .unwrap();
    let lp = Loop::new(schedule.parse::<Schedule>().unwrap());
    let mut last = Vec::new();
    for _ in 0..CALLS {
        last = pool.install(|| call(&lp));
    }
    assert_eq!(lp.calls(), CALLS as u64);
    (lp, last)
}

#[test]
fn weighted_factoring_learns_the_slow_worker() {
    for schedule in ["awf", "awf-b", "awf-c", "awf-d", "awf-e"] {
        let (lp, last) = learn(schedule);
        let h = lp.history();
        assert!(h.calls >= 1, "{schedule}: nothing recorded");
        assert_eq!(h.weights.len(), 2, "{schedule}: weights {:?}", h.weights);
        let (fast, slow) = (h.weights[0], h.weights[1]);
        assert!(
            (fast + slow - 2.0).abs() < 1e-9,
            "{schedule}: weights of mean 1, got {:?}",
            h.weights
        );
        assert!(
            slow * 1.7 < fast,
            "{schedule}: worker 1 is 4x slower, yet the weights are {:?}",
            h.weights
        );
        // The learned weights size the chunks: worker 1's first is the smaller.
        if let (Some(f), Some(s)) = (first_chunk(&last, 0), first_chunk(&last, 1)) {
            assert!(
                s < f,
                "{schedule}: first chunk of the slow worker {s} not below the fast one's {f} \
                 (chunks {last:?})"
            );
        }
    }
}

#[test]
fn adaptive_factoring_learns_the_slow_worker() {
    let (lp, _) = learn("af");
    let h = lp.history();
    assert!(h.calls >= 1, "af: nothing recorded");
    let times: Vec<f64> = h
        .worker_iteration_ns
        .iter()
        .map(|t| t.expect("both workers measured").mean_ns)
        .collect();
    assert_eq!(times.len(), 2);
    assert!(
        times[1] > 1.7 * times[0],
        "af: worker 1 runs iterations 4x slower, yet the learned means are {times:?} ns"
    );
}
