//! Loop schedules and their string syntax: `name[,argument]`, as `OMP_SCHEDULE` (case-insensitive,
//! surrounding blanks ignored, `_` accepted for `-`).
//!
//! | syntax | schedule | argument |
//! |---|---|---|
//! | `static` / `static,k` | [`Schedule::Static`] | none: one even block per worker; `k`: block-cyclic chunks of `k` |
//! | `ss[,k]` (alias `dynamic`) | [`Schedule::Ss`] | chunk `k`, default 1 |
//! | `gss[,m]` (alias `guided`) | [`Schedule::Gss`] | minimum chunk `m`, default 1 |
//! | `tss[,l]`, `tss,f:l` | [`Schedule::Tss`] | last (smallest) chunk `l`, default 1; first (largest) chunk `f` (≥ `l`), default `⌈N/(2P)⌉` |
//! | `fac[,m]`, `fac2[,m]`, `mfac[,m]` | [`Schedule::Fac`], [`Schedule::Fac2`], [`Schedule::Mfac`] | minimum chunk, default 1 |
//! | `wf[,w0:w1:…]` | [`Schedule::Wf`] | relative worker weights (positive numbers), default all equal |
//! | `awf[,m]`, `awf-b[,m]` … `awf-e[,m]`, `af[,m]` | adaptive techniques | minimum chunk, default 1 |
//! | `static-steal[,k]` | [`Schedule::StaticSteal`] | steal granularity `k`, default 1 |
//! | `rws[,r]`, `rws,fac2`, `rws,guided`, `laws[,…]` | [`Schedule::Rws`], [`Schedule::Laws`] | a [`StealAmount`]: steal ratio `r` in percent (1..=100, default 25), `fac2` or `guided` |
//! | `auto`, `runtime`, `random-sel`, `exhaustive-sel`, `binary-sel`, `expert-sel` | | none |
//!
//! The argument is LB4OMP's *expert chunk parameter* (OpenMP's `schedule(kind, chunk)`): the
//! chunk of `static`, `ss` and `static-steal`, the minimum chunk of the decreasing techniques
//! (GSS, FAC, FAC2, mFAC, AWF*, AF), the last — and optionally first — chunk of TSS. `wf`
//! takes its weights there instead, `rws`/`laws` their steal amount; `auto`, `runtime` and
//! the selectors take none (an argument is an error).
//!
//! Every argument that is a chunk must be at least 1. [`Display`](std::fmt::Display) prints the
//! canonical form (default arguments left out), which parses back to the same schedule.
//!
//! ```
//! use magpie::loops::Schedule;
//!
//! let s: Schedule = " Guided , 4 ".parse().unwrap();
//! assert_eq!(s, Schedule::Gss { min_chunk: 4 });
//! assert_eq!(s.to_string(), "gss,4");
//! assert_eq!("wf,1:3".parse::<Schedule>().unwrap().to_string(), "wf,1:3");
//! assert_eq!("ss".parse::<Schedule>().unwrap(), Schedule::Ss { chunk: 1 });
//! assert_eq!("mfac,4".parse::<Schedule>().unwrap(), Schedule::Mfac { min_chunk: 4 });
//! assert_eq!("tss,100:10".parse::<Schedule>().unwrap().to_string(), "tss,100:10");
//!
//! let err = "gss,0".parse::<Schedule>().unwrap_err();
//! assert_eq!(err.to_string(), "schedule \"gss,0\": the minimum chunk must be at least 1");
//! assert!("fastest".parse::<Schedule>().unwrap_err().to_string().contains("expected one of"));
//! ```

use std::fmt;
use std::str::FromStr;

/// The environment variable [`Schedule::from_env`] reads.
pub const SCHEDULE_ENV: &str = "MAGPIE_SCHEDULE";

/// How many iterations a thief takes from its victim's remaining ones: the `steal` of
/// [`Schedule::Rws`] and [`Schedule::Laws`] (whose participants are a pool's workers) and
/// the steal amount of `magpie_mpi`'s distributed loops (whose participants are ranks).
///
/// Syntax ([`FromStr`], case-insensitive): `N` or `N%` (a percentage, 1..=100), `fac2` or
/// `guided`; [`Display`](fmt::Display) prints `N%`, `fac2` or `guided`.
///
/// ```
/// use magpie::loops::StealAmount;
/// assert_eq!("25%".parse::<StealAmount>().unwrap(), StealAmount::Ratio(25));
/// assert_eq!(" Guided ".parse::<StealAmount>().unwrap(), StealAmount::Guided);
/// assert_eq!(StealAmount::Fac2.to_string(), "fac2");
/// assert!("0%".parse::<StealAmount>().unwrap_err().to_string().contains("1..=100"));
/// // Of 10 remaining iterations among 4 participants:
/// assert_eq!(StealAmount::Ratio(25).of(10, 4), 3);
/// assert_eq!(StealAmount::Fac2.of(10, 4), 5);
/// assert_eq!(StealAmount::Guided.of(10, 4), 3);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StealAmount {
    /// This percentage (1..=100) of the victim's remaining iterations: `⌈R·N/100⌉`.
    Ratio(u8),
    /// A FAC2-sized share of the victim's own queue: `⌈R/2⌉` of its `R` remaining iterations
    /// (FAC2's `⌈R/(2P)⌉` with `P = 1`, one owner per queue).
    Fac2,
    /// `⌈R/P⌉` of `P` participants (`rws_guided`).
    Guided,
}

impl Default for StealAmount {
    fn default() -> Self {
        StealAmount::Ratio(25)
    }
}

impl StealAmount {
    /// How many of a victim's `remaining` iterations a thief takes among `participants`
    /// (workers or ranks): at least one and at most `remaining` (0 only when `remaining` is
    /// 0). Exact integer arithmetic.
    pub fn of(self, remaining: usize, participants: usize) -> usize {
        if remaining == 0 {
            return 0;
        }
        let k = match self {
            StealAmount::Ratio(r) => (remaining * usize::from(r.clamp(1, 100))).div_ceil(100),
            StealAmount::Fac2 => remaining.div_ceil(2),
            StealAmount::Guided => remaining.div_ceil(participants.max(1)),
        };
        k.clamp(1, remaining)
    }

    /// Parses the argument `arg`; the error is the reason, without the context.
    fn parse_arg(arg: &str) -> Result<StealAmount, String> {
        let t = arg.trim();
        if t.eq_ignore_ascii_case("fac2") {
            return Ok(StealAmount::Fac2);
        }
        if t.eq_ignore_ascii_case("guided") {
            return Ok(StealAmount::Guided);
        }
        match t.strip_suffix('%').unwrap_or(t).trim().parse::<u64>() {
            Ok(r) if (1..=100).contains(&r) => Ok(StealAmount::Ratio(r as u8)),
            Ok(r) => Err(format!(
                "the steal ratio must be a percentage in 1..=100, not {r}"
            )),
            Err(_) => Err(format!(
                "expected a steal ratio in percent (1..=100, e.g. 25%), `guided` or `fac2`, \
                 not {t:?}"
            )),
        }
    }
}

impl fmt::Display for StealAmount {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            StealAmount::Ratio(r) => write!(f, "{r}%"),
            StealAmount::Fac2 => f.write_str("fac2"),
            StealAmount::Guided => f.write_str("guided"),
        }
    }
}

impl FromStr for StealAmount {
    type Err = ScheduleError;

    /// `N`, `N%`, `fac2` or `guided`; an error reads `steal amount "INPUT": REASON`.
    fn from_str(s: &str) -> Result<Self, ScheduleError> {
        StealAmount::parse_arg(s)
            .map_err(|why| ScheduleError(format!("steal amount {:?}: {why}", s.trim())))
    }
}

/// A loop schedule: how the iterations of a parallel loop are divided among the workers.
///
/// The central-queue techniques (SS … AF) are sized by [`crate::loops::chunks::central_rule`];
/// the others are distributed (each worker owns a block) or choose a schedule themselves.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum Schedule {
    /// `static`: with no chunk one even block per worker; with a chunk `k`, chunks of `k`
    /// iterations dealt round-robin to the workers (block-cyclic). No central queue.
    Static {
        /// The block-cyclic chunk, or `None` for one block per worker.
        chunk: Option<u64>,
    },
    /// `ss`: pure self-scheduling (OpenMP `dynamic`), fixed chunks of `chunk` from a central queue.
    Ss {
        /// The chunk size (default 1).
        chunk: u64,
    },
    /// `gss`: guided self-scheduling (Polychronopoulos & Kuck 1987), chunk `⌈R/P⌉`.
    Gss {
        /// The smallest chunk handed out (default 1).
        min_chunk: u64,
    },
    /// `tss`: trapezoid self-scheduling (Tzen & Ni 1993), linearly decreasing chunks.
    Tss {
        /// The first, largest chunk `F`, at least `last_chunk` (`None`: `⌈N/(2P)⌉`).
        first_chunk: Option<u64>,
        /// The last, smallest chunk `L` (default 1).
        last_chunk: u64,
    },
    /// `fac`: factoring (Hummel, Schonberg & Flynn 1992) with the mean and standard deviation
    /// of iteration times learned in the loop's history; with nothing learned it is FAC2.
    Fac {
        /// The smallest chunk handed out (default 1).
        min_chunk: u64,
    },
    /// `fac2`: practical factoring, batches of `P` chunks of `⌈R/(2P)⌉`.
    Fac2 {
        /// The smallest chunk handed out (default 1).
        min_chunk: u64,
    },
    /// `mfac`: LB4OMP's modified factoring (`faca`): FAC's chunks (from the learned `μ` and
    /// `σ`; FAC2's with nothing learned), but without FAC's locked central queue: a worker
    /// takes the next chunk *number* with one atomic increment and computes that chunk's
    /// batch, size and offset itself from the batch formula (every worker redundantly).
    Mfac {
        /// The smallest chunk handed out (default 1).
        min_chunk: u64,
    },
    /// `wf`: weighted factoring (Flynn Hummel et al. 1996): FAC2 chunks scaled by each worker's
    /// relative weight. Weights are reused cyclically when there are more workers than weights
    /// and normalised to mean 1 over the workers.
    Wf {
        /// Relative worker weights (all positive); empty means all equal.
        weights: Vec<f64>,
    },
    /// `awf`: adaptive weighted factoring (Banicescu et al. 2003): WF whose weights are
    /// learned from measured iteration rates between calls (time steps) of the same loop.
    Awf {
        /// The smallest chunk handed out (default 1).
        min_chunk: u64,
    },
    /// `awf-b`: AWF with weights updated at every batch, from this call's measurements.
    AwfB {
        /// The smallest chunk handed out (default 1).
        min_chunk: u64,
    },
    /// `awf-c`: AWF with weights updated at every chunk, chunks sized from the current remainder.
    AwfC {
        /// The smallest chunk handed out (default 1).
        min_chunk: u64,
    },
    /// `awf-d`: as `awf-b`, but the measured time includes the scheduling overhead.
    AwfD {
        /// The smallest chunk handed out (default 1).
        min_chunk: u64,
    },
    /// `awf-e`: as `awf-c`, but the measured time includes the scheduling overhead.
    AwfE {
        /// The smallest chunk handed out (default 1).
        min_chunk: u64,
    },
    /// `af`: adaptive factoring (Banicescu & Liu 2000), chunks from per-worker estimates of
    /// the mean and deviation of iteration times.
    Af {
        /// The smallest chunk handed out (default 1).
        min_chunk: u64,
    },
    /// `static-steal`: LLVM's static stealing, even blocks per worker counted in chunks, idle
    /// workers steal a quarter of a victim's remaining chunks.
    StaticSteal {
        /// The granularity of blocks and steals in iterations (default 1).
        chunk: u64,
    },
    /// `rws`: random work stealing over evenly split per-worker ranges (LB4OMP-WS).
    Rws {
        /// How much a thief takes.
        steal: StealAmount,
    },
    /// `laws`: locality-aware work stealing, as `rws` but victims on the thief's own node first.
    Laws {
        /// How much a thief takes.
        steal: StealAmount,
    },
    /// `auto`: the runtime's own choice.
    Auto,
    /// `runtime`: resolved from `MAGPIE_SCHEDULE` when the loop runs.
    Runtime,
    /// `random-sel`: automatic selection, a random schedule per time step.
    RandomSel,
    /// `exhaustive-sel`: automatic selection, trying every schedule then keeping the best.
    ExhaustiveSel,
    /// `binary-sel`: automatic selection by binary search over the portfolio.
    BinarySel,
    /// `expert-sel`: automatic selection by expert rules.
    ExpertSel,
}

/// A malformed schedule string: the message names the input and what was expected.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct ScheduleError(pub String);

impl ScheduleError {
    fn about(input: &str, what: impl fmt::Display) -> Self {
        ScheduleError(format!("schedule {input:?}: {what}"))
    }
}

/// Every schedule's name, written once: the variant, its canonical name, the other spellings
/// the parser accepts (after lower-casing and `_` → `-`), and how its argument is parsed.
/// The macro generates [`Schedule::names`], [`Schedule::name`] (which [`Display`](fmt::Display)
/// prints) and the name part of [`FromStr`], so adding a schedule is one line here (plus the
/// variant, and its argument in `Display` if it has one).
macro_rules! schedule_table {
    ($($variant:ident = $name:literal $(| $alias:literal)* => $parse:expr,)*) => {
        const NAMES: &[&str] = &[$($name),*];

        impl Schedule {
            /// The canonical schedule names, in the order of the enum.
            pub fn names() -> &'static [&'static str] {
                NAMES
            }

            /// The canonical name of this schedule (the part before the comma).
            pub fn name(&self) -> &'static str {
                match self {
                    $(Schedule::$variant { .. } => $name,)*
                }
            }

            /// The schedule spelled `name` (lower case, `-` for `_`) with the argument `arg`
            /// of the input `s`, or `None` when no schedule is spelled so.
            fn parse_named(
                name: &str,
                s: &str,
                arg: Option<&str>,
            ) -> Option<Result<Schedule, ScheduleError>> {
                match name {
                    $($name $(| $alias)* => {
                        let parse: ParseArgument = $parse;
                        Some(parse(s, arg))
                    })*
                    _ => None,
                }
            }
        }
    };
}

/// Builds a schedule from the whole input (for errors) and its argument, if any.
type ParseArgument = fn(&str, Option<&str>) -> Result<Schedule, ScheduleError>;

schedule_table! {
    Static = "static" => |s, arg| Ok(Schedule::Static {
        chunk: arg.map(|a| parse_chunk(s, a, "chunk")).transpose()?,
    }),
    Ss = "ss" | "dynamic" => |s, arg| Ok(Schedule::Ss { chunk: chunk_or_1(s, arg)? }),
    Gss = "gss" | "guided" => |s, arg| Ok(Schedule::Gss { min_chunk: min_chunk(s, arg)? }),
    Tss = "tss" => parse_tss,
    Fac = "fac" => |s, arg| Ok(Schedule::Fac { min_chunk: min_chunk(s, arg)? }),
    Fac2 = "fac2" => |s, arg| Ok(Schedule::Fac2 { min_chunk: min_chunk(s, arg)? }),
    Mfac = "mfac" => |s, arg| Ok(Schedule::Mfac { min_chunk: min_chunk(s, arg)? }),
    Wf = "wf" => |s, arg| Ok(Schedule::Wf {
        weights: arg.map_or(Ok(Vec::new()), |a| parse_weights(s, a))?,
    }),
    Awf = "awf" => |s, arg| Ok(Schedule::Awf { min_chunk: min_chunk(s, arg)? }),
    AwfB = "awf-b" => |s, arg| Ok(Schedule::AwfB { min_chunk: min_chunk(s, arg)? }),
    AwfC = "awf-c" => |s, arg| Ok(Schedule::AwfC { min_chunk: min_chunk(s, arg)? }),
    AwfD = "awf-d" => |s, arg| Ok(Schedule::AwfD { min_chunk: min_chunk(s, arg)? }),
    AwfE = "awf-e" => |s, arg| Ok(Schedule::AwfE { min_chunk: min_chunk(s, arg)? }),
    Af = "af" => |s, arg| Ok(Schedule::Af { min_chunk: min_chunk(s, arg)? }),
    StaticSteal = "static-steal" => |s, arg| Ok(Schedule::StaticSteal {
        chunk: chunk_or_1(s, arg)?,
    }),
    Rws = "rws" => |s, arg| Ok(Schedule::Rws { steal: parse_steal(s, arg)? }),
    Laws = "laws" => |s, arg| Ok(Schedule::Laws { steal: parse_steal(s, arg)? }),
    Auto = "auto" => |s, arg| no_argument(s, arg, Schedule::Auto),
    Runtime = "runtime" => |s, arg| no_argument(s, arg, Schedule::Runtime),
    RandomSel = "random-sel" => |s, arg| no_argument(s, arg, Schedule::RandomSel),
    ExhaustiveSel = "exhaustive-sel" => |s, arg| no_argument(s, arg, Schedule::ExhaustiveSel),
    BinarySel = "binary-sel" => |s, arg| no_argument(s, arg, Schedule::BinarySel),
    ExpertSel = "expert-sel" => |s, arg| no_argument(s, arg, Schedule::ExpertSel),
}

impl Schedule {
    /// The schedule named by `MAGPIE_SCHEDULE`, or `None` when it is unset or blank.
    ///
    /// `runtime` is refused there, since it would refer to the variable itself.
    pub fn from_env() -> Result<Option<Schedule>, ScheduleError> {
        match std::env::var(SCHEDULE_ENV) {
            Err(std::env::VarError::NotPresent) => Ok(None),
            Err(std::env::VarError::NotUnicode(v)) => Err(ScheduleError(format!(
                "{SCHEDULE_ENV}={v:?}: not valid UTF-8"
            ))),
            Ok(v) => Self::parse_env_value(&v),
        }
    }

    fn parse_env_value(v: &str) -> Result<Option<Schedule>, ScheduleError> {
        if v.trim().is_empty() {
            return Ok(None);
        }
        let s: Schedule = v
            .parse()
            .map_err(|e: ScheduleError| ScheduleError(format!("{SCHEDULE_ENV}: {}", e.0)))?;
        if s == Schedule::Runtime {
            return Err(ScheduleError(format!(
                "{SCHEDULE_ENV}: schedule {:?}: `runtime` cannot be resolved from {SCHEDULE_ENV} itself",
                v.trim()
            )));
        }
        Ok(Some(s))
    }
}

/// Parses a chunk-like argument: a whole number of at least 1. `what` names it in errors.
fn parse_chunk(input: &str, arg: &str, what: &str) -> Result<u64, ScheduleError> {
    match arg.parse::<u64>() {
        Ok(0) => Err(ScheduleError::about(
            input,
            format!("the {what} must be at least 1"),
        )),
        Ok(k) => Ok(k),
        Err(_) => Err(ScheduleError::about(
            input,
            format!("the {what} must be a whole number of at least 1, not {arg:?}"),
        )),
    }
}

/// A chunk argument defaulting to 1 (`ss`, `static-steal`).
fn chunk_or_1(input: &str, arg: Option<&str>) -> Result<u64, ScheduleError> {
    arg.map_or(Ok(1), |a| parse_chunk(input, a, "chunk"))
}

/// The minimum chunk of the decreasing techniques, default 1.
fn min_chunk(input: &str, arg: Option<&str>) -> Result<u64, ScheduleError> {
    arg.map_or(Ok(1), |a| parse_chunk(input, a, "minimum chunk"))
}

/// `sched` when no argument was given; the schedules without a parameter refuse one.
fn no_argument(input: &str, arg: Option<&str>, sched: Schedule) -> Result<Schedule, ScheduleError> {
    match arg {
        None => Ok(sched),
        Some(a) => Err(ScheduleError::about(
            input,
            format!("`{}` takes no argument, but {a:?} was given", sched.name()),
        )),
    }
}

/// `tss`'s argument: `L` (the last chunk) or `F:L` (the first and the last chunk, `F ≥ L`).
fn parse_tss(input: &str, arg: Option<&str>) -> Result<Schedule, ScheduleError> {
    let Some(arg) = arg else {
        return Ok(Schedule::Tss {
            first_chunk: None,
            last_chunk: 1,
        });
    };
    match arg.split_once(':') {
        None => Ok(Schedule::Tss {
            first_chunk: None,
            last_chunk: parse_chunk(input, arg, "last chunk")?,
        }),
        Some((f, l)) => {
            let first = parse_chunk(input, f.trim(), "first chunk")?;
            let last = parse_chunk(input, l.trim(), "last chunk")?;
            if first < last {
                return Err(ScheduleError::about(
                    input,
                    format!(
                        "the first chunk ({first}) must be at least the last ({last}); \
                         tss's argument is LAST or FIRST:LAST"
                    ),
                ));
            }
            Ok(Schedule::Tss {
                first_chunk: Some(first),
                last_chunk: last,
            })
        }
    }
}

fn parse_steal(input: &str, arg: Option<&str>) -> Result<StealAmount, ScheduleError> {
    match arg {
        None => Ok(StealAmount::default()),
        Some(arg) => StealAmount::parse_arg(arg).map_err(|why| ScheduleError::about(input, why)),
    }
}

fn parse_weights(input: &str, arg: &str) -> Result<Vec<f64>, ScheduleError> {
    arg.split(':')
        .map(|w| {
            let w = w.trim();
            match w.parse::<f64>() {
                Ok(x) if x.is_finite() && x > 0.0 => Ok(x),
                _ => Err(ScheduleError::about(
                    input,
                    format!(
                        "weight {w:?} is not a positive number (weights are written w0:w1:…, e.g. wf,1:2:1)"
                    ),
                )),
            }
        })
        .collect()
}

impl FromStr for Schedule {
    type Err = ScheduleError;

    fn from_str(input: &str) -> Result<Self, ScheduleError> {
        let s = input.trim();
        let (name, arg) = match s.split_once(',') {
            Some((n, a)) => {
                let a = a.trim();
                if a.is_empty() {
                    return Err(ScheduleError::about(
                        s,
                        "expected an argument after the comma",
                    ));
                }
                (n.trim(), Some(a))
            }
            None => (s, None),
        };
        if name.is_empty() {
            return Err(ScheduleError::about(
                s,
                format!("the name is empty; expected one of {}", NAMES.join(", ")),
            ));
        }
        let name = name.to_ascii_lowercase().replace('_', "-");
        Schedule::parse_named(&name, s, arg).unwrap_or_else(|| {
            Err(ScheduleError::about(
                s,
                format!(
                    "unknown schedule {name:?}; expected one of {}",
                    NAMES.join(", ")
                ),
            ))
        })
    }
}

impl fmt::Display for Schedule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())?;
        match self {
            Schedule::Static { chunk: Some(k) } => write!(f, ",{k}"),
            Schedule::Ss { chunk: k } | Schedule::StaticSteal { chunk: k } if *k != 1 => {
                write!(f, ",{k}")
            }
            Schedule::Tss {
                first_chunk: Some(first),
                last_chunk: last,
            } => write!(f, ",{first}:{last}"),
            Schedule::Gss { min_chunk: m }
            | Schedule::Tss {
                first_chunk: None,
                last_chunk: m,
            }
            | Schedule::Fac { min_chunk: m }
            | Schedule::Fac2 { min_chunk: m }
            | Schedule::Mfac { min_chunk: m }
            | Schedule::Awf { min_chunk: m }
            | Schedule::AwfB { min_chunk: m }
            | Schedule::AwfC { min_chunk: m }
            | Schedule::AwfD { min_chunk: m }
            | Schedule::AwfE { min_chunk: m }
            | Schedule::Af { min_chunk: m }
                if *m != 1 =>
            {
                write!(f, ",{m}")
            }
            Schedule::Wf { weights } if !weights.is_empty() => {
                for (i, w) in weights.iter().enumerate() {
                    f.write_str(if i == 0 { "," } else { ":" })?;
                    write!(f, "{w}")?;
                }
                Ok(())
            }
            Schedule::Rws { steal } | Schedule::Laws { steal } => match steal {
                StealAmount::Ratio(25) => Ok(()),
                StealAmount::Ratio(r) => write!(f, ",{r}"),
                StealAmount::Fac2 => f.write_str(",fac2"),
                StealAmount::Guided => f.write_str(",guided"),
            },
            _ => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(s: &str) -> Schedule {
        s.parse()
            .unwrap_or_else(|e: ScheduleError| panic!("{s:?}: {e}"))
    }

    fn err(s: &str) -> String {
        match s.parse::<Schedule>() {
            Ok(x) => panic!("{s:?} parsed as {x:?}"),
            Err(e) => e.to_string(),
        }
    }

    #[test]
    fn every_name_parses_and_round_trips() {
        for name in Schedule::names() {
            let s = p(name);
            assert_eq!(s.name(), *name);
            assert_eq!(
                s.to_string(),
                *name,
                "defaults are left out of the canonical form"
            );
            assert_eq!(p(&s.to_string()), s);
            assert_eq!(p(&name.to_uppercase()), s, "case-insensitive");
            assert_eq!(p(&format!("  {name} ")), s, "trimmed");
        }
    }

    #[test]
    fn arguments_round_trip() {
        for text in [
            "static,4",
            "ss,3",
            "gss,2",
            "tss,5",
            "fac,8",
            "fac2,2",
            "mfac,4",
            "tss,100:10",
            "tss,7:7",
            "wf,1:2:1",
            "wf,0.5:1.25",
            "awf,3",
            "awf-b,3",
            "awf-c,3",
            "awf-d,3",
            "awf-e,3",
            "af,2",
            "static-steal,16",
            "rws,15",
            "rws,fac2",
            "rws,guided",
            "laws,100",
            "laws,fac2",
        ] {
            let s = p(text);
            assert_eq!(s.to_string(), text);
            assert_eq!(p(&s.to_string()), s);
        }
    }

    #[test]
    fn steal_amounts() {
        use StealAmount::*;
        assert_eq!(Ratio(25).of(0, 4), 0);
        assert_eq!(Ratio(25).of(1, 4), 1);
        assert_eq!(Ratio(25).of(10, 4), 3);
        // Exact: 7% of 100 is 7 (0.07 · 100 in floating point is 7.000000000000001).
        assert_eq!(Ratio(7).of(100, 4), 7);
        assert_eq!(Fac2.of(7, 4), 4);
        assert_eq!(Guided.of(10, 4), 3);
        assert_eq!(Guided.of(10, 0), 10);
        for rem in 1..200 {
            for a in [Ratio(1), Ratio(25), Ratio(100), Fac2, Guided] {
                assert!((1..=rem).contains(&a.of(rem, 3)), "{a} of {rem}");
            }
        }
        assert_eq!("7%".parse::<StealAmount>().unwrap().to_string(), "7%");
        let e = "lots".parse::<StealAmount>().unwrap_err().to_string();
        assert!(
            e.starts_with("steal amount \"lots\": ") && e.contains("`guided`"),
            "{e}"
        );
    }

    #[test]
    fn values_and_aliases() {
        assert_eq!(p("static"), Schedule::Static { chunk: None });
        assert_eq!(p("static, 7"), Schedule::Static { chunk: Some(7) });
        assert_eq!(p("dynamic,3"), Schedule::Ss { chunk: 3 });
        assert_eq!(p("GUIDED"), Schedule::Gss { min_chunk: 1 });
        assert_eq!(p("awf_b"), Schedule::AwfB { min_chunk: 1 });
        assert_eq!(p("Static_Steal"), Schedule::StaticSteal { chunk: 1 });
        assert_eq!(p("wf"), Schedule::Wf { weights: vec![] });
        assert_eq!(
            p("wf, 1 : 3"),
            Schedule::Wf {
                weights: vec![1.0, 3.0]
            }
        );
        assert_eq!(
            p("rws"),
            Schedule::Rws {
                steal: StealAmount::Ratio(25)
            }
        );
        assert_eq!(
            p("LAWS,FAC2"),
            Schedule::Laws {
                steal: StealAmount::Fac2
            }
        );
        assert_eq!(
            p("rws,Guided"),
            Schedule::Rws {
                steal: StealAmount::Guided
            }
        );
        assert_eq!(p("MFAC"), Schedule::Mfac { min_chunk: 1 });
        assert_eq!(p("mfac, 8"), Schedule::Mfac { min_chunk: 8 });
        assert_eq!(
            p("tss"),
            Schedule::Tss {
                first_chunk: None,
                last_chunk: 1
            }
        );
        assert_eq!(
            p("tss, 50 : 5"),
            Schedule::Tss {
                first_chunk: Some(50),
                last_chunk: 5
            }
        );
        assert_eq!(p("tss,5").to_string(), "tss,5");
        assert_eq!(p("tss,9:1").to_string(), "tss,9:1");
        assert_eq!(p("rws,25").to_string(), "rws");
        assert_eq!(p("ss,1").to_string(), "ss");
    }

    #[test]
    fn bad_inputs_are_named() {
        assert_eq!(
            err("gss,0"),
            "schedule \"gss,0\": the minimum chunk must be at least 1"
        );
        assert_eq!(
            err("ss,0"),
            "schedule \"ss,0\": the chunk must be at least 1"
        );
        assert!(err("static,0").contains("at least 1"));
        // The expert chunk parameter: one line naming the input and what was wrong.
        assert_eq!(
            err("mfac,0"),
            "schedule \"mfac,0\": the minimum chunk must be at least 1"
        );
        assert_eq!(
            err("static,-1"),
            "schedule \"static,-1\": the chunk must be a whole number of at least 1, not \"-1\""
        );
        assert_eq!(
            err("gss,abc"),
            "schedule \"gss,abc\": the minimum chunk must be a whole number of at least 1, not \"abc\""
        );
        assert_eq!(
            err("tss,2:8"),
            "schedule \"tss,2:8\": the first chunk (2) must be at least the last (8); \
             tss's argument is LAST or FIRST:LAST"
        );
        assert!(err("tss,0:1").contains("the first chunk must be at least 1"));
        assert!(err("tss,4:x").contains("the last chunk must be a whole number"));
        assert!(err("expert-sel,4").contains("`expert-sel` takes no argument"));
        assert!(err("fastest").contains("unknown schedule \"fastest\""));
        assert!(err("fastest").contains("expected one of static, ss, gss"));
        assert!(err("").contains("the name is empty"));
        assert!(err(",4").contains("the name is empty"));
        assert!(err("ss,three").contains("not \"three\""));
        assert!(err("ss,-1").contains("whole number"));
        assert!(err("ss,2.5").contains("whole number"));
        assert!(err("ss,").contains("expected an argument after the comma"));
        assert!(err("auto,4").contains("`auto` takes no argument"));
        assert!(err("runtime,1").contains("takes no argument"));
        assert!(err("binary-sel,2").contains("takes no argument"));
        assert!(err("rws,0").contains("1..=100"));
        assert!(err("rws,101").contains("1..=100"));
        assert!(err("laws,lots").contains("or `fac2`"));
        assert!(err("wf,1:0").contains("weight \"0\""));
        assert!(err("wf,1:-2").contains("not a positive number"));
        assert!(err("wf,1::2").contains("weight \"\""));
        assert!(err("wf,inf").contains("not a positive number"));
        assert!(err("wf,NaN").contains("not a positive number"));
    }

    #[test]
    fn env_value() {
        assert_eq!(Schedule::parse_env_value(""), Ok(None));
        assert_eq!(Schedule::parse_env_value("  "), Ok(None));
        assert_eq!(
            Schedule::parse_env_value("fac2"),
            Ok(Some(Schedule::Fac2 { min_chunk: 1 }))
        );
        let e = Schedule::parse_env_value("gss,0").unwrap_err().0;
        assert!(e.starts_with("MAGPIE_SCHEDULE: schedule \"gss,0\""), "{e}");
        let e = Schedule::parse_env_value("runtime").unwrap_err().0;
        assert!(e.contains("cannot be resolved"), "{e}");
    }
}
