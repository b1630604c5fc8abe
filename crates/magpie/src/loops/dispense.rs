//! Chunk dispensers: where the participants of a loop take their chunks from.
//!
//! A [`Dispenser`] is one execution of a loop over an index range, shared by `P`
//! participants; each participant holds a [`Cursor`] and asks the dispenser for its next
//! chunk until there is none. The participants may be the pool's own (`exec.rs` starts `P`
//! of them with joins) or threads that someone else runs (an OpenMP team, whose members
//! each call `GOMP_loop_*_next`). What a participant gets depends on the schedule:
//! - **central queue** (SS, GSS, TSS, FAC, FAC2, WF, AWF*, AF): under the loop's lock, the
//!   [`ChunkRule`] sizes the next chunk. SS takes no lock: it adds its fixed chunk to an
//!   atomic counter. mFAC takes no lock either: it adds one to an atomic counter of chunk
//!   numbers and places the chunk from its number ([`Batches`]).
//! - **static**: participant p gets block p (or, with a chunk, chunks p, p + P, p + 2P, …).
//! - **stealing** (static-steal, rws, laws): participant p owns an even block and takes
//!   chunks from its low end; once it is empty it steals part of another participant's
//!   remaining range from the upper end (under that range's lock), makes it its own and
//!   goes on; it stops when a whole pass over the victims finds nothing.
//!
//! Whatever the schedule, the participant that gets the loop's last chunk gets no chunk
//! after it (a stealing participant stops there), as an OpenMP runtime must for GCC's
//! `lastprivate`.
//!
//! A timed rule (the adaptive ones) learns each chunk's time: the time from handing the
//! chunk out to the participant's next request, which is the chunk's run time.

use std::ops::Range;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::Instant;

use super::chunks::{central_rule, numbered_plan, Batches, ChunkRule, LoopHistory, LoopShape};
use super::schedule::{Schedule, StealAmount};
use crate::policy::XorShift64Star;

/// How a (resolved) schedule dispenses its chunks.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Plan {
    /// A central queue whose chunks a rule sizes.
    Central,
    /// Even blocks, one per participant.
    StaticBlock,
    /// Chunks of `chunk` dealt round-robin to participants.
    BlockCyclic { chunk: usize },
    /// Owned blocks plus stealing.
    Stealing(StealPlan),
    /// Fork-join splitting with an automatic grain (`exec.rs` only; a dispenser runs it as
    /// static-steal with an automatic chunk).
    Auto,
}

/// Which victims a stealing schedule tries, and how much it takes.
#[derive(Debug, Clone, Copy)]
pub(crate) struct StealPlan {
    /// The victim order.
    pub(crate) victims: VictimOrder,
    /// How much of a victim's remaining range a steal takes (among the participants);
    /// `None`: LLVM's static_steal rule, a quarter (rounded down, at least one), only from a
    /// victim with at least two of its chunks left.
    pub(crate) amount: Option<StealAmount>,
    /// The chunk an owner takes from its own range at a time (0: automatic).
    pub(crate) owner_chunk: usize,
}

/// The victim order of a stealing schedule.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum VictimOrder {
    /// LLVM's static_steal: round-robin starting from the last victim.
    RoundRobin,
    /// Random, a victim found empty excluded for the rest of the search (weight 0).
    Random,
    /// As `Random`, but victims on the thief's NUMA node (then socket) first.
    Local,
}

/// How a (resolved) schedule runs.
pub(crate) fn plan(schedule: &Schedule) -> Plan {
    let usize_of = |v: u64| usize::try_from(v).unwrap_or(usize::MAX);
    match schedule {
        Schedule::Static { chunk: None } => Plan::StaticBlock,
        Schedule::Static { chunk: Some(k) } => Plan::BlockCyclic {
            chunk: usize_of(*k),
        },
        Schedule::StaticSteal { chunk } => Plan::Stealing(StealPlan {
            victims: VictimOrder::RoundRobin,
            amount: None,
            owner_chunk: usize_of(*chunk),
        }),
        Schedule::Rws { steal } | Schedule::Laws { steal } => Plan::Stealing(StealPlan {
            victims: if matches!(schedule, Schedule::Laws { .. }) {
                VictimOrder::Local
            } else {
                VictimOrder::Random
            },
            amount: Some(*steal),
            owner_chunk: 0,
        }),
        Schedule::Auto
        | Schedule::Runtime
        | Schedule::RandomSel
        | Schedule::ExhaustiveSel
        | Schedule::BinarySel
        | Schedule::ExpertSel => Plan::Auto,
        _ => Plan::Central,
    }
}

/// One execution of a loop, shared by its participants: hands out disjoint chunks that
/// cover the range exactly (see the module docs for how each schedule does it).
///
/// Made by [`crate::loops::Loop::dispense`], which also keeps what adaptive schedules learn
/// ([`crate::loops::Loop::finish`]); each participant asks through its own [`Cursor`].
///
/// ```
/// use std::sync::atomic::{AtomicUsize, Ordering};
/// use magpie::loops::{Loop, Schedule};
///
/// let lp = Loop::new("fac2".parse::<Schedule>().unwrap());
/// let d = lp.dispense(1000, 2);
/// let seen = AtomicUsize::new(0);
/// std::thread::scope(|s| {
///     for p in 0..2 {
///         let (d, seen) = (&d, &seen);
///         s.spawn(move || {
///             let mut cursor = d.cursor(p);
///             while let Some(chunk) = d.next(&mut cursor) {
///                 seen.fetch_add(chunk.len(), Ordering::Relaxed);
///             }
///         });
///     }
/// });
/// assert_eq!(seen.into_inner(), 1000);
/// let stats = lp.finish(&d);
/// assert_eq!(stats.schedule, "fac2");
/// ```
pub struct Dispenser {
    range: Range<usize>,
    participants: usize,
    source: Source,
    schedule: Schedule,
    started: Instant,
    chunks: AtomicU64,
    steals: AtomicU64,
    /// The portfolio member a selector chose for this execution.
    member: Option<usize>,
}

/// Where the chunks come from.
enum Source {
    /// Nothing to run.
    Empty,
    /// One even block per participant.
    Static,
    /// Chunks of `chunk` dealt round-robin.
    BlockCyclic { chunk: usize },
    /// SS: one `fetch_add` of a fixed chunk per chunk, as OpenMP's `dynamic,k`.
    Fixed { next: AtomicUsize, k: usize },
    /// mFAC: one `fetch_add` on the chunk number; each participant places the chunk with its
    /// own copy of the batch plan (the redundant calculation of LB4OMP's `faca`).
    Numbered {
        next: AtomicU64,
        plan: Batches,
        /// Whether the rule learns chunk times.
        timed: bool,
        /// The rule learns from the log when the loop ends.
        rule: Mutex<Box<dyn ChunkRule>>,
        log: Mutex<Vec<(usize, u64, u64)>>,
    },
    /// A locked central queue sized by a rule.
    Central(Mutex<Queue>),
    /// Owned blocks and stealing.
    Stealing {
        owned: Vec<Owned>,
        plan: StealPlan,
        order: Vec<Vec<Vec<usize>>>,
        owner_chunk: usize,
    },
}

/// The central queue: the next unassigned iteration and the rule that sizes chunks.
struct Queue {
    next: usize,
    rule: Box<dyn ChunkRule>,
}

/// One participant's remaining iterations, shared with thieves.
struct Owned(Mutex<Range<usize>>);

impl Owned {
    fn lock(&self) -> std::sync::MutexGuard<'_, Range<usize>> {
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// One participant's place in a [`Dispenser`]: its index, its private state (a stealing
/// participant's random generator and last victim, an mFAC participant's batch plan), and
/// the chunk it holds, for timed rules.
#[derive(Debug)]
pub struct Cursor {
    participant: usize,
    /// Who the rule learns about (a pool worker, a team member): the participant by default.
    worker: usize,
    /// Static, block-cyclic: the next chunk number of this participant's.
    position: usize,
    rng: XorShift64Star,
    last_victim: usize,
    plan: Option<Batches>,
    /// The chunk handed out last: its start time and length, while a timed rule waits for it.
    held: Option<(Instant, u64)>,
    /// The chunk handed out last (`Dispenser::current`).
    current: Range<usize>,
}

impl Cursor {
    /// The participant this cursor belongs to.
    pub fn participant(&self) -> usize {
        self.participant
    }

    /// The chunk handed out last (empty before the first).
    pub fn current(&self) -> std::ops::Range<usize> {
        self.current.clone()
    }

    /// Sets who adaptive rules learn about for this participant's chunks (by default the
    /// participant's index; `exec.rs` gives the pool worker running it).
    pub(crate) fn with_worker(mut self, worker: usize) -> Self {
        self.worker = worker;
        self
    }
}

impl Dispenser {
    /// A dispenser of `range` for `participants` (at least 1) under the resolved
    /// `schedule`, starting from `history`. Automatic schedules (`auto`, the selectors
    /// before their choice) run as static-steal with an automatic chunk.
    pub(crate) fn new(
        range: Range<usize>,
        participants: usize,
        schedule: &Schedule,
        history: &LoopHistory,
    ) -> Self {
        let p = participants.max(1);
        let n = range.len();
        let source = if n == 0 {
            Source::Empty
        } else {
            match plan(schedule) {
                Plan::StaticBlock => Source::Static,
                Plan::BlockCyclic { chunk } => Source::BlockCyclic {
                    chunk: chunk.max(1),
                },
                Plan::Stealing(s) => stealing(&range, p, s),
                Plan::Auto => stealing(
                    &range,
                    p,
                    StealPlan {
                        victims: VictimOrder::RoundRobin,
                        amount: None,
                        owner_chunk: 0,
                    },
                ),
                Plan::Central => {
                    let shape = LoopShape {
                        iterations: n as u64,
                        workers: p,
                    };
                    match central_rule(schedule, shape, history) {
                        Some(rule) => {
                            central(&range, p, rule, numbered_plan(schedule, shape, history))
                        }
                        None => Source::Static,
                    }
                }
            }
        };
        Dispenser {
            range,
            participants: p,
            source,
            schedule: schedule.clone(),
            started: Instant::now(),
            chunks: AtomicU64::new(0),
            steals: AtomicU64::new(0),
            member: None,
        }
    }

    pub(crate) fn set_member(&mut self, i: usize) {
        self.member = Some(i);
    }

    pub(crate) fn member(&self) -> Option<usize> {
        self.member
    }

    /// The number of participants the chunks are dealt to.
    pub fn participants(&self) -> usize {
        self.participants
    }

    /// The schedule that runs.
    pub fn schedule(&self) -> &Schedule {
        &self.schedule
    }

    /// The range the chunks cover.
    pub fn range(&self) -> Range<usize> {
        self.range.clone()
    }

    /// The cursor of participant `participant` (below [`Dispenser::participants`]; one per
    /// participant and execution).
    pub fn cursor(&self, participant: usize) -> Cursor {
        let p = self.participants;
        let plan = match &self.source {
            Source::Numbered { plan, .. } => Some(plan.clone()),
            _ => None,
        };
        Cursor {
            participant,
            worker: participant,
            position: participant,
            rng: XorShift64Star::new(participant as u64 ^ 0x6c6f_6f70),
            last_victim: (participant + 1) % p,
            plan,
            held: None,
            current: self.range.start..self.range.start,
        }
    }

    /// The next chunk for `cursor`'s participant, or None when the loop has none left for
    /// it. Chunks are never empty and never overlap; together they cover the range.
    pub fn next(&self, cursor: &mut Cursor) -> Option<Range<usize>> {
        let held = cursor.held.take();
        let chunk = self.take(cursor, held);
        if let Some(c) = &chunk {
            self.chunks.fetch_add(1, Ordering::Relaxed);
            cursor.current = c.clone();
        }
        chunk
    }

    fn take(&self, cursor: &mut Cursor, held: Option<(Instant, u64)>) -> Option<Range<usize>> {
        let p = self.participants;
        let range = &self.range;
        let n = range.len();
        let i = cursor.participant;
        let w = cursor.worker % p;
        let elapsed = |(t, len): (Instant, u64)| (len, t.elapsed().as_nanos() as u64);
        match &self.source {
            Source::Empty => None,
            Source::Static => {
                let k = p.min(n);
                if cursor.position != i || i >= k {
                    return None;
                }
                cursor.position = usize::MAX;
                let (lo, hi) = block(range, i, k);
                (lo < hi).then_some(lo..hi)
            }
            Source::BlockCyclic { chunk } => {
                let chunks = n.div_ceil(*chunk);
                let c = cursor.position;
                if c >= chunks {
                    return None;
                }
                cursor.position = c.saturating_add(p);
                let lo = range.start + c * chunk;
                Some(lo..(lo + chunk).min(range.end))
            }
            Source::Fixed { next, k } => {
                let lo = next.fetch_add(*k, Ordering::Relaxed);
                (lo < range.end).then(|| lo..(lo + k).min(range.end))
            }
            Source::Numbered {
                next, log, timed, ..
            } => {
                if let Some(h) = held {
                    let (len, ns) = elapsed(h);
                    log.lock()
                        .unwrap_or_else(|e| e.into_inner())
                        .push((w, len, ns));
                }
                let k = next.fetch_add(1, Ordering::Relaxed);
                let plan = cursor.plan.as_mut()?;
                let (offset, len) = plan.chunk(k)?;
                // Both fit in usize: they lie within `range`.
                let lo = range.start + offset as usize;
                if *timed {
                    cursor.held = Some((Instant::now(), len));
                }
                Some(lo..lo + len as usize)
            }
            Source::Central(queue) => {
                let mut q = queue.lock().unwrap_or_else(|e| e.into_inner());
                if let Some(h) = held {
                    let (len, ns) = elapsed(h);
                    q.rule.chunk_done(w, len, ns);
                }
                if q.next >= range.end {
                    return None;
                }
                let remaining = (range.end - q.next) as u64;
                let size = q.rule.next_chunk(w, remaining).clamp(1, remaining) as usize;
                let lo = q.next;
                q.next += size;
                if q.rule.wants_timing() {
                    cursor.held = Some((Instant::now(), size as u64));
                }
                Some(lo..lo + size)
            }
            Source::Stealing {
                owned,
                plan,
                order,
                owner_chunk,
            } => {
                let k = owned.len();
                // A participant that ran the loop's last chunk stops: the chunks a thread
                // gets must end with the last iteration if it gets that one (OpenMP's
                // `lastprivate` under GCC reads the last chunk's end); the other owners
                // still drain every range.
                if i >= k || cursor.position == usize::MAX {
                    return None;
                }
                loop {
                    {
                        let mut own = owned[i].lock();
                        if !own.is_empty() {
                            let hi = own.start.saturating_add(*owner_chunk).min(own.end);
                            let c = own.start..hi;
                            own.start = hi;
                            if hi == range.end {
                                cursor.position = usize::MAX;
                            }
                            return Some(c);
                        }
                    }
                    let steal = Steal {
                        thief: i,
                        owned,
                        plan: *plan,
                        owner_chunk: *owner_chunk,
                    };
                    let (victim, stolen) =
                        steal.once(&order[i], &mut cursor.rng, cursor.last_victim)?;
                    self.steals.fetch_add(1, Ordering::Relaxed);
                    cursor.last_victim = victim;
                    *owned[i].lock() = stolen;
                }
            }
        }
    }

    /// How many participants can get a chunk at all (the others get None at once).
    pub(crate) fn active(&self) -> usize {
        let (p, n) = (self.participants, self.range.len());
        match &self.source {
            Source::Empty => 0,
            Source::Static => p.min(n),
            Source::BlockCyclic { chunk } => p.min(n.div_ceil(*chunk)),
            Source::Stealing { owned, .. } => owned.len(),
            _ => p,
        }
    }

    /// Whether the schedule learns each chunk's time (then participants time their chunks).
    pub(crate) fn timed(&self) -> bool {
        match &self.source {
            Source::Numbered { timed, .. } => *timed,
            Source::Central(q) => q
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .rule
                .wants_timing(),
            _ => false,
        }
    }

    /// Chunks handed out so far, steals included.
    pub fn chunks(&self) -> u64 {
        self.chunks.load(Ordering::Relaxed)
    }

    /// Successful steals so far (stealing schedules only).
    pub fn steals(&self) -> u64 {
        self.steals.load(Ordering::Relaxed)
    }

    /// The time since the dispenser was made.
    pub fn elapsed(&self) -> std::time::Duration {
        self.started.elapsed()
    }

    /// Lets the rule learn from this execution (into `history`), once every participant
    /// asked until it got None.
    pub(crate) fn learn(&self, history: &mut LoopHistory) {
        match &self.source {
            Source::Central(queue) => queue
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .rule
                .finish(history),
            Source::Numbered { rule, log, .. } => {
                let mut rule = rule.lock().unwrap_or_else(|e| e.into_inner());
                for (w, iterations, ns) in log.lock().unwrap_or_else(|e| e.into_inner()).drain(..) {
                    rule.chunk_done(w, iterations, ns);
                }
                rule.finish(history);
            }
            _ => {}
        }
    }
}

impl std::fmt::Debug for Dispenser {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Dispenser")
            .field("range", &self.range)
            .field("participants", &self.participants)
            .field("schedule", &self.schedule.to_string())
            .finish_non_exhaustive()
    }
}

/// The central sources: SS's atomic counter, mFAC's numbered chunks, or the locked queue.
fn central(
    range: &Range<usize>,
    p: usize,
    rule: Box<dyn ChunkRule>,
    numbered: Option<Batches>,
) -> Source {
    if let Some(k) = rule.fixed_chunk() {
        let k = usize::try_from(k).unwrap_or(usize::MAX).max(1);
        // `fetch_add` may carry the counter up to `P` chunks past the end: only when that
        // cannot overflow.
        if range.end.checked_add(k.saturating_mul(p)).is_some() {
            return Source::Fixed {
                next: AtomicUsize::new(range.start),
                k,
            };
        }
    }
    if let Some(plan) = numbered {
        return Source::Numbered {
            next: AtomicU64::new(0),
            plan,
            timed: rule.wants_timing(),
            rule: Mutex::new(rule),
            log: Mutex::new(Vec::new()),
        };
    }
    Source::Central(Mutex::new(Queue {
        next: range.start,
        rule,
    }))
}

fn stealing(range: &Range<usize>, p: usize, plan: StealPlan) -> Source {
    let n = range.len();
    let k = p.min(n);
    let owned = (0..k)
        .map(|i| {
            let (lo, hi) = block(range, i, k);
            Owned(Mutex::new(lo..hi))
        })
        .collect();
    let owner_chunk = if plan.owner_chunk > 0 {
        plan.owner_chunk
    } else {
        // About 64 chunks per block: small enough that most of a block stays stealable.
        (n / (k * 64)).max(1)
    };
    Source::Stealing {
        owned,
        plan,
        order: victim_order(plan.victims, k),
        owner_chunk,
    }
}

/// Block `i` of `k` even blocks of `range` (in u128: `i·n` may not fit in usize).
fn block(range: &Range<usize>, i: usize, k: usize) -> (usize, usize) {
    let n = range.len() as u128;
    let at = |j: usize| range.start + (j as u128 * n / k as u128) as usize;
    (at(i), at(i + 1))
}

/// Victims grouped by preference, per thief: `Local` puts the thief's NUMA node first.
fn victim_order(order: VictimOrder, k: usize) -> Vec<Vec<Vec<usize>>> {
    let tiers = |thief: usize| -> Vec<Vec<usize>> {
        let others: Vec<usize> = (0..k).filter(|&v| v != thief).collect();
        if order != VictimOrder::Local {
            return vec![others];
        }
        let topo = topology();
        let cpus = topo.worker_cpus(k);
        let node = |w: usize| topo.node(cpus[w]);
        let (near, far): (Vec<usize>, Vec<usize>) =
            others.into_iter().partition(|&v| node(v) == node(thief));
        vec![near, far]
    };
    (0..k).map(tiers).collect()
}

fn topology() -> &'static crate::policy::Topology {
    static TOPOLOGY: std::sync::OnceLock<crate::policy::Topology> = std::sync::OnceLock::new();
    TOPOLOGY.get_or_init(crate::policy::Topology::detect)
}

/// One thief's search for a victim with work.
struct Steal<'a> {
    thief: usize,
    owned: &'a [Owned],
    plan: StealPlan,
    owner_chunk: usize,
}

impl Steal<'_> {
    /// Returns the victim and the range taken from it, or None after a whole pass.
    fn once(
        &self,
        tiers: &[Vec<usize>],
        rng: &mut XorShift64Star,
        last_victim: usize,
    ) -> Option<(usize, Range<usize>)> {
        let k = self.owned.len();
        let take = |v: usize| -> Option<Range<usize>> {
            let mut r = self.owned[v].lock();
            let left = r.len();
            let amount = match self.plan.amount {
                None => {
                    if left < self.owner_chunk.max(1).saturating_mul(2) {
                        return None;
                    }
                    (left / 4).max(1)
                }
                Some(amount) => amount.of(left, k),
            };
            if amount == 0 {
                return None;
            }
            let cut = r.end - amount;
            let stolen = cut..r.end;
            r.end = cut;
            Some(stolen)
        };
        match self.plan.victims {
            VictimOrder::RoundRobin => {
                // From the last victim on, once round.
                (0..k)
                    .map(|step| (last_victim + step) % k)
                    .filter(|&v| v != self.thief)
                    .find_map(|v| take(v).map(|r| (v, r)))
            }
            VictimOrder::Random | VictimOrder::Local => {
                for tier in tiers {
                    // Random order within the tier; a victim found empty gets weight zero
                    // for the rest of this search (ranges only shrink, or are refilled by
                    // their owner's own steals, which that owner then runs itself).
                    let mut left: Vec<usize> = tier.clone();
                    while !left.is_empty() {
                        let j = rng.below(left.len());
                        let v = left.swap_remove(j);
                        if let Some(r) = take(v) {
                            return Some((v, r));
                        }
                    }
                }
                None
            }
        }
    }
}
