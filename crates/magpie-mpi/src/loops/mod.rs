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

mod data;
mod driver;
mod protocol;
mod share;
mod steal;

use std::collections::VecDeque;
use std::fmt;
use std::ops::Range;
use std::str::FromStr;
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

pub use magpie::loops::StealAmount;
use magpie::loops::{central_rule, LoopHistory, LoopShape};
use magpie::loops::{Loop, Schedule};
use magpie::ThreadPool;
use mpi::traits::*;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

pub use data::{DataDescription, DataSerializer, FromBytes, ToBytes};
use driver::{drive, Cur, Piece, PieceItems, Shared, Work};
pub use protocol::decode_each_message;
use protocol::{Comm, TAG_GATHER, TAG_STATS};
use share::share_loop;
use steal::steal_loop;

use crate::codec::{decode_from, encode};
use crate::{Cluster, Error};

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
            type Err = Error;
            fn from_str(s: &str) -> Result<Self, Error> {
                match s.trim().to_ascii_lowercase().as_str() {
                    $($name => Ok($v),)+
                    other => Err(Error::unknown($what, other, &[$($name),+])),
                }
            }
        }
    };
}

named!(Mode, "mode", "share" => Mode::Share, "steal" => Mode::Steal);
named!(Victims, "victim choice", "coordinator" => Victims::Coordinator, "random" => Victims::Random);

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
/// [`StealAmount::of`] with the ranks as the participants (`⌈remaining · ratio⌉`, `⌈remaining
/// / 2⌉` or `⌈remaining / ranks⌉`, at least 1 and at most `remaining`).
///
/// ```
/// use magpie_mpi::loops::{steal_amount, StealAmount};
/// assert_eq!(steal_amount(StealAmount::Ratio(25), 100, 4), 25);
/// assert_eq!(steal_amount(StealAmount::Guided, 100, 3), 34);
/// assert_eq!(steal_amount(StealAmount::Fac2, 100, 3), 50);
/// assert_eq!(steal_amount(StealAmount::Ratio(25), 1, 4), 0);
/// ```
pub fn steal_amount(amount: StealAmount, remaining: usize, ranks: usize) -> usize {
    if remaining < MIN_STEALABLE {
        return 0;
    }
    amount.of(remaining, ranks)
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
pub fn check_share_schedule(schedule: &Schedule) -> Result<Schedule, Error> {
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
    Err(Error::ShareSchedule {
        schedule: schedule.to_string(),
        why,
    })
}

pub(super) fn shape(n: usize, p: usize) -> LoopShape {
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
    pub fn new(options: Options) -> Result<DistributedLoop, Error> {
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
            trace: cluster.lock_recorder().take(),
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
        *cluster.lock_recorder() = comm.trace.take();
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
        assert_eq!(steal_amount(Fac2, 7, 4), 4);
        for rem in 0..300 {
            for a in [Ratio(1), Ratio(25), Ratio(100), Guided, Fac2] {
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
        let text = |e: Error| e.to_string();
        assert!(text("push".parse::<Mode>().unwrap_err()).contains("share, steal"));
        assert_eq!("random".parse::<Victims>(), Ok(Victims::Random));
        let e = text("nearest".parse::<Victims>().unwrap_err());
        assert!(e.contains("coordinator, random"));
        assert_eq!("100%".parse::<StealAmount>(), Ok(StealAmount::Ratio(100)));
        assert_eq!("15".parse::<StealAmount>(), Ok(StealAmount::Ratio(15)));
        assert_eq!("fac2".parse::<StealAmount>(), Ok(StealAmount::Fac2));
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
            assert!(e.to_string().contains("cannot coordinate"), "{e}");
        }
        assert!(check_share_schedule(&"rws".parse().unwrap())
            .unwrap_err()
            .to_string()
            .contains("--mode steal"));
    }
}
