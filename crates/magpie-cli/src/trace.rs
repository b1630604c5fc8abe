//! `--trace FILE` of `magpie search` and `magpie loop`: the file is created before the run
//! (a bad path is a usage error, exit 2, before any work), the pool records while the command
//! runs, and the trace is written after it, as a Chrome trace-event file
//! ([`magpie_measure::trace`], the one codec).

use std::path::Path;

use magpie::ThreadPool;
use magpie_measure::trace::{Meta, Process, TraceFile};

use crate::error::Failure;

/// A recording in progress: the file it goes to.
pub struct Tracing(TraceFile);

/// With `--trace FILE`: creates the file and starts recording on `pool`. Call it just before
/// the run, after the pool was built.
pub fn start(path: Option<&Path>, pool: &ThreadPool) -> Result<Option<Tracing>, Failure> {
    let Some(path) = path else {
        return Ok(None);
    };
    let file = TraceFile::create("--trace", path).map_err(Failure::Usage)?;
    pool.start_trace();
    Ok(Some(Tracing(file)))
}

impl Tracing {
    /// Ends the recording on `pool` and writes it (a local run: one process, rank 0).
    pub fn finish(self, pool: &ThreadPool) -> Result<(), Failure> {
        let trace = pool.take_trace();
        let meta = Meta {
            command: Meta::command_line(),
            workers: pool.num_workers(),
            ranks: 1,
        };
        self.0
            .write(&[Process::rank(0, &trace)], &meta)
            .map_err(Failure::Run)
    }
}

/// Ends and writes the recording, if there is one.
pub fn finish(tracing: Option<Tracing>, pool: &ThreadPool) -> Result<(), Failure> {
    tracing.map_or(Ok(()), |t| t.finish(pool))
}

/// `--trace FILE` with `--distributed`: every rank records its pool and its communication
/// thread ([`magpie_mpi::Cluster::start_trace`]); rank 0 gathers them and writes one file,
/// one process per rank, each with its workers and a `comm` thread whose steal requests,
/// work and refusals are joined to their other ends by flow events.
#[cfg(feature = "mpi")]
pub mod distributed {
    use std::collections::HashSet;
    use std::path::Path;

    use magpie::ThreadPool;
    use magpie_measure::trace::{Flow, Message, Meta, Process, Rank, TraceFile};
    use magpie_mpi::trace::{paired, CommEvent, FlowKey, Message as Sent, RankTrace};
    use magpie_mpi::Cluster;

    use crate::error::Failure;

    /// A recording in progress on every rank; rank 0 holds the file.
    pub struct Tracing(Option<TraceFile>);

    /// With `--trace FILE` (a collective call): rank 0 creates the file — a bad path is a
    /// usage error on every rank, reported by rank 0, before any work — and every rank
    /// starts recording.
    pub fn start(
        path: Option<&Path>,
        cluster: &Cluster,
        pool: &ThreadPool,
    ) -> Result<Option<Tracing>, Failure> {
        let Some(path) = path else {
            return Ok(None);
        };
        let mut file = None;
        let mut error = String::new();
        let created = cluster.rank0_decides(|| match TraceFile::create("--trace", path) {
            Ok(f) => {
                file = Some(f);
                true
            }
            Err(e) => {
                error = e;
                false
            }
        });
        if !created {
            return Err(Failure::Usage(if error.is_empty() {
                format!("--trace {}: rank 0 cannot create the file", path.display())
            } else {
                error
            }));
        }
        cluster.start_trace(pool);
        Ok(Some(Tracing(file)))
    }

    impl Tracing {
        /// Ends the recording (a collective call) and, on rank 0, writes the file.
        pub fn finish(self, cluster: &Cluster, pool: &ThreadPool) -> Result<(), Failure> {
            let ranks = cluster.gather_trace(pool).map_err(Failure::Run)?;
            let (Some(ranks), Some(file)) = (ranks, self.0) else {
                return Ok(());
            };
            let pairs = paired(&ranks);
            let messages: Vec<Vec<Message>> = ranks
                .iter()
                .enumerate()
                .map(|(r, t)| {
                    t.comm
                        .iter()
                        .map(|e| message(r as u32, e, &pairs, ranks.len()))
                        .collect()
                })
                .collect();
            let processes: Vec<Rank<'_>> = ranks
                .iter()
                .zip(&messages)
                .enumerate()
                .map(|(r, (t, m)): (usize, (&RankTrace, &Vec<Message>))| Rank {
                    process: Process::rank(r, &t.pool),
                    messages: m,
                })
                .collect();
            let meta = Meta {
                command: Meta::command_line(),
                workers: ranks
                    .iter()
                    .map(|t| t.pool.workers.len())
                    .max()
                    .unwrap_or(0),
                ranks: ranks.len(),
            };
            file.write_ranks(&processes, &meta).map_err(Failure::Run)
        }
    }

    /// Rank `rank`'s message `e` as the codec writes it: a flow end if the message's other
    /// end is in the trace too (`pairs`).
    fn message(rank: u32, e: &CommEvent, pairs: &HashSet<FlowKey>, ranks: usize) -> Message {
        let key = e.key(rank);
        let mut args = vec![(if e.sent { "to" } else { "from" }, u64::from(e.peer))];
        if let Sent::Work { tasks } = e.message {
            args.push(("tasks", tasks));
        }
        Message {
            ts_ns: e.ns,
            name: e.name(),
            args,
            flow: pairs.contains(&key).then(|| Flow {
                id: key.id(ranks),
                name: e.message.name(),
                start: e.sent,
            }),
        }
    }

    /// Ends and writes the recording, if there is one (a collective call).
    pub fn finish(
        tracing: Option<Tracing>,
        cluster: &Cluster,
        pool: &ThreadPool,
    ) -> Result<(), Failure> {
        tracing.map_or(Ok(()), |t| t.finish(cluster, pool))
    }
}
