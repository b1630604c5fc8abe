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
//!
//! Every rank calls the same functions with the same arguments (SPMD, as launched by
//! `mpirun -np R …`); rank 0 gets the merged result.
#![warn(missing_docs)]

pub mod codec;
pub mod credit;
pub mod loops;
pub mod perf;
pub mod search;
pub mod victims;

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use mpi::environment::Universe;
use mpi::topology::SimpleCommunicator;
use mpi::Threading;
use serde::{Deserialize, Serialize};

/// The MPI environment of this process: initialised once, finalised when dropped.
pub struct Cluster {
    universe: Universe,
}

impl Cluster {
    /// Initialises MPI with `MPI_THREAD_FUNNELED` (only the main thread calls MPI; the
    /// workers never do). Errors if MPI was already initialised or the library cannot give
    /// funnelled threading.
    pub fn init() -> Result<Cluster, String> {
        let (universe, threading) = mpi::initialize_with_threading(Threading::Funneled)
            .ok_or("MPI was already initialised in this process")?;
        if threading < Threading::Funneled {
            return Err(format!(
                "the MPI library offers only {threading:?} threading; magpie needs Funneled"
            ));
        }
        Ok(Cluster { universe })
    }

    /// Makes a panic anywhere in this process end the whole MPI job instead of leaving the
    /// other ranks waiting for this one: the first panic prints one line,
    /// `magpie: error: rank R failed: MESSAGE (FILE:LINE); ending every rank`, and calls
    /// `MPI_Abort` — at once if it happened on the main thread (the one MPI thread), else
    /// from the main thread's communication loop at its next turn (funnelled MPI: only
    /// that thread may call MPI). `mpirun` then ends every rank with a non-zero exit code.
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
            eprintln!("magpie: error: rank {rank} failed: {message}{place}; ending every rank");
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
}

/// What one rank did in a distributed run.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct RankStats {
    /// The rank.
    pub rank: i32,
    /// Its workers.
    pub workers: usize,
    /// Search nodes its workers visited.
    pub nodes: u64,
    /// The nodes of each of its workers, by worker.
    pub worker_nodes: Vec<u64>,
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

/// Set by the panic hook of [`Cluster::abort_on_panic`].
static ABORTING: AtomicBool = AtomicBool::new(false);

/// Whether a thread of this process panicked under [`Cluster::abort_on_panic`]: the
/// communication loop then ends the job.
pub(crate) fn abort_requested() -> bool {
    ABORTING.load(Ordering::Relaxed)
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
