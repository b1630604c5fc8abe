//! Distributed magpie over MPI: one process (rank) per node, each with a local magpie pool,
//! cooperating through the `mpi` crate over the system's MPI library.
//!
//! - [`search::enumerate`]: distributed enumeration with YewPar's DepthBounded skeleton and
//!   inter-rank work stealing ([`victims`]), termination by credit recovery ([`credit`]).
//!
//! Every rank calls the same functions with the same arguments (SPMD, as launched by
//! `mpirun -np R …`); rank 0 gets the merged result.
#![warn(missing_docs)]

pub mod credit;
pub mod search;
pub mod victims;

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
    /// Time its workers spent on tasks (summed over workers).
    pub busy: Duration,
    /// Time the rank had no task at all.
    pub idle: Duration,
    /// Its wall-clock time in the call.
    pub time: Duration,
}
