//! Distributed loops over MPI: LB4MPI (work sharing on replicated data) and LB4MPI-WS (work
//! stealing on distributed data), after Wetten, *Dynamic Scheduling in HPC using a
//! Distributed Data Approach* (Basel, 2022), chapters 6–7.
//!
//! A loop of `n` iterations `0..n` runs over every rank of the job (a collective call: every
//! rank calls [`DistributedLoop::run`] with the same `n`, options and body). Iteration `i`
//! computes `body(i, &data_i) -> R`; its result ends up with the iteration's *owner*.
//!
//! # Modes
//!
//! - [`Mode::Share`] (LB4MPI): every rank holds all the data (`data.len() == n`). Rank 0 is the
//!   coordinator *and* computes: ranks ask it for chunks, which it sizes by a central schedule
//!   of [`magpie::loops`] (`static`, `ss`, `gss`, `tss`, `fac`, `fac2`, `wf`, `awf`, `awf-b…e`,
//!   `af`) through [`magpie::loops::central_rule`], with the *ranks* as the
//!   participants (`P` = ranks; a chunk's timing is reported back, so the adaptive rules learn,
//!   and what they learned carries over to the next time step). `static` deals each rank its
//!   even block (`static,k`: chunks of `k` round-robin). Stealing schedules (`static-steal`,
//!   `rws`, `laws`) and the self-choosing ones (`auto`, the selectors) are refused by
//!   [`DistributedLoop::new`]: they are not central-queue rules (use [`Mode::Steal`]). A rank
//!   asks for its next chunk as soon as it starts the current one (one chunk of prefetch), runs
//!   each chunk on its own pool, and sends the chunk's results to rank 0, the owner of every
//!   iteration in this mode.
//! - [`Mode::Steal`] (LB4MPI-WS): rank `r` owns the contiguous block [`block_of`]`(n, ranks, r)`
//!   and holds *only* its block's data (`data.len()` = the block's length). It runs its block
//!   on its pool through a [`Loop`] with the local schedule. A rank that runs dry steals a share
//!   ([`StealAmount`]) of another rank's remaining iterations *together with their data*
//!   (described by a [`DataDescription`]); the results of stolen iterations go back to their
//!   owner, so that every rank ends the step with its block's results complete.
//!
//! # Decisions on what the thesis leaves open
//!
//! - **The shrinkable range.** A rank's unclaimed iterations are a `[lo, hi)` range under a
//!   mutex. The rank's driver claims *batches* from the lower end — an eighth of what is left,
//!   at least [`MIN_BATCH_PER_WORKER`] per worker ([`batch_size`]) — and runs each batch with
//!   the local [`Loop`] (so the local schedule, adaptive ones included, divides it among the
//!   workers). The main thread serves thieves by cutting `hi`: **the upper end is stolen**,
//!   the victim keeps working from the lower end, and claimed iterations are never stolen.
//! - **When busy victims poll.** The main thread (the only MPI thread, `MPI_THREAD_FUNNELED`)
//!   polls for messages continuously while the pool's workers compute (sleeping 50–200 µs
//!   when nothing arrived), so a busy victim answers within a fraction of a millisecond, never
//!   only after its batch.
//! - **Result return.** When a batch of foreign iterations is done, the main thread sends its
//!   results to the iterations' owner (one message per batch). The owner records each result
//!   once: a result arriving twice, or a step ending with one missing, is a bug and panics
//!   (which ends the job, see [`crate::Cluster::abort_on_panic`]).
//! - **Former thieves may be victims.** Stolen work can be stolen again (its results still go
//!   to the original owner): the thesis' rule "never steal from a former thief" can leave a
//!   thief with a large stolen range that nobody may relieve. With `coordinator` victims, a
//!   rank is eligible from the start, loses eligibility when it asks for work or refuses a
//!   relayed request, and regains it when the coordinator learns it received work. The
//!   coordinator (rank 0) computes too and is a victim like the others.
//! - **The coordinator as a serialization point.** Only steal requests and their one-line
//!   answers go through rank 0; the iterations and their data go from victim to thief
//!   directly, and results from thief to owner directly. `random` victims avoid rank 0
//!   altogether except for termination (three one-word messages per rank per step).
//! - **Termination, never timeouts.** `coordinator`: rank 0 broadcasts END when every rank
//!   has asked for work and no relayed request is pending (the thesis' "no victim left":
//!   every rank is dry). `random`: each owner tells rank 0 when its block's results are
//!   complete; rank 0 broadcasts END when every block is. Then every rank waits for its own
//!   results and its own pending request, reports to rank 0, and rank 0 releases everybody,
//!   so that no message of a step is still in flight when the next step starts.
//! - **Deadlock-free sends.** A message is sent non-blocking and, until the send completes,
//!   the main thread keeps receiving (into an inbox processed afterwards): two ranks sending
//!   large messages to each other cannot block each other.
//!
//! # Example
//!
//! ```no_run
//! use magpie_mpi::loops::{block_of, DataDescription, DistributedLoop, Options};
//! let cluster = magpie_mpi::Cluster::init().unwrap();
//! let pool = magpie::ThreadPoolBuilder::new().num_workers(2).build().unwrap();
//! let n = 100_000;
//! let block = block_of(n, cluster.size() as usize, cluster.rank() as usize);
//! // This rank's data only: the cost of each of its iterations.
//! let costs: Vec<u64> = block.clone().map(|i| (i % 100) as u64).collect();
//! let mut lp = DistributedLoop::new(Options::default()).unwrap();
//! for _step in 0..3 {
//!     let out = lp.run(&cluster, &pool, n, &costs, &DataDescription::OneToOne, |i, &c| {
//!         (0..c).fold(i as u64, |x, k| x.rotate_left(7) ^ k) // the iteration's work
//!     });
//!     assert_eq!(out.results.len(), block.len()); // this rank's block, complete
//!     if let Some(ranks) = out.ranks {
//!         // Rank 0: every rank's statistics of the step.
//!         let stolen: u64 = ranks.iter().map(|r| r.iterations_received).sum();
//!         println!("{stolen} iterations stolen");
//!     }
//! }
//! ```

use std::collections::VecDeque;
use std::fmt;
use std::ops::Range;
use std::str::FromStr;
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use magpie::loops::{central_rule, ChunkRule, Loop, LoopHistory, LoopShape, Schedule};
use magpie::policy::XorShift64Star;
use magpie::ThreadPool;
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

use crate::codec::{decode, decode_from, encode};
use crate::Cluster;

// Tags, distinct from the search's.
const TAG_REQUEST: i32 = 20;
const TAG_CHUNK: i32 = 21;
const TAG_NO_MORE: i32 = 22;
const TAG_RESULT: i32 = 23;
const TAG_RELAY: i32 = 24;
const TAG_WORK: i32 = 25;
const TAG_NO_WORK: i32 = 26;
const TAG_REJECT: i32 = 27;
const TAG_GRANTED: i32 = 28;
const TAG_COMPLETE: i32 = 29;
const TAG_END: i32 = 30;
const TAG_DRAINED: i32 = 31;
const TAG_FINAL: i32 = 32;
const TAG_STATS: i32 = 33;
const TAG_GATHER: i32 = 34;

/// A rank claims at least this many iterations per worker in one batch (see [`batch_size`]).
pub const MIN_BATCH_PER_WORKER: usize = 16;
/// A rank claims `1 / BATCH_DIVISOR` of its remaining iterations per batch.
pub const BATCH_DIVISOR: usize = 8;
/// A victim needs at least this many unclaimed iterations to give some away.
pub const MIN_STEALABLE: usize = 2;

/// Work sharing on replicated data (LB4MPI) or work stealing on distributed data (LB4MPI-WS).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Mode {
    /// LB4MPI: a coordinator hands out chunks by a central schedule; data replicated.
    Share,
    /// LB4MPI-WS: each rank owns a block and its data; idle ranks steal.
    #[default]
    Steal,
}

/// How many iterations a thief takes from its victim's unclaimed ones ([`steal_amount`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StealAmount {
    /// This percentage (1..=100) of the victim's remaining iterations (at least one).
    Ratio(u8),
    /// `⌈remaining / ranks⌉` (`rws_guided`).
    Guided,
}

impl Default for StealAmount {
    fn default() -> Self {
        StealAmount::Ratio(25)
    }
}

/// How a thief finds its victim.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Victims {
    /// The thesis: the request goes to rank 0, which relays it to a random eligible victim;
    /// the victim sends work to the thief directly or refuses to the coordinator.
    #[default]
    Coordinator,
    /// Decentralised: the thief asks a uniformly random other rank directly.
    Random,
}

macro_rules! named {
    ($t:ty, $what:literal, $($name:literal => $v:expr),+) => {
        impl fmt::Display for $t {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                $(if *self == $v { return f.pad($name); })+
                unreachable!()
            }
        }
        impl FromStr for $t {
            type Err = String;
            fn from_str(s: &str) -> Result<Self, String> {
                match s.trim().to_ascii_lowercase().as_str() {
                    $($name => Ok($v),)+
                    other => Err(format!(
                        concat!("unknown ", $what, " {:?}; expected one of {}"),
                        other,
                        [$($name),+].join(", ")
                    )),
                }
            }
        }
    };
}

named!(Mode, "mode", "share" => Mode::Share, "steal" => Mode::Steal);
named!(Victims, "victim choice", "coordinator" => Victims::Coordinator, "random" => Victims::Random);

impl fmt::Display for StealAmount {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            StealAmount::Ratio(r) => write!(f, "{r}%"),
            StealAmount::Guided => f.write_str("guided"),
        }
    }
}

impl FromStr for StealAmount {
    type Err = String;

    /// `N%` or `N` (a percentage, 1..=100) or `guided`.
    ///
    /// ```
    /// use magpie_mpi::loops::StealAmount;
    /// assert_eq!("25%".parse::<StealAmount>(), Ok(StealAmount::Ratio(25)));
    /// assert_eq!("guided".parse::<StealAmount>(), Ok(StealAmount::Guided));
    /// assert!("0%".parse::<StealAmount>().unwrap_err().contains("1..=100"));
    /// ```
    fn from_str(s: &str) -> Result<Self, String> {
        let t = s.trim();
        if t.eq_ignore_ascii_case("guided") {
            return Ok(StealAmount::Guided);
        }
        let digits = t.strip_suffix('%').unwrap_or(t).trim();
        match digits.parse::<u64>() {
            Ok(r) if (1..=100).contains(&r) => Ok(StealAmount::Ratio(r as u8)),
            Ok(r) => Err(format!(
                "steal amount {t:?}: the ratio must be a percentage in 1..=100, not {r}"
            )),
            Err(_) => Err(format!(
                "steal amount {t:?}: expected a percentage in 1..=100 (e.g. 25%) or `guided`"
            )),
        }
    }
}

/// The options of a distributed loop.
#[derive(Debug, Clone, PartialEq)]
pub struct Options {
    /// Work sharing or work stealing.
    pub mode: Mode,
    /// Share: the coordinator's (central) schedule. Steal: the local schedule within a rank.
    pub schedule: Schedule,
    /// Steal: how much a thief takes.
    pub steal: StealAmount,
    /// Steal: how a thief finds its victim.
    pub victims: Victims,
    /// Steal: the seed of the random victim choices (mixed with the rank).
    pub seed: u64,
}

impl Default for Options {
    /// Steal mode, local schedule `auto`, 25%, coordinator victims.
    fn default() -> Self {
        Options {
            mode: Mode::Steal,
            schedule: Schedule::Auto,
            steal: StealAmount::default(),
            victims: Victims::default(),
            seed: 0x5eed,
        }
    }
}

/// A user serialization of the data of a range of iterations (see [`DataDescription`]).
pub trait DataSerializer<T>: Sync {
    /// The bytes that carry the data of the iterations `range` (`items` are their elements,
    /// `items[j]` for iteration `range.start + j`).
    fn serialize(&self, range: Range<usize>, items: &[T]) -> Vec<u8>;
    /// The elements of the iterations `range` rebuilt from [`DataSerializer::serialize`]'s
    /// bytes (exactly `range.len()` of them).
    fn deserialize(&self, range: Range<usize>, bytes: &[u8]) -> Result<Vec<T>, String>;
}

/// [`DataDescription::Range`]'s encoder: the elements of an iteration range to bytes.
pub type ToBytes<T> = fn(Range<usize>, &[T]) -> Vec<u8>;
/// [`DataDescription::Range`]'s decoder: the elements of an iteration range from bytes.
pub type FromBytes<T> = fn(Range<usize>, &[u8]) -> Result<Vec<T>, String>;

/// How the data of stolen iterations travels with them (the thesis' `DLS_DataSetup`). In
/// memory a rank always holds one element `T` per iteration it may run; the description
/// decides what goes over the wire:
///
/// - [`DataDescription::OneToOne`] (default): one element per iteration, serialized by serde
///   (postcard, [`crate::codec`]).
/// - [`DataDescription::Range`]: two plain functions map an iteration range and its elements
///   to bytes and back: for data whose wire form is a contiguous block (e.g. packed
///   little-endian numbers, or an N-to-one mapping that sends a range's worth of something
///   else and rebuilds the elements from it).
/// - [`DataDescription::Serialize`]: a [`DataSerializer`] object, for a serialization with
///   state (a codec, a compression level, a reference to other data).
pub enum DataDescription<'a, T> {
    /// One element per iteration, by serde.
    OneToOne,
    /// A range's elements to bytes and back, by two functions.
    Range {
        /// `(range, elements) → bytes`.
        to_bytes: ToBytes<T>,
        /// `(range, bytes) → elements` (exactly `range.len()`).
        from_bytes: FromBytes<T>,
    },
    /// A user serializer.
    Serialize(&'a dyn DataSerializer<T>),
}

impl<T: Serialize + DeserializeOwned> DataDescription<'_, T> {
    /// The name used in reports: `one-to-one`, `range` or `serialize`.
    pub fn name(&self) -> &'static str {
        match self {
            DataDescription::OneToOne => "one-to-one",
            DataDescription::Range { .. } => "range",
            DataDescription::Serialize(_) => "serialize",
        }
    }

    /// The bytes of the data of `range` (`items` its elements).
    pub fn encode(&self, range: Range<usize>, items: &[T]) -> Vec<u8> {
        match self {
            DataDescription::OneToOne => encode(&items),
            DataDescription::Range { to_bytes, .. } => to_bytes(range, items),
            DataDescription::Serialize(s) => s.serialize(range, items),
        }
    }

    /// The elements of `range` from [`DataDescription::encode`]'s bytes; checks the count.
    pub fn decode(&self, range: Range<usize>, bytes: &[u8]) -> Result<Vec<T>, String> {
        let n = range.len();
        let items = match self {
            DataDescription::OneToOne => {
                decode::<Vec<T>>(bytes, "iteration data").map_err(|e| e.to_string())?
            }
            DataDescription::Range { from_bytes, .. } => from_bytes(range, bytes)?,
            DataDescription::Serialize(s) => s.deserialize(range, bytes)?,
        };
        if items.len() != n {
            return Err(format!("{} elements for {n} iterations", items.len()));
        }
        Ok(items)
    }
}

/// What one rank did in one or more steps of a distributed loop.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct RankLoopStats {
    /// The rank.
    pub rank: i32,
    /// Its workers.
    pub workers: usize,
    /// Iterations its workers ran (the body's calls).
    pub iterations: u64,
    /// Chunks (share) or batches (steal) it ran.
    pub chunks: u64,
    /// Steal requests it sent (share: chunk requests).
    pub requests_sent: u64,
    /// Steal requests it received as a victim (coordinator: relayed to it).
    pub requests_received: u64,
    /// Its requests answered with work (share: the chunks it was given).
    pub steals_ok: u64,
    /// Its requests answered with no work (coordinator victims: the END that answers a
    /// parked request; share: the final "no more chunks").
    pub steals_failed: u64,
    /// Iterations it gave to thieves (share: 0).
    pub iterations_sent: u64,
    /// Iterations it received from victims (share: the iterations of its chunks).
    pub iterations_received: u64,
    /// Bytes of stolen work (iterations and their data) and of results it sent.
    pub bytes_sent: u64,
    /// Bytes of stolen work and of results it received.
    pub bytes_received: u64,
    /// Time the rank was running iterations (a batch or chunk on its pool).
    pub busy: Duration,
    /// Time the rank had no iteration to run before the step ended.
    pub idle: Duration,
    /// When the rank finished its last iteration, from the start of the step (summed over
    /// steps).
    pub finish: Duration,
}

impl RankLoopStats {
    /// Adds `other`'s counts and times (for totals over time steps).
    pub fn add(&mut self, other: &RankLoopStats) {
        self.iterations += other.iterations;
        self.chunks += other.chunks;
        self.requests_sent += other.requests_sent;
        self.requests_received += other.requests_received;
        self.steals_ok += other.steals_ok;
        self.steals_failed += other.steals_failed;
        self.iterations_sent += other.iterations_sent;
        self.iterations_received += other.iterations_received;
        self.bytes_sent += other.bytes_sent;
        self.bytes_received += other.bytes_received;
        self.busy += other.busy;
        self.idle += other.idle;
        self.finish += other.finish;
    }
}

/// What one step of a distributed loop gave this rank.
#[derive(Debug, Clone)]
pub struct StepResult<R> {
    /// The iterations this rank owns: steal mode, its block; share mode, `0..n` on rank 0 and
    /// empty elsewhere.
    pub block: Range<usize>,
    /// The results of `block`, in order (`results[j]` of iteration `block.start + j`).
    pub results: Vec<R>,
    /// Rank 0: every rank's statistics of this step, by rank. `None` elsewhere.
    pub ranks: Option<Vec<RankLoopStats>>,
    /// The step's wall-clock time on this rank (to the end of the step's synchronisation).
    pub time: Duration,
}

/// The block of iterations rank `rank` of `ranks` owns in steal mode: `0..n` split into
/// `ranks` contiguous blocks whose lengths differ by at most one (the first `n % ranks`
/// blocks one longer).
///
/// ```
/// use magpie_mpi::loops::block_of;
/// assert_eq!(block_of(10, 3, 0), 0..4);
/// assert_eq!(block_of(10, 3, 1), 4..7);
/// assert_eq!(block_of(10, 3, 2), 7..10);
/// ```
pub fn block_of(n: usize, ranks: usize, rank: usize) -> Range<usize> {
    let ranks = ranks.max(1);
    let (q, r) = (n / ranks, n % ranks);
    let start = rank * q + rank.min(r);
    start..start + q + usize::from(rank < r)
}

/// How many iterations a victim with `remaining` unclaimed iterations gives a thief among
/// `ranks` ranks: 0 (a refusal) when fewer than [`MIN_STEALABLE`] are left; otherwise
/// `⌈remaining · ratio⌉` or `⌈remaining / ranks⌉`, at least 1 and at most `remaining`.
///
/// ```
/// use magpie_mpi::loops::{steal_amount, StealAmount};
/// assert_eq!(steal_amount(StealAmount::Ratio(25), 100, 4), 25);
/// assert_eq!(steal_amount(StealAmount::Guided, 100, 3), 34);
/// assert_eq!(steal_amount(StealAmount::Ratio(25), 1, 4), 0);
/// ```
pub fn steal_amount(amount: StealAmount, remaining: usize, ranks: usize) -> usize {
    if remaining < MIN_STEALABLE {
        return 0;
    }
    let k = match amount {
        StealAmount::Ratio(r) => (remaining * usize::from(r.clamp(1, 100))).div_ceil(100),
        StealAmount::Guided => remaining.div_ceil(ranks.max(1)),
    };
    k.clamp(1, remaining)
}

/// How many iterations a rank's driver claims for its next batch when `remaining` are
/// unclaimed: `⌈remaining / BATCH_DIVISOR⌉`, at least `MIN_BATCH_PER_WORKER × workers`, at
/// most `remaining`. The rest stays stealable while the batch runs.
///
/// ```
/// use magpie_mpi::loops::batch_size;
/// assert_eq!(batch_size(10_000, 2), 1250);
/// assert_eq!(batch_size(100, 2), 32);
/// assert_eq!(batch_size(5, 2), 5);
/// ```
pub fn batch_size(remaining: usize, workers: usize) -> usize {
    remaining
        .div_ceil(BATCH_DIVISOR)
        .max(MIN_BATCH_PER_WORKER * workers.max(1))
        .min(remaining)
}

/// Whether `schedule` can drive the coordinator of [`Mode::Share`]; the error says why not.
pub fn check_share_schedule(schedule: &Schedule) -> Result<Schedule, String> {
    let s = schedule.resolve();
    if matches!(s, Schedule::Static { .. })
        || central_rule(&s, shape(1, 1), &LoopHistory::default()).is_some()
    {
        return Ok(s);
    }
    let why = match schedule {
        Schedule::StaticSteal { .. } | Schedule::Rws { .. } | Schedule::Laws { .. } => {
            "a stealing schedule (use --mode steal, where ranks steal)"
        }
        _ => "not a central-queue schedule (it chooses per call)",
    };
    Err(format!(
        "schedule {schedule} cannot coordinate a shared loop: {why}; expected one of static, ss, \
         gss, tss, fac, fac2, wf, awf, awf-b, awf-c, awf-d, awf-e, af"
    ))
}

fn shape(n: usize, p: usize) -> LoopShape {
    LoopShape {
        iterations: n as u64,
        workers: p.max(1),
    }
}

/// A distributed loop with an identity, run once per time step: keeps the local [`Loop`]
/// (its schedule's history) and, on rank 0 in share mode, what the coordinator's adaptive
/// schedule learned.
#[derive(Debug)]
pub struct DistributedLoop {
    options: Options,
    local: Loop,
    history: LoopHistory,
    steps: u64,
}

impl DistributedLoop {
    /// A loop with `options`. Share mode: the schedule must be a central one
    /// ([`check_share_schedule`]); the local schedule within a rank is then `auto`.
    pub fn new(options: Options) -> Result<DistributedLoop, String> {
        let local = match options.mode {
            Mode::Share => {
                check_share_schedule(&options.schedule)?;
                Loop::new(Schedule::Auto)
            }
            Mode::Steal => Loop::new(options.schedule.clone()),
        };
        Ok(DistributedLoop {
            options,
            local,
            history: LoopHistory::default(),
            steps: 0,
        })
    }

    /// The options.
    pub fn options(&self) -> &Options {
        &self.options
    }

    /// How many steps ran.
    pub fn steps(&self) -> u64 {
        self.steps
    }

    /// One time step: runs `body(i, &data_i)` for every `i` in `0..n` exactly once somewhere,
    /// on `pool`'s workers of every rank, and returns this rank's results (see
    /// [`StepResult`]). A collective call; every rank leaves it after every rank finished
    /// (the ranks synchronise between steps).
    ///
    /// `data`: share mode, all `n` elements (replicated); steal mode, this rank's block
    /// ([`block_of`]) only. `description` says how stolen data travels (steal mode).
    ///
    /// # Panics
    ///
    /// If `data` has the wrong length, or a result goes missing or arrives twice (a bug); a
    /// panic under [`Cluster::abort_on_panic`] ends the whole job.
    pub fn run<T, R, F>(
        &mut self,
        cluster: &Cluster,
        pool: &ThreadPool,
        n: usize,
        data: &[T],
        description: &DataDescription<'_, T>,
        body: F,
    ) -> StepResult<R>
    where
        T: Serialize + DeserializeOwned + Send + Sync,
        R: Serialize + DeserializeOwned + Send,
        F: Fn(usize, &T) -> R + Sync,
    {
        let world = cluster.world();
        // Every rank starts the step together (after, e.g., rank 0 checked the last one).
        crate::barrier(&world);
        let start = Instant::now();
        let (rank, size) = (world.rank(), world.size());
        let block = match self.options.mode {
            Mode::Share => 0..n,
            Mode::Steal => block_of(n, size as usize, rank as usize),
        };
        assert_eq!(
            data.len(),
            block.len(),
            "rank {rank}: {} data elements for {} iterations",
            data.len(),
            block.len()
        );
        let workers = pool.num_workers().max(1);
        let shared = Shared {
            work: Mutex::new(Work::default()),
            wake: Condvar::new(),
        };
        let own = Arc::new(Piece {
            owner: rank,
            start: block.start,
            items: PieceItems::Own(data),
        });
        let mut stats = RankLoopStats {
            rank,
            workers,
            ..RankLoopStats::default()
        };
        let seed = self.options.seed ^ self.steps.wrapping_mul(0x9e37_79b9);
        let mut comm = Comm {
            world,
            rank,
            size,
            inbox: VecDeque::new(),
        };
        let (owned, driven) = std::thread::scope(|threads| {
            let driver = threads.spawn(|| {
                pool.install(|| {
                    drive(
                        &shared,
                        &self.local,
                        &body,
                        workers,
                        self.options.mode == Mode::Steal,
                        start,
                    )
                })
            });
            let owned = match self.options.mode {
                Mode::Steal => {
                    shared.lock().current = Some(Cur {
                        piece: own.clone(),
                        lo: block.start,
                        hi: block.end,
                    });
                    shared.wake.notify_all();
                    steal_loop(
                        &mut comm,
                        &shared,
                        &own,
                        description,
                        &self.options,
                        seed,
                        &mut stats,
                    )
                }
                Mode::Share => share_loop(
                    &mut comm,
                    &shared,
                    &own,
                    &self.options.schedule,
                    &mut self.history,
                    &mut stats,
                ),
            };
            shared.lock().done = true;
            shared.wake.notify_all();
            let driven = driver
                .join()
                .unwrap_or_else(|e| std::panic::resume_unwind(e));
            (owned, driven)
        });
        stats.iterations = driven.iterations;
        stats.chunks = driven.batches;
        stats.busy = driven.busy;
        stats.idle = driven.idle;
        stats.finish = driven.finish;
        self.steps += 1;
        // Statistics to rank 0, then every rank leaves together.
        let world = &comm.world;
        let ranks = if rank == 0 {
            let mut all = vec![stats];
            for _ in 1..size {
                let (bytes, status) = world
                    .any_process()
                    .matched_probe_with_tag(TAG_STATS)
                    .matched_receive_vec::<u8>();
                all.push(decode_from(&bytes, "statistics", status.source_rank()));
            }
            all.sort_by_key(|s| s.rank);
            Some(all)
        } else {
            world
                .process_at_rank(0)
                .send_with_tag(&encode(&stats)[..], TAG_STATS);
            None
        };
        world.barrier();
        let (block, results) = match (self.options.mode, rank) {
            (Mode::Share, 0) | (Mode::Steal, _) => (block, owned.into_results()),
            (Mode::Share, _) => (0..0, Vec::new()),
        };
        StepResult {
            block,
            results,
            ranks,
            time: start.elapsed(),
        }
    }
}

/// Rank 0 collects every rank's `results` of its `block` into one vector of `0..n` (blocks
/// must tile `0..n`, as [`block_of`]'s do); `None` on the other ranks. A collective call.
pub fn gather<R: Serialize + DeserializeOwned>(
    cluster: &Cluster,
    block: Range<usize>,
    results: Vec<R>,
) -> Option<Vec<R>> {
    let world = cluster.world();
    let (rank, size) = (world.rank(), world.size());
    if rank != 0 {
        world
            .process_at_rank(0)
            .send_with_tag(&encode(&(block.start as u64, results))[..], TAG_GATHER);
        return None;
    }
    let mut parts = vec![(block.start as u64, results)];
    for _ in 1..size {
        let (bytes, status) = crate::receive_tagged(&world, TAG_GATHER);
        parts.push(decode_from(
            &bytes,
            "gathered results",
            status.source_rank(),
        ));
    }
    parts.sort_by_key(|p| p.0);
    let mut all = Vec::new();
    for (start, rs) in parts {
        assert_eq!(start as usize, all.len(), "the blocks tile the range");
        all.extend(rs);
    }
    Some(all)
}

/// A contiguous run of iterations and their data: `items[j]` of iteration `start + j`.
struct Piece<'d, T> {
    owner: i32,
    start: usize,
    items: PieceItems<'d, T>,
}

/// A piece's elements: borrowed (the rank's own block) or received with stolen iterations.
enum PieceItems<'d, T> {
    Own(&'d [T]),
    Stolen(Vec<T>),
}

impl<T> std::ops::Deref for PieceItems<'_, T> {
    type Target = [T];
    fn deref(&self) -> &[T] {
        match self {
            PieceItems::Own(s) => s,
            PieceItems::Stolen(v) => v,
        }
    }
}

/// A piece with its unclaimed iterations `[lo, hi)`.
struct Cur<'d, T> {
    piece: Arc<Piece<'d, T>>,
    lo: usize,
    hi: usize,
}

/// A finished batch: its owner, its first iteration, its results, its time in ns.
type Done<R> = (i32, usize, Vec<R>, u64);

/// What the driver and the main thread share.
struct Work<'d, T, R> {
    current: Option<Cur<'d, T>>,
    queue: VecDeque<Cur<'d, T>>,
    running: bool,
    finished: Vec<Done<R>>,
    done: bool,
}

impl<T, R> Default for Work<'_, T, R> {
    fn default() -> Self {
        Work {
            current: None,
            queue: VecDeque::new(),
            running: false,
            finished: Vec::new(),
            done: false,
        }
    }
}

impl<T, R> Work<'_, T, R> {
    /// No unclaimed iteration, no batch running, no batch left to report.
    fn idle(&self) -> bool {
        self.current.as_ref().is_none_or(|c| c.lo >= c.hi)
            && self.queue.iter().all(|c| c.lo >= c.hi)
            && !self.running
            && self.finished.is_empty()
    }
}

struct Shared<'d, T, R> {
    work: Mutex<Work<'d, T, R>>,
    wake: Condvar,
}

impl<'d, T, R> Shared<'d, T, R> {
    fn lock(&self) -> MutexGuard<'_, Work<'d, T, R>> {
        self.work.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Cuts a thief's share from the upper end of the unclaimed iterations (the current
    /// piece, else the last queued one): the piece and the cut range.
    fn cut(&self, amount: StealAmount, ranks: usize) -> Option<(Arc<Piece<'d, T>>, Range<usize>)> {
        let mut w = self.lock();
        let w = &mut *w;
        let c = match w.current.as_mut().filter(|c| c.lo < c.hi) {
            Some(c) => c,
            None => w.queue.iter_mut().rev().find(|c| c.lo < c.hi)?,
        };
        let k = steal_amount(amount, c.hi - c.lo, ranks);
        if k == 0 {
            return None;
        }
        c.hi -= k;
        Some((c.piece.clone(), c.hi..c.hi + k))
    }

    fn push(&self, cur: Cur<'d, T>) {
        self.lock().queue.push_back(cur);
        self.wake.notify_all();
    }

    fn take_finished(&self) -> Vec<Done<R>> {
        std::mem::take(&mut self.lock().finished)
    }
}

/// What the driver measured.
#[derive(Default)]
struct Driven {
    iterations: u64,
    batches: u64,
    busy: Duration,
    idle: Duration,
    finish: Duration,
}

/// The rank's driver (on a thread inside the pool): claims a batch (steal mode) or a whole
/// chunk (share mode) from the lower end of the current piece, runs it with the local loop,
/// reports its results; waits when there is nothing, until `done`.
fn drive<T, R, F>(
    shared: &Shared<'_, T, R>,
    lp: &Loop,
    body: &F,
    workers: usize,
    batches: bool,
    start: Instant,
) -> Driven
where
    T: Send + Sync,
    R: Send,
    F: Fn(usize, &T) -> R + Sync,
{
    let mut d = Driven::default();
    let mut idle_since = Some(Instant::now());
    loop {
        let (piece, range) = {
            let mut w = shared.lock();
            loop {
                if let Some(c) = w.current.as_mut() {
                    if c.lo < c.hi {
                        let rem = c.hi - c.lo;
                        let k = if batches {
                            batch_size(rem, workers)
                        } else {
                            rem
                        };
                        let a = c.lo;
                        c.lo += k;
                        let piece = c.piece.clone();
                        w.running = true;
                        break (piece, a..a + k);
                    }
                    w.current = None;
                }
                if let Some(next) = w.queue.pop_front() {
                    w.current = Some(next);
                    continue;
                }
                if w.done {
                    if let Some(s) = idle_since {
                        d.idle += s.elapsed();
                    }
                    return d;
                }
                w = shared
                    .wake
                    .wait_timeout(w, Duration::from_millis(1))
                    .unwrap_or_else(|e| e.into_inner())
                    .0;
            }
        };
        if let Some(s) = idle_since.take() {
            d.idle += s.elapsed();
        }
        let t = Instant::now();
        let parts: Mutex<Vec<(usize, Vec<R>)>> = Mutex::new(Vec::new());
        let items = &piece.items;
        lp.for_chunks(range.clone(), |chunk| {
            let rs: Vec<R> = chunk
                .clone()
                .map(|i| body(i, &items[i - piece.start]))
                .collect();
            parts
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .push((chunk.start, rs));
        });
        let mut parts = parts.into_inner().unwrap_or_else(|e| e.into_inner());
        parts.sort_by_key(|p| p.0);
        let results: Vec<R> = parts.into_iter().flat_map(|p| p.1).collect();
        assert_eq!(
            results.len(),
            range.len(),
            "the local loop covers its batch"
        );
        let elapsed = t.elapsed();
        d.busy += elapsed;
        d.iterations += range.len() as u64;
        d.batches += 1;
        d.finish = start.elapsed();
        let ns = u64::try_from(elapsed.as_nanos()).unwrap_or(u64::MAX);
        let mut w = shared.lock();
        w.running = false;
        w.finished.push((piece.owner, range.start, results, ns));
        let more = w.current.as_ref().is_some_and(|c| c.lo < c.hi) || !w.queue.is_empty();
        drop(w);
        if !more {
            idle_since = Some(Instant::now());
        }
    }
}

/// The results of the iterations a rank owns, each recorded exactly once.
struct Owned<R> {
    start: usize,
    slots: Vec<Option<R>>,
    filled: usize,
}

impl<R> Owned<R> {
    fn new(range: Range<usize>) -> Self {
        Owned {
            start: range.start,
            slots: range.map(|_| None).collect(),
            filled: 0,
        }
    }

    fn put(&mut self, start: usize, results: Vec<R>) {
        for (j, r) in results.into_iter().enumerate() {
            let i = start + j;
            let slot = i
                .checked_sub(self.start)
                .and_then(|k| self.slots.get_mut(k))
                .unwrap_or_else(|| {
                    panic!("iteration {i}'s result reached a rank that does not own it")
                });
            assert!(slot.is_none(), "iteration {i}'s result arrived twice");
            *slot = Some(r);
            self.filled += 1;
        }
    }

    fn complete(&self) -> bool {
        self.filled == self.slots.len()
    }

    fn into_results(self) -> Vec<R> {
        let start = self.start;
        self.slots
            .into_iter()
            .enumerate()
            .map(|(j, r)| {
                r.unwrap_or_else(|| panic!("iteration {}'s result is missing", start + j))
            })
            .collect()
    }
}

/// The main thread's side of MPI: non-blocking sends that keep receiving while they wait,
/// and messages to this rank itself through the inbox.
struct Comm {
    world: SimpleCommunicator,
    rank: i32,
    size: i32,
    inbox: VecDeque<(i32, i32, Vec<u8>)>,
}

impl Comm {
    fn send(&mut self, to: i32, tag: i32, bytes: Vec<u8>) {
        if to == self.rank {
            self.inbox.push_back((to, tag, bytes));
            return;
        }
        let world = &self.world;
        let inbox = &mut self.inbox;
        mpi::request::scope(|scope| {
            let mut req = Some(world.process_at_rank(to).immediate_send_with_tag(
                scope,
                &bytes[..],
                tag,
            ));
            // A slow or stopped (SIGSTOP) receiver: wait without a hot spin.
            crate::wait_politely(|| {
                match req.take()?.test() {
                    Ok(_) => return Some(()),
                    Err(r) => req = Some(r),
                }
                // Keep receiving: a peer blocked sending to us must not block us in turn.
                if let Some(p) = world.any_process().immediate_matched_probe() {
                    let (b, status) = p.matched_receive_vec::<u8>();
                    inbox.push_back((status.source_rank(), status.tag(), b));
                }
                None
            });
        });
    }

    fn signal(&mut self, to: i32, tag: i32) {
        self.send(to, tag, vec![0u8]);
    }

    fn recv(&mut self) -> Option<(i32, i32, Vec<u8>)> {
        if let Some(m) = self.inbox.pop_front() {
            return Some(m);
        }
        let p = self.world.any_process().immediate_matched_probe()?;
        let (b, status) = p.matched_receive_vec::<u8>();
        Some((status.source_rank(), status.tag(), b))
    }
}

/// Stolen work on the wire.
#[derive(Serialize, Deserialize)]
struct WorkMsg {
    owner: i32,
    start: u64,
    end: u64,
    data: Vec<u8>,
}

/// For fuzzing: decodes `bytes` as each message this module exchanges (results as `f64`
/// and `Vec<u8>`, data as `u64`), with [`crate::codec::check_decode`].
#[doc(hidden)]
pub fn decode_each_message(bytes: &[u8]) -> Vec<Result<(), crate::codec::DecodeError>> {
    use crate::codec::check_decode;
    vec![
        check_decode::<RankLoopStats>(bytes, "statistics"),
        check_decode::<(u64, Vec<f64>)>(bytes, "gathered results"),
        check_decode::<(u64, Vec<Vec<u8>>)>(bytes, "result"),
        check_decode::<i32>(bytes, "relay"),
        check_decode::<WorkMsg>(bytes, "work"),
        check_decode::<(u64, u64)>(bytes, "chunk"),
        check_decode::<(u64, u64, Vec<f64>)>(bytes, "result"),
        DataDescription::<u64>::OneToOne
            .decode(0..3, bytes)
            .map(drop)
            .map_err(|reason| crate::codec::DecodeError {
                what: "iteration data",
                len: bytes.len(),
                reason,
            }),
    ]
}

fn pause(progressed: bool, idle: bool) {
    if !progressed {
        std::thread::sleep(Duration::from_micros(if idle { 50 } else { 200 }));
    }
}

/// Rank 0's bookkeeping of the coordinator victim choice.
struct Coordinator {
    eligible: Vec<bool>,
    /// Per rank, its requests not yet answered with work (a request answered by GRANTED may
    /// arrive after the same rank's next request: it is then still dry).
    open: Vec<u32>,
    parked: VecDeque<i32>,
    pending: usize,
    rng: XorShift64Star,
}

impl Coordinator {
    /// Relays `thief`'s request to a random eligible victim, or parks it.
    fn relay(&mut self, comm: &mut Comm, thief: i32) {
        let candidates: Vec<i32> = (0..comm.size)
            .filter(|&r| r != thief && self.eligible[r as usize])
            .collect();
        if candidates.is_empty() {
            self.parked.push_back(thief);
            return;
        }
        let v = candidates[self.rng.below(candidates.len())];
        self.pending += 1;
        comm.send(v, TAG_RELAY, encode(&thief));
    }

    fn retry_parked(&mut self, comm: &mut Comm) {
        for t in std::mem::take(&mut self.parked) {
            self.relay(comm, t);
        }
    }

    /// Every rank asked and nothing is pending: no victim is left.
    fn over(&self, size: i32) -> bool {
        self.pending == 0 && self.parked.len() == size as usize
    }
}

/// The main thread of a rank in steal mode, until the step is over everywhere; returns the
/// rank's own results.
fn steal_loop<'d, T, R>(
    comm: &mut Comm,
    shared: &Shared<'d, T, R>,
    own: &Arc<Piece<'d, T>>,
    description: &DataDescription<'_, T>,
    options: &Options,
    seed: u64,
    stats: &mut RankLoopStats,
) -> Owned<R>
where
    T: Serialize + DeserializeOwned,
    R: Serialize + DeserializeOwned,
{
    let (rank, size) = (comm.rank, comm.size);
    let mut owned = Owned::new(own.start..own.start + own.items.len());
    let mut rng = XorShift64Star::new(seed ^ ((rank as u64 + 1) << 17));
    let mut coord = (rank == 0 && options.victims == Victims::Coordinator).then(|| Coordinator {
        eligible: vec![true; size as usize],
        open: vec![0; size as usize],
        parked: VecDeque::new(),
        pending: 0,
        rng: XorShift64Star::new(seed ^ 0xc00d),
    });
    let mut asking = false;
    let mut next_ask = Instant::now();
    let mut ended = size == 1;
    let mut complete_sent = false;
    let mut complete = 0i32;
    let mut drained_sent = false;
    let mut drained = 0i32;
    let ranks = size as usize;
    'serve: loop {
        if crate::abort_requested() {
            crate::abort_job();
        }
        let mut progressed = false;
        // Results of finished batches: ours to keep, foreign ones to their owner.
        for (owner, start, results, _) in shared.take_finished() {
            progressed = true;
            if owner == rank {
                owned.put(start, results);
            } else {
                let bytes = encode(&(start as u64, results));
                stats.bytes_sent += bytes.len() as u64;
                comm.send(owner, TAG_RESULT, bytes);
            }
        }
        if options.victims == Victims::Random && owned.complete() && !complete_sent {
            complete_sent = true;
            comm.signal(0, TAG_COMPLETE);
        }
        while let Some((from, tag, bytes)) = comm.recv() {
            progressed = true;
            match tag {
                TAG_REQUEST if options.victims == Victims::Random => {
                    stats.requests_received += 1;
                    match give(shared, comm, from, options.steal, ranks, description, stats) {
                        true => {}
                        false => comm.signal(from, TAG_NO_WORK),
                    }
                }
                TAG_REQUEST => {
                    // Coordinator: `from` is dry.
                    let c = coord.as_mut().expect("requests go to the coordinator");
                    c.eligible[from as usize] = false;
                    c.open[from as usize] += 1;
                    c.relay(comm, from);
                }
                TAG_RELAY => {
                    let thief: i32 = decode_from(&bytes, "relay", from);
                    stats.requests_received += 1;
                    if give(
                        shared,
                        comm,
                        thief,
                        options.steal,
                        ranks,
                        description,
                        stats,
                    ) {
                        comm.send(0, TAG_GRANTED, encode(&thief));
                    } else {
                        comm.send(0, TAG_REJECT, encode(&thief));
                    }
                }
                TAG_GRANTED | TAG_REJECT => {
                    let thief: i32 = decode_from(&bytes, "answer", from);
                    let c = coord.as_mut().expect("answers go to the coordinator");
                    c.pending -= 1;
                    if tag == TAG_GRANTED {
                        // The former thief has work again: it may be a victim (unless it
                        // has already asked again).
                        let t = thief as usize;
                        c.open[t] -= 1;
                        c.eligible[t] = c.open[t] == 0;
                        c.retry_parked(comm);
                    } else {
                        c.eligible[from as usize] = false;
                        c.relay(comm, thief);
                    }
                }
                TAG_WORK => {
                    let msg: WorkMsg = decode_from(&bytes, "work", from);
                    let range = msg.start as usize..msg.end as usize;
                    let items = description
                        .decode(range.clone(), &msg.data)
                        .unwrap_or_else(|e| {
                            panic!("stolen data of {range:?} from rank {from}: {e}")
                        });
                    stats.steals_ok += 1;
                    stats.iterations_received += range.len() as u64;
                    stats.bytes_received += bytes.len() as u64;
                    asking = false;
                    shared.push(Cur {
                        piece: Arc::new(Piece {
                            owner: msg.owner,
                            start: range.start,
                            items: PieceItems::Stolen(items),
                        }),
                        lo: range.start,
                        hi: range.end,
                    });
                }
                TAG_NO_WORK => {
                    stats.steals_failed += 1;
                    asking = false;
                    next_ask = Instant::now() + Duration::from_micros(100);
                }
                TAG_RESULT => {
                    stats.bytes_received += bytes.len() as u64;
                    let (start, results): (u64, Vec<R>) = decode_from(&bytes, "result", from);
                    owned.put(start as usize, results);
                }
                TAG_COMPLETE => {
                    complete += 1;
                    if complete == size {
                        for r in 0..size {
                            comm.signal(r, TAG_END);
                        }
                    }
                }
                TAG_END => {
                    ended = true;
                    if options.victims == Victims::Coordinator && asking {
                        // The END answers a parked request.
                        asking = false;
                        stats.steals_failed += 1;
                    }
                }
                TAG_DRAINED => {
                    drained += 1;
                    if drained == size {
                        for r in 1..size {
                            comm.signal(r, TAG_FINAL);
                        }
                        break 'serve;
                    }
                }
                TAG_FINAL => break 'serve,
                other => panic!("rank {rank}: unexpected message tag {other} from rank {from}"),
            }
        }
        if let Some(c) = coord.as_mut() {
            if !ended && c.over(size) {
                for r in 0..size {
                    comm.signal(r, TAG_END);
                }
                // Our own parked request is answered by this END too (through the inbox).
                c.parked.clear();
                progressed = true;
            }
        }
        let idle = shared.lock().idle();
        if idle && !ended && !asking && size > 1 && Instant::now() >= next_ask {
            asking = true;
            stats.requests_sent += 1;
            progressed = true;
            match options.victims {
                Victims::Coordinator => comm.signal(0, TAG_REQUEST),
                Victims::Random => {
                    let v = (rank + 1 + rng.below(ranks - 1) as i32) % size;
                    comm.signal(v, TAG_REQUEST);
                }
            }
        }
        if ended && !asking && owned.complete() && idle && !drained_sent {
            drained_sent = true;
            progressed = true;
            comm.signal(0, TAG_DRAINED);
            if size == 1 {
                break 'serve;
            }
        }
        pause(progressed, idle);
    }
    owned
}

/// A victim's answer to `thief`: cuts a share and sends it with its data; false if there
/// was nothing to give.
fn give<'d, T, R>(
    shared: &Shared<'d, T, R>,
    comm: &mut Comm,
    thief: i32,
    amount: StealAmount,
    ranks: usize,
    description: &DataDescription<'_, T>,
    stats: &mut RankLoopStats,
) -> bool
where
    T: Serialize + DeserializeOwned,
{
    let Some((piece, range)) = shared.cut(amount, ranks) else {
        return false;
    };
    let items = &piece.items[range.start - piece.start..range.end - piece.start];
    let msg = WorkMsg {
        owner: piece.owner,
        start: range.start as u64,
        end: range.end as u64,
        data: description.encode(range.clone(), items),
    };
    let bytes = encode(&msg);
    stats.iterations_sent += range.len() as u64;
    stats.bytes_sent += bytes.len() as u64;
    comm.send(thief, TAG_WORK, bytes);
    true
}

/// How the coordinator of share mode deals chunks.
enum Dealer {
    /// A central-queue rule over the shared counter `next..n`.
    Central {
        rule: Box<dyn ChunkRule>,
        next: usize,
        n: usize,
    },
    /// `static`: each rank's ranges, dealt in order.
    Blocks(Vec<VecDeque<Range<usize>>>),
}

impl Dealer {
    fn new(schedule: &Schedule, n: usize, ranks: usize, history: &LoopHistory) -> Dealer {
        match schedule {
            Schedule::Static { chunk: None } => Dealer::Blocks(
                (0..ranks)
                    .map(|r| {
                        let b = block_of(n, ranks, r);
                        (!b.is_empty()).then_some(b).into_iter().collect()
                    })
                    .collect(),
            ),
            Schedule::Static { chunk: Some(k) } => {
                let k = usize::try_from(*k).unwrap_or(usize::MAX).max(1);
                let mut per: Vec<VecDeque<Range<usize>>> = vec![VecDeque::new(); ranks];
                for (j, a) in (0..n).step_by(k).enumerate() {
                    per[j % ranks].push_back(a..(a + k).min(n));
                }
                Dealer::Blocks(per)
            }
            s => Dealer::Central {
                rule: central_rule(s, shape(n, ranks), history)
                    .expect("checked by check_share_schedule"),
                next: 0,
                n,
            },
        }
    }

    fn next(&mut self, rank: usize) -> Option<Range<usize>> {
        match self {
            Dealer::Central { rule, next, n } => {
                let remaining = *n - *next;
                if remaining == 0 {
                    return None;
                }
                let k = usize::try_from(rule.next_chunk(rank, remaining as u64))
                    .unwrap_or(remaining)
                    .clamp(1, remaining);
                let a = *next;
                *next += k;
                Some(a..a + k)
            }
            Dealer::Blocks(per) => per[rank].pop_front(),
        }
    }

    fn chunk_done(&mut self, rank: usize, iterations: usize, ns: u64) {
        if let Dealer::Central { rule, .. } = self {
            rule.chunk_done(rank, iterations as u64, ns);
        }
    }

    fn finish(&mut self, history: &mut LoopHistory) {
        if let Dealer::Central { rule, .. } = self {
            rule.finish(history);
        }
    }
}

/// The main thread of a rank in share mode; rank 0 also coordinates and collects every
/// result. Returns the results this rank collected (all of `0..n` on rank 0).
fn share_loop<'d, T, R>(
    comm: &mut Comm,
    shared: &Shared<'d, T, R>,
    all: &Arc<Piece<'d, T>>,
    schedule: &Schedule,
    history: &mut LoopHistory,
    stats: &mut RankLoopStats,
) -> Owned<R>
where
    R: Serialize + DeserializeOwned,
{
    let (rank, size) = (comm.rank, comm.size);
    let n = all.items.len();
    let mut owned = Owned::new(if rank == 0 { 0..n } else { 0..0 });
    let mut dealer = (rank == 0).then(|| {
        let s = check_share_schedule(schedule).expect("checked by DistributedLoop::new");
        Dealer::new(&s, n, size as usize, history)
    });
    let mut told = vec![false; size as usize];
    let mut asking = false;
    let mut no_more = false;
    loop {
        if crate::abort_requested() {
            crate::abort_job();
        }
        let mut progressed = false;
        for (_, start, results, ns) in shared.take_finished() {
            progressed = true;
            if rank == 0 {
                let len = results.len();
                owned.put(start, results);
                if let Some(d) = dealer.as_mut() {
                    d.chunk_done(0, len, ns);
                }
            } else {
                let bytes = encode(&(start as u64, ns, results));
                stats.bytes_sent += bytes.len() as u64;
                comm.send(0, TAG_RESULT, bytes);
            }
        }
        while let Some((from, tag, bytes)) = comm.recv() {
            progressed = true;
            match tag {
                TAG_REQUEST => {
                    let d = dealer.as_mut().expect("chunk requests go to rank 0");
                    match d.next(from as usize) {
                        Some(r) => {
                            comm.send(from, TAG_CHUNK, encode(&(r.start as u64, r.end as u64)))
                        }
                        None => {
                            told[from as usize] = true;
                            comm.signal(from, TAG_NO_MORE);
                        }
                    }
                }
                TAG_CHUNK => {
                    let (a, b): (u64, u64) = decode_from(&bytes, "chunk", from);
                    asking = false;
                    stats.steals_ok += 1;
                    stats.iterations_received += b - a;
                    shared.push(Cur {
                        piece: all.clone(),
                        lo: a as usize,
                        hi: b as usize,
                    });
                }
                TAG_NO_MORE => {
                    asking = false;
                    no_more = true;
                    stats.steals_failed += 1;
                }
                TAG_RESULT => {
                    stats.bytes_received += bytes.len() as u64;
                    let (start, ns, results): (u64, u64, Vec<R>) =
                        decode_from(&bytes, "result", from);
                    let len = results.len();
                    owned.put(start as usize, results);
                    if let Some(d) = dealer.as_mut() {
                        d.chunk_done(from as usize, len, ns);
                    }
                }
                TAG_END => return owned,
                other => panic!("rank {rank}: unexpected message tag {other} from rank {from}"),
            }
        }
        let queued = {
            let w = shared.lock();
            !w.queue.is_empty()
        };
        if !no_more && !asking && !queued {
            // Ask for the next chunk while the current one runs (one chunk of prefetch).
            asking = true;
            stats.requests_sent += 1;
            progressed = true;
            comm.signal(0, TAG_REQUEST);
        }
        if rank == 0 && owned.complete() && told.iter().all(|&t| t) {
            if let Some(d) = dealer.as_mut() {
                d.finish(history);
            }
            for r in 1..size {
                comm.signal(r, TAG_END);
            }
            return owned;
        }
        pause(progressed, shared.lock().idle());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocks_tile_the_range() {
        for n in [0, 1, 7, 10, 1000, 1001] {
            for ranks in 1..=5 {
                let mut next = 0;
                for r in 0..ranks {
                    let b = block_of(n, ranks, r);
                    assert_eq!(b.start, next, "n {n}, ranks {ranks}, rank {r}");
                    assert!(b.len() == n / ranks || b.len() == n / ranks + 1);
                    next = b.end;
                }
                assert_eq!(next, n);
            }
        }
    }

    #[test]
    fn steal_amounts() {
        use StealAmount::*;
        assert_eq!(steal_amount(Ratio(25), 0, 4), 0);
        assert_eq!(steal_amount(Ratio(25), 1, 4), 0);
        assert_eq!(steal_amount(Ratio(25), 2, 4), 1);
        assert_eq!(steal_amount(Ratio(25), 10, 4), 3);
        assert_eq!(steal_amount(Ratio(1), 10, 4), 1);
        assert_eq!(steal_amount(Ratio(100), 10, 4), 10);
        assert_eq!(steal_amount(Ratio(50), 7, 4), 4);
        assert_eq!(steal_amount(Guided, 10, 4), 3);
        assert_eq!(steal_amount(Guided, 10, 1), 10);
        assert_eq!(steal_amount(Guided, 2, 8), 1);
        for rem in 0..300 {
            for a in [Ratio(1), Ratio(25), Ratio(100), Guided] {
                let k = steal_amount(a, rem, 3);
                assert!(k <= rem);
                assert_eq!(k == 0, rem < MIN_STEALABLE);
            }
        }
    }

    #[test]
    fn batches_leave_the_rest_stealable() {
        assert_eq!(batch_size(0, 4), 0);
        assert_eq!(batch_size(1, 4), 1);
        assert_eq!(batch_size(64, 4), 64);
        assert_eq!(batch_size(800, 1), 100);
        // Draining by batches covers the range exactly.
        let mut rem = 12_345;
        let mut total = 0;
        while rem > 0 {
            let b = batch_size(rem, 2);
            assert!((1..=rem).contains(&b));
            total += b;
            rem -= b;
        }
        assert_eq!(total, 12_345);
    }

    #[test]
    fn parsing() {
        assert_eq!("share".parse::<Mode>(), Ok(Mode::Share));
        assert_eq!(" Steal ".parse::<Mode>(), Ok(Mode::Steal));
        assert!("push".parse::<Mode>().unwrap_err().contains("share, steal"));
        assert_eq!("random".parse::<Victims>(), Ok(Victims::Random));
        assert!("nearest"
            .parse::<Victims>()
            .unwrap_err()
            .contains("coordinator, random"));
        assert_eq!("100%".parse::<StealAmount>(), Ok(StealAmount::Ratio(100)));
        assert_eq!("15".parse::<StealAmount>(), Ok(StealAmount::Ratio(15)));
        assert!("101%".parse::<StealAmount>().is_err());
        assert!("0".parse::<StealAmount>().is_err());
        assert!("lots".parse::<StealAmount>().is_err());
        assert_eq!(StealAmount::Ratio(25).to_string(), "25%");
        assert_eq!(Mode::Share.to_string(), "share");
    }

    #[test]
    fn share_schedules() {
        for ok in [
            "static", "static,4", "ss", "gss", "tss", "fac", "fac2", "wf,1:2", "awf", "awf-b",
            "awf-c", "awf-d", "awf-e", "af",
        ] {
            assert!(check_share_schedule(&ok.parse().unwrap()).is_ok(), "{ok}");
        }
        for bad in ["rws", "laws", "static-steal", "auto", "expert-sel"] {
            let e = check_share_schedule(&bad.parse().unwrap()).unwrap_err();
            assert!(e.contains("cannot coordinate"), "{e}");
        }
        assert!(check_share_schedule(&"rws".parse().unwrap())
            .unwrap_err()
            .contains("--mode steal"));
    }

    #[test]
    fn dealers_cover_the_range_once() {
        for s in [
            "static", "static,7", "ss,3", "gss", "tss", "fac2", "af", "awf-c",
        ] {
            let schedule: Schedule = s.parse().unwrap();
            let mut d = Dealer::new(&schedule, 1000, 3, &LoopHistory::default());
            let mut seen = vec![0u8; 1000];
            let mut live = [true; 3];
            let mut r = 0;
            while live.iter().any(|&l| l) {
                if live[r] {
                    match d.next(r) {
                        Some(c) => {
                            for i in c.clone() {
                                seen[i] += 1;
                            }
                            d.chunk_done(r, c.len(), 1000 * c.len() as u64);
                        }
                        None => live[r] = false,
                    }
                }
                r = (r + 1) % 3;
            }
            assert!(seen.iter().all(|&x| x == 1), "{s}");
        }
    }

    #[test]
    fn owned_results_exactly_once() {
        let mut o = Owned::new(10..15);
        o.put(12, vec![2, 3]);
        assert!(!o.complete());
        o.put(10, vec![0, 1]);
        o.put(14, vec![4]);
        assert!(o.complete());
        assert_eq!(o.into_results(), [0, 1, 2, 3, 4]);
        let twice = std::panic::catch_unwind(|| {
            let mut o = Owned::new(0..2);
            o.put(0, vec![1]);
            o.put(0, vec![1]);
        });
        assert!(twice.is_err());
    }

    #[test]
    fn data_descriptions_round_trip() {
        fn to_bytes(_: Range<usize>, items: &[u64]) -> Vec<u8> {
            items.iter().flat_map(|x| x.to_le_bytes()).collect()
        }
        fn from_bytes(_: Range<usize>, b: &[u8]) -> Result<Vec<u64>, String> {
            Ok(b.chunks_exact(8)
                .map(|c| u64::from_le_bytes(c.try_into().unwrap()))
                .collect())
        }
        struct Plus(u64);
        impl DataSerializer<u64> for Plus {
            fn serialize(&self, _: Range<usize>, items: &[u64]) -> Vec<u8> {
                encode(&items.iter().map(|x| x + self.0).collect::<Vec<_>>())
            }
            fn deserialize(&self, _: Range<usize>, b: &[u8]) -> Result<Vec<u64>, String> {
                let v: Vec<u64> = decode(b, "data").map_err(|e| e.to_string())?;
                Ok(v.into_iter().map(|x| x - self.0).collect())
            }
        }
        let items = [5u64, 7, 1 << 40];
        let plus = Plus(3);
        for d in [
            DataDescription::OneToOne,
            DataDescription::Range {
                to_bytes,
                from_bytes,
            },
            DataDescription::Serialize(&plus),
        ] {
            let b = d.encode(4..7, &items);
            assert_eq!(d.decode(4..7, &b).unwrap(), items, "{}", d.name());
            assert!(d.decode(4..8, &b).is_err(), "the count is checked");
        }
    }
}
