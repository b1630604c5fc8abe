//! OpenMP's internal control variables, read from the environment once, and the pool the
//! regions run on.
//!
//! | variable | accepted | default |
//! |---|---|---|
//! | `OMP_NUM_THREADS` | a positive number (the first of a list) | the available CPUs |
//! | `OMP_THREAD_LIMIT` | the most members a team can have: the pool's size | `OMP_NUM_THREADS` |
//! | `OMP_SCHEDULE` | `[monotonic:\|nonmonotonic:]name[,chunk]`, every `magpie::loops` name and LB4OMP's spellings | `dynamic,1` (libgomp's) |
//! | `OMP_WAIT_POLICY` | `active` (workers spin), `passive` (they park at once) | spin a while, then park ([`WAIT_DEFAULT`]) |
//! | `OMP_DYNAMIC`, `OMP_PROC_BIND`, `OMP_MAX_ACTIVE_LEVELS`, `OMP_NESTED`, `OMP_CANCELLATION` | accepted; see docs/openmp.md | |
//! | `MAGPIE_DEQUE`, `MAGPIE_VICTIMS`, `MAGPIE_IDLE`, `MAGPIE_JOIN_LIMIT`, `MAGPIE_SIGNAL` | as for every magpie pool | |
//!
//! A value that does not parse prints one line naming it and what is accepted, and the
//! default runs: a runtime loaded into someone else's program never stops it over
//! configuration.

use std::sync::atomic::{AtomicBool, AtomicUsize};
use std::sync::{Mutex, OnceLock};

use magpie::loops::Schedule;

/// The `runtime` schedule (OpenMP's run-sched-var): what `schedule(runtime)` loops run.
#[derive(Debug, Clone, PartialEq)]
pub struct RunSchedule {
    /// The schedule.
    pub schedule: Schedule,
    /// `monotonic:` was given: each thread's chunks must come in increasing order (stealing
    /// schedules then run as `static`).
    pub monotonic: bool,
}

/// LB4OMP's and LLVM's names that `magpie::loops` spells differently.
const ALIASES: &[(&str, &str)] = &[
    ("fac2a", "fac2"),
    ("faca", "mfac"),
    ("af_a", "af"),
    ("trapezoidal", "tss"),
    ("steal", "static_steal"),
];

/// Parses an `OMP_SCHEDULE` value: an optional `monotonic:` or `nonmonotonic:` modifier,
/// then a `magpie::loops` schedule (`static`, `dynamic`, `guided`, `auto`, `fac2`,
/// `awf_b`, …, with LB4OMP's and LLVM's spellings `fac2a`, `faca`, `trapezoidal`) and an
/// optional `,chunk`. `runtime` is refused (it would name itself).
///
/// ```
/// use magpie_omp::parse_omp_schedule;
/// let s = parse_omp_schedule("monotonic:dynamic,4").unwrap();
/// assert!(s.monotonic);
/// assert_eq!(s.schedule.to_string(), "ss,4");
/// assert_eq!(parse_omp_schedule("fac2a").unwrap().schedule.to_string(), "fac2");
/// assert!(parse_omp_schedule("bogus").unwrap_err().contains("bogus"));
/// ```
pub fn parse_omp_schedule(value: &str) -> Result<RunSchedule, String> {
    let v = value.trim();
    let (monotonic, rest) = match v.split_once(':') {
        Some((m, rest)) => match m.trim().to_ascii_lowercase().as_str() {
            "monotonic" => (true, rest),
            "nonmonotonic" => (false, rest),
            other => {
                return Err(format!(
                    "OMP_SCHEDULE={value:?}: unknown modifier {other:?}; expected monotonic or nonmonotonic"
                ))
            }
        },
        None => (false, v),
    };
    let (name, chunk) = match rest.split_once(',') {
        Some((n, c)) => (n.trim(), Some(c)),
        None => (rest.trim(), None),
    };
    let lower = name.to_ascii_lowercase();
    let name = ALIASES
        .iter()
        .find(|(a, _)| *a == lower)
        .map_or(lower.as_str(), |(_, to)| to);
    let text = match chunk {
        Some(c) => format!("{name},{c}"),
        None => name.to_string(),
    };
    let schedule: Schedule = text.parse().map_err(|e: magpie::loops::ScheduleError| {
        format!(
            "OMP_SCHEDULE={value:?}: {}; also accepted: {} and the modifiers monotonic: and nonmonotonic:",
            e.0,
            ALIASES
                .iter()
                .map(|(a, _)| *a)
                .collect::<Vec<_>>()
                .join(", ")
        )
    })?;
    if schedule == Schedule::Runtime {
        return Err(format!(
            "OMP_SCHEDULE={value:?}: `runtime` cannot name the runtime schedule itself"
        ));
    }
    Ok(RunSchedule {
        schedule,
        monotonic,
    })
}

/// The control variables.
pub(crate) struct Icv {
    /// nthreads-var: the team size of the next region (`omp_set_num_threads`).
    pub(crate) nthreads: AtomicUsize,
    pub(crate) run_sched: Mutex<RunSchedule>,
    pub(crate) dynamic: AtomicBool,
    pub(crate) max_active_levels: AtomicUsize,
    /// thread-limit-var: the pool's size, the most members a team can have.
    pub(crate) thread_limit: usize,
    /// proc-bind-var as `omp_proc_bind_t` (0 false, 1 true, 2 primary, 3 close, 4 spread).
    pub(crate) proc_bind: i32,
    /// Idle policy from OMP_WAIT_POLICY, unless MAGPIE_IDLE says otherwise.
    wait_policy: &'static str,
}

/// The pool's idle policy when `OMP_WAIT_POLICY` is not set: spin about 60 µs, then park,
/// as libgomp spins then sleeps on a futex. No `yield` phase (magpie's default `park` has
/// 32): on a machine whose cores are busy with other programs, each `sched_yield` hands the
/// core to them for a time slice, and a team whose members wait in barriers then runs 10-20x
/// slower than libgomp (tests/omp's loop program under two busy loops: 3.4 s against 0.14 s
/// with this policy, libgomp 0.24 s).
pub(crate) const WAIT_DEFAULT: &str = "park:spin=128,yield=0";
/// `OMP_WAIT_POLICY=active`: idle members never block.
const WAIT_ACTIVE: &str = "spin";
/// `OMP_WAIT_POLICY=passive`: idle members park at once (libgomp: a spin count of 0).
const WAIT_PASSIVE: &str = "park:spin=0,yield=0";

/// The idle policy `OMP_WAIT_POLICY` asks for (None: not set), or the line to print.
fn wait_policy(value: Option<&str>) -> Result<&'static str, String> {
    match value.map(|v| v.trim().to_ascii_lowercase()).as_deref() {
        None => Ok(WAIT_DEFAULT),
        Some("active") => Ok(WAIT_ACTIVE),
        Some("passive") => Ok(WAIT_PASSIVE),
        Some(_) => Err(format!(
            "OMP_WAIT_POLICY={:?}: expected active or passive; using the default",
            value.unwrap_or_default()
        )),
    }
}

fn env(name: &str) -> Option<String> {
    std::env::var(name).ok().filter(|v| !v.trim().is_empty())
}

fn num_procs() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

impl Icv {
    fn from_env() -> Icv {
        let nthreads = match env("OMP_NUM_THREADS") {
            None => num_procs(),
            Some(v) => {
                let first = v.split(',').next().unwrap_or("").trim();
                match first.parse::<usize>() {
                    Ok(n) if (1..=magpie::MAX_WORKERS).contains(&n) => n,
                    _ => {
                        crate::warn(&format!(
                            "OMP_NUM_THREADS={v:?}: expected a number from 1 to {}; using {}",
                            magpie::MAX_WORKERS,
                            num_procs()
                        ));
                        num_procs()
                    }
                }
            }
        };
        let default_sched = RunSchedule {
            schedule: Schedule::Ss { chunk: 1 },
            monotonic: false,
        };
        let run_sched = match env("OMP_SCHEDULE") {
            None => default_sched,
            Some(v) => parse_omp_schedule(&v).unwrap_or_else(|e| {
                crate::warn(&format!("{e}; running dynamic,1"));
                default_sched
            }),
        };
        let flag = |name: &str, default: bool| match env(name) {
            None => default,
            Some(v) => match v.trim().to_ascii_lowercase().as_str() {
                "true" | "1" | "yes" => true,
                "false" | "0" | "no" => false,
                _ => {
                    crate::warn(&format!(
                        "{name}={v:?}: expected true or false; using {default}"
                    ));
                    default
                }
            },
        };
        let dynamic = flag("OMP_DYNAMIC", false);
        if flag("OMP_CANCELLATION", false) {
            crate::warn(
                "OMP_CANCELLATION=true: cancellation is not supported; cancel directives are ignored (omp_get_cancellation() is false)",
            );
        }
        let nested = flag("OMP_NESTED", false);
        let max_active_levels = match env("OMP_MAX_ACTIVE_LEVELS") {
            None => usize::from(nested).max(1),
            Some(v) => v.trim().parse().unwrap_or_else(|_| {
                crate::warn(&format!(
                    "OMP_MAX_ACTIVE_LEVELS={v:?}: expected a number; using 1"
                ));
                1
            }),
        };
        let proc_bind = match env("OMP_PROC_BIND") {
            None => 0,
            Some(v) => match v
                .split(',')
                .next()
                .unwrap_or("")
                .trim()
                .to_ascii_lowercase()
                .as_str()
            {
                "false" => 0,
                "true" => 1,
                "primary" | "master" => 2,
                "close" => 3,
                "spread" => 4,
                _ => {
                    crate::warn(&format!(
                        "OMP_PROC_BIND={v:?}: expected true, false, primary, master, close or spread; using false"
                    ));
                    0
                }
            },
        };
        let wait_policy = wait_policy(env("OMP_WAIT_POLICY").as_deref()).unwrap_or_else(|e| {
            crate::warn(&e);
            WAIT_DEFAULT
        });
        let thread_limit = match env("OMP_THREAD_LIMIT") {
            None => nthreads,
            Some(v) => match v.trim().parse::<usize>() {
                Ok(n) if (1..=magpie::MAX_WORKERS).contains(&n) => n.max(nthreads),
                _ => {
                    crate::warn(&format!(
                        "OMP_THREAD_LIMIT={v:?}: expected a number from 1 to {}; using {nthreads}",
                        magpie::MAX_WORKERS
                    ));
                    nthreads
                }
            },
        };
        Icv {
            nthreads: AtomicUsize::new(nthreads),
            thread_limit,
            run_sched: Mutex::new(run_sched),
            dynamic: AtomicBool::new(dynamic),
            max_active_levels: AtomicUsize::new(max_active_levels),
            proc_bind,
            wait_policy,
        }
    }

    /// The runtime schedule.
    pub(crate) fn run_sched(&self) -> RunSchedule {
        self.run_sched
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }
}

/// The control variables, read on first use.
pub(crate) fn icv() -> &'static Icv {
    static ICV: OnceLock<Icv> = OnceLock::new();
    ICV.get_or_init(Icv::from_env)
}

/// The pool the regions run on: built by the first region, with the thread that starts it
/// as worker 0 (OpenMP's initial thread is the primary thread of its teams).
pub(crate) fn pool() -> &'static magpie::ThreadPool {
    static POOL: OnceLock<magpie::ThreadPool> = OnceLock::new();
    POOL.get_or_init(|| {
        let icv = icv();
        let workers = icv.thread_limit;
        let make = |from_env: bool| {
            let mut b = if from_env {
                magpie::ThreadPoolBuilder::from_env()
            } else {
                magpie::ThreadPoolBuilder::new()
            };
            b = b
                .num_workers(workers)
                .use_current_thread()
                .thread_name(|i| format!("magpie-omp-{i}"));
            // MAGPIE_IDLE wins over OMP_WAIT_POLICY, unless it is what failed.
            if !from_env || std::env::var_os("MAGPIE_IDLE").is_none() {
                b = b.idle(icv.wait_policy);
            }
            b.build()
        };
        match make(true) {
            Ok(p) => p,
            Err(e) => {
                crate::warn(&format!("{e}; running with magpie's defaults"));
                make(false).unwrap_or_else(|e| crate::fatal(&format!("cannot start the pool: {e}")))
            }
        }
    })
}

/// Whether the pool exists and the calling thread is one of its workers.
pub(crate) fn on_pool() -> bool {
    magpie::current_worker_index().is_some()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wait_policies_are_magpie_idle_policies() {
        for (value, policy) in [
            (None, WAIT_DEFAULT),
            (Some("active"), "spin"),
            (Some(" PASSIVE "), "park:spin=0,yield=0"),
        ] {
            assert_eq!(wait_policy(value), Ok(policy));
            let pool = magpie::ThreadPoolBuilder::new()
                .num_workers(1)
                .idle(policy)
                .build();
            assert!(pool.is_ok(), "{policy}");
        }
        let e = wait_policy(Some("sometimes")).unwrap_err();
        assert!(
            e.contains("\"sometimes\"") && e.contains("active or passive"),
            "{e}"
        );
    }

    #[test]
    fn every_openmp_and_lb4omp_name_parses() {
        for (v, want) in [
            ("static", "static"),
            ("static,7", "static,7"),
            ("dynamic", "ss"),
            ("dynamic,3", "ss,3"),
            ("guided", "gss"),
            ("guided,5", "gss,5"),
            ("auto", "auto"),
            ("fac2a", "fac2"),
            ("faca", "mfac"),
            ("awf_b", "awf-b"),
            ("awf_e", "awf-e"),
            ("static_steal", "static-steal"),
            ("rws", "rws"),
            ("laws", "laws"),
            ("expert_sel", "expert-sel"),
            ("nonmonotonic:guided", "gss"),
            ("  Trapezoidal ", "tss"),
        ] {
            let got = parse_omp_schedule(v).unwrap_or_else(|e| panic!("{v}: {e}"));
            assert_eq!(got.schedule.to_string(), want, "{v}");
            assert!(!got.monotonic, "{v}");
        }
        assert!(parse_omp_schedule("monotonic:static").unwrap().monotonic);
    }

    #[test]
    fn bad_values_name_the_value_and_the_names() {
        let e = parse_omp_schedule("bogus,4").unwrap_err();
        assert!(
            e.contains("bogus") && e.contains("fac2") && e.contains("fac2a"),
            "{e}"
        );
        let e = parse_omp_schedule("sideways:dynamic").unwrap_err();
        assert!(e.contains("sideways"), "{e}");
        assert!(parse_omp_schedule("runtime").is_err());
        assert!(parse_omp_schedule("dynamic,0").is_err());
    }
}
