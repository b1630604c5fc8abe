//! Per-worker traces: what each worker of a pool did, and when.
//!
//! [`crate::ThreadPool::start_trace`] starts a recording, [`crate::ThreadPool::take_trace`]
//! ends it and returns a [`Trace`]: per worker, its task spans, loop chunks, runs of failed
//! steal attempts, idle, doze and park spans, and instant events (successful steals with their
//! victim, exposure requests and signals, the search engine's marks). `magpie` writes it as a
//! Chrome trace-event file (`--trace FILE`; the codec is `magpie_measure::trace`).
//!
//! ```
//! use magpie::trace::EventKind;
//!
//! let pool = magpie::ThreadPoolBuilder::new().num_workers(2).build().unwrap();
//! pool.start_trace();
//! pool.scope(|s| {
//!     for _ in 0..10 {
//!         s.spawn(|_| { std::hint::black_box((0..1000u64).sum::<u64>()); });
//!     }
//! });
//! let trace = pool.take_trace();
//! assert_eq!(trace.workers.len(), 2);
//! // The ten spawned jobs and the scope's own job, which ran on a worker.
//! let tasks = trace.events().filter(|(_, e)| e.kind == EventKind::Task).count();
//! assert_eq!(tasks, 11);
//! for (_, e) in trace.events() {
//!     assert!(e.start_ns <= e.end_ns && e.end_ns <= trace.duration_ns);
//! }
//! ```
//!
//! How it records (the design note is `trace/README.md`): each worker appends to its own
//! buffer, chunks of words that only it writes and that it publishes with a release store of
//! their length; the collector reads the published prefix. With no recording running, every
//! event site costs one predictable branch on a relaxed load of the worker's flag: no clock
//! read, no allocation.

use std::cell::{Cell, RefCell};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Instant;

use crossbeam_utils::CachePadded;

#[cfg(feature = "serde")]
mod names;

/// Everything recorded by one pool between [`crate::ThreadPool::start_trace`] and
/// [`crate::ThreadPool::take_trace`].
#[derive(Debug, Clone, Default, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Trace {
    /// One entry per worker, by worker index.
    pub workers: Vec<WorkerTrace>,
    /// Nanoseconds from the start of the recording to the moment it was taken; every event
    /// lies in `0..=duration_ns`.
    pub duration_ns: u64,
}

impl Trace {
    /// Every event with its worker index, worker by worker.
    pub fn events(&self) -> impl Iterator<Item = (usize, &Event)> + '_ {
        self.workers
            .iter()
            .enumerate()
            .flat_map(|(w, t)| t.events.iter().map(move |e| (w, e)))
    }
}

/// What one worker did.
#[derive(Debug, Clone, Default, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct WorkerTrace {
    /// Its events, by start time (of two spans that start together, the longer first, so
    /// that a span comes before the spans nested in it).
    pub events: Vec<Event>,
}

/// One event: a span (`start_ns < end_ns` usually) or an instant (`start_ns == end_ns`);
/// [`EventKind::is_span`] says which. Times are nanoseconds since the start of the recording.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Event {
    /// When it started (an instant: when it happened).
    pub start_ns: u64,
    /// When it ended (an instant: `start_ns`). A task still running when the trace was
    /// taken ends at [`Trace::duration_ns`].
    pub end_ns: u64,
    /// What happened.
    pub kind: EventKind,
}

impl Event {
    /// `end_ns - start_ns`.
    pub fn duration_ns(&self) -> u64 {
        self.end_ns - self.start_ns
    }
}

/// A [`EventKind::Mark`]'s category or name (`&'static str`; the alias keeps serde from
/// borrowing it from the input: a decoded mark's names are interned, feature `serde`).
pub type MarkName = &'static str;

/// What an [`Event`] records. The category and name of each kind in a Chrome trace are
/// [`EventKind::category`] and [`EventKind::name`].
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[non_exhaustive]
pub enum EventKind {
    /// Span: the worker ran a job (taken from its own deque while waiting, stolen, or sent
    /// to the pool from outside). A job that runs other jobs while it waits for a stolen
    /// half holds their spans nested in its own. The second half of a `join` that its owner
    /// takes back and runs inline is part of the span of the job around it.
    Task,
    /// Span: the worker ran iterations `start..end` of a parallel loop as one chunk.
    Chunk {
        /// First iteration.
        start: usize,
        /// One past the last iteration.
        end: usize,
    },
    /// Span: the worker searched for work (probing victims, spinning between rounds) and
    /// every one of its `attempts` steal attempts failed.
    StealAttempts {
        /// Failed steal attempts during the span.
        attempts: u64,
    },
    /// Span: the worker kept searching for work but yielded the CPU between rounds (its
    /// idle policy answered `Yield`).
    Idle,
    /// Span: a timed sleep of the idle policy (a backoff, a quantum).
    Doze,
    /// Span: the worker was parked until new work woke it.
    Park,
    /// Instant: the worker stole a job from worker `victim`.
    Steal {
        /// The worker it stole from.
        victim: usize,
    },
    /// Instant: the worker, as a thief, asked worker `victim` to expose private work (a
    /// split deque's targeted flag or signal).
    ExposureRequest {
        /// The worker asked.
        victim: usize,
    },
    /// Instant: the exposure request was a signal sent to worker `victim`'s thread.
    Signal {
        /// The worker signalled.
        victim: usize,
    },
    /// Instant: a mark of a layer above the runtime (the search engine's incumbents and
    /// hand-overs), with its own category, name and named values.
    Mark {
        /// The category (`search`).
        #[cfg_attr(feature = "serde", serde(deserialize_with = "names::name"))]
        category: MarkName,
        /// The name (`incumbent`, `handover`).
        #[cfg_attr(feature = "serde", serde(deserialize_with = "names::name"))]
        name: MarkName,
        /// Named values (`value`, `nodes`; `thief`).
        #[cfg_attr(feature = "serde", serde(deserialize_with = "names::args"))]
        args: Vec<(&'static str, i64)>,
    },
}

impl EventKind {
    /// True for the kinds that last (tasks, chunks, steal attempts, idle, doze, park);
    /// false for instants.
    pub fn is_span(&self) -> bool {
        matches!(
            self,
            EventKind::Task
                | EventKind::Chunk { .. }
                | EventKind::StealAttempts { .. }
                | EventKind::Idle
                | EventKind::Doze
                | EventKind::Park
        )
    }

    /// The Chrome trace category: `task`, `chunk`, `steal`, `idle`, `doze`, `park`,
    /// `expose`, or a mark's own.
    pub fn category(&self) -> &'static str {
        match self {
            EventKind::Task => "task",
            EventKind::Chunk { .. } => "chunk",
            EventKind::StealAttempts { .. } | EventKind::Steal { .. } => "steal",
            EventKind::Idle => "idle",
            EventKind::Doze => "doze",
            EventKind::Park => "park",
            EventKind::ExposureRequest { .. } | EventKind::Signal { .. } => "expose",
            EventKind::Mark { category, .. } => category,
        }
    }

    /// The Chrome trace name: `task`, `chunk`, `steal attempts`, `idle`, `doze`, `park`,
    /// `steal`, `exposure request`, `signal`, or a mark's own.
    pub fn name(&self) -> &'static str {
        match self {
            EventKind::Task => "task",
            EventKind::Chunk { .. } => "chunk",
            EventKind::StealAttempts { .. } => "steal attempts",
            EventKind::Idle => "idle",
            EventKind::Doze => "doze",
            EventKind::Park => "park",
            EventKind::Steal { .. } => "steal",
            EventKind::ExposureRequest { .. } => "exposure request",
            EventKind::Signal { .. } => "signal",
            EventKind::Mark { name, .. } => name,
        }
    }
}

// ---------------------------------------------------------------------------------------
// Recording: the words of one worker's buffer.
//
// An event is a header word (kind in the top 8 bits, the time in ns since the registry's
// epoch in the low 56) and the kind's fixed number of words after it; a mark carries its
// argument count and the indices of its strings in the worker's name table.

const TASK_BEGIN: u64 = 1;
const TASK_END: u64 = 2;
const STEAL_ATTEMPTS: u64 = 3; // end, attempts
const IDLE: u64 = 4; // end
const DOZE: u64 = 5; // end
const PARK: u64 = 6; // end
const CHUNK: u64 = 7; // end, start iteration, end iteration
const STEAL: u64 = 8; // victim
const EXPOSURE_REQUEST: u64 = 9; // victim
const SIGNAL: u64 = 10; // victim
const MARK: u64 = 11; // category, name, n, then n × (key, value)

const TIME_BITS: u32 = 56;
const TIME_MASK: u64 = (1 << TIME_BITS) - 1;
/// The most arguments a mark keeps (more are dropped).
pub(crate) const MAX_MARK_ARGS: usize = 4;
/// Words per buffer chunk: 4096 events of four words. A chunk is handed to the collector
/// (under its mutex) once, when it is started.
const CHUNK_WORDS: usize = 4 * 4096;

fn header(kind: u64, t: u64) -> u64 {
    kind << TIME_BITS | (t & TIME_MASK)
}

/// One chunk of a worker's buffer. Only the owner writes `words`, each word once, before it
/// publishes a longer `len` (release); the collector reads `len` (acquire), then the words
/// below it. Every word is an atomic, so no access is a data race whatever the timing.
struct Chunk {
    session: u64,
    len: AtomicUsize,
    words: Box<[AtomicU64]>,
}

impl Chunk {
    fn new(session: u64) -> Chunk {
        Chunk {
            session,
            len: AtomicUsize::new(0),
            words: (0..CHUNK_WORDS).map(|_| AtomicU64::new(0)).collect(),
        }
    }
}

/// The shared half of one worker's buffer: the recording flag, and the chunks of the current
/// recording (`session`) for the collector.
pub(crate) struct Log {
    on: CachePadded<AtomicBool>,
    session: AtomicU64,
    chunks: Mutex<Vec<Arc<Chunk>>>,
    /// The strings of marks, by index (see [`Recorder::mark`]).
    names: Mutex<Vec<&'static str>>,
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

impl Log {
    pub(crate) fn new() -> Arc<Log> {
        Arc::new(Log {
            on: CachePadded::new(AtomicBool::new(false)),
            session: AtomicU64::new(0),
            chunks: Mutex::new(Vec::new()),
            names: Mutex::new(Vec::new()),
        })
    }

    /// Starts a new recording: what the previous one left is dropped.
    fn begin(&self) {
        let mut chunks = lock(&self.chunks);
        chunks.clear();
        self.session.fetch_add(1, Ordering::Relaxed);
        self.on.store(true, Ordering::Release);
    }

    /// Ends the recording; returns the words its owner published.
    fn end(&self) -> Vec<u64> {
        self.on.store(false, Ordering::Relaxed);
        let chunks = std::mem::take(&mut *lock(&self.chunks));
        let session = self.session.load(Ordering::Relaxed);
        let mut words = Vec::new();
        for c in chunks.iter().filter(|c| c.session == session) {
            let len = c.len.load(Ordering::Acquire);
            words.extend(c.words[..len].iter().map(|w| w.load(Ordering::Relaxed)));
        }
        words
    }
}

/// Which stretch of searching a worker is in (see `trace/README.md`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    None,
    Stealing,
    Idle,
}

/// The owner's half of one worker's buffer; lives in the worker's `WorkerThread`, used by
/// that thread only.
pub(crate) struct Recorder {
    log: Arc<Log>,
    epoch: Instant,
    chunk: RefCell<Option<Arc<Chunk>>>,
    /// The owner's copy of its chunk's published length.
    len: Cell<usize>,
    phase: Cell<Phase>,
    phase_start: Cell<u64>,
    attempts: Cell<u64>,
    /// The owner's copy of `log.names`.
    names: RefCell<Vec<&'static str>>,
}

impl Recorder {
    /// The recorder of the worker whose shared half is `log`; times count from `epoch`.
    pub(crate) fn new(log: Arc<Log>, epoch: Instant) -> Recorder {
        Recorder {
            log,
            epoch,
            chunk: RefCell::new(None),
            len: Cell::new(0),
            phase: Cell::new(Phase::None),
            phase_start: Cell::new(0),
            attempts: Cell::new(0),
            names: RefCell::new(Vec::new()),
        }
    }

    /// Whether a recording is running: the one branch of every event site.
    #[inline(always)]
    pub(crate) fn on(&self) -> bool {
        self.log.on.load(Ordering::Relaxed)
    }

    /// Now, in ns since the epoch.
    #[inline]
    pub(crate) fn now(&self) -> u64 {
        self.epoch.elapsed().as_nanos() as u64
    }

    /// Appends one event (`words[0]` its header) and publishes it.
    fn push(&self, words: &[u64]) {
        let session = self.log.session.load(Ordering::Relaxed);
        let mut current = self.chunk.borrow_mut();
        let chunk = match &*current {
            Some(c) if c.session == session && self.len.get() + words.len() <= CHUNK_WORDS => c,
            _ => {
                let c = Arc::new(Chunk::new(session));
                lock(&self.log.chunks).push(Arc::clone(&c));
                self.len.set(0);
                current.insert(c)
            }
        };
        let at = self.len.get();
        for (slot, &w) in chunk.words[at..at + words.len()].iter().zip(words) {
            slot.store(w, Ordering::Relaxed);
        }
        let len = at + words.len();
        chunk.len.store(len, Ordering::Release);
        self.len.set(len);
    }

    pub(crate) fn task_begin(&self, t: u64) {
        self.push(&[header(TASK_BEGIN, t)]);
    }

    pub(crate) fn task_end(&self, t: u64) {
        self.push(&[header(TASK_END, t)]);
    }

    /// A loop chunk of iterations `range` ran from `t0` to `t1`.
    pub(crate) fn chunk(&self, t0: u64, t1: u64, range: std::ops::Range<usize>) {
        self.push(&[header(CHUNK, t0), t1, range.start as u64, range.end as u64]);
    }

    /// A successful steal from `victim` at `t`.
    pub(crate) fn steal(&self, t: u64, victim: usize) {
        self.push(&[header(STEAL, t), victim as u64]);
    }

    /// An exposure request to `victim` (and a signal, if `signal`) at `t`.
    pub(crate) fn exposure(&self, t: u64, victim: usize, signal: bool) {
        self.push(&[header(EXPOSURE_REQUEST, t), victim as u64]);
        if signal {
            self.push(&[header(SIGNAL, t), victim as u64]);
        }
    }

    /// A doze (`doze`) or park from `t0` to `t1`.
    pub(crate) fn sleep(&self, t0: u64, t1: u64, doze: bool) {
        self.push(&[header(if doze { DOZE } else { PARK }, t0), t1]);
    }

    /// The worker starts searching for work at `t`.
    pub(crate) fn search_begin(&self, t: u64) {
        self.search_end(t);
        self.phase.set(Phase::Stealing);
        self.phase_start.set(t);
    }

    /// One steal attempt failed.
    #[inline]
    pub(crate) fn failed_attempt(&self) {
        self.attempts.set(self.attempts.get() + 1);
    }

    /// The idle policy answered `Spin` (`idle == false`) or `Yield` (`idle == true`):
    /// switches the phase, reading the clock only if it changes.
    pub(crate) fn search_phase(&self, idle: bool) {
        let to = if idle { Phase::Idle } else { Phase::Stealing };
        let from = self.phase.get();
        if from != Phase::None && from != to {
            let t = self.now();
            self.search_end(t);
            self.phase.set(to);
            self.phase_start.set(t);
        }
    }

    /// The search stops at `t` (work found, a doze or park starts, the awaited latch is
    /// set): records the phase that was running; true if one was.
    pub(crate) fn search_end(&self, t: u64) -> bool {
        let t0 = self.phase_start.get();
        let was = self.phase.get();
        match was {
            Phase::Stealing if self.attempts.get() > 0 => {
                self.push(&[header(STEAL_ATTEMPTS, t0), t, self.attempts.get()])
            }
            Phase::Idle => self.push(&[header(IDLE, t0), t]),
            _ => {}
        }
        self.phase.set(Phase::None);
        self.attempts.set(0);
        was != Phase::None
    }

    /// The index of `s` in this worker's name table, adding it (to the shared copy first,
    /// so that the collector knows it before any event that uses it is published).
    fn name_index(&self, s: &'static str) -> u64 {
        let mut names = self.names.borrow_mut();
        if let Some(i) = names.iter().position(|n| std::ptr::eq(*n, s) || *n == s) {
            return i as u64;
        }
        lock(&self.log.names).push(s);
        names.push(s);
        (names.len() - 1) as u64
    }

    /// A mark (see [`instant`]) at `t`.
    pub(crate) fn mark(
        &self,
        t: u64,
        category: &'static str,
        name: &'static str,
        args: &[(&'static str, i64)],
    ) {
        let args = &args[..args.len().min(MAX_MARK_ARGS)];
        let mut words = [0u64; 4 + 2 * MAX_MARK_ARGS];
        words[0] = header(MARK, t);
        words[1] = self.name_index(category);
        words[2] = self.name_index(name);
        words[3] = args.len() as u64;
        for (i, (k, v)) in args.iter().enumerate() {
            words[4 + 2 * i] = self.name_index(k);
            words[5 + 2 * i] = *v as u64;
        }
        self.push(&words[..4 + 2 * args.len()]);
    }
}

/// Records a mark on the current worker's trace, if it is a worker of a pool that is
/// recording: the search engine's incumbents (`instant("search", "incumbent", &[("value",
/// v), ("nodes", n)])`) and hand-overs (`instant("search", "handover", &[("thief", t)])`).
/// At most [`MAX_MARK_ARGS`] arguments are kept. Costs a thread-local read and one branch
/// when no recording runs.
pub(crate) fn instant(category: &'static str, name: &'static str, args: &[(&'static str, i64)]) {
    let wt = crate::runtime::registry::WorkerThread::current();
    // SAFETY: a non-null TLS pointer is this thread's live WorkerThread.
    if let Some(wt) = unsafe { wt.as_ref() } {
        let r = wt.recorder();
        if r.on() {
            r.mark(r.now(), category, name, args);
        }
    }
}

// ---------------------------------------------------------------------------------------
// Collecting

/// A pool's recordings: one log per worker, and the start of the running recording.
pub(crate) struct Recording {
    logs: Vec<Arc<Log>>,
    start_ns: Mutex<Option<u64>>,
}

impl Recording {
    pub(crate) fn new(logs: Vec<Arc<Log>>) -> Recording {
        Recording {
            logs,
            start_ns: Mutex::new(None),
        }
    }

    /// Starts a recording at `now` (ns since the epoch), dropping one that runs.
    pub(crate) fn start(&self, now: u64) {
        let mut start = lock(&self.start_ns);
        *start = Some(now);
        for log in &self.logs {
            log.begin();
        }
    }

    /// Ends the recording; `now` reads the clock (after the buffers were read, so that every
    /// event lies before it). Without a recording: an empty trace.
    pub(crate) fn take(&self, now: impl Fn() -> u64) -> Trace {
        let mut start = lock(&self.start_ns);
        let Some(start_ns) = start.take() else {
            return Trace {
                workers: vec![WorkerTrace::default(); self.logs.len()],
                duration_ns: 0,
            };
        };
        let words: Vec<Vec<u64>> = self.logs.iter().map(|l| l.end()).collect();
        let end_ns = now().max(start_ns);
        let workers = words
            .iter()
            .zip(&self.logs)
            .map(|(w, log)| decode(w, &lock(&log.names), start_ns, end_ns))
            .collect();
        Trace {
            workers,
            duration_ns: end_ns - start_ns,
        }
    }
}

/// One worker's events from its words; times relative to `start`, clamped to
/// `start..=end`.
fn decode(words: &[u64], names: &[&'static str], start: u64, end: u64) -> WorkerTrace {
    let rel = |t: u64| t.clamp(start, end) - start;
    let name = |i: u64| names.get(i as usize).copied().unwrap_or("?");
    let mut events = Vec::new();
    let mut open: Vec<u64> = Vec::new();
    let mut i = 0;
    let word = |j: usize| words.get(j).copied().unwrap_or(0);
    while i < words.len() {
        let h = words[i];
        let kind = h >> TIME_BITS;
        let t = rel(h & TIME_MASK);
        let span = |kind: EventKind, t1: u64| Event {
            start_ns: t,
            end_ns: rel(t1).max(t),
            kind,
        };
        let instant = |kind: EventKind| Event {
            start_ns: t,
            end_ns: t,
            kind,
        };
        let (event, size) = match kind {
            TASK_BEGIN => {
                open.push(t);
                (None, 1)
            }
            TASK_END => (
                // An end without a begin: the task started before the recording.
                open.pop().map(|t0| Event {
                    start_ns: t0,
                    end_ns: t.max(t0),
                    kind: EventKind::Task,
                }),
                1,
            ),
            STEAL_ATTEMPTS => (
                Some(span(
                    EventKind::StealAttempts {
                        attempts: word(i + 2),
                    },
                    word(i + 1),
                )),
                3,
            ),
            IDLE => (Some(span(EventKind::Idle, word(i + 1))), 2),
            DOZE => (Some(span(EventKind::Doze, word(i + 1))), 2),
            PARK => (Some(span(EventKind::Park, word(i + 1))), 2),
            CHUNK => (
                Some(span(
                    EventKind::Chunk {
                        start: word(i + 2) as usize,
                        end: word(i + 3) as usize,
                    },
                    word(i + 1),
                )),
                4,
            ),
            STEAL => (
                Some(instant(EventKind::Steal {
                    victim: word(i + 1) as usize,
                })),
                2,
            ),
            EXPOSURE_REQUEST => (
                Some(instant(EventKind::ExposureRequest {
                    victim: word(i + 1) as usize,
                })),
                2,
            ),
            SIGNAL => (
                Some(instant(EventKind::Signal {
                    victim: word(i + 1) as usize,
                })),
                2,
            ),
            MARK => {
                let n = (word(i + 3) as usize).min(MAX_MARK_ARGS);
                let args = (0..n)
                    .map(|a| (name(word(i + 4 + 2 * a)), word(i + 5 + 2 * a) as i64))
                    .collect();
                (
                    Some(instant(EventKind::Mark {
                        category: name(word(i + 1)),
                        name: name(word(i + 2)),
                        args,
                    })),
                    4 + 2 * n,
                )
            }
            _ => unreachable!("trace word {h:#x} is no event header"),
        };
        events.extend(event);
        i += size;
    }
    // Tasks still running: they end now.
    events.extend(open.into_iter().map(|t0| Event {
        start_ns: t0,
        end_ns: end - start,
        kind: EventKind::Task,
    }));
    events.sort_by_key(|e| (e.start_ns, std::cmp::Reverse(e.end_ns)));
    WorkerTrace { events }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicBool;

    /// A writer appends numbered chunk events as fast as it can while a reader starts and
    /// takes recordings: every take is a gap-free run of consecutive numbers (each event
    /// whole, none twice), and some takes span several chunks.
    ///
    /// The writer is held to a budget of events per recording: unbounded, it outran the
    /// reader's decoding on a loaded machine, each recording longer than the last, until the
    /// process held 8 GB (CI killed it).
    #[test]
    fn concurrent_takes_see_whole_consecutive_events() {
        /// Events the writer may write per recording: eight chunks.
        const BUDGET: usize = 2 * CHUNK_WORDS;
        let log = Log::new();
        let recording = Recording::new(vec![Arc::clone(&log)]);
        let epoch = Instant::now();
        let stop = AtomicBool::new(false);
        let written = AtomicUsize::new(0);
        let allowed = AtomicUsize::new(BUDGET);
        recording.start(0);
        std::thread::scope(|s| {
            s.spawn(|| {
                let r = Recorder::new(Arc::clone(&log), epoch);
                let mut n = 0usize;
                while !stop.load(Ordering::Relaxed) {
                    if n >= allowed.load(Ordering::Relaxed) {
                        std::thread::yield_now();
                        continue;
                    }
                    if r.on() {
                        r.chunk(1, 2, n..n + 1);
                    }
                    n += 1;
                    written.store(n, Ordering::Relaxed);
                }
            });
            let mut longest = 0;
            // Where the writer was when the running recording started (at most).
            let mut from = 0;
            for round in 0..100 {
                // Every tenth recording lasts until three chunks' worth of events were
                // written since it started (within the budget); the others are taken at once.
                if round % 10 == 0 {
                    while written.load(Ordering::Relaxed) < from + 3 * CHUNK_WORDS / 4 {
                        std::thread::yield_now();
                    }
                }
                let trace = recording.take(|| 3);
                let starts: Vec<usize> = trace.workers[0]
                    .events
                    .iter()
                    .map(|e| match e.kind {
                        EventKind::Chunk { start, end } => {
                            assert_eq!(end, start + 1, "round {round}: a torn event");
                            start
                        }
                        ref k => panic!("round {round}: unexpected {k:?}"),
                    })
                    .collect();
                for w in starts.windows(2) {
                    assert_eq!(w[1], w[0] + 1, "round {round}: a gap or a repeat");
                }
                // The rest of the previous budget, spent before `allowed` moved, and this one.
                assert!(starts.len() <= 2 * BUDGET, "round {round}: over the budget");
                longest = longest.max(starts.len());
                recording.start(0);
                from = written.load(Ordering::Relaxed);
                allowed.store(from + BUDGET, Ordering::Relaxed);
            }
            stop.store(true, Ordering::Relaxed);
            // Events between a take's end and the next start are lost (a few at most).
            assert!(
                longest > CHUNK_WORDS / 4,
                "no recording crossed a chunk: {longest}"
            );
        });
    }

    #[test]
    fn decodes_nesting_marks_and_open_tasks() {
        let log = Log::new();
        let recording = Recording::new(vec![Arc::clone(&log)]);
        recording.start(100);
        let r = Recorder::new(Arc::clone(&log), Instant::now());
        r.task_end(101); // began before the recording: dropped
        r.task_begin(110);
        r.search_begin(120);
        r.failed_attempt();
        r.failed_attempt();
        r.search_end(130);
        r.search_begin(131);
        r.search_end(132); // no attempt: no span
        r.task_begin(140);
        r.steal(139, 3);
        r.mark(145, "search", "incumbent", &[("value", -7), ("nodes", 12)]);
        r.task_end(150);
        r.task_begin(160); // still open at the take
        let t = recording.take(|| 200);
        assert_eq!(t.duration_ns, 100);
        let got: Vec<(u64, u64, EventKind)> = t.workers[0]
            .events
            .iter()
            .map(|e| (e.start_ns, e.end_ns, e.kind.clone()))
            .collect();
        assert_eq!(
            got,
            vec![
                (10, 100, EventKind::Task),
                (20, 30, EventKind::StealAttempts { attempts: 2 }),
                (39, 39, EventKind::Steal { victim: 3 }),
                (40, 50, EventKind::Task),
                (
                    45,
                    45,
                    EventKind::Mark {
                        category: "search",
                        name: "incumbent",
                        args: vec![("value", -7), ("nodes", 12)]
                    }
                ),
                (60, 100, EventKind::Task),
            ]
        );
        // Off: nothing more is kept, and a take without a start is empty.
        assert!(!r.on());
        assert_eq!(
            recording.take(|| 300),
            Trace {
                workers: vec![WorkerTrace::default()],
                duration_ns: 0
            }
        );
    }
}
