//! Distributed traces (`magpie search|loop … --distributed --trace FILE`): every rank records its
//! pool's [`magpie::Trace`] and what its communication thread (the main thread, the one that
//! calls MPI) sent and received — steal requests (a loop's chunk requests), work with its task
//! count (a loop's chunks and stolen shares, with their iterations), refusals — and
//! rank 0 gathers them ([`Cluster::start_trace`], [`Cluster::gather_trace`]).
//!
//! A message's two ends are matched without a word on the wire: MPI does not let one message
//! overtake another between the same two ranks on the same tag, so the `k`-th steal request
//! rank `a` sends to rank `b` is the `k`-th one `b` receives from `a`. Each end counts its
//! messages per peer and kind ([`CommEvent::seq`]); [`FlowKey`] names the message, and
//! [`paired`] gives the messages whose both ends were recorded (a message still in flight
//! when the search ended — a steal request that crossed `DONE` — has only its sender's end).
//!
//! Clocks: every rank passes a barrier right before it starts recording, and its times count
//! from its own start, so ranks' times agree up to the barrier's skew (the time between the
//! ranks leaving it: microseconds on one node, more across nodes).
//!
//! ```
//! use magpie_mpi::trace::{CommEvent, FlowKey, Message};
//!
//! // Rank 1 sent its first steal request to rank 0; rank 0 received it.
//! let sent = CommEvent { ns: 10, sent: true, peer: 0, message: Message::StealRequest, seq: 0 };
//! let received = CommEvent { ns: 12, sent: false, peer: 1, message: Message::StealRequest, seq: 0 };
//! assert_eq!(sent.key(1), received.key(0));
//! assert_eq!(sent.key(1), FlowKey { from: 1, to: 0, message: 0, seq: 0 });
//! assert_eq!(sent.name(), "steal request sent");
//! assert_eq!(received.name(), "steal request received");
//! ```

use std::collections::{HashMap, HashSet};
use std::time::Instant;

use magpie::ThreadPool;
use serde::{Deserialize, Serialize};

use crate::codec::{decode, encode};
use crate::Cluster;

/// The tag of a rank's trace, sent to rank 0 after the search.
const TAG_TRACE: i32 = 40;

/// What a communication-thread message was.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Message {
    /// A steal request (a thief asks a victim rank for work).
    StealRequest,
    /// An answer with work: `tasks` tasks (a distributed loop's chunk or stolen share:
    /// `tasks` iterations).
    Work {
        /// The tasks (iterations) it carried.
        tasks: u64,
    },
    /// An answer with no work (a refusal).
    Refusal,
}

impl Message {
    /// Its index in [`FlowKey::message`] (one per MPI tag).
    pub fn index(self) -> u8 {
        match self {
            Message::StealRequest => 0,
            Message::Work { .. } => 1,
            Message::Refusal => 2,
        }
    }

    /// Its name: `steal request`, `work`, `refusal` (the name of its flow event).
    pub fn name(self) -> &'static str {
        match self {
            Message::StealRequest => "steal request",
            Message::Work { .. } => "work",
            Message::Refusal => "refusal",
        }
    }
}

/// One message sent or received by a rank's communication thread.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CommEvent {
    /// Nanoseconds since the rank started recording.
    pub ns: u64,
    /// Sent (true) or received.
    pub sent: bool,
    /// The other rank: the receiver of a sent message, the sender of a received one.
    pub peer: u32,
    /// What it was.
    pub message: Message,
    /// How many messages of its kind went before it between the same two ranks in the same
    /// direction (counted from 0).
    pub seq: u64,
}

impl CommEvent {
    /// The instant's name: `steal request sent`, `work received`, `refusal sent`, …
    pub fn name(&self) -> &'static str {
        match (self.message, self.sent) {
            (Message::StealRequest, true) => "steal request sent",
            (Message::StealRequest, false) => "steal request received",
            (Message::Work { .. }, true) => "work sent",
            (Message::Work { .. }, false) => "work received",
            (Message::Refusal, true) => "refusal sent",
            (Message::Refusal, false) => "refusal received",
        }
    }

    /// The message it is an end of, on rank `rank` (the rank that recorded it).
    pub fn key(&self, rank: u32) -> FlowKey {
        let (from, to) = if self.sent {
            (rank, self.peer)
        } else {
            (self.peer, rank)
        };
        FlowKey {
            from,
            to,
            message: self.message.index(),
            seq: self.seq,
        }
    }
}

/// One message between two ranks: sender, receiver, kind ([`Message::index`]) and its
/// place among the messages of that kind between them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct FlowKey {
    /// The sending rank.
    pub from: u32,
    /// The receiving rank.
    pub to: u32,
    /// [`Message::index`].
    pub message: u8,
    /// [`CommEvent::seq`].
    pub seq: u64,
}

impl FlowKey {
    /// A number unique to this message in a job of `ranks` ranks (the flow event's `id`):
    /// small numbers first, so that it stays exact as a JSON number.
    ///
    /// ```
    /// use magpie_mpi::trace::FlowKey;
    /// let k = |from, to, message, seq| FlowKey { from, to, message, seq }.id(2);
    /// assert_eq!([k(0, 1, 0, 0), k(1, 0, 0, 0), k(0, 1, 1, 0), k(0, 1, 0, 1)], [1, 2, 5, 13]);
    /// ```
    pub fn id(&self, ranks: usize) -> u64 {
        let ranks = ranks as u64;
        let pair = u64::from(self.from) * ranks + u64::from(self.to);
        let per_seq = ranks * ranks * 3;
        self.seq * per_seq + u64::from(self.message) * ranks * ranks + pair
    }
}

/// What one rank recorded.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct RankTrace {
    /// Its pool's workers.
    pub pool: magpie::Trace,
    /// Its communication thread's messages, in time order.
    pub comm: Vec<CommEvent>,
}

/// The messages between two ranks of `ranks` (by rank) whose both ends were recorded (a
/// distributed loop's rank 0 also asks itself for chunks: those messages are left out).
pub fn paired(ranks: &[RankTrace]) -> HashSet<FlowKey> {
    let ends = |sent: bool| -> HashSet<FlowKey> {
        ranks
            .iter()
            .enumerate()
            .flat_map(|(r, t)| t.comm.iter().map(move |e| (r as u32, e)))
            .filter(|(_, e)| e.sent == sent)
            .map(|(r, e)| e.key(r))
            .collect()
    };
    let received = ends(false);
    ends(true)
        .intersection(&received)
        .filter(|k| k.from != k.to)
        .copied()
        .collect()
}

/// A rank's recording of its communication thread (while [`Cluster::start_trace`]'s
/// recording runs).
#[derive(Debug)]
pub(crate) struct CommRecorder {
    start: Instant,
    events: Vec<CommEvent>,
    counts: HashMap<(bool, u32, u8), u64>,
}

impl CommRecorder {
    fn new() -> CommRecorder {
        CommRecorder {
            start: Instant::now(),
            events: Vec::new(),
            counts: HashMap::new(),
        }
    }

    /// Records `message` sent to (`sent`) or received from `peer`.
    pub(crate) fn record(&mut self, sent: bool, peer: i32, message: Message) {
        let peer = peer as u32;
        let count = self
            .counts
            .entry((sent, peer, message.index()))
            .or_insert(0);
        let seq = *count;
        *count += 1;
        self.events.push(CommEvent {
            ns: self.start.elapsed().as_nanos() as u64,
            sent,
            peer,
            message,
            seq,
        });
    }
}

/// Records on `recorder`, if there is one (the per-message cost with tracing off: one
/// branch).
pub(crate) fn record(recorder: &mut Option<CommRecorder>, sent: bool, peer: i32, m: Message) {
    if let Some(r) = recorder {
        r.record(sent, peer, m);
    }
}

impl Cluster {
    /// Starts recording on every rank (a collective call): a barrier, then `pool`'s trace
    /// ([`ThreadPool::start_trace`]) and this rank's communication thread's messages during
    /// the distributed searches and loop steps that follow, until [`Cluster::gather_trace`].
    pub fn start_trace(&self, pool: &ThreadPool) {
        crate::barrier(&self.world());
        pool.start_trace();
        *self.lock_recorder() = Some(CommRecorder::new());
    }

    /// Ends the recording (a collective call): every rank sends its [`RankTrace`] to rank 0,
    /// which returns them all, by rank (`None` on the other ranks). A rank's trace that does
    /// not decode is an error naming that rank (after every rank's trace was received).
    pub fn gather_trace(&self, pool: &ThreadPool) -> Result<Option<Vec<RankTrace>>, String> {
        use mpi::traits::{Communicator, Destination};
        let own = RankTrace {
            pool: pool.take_trace(),
            comm: self
                .lock_recorder()
                .take()
                .map(|r| r.events)
                .unwrap_or_default(),
        };
        let world = self.world();
        if world.rank() != 0 {
            let bytes = encode(&own);
            world
                .process_at_rank(0)
                .send_with_tag(&bytes[..], TAG_TRACE);
            return Ok(None);
        }
        let size = world.size().max(1) as usize;
        let mut ranks: Vec<Option<RankTrace>> = vec![None; size];
        ranks[0] = Some(own);
        let mut error = None;
        for _ in 1..size {
            let (bytes, status) = crate::receive_tagged(&world, TAG_TRACE);
            let from = status.source_rank();
            match decode::<RankTrace>(&bytes, "trace") {
                Ok(t) => ranks[from as usize] = Some(t),
                Err(e) => {
                    error.get_or_insert(format!("rank {from} sent {e}"));
                }
            }
        }
        match error {
            Some(e) => Err(e),
            None => Ok(Some(
                ranks.into_iter().map(Option::unwrap_or_default).collect(),
            )),
        }
    }

    pub(crate) fn lock_recorder(&self) -> std::sync::MutexGuard<'_, Option<CommRecorder>> {
        self.comm_trace.lock().unwrap_or_else(|e| e.into_inner())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ends_pair_by_kind_and_order_and_a_lost_message_has_none() {
        let mut r0 = CommRecorder::new();
        let mut r1 = CommRecorder::new();
        // Rank 1 asks rank 0 twice; rank 0 answers work (3 tasks) then refuses; a third
        // request of rank 1 is still in flight at the end.
        for _ in 0..3 {
            r1.record(true, 0, Message::StealRequest);
        }
        r0.record(false, 1, Message::StealRequest);
        r0.record(true, 1, Message::Work { tasks: 3 });
        r0.record(false, 1, Message::StealRequest);
        r0.record(true, 1, Message::Refusal);
        r1.record(false, 0, Message::Work { tasks: 3 });
        r1.record(false, 0, Message::Refusal);
        let ranks = [
            RankTrace {
                pool: magpie::Trace::default(),
                comm: r0.events,
            },
            RankTrace {
                pool: magpie::Trace::default(),
                comm: r1.events,
            },
        ];
        let pairs = paired(&ranks);
        let key = |from, to, message, seq| FlowKey {
            from,
            to,
            message,
            seq,
        };
        let want: HashSet<FlowKey> = [
            key(1, 0, 0, 0),
            key(1, 0, 0, 1),
            key(0, 1, 1, 0),
            key(0, 1, 2, 0),
        ]
        .into_iter()
        .collect();
        assert_eq!(pairs, want);
        assert_eq!(ranks[1].comm[2].seq, 2);
        let ids: HashSet<u64> = pairs.iter().map(|k| k.id(2)).collect();
        assert_eq!(ids.len(), 4, "distinct ids");
    }

    #[test]
    fn a_rank_trace_round_trips_through_the_codec() {
        use magpie::trace::{Event, EventKind, WorkerTrace};
        let t = RankTrace {
            pool: magpie::Trace {
                workers: vec![WorkerTrace {
                    events: vec![Event {
                        start_ns: 5,
                        end_ns: 5,
                        kind: EventKind::Mark {
                            category: "search",
                            name: "incumbent",
                            args: vec![("value", 7)],
                        },
                    }],
                }],
                duration_ns: 9,
            },
            comm: vec![CommEvent {
                ns: 3,
                sent: true,
                peer: 2,
                message: Message::Work { tasks: 1 },
                seq: 0,
            }],
        };
        let back: RankTrace = decode(&encode(&t), "trace").unwrap();
        assert_eq!(back, t);
    }
}
