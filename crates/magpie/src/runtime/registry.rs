//! The registry: one per pool. It owns the workers' thief handles, counters, sleep state,
//! the injector (work sent from outside the pool), each worker's broadcast queue and FIFO
//! (`broadcast.rs`, `fifo.rs`), and starts the workers (`worker.rs` has their loop).

use std::os::raw::c_int;
use std::sync::atomic::{fence, AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Instant;

use crossbeam_deque::Injector;
use crossbeam_utils::CachePadded;

use super::fifo::JobFifo;
use super::job::{JobRef, StackJob};
use super::latch::{CoreLatch, LockLatch, SpinLatch};
use super::priority::PriorityQueues;
use super::sleep::Sleep;
use super::thread::ThreadBuilder;
pub(crate) use super::worker::WorkerThread;
use super::worker::{adopt_current_thread, WorkerSeed};
use crate::deque::{chase_lev, split, DequeKind, DequeOwner, DequeStealer, Steal};
use crate::policy::idle::IdlePolicy;
use crate::policy::victim::{PoolView, VictimPolicy};
use crate::stats::{WorkerCounters, WorkerStats};
use crate::trace::{Log, Recording, Trace};

/// Handler for panics of `spawn`ed jobs, which have no caller to propagate to.
pub type PanicHandler = dyn Fn(Box<dyn std::any::Any + Send>) + Send + Sync;

/// Everything a registry needs to start, resolved and validated by the builder.
pub(crate) struct RegistryConfig {
    pub(crate) num_workers: usize,
    pub(crate) deque: DequeKind,
    pub(crate) victims: Arc<dyn VictimPolicy>,
    pub(crate) idle: Arc<dyn IdlePolicy>,
    pub(crate) signal: c_int,
    pub(crate) panic_handler: Option<Arc<PanicHandler>>,
    /// See [`crate::ThreadPoolBuilder::join_push_limit`].
    pub(crate) join_push_limit: usize,
    /// Called on each worker thread when it starts and before it exits (with its index).
    pub(crate) start_handler: Option<Arc<ThreadHandler>>,
    pub(crate) exit_handler: Option<Arc<ThreadHandler>>,
    /// Worker 0 is the thread that built the pool ([`crate::ThreadPoolBuilder::use_current_thread`]).
    pub(crate) use_current_thread: bool,
}

/// A thread start or exit handler (given the worker's index).
pub type ThreadHandler = dyn Fn(usize) + Send + Sync;

/// A worker's deque, owner side. An enum rather than a trait object so that `push`/`pop`
/// inline into `join` (one well-predicted branch).
pub(crate) enum LocalDeque {
    ChaseLev(chase_lev::Worker<JobRef>),
    Split(split::Worker<JobRef>),
}

pub(super) enum RemoteDeque {
    ChaseLev(chase_lev::Stealer<JobRef>),
    Split(split::Stealer<JobRef>),
}

impl RemoteDeque {
    #[inline]
    pub(super) fn steal(&self, c: &WorkerCounters) -> Steal<JobRef> {
        match self {
            RemoteDeque::ChaseLev(s) => s.steal(c),
            RemoteDeque::Split(s) => s.steal(c),
        }
    }

    pub(super) fn len_hint(&self) -> usize {
        match self {
            RemoteDeque::ChaseLev(s) => s.len_hint(),
            RemoteDeque::Split(s) => s.len_hint(),
        }
    }

    fn has_public_work(&self) -> bool {
        match self {
            RemoteDeque::ChaseLev(s) => s.public_len_hint() > 0,
            RemoteDeque::Split(s) => s.public_len_hint() > 0,
        }
    }
}

pub(super) const NOT_IDLE: u64 = u64::MAX;

pub(super) struct ThreadInfo {
    pub(super) stealer: RemoteDeque,
    pub(super) counters: CachePadded<WorkerCounters>,
    /// Set when the pool terminates; the worker's main loop waits on it.
    pub(super) terminate: CoreLatch,
    /// Start of the current idle / parked stretch (ns since the registry epoch), or NOT_IDLE;
    /// lets `stats()` count time a worker is spending idle right now.
    pub(super) idle_since: AtomicU64,
    pub(super) parked_since: AtomicU64,
    /// Whether the current `parked_since` stretch is a doze (a timed sleep) or a park.
    pub(super) dozing: AtomicBool,
    /// The shared half of the worker's trace buffer (`trace/`).
    pub(super) log: Arc<Log>,
    /// Jobs that only this worker may run (`broadcast`): it looks here right after its own
    /// deque, and a sleeper checks it before it blocks (`has_work`).
    pub(super) broadcasts: Injector<JobRef>,
    /// This worker's FIFO for `spawn_fifo` outside any `scope_fifo` (`fifo.rs`). In the
    /// registry, not on the worker's stack: a thief may run an indirection into it at any
    /// time while the registry lives.
    pub(super) fifo: JobFifo,
}

static NEXT_REGISTRY_ID: AtomicUsize = AtomicUsize::new(1);

/// The shared state of one pool.
pub(crate) struct Registry {
    id: usize,
    pub(super) infos: Vec<ThreadInfo>,
    pub(super) injector: Injector<JobRef>,
    /// Prioritised tasks (`spawn_with_priority`): a heap per worker and a shared one.
    pub(super) priority: PriorityQueues<JobRef>,
    sleep: Sleep,
    /// What keeps the pool running: one for its handle (the `ThreadPool`; the global pool's
    /// is never released) and one per `'static` job (`spawn`, `spawn_fifo`, a
    /// `spawn_broadcast` part) not yet run, as rayon-core counts them. The last release
    /// terminates the pool, so a spawned job still running when the handle is dropped can
    /// still broadcast, spawn and join on live workers.
    live: AtomicUsize,
    terminating: AtomicBool,
    pub(super) config: RegistryConfig,
    pub(super) epoch: Instant,
    /// ns since `epoch` of the last `reset_stats`.
    stats_reset_at: AtomicU64,
    /// The workers' trace logs and the running recording's start.
    recording: Recording,
}

impl Registry {
    /// Creates the registry and the owner halves of the deques, one per worker.
    fn new(config: RegistryConfig) -> (Arc<Registry>, Vec<LocalDeque>) {
        let n = config.num_workers;
        let mut locals = Vec::with_capacity(n);
        let mut infos = Vec::with_capacity(n);
        for index in 0..n {
            // The calling thread as worker 0 runs no worker loop and serves no exposure
            // request or signal: its deque is Chase-Lev, whose tasks every thief can take.
            let kind = if config.use_current_thread && index == 0 {
                DequeKind::ChaseLev
            } else {
                config.deque.resolve()
            };
            let (local, remote) = match kind {
                DequeKind::ChaseLev => {
                    let w = chase_lev::Worker::new();
                    let s = w.stealer();
                    (LocalDeque::ChaseLev(w), RemoteDeque::ChaseLev(s))
                }
                DequeKind::Split(exposure) => {
                    let w = split::Worker::new(exposure);
                    let s = w.stealer();
                    (LocalDeque::Split(w), RemoteDeque::Split(s))
                }
                DequeKind::Default => unreachable!("resolved"),
            };
            locals.push(local);
            infos.push(ThreadInfo {
                stealer: remote,
                counters: CachePadded::new(WorkerCounters::default()),
                terminate: CoreLatch::new(),
                idle_since: AtomicU64::new(NOT_IDLE),
                parked_since: AtomicU64::new(NOT_IDLE),
                dozing: AtomicBool::new(false),
                log: Log::new(),
                broadcasts: Injector::new(),
                fifo: JobFifo::new(),
            });
        }
        let recording = Recording::new(infos.iter().map(|i| Arc::clone(&i.log)).collect());
        let registry = Arc::new(Registry {
            id: NEXT_REGISTRY_ID.fetch_add(1, Ordering::Relaxed),
            infos,
            injector: Injector::new(),
            priority: PriorityQueues::new(n),
            sleep: Sleep::new(n),
            live: AtomicUsize::new(1),
            terminating: AtomicBool::new(false),
            config,
            epoch: Instant::now(),
            stats_reset_at: AtomicU64::new(0),
            recording,
        });
        (registry, locals)
    }

    /// Builds the registry and starts its workers: `spawn` gets each worker's
    /// [`ThreadBuilder`] and must run it on a thread of its own. With
    /// `config.use_current_thread`, worker 0 is the calling thread instead (adopted once
    /// every other worker started), which must not be a worker already.
    pub(crate) fn start(
        config: RegistryConfig,
        mut thread_name: Option<Box<dyn FnMut(usize) -> String>>,
        stack_size: Option<usize>,
        mut spawn: impl FnMut(ThreadBuilder) -> std::io::Result<()>,
    ) -> Result<Arc<Registry>, crate::BuildError> {
        let use_current = config.use_current_thread;
        if use_current && !WorkerThread::current().is_null() {
            return Err(crate::BuildError::CurrentThreadInPool);
        }
        let (registry, locals) = Registry::new(config);
        let n = locals.len();
        let mut selectors = registry.config.victims.selectors(n);
        if selectors.len() != n {
            // A user's policy broke its contract: fall back to uniform draws rather than fail.
            selectors = crate::policy::RandomVictims.selectors(n);
        }
        let placement = registry
            .config
            .victims
            .placement(n)
            .filter(|cpus| cpus.len() == n);
        // A panic below (in a `thread_name` closure or a spawn handler) must not leave the
        // workers already started running forever: terminate on unwind, as on an error.
        let guard = TerminateOnDrop(&registry);
        let mut adopt = None;
        for ((index, deque), selector) in locals.into_iter().enumerate().zip(selectors) {
            let seed = WorkerSeed {
                registry: Arc::clone(&registry),
                index,
                deque,
                selector,
                cpu: placement.as_ref().map(|cpus| cpus[index]),
            };
            if use_current && index == 0 {
                adopt = Some(seed);
                continue;
            }
            let name = thread_name.as_mut().map(|f| f(index));
            if let Err(source) = spawn(ThreadBuilder::new(name, stack_size, seed)) {
                return Err(crate::BuildError::Spawn {
                    index,
                    count: n,
                    source,
                });
            }
        }
        std::mem::forget(guard);
        if let Some(seed) = adopt {
            adopt_current_thread(seed);
        }
        Ok(registry)
    }

    pub(crate) fn id(&self) -> usize {
        self.id
    }

    pub(crate) fn num_workers(&self) -> usize {
        self.infos.len()
    }

    pub(crate) fn sleep(&self) -> &Sleep {
        &self.sleep
    }

    pub(crate) fn deque_kind(&self) -> DequeKind {
        self.config.deque
    }

    pub(crate) fn victim_policy(&self) -> &dyn VictimPolicy {
        &*self.config.victims
    }

    pub(crate) fn idle_policy(&self) -> &dyn IdlePolicy {
        &*self.config.idle
    }

    /// Sends a job from outside the pool (or from another pool) to this pool.
    pub(crate) fn inject(&self, job: JobRef) {
        self.injector.push(job);
        // Dekker pair with `Sleep::sleep` step 2 (see runtime/sleep.rs).
        fence(Ordering::SeqCst);
        self.sleep.new_external_work();
    }

    /// Sends a prioritised job from outside the pool (or from another pool) to this pool's
    /// shared priority heap, and wakes a sleeper as [`Registry::inject`] does.
    pub(crate) fn inject_prioritized(&self, priority: i64, job: JobRef) {
        self.priority
            .push(self.priority.shared_slot(), priority, job);
        // Dekker pair with `Sleep::sleep` step 2, as in `inject` (`has_work` reads
        // `pending` with SeqCst).
        fence(Ordering::SeqCst);
        self.sleep.new_external_work();
    }

    /// True if worker `index` should stay awake: injected, broadcast or public work, or
    /// termination.
    pub(super) fn has_work(&self, index: usize) -> bool {
        self.terminating.load(Ordering::SeqCst)
            || !self.injector.is_empty()
            || !self.infos[index].broadcasts.is_empty()
            || self.priority.pending_seqcst()
            || self.infos.iter().any(|i| i.stealer.has_public_work())
    }

    /// Runs `op` on a worker of this pool and returns its result: directly if the caller is
    /// such a worker; otherwise the caller blocks (plain thread) or keeps working for its own
    /// pool (a worker of another pool) until `op` is done.
    pub(crate) fn in_worker<OP, R>(self: &Arc<Self>, op: OP) -> R
    where
        OP: FnOnce(&WorkerThread, bool) -> R + Send,
        R: Send,
    {
        let current = WorkerThread::current();
        if current.is_null() {
            self.in_worker_cold(op)
        } else {
            // SAFETY: a non-null TLS pointer points at the live WorkerThread of this thread.
            let current = unsafe { &*current };
            if current.registry().id == self.id {
                op(current, false)
            } else {
                self.in_worker_cross(current, op)
            }
        }
    }

    #[cold]
    fn in_worker_cold<OP, R>(self: &Arc<Self>, op: OP) -> R
    where
        OP: FnOnce(&WorkerThread, bool) -> R + Send,
        R: Send,
    {
        let job = StackJob::new(on_injecting_worker(op), LockLatch::new());
        // SAFETY: `job` stays on this stack until its latch is set (we wait below).
        self.inject(unsafe { job.as_job_ref() });
        job.latch.wait();
        job.into_result()
    }

    #[cold]
    fn in_worker_cross<OP, R>(self: &Arc<Self>, current: &WorkerThread, op: OP) -> R
    where
        OP: FnOnce(&WorkerThread, bool) -> R + Send,
        R: Send,
    {
        let job = StackJob::new(on_injecting_worker(op), SpinLatch::cross(current));
        // SAFETY: `job` stays on this stack until its latch is set (we wait below).
        self.inject(unsafe { job.as_job_ref() });
        // Keep serving our own pool while the other pool runs `op`: no deadlock even if
        // that pool needs work from ours.
        current.wait_until(job.latch.core());
        job.into_result()
    }

    /// One more reason to keep the pool running (a `'static` job about to be queued).
    pub(crate) fn hold(&self) {
        self.live.fetch_add(1, Ordering::Relaxed);
    }

    /// One reason fewer (the handle dropped, a `'static` job done); the last one terminates
    /// the pool.
    pub(crate) fn release(&self) {
        if self.live.fetch_sub(1, Ordering::AcqRel) == 1 {
            self.terminate();
        }
    }

    /// Stops the workers (they finish the work already queued, then exit).
    pub(crate) fn terminate(&self) {
        self.terminating.store(true, Ordering::SeqCst);
        for (i, info) in self.infos.iter().enumerate() {
            // SAFETY: the latch lives in the registry, which outlives this call.
            if unsafe { CoreLatch::set(&info.terminate) } {
                self.sleep.wake_specific(i);
            }
        }
        self.sleep.wake_all();
    }

    /// Reports a panic of a job that has no caller to propagate to.
    pub(crate) fn handle_panic(&self, payload: Box<dyn std::any::Any + Send>) {
        match &self.config.panic_handler {
            Some(h) => {
                // A panicking handler must not take the worker down with it.
                let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| h(payload)));
            }
            None => {
                let msg = super::builder::panic_message(&*payload);
                // Not `eprintln!`, which panics if stderr is closed (EPIPE).
                use std::io::Write;
                let _ = writeln!(
                    std::io::stderr(),
                    "magpie: a spawned job panicked (no panic_handler set): {msg}"
                );
            }
        }
    }

    /// Puts one job in each worker's broadcast queue (`jobs[i]` for worker `i`) and wakes
    /// every sleeping worker. The push, a SeqCst fence and the wake are the publisher's side
    /// of the Dekker pair of `sleep.rs`; the sleeper's `has_work` reads its own queue.
    pub(super) fn inject_broadcast(&self, jobs: impl ExactSizeIterator<Item = JobRef>) {
        debug_assert_eq!(jobs.len(), self.infos.len());
        for (info, job) in self.infos.iter().zip(jobs) {
            info.broadcasts.push(job);
        }
        fence(Ordering::SeqCst);
        for i in 0..self.infos.len() {
            self.sleep.wake_specific(i);
        }
    }

    /// Puts `job` in worker `index`'s own queue (only that worker runs it: a team member's
    /// share of a region) and wakes that worker, as [`Registry::inject_broadcast`] does.
    pub(super) fn inject_to(&self, index: usize, job: JobRef) {
        self.infos[index].broadcasts.push(job);
        fence(Ordering::SeqCst);
        self.sleep.wake_specific(index);
    }

    pub(super) fn now_ns(&self) -> u64 {
        self.epoch.elapsed().as_nanos() as u64
    }

    /// Snapshots every worker's counters, with derived fields filled in.
    pub(crate) fn stats(&self) -> Vec<WorkerStats> {
        let now = self.now_ns();
        let since_reset = now.saturating_sub(self.stats_reset_at.load(Ordering::Relaxed));
        self.infos
            .iter()
            .map(|info| {
                let mut s = info.counters.snapshot();
                let idle_since = info.idle_since.load(Ordering::Relaxed);
                let parked_since = info.parked_since.load(Ordering::Relaxed);
                if parked_since != NOT_IDLE {
                    if info.dozing.load(Ordering::Relaxed) {
                        s.sleep_ns += now.saturating_sub(parked_since);
                    } else {
                        s.parked_ns += now.saturating_sub(parked_since);
                    }
                } else if idle_since != NOT_IDLE {
                    s.idle_ns += now.saturating_sub(idle_since);
                }
                s.tasks_run = s.private_pops
                    + s.public_pops
                    + s.steals
                    + s.injected_taken
                    + s.priority_taken
                    + s.priority_stolen;
                s.busy_ns = since_reset.saturating_sub(s.idle_ns + s.parked_ns + s.sleep_ns);
                s
            })
            .collect()
    }

    /// The sum of every worker's successful steals.
    pub(crate) fn total_steals(&self) -> u64 {
        self.infos.iter().map(|i| i.counters.steals.get()).sum()
    }

    /// Starts recording a trace (see [`crate::ThreadPool::start_trace`]).
    pub(crate) fn start_trace(&self) {
        self.recording.start(self.now_ns());
    }

    /// Ends the recording and returns it (see [`crate::ThreadPool::take_trace`]).
    pub(crate) fn take_trace(&self) -> Trace {
        self.recording.take(|| self.now_ns())
    }

    pub(crate) fn reset_stats(&self) {
        self.stats_reset_at.store(self.now_ns(), Ordering::Relaxed);
        for info in &self.infos {
            info.counters.reset();
        }
    }
}

/// Terminates a registry when dropped (`Registry::start`'s failure paths); forgotten on
/// success.
struct TerminateOnDrop<'a>(&'a Registry);

impl Drop for TerminateOnDrop<'_> {
    fn drop(&mut self) {
        self.0.terminate();
    }
}

/// Wraps `op` for injection: it runs on whichever worker of the pool takes the job
/// (`injected = true`).
fn on_injecting_worker<OP, R>(op: OP) -> impl FnOnce(bool) -> R + Send
where
    OP: FnOnce(&WorkerThread, bool) -> R + Send,
    R: Send,
{
    |_| {
        let wt = WorkerThread::current();
        // SAFETY: injected jobs only run on workers of this pool, whose TLS is set.
        op(unsafe { &*wt }, true)
    }
}

impl PoolView for Registry {
    fn num_workers(&self) -> usize {
        self.infos.len()
    }

    fn queue_len(&self, worker: usize) -> usize {
        self.infos.get(worker).map_or(0, |i| i.stealer.len_hint())
    }
}

/// Pins the calling thread to `cpu`; a refusal (a CPU outside the process's set) leaves
/// placement to the OS.
pub(super) fn pin_current_thread(cpu: usize) {
    // SAFETY: `cpu_set_t` is a plain bit set for which all zeroes is a valid (empty) value.
    let mut set: libc::cpu_set_t = unsafe { std::mem::zeroed() };
    if cpu >= 8 * std::mem::size_of::<libc::cpu_set_t>() {
        return;
    }
    // SAFETY: `cpu` is within the set's capacity (checked above); `set` is a valid set.
    unsafe { libc::CPU_SET(cpu, &mut set) };
    // SAFETY: pid 0 is the calling thread; `set` is a valid, initialised set of the size given.
    let _ = unsafe { libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &set) };
}
