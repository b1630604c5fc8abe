//! Runtimes, measurement, and reporting for the `forkjoin` benchmark (the statistics,
//! rounds and report output are `magpie_measure`'s).

use crate::join::{Chili, Magpie, Rayon, Sequential};
use crate::kernels::{Inputs, KernelId};
use magpie::deque::DequeKind;
use magpie::WorkerStats;
use magpie_measure::stats;
use serde::ser::Serializer;
use serde::Serialize;
use std::fmt::Write as _;
use std::num::NonZeroUsize;
use std::time::{Duration, Instant};

/// A runtime family, as named in the output's `runtime` column.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, clap::ValueEnum)]
pub enum RuntimeKind {
    /// `join` runs both closures in order on the calling thread.
    Sequential,
    /// magpie, once per selected deque.
    Magpie,
    /// `rayon::join` in a dedicated rayon pool.
    Rayon,
    /// chili's `Scope::join` in a dedicated chili pool.
    Chili,
    /// rayon's API on magpie: a pool of the rayon-core replacement
    /// (`crates/magpie-rayon-core`, built with rayon's builder and so with
    /// `rayon_defaults`), whose `rayon_core::join` the kernels call. That `join` is magpie's,
    /// so this row is what a rayon program's joins cost on magpie.
    RayonOnMagpie,
}

impl RuntimeKind {
    /// The name used in tables and JSON.
    pub fn name(self) -> &'static str {
        match self {
            RuntimeKind::Sequential => "sequential",
            RuntimeKind::Magpie => "magpie",
            RuntimeKind::Rayon => "rayon",
            RuntimeKind::Chili => "chili",
            RuntimeKind::RayonOnMagpie => "rayon-on-magpie",
        }
    }
}

/// A built pool (or none, for sequential), reused across kernels and runs.
pub enum Pool {
    /// No pool: run on the calling thread.
    Sequential,
    /// A rayon pool with the configured number of threads.
    Rayon(rayon::ThreadPool),
    /// A chili pool; the calling thread is one of its `thread_count` threads.
    Chili(chili::ThreadPool),
    /// A magpie pool with the given deque.
    Magpie(magpie::ThreadPool),
    /// A pool of the rayon-core replacement.
    RayonOnMagpie(rayon_on_magpie::ThreadPool),
}

impl Pool {
    /// Builds the pool for `runtime` with `workers` threads (and, for magpie, `deque`).
    pub fn build(runtime: RuntimeKind, deque: DequeKind, workers: usize) -> Result<Pool, String> {
        Ok(match runtime {
            RuntimeKind::Sequential => Pool::Sequential,
            RuntimeKind::Rayon => Pool::Rayon(
                rayon::ThreadPoolBuilder::new()
                    .num_threads(workers)
                    .build()
                    .map_err(|e| format!("building a rayon pool: {e}"))?,
            ),
            RuntimeKind::Chili => Pool::Chili(chili::ThreadPool::with_config(chili::Config {
                thread_count: Some(
                    NonZeroUsize::new(workers).ok_or("chili needs at least one thread")?,
                ),
                ..Default::default()
            })),
            RuntimeKind::RayonOnMagpie => Pool::RayonOnMagpie(
                rayon_on_magpie::ThreadPoolBuilder::new()
                    .num_threads(workers)
                    .build()
                    .map_err(|e| format!("building a rayon-on-magpie pool: {e}"))?,
            ),
            // From the environment, so that MAGPIE_JOIN_LIMIT (and the policies) apply;
            // the worker count and deque are the benchmark's.
            RuntimeKind::Magpie => Pool::Magpie(
                magpie::ThreadPoolBuilder::from_env()
                    .num_workers(workers)
                    .deque(deque)
                    .build()
                    .map_err(|e| format!("building a magpie pool ({deque}): {e}"))?,
            ),
        })
    }

    /// One execution of `kernel`: untimed preparation, the timed kernel inside the pool,
    /// then the untimed digest of its result.
    pub fn execute(
        &self,
        kernel: KernelId,
        inputs: &mut Inputs,
    ) -> Result<(Duration, u64), String> {
        inputs.prepare(kernel);
        let (elapsed, ret) = match self {
            Pool::Sequential => timed(|| inputs.run(kernel, &mut Sequential)),
            Pool::Rayon(pool) => pool.install(|| timed(|| inputs.run(kernel, &mut Rayon))),
            Pool::Chili(pool) => {
                let mut scope = Chili::new(pool.scope());
                timed(|| inputs.run(kernel, &mut scope))
            }
            Pool::Magpie(pool) => pool.install(|| timed(|| inputs.run(kernel, &mut Magpie))),
            // `rayon_on_magpie::join` is `magpie::join`, which `Magpie` calls.
            Pool::RayonOnMagpie(pool) => pool.install(|| timed(|| inputs.run(kernel, &mut Magpie))),
        };
        Ok((elapsed, inputs.digest(kernel, ret)?))
    }
}

fn timed<R>(f: impl FnOnce() -> R) -> (Duration, R) {
    let start = Instant::now();
    let r = f();
    (start.elapsed(), r)
}

/// One line of results: a (kernel, runtime, variant, workers) configuration.
#[derive(Debug, Clone, Serialize)]
pub struct Row {
    /// Kernel name.
    pub kernel: &'static str,
    /// `sequential`, `magpie`, `rayon` or `chili`.
    pub runtime: &'static str,
    /// The deque for magpie, else empty.
    pub variant: String,
    /// Worker threads (1 for sequential).
    pub workers: usize,
    /// Median over the timed runs, in seconds.
    pub median_s: f64,
    /// Fastest timed run, in seconds.
    pub min_s: f64,
    /// Slowest timed run, in seconds.
    pub max_s: f64,
    /// Every timed run, in seconds, in run order (the box plots of `--plot`).
    pub times_s: Vec<f64>,
    /// With `--counters`, magpie's counters over the timed runs (magpie rows only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub profile: Option<ProfileReport>,
}

/// The LCWS profile ([`WorkerStats::profile`]) of a configuration's timed runs of one
/// kernel: per worker and in total, summed over the runs (`runs`).
#[derive(Debug, Clone, Serialize)]
pub struct ProfileReport {
    /// Timed runs counted.
    pub runs: usize,
    /// The sum over the workers.
    pub total: Profile,
    /// One entry per worker, by index.
    pub per_worker: Vec<Profile>,
}

impl ProfileReport {
    /// The report of `per_worker`'s counts over `runs` runs.
    pub fn new(runs: usize, per_worker: &[WorkerStats]) -> ProfileReport {
        let mut total = WorkerStats::default();
        for w in per_worker {
            total += *w;
        }
        ProfileReport {
            runs,
            total: Profile(total),
            per_worker: per_worker.iter().copied().map(Profile).collect(),
        }
    }

    /// The text table: one row per worker and the total.
    pub fn table(&self) -> String {
        let per_worker: Vec<WorkerStats> = self.per_worker.iter().map(|p| p.0).collect();
        WorkerStats::profile_table(&per_worker, &self.total.0)
    }
}

/// One worker's counts (or their sum), serialized as its profile: a JSON object of the
/// profile's columns in their order (`pushes`, `pops`, `steals`, `failed`, …).
#[derive(Debug, Clone)]
pub struct Profile(pub WorkerStats);

impl Serialize for Profile {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        magpie_measure::report::Fields(&self.0.profile()).serialize(s)
    }
}

/// Summarizes the timed runs of one configuration.
pub fn summarize(
    kernel: KernelId,
    runtime: RuntimeKind,
    variant: &str,
    workers: usize,
    times: &[Duration],
) -> Row {
    let (median, min, max) = stats::median_min_max(times);
    Row {
        kernel: kernel.name(),
        runtime: runtime.name(),
        variant: variant.to_string(),
        workers,
        median_s: median,
        min_s: min,
        max_s: max,
        profile: None,
        times_s: times.iter().map(Duration::as_secs_f64).collect(),
    }
}

/// The human-readable table for one kernel's rows: median/min/max and the median's ratio
/// to rayon's and chili's medians at the same worker count and to sequential's.
pub fn table(kernel: KernelId, description: &str, rows: &[Row]) -> String {
    let rows: Vec<&Row> = rows.iter().filter(|r| r.kernel == kernel.name()).collect();
    let median_of = |runtime: &str, workers: Option<usize>| {
        rows.iter()
            .find(|r| r.runtime == runtime && (workers.is_none() || workers == Some(r.workers)))
            .map(|r| r.median_s)
    };
    let ratio = |x: f64, base: Option<f64>| match base {
        Some(b) if b > 0.0 => format!("{:.2}", x / b),
        _ => "-".to_string(),
    };
    let mut out = String::new();
    let _ = writeln!(out, "== {} — {description}", kernel.name());
    let _ = writeln!(
        out,
        "{:<15} {:<17} {:>3} {:>9} {:>9} {:>9} {:>8} {:>8} {:>8}",
        "runtime", "variant", "w", "median_s", "min_s", "max_s", "/rayon", "/chili", "/seq"
    );
    for r in &rows {
        let _ = writeln!(
            out,
            "{:<15} {:<17} {:>3} {:>9.4} {:>9.4} {:>9.4} {:>8} {:>8} {:>8}",
            r.runtime,
            r.variant,
            r.workers,
            r.median_s,
            r.min_s,
            r.max_s,
            ratio(r.median_s, median_of("rayon", Some(r.workers))),
            ratio(r.median_s, median_of("chili", Some(r.workers))),
            ratio(r.median_s, median_of("sequential", None)),
        );
    }
    out
}
