//! Parallel loops with self-scheduling and loop work stealing (LB4OMP): `parallel_for`,
//! `parallel_for_chunks` and `parallel_reduce` over an index range, scheduled by a
//! [`Schedule`] chosen in code, from a string (`name[,chunk]`, as `OMP_SCHEDULE`) or from the
//! `MAGPIE_SCHEDULE` variable.
//!
//! Two families of schedules: the *central-queue* techniques of the dynamic loop
//! self-scheduling literature (SS, GSS, TSS, FAC, FAC2, mFAC, WF, AWF*, AF), where every worker
//! takes its next chunk from one shared counter and a [`ChunkRule`] sizes it (SS and mFAC
//! with one atomic increment per chunk, the others under a lock); and
//! the *distributed* ones (static, static-steal, rws, laws, auto), where each worker owns a
//! block of iterations and idle workers steal part of someone else's.

mod chunks;
mod schedule;

pub use chunks::{central_rule, ChunkRule, LoopHistory, LoopShape, TimeStats};
pub use schedule::{Schedule, ScheduleError, StealAmount, SCHEDULE_ENV};

mod dispense;
mod exec;
mod select;

pub use dispense::{Cursor, Dispenser};
pub use exec::LoopStats;

use std::ops::Range;
use std::sync::Mutex;

use dispense::plan;

/// `auto`: fork-join splitting with an automatic grain, for users who do not care.
impl Default for Schedule {
    fn default() -> Self {
        Schedule::Auto
    }
}

impl Schedule {
    /// The schedule that actually runs: `runtime` becomes `MAGPIE_SCHEDULE` (or `auto` when
    /// unset; a bad value is reported once on stderr and `auto` runs). The automatic
    /// selectors choose per call of a [`Loop`] (see `loops/select.rs` for their rules); on
    /// their own they resolve to `auto`.
    pub fn resolve(&self) -> Schedule {
        match self {
            Schedule::Runtime => match Schedule::from_env() {
                Ok(Some(s)) => s,
                Ok(None) => Schedule::Auto,
                Err(e) => {
                    static REPORTED: std::sync::Once = std::sync::Once::new();
                    REPORTED.call_once(|| eprintln!("magpie: {e}; running `auto` instead"));
                    Schedule::Auto
                }
            },
            s if s.is_selector() => Schedule::Auto,
            s => s.clone(),
        }
    }

    /// Whether this is one of the automatic selectors (`random-sel`, `exhaustive-sel`,
    /// `binary-sel`, `expert-sel`), which choose a schedule for each call of a [`Loop`].
    ///
    /// ```
    /// use magpie::loops::Schedule;
    /// assert!("expert-sel".parse::<Schedule>().unwrap().is_selector());
    /// assert!(!"gss".parse::<Schedule>().unwrap().is_selector());
    /// ```
    pub fn is_selector(&self) -> bool {
        matches!(
            self,
            Schedule::RandomSel
                | Schedule::ExhaustiveSel
                | Schedule::BinarySel
                | Schedule::ExpertSel
        )
    }
}

/// A loop with an identity: keeps its schedule and what adaptive schedules learned
/// (weights, iteration-time estimates) from one call to the next, as LB4OMP does across the
/// time steps of an application.
///
/// ```
/// use magpie::loops::{Loop, Schedule};
/// let pool = magpie::ThreadPoolBuilder::new().num_workers(2).build().unwrap();
/// let step = Loop::new("gss".parse::<Schedule>().unwrap());
/// let sums: Vec<u64> = (0..3)
///     .map(|_| pool.install(|| step.reduce(0..1000, || 0u64, |a, i| a + i as u64, |a, b| a + b).0))
///     .collect();
/// assert_eq!(sums, [499_500; 3]);
/// assert_eq!(step.calls(), 3);
/// ```
#[derive(Debug)]
pub struct Loop {
    schedule: Schedule,
    state: Mutex<LoopState>,
}

#[derive(Debug, Default)]
struct LoopState {
    history: LoopHistory,
    calls: u64,
    last: Option<LoopStats>,
    /// For the selectors: the selection state and each portfolio member's own history.
    selector: Option<(select::Selector, Vec<LoopHistory>)>,
}

impl Loop {
    /// A loop scheduled by `schedule`.
    pub fn new(schedule: Schedule) -> Self {
        Loop {
            schedule,
            state: Mutex::new(LoopState::default()),
        }
    }

    /// The loop's schedule.
    pub fn schedule(&self) -> &Schedule {
        &self.schedule
    }

    /// How many times the loop ran.
    pub fn calls(&self) -> u64 {
        self.lock().calls
    }

    /// The statistics of the last run.
    pub fn last_stats(&self) -> Option<LoopStats> {
        self.lock().last.clone()
    }

    /// What the loop has learned so far (a copy): the weights of AWF and AWF-B…E, FAC's
    /// iteration time, AF's per-worker times. Empty for schedules that learn nothing and for
    /// the selectors, which keep one history per portfolio member internally.
    ///
    /// ```
    /// use magpie::loops::{Loop, Schedule};
    /// let pool = magpie::ThreadPoolBuilder::new().num_workers(2).build().unwrap();
    /// let lp = Loop::new("awf".parse::<Schedule>().unwrap());
    /// pool.install(|| lp.for_each(0..10_000, |i| { std::hint::black_box(i); }));
    /// assert_eq!(lp.history().calls, 1);
    /// assert_eq!(lp.history().weights.len(), 2);
    /// ```
    pub fn history(&self) -> LoopHistory {
        self.lock().history.clone()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, LoopState> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn run(&self, range: Range<usize>, body: &exec::Body<'_>) -> LoopStats {
        if self.is_selector() {
            return self.run_selected(range, body);
        }
        let schedule = self.schedule.resolve();
        let plan = plan(&schedule);
        // The history is taken out for the run, so that a body calling this same loop
        // recursively does not deadlock (the inner call starts from no history).
        let mut history = std::mem::take(&mut self.lock().history);
        let stats = exec::drive(range, &plan, &schedule, &mut history, body);
        let mut state = self.lock();
        state.history = history;
        state.calls += 1;
        state.last = Some(stats.clone());
        stats
    }

    /// One call under an automatic selector: run the member it chooses, with that member's
    /// own history, and tell the selector what the call measured.
    fn run_selected(&self, range: Range<usize>, body: &exec::Body<'_>) -> LoopStats {
        let (i, member, mut history) = {
            let mut state = self.lock();
            let (selector, histories) = state.selector.get_or_insert_with(|| {
                let members = select::portfolio().len();
                (
                    select::Selector::new(self.schedule.clone()),
                    vec![LoopHistory::default(); members],
                )
            });
            let (i, member) = selector.choose();
            (i, member, std::mem::take(&mut histories[i]))
        };
        let stats = exec::drive(range, &plan(&member), &member, &mut history, body);
        let mut state = self.lock();
        if let Some((selector, histories)) = state.selector.as_mut() {
            selector.record(i, &stats);
            histories[i] = history;
        }
        state.calls += 1;
        state.last = Some(stats.clone());
        stats
    }

    /// Starts one execution of the loop over `0..iterations` for `participants` threads
    /// that take their chunks themselves (an OpenMP team's members): the schedule (`runtime`
    /// resolved, a selector's choice made) with what the loop learned so far. Give the
    /// dispenser back with [`Loop::finish`] once every participant got None, so that
    /// adaptive schedules learn from it. `auto` runs as static-steal with an automatic chunk
    /// here (there is no fork-join to split with).
    ///
    /// ```
    /// use magpie::loops::{Loop, Schedule};
    /// let lp = Loop::new("awf".parse::<Schedule>().unwrap());
    /// for _ in 0..2 {
    ///     let d = lp.dispense(100, 1);
    ///     let mut c = d.cursor(0);
    ///     let mut covered = 0;
    ///     while let Some(chunk) = d.next(&mut c) {
    ///         covered += chunk.len();
    ///     }
    ///     assert_eq!(covered, 100);
    ///     lp.finish(&d);
    /// }
    /// assert_eq!(lp.calls(), 2);
    /// assert_eq!(lp.history().calls, 2);
    /// ```
    pub fn dispense(&self, iterations: usize, participants: usize) -> Dispenser {
        let mut state = self.lock();
        if self.is_selector() {
            let (selector, histories) = state.selector.get_or_insert_with(|| {
                let members = select::portfolio().len();
                (
                    select::Selector::new(self.schedule.clone()),
                    vec![LoopHistory::default(); members],
                )
            });
            let (i, member) = selector.choose();
            let mut d = Dispenser::new(0..iterations, participants, &member, &histories[i]);
            d.set_member(i);
            return d;
        }
        let schedule = self.schedule.resolve();
        Dispenser::new(0..iterations, participants, &schedule, &state.history)
    }

    /// Ends an execution started by [`Loop::dispense`]: the schedule learns from it, and its
    /// statistics (time since `dispense`, chunks, steals) become [`Loop::last_stats`].
    pub fn finish(&self, d: &Dispenser) -> LoopStats {
        let stats = LoopStats {
            schedule: d.schedule().to_string(),
            time: d.elapsed(),
            busy: Vec::new(),
            chunks: d.chunks(),
            steals: d.steals(),
        };
        let mut state = self.lock();
        match d.member() {
            Some(i) => {
                if let Some((selector, histories)) = state.selector.as_mut() {
                    if let Some(h) = histories.get_mut(i) {
                        d.learn(h);
                    }
                    selector.record(i, &stats);
                }
            }
            None => d.learn(&mut state.history),
        }
        state.calls += 1;
        state.last = Some(stats.clone());
        stats
    }

    fn is_selector(&self) -> bool {
        self.schedule.is_selector()
    }

    /// Runs `body(i)` for every `i` in `range`, each exactly once.
    pub fn for_each(&self, range: Range<usize>, body: impl Fn(usize) + Sync) -> LoopStats {
        self.run(range, &|_, chunk: Range<usize>| chunk.for_each(&body))
    }

    /// Runs `body(chunk)` over disjoint chunks that cover `range` exactly.
    pub fn for_chunks(&self, range: Range<usize>, body: impl Fn(Range<usize>) + Sync) -> LoopStats {
        self.run(range, &|_, chunk| body(chunk))
    }

    /// Folds every index of `range` into per-worker accumulators started at `identity()`
    /// and combines them: `combine` must be associative and commutative (as for an OpenMP
    /// reduction: the schedule decides which worker folds which chunk, and in what order).
    pub fn reduce<T: Send>(
        &self,
        range: Range<usize>,
        identity: impl Fn() -> T + Sync,
        fold: impl Fn(T, usize) -> T + Sync,
        combine: impl Fn(T, T) -> T + Sync,
    ) -> (T, LoopStats) {
        let slots: Vec<Mutex<Option<T>>> = (0..crate::current_num_workers().max(1))
            .map(|_| Mutex::new(None))
            .collect();
        let slot = |w: usize| {
            slots[w % slots.len()]
                .lock()
                .unwrap_or_else(|e| e.into_inner())
        };
        let stats = self.run(range, &|_, chunk: Range<usize>| {
            let w = crate::current_worker_index().unwrap_or(0);
            // Take the worker's accumulator out while folding (a body that waits in a join
            // may run another chunk of this loop on the same worker), merge on the way back.
            let acc = slot(w).take().unwrap_or_else(&identity);
            let acc = chunk.fold(acc, &fold);
            let mut s = slot(w);
            *s = Some(match s.take() {
                Some(other) => combine(other, acc),
                None => acc,
            });
        });
        let total = slots
            .into_iter()
            .filter_map(|s| s.into_inner().unwrap_or_else(|e| e.into_inner()))
            .reduce(&combine)
            .unwrap_or_else(identity);
        (total, stats)
    }
}

/// Runs `body(i)` for every `i` in `range` exactly once on the current pool (the global
/// pool outside any pool), scheduled by `schedule`; nests inside fork-join and search tasks.
///
/// ```
/// use std::sync::atomic::{AtomicU64, Ordering};
/// use magpie::loops::{parallel_for, Schedule};
/// let sum = AtomicU64::new(0);
/// let stats = parallel_for(0..100, &"fac2".parse::<Schedule>().unwrap(), |i| {
///     sum.fetch_add(i as u64, Ordering::Relaxed);
/// });
/// assert_eq!(sum.into_inner(), 4950);
/// assert!(stats.chunks >= 1);
/// ```
pub fn parallel_for(
    range: Range<usize>,
    schedule: &Schedule,
    body: impl Fn(usize) + Sync,
) -> LoopStats {
    Loop::new(schedule.clone()).for_each(range, body)
}

/// Runs `body(chunk)` over disjoint chunks covering `range` exactly (see [`parallel_for`]).
///
/// ```
/// use std::sync::atomic::{AtomicUsize, Ordering};
/// use magpie::loops::{parallel_for_chunks, Schedule};
/// let covered = AtomicUsize::new(0);
/// parallel_for_chunks(10..1010, &"static".parse::<Schedule>().unwrap(), |r| {
///     covered.fetch_add(r.len(), Ordering::Relaxed);
/// });
/// assert_eq!(covered.into_inner(), 1000);
/// ```
pub fn parallel_for_chunks(
    range: Range<usize>,
    schedule: &Schedule,
    body: impl Fn(Range<usize>) + Sync,
) -> LoopStats {
    Loop::new(schedule.clone()).for_chunks(range, body)
}

/// A parallel fold of `range` (see [`Loop::reduce`]: `combine` must be associative and
/// commutative). Returns the folded value with the loop's statistics, as [`Loop::reduce`]
/// does; every loop function returns its [`LoopStats`].
///
/// ```
/// use magpie::loops::{parallel_reduce, Schedule};
/// let (s, stats) = parallel_reduce(0..1000, &Schedule::default(), || 0, |a, i| a + i as u64, |a, b| a + b);
/// assert_eq!(s, 499_500);
/// assert!(stats.chunks >= 1);
/// ```
pub fn parallel_reduce<T: Send>(
    range: Range<usize>,
    schedule: &Schedule,
    identity: impl Fn() -> T + Sync,
    fold: impl Fn(T, usize) -> T + Sync,
    combine: impl Fn(T, T) -> T + Sync,
) -> (T, LoopStats) {
    Loop::new(schedule.clone()).reduce(range, identity, fold, combine)
}
