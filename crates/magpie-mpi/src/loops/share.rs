//! The share mode of a distributed loop (LB4MPI): rank 0 deals chunks by a central
//! schedule; every rank runs them and returns their results to rank 0.

use std::collections::VecDeque;
use std::ops::Range;
use std::sync::Arc;

use magpie::loops::Schedule;
use magpie::loops::{central_rule, ChunkRule, LoopHistory};
use serde::de::DeserializeOwned;
use serde::Serialize;

use super::driver::{Cur, Owned, Piece, Shared};
use super::protocol::*;
use super::{block_of, check_share_schedule, shape, RankLoopStats};
use crate::codec::{decode_from, encode};
use crate::trace::Message;

/// How the coordinator of share mode deals chunks.
pub(super) enum Dealer {
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
    pub(super) fn new(
        schedule: &Schedule,
        n: usize,
        ranks: usize,
        history: &LoopHistory,
    ) -> Dealer {
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

    pub(super) fn next(&mut self, rank: usize) -> Option<Range<usize>> {
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

    pub(super) fn chunk_done(&mut self, rank: usize, iterations: usize, ns: u64) {
        if let Dealer::Central { rule, .. } = self {
            rule.chunk_done(rank, iterations as u64, ns);
        }
    }

    pub(super) fn finish(&mut self, history: &mut LoopHistory) {
        if let Dealer::Central { rule, .. } = self {
            rule.finish(history);
        }
    }
}

/// The main thread of a rank in share mode; rank 0 also coordinates and collects every
/// result. Returns the results this rank collected (all of `0..n` on rank 0).
pub(super) fn share_loop<'d, T, R>(
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
                    comm.record(false, from, Message::StealRequest);
                    let d = dealer.as_mut().expect("chunk requests go to rank 0");
                    match d.next(from as usize) {
                        Some(r) => {
                            comm.send(from, TAG_CHUNK, encode(&(r.start as u64, r.end as u64)));
                            let tasks = r.len() as u64;
                            comm.record(true, from, Message::Work { tasks });
                        }
                        None => {
                            told[from as usize] = true;
                            comm.signal(from, TAG_NO_MORE);
                            comm.record(true, from, Message::Refusal);
                        }
                    }
                }
                TAG_CHUNK => {
                    let (a, b): (u64, u64) = decode_from(&bytes, "chunk", from);
                    let tasks = b.saturating_sub(a);
                    comm.record(false, from, Message::Work { tasks });
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
                    comm.record(false, from, Message::Refusal);
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
            comm.record(true, 0, Message::StealRequest);
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
}
