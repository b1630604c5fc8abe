//! Distributed magpie over MPI: one process (rank) per node, each with a local magpie pool,
//! cooperating through the `mpi` crate over the system's MPI library.
//!
//! - [`search::enumerate`], [`search::optimise`] and [`search::decide`]: distributed search
//!   with YewPar's DepthBounded, Budget and StackStealing skeletons and inter-rank work
//!   stealing ([`victims`]: random, sticky, and the Performance-Driven policy of [`perf`]),
//!   termination by credit recovery ([`credit`]).
//! - [`loops`]: distributed loops, LB4MPI work sharing on replicated data and LB4MPI-WS work
//!   stealing on distributed data (stolen iterations carry their data, results return to
//!   their owner).
//! - [`trace`]: a distributed search's trace — every rank's pool and the steal requests,
//!   work and refusals of its communication thread, gathered on rank 0.
//!
//! Every rank calls the same functions with the same arguments (SPMD, as launched by
//! `mpirun -np R …`); rank 0 gets the merged result.
//!
//! # Ranks that fail, die or stop
//!
//! Measured with Open MPI 4.1.4 (`mpirun --oversubscribe`, 2 to 4 ranks on one node):
//!
//! - **A rank that fails** (bad input, a panic on any of its threads under
//!   [`Cluster::abort_on_panic`]) reports one line with [`report_error`] — on stderr, and in
//!   the file named by [`ERROR_FILE_ENV`] if set — and calls `MPI_Abort`: `mpirun` ends every
//!   rank, exit code non-zero. Open MPI adds its own lines to stderr (its `MPI_ABORT was
//!   invoked on rank R` block, sometimes an `ORTE_ERROR_LOG` line), so read magpie's report
//!   from [`ERROR_FILE_ENV`]'s file, or tolerate foreign lines.
//! - **A rank that dies** (SIGKILL, the OOM killer, a segfault) says nothing, and the other
//!   ranks cannot see it: Open MPI's default error handler is fatal and `mpirun` kills them
//!   about a second later. The job exits with a non-zero code (137 after a SIGKILL) and
//!   `mpirun` names the lost rank: `mpirun noticed that process rank 1 with PID … on node …
//!   exited on signal 9 (Killed).` magpie itself reports nothing in that case.
//! - **A rank that stops** (SIGSTOP, or a hang) is not noticed by Open MPI: the process is
//!   alive. The other ranks wait for it (rank 0 for its credit, thieves for its answers) until
//!   it continues (SIGCONT; the job then ends normally with the right answer) or the job is
//!   killed — put a time limit on jobs (`timeout`, the batch system's wall time). No waiting
//!   rank spins at full speed: the communication loops sleep 50–200 µs between polls, and
//!   the waits that would be blocking MPI calls (which Open MPI busy-polls) — a distributed
//!   loop's sends, the barrier that starts each of its steps, its final gather — poll a
//!   non-blocking call and sleep between polls after a short spin (up to 1 ms, see
//!   `wait_politely`). Measured while rank 1 was stopped for 10 s: the waiting ranks of a
//!   loop used 4.5% of a core each, those of a search 16–17%. Not yet
//!   covered: the blocking collection of statistics and results at the very end of a search
//!   and of a loop step's statistics, where a rank stopped in that window leaves the others
//!   in Open MPI's busy poll.
#![warn(missing_docs)]

pub mod codec;
pub mod credit;
mod error;
pub mod loops;
pub mod perf;
pub mod search;
pub mod trace;
pub mod victims;

pub use error::Error;

use std::fs::OpenOptions;
use std::io::Write;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use mpi::environment::Universe;
use mpi::topology::SimpleCommunicator;
use mpi::Threading;
use serde::{Deserialize, Serialize};

/// The MPI environment of this process: initialised once, finalised when dropped.
pub struct Cluster {
    universe: Universe,
    /// This rank's communication-thread recording, while [`Cluster::start_trace`]'s runs.
    comm_trace: std::sync::Mutex<Option<trace::CommRecorder>>,
}

impl Cluster {
    /// Initialises MPI with `MPI_THREAD_FUNNELED` (only the main thread calls MPI; the
    /// workers never do). Errors if MPI was already initialised or the library cannot give
    /// funnelled threading.
    pub fn init() -> Result<Cluster, Error> {
        let (universe, threading) =
            mpi::initialize_with_threading(Threading::Funneled).ok_or(Error::AlreadyInitialised)?;
        if threading < Threading::Funneled {
            return Err(Error::Threading {
                offered: format!("{threading:?}"),
            });
        }
        Ok(Cluster {
            universe,
            comm_trace: std::sync::Mutex::new(None),
        })
    }

    /// Makes a panic anywhere in this process end the whole MPI job instead of leaving the
    /// other ranks waiting for this one: the first panic reports one line with
    /// [`report_error`], `magpie: error: rank R failed: MESSAGE (FILE:LINE); ending every
    /// rank`, and calls `MPI_Abort` — at once if it happened on the main thread (the one MPI
    /// thread), else from the main thread's communication loop at its next turn (funnelled
    /// MPI: only that thread may call MPI). `mpirun` then ends every rank with a non-zero
    /// exit code (and prints its own `MPI_ABORT was invoked on rank R …` block).
    pub fn abort_on_panic(&self) {
        let rank = self.rank();
        let main = std::thread::current().id();
        std::panic::set_hook(Box::new(move |info| {
            if ABORTING.swap(true, Ordering::SeqCst) {
                return;
            }
            let message = info
                .payload()
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| info.payload().downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "a panic".into());
            let place = info
                .location()
                .map(|l| format!(" ({}:{})", l.file(), l.line()))
                .unwrap_or_default();
            report_error(&format!(
                "rank {rank} failed: {message}{place}; ending every rank"
            ));
            if std::thread::current().id() == main {
                abort_job();
            }
        }));
    }

    /// A warning if this process may run on fewer cores than it has `workers` (its CPU
    /// affinity, as MPI launchers set it: Open MPI binds each rank to one core when it starts
    /// at most two ranks, so a rank with two workers would run them on one core).
    ///
    /// ```no_run
    /// let cluster = magpie_mpi::Cluster::init().unwrap();
    /// if let Some(w) = cluster.binding_warning(4) {
    ///     eprintln!("{w}");
    /// }
    /// ```
    pub fn binding_warning(&self, workers: usize) -> Option<String> {
        let cores = std::thread::available_parallelism().ok()?.get();
        (cores < workers).then(|| {
            format!(
                "magpie: warning: rank {} may run on {cores} core(s) (its CPU affinity) but has \
                 {workers} workers; with Open MPI, run mpirun --bind-to none (or \
                 --map-by socket:PE={workers})",
                self.rank()
            )
        })
    }

    /// The world communicator.
    pub fn world(&self) -> SimpleCommunicator {
        self.universe.world()
    }

    /// This process's rank.
    pub fn rank(&self) -> i32 {
        use mpi::traits::Communicator;
        self.world().rank()
    }

    /// The number of ranks.
    pub fn size(&self) -> i32 {
        use mpi::traits::Communicator;
        self.world().size()
    }

    /// Rank 0's `decision`, known to every rank (a collective call: every rank calls it at
    /// the same point; `decision` runs on rank 0 only). A distributed loop asks it before
    /// each time step whether to go on, so that every rank stops after the same step.
    pub fn rank0_decides(&self, decision: impl FnOnce() -> bool) -> bool {
        use mpi::traits::{Communicator, Root};
        let world = self.world();
        let mut go = u8::from(world.rank() == 0 && decision());
        world.process_at_rank(0).broadcast_into(&mut go);
        go == 1
    }
}

/// What one rank did in a distributed run.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct RankStats {
    /// The rank.
    pub rank: i32,
    /// Its workers.
    pub workers: usize,
    /// Search nodes its workers expanded (the sum of their
    /// [`SearchStats::expanded`](magpie::search::SearchStats)).
    pub nodes: u64,
    /// The nodes of each of its workers, by worker.
    pub worker_nodes: Vec<u64>,
    /// The counters of each of its workers, by worker (see
    /// [`search::Distributed::stats`]); a worker's `time` is its busy time and its
    /// `per_worker` is empty.
    pub worker_stats: Vec<magpie::search::SearchStats>,
    /// Tasks it sent to thieves.
    pub tasks_sent: u64,
    /// Tasks it received from victims.
    pub tasks_received: u64,
    /// Steal requests it sent.
    pub requests_sent: u64,
    /// Steal requests it received.
    pub requests_received: u64,
    /// Its requests answered with work.
    pub steals_ok: u64,
    /// Its requests answered with no work.
    pub steals_failed: u64,
    /// Bytes of work it sent.
    pub bytes_sent: u64,
    /// Bytes of work it received.
    pub bytes_received: u64,
    /// New incumbents it sent to other ranks (one message per rank).
    pub bounds_sent: u64,
    /// Incumbents it received from other ranks.
    pub bounds_received: u64,
    /// Automatic refreshes of its `perf` monitor (0 under other policies).
    pub refreshes: u64,
    /// Auxiliary refreshes of its `perf` monitor, after a refused steal.
    pub aux_refreshes: u64,
    /// Time its workers spent on tasks (summed over workers).
    pub busy: Duration,
    /// Time the rank had no task at all.
    pub idle: Duration,
    /// Its wall-clock time in the call.
    pub time: Duration,
}

/// The variable naming a file that receives a copy of magpie's error report: the rank that
/// reports the job's error ([`report_error`]) appends its one line to it.
///
/// This is the channel to read the report from, in tests and scripts: the stderr of an MPI
/// job is shared with the MPI library, and Open MPI writes its own lines into it whenever it
/// likes — while a rank aborts, even into the middle of a line of magpie's (issue 13: an
/// `ORTE_ERROR_LOG: Data unpack would read past end of buffer` line appeared inside magpie's
/// error line). Nothing but magpie writes to this file.
pub const ERROR_FILE_ENV: &str = "MAGPIE_ERROR_FILE";

/// Reports an error of this rank as one line, `magpie: error: MESSAGE` (a line break in
/// `message` becomes a space): on stderr with a single `write(2)` of the whole line (so no
/// other output of this process splits it; `eprintln!` would write it in pieces), and
/// appended with a single write to the file named by [`ERROR_FILE_ENV`] when that is set (a
/// file that cannot be opened is skipped: the line is on stderr anyway). Used by
/// [`Cluster::abort_on_panic`] and by the `magpie` binary for the errors of a distributed
/// command.
///
/// ```
/// // Prints `magpie: error: --genus: not a number` on stderr, as one write.
/// magpie_mpi::report_error("--genus: not a number");
/// ```
pub fn report_error(message: &str) {
    let line = format!("magpie: error: {}\n", message.replace('\n', " "));
    // Stderr is unbuffered: one write_all of the whole line is one write(2) (short writes
    // aside, which a pipe does not make for a line under PIPE_BUF bytes).
    let _ = std::io::stderr().write_all(line.as_bytes());
    if let Some(path) = std::env::var_os(ERROR_FILE_ENV) {
        if let Ok(mut file) = OpenOptions::new().create(true).append(true).open(path) {
            let _ = file.write_all(line.as_bytes());
        }
    }
}

/// Set by the panic hook of [`Cluster::abort_on_panic`].
static ABORTING: AtomicBool = AtomicBool::new(false);

/// Whether a thread of this process panicked under [`Cluster::abort_on_panic`]: the
/// communication loop then ends the job.
pub(crate) fn abort_requested() -> bool {
    ABORTING.load(Ordering::Relaxed)
}

/// Polls of [`wait_politely`] that spin before it starts sleeping between polls.
const POLITE_SPINS: u32 = 10_000;

/// The longest sleep of [`wait_politely`] between two polls.
const POLITE_MAX_NAP: Duration = Duration::from_millis(1);

/// Waits until `poll` gives a value, as a blocking MPI call would but without its busy poll
/// (Open MPI's blocking calls poll at full speed, so a rank waiting in one for a stopped rank
/// would burn its core for as long as that rank is stopped): the first
/// [`POLITE_SPINS`] polls spin, then the wait sleeps between polls, 50 µs doubling up to
/// [`POLITE_MAX_NAP`]. Ends the job if a thread of this process panicked
/// ([`Cluster::abort_on_panic`]) meanwhile.
pub(crate) fn wait_politely<T>(mut poll: impl FnMut() -> Option<T>) -> T {
    let mut spins = 0u32;
    let mut nap = Duration::from_micros(50);
    loop {
        if let Some(t) = poll() {
            return t;
        }
        if abort_requested() {
            abort_job();
        }
        if spins < POLITE_SPINS {
            spins += 1;
            std::hint::spin_loop();
        } else {
            std::thread::sleep(nap);
            nap = (nap * 2).min(POLITE_MAX_NAP);
        }
    }
}

/// `MPI_Barrier` on `world`, waited for with [`wait_politely`] (a non-blocking barrier).
pub(crate) fn barrier(world: &SimpleCommunicator) {
    use mpi::collective::CommunicatorCollectives;
    let mut request = Some(world.immediate_barrier());
    wait_politely(|| match request.take()?.test() {
        Ok(_) => Some(()),
        Err(r) => {
            request = Some(r);
            None
        }
    })
}

/// The next message with `tag` from any rank, waited for with [`wait_politely`]: its bytes
/// and status.
pub(crate) fn receive_tagged(
    world: &SimpleCommunicator,
    tag: mpi::Tag,
) -> (Vec<u8>, mpi::point_to_point::Status) {
    use mpi::point_to_point::{MatchedReceiveVec, Source};
    use mpi::traits::Communicator;
    wait_politely(|| world.any_process().immediate_matched_probe_with_tag(tag))
        .matched_receive_vec::<u8>()
}

/// Ends every rank of the job (`MPI_Abort` on the world communicator, error code 1).
pub(crate) fn abort_job() -> ! {
    // SAFETY: MPI is initialised (a `Cluster` exists whenever the hook or the communication
    // loop runs) and `RSMPI_COMM_WORLD` is the world communicator; MPI_Abort does not return
    // on success.
    unsafe {
        mpi::ffi::MPI_Abort(mpi::ffi::RSMPI_COMM_WORLD, 1);
    }
    std::process::exit(1)
}
