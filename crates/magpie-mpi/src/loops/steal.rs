//! The steal mode of a distributed loop (LB4MPI-WS): the main thread of a rank that owns a
//! block, serves thieves and steals when dry, with coordinator or random victims.

use std::collections::VecDeque;
use std::sync::Arc;
use std::time::{Duration, Instant};

use magpie::loops::StealAmount;
use magpie::policy::XorShift64Star;
use serde::de::DeserializeOwned;
use serde::Serialize;

use super::driver::{Cur, Owned, Piece, PieceItems, Shared};
use super::protocol::*;
use super::{DataDescription, Options, RankLoopStats, Victims};
use crate::codec::{decode_from, encode};
use crate::trace::Message;

/// Rank 0's bookkeeping of the coordinator victim choice.
pub(super) struct Coordinator {
    pub(super) eligible: Vec<bool>,
    /// Per rank, its requests not yet answered with work (a request answered by GRANTED may
    /// arrive after the same rank's next request: it is then still dry).
    pub(super) open: Vec<u32>,
    pub(super) parked: VecDeque<i32>,
    pub(super) pending: usize,
    pub(super) rng: XorShift64Star,
}

impl Coordinator {
    /// Relays `thief`'s request to a random eligible victim, or parks it.
    pub(super) fn relay(&mut self, comm: &mut Comm, thief: i32) {
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

    pub(super) fn retry_parked(&mut self, comm: &mut Comm) {
        for t in std::mem::take(&mut self.parked) {
            self.relay(comm, t);
        }
    }

    /// Every rank asked and nothing is pending: no victim is left.
    pub(super) fn over(&self, size: i32) -> bool {
        self.pending == 0 && self.parked.len() == size as usize
    }
}

/// The main thread of a rank in steal mode, until the step is over everywhere; returns the
/// rank's own results.
pub(super) fn steal_loop<'d, T, R>(
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
                    comm.record(false, from, Message::StealRequest);
                    match give(shared, comm, from, options.steal, ranks, description, stats) {
                        true => {}
                        false => {
                            comm.signal(from, TAG_NO_WORK);
                            comm.record(true, from, Message::Refusal);
                        }
                    }
                }
                TAG_REQUEST => {
                    comm.record(false, from, Message::StealRequest);
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
                    let tasks = msg.end.saturating_sub(msg.start);
                    comm.record(false, from, Message::Work { tasks });
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
                    comm.record(false, from, Message::Refusal);
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
            let victim = match options.victims {
                Victims::Coordinator => 0,
                Victims::Random => (rank + 1 + rng.below(ranks - 1) as i32) % size,
            };
            comm.signal(victim, TAG_REQUEST);
            comm.record(true, victim, Message::StealRequest);
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
pub(super) fn give<'d, T, R>(
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
    comm.record(
        true,
        thief,
        Message::Work {
            tasks: range.len() as u64,
        },
    );
    true
}
