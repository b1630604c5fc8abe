//! `magpie demo`: a short fork-join tour over the deques, with every result checked.

use std::time::{Duration, Instant};

use magpie::deque::DequeKind;
use magpie::{ThreadPool, WorkerStats};
use magpie_apps::{fib, nqueens, quicksort, random_u64s, sum, NQUEENS_SOLUTIONS};

use crate::config::{signal_name, Config, ConfigError};

const FIB_N: u64 = 30;
const FIB_WANT: u64 = 832_040;
const QUEENS_N: u32 = 10;
const SORT_LEN: usize = 1_000_000;
const SUM_LEN: usize = 10_000_000;

/// The inputs, built once, and the expected results computed sequentially.
struct Inputs {
    unsorted: Vec<u64>,
    sorted: Vec<u64>,
    values: Vec<u64>,
    values_sum: u64,
}

impl Inputs {
    fn new() -> Self {
        let unsorted = random_u64s(SORT_LEN, 0x5eed, 0);
        let mut sorted = unsorted.clone();
        sorted.sort_unstable();
        let values = random_u64s(SUM_LEN, 0xadd, 1_000_000);
        let values_sum = values.iter().sum();
        Inputs {
            unsorted,
            sorted,
            values,
            values_sum,
        }
    }
}

#[derive(Clone, Copy)]
enum Kernel {
    Fib,
    NQueens,
    Quicksort,
    Sum,
}

impl Kernel {
    const ALL: [Kernel; 4] = [Kernel::Fib, Kernel::NQueens, Kernel::Quicksort, Kernel::Sum];

    fn label(self) -> String {
        match self {
            Kernel::Fib => format!("fib({FIB_N})"),
            Kernel::NQueens => format!("nqueens({QUEENS_N})"),
            Kernel::Quicksort => "quicksort 1M".to_string(),
            Kernel::Sum => "sum 10M".to_string(),
        }
    }
}

/// One run: elapsed time, the result as shown, and `None` if correct or what was expected.
struct Outcome {
    elapsed: Duration,
    shown: String,
    wrong: Option<String>,
}

fn check(got: u64, want: u64) -> (String, Option<String>) {
    (got.to_string(), (got != want).then(|| want.to_string()))
}

fn run(pool: &ThreadPool, kernel: Kernel, inputs: &Inputs) -> Outcome {
    let mut input = match kernel {
        Kernel::Quicksort => inputs.unsorted.clone(),
        _ => Vec::new(),
    };
    let start = Instant::now();
    let (shown, wrong) = match kernel {
        Kernel::Fib => check(pool.install(|| fib(FIB_N)), FIB_WANT),
        Kernel::NQueens => check(
            pool.install(|| nqueens(QUEENS_N)),
            NQUEENS_SOLUTIONS[QUEENS_N as usize],
        ),
        Kernel::Quicksort => {
            pool.install(|| quicksort(&mut input));
            if input == inputs.sorted {
                (format!("{} sorted", input.len()), None)
            } else {
                ("not sorted".to_string(), Some("sorted".to_string()))
            }
        }
        Kernel::Sum => check(pool.install(|| sum(&inputs.values)), inputs.values_sum),
    };
    Outcome {
        elapsed: start.elapsed(),
        shown,
        wrong,
    }
}

fn row(
    kernel: &str,
    deque: &str,
    workers: &str,
    ms: &str,
    result: &str,
    ok: &str,
    stats: [&str; 4],
) {
    let [steals, requests, fences, cas] = stats;
    println!(
        "{kernel:<13} {deque:<17} {workers:>7} {ms:>9}  {result:<16} {ok:<4} {steals:>8} {requests:>12} {fences:>10} {cas:>10}"
    );
}

/// Runs the tour. Returns whether every result was correct.
pub fn demo(config: &Config) -> Result<bool, ConfigError> {
    let deques: Vec<DequeKind> = if config.deque.source.is_given() {
        vec![config.deque.value]
    } else {
        DequeKind::ALL.to_vec()
    };
    let workers: Vec<usize> = if config.workers.source.is_given() {
        vec![config.workers.value]
    } else {
        vec![1, 2]
    };
    println!(
        "magpie demo: fork-join kernels on {} deque(s) x {:?} worker(s); victims {}, idle {}, signal {}",
        deques.len(),
        workers,
        config.victims.value,
        config.idle.value,
        signal_name(config.signal.value)
    );
    println!(
        "(single timed runs, not a benchmark; counters are totals over all workers of the run)"
    );
    let inputs = Inputs::new();
    println!();
    row(
        "kernel",
        "deque",
        "workers",
        "time ms",
        "result",
        "ok",
        ["steals", "expose reqs", "fences", "cas"],
    );

    let started = Instant::now();
    let (mut runs, mut failures) = (0, 0);
    for &deque in &deques {
        for &n in &workers {
            let pool = config.build(deque, n)?;
            for kernel in Kernel::ALL {
                pool.reset_stats();
                let out = run(&pool, kernel, &inputs);
                let t: WorkerStats = pool.stats().total();
                runs += 1;
                let ok = match &out.wrong {
                    None => "ok".to_string(),
                    Some(want) => {
                        failures += 1;
                        format!("WRONG (expected {want})")
                    }
                };
                row(
                    &kernel.label(),
                    deque.name(),
                    &n.to_string(),
                    &format!("{:.1}", out.elapsed.as_secs_f64() * 1e3),
                    &out.shown,
                    &ok,
                    [
                        &t.steals.to_string(),
                        &t.exposure_requests.to_string(),
                        &t.fences.to_string(),
                        &t.cas.to_string(),
                    ],
                );
            }
        }
    }
    println!();
    if failures == 0 {
        println!(
            "all {runs} results correct ({:.2} s)",
            started.elapsed().as_secs_f64()
        );
    } else {
        println!("{failures} of {runs} results WRONG");
    }
    Ok(failures == 0)
}
