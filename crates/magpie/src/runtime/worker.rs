//! A worker: the thread-local state of a thread that runs a pool's jobs
//! ([`WorkerThread`]), its scheduler loop (`find_work`, `wait_until`, the idle actions), and
//! the life of a worker thread (`main_loop`), or of the calling thread adopted as worker 0.

use std::cell::{Cell, RefCell};
use std::ptr;
use std::sync::atomic::{AtomicBool, AtomicIsize, Ordering};
use std::sync::Arc;
use std::thread;
use std::time::Duration;

use crossbeam_deque::Steal as InjectorSteal;

use super::job::{AbortOnUnwind, JobRef};
use super::latch::CoreLatch;
use super::priority::Origin;
use super::registry::{
    pin_current_thread, LocalDeque, Registry, ThreadHandler, ThreadInfo, NOT_IDLE,
};
use super::sleep::Wakeup;
use super::Yield;
use crate::deque::{DequeOwner, Steal};
use crate::policy::idle::{IdleAction, IdleState};
use crate::policy::victim::{Probe, ProbeOutcome, TaskCycle, VictimSelector};
use crate::stats::WorkerCounters;
use crate::trace::Recorder;

thread_local! {
    static WORKER_THREAD: Cell<*const WorkerThread> = const { Cell::new(ptr::null()) };
    /// The worker state of a thread adopted as worker 0 of a pool
    /// (`ThreadPoolBuilder::use_current_thread`), owned until the thread exits.
    static ADOPTED: RefCell<Option<Adopted>> = const { RefCell::new(None) };
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
        if self.registry.sleep().sleeping_hint() > 0 {
            self.registry.sleep().new_work();
        }
    }

    /// Puts a prioritised job in this worker's priority heap (`spawn_with_priority`), and
    /// wakes a parked worker as [`WorkerThread::push`] does.
    pub(crate) fn push_prioritized(&self, priority: i64, job: JobRef) {
        self.registry.priority.push(self.index, priority, job);
        // A plain load: see the note on lost wake-ups in runtime/sleep.rs.
        if self.registry.sleep().sleeping_hint() > 0 {
            self.registry.sleep().new_work();
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
        if let Some(job) = self.pop().or_else(|| self.take_broadcast()) {
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
                // A pause costs about as much as a round's loads: look at what ends the wait
                // or brings targeted work (the latch, this worker's broadcast queue) between
                // pauses, so a region's start or a barrier's end is seen within a pause.
                let broadcasts = &self.info().broadcasts;
                for _ in 0..32 {
                    if latch.probe() || !broadcasts.is_empty() {
                        break;
                    }
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
        // The victim and idle policies are user code: a panic of theirs must not unwind out
        // of a wait, whose caller's frame holds jobs that other workers still run (join's `b`,
        // a scope, a broadcast): abort instead.
        let abort = AbortOnUnwind;
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
        abort.disarm();
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
        let has_work = || registry.has_work(self.index);
        let wakeup = match d {
            Some(d) => registry.sleep().doze(self.index, latch, has_work, d),
            None => registry.sleep().sleep(self.index, latch, has_work),
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

/// Everything a worker thread needs to run: made by `Registry::start`, carried to the thread
/// by a [`crate::ThreadBuilder`].
pub(crate) struct WorkerSeed {
    pub(crate) registry: Arc<Registry>,
    pub(crate) index: usize,
    pub(crate) deque: LocalDeque,
    pub(crate) selector: Box<dyn VictimSelector>,
    /// The CPU the victim policy places this worker on, if any.
    pub(crate) cpu: Option<usize>,
}

impl WorkerThread {
    fn new(seed: WorkerSeed) -> WorkerThread {
        let WorkerSeed {
            registry,
            index,
            deque,
            selector,
            cpu: _,
        } = seed;
        let counters: *const WorkerCounters = &*registry.infos[index].counters;
        WorkerThread {
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
        }
    }

    /// Takes the job broadcast to this worker, if any.
    #[inline]
    fn take_broadcast(&self) -> Option<JobRef> {
        loop {
            match self.info().broadcasts.steal() {
                InjectorSteal::Success(job) => return Some(job),
                InjectorSteal::Empty => return None,
                InjectorSteal::Retry => continue,
            }
        }
    }

    /// Runs one job of this worker's own (its deque, then its broadcast queue), if it has
    /// one (`yield_local`).
    pub(crate) fn yield_local(&self) -> Yield {
        match self.pop().or_else(|| self.take_broadcast()) {
            Some(job) => {
                self.execute(job);
                Yield::Executed
            }
            None => Yield::Idle,
        }
    }

    /// Runs one job found as an idle worker would (its own, a prioritised one, a stolen one,
    /// an injected one), without ever blocking, if there is one (`yield_now`).
    pub(crate) fn yield_now(&self) -> Yield {
        // A set latch: any idle action the search takes returns at once instead of sleeping.
        let done = CoreLatch::new();
        // SAFETY: `done` lives on this frame for the whole search; nobody waits on it.
        unsafe { CoreLatch::set(&done) };
        let mut idle_start = self.registry.now_ns();
        match self.find_work(&done, &mut idle_start) {
            Search::Found(job) => {
                self.execute(job);
                Yield::Executed
            }
            Search::Nothing { .. } => Yield::Idle,
        }
    }

    /// Whether this worker has jobs queued (a hint: thieves may be taking them).
    pub(crate) fn has_pending_tasks(&self) -> bool {
        let info = self.info();
        info.stealer.len_hint() > 0 || !info.broadcasts.is_empty()
    }

    /// Whether this is the calling thread of `use_current_thread`, adopted as a worker.
    pub(crate) fn is_adopted(&self) -> bool {
        ADOPTED.with(|a| {
            a.borrow()
                .as_ref()
                .is_some_and(|ad| std::ptr::eq(&*ad._worker, self))
        })
    }

    /// The FIFO of this worker for `spawn_fifo` outside a `scope_fifo`.
    pub(crate) fn fifo(&self) -> &super::fifo::JobFifo {
        &self.info().fifo
    }
}

/// Runs `handler` (a start or exit handler) with the worker's index; its panic goes to the
/// pool's panic handler, as rayon does.
fn run_handler(registry: &Registry, handler: &Option<Arc<ThreadHandler>>, index: usize) {
    if let Some(h) = handler {
        if let Err(p) = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| h(index))) {
            registry.handle_panic(p);
        }
    }
}

/// The life of one worker thread.
pub(crate) fn main_loop(seed: WorkerSeed) {
    if let Some(cpu) = seed.cpu {
        pin_current_thread(cpu);
    }
    let index = seed.index;
    let worker = WorkerThread::new(seed);
    // A spawn handler may run a worker on a thread that is a worker already (of another
    // pool): that worker state comes back when this one ends, even by unwinding.
    let _restore = RestoreWorker(WORKER_THREAD.with(|w| w.replace(&worker)));
    run_handler(
        &worker.registry,
        &worker.registry.config.start_handler,
        index,
    );
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
    run_handler(
        &worker.registry,
        &worker.registry.config.exit_handler,
        index,
    );
}

/// Puts the thread's previous worker pointer back when dropped (`main_loop`'s exit).
struct RestoreWorker(*const WorkerThread);

impl Drop for RestoreWorker {
    fn drop(&mut self) {
        WORKER_THREAD.with(|w| w.set(self.0));
    }
}

/// The worker state of an adopted thread; forgets the thread-local pointer before it frees
/// the state (at thread exit), so that no later TLS destructor sees a dangling worker.
struct Adopted {
    /// Owned here; read through `WORKER_THREAD`.
    _worker: Box<WorkerThread>,
}

impl Drop for Adopted {
    fn drop(&mut self) {
        let _ = WORKER_THREAD.try_with(|w| w.set(ptr::null()));
    }
}

/// Makes the calling thread worker `seed.index` of its pool: it runs no worker loop, but
/// every `join`, `scope` and wait on it works as a worker's does, and thieves take the jobs
/// it queues. The state stays until the thread exits (as rayon's does). The caller checked
/// that the thread is not a worker already.
pub(crate) fn adopt_current_thread(seed: WorkerSeed) {
    let worker = Box::new(WorkerThread::new(seed));
    let ptr: *const WorkerThread = &*worker;
    ADOPTED.with(|a| {
        let mut a = a.borrow_mut();
        // The caller checked that the thread is no worker; an adopted thread always is one.
        debug_assert!(a.is_none(), "adopting a thread twice");
        *a = Some(Adopted { _worker: worker });
    });
    WORKER_THREAD.with(|w| w.set(ptr));
}
