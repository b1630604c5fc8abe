//! Timing for the `search` suite: contenders measured in alternating rounds, summarised into
//! [`Row`]s (median/min/max as in the `forkjoin` harness), and ratio rows with targets.

use super::Row;
use magpie_measure::progress::{Mode, RunsBar};
use magpie_measure::rounds::rounds;
use magpie_measure::stats;
// Messages on stderr go above the progress bar while it is shown.
use magpie_measure::{eprint_above as eprint, eprintln_above as eprintln};
use std::time::Duration;

/// A warm-up run longer than this is not repeated: it is kept as the first timed run
/// ("after a warm-up where affordable").
pub const WARMUP_LIMIT: Duration = Duration::from_secs(20);

/// One checked run: its time (of the solve alone, not of loading or checking) and the
/// search-tree nodes it counted, if it counts them.
#[derive(Debug, Clone)]
pub struct Sample {
    pub time: Duration,
    pub nodes: Option<u64>,
    /// Nodes visited by each worker (`SearchStats::per_worker`), for the skeletons.
    pub per_worker: Option<Vec<u64>>,
}

impl Sample {
    /// A run that took `time` and counted `nodes` (if it counts them), with no worker shares:
    /// a solve on one thread, a rayon peer's, or an estimate such as speedup's ceiling.
    pub fn new(time: Duration, nodes: Option<u64>) -> Sample {
        Sample {
            time,
            nodes,
            per_worker: None,
        }
    }
}

/// How many back-to-back runs of a job that took `probe` make a sample of about `sample`
/// seconds (at least 1, at most 10,000): for [`repeated`].
pub fn reps_for(sample: f64, probe: Duration) -> u32 {
    (sample / probe.as_secs_f64().max(1e-6))
        .ceil()
        .clamp(1.0, 10_000.0) as u32
}

/// `job` run `reps` times back to back as one sample: the mean time of a run, and the node
/// count (the same every time, or an error). For solves of a millisecond or less, whose
/// single times are at the mercy of a timer tick or a wake-up on a shared VM.
pub fn repeated<'a>(reps: u32, job: Job<'a>) -> Job<'a> {
    repeat(reps, job, true)
}

/// [`repeated`] for parallel searches, whose node counts differ from run to run: the sample's
/// node count and per-worker counts are the runs' means (rounded down).
pub fn repeated_parallel<'a>(reps: u32, job: Job<'a>) -> Job<'a> {
    repeat(reps, job, false)
}

fn repeat<'a>(reps: u32, mut job: Job<'a>, same_nodes: bool) -> Job<'a> {
    let reps = reps.max(1);
    Box::new(move || {
        let Sample {
            mut time,
            mut nodes,
            mut per_worker,
        } = job()?;
        for _ in 1..reps {
            let s = job()?;
            time += s.time;
            if same_nodes {
                if s.nodes != nodes {
                    return Err(format!(
                        "a repeated run counted {:?} nodes, the first {:?}",
                        s.nodes, nodes
                    ));
                }
            } else {
                nodes = nodes.zip(s.nodes).map(|(a, b)| a + b);
                per_worker = per_worker.zip(s.per_worker).map(|(mut a, b)| {
                    a.iter_mut().zip(b).for_each(|(x, y)| *x += y);
                    a
                });
            }
        }
        if !same_nodes {
            let n = u64::from(reps);
            nodes = nodes.map(|x| x / n);
            per_worker = per_worker.map(|v| v.into_iter().map(|x| x / n).collect());
        }
        Ok(Sample {
            time: time / reps,
            nodes,
            per_worker,
        })
    })
}

/// Each worker's share of `per_worker`'s nodes (sum 1; `None` when no node was counted).
pub fn shares(per_worker: &[u64]) -> Option<Vec<f64>> {
    let total: u64 = per_worker.iter().sum();
    (total > 0).then(|| {
        per_worker
            .iter()
            .map(|&n| n as f64 / total as f64)
            .collect()
    })
}

/// A job: one solve, timed and checked against the oracle (`Err` on a wrong answer).
pub type Job<'a> = Box<dyn FnMut() -> Result<Sample, String> + 'a>;

/// Something measured: a label for the tables, its worker count and its job.
pub struct Contender<'a> {
    pub config: String,
    pub workers: usize,
    pub job: Job<'a>,
    /// Timed runs.
    pub samples: Vec<Sample>,
    /// The untimed warm-up, when there was one.
    pub warmup: Option<Sample>,
}

impl<'a> Contender<'a> {
    pub fn new(
        config: impl Into<String>,
        workers: usize,
        job: impl FnMut() -> Result<Sample, String> + 'a,
    ) -> Self {
        Contender {
            config: config.into(),
            workers,
            job: Box::new(job),
            samples: Vec::new(),
            warmup: None,
        }
    }

    /// Every node count seen (warm-up included), for consistency checks.
    pub fn node_counts(&self) -> Vec<u64> {
        self.warmup
            .iter()
            .chain(&self.samples)
            .filter_map(|s| s.nodes)
            .collect()
    }

    /// The summary row (experiment, app and instance filled in by the caller).
    pub fn row(&self, experiment: &str, app: &str, instance: &str) -> Row {
        let times: Vec<Duration> = self.samples.iter().map(|s| s.time).collect();
        let (median, min, max) = stats::median_min_max(&times);
        let mut nodes: Vec<u64> = self.samples.iter().filter_map(|s| s.nodes).collect();
        nodes.sort_unstable();
        let (nodes, note) = match (nodes.first(), nodes.last()) {
            (Some(&lo), Some(&hi)) if lo == hi => (Some(lo), String::new()),
            (Some(&lo), Some(&hi)) => (
                Some(nodes[nodes.len() / 2]),
                format!("nodes vary {lo}..{hi} (median shown)"),
            ),
            _ => (None, String::new()),
        };
        let mut row = Row::new(experiment, app, instance, &self.config, self.workers);
        row.runs = times.len();
        row.median_s = Some(median);
        row.min_s = Some(min);
        row.max_s = Some(max);
        row.times_s = Some(times.iter().map(Duration::as_secs_f64).collect());
        row.nodes = nodes;
        row.nodes_per_s = nodes.map(|n| n as f64 / median);
        if self.workers > 1 {
            // The per-worker node shares of the median run (by time).
            let mut by_time: Vec<&Sample> = self.samples.iter().collect();
            by_time.sort_by_key(|s| s.time);
            row.worker_shares = by_time
                .get(by_time.len() / 2)
                .and_then(|s| s.per_worker.as_deref())
                .and_then(shares);
        }
        if self.warmup.is_none() {
            row.add_note("no warm-up (first run over the warm-up limit)");
        }
        row.add_note(&note);
        row
    }
}

/// Runs every contender `runs` times in alternating rounds (each round runs each contender
/// once, so drift in the machine's load hits all alike), after one warm-up round. A warm-up
/// run longer than [`WARMUP_LIMIT`] counts as that contender's first timed run (see
/// [`keep_first`]). Progress goes to stderr, prefixed by `what`: each run's time, and with
/// `progress` on the runs done of the item's total.
pub fn measure(
    what: &str,
    contenders: &mut [Contender<'_>],
    runs: u32,
    progress: Mode,
) -> Result<(), String> {
    let runs = runs as usize;
    // Contenders that already ran once (a probe run) skip the warm-up round.
    let warm = |c: &Contender<'_>| c.warmup.is_none() && c.samples.is_empty();
    let timed_left = |cs: &[Contender<'_>]| {
        cs.iter()
            .map(|c| runs.saturating_sub(c.samples.len()))
            .sum::<usize>()
    };
    let warmups = contenders.iter().filter(|c| warm(c)).count();
    let bar = RunsBar::new(progress, what, (warmups + timed_left(contenders)) as u64);
    eprint!("{what}: warm-up");
    for c in contenders.iter_mut().filter(|c| warm(c)) {
        bar.set_message(format!("warm-up: {}", c.config));
        let s = run_one(what, c)?;
        bar.inc();
        eprint!(" {}={:.3}", c.config, s.time.as_secs_f64());
        keep_first(c, s);
    }
    eprintln!();
    // A warm-up over the limit counted as a timed run: one fewer to go.
    bar.set_total(bar.done() + timed_left(contenders) as u64);
    // A contender starts the timed rounds with no run, or with one (a warm-up over the
    // limit): `runs` rounds give each of them `runs` runs.
    for round in rounds(0, runs as u32) {
        if contenders.iter().all(|c| c.samples.len() >= runs) {
            break;
        }
        eprint!("{what}: {round}");
        for c in contenders.iter_mut().filter(|c| c.samples.len() < runs) {
            bar.set_message(format!("{round}: {}", c.config));
            let s = run_one(what, c)?;
            bar.inc();
            eprint!(" {}={:.3}", c.config, s.time.as_secs_f64());
            c.samples.push(s);
        }
        eprintln!();
    }
    Ok(())
}

/// Files a contender's first run, made outside [`measure`]: the warm-up, or its first timed
/// run if it took longer than [`WARMUP_LIMIT`].
pub fn keep_first(c: &mut Contender<'_>, s: Sample) {
    if s.time > WARMUP_LIMIT {
        c.samples.push(s);
    } else {
        c.warmup = Some(s);
    }
}

fn run_one(what: &str, c: &mut Contender<'_>) -> Result<Sample, String> {
    (c.job)().map_err(|e| format!("{what}, {} ({} worker(s)): {e}", c.config, c.workers))
}

/// The median of a contender's timed runs, in seconds.
pub fn median(c: &Contender<'_>) -> f64 {
    let times: Vec<Duration> = c.samples.iter().map(|s| s.time).collect();
    stats::median_min_max(&times).0
}

/// Checks that every run of every contender in `group` counted the same number of nodes
/// (deterministic searches that visit the same tree): returns that count.
pub fn same_nodes(what: &str, group: &[&Contender<'_>]) -> Result<u64, String> {
    let mut seen: Vec<(String, Vec<u64>)> = Vec::new();
    for c in group {
        seen.push((c.config.clone(), c.node_counts()));
    }
    let first = seen
        .iter()
        .find_map(|(_, n)| n.first().copied())
        .ok_or_else(|| format!("{what}: no node counts to compare"))?;
    if seen.iter().all(|(_, n)| n.iter().all(|&x| x == first)) {
        Ok(first)
    } else {
        Err(format!(
            "{what}: node counts differ between solvers that should visit the same tree: {}",
            seen.iter()
                .map(|(c, n)| format!("{c} {n:?}"))
                .collect::<Vec<_>>()
                .join(", ")
        ))
    }
}

/// Keeps the calling thread, and the threads it starts from now on (they inherit its CPU
/// set), on the CPU it runs on now; dropping it gives the calling thread its CPU set back.
///
/// The 1-worker experiments run a skeleton on the pool's worker and the hand-written solvers
/// on the calling thread. On the development VM the two vCPUs run at different speeds from
/// one minute to the next, so without this they compared CPUs as much as solvers: knapsack's
/// Sequential / hand-written moved between 0.98 and 1.38 from one run of the suite to the
/// next, and held at 1.17–1.20 with the whole process on one CPU.
pub struct OneCpu {
    saved: Option<libc::cpu_set_t>,
    /// Restored on the thread that pinned itself: not `Send`.
    _here: std::marker::PhantomData<*const ()>,
}

impl OneCpu {
    /// Pins the calling thread to its current CPU (nothing happens if the OS refuses).
    pub fn here() -> OneCpu {
        let size = std::mem::size_of::<libc::cpu_set_t>();
        // SAFETY: `cpu_set_t` is a plain bit set for which all zeroes is a valid (empty) value.
        let mut saved: libc::cpu_set_t = unsafe { std::mem::zeroed() };
        // SAFETY: pid 0 is the calling thread; `saved` is a valid set of the size given.
        if unsafe { libc::sched_getaffinity(0, size, &mut saved) } != 0 {
            return OneCpu::none();
        }
        // SAFETY: no arguments; returns the CPU of the calling thread or -1.
        let cpu = unsafe { libc::sched_getcpu() };
        let Ok(cpu) = usize::try_from(cpu) else {
            return OneCpu::none();
        };
        if cpu >= 8 * size {
            return OneCpu::none();
        }
        // SAFETY: as for `saved`.
        let mut one: libc::cpu_set_t = unsafe { std::mem::zeroed() };
        // SAFETY: `cpu` is within the set's capacity (checked above).
        unsafe { libc::CPU_SET(cpu, &mut one) };
        // SAFETY: pid 0 is the calling thread; `one` is a valid, initialised set of that size.
        if unsafe { libc::sched_setaffinity(0, size, &one) } != 0 {
            return OneCpu::none();
        }
        OneCpu {
            saved: Some(saved),
            _here: std::marker::PhantomData,
        }
    }

    fn none() -> OneCpu {
        OneCpu {
            saved: None,
            _here: std::marker::PhantomData,
        }
    }
}

impl Drop for OneCpu {
    fn drop(&mut self) {
        if let Some(saved) = &self.saved {
            // SAFETY: pid 0 is the calling thread, the one that made this value (it is not
            // `Send`); `saved` is the set `sched_getaffinity` filled in.
            let _ = unsafe {
                libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), saved)
            };
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn worker_shares_are_those_of_the_median_run() {
        assert_eq!(shares(&[3, 1]), Some(vec![0.75, 0.25]));
        assert_eq!(shares(&[0, 0]), None);
        let sample = |ms: u64, per_worker: Vec<u64>| Sample {
            time: Duration::from_millis(ms),
            nodes: Some(per_worker.iter().sum()),
            per_worker: Some(per_worker),
        };
        let mut c = Contender::new("dbs:2", 2, || Err("not run".to_string()));
        c.samples = vec![
            sample(30, vec![1, 3]),
            sample(10, vec![4, 0]),
            sample(20, vec![1, 1]),
        ];
        let row = c.row("e", "a", "i");
        assert_eq!(row.worker_shares, Some(vec![0.5, 0.5]));
        // One worker: no shares.
        c.workers = 1;
        assert_eq!(c.row("e", "a", "i").worker_shares, None);
    }

    /// A job whose runs take 10, 20, 30, ... ms and count the given nodes in turn.
    fn runs<'a>(per_worker: &'a [[u64; 2]]) -> Job<'a> {
        let mut i = 0;
        Box::new(move || {
            let w = per_worker[i % per_worker.len()];
            i += 1;
            Ok(Sample {
                time: Duration::from_millis(10 * i as u64),
                nodes: Some(w[0] + w[1]),
                per_worker: Some(w.to_vec()),
            })
        })
    }

    #[test]
    fn repeated_samples_are_means_and_exact_ones_check_the_nodes() {
        let mut job = repeated_parallel(3, runs(&[[4, 0], [1, 1], [3, 3]]));
        let s = job().unwrap();
        assert_eq!(s.time, Duration::from_millis(20));
        // Nodes 4, 2, 6 and per worker (4+1+3, 0+1+3), divided by 3 (rounded down).
        assert_eq!((s.nodes, s.per_worker), (Some(4), Some(vec![2, 1])));
        let mut same = repeated(2, runs(&[[2, 2], [3, 1]]));
        assert_eq!(same().unwrap().time, Duration::from_millis(15));
        assert!(repeated(2, runs(&[[2, 2], [1, 1]]))().is_err());
    }
}
