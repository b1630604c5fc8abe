//! The adaptive schedules (AWF, AWF-B…E, AF) learn from the time each worker takes per
//! iteration. Two kinds of checks:
//!
//! - **Learning, with recorded measurements.** The chunk rules are driven through their
//!   public API ([`central_rule`], [`ChunkRule`]) by a simulated two-worker loop in virtual
//!   time, one worker four times slower per iteration than the other; the rule is told the
//!   simulated times ([`ChunkRule::chunk_done`]), never the wall clock. AWF and AWF-B…E must
//!   learn weights of about 4 : 1 for the fast worker, AF per-iteration means of about 1 : 4,
//!   and the next call's chunks must follow them (the slow worker's first chunk at most a
//!   third of the fast one's, where the first call, with nothing learned, gave both workers
//!   chunks of comparable size). A schedule that ignored
//!   its measurements (equal weights, FAC2's chunks) fails every one of these checks. The
//!   outcome does not depend on how the machine schedules threads: the wall-clock
//!   preemption of a fast worker, which made an earlier version of these tests (timing real
//!   workers) fail under load, cannot invert the simulated speeds.
//! - **The plumbing, on a real pool.** The same schedules run on a two-worker pool: every
//!   iteration runs exactly once, every call folds its measurements into the loop's history,
//!   and the history credits each worker with exactly the iterations it ran (AWF's
//!   step-weighted iteration counts are compared with the chunks the body saw), so the
//!   executor reports each chunk's measurement for the worker that ran it. Nothing here
//!   depends on which worker is faster on a shared machine.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;

use magpie::loops::{central_rule, ChunkRule, LoopHistory, LoopShape};
use magpie::loops::{Loop, Schedule};

const WEIGHTED: [&str; 5] = ["awf", "awf-b", "awf-c", "awf-d", "awf-e"];
/// Calls (time steps) of each loop.
const CALLS: usize = 5;

// ---------------------------------------------------------------------------------------
// Learning from recorded measurements (simulated workers, virtual time).

/// The (worker, length) of every chunk of a simulated call.
type SimChunks = Vec<(usize, u64)>;

/// Iterations of a simulated loop.
const SIM_ITERATIONS: u64 = 10_000;
/// Simulated time of one iteration (ns) on the fast and on the slow worker: milliseconds,
/// so that the real time AWF-D/E add as "scheduling overhead" (microseconds between calls of
/// the rule, even under load far below the seconds simulated per call) cannot matter.
const FAST_NS: u64 = 1_000_000;
const SLOW_NS: u64 = 4 * FAST_NS;

/// One call of a loop of `SIM_ITERATIONS` under `schedule` on two simulated workers whose
/// iterations take `cost_ns[w]` each, starting from (and updating) `history`. Events run in
/// virtual time: a worker free at time `t` reports its finished chunk, then asks for the next;
/// the earliest free worker goes first (worker 0 on ties). Returns the (worker, length) of
/// every chunk, in the order handed out, after checking that they cover the loop exactly.
fn simulate(schedule: &str, cost_ns: [u64; 2], history: &mut LoopHistory) -> SimChunks {
    let schedule: Schedule = schedule.parse().unwrap();
    let shape = LoopShape {
        iterations: SIM_ITERATIONS,
        workers: 2,
    };
    let mut rule: Box<dyn ChunkRule> =
        central_rule(&schedule, shape, history).expect("a central-queue schedule");
    let mut free_at = [0u64; 2];
    let mut running: [Option<(u64, u64)>; 2] = [None, None];
    let mut done = [false; 2];
    let mut remaining = SIM_ITERATIONS;
    let mut chunks = Vec::new();
    while !(done[0] && done[1]) {
        let w = (0..2)
            .filter(|&w| !done[w])
            .min_by_key(|&w| (free_at[w], w))
            .unwrap();
        if let Some((iterations, ns)) = running[w].take() {
            rule.chunk_done(w, iterations, ns);
        }
        if remaining == 0 {
            done[w] = true;
            continue;
        }
        let c = rule.next_chunk(w, remaining);
        assert!(
            (1..=remaining).contains(&c),
            "{schedule}: chunk {c} with {remaining} left"
        );
        remaining -= c;
        let ns = c * cost_ns[w];
        free_at[w] += ns;
        running[w] = Some((c, ns));
        chunks.push((w, c));
    }
    rule.finish(history);
    assert_eq!(
        chunks.iter().map(|c| c.1).sum::<u64>(),
        SIM_ITERATIONS,
        "{schedule}: the chunks cover the loop"
    );
    chunks
}

/// The length of the first chunk handed to `worker`.
fn first_chunk<T: Copy>(chunks: &[(usize, T)], worker: usize) -> T {
    chunks
        .iter()
        .find(|c| c.0 == worker)
        .unwrap_or_else(|| panic!("worker {worker} got no chunk"))
        .1
}

/// Runs `schedule` for `CALLS` simulated calls with worker `slow` four times slower than the
/// other; returns the history and the chunks of the first and of the last call.
fn learn_simulated(schedule: &str, slow: usize) -> (LoopHistory, SimChunks, SimChunks) {
    let mut cost = [FAST_NS; 2];
    cost[slow] = SLOW_NS;
    let mut history = LoopHistory::default();
    let first = simulate(schedule, cost, &mut history);
    let mut last = first.clone();
    for _ in 1..CALLS {
        last = simulate(schedule, cost, &mut history);
    }
    assert_eq!(
        history.calls, CALLS as u64,
        "{schedule}: every call recorded what it measured"
    );
    (history, first, last)
}

#[test]
fn weighted_factoring_learns_recorded_speeds() {
    // Either worker may be the slow one: the rules must follow the measurements, not an index.
    for slow in [1, 0] {
        let fast = 1 - slow;
        for schedule in WEIGHTED {
            let (h, first, last) = learn_simulated(schedule, slow);
            let ctx = format!("{schedule}, worker {slow} 4x slower");
            assert_eq!(h.weights.len(), 2, "{ctx}: weights {:?}", h.weights);
            assert!(
                (h.weights[0] + h.weights[1] - 2.0).abs() < 1e-9,
                "{ctx}: weights of mean 1, got {:?}",
                h.weights
            );
            let ratio = h.weights[fast] / h.weights[slow];
            assert!(
                (3.8..4.2).contains(&ratio),
                "{ctx}: the measured speeds are 4 : 1, the learned weights {:?}",
                h.weights
            );
            // Nothing learned yet: the first call's first chunks are FAC2's (equal for AWF and
            // AWF-B/D; R/4 of what is left for AWF-C/E), not skewed towards either worker.
            let (f, s) = (first_chunk(&first, fast), first_chunk(&first, slow));
            assert!(
                3 * s > f && 3 * f > s,
                "{ctx}: first call, equal weights, yet first chunks fast {f}, slow {s} \
                 (chunks {first:?})"
            );
            // Learned weights size the chunks: the slow worker's first chunk is at most a
            // third of the fast one's (about a quarter: N/4 scaled by 1.6 and 0.4 for AWF and
            // AWF-B/D; less still for AWF-C/E, which size from the iterations left).
            let (f, s) = (first_chunk(&last, fast), first_chunk(&last, slow));
            assert!(
                3 * s <= f,
                "{ctx}: last call's first chunks fast {f}, slow {s} (chunks {last:?})"
            );
            // And the fast worker ran most of the iterations of the last call.
            let ran = |w: usize| last.iter().filter(|c| c.0 == w).map(|c| c.1).sum::<u64>();
            assert!(
                ran(fast) > 2 * ran(slow),
                "{ctx}: iterations run fast {}, slow {}",
                ran(fast),
                ran(slow)
            );
        }
    }
}

#[test]
fn adaptive_factoring_learns_recorded_iteration_times() {
    for slow in [1, 0] {
        let fast = 1 - slow;
        let ctx = format!("af, worker {slow} 4x slower");
        let (h, _, last) = learn_simulated("af", slow);
        let means: Vec<f64> = h
            .worker_iteration_ns
            .iter()
            .map(|t| t.expect("both workers measured").mean_ns)
            .collect();
        assert_eq!(means.len(), 2, "{ctx}");
        for (w, cost) in [(fast, FAST_NS), (slow, SLOW_NS)] {
            assert!(
                (means[w] - cost as f64).abs() < 1e-6 * cost as f64,
                "{ctx}: worker {w} takes {cost} ns per iteration, learned means {means:?}"
            );
        }
        let (f, s) = (first_chunk(&last, fast), first_chunk(&last, slow));
        assert!(
            3 * s <= f,
            "{ctx}: last call's first chunks fast {f}, slow {s} (chunks {last:?})"
        );
    }
}

// ---------------------------------------------------------------------------------------
// The plumbing on a real pool.

/// Rounds of busy work per iteration (about a microsecond), four times as many on worker 1:
/// only so that the measurements differ; no check depends on it.
const ROUNDS: u64 = 1_000;
const ITERATIONS: usize = 12_000;

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
        let rounds = if w == 1 { ROUNDS * 4 } else { ROUNDS };
        chunks.lock().unwrap().push((w, r.len()));
        for i in r {
            runs[i].fetch_add(1, Ordering::Relaxed);
            sink.fetch_add(spin(rounds, i as u64), Ordering::Relaxed);
        }
    });
    let counts: Vec<u64> = runs.iter().map(|r| r.load(Ordering::Relaxed)).collect();
    if let Some(i) = counts.iter().position(|&c| c != 1) {
        panic!("iteration {i} ran {} times", counts[i]);
    }
    let chunks = chunks.into_inner().unwrap();
    assert_eq!(chunks.iter().map(|c| c.1).sum::<usize>(), ITERATIONS);
    chunks
}

/// The tests share the machine's cores: one pool at a time.
static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());

/// Runs `schedule` for `CALLS` calls on a 2-worker pool; returns the loop and the chunks of
/// every call.
fn run_on_pool(schedule: &str) -> (Loop, Vec<Vec<(usize, usize)>>) {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let pool = magpie::ThreadPoolBuilder::new()
        .num_workers(2)
        .build()
        .unwrap();
    let lp = Loop::new(schedule.parse::<Schedule>().unwrap());
    let calls: Vec<_> = (0..CALLS).map(|_| pool.install(|| call(&lp))).collect();
    assert_eq!(lp.calls(), CALLS as u64);
    assert_eq!(
        lp.history().calls,
        CALLS as u64,
        "{schedule}: every call recorded what it measured"
    );
    (lp, calls)
}

/// Iterations worker `w` ran in `chunks`.
fn ran(chunks: &[(usize, usize)], w: usize) -> usize {
    chunks.iter().filter(|c| c.0 == w).map(|c| c.1).sum()
}

#[test]
fn weighted_factoring_on_a_pool_records_each_workers_share() {
    for schedule in WEIGHTED {
        let (lp, calls) = run_on_pool(schedule);
        let h = lp.history();
        assert_eq!(h.weights.len(), 2, "{schedule}: weights {:?}", h.weights);
        assert!(
            h.weights.iter().all(|w| w.is_finite() && *w > 0.0),
            "{schedule}: weights {:?}",
            h.weights
        );
        assert!(
            (h.weights[0] + h.weights[1] - 2.0).abs() < 1e-9,
            "{schedule}: weights of mean 1, got {:?}",
            h.weights
        );
        if schedule == "awf" {
            // AWF's history: Σ_s s·n_{i,s}, exactly the iterations each worker ran (as the
            // body saw them), weighted by the call's number; time only where it ran any.
            for w in 0..2 {
                let expected: f64 = calls
                    .iter()
                    .enumerate()
                    .map(|(s, c)| ((s + 1) * ran(c, w)) as f64)
                    .sum();
                assert_eq!(
                    h.weighted_iterations[w], expected,
                    "awf: worker {w}'s recorded iterations (history {h:?})"
                );
                assert_eq!(
                    h.weighted_time_ns[w] > 0.0,
                    expected > 0.0,
                    "awf: worker {w}'s recorded time (history {h:?})"
                );
            }
        }
    }
}

#[test]
fn adaptive_factoring_on_a_pool_measures_the_workers_that_ran() {
    let (lp, calls) = run_on_pool("af");
    let h = lp.history();
    assert_eq!(h.worker_iteration_ns.len(), 2, "af: {h:?}");
    for w in 0..2 {
        let ran_any = calls.iter().any(|c| ran(c, w) > 0);
        let est = h.worker_iteration_ns[w];
        assert_eq!(
            est.is_some(),
            ran_any,
            "af: worker {w} ran iterations: {ran_any}; history {h:?}"
        );
        if let Some(t) = est {
            assert!(
                t.mean_ns > 0.0 && t.mean_ns.is_finite() && t.std_dev_ns.is_finite(),
                "af: worker {w}: {t:?}"
            );
        }
    }
}
