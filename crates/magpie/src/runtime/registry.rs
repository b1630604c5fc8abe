//! The registry: one per pool. It owns the workers' thief handles, counters, sleep state and
//! the injector (work sent from outside the pool), and runs each worker's loop.

use std::cell::{Cell, RefCell};
use std::os::raw::c_int;
use std::ptr;
use std::sync::atomic::{fence, AtomicBool, AtomicIsize, AtomicU64, AtomicUsize, Ordering};
use std::sync::Arc;
use std::thread;
use std::time::{Duration, Instant};

use crossbeam_deque::{Injector, Steal as InjectorSteal};
use crossbeam_utils::CachePadded;

use super::job::{AbortOnUnwind, JobRef, StackJob};
use super::latch::{CoreLatch, LockLatch, SpinLatch};
use super::priority::{Origin, PriorityQueues};
use super::sleep::{Sleep, Wakeup};
use crate::deque::{chase_lev, split, DequeKind, DequeOwner, DequeStealer, Steal};
use crate::policy::idle::{IdleAction, IdlePolicy, IdleState};
use crate::policy::victim::{
    PoolView, Probe, ProbeOutcome, TaskCycle, VictimPolicy, VictimSelector,
};
use crate::stats::{WorkerCounters, WorkerStats};
use crate::trace::{Log, Recorder, Recording, Trace};

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
}

/// A worker's deque, owner side. An enum rather than a trait object so that `push`/`pop`
/// inline into `join` (one well-predicted branch).
enum LocalDeque {
    ChaseLev(chase_lev::Worker<JobRef>),
    Split(split::Worker<JobRef>),
}

enum RemoteDeque {
    ChaseLev(chase_lev::Stealer<JobRef>),
    Split(split::Stealer<JobRef>),
}

impl RemoteDeque {
    #[inline]
    fn steal(&self, c: &WorkerCounters) -> Steal<JobRef> {
        match self {
            RemoteDeque::ChaseLev(s) => s.steal(c),
            RemoteDeque::Split(s) => s.steal(c),
        }
    }

    fn len_hint(&self) -> usize {
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

const NOT_IDLE: u64 = u64::MAX;

struct ThreadInfo {
    stealer: RemoteDeque,
    counters: CachePadded<WorkerCounters>,
    /// Set when the pool terminates; the worker's main loop waits on it.
    terminate: CoreLatch,
    /// Start of the current idle / parked stretch (ns since the registry epoch), or NOT_IDLE;
    /// lets `stats()` count time a worker is spending idle right now.
    idle_since: AtomicU64,
    parked_since: AtomicU64,
    /// Whether the current `parked_since` stretch is a doze (a timed sleep) or a park.
    dozing: AtomicBool,
    /// The shared half of the worker's trace buffer (`trace/`).
    log: Arc<Log>,
}

static NEXT_REGISTRY_ID: AtomicUsize = AtomicUsize::new(1);

/// The shared state of one pool.
pub(crate) struct Registry {
    id: usize,
    infos: Vec<ThreadInfo>,
    injector: Injector<JobRef>,
    /// Prioritised tasks (`spawn_with_priority`): a heap per worker and a shared one.
    priority: PriorityQueues<JobRef>,
    sleep: Sleep,
    terminating: AtomicBool,
    config: RegistryConfig,
    epoch: Instant,
    /// ns since `epoch` of the last `reset_stats`.
    stats_reset_at: AtomicU64,
    /// The workers' trace logs and the running recording's start.
    recording: Recording,
}

thread_local! {
    static WORKER_THREAD: Cell<*const WorkerThread> = const { Cell::new(ptr::null()) };
}

impl Registry {
    /// Creates the registry and the owner halves of the deques, one per worker.
    fn new(config: RegistryConfig) -> (Arc<Registry>, Vec<LocalDeque>) {
        let n = config.num_workers;
        let mut locals = Vec::with_capacity(n);
        let mut infos = Vec::with_capacity(n);
        for _ in 0..n {
            let (local, remote) = match config.deque.resolve() {
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
            });
        }
        let recording = Recording::new(infos.iter().map(|i| Arc::clone(&i.log)).collect());
        let registry = Arc::new(Registry {
            id: NEXT_REGISTRY_ID.fetch_add(1, Ordering::Relaxed),
            infos,
            injector: Injector::new(),
            priority: PriorityQueues::new(n),
            sleep: Sleep::new(n),
            terminating: AtomicBool::new(false),
            config,
            epoch: Instant::now(),
            stats_reset_at: AtomicU64::new(0),
            recording,
        });
        (registry, locals)
    }

    /// Builds the registry and starts its workers.
    pub(crate) fn start(
        config: RegistryConfig,
        mut thread_name: Option<Box<dyn FnMut(usize) -> String>>,
        stack_size: usize,
    ) -> Result<(Arc<Registry>, Vec<thread::JoinHandle<()>>), crate::BuildError> {
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
        let mut handles = Vec::with_capacity(n);
        for ((index, local), selector) in locals.into_iter().enumerate().zip(selectors) {
            let name = match thread_name.as_mut() {
                Some(f) => f(index),
                None => format!("magpie-worker-{index}"),
            };
            let reg = Arc::clone(&registry);
            let cpu = placement.as_ref().map(|cpus| cpus[index]);
            let spawned = thread::Builder::new()
                .name(name)
                .stack_size(stack_size)
                .spawn(move || {
                    if let Some(cpu) = cpu {
                        pin_current_thread(cpu);
                    }
                    main_loop(reg, index, local, selector)
                });
            match spawned {
                Ok(h) => handles.push(h),
                Err(source) => {
                    registry.terminate();
                    for h in handles {
                        let _ = h.join();
                    }
                    return Err(crate::BuildError::Spawn {
                        index,
                        count: n,
                        source,
                    });
                }
            }
        }
        Ok((registry, handles))
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

    /// True if a sleeper should stay awake: injected or public work, or termination.
    fn has_work(&self) -> bool {
        self.terminating.load(Ordering::SeqCst)
            || !self.injector.is_empty()
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
            if current.registry.id == self.id {
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
                let msg = payload
                    .downcast_ref::<&str>()
                    .map(|s| s.to_string())
                    .or_else(|| payload.downcast_ref::<String>().cloned())
                    .unwrap_or_else(|| "<non-string panic payload>".into());
                // Not `eprintln!`, which panics if stderr is closed (EPIPE).
                use std::io::Write;
                let _ = writeln!(
                    std::io::stderr(),
                    "magpie: a spawned job panicked (no panic_handler set): {msg}"
                );
            }
        }
    }

    fn now_ns(&self) -> u64 {
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
fn pin_current_thread(cpu: usize) {
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

/// The outcome of one search for work.
enum Search {
    Found(JobRef),
    /// Nothing found; `contended` if a race was lost or a victim had only private work.
    Nothing {
        contended: bool,
    },
}

/// The state of the current thread as a worker of a pool.
///
/// `repr(C, align(64))`, with the fields a coarsened join reads on every call first, at
/// offsets below 128 and in one cache line wherever the worker's stack puts the struct.
/// With the compiler's field order, adding the trace recorder moved them (`join_push_limit`
/// from offset 120 to 128) and `fib` at one worker ran 10% slower with the same instruction
/// count; in this order it runs as fast as before (docs/results/2026-11-26-trace-cost.md).
#[repr(C, align(64))]
pub(crate) struct WorkerThread {
    /// `[hi, lo]`: `hi - lo` counts the tasks of this worker's deque that no thief can take
    /// without asking (see `join_should_push`). Point into `deque`, which `self` owns.
    gauge: [*const AtomicIsize; 2],
    join_push_limit: isize,
    /// `lcws-user`: its targeted flag. Exposure requests are only served when the owner
    /// looks (push/pop), so a coarsened join must look too. Null for the other deques
    /// (signal variants are served by their handler). Points into `deque`.
    exposure_flag: *const AtomicBool,
    /// Points into `registry.infos[index]`; valid while `registry` is held.
    counters: *const WorkerCounters,
    deque: LocalDeque,
    index: usize,
    registry: Arc<Registry>,
    victims: RefCell<Box<dyn VictimSelector>>,
    victim_buf: RefCell<Vec<usize>>,
    idle: RefCell<Box<dyn IdleState>>,
    /// The owner's half of this worker's trace buffer; boxed, so that the fields the join
    /// fast path reads stay together.
    recorder: Box<Recorder>,
    /// Whether the victim policy wants probe latencies and task cycles.
    measures: bool,
}

impl WorkerThread {
    /// The current thread's worker, or null.
    #[inline]
    pub(crate) fn current() -> *const WorkerThread {
        WORKER_THREAD.with(Cell::get)
    }

    #[inline]
    pub(crate) fn index(&self) -> usize {
        self.index
    }

    #[inline]
    pub(crate) fn registry(&self) -> &Arc<Registry> {
        &self.registry
    }

    #[inline]
    fn counters(&self) -> &WorkerCounters {
        // SAFETY: points into `self.registry`, which `self` keeps alive.
        unsafe { &*self.counters }
    }

    /// This worker's trace recorder.
    #[inline]
    pub(crate) fn recorder(&self) -> &Recorder {
        &self.recorder
    }

    fn info(&self) -> &ThreadInfo {
        &self.registry.infos[self.index]
    }

    /// Whether `join` should make its second closure a task (push it) rather than run both
    /// closures in sequence: while this worker holds fewer than `join_push_limit` tasks no
    /// thief can take without asking (all of a Chase-Lev deque, the private part of a split
    /// deque), or when a thief has asked this worker for work.
    #[inline]
    pub(crate) fn join_should_push(&self) -> bool {
        // SAFETY: `gauge` points into `self.deque`, alive as long as `self`.
        let (hi, lo) = unsafe { (&*self.gauge[0], &*self.gauge[1]) };
        hi.load(Ordering::Relaxed)
            .wrapping_sub(lo.load(Ordering::Relaxed))
            < self.join_push_limit
            || (!self.exposure_flag.is_null() && {
                // SAFETY: a non-null `exposure_flag` points into `self.deque`, alive as long
                // as `self`.
                unsafe { &*self.exposure_flag }.load(Ordering::Relaxed)
            })
    }

    /// Serves a thief's pending request for work, if this worker's deque needs its owner to
    /// (see [`crate::expose_work`]).
    #[inline]
    pub(crate) fn serve_exposure(&self) {
        if let LocalDeque::Split(d) = &self.deque {
            d.serve_exposure(self.counters());
        }
    }

    /// Makes every task of this worker's deque public now (see
    /// [`crate::deque::split::Worker::expose_all`]); nothing to do on a Chase-Lev deque.
    #[inline]
    pub(crate) fn expose_all(&self) {
        if let LocalDeque::Split(d) = &self.deque {
            d.expose_all(self.counters());
        }
    }

    /// Pushes a job on this worker's deque (hot path of `join`).
    #[inline]
    pub(crate) fn push(&self, job: JobRef) {
        match &self.deque {
            LocalDeque::ChaseLev(d) => d.push(job, self.counters()),
            LocalDeque::Split(d) => d.push(job, self.counters()),
        }
        // A plain load: see the note on lost wake-ups in runtime/sleep.rs.
        if self.registry.sleep.sleeping_hint() > 0 {
            self.registry.sleep.new_work();
        }
    }

    /// Puts a prioritised job in this worker's priority heap (`spawn_with_priority`), and
    /// wakes a parked worker as [`WorkerThread::push`] does.
    pub(crate) fn push_prioritized(&self, priority: i64, job: JobRef) {
        self.registry.priority.push(self.index, priority, job);
        // A plain load: see the note on lost wake-ups in runtime/sleep.rs.
        if self.registry.sleep.sleeping_hint() > 0 {
            self.registry.sleep.new_work();
        }
    }

    /// Pops the bottom-most job of this worker's deque (hot path of `join`).
    #[inline]
    pub(crate) fn pop(&self) -> Option<JobRef> {
        match &self.deque {
            LocalDeque::ChaseLev(d) => d.pop(self.counters()),
            LocalDeque::Split(d) => d.pop(self.counters()),
        }
    }

    /// Runs a job taken from a deque or the injector.
    ///
    /// Jobs catch their closures' panics, so nothing should unwind out of here; if something
    /// still does (a panic payload whose `Drop` panics, say), unwinding on would free stack
    /// frames (`join`'s `b`, a scope) that other workers are still writing to: abort instead.
    #[inline]
    pub(crate) fn execute(&self, job: JobRef) {
        if self.recorder.on() {
            return self.execute_traced(job);
        }
        let abort = AbortOnUnwind;
        // SAFETY: every JobRef handed out by the deques and the injector is taken once and
        // its data is kept alive by whoever waits for it.
        unsafe { job.execute() }
        abort.disarm();
    }

    /// `execute` while the pool records a trace: the job's span around it. Out of line, so
    /// that the inlined `execute` stays one branch larger than without traces.
    #[cold]
    #[inline(never)]
    fn execute_traced(&self, job: JobRef) {
        self.recorder.task_begin(self.registry.now_ns());
        let abort = AbortOnUnwind;
        // SAFETY: as in `execute`.
        unsafe { job.execute() }
        abort.disarm();
        self.recorder.task_end(self.registry.now_ns());
    }

    fn find_work(&self, latch: &CoreLatch, idle_start: &mut u64) -> Search {
        if let Some(job) = self.pop() {
            return Search::Found(job);
        }
        let registry = &*self.registry;
        // Prioritised tasks run when the deque is empty, before any steal of ordinary work:
        // this worker's best first, else the best published anywhere (runtime/priority.rs).
        // Without priorities this is the one relaxed load the idle path pays.
        if registry.priority.maybe_pending() {
            if let Some((job, origin)) = registry.priority.take(self.index) {
                let counters = self.counters();
                match origin {
                    Origin::Own => counters.priority_taken.bump(),
                    Origin::Other => counters.priority_stolen.bump(),
                }
                return Search::Found(job);
            }
        }
        let mut contended = false;
        let traced = self.recorder.on();
        if registry.num_workers() > 1 {
            let mut victims = self.victim_buf.borrow_mut();
            let mut selector = self.victims.borrow_mut();
            victims.clear();
            selector.next_round(registry, &mut victims);
            let mut i = 0;
            while let Some(&victim) = victims.get(i) {
                i += 1;
                let start = if self.measures { registry.now_ns() } else { 0 };
                // Exposure requests and signals are seen as the thief's counters moving.
                let asked = traced.then(|| self.exposure_counts());
                let stolen = registry.infos[victim].stealer.steal(self.counters());
                let latency_ns = if self.measures {
                    registry.now_ns().saturating_sub(start)
                } else {
                    0
                };
                let outcome = match stolen {
                    Steal::Success(job) => {
                        if traced {
                            self.recorder.steal(registry.now_ns(), victim);
                        }
                        let probe = Probe {
                            victim,
                            outcome: ProbeOutcome::Stolen,
                            latency_ns,
                        };
                        selector.on_probe(registry, probe, &mut victims);
                        return Search::Found(job);
                    }
                    Steal::Empty => ProbeOutcome::Empty,
                    Steal::Retry | Steal::Private => {
                        contended = true;
                        ProbeOutcome::Busy
                    }
                };
                if traced {
                    self.recorder.failed_attempt();
                    if let Some((requests, signals)) = asked {
                        let (r, s) = self.exposure_counts();
                        if r != requests {
                            self.recorder
                                .exposure(registry.now_ns(), victim, s != signals);
                        }
                    }
                }
                let probe = Probe {
                    victim,
                    outcome,
                    latency_ns,
                };
                selector.on_probe(registry, probe, &mut victims);
                let action = self.idle.borrow_mut().on_failed_steal();
                if let Some(action) = action {
                    self.idle_act(action, false, latch, idle_start);
                }
            }
        }
        loop {
            match registry.injector.steal() {
                InjectorSteal::Success(job) => {
                    self.counters().injected_taken.bump();
                    return Search::Found(job);
                }
                InjectorSteal::Retry => continue,
                InjectorSteal::Empty => break,
            }
        }
        Search::Nothing { contended }
    }

    /// This worker's exposure requests and signals sent so far (for the trace).
    fn exposure_counts(&self) -> (u64, u64) {
        let c = self.counters();
        (c.exposure_requests.get(), c.signals_sent.get())
    }

    /// Carries out what the idle policy said.
    fn idle_act(
        &self,
        action: IdleAction,
        contended: bool,
        latch: &CoreLatch,
        idle_start: &mut u64,
    ) {
        if self.recorder.on() {
            let yields = matches!(action, IdleAction::Yield)
                || matches!(action, IdleAction::Park if contended);
            if matches!(action, IdleAction::Spin) || yields {
                self.recorder.search_phase(yields);
            }
        }
        match action {
            IdleAction::Spin => {
                for _ in 0..32 {
                    std::hint::spin_loop();
                }
            }
            IdleAction::Yield => thread::yield_now(),
            IdleAction::Park if contended => thread::yield_now(),
            IdleAction::Sleep(d) => self.park_for(Some(d), latch, idle_start),
            IdleAction::Park => self.park_for(None, latch, idle_start),
        }
    }

    /// Works (runs local, stolen and injected jobs) until `latch` is set.
    #[inline]
    pub(crate) fn wait_until(&self, latch: &CoreLatch) {
        if !latch.probe() {
            self.wait_until_cold(latch);
        }
    }

    #[cold]
    fn wait_until_cold(&self, latch: &CoreLatch) {
        let registry = &*self.registry;
        let info = self.info();
        let counters = self.counters();
        let mut idle_start = registry.now_ns();
        // Start of the current task cycle (idle, then work) for `on_task_done`.
        let mut cycle_start = idle_start;
        info.idle_since.store(idle_start, Ordering::Relaxed);
        if self.recorder.on() {
            self.recorder.search_begin(idle_start);
        }
        while !latch.probe() {
            match self.find_work(latch, &mut idle_start) {
                Search::Found(job) => {
                    let now = registry.now_ns();
                    if self.recorder.on() {
                        self.recorder.search_end(now);
                    }
                    counters.idle_ns.add(now.saturating_sub(idle_start));
                    info.idle_since.store(NOT_IDLE, Ordering::Relaxed);
                    self.idle.borrow_mut().on_work_found();
                    self.execute(job);
                    idle_start = registry.now_ns();
                    if self.recorder.on() {
                        self.recorder.search_begin(idle_start);
                    }
                    if self.measures {
                        self.victims.borrow_mut().on_task_done(TaskCycle {
                            idle_ns: now.saturating_sub(cycle_start),
                            work_ns: idle_start.saturating_sub(now),
                        });
                    }
                    cycle_start = idle_start;
                    info.idle_since.store(idle_start, Ordering::Relaxed);
                }
                Search::Nothing { contended } => {
                    let action = self.idle.borrow_mut().on_failed_round();
                    self.idle_act(action, contended, latch, &mut idle_start);
                }
            }
        }
        let now = registry.now_ns();
        if self.recorder.on() {
            self.recorder.search_end(now);
        }
        counters.idle_ns.add(now.saturating_sub(idle_start));
        info.idle_since.store(NOT_IDLE, Ordering::Relaxed);
    }

    /// Dozes for `d` (a timed sleep that injected work or the latch ends early) or parks
    /// until woken (`None`); accounts the time.
    fn park_for(&self, d: Option<Duration>, latch: &CoreLatch, idle_start: &mut u64) {
        let registry = &*self.registry;
        let info = self.info();
        let counters = self.counters();
        let start = registry.now_ns();
        let traced = self.recorder.on();
        let searching = traced && self.recorder.search_end(start);
        counters.idle_ns.add(start.saturating_sub(*idle_start));
        info.dozing.store(d.is_some(), Ordering::Relaxed);
        info.parked_since.store(start, Ordering::Relaxed);
        let has_work = || registry.has_work();
        let wakeup = match d {
            Some(d) => registry.sleep.doze(self.index, latch, has_work, d),
            None => registry.sleep.sleep(self.index, latch, has_work),
        };
        let end = registry.now_ns();
        info.parked_since.store(NOT_IDLE, Ordering::Relaxed);
        *idle_start = end;
        if traced {
            if wakeup != Wakeup::DidNotSleep {
                self.recorder.sleep(start, end, d.is_some());
            }
            if searching {
                self.recorder.search_begin(end);
            }
        }
        if wakeup == Wakeup::DidNotSleep {
            counters.idle_ns.add(end.saturating_sub(start));
            return;
        }
        if d.is_some() {
            counters.sleep_ns.add(end.saturating_sub(start));
            counters.sleeps.bump();
        } else {
            counters.parked_ns.add(end.saturating_sub(start));
            counters.parks.bump();
        }
        if wakeup == Wakeup::Woken {
            // Woken for a reason (new work, a set latch): search actively again.
            self.idle.borrow_mut().on_work_found();
        }
    }
}

/// The life of one worker thread.
fn main_loop(
    registry: Arc<Registry>,
    index: usize,
    deque: LocalDeque,
    selector: Box<dyn VictimSelector>,
) {
    let counters: *const WorkerCounters = &*registry.infos[index].counters;
    let worker = WorkerThread {
        victims: RefCell::new(selector),
        measures: registry.config.victims.measures(),
        victim_buf: RefCell::new(Vec::with_capacity(registry.num_workers())),
        idle: RefCell::new(registry.config.idle.state(index)),
        join_push_limit: isize::try_from(registry.config.join_push_limit).unwrap_or(isize::MAX),
        gauge: match &deque {
            LocalDeque::ChaseLev(d) => d.gauge().map(|a| a as *const AtomicIsize),
            LocalDeque::Split(d) => d.gauge().map(|a| a as *const AtomicIsize),
        },
        exposure_flag: match &deque {
            LocalDeque::Split(d) if !d.exposure().uses_signal() => d.targeted_flag(),
            _ => ptr::null(),
        },
        recorder: Box::new(Recorder::new(
            Arc::clone(&registry.infos[index].log),
            registry.epoch,
        )),
        deque,
        index,
        registry,
        counters,
    };
    WORKER_THREAD.with(|w| w.set(&worker));
    // Signal-based deques need the OS thread bound to its deque before thieves signal it;
    // the binding ends (and waits for in-flight signals) before the thread forgets its
    // worker state.
    {
        let _bind = match &worker.deque {
            // If binding fails (a foreign handler took the signal after `build()` checked it),
            // the worker keeps running unbound: thieves then only set its flag, so it shares
            // less work, but nothing hangs.
            LocalDeque::Split(d) if d.exposure().uses_signal() => {
                let signal = worker.registry.config.signal;
                // SAFETY: the guard lives in this block and is dropped before `worker` (which
                // owns the deque and keeps the counters' registry alive); it is never leaked.
                match unsafe { d.bind_current_thread(signal, worker.counters()) } {
                    Ok(guard) => Some(guard),
                    Err(e) => {
                        use std::io::Write;
                        let _ = writeln!(
                            std::io::stderr(),
                            "magpie worker {index}: {e}; continuing without signal exposure"
                        );
                        None
                    }
                }
            }
            _ => None,
        };
        let terminate = &worker.registry.infos[index].terminate;
        worker.wait_until(terminate);
        // Finish whatever is still queued (static spawns) before leaving.
        let mut idle_start = worker.registry.now_ns();
        while let Search::Found(job) = worker.find_work(terminate, &mut idle_start) {
            worker.execute(job);
        }
    }
    WORKER_THREAD.with(|w| w.set(ptr::null()));
}
