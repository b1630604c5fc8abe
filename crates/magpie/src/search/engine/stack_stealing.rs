//! [`Skeleton::StackStealing`](crate::search::Skeleton::StackStealing): one search worker per
//! pool worker, each depth-first over its own stack; thieves ask a busy worker for work.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;

use super::walk::{dfs, splittable_dfs, worth_starting, Open, Splitter};
use super::LocalStats;
use super::{as_task, Kind, Run};
use crate::search::SearchSpace;

/// StackStealing: per-worker request slots and mailboxes.
///
/// Protocol: `requests[v]` is `OPEN` while worker `v` has work and takes requests, `CLOSED`
/// while it is idle, or `r + 1` while worker `r` waits for an answer. A busy worker checks
/// its slot at every node and answers by putting nodes (already visited) into
/// `mailbox[r]`; a non-empty answer counts the receiver active (`active += 1`) before it is
/// delivered, so `active` reaches 0 only when no worker has or is about to get work. A worker
/// that runs out of work closes its slot, answering a pending request with an empty list,
/// so no requester waits forever.
struct StackSteal<N> {
    requests: Vec<crossbeam_utils::CachePadded<AtomicU64>>,
    mailbox: Vec<Mailbox<N>>,
    active: AtomicU64,
    steal_all: bool,
}

/// Where a thief receives the answer to its request: nodes with their depths.
type Mailbox<N> = Mutex<Option<Vec<(N, usize)>>>;

const OPEN: u64 = 0;
const CLOSED: u64 = u64::MAX;

/// Answers thieves' requests from a running walk: a request for this worker's work is
/// answered, at the next node, with the most promising node it has not started — the best
/// received node not yet started, else the next child of the shallowest level that has one
/// to expand (all of that level's children with `steal_all`) — or nothing. The thief gets
/// the biggest, best unexplored subtree this worker knows of.
struct Answer<'a, 'r, K, N> {
    kind: &'a K,
    run: &'a Run<'r>,
    shared: &'a StackSteal<N>,
    me: usize,
    /// Received nodes not yet started, most promising last.
    pending: &'a mut Vec<(N, usize)>,
}

impl<'s, S, K> Splitter<'s, S, K> for Answer<'_, '_, K, S::Node>
where
    S: SearchSpace + ?Sized + 's,
    K: Kind<S>,
{
    #[inline(always)]
    fn wants(&self, _: &LocalStats) -> bool {
        // While this worker works, its slot is `OPEN` or a thief's request.
        self.shared.requests[self.me].load(Ordering::Relaxed) != OPEN
    }

    fn split(&mut self, open: &mut Open<'_, 's, S>, local: &mut K::Local, stats: &mut LocalStats) {
        let shared = self.shared;
        let r = shared.requests[self.me].load(Ordering::Acquire);
        if r == OPEN || r == CLOSED {
            return;
        }
        let give = match self.pending.pop() {
            Some(n) => vec![n],
            None => open.take(self.kind, self.run, local, stats, shared.steal_all),
        };
        if !give.is_empty() {
            shared.active.fetch_add(1, Ordering::AcqRel);
            let (thief, nodes) = (r as i64 - 1, give.len() as i64);
            crate::trace::instant("search", "handover", &[("thief", thief), ("nodes", nodes)]);
        }
        *shared.mailbox[(r - 1) as usize]
            .lock()
            .unwrap_or_else(|e| e.into_inner()) = Some(give);
        shared.requests[self.me].store(OPEN, Ordering::Release);
    }
}

/// One StackStealing search worker.
fn stack_stealing_worker<'s, S, K>(
    space: &'s S,
    kind: &'s K,
    run: &'s Run<'s>,
    shared: &StackSteal<S::Node>,
    me: usize,
    initial: Option<(S::Node, usize)>,
) where
    S: SearchSpace + ?Sized,
    K: Kind<S>,
{
    as_task::<S, K>(kind, run, |local, stats| {
        let workers = shared.requests.len();
        let mut rng = crate::policy::XorShift64Star::new(me as u64 + 77);
        // Nodes received (visited, not yet expanded), then the generator stack.
        // Whether `active` counts this worker: the root's worker from the start, the others once
        // a giver hands them work (the giver counts them).
        let mut counted = initial.is_some();
        let mut pending: Vec<(S::Node, usize)> = initial.into_iter().collect();
        'outer: loop {
            // Work: expand until there is nothing left here.
            loop {
                if kind.stopped() {
                    pending.clear();
                    break;
                }
                // `pending` is kept most promising last.
                let Some((node, depth)) = pending.pop() else {
                    break;
                };
                if worth_starting(kind, local, stats, &node) {
                    let splitter = Answer {
                        kind,
                        run,
                        shared,
                        me,
                        pending: &mut pending,
                    };
                    splittable_dfs(space, kind, run, local, stats, &node, depth, splitter);
                }
            }
            // Idle: close the slot (answering a pending request), then look for work.
            let prev = shared.requests[me].swap(CLOSED, Ordering::AcqRel);
            if prev != OPEN && prev != CLOSED {
                *shared.mailbox[(prev - 1) as usize]
                    .lock()
                    .unwrap_or_else(|e| e.into_inner()) = Some(Vec::new());
            }
            // From here this worker either leaves or is handed work (and counted again).
            if counted {
                shared.active.fetch_sub(1, Ordering::AcqRel);
            }
            loop {
                // `stopped` covers a found decision and a panic elsewhere: a worker that panicked
                // never decrements `active` nor answers its slot.
                if shared.active.load(Ordering::Acquire) == 0 || workers == 1 || kind.stopped() {
                    break 'outer;
                }
                let mut victim = rng.below(workers - 1);
                if victim >= me {
                    victim += 1;
                }
                let asked = shared.requests[victim]
                    .compare_exchange(OPEN, me as u64 + 1, Ordering::AcqRel, Ordering::Acquire)
                    .is_ok();
                if !asked {
                    std::thread::yield_now();
                    continue;
                }
                let answer = loop {
                    if let Some(a) = shared.mailbox[me]
                        .lock()
                        .unwrap_or_else(|e| e.into_inner())
                        .take()
                    {
                        break a;
                    }
                    if kind.stopped() {
                        break 'outer;
                    }
                    std::thread::yield_now();
                };
                if !answer.is_empty() {
                    run.handoffs.fetch_add(1, Ordering::Relaxed);
                    // The giver already counted us active.
                    counted = true;
                    shared.requests[me].store(OPEN, Ordering::Release);
                    pending = answer;
                    // Most promising last, where `pop` takes it.
                    pending.reverse();
                    continue 'outer;
                }
            }
        }
    });
}

pub(super) fn stack_stealing<S, K>(
    space: &S,
    kind: &K,
    run: &Run<'_>,
    root: S::Node,
    steal_all: bool,
) where
    S: SearchSpace + ?Sized,
    K: Kind<S>,
{
    let workers = crate::current_num_workers().max(1);
    if workers == 1 {
        // Nobody to ask for work: the one search worker is the sequential walk.
        run.add_tasks(1);
        as_task::<S, K>(kind, run, |local, stats| {
            dfs(space, kind, run, local, stats, &root, 0)
        });
        return;
    }
    let shared = StackSteal {
        requests: (0..workers)
            .map(|w| {
                crossbeam_utils::CachePadded::new(AtomicU64::new(if w == 0 {
                    OPEN
                } else {
                    CLOSED
                }))
            })
            .collect(),
        mailbox: (0..workers).map(|_| Mutex::new(None)).collect(),
        active: AtomicU64::new(1),
        steal_all,
    };
    run.add_tasks(workers as u64);
    let shared = &shared;
    crate::scope(|s| {
        for w in 1..workers {
            s.spawn_shared(move |_| stack_stealing_worker(space, kind, run, shared, w, None));
        }
        // Worker 0 holds the root and runs right here, so the only worker whose slot is open
        // from the start is surely running (thieves wait on open slots only).
        stack_stealing_worker(space, kind, run, shared, 0, Some((root, 0)));
    });
}
