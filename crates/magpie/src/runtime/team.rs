//! Teams: a parallel region run by several workers of a pool *at once* (OpenMP's team), with
//! a barrier whose waiters keep running the team's tasks, shared worksharing state, and
//! OpenMP's task model (`task.rs`: children, taskwait, taskgroups, dependences, final).
//!
//! Design (see `README.md` beside this file for the pool's other protocols):
//! - **Members.** [`parallel`] makes the calling worker member 0 and sends one job to each of
//!   `size - 1` other workers through their own broadcast queues (only that worker runs
//!   it). Workers of the pool outside the team get a *hold* job that blocks them (not
//!   stealing) until the region ends, so that a team task never runs on a thread that is
//!   not a member; if one still steals a team task (a race at the region's start), the task
//!   goes back to the broadcast queue of the member that made it.
//! - **Barrier.** One counter (`tally::Phase`): members whose implicit task is not *done*, where
//!   done means: the member arrived at the barrier and every task it made, directly or
//!   through its descendants, finished. Each task node counts its own body plus its
//!   unfinished child subtrees (`task.rs`), so a member's implicit task reaches zero exactly
//!   when its whole tree of tasks finished; only that event touches the team's counter (once
//!   per member per barrier, not once per task, so fine-grained tasks do not contend on one
//!   line). Whoever brings it to zero resets it to `size` for the next phase, then sets
//!   every member's latch (member 0's last) and wakes the sleeping ones. A waiting member runs
//!   jobs (the team's tasks) through `wait_until` like any waiting worker. The barrier at the
//!   end of the region is the same, so a region returns only when every task it made is done.
//! - **Lifetime.** Members hold the team by `Arc`; tasks by a plain [`TeamRef`] (no reference
//!   count to contend on): the region cannot end before every task finished, and a finishing
//!   task touches the team last when it counts down.
//! - **Worksharing.** Each member counts the worksharing constructs it meets; the first to
//!   reach construct k makes its shared state, the others find it in the team's table; the
//!   entry leaves the table once every member took it.
//! - **Nesting.** A region started inside an active region runs with a team of one (nested
//!   parallelism is serialized); its level still counts.
//! - **Reuse.** Starting a region costs what libgomp's does only if it allocates nothing: a
//!   thread keeps the last team of several members it started at level 1 (`CACHED`), with
//!   each member's job and implicit task inside it, and starts its next region of the same
//!   shape with that team once no member holds it any more (`Arc::get_mut`: the members
//!   dropped their counts, every task finished). A member's job is a [`MemberJob`] in the
//!   team, kept alive by a strong count the starter adds for it and the job gives back as
//!   the last thing it does; if a member has not let go yet after a short spin, the region
//!   gets a new team.

use std::any::Any;
use std::cell::RefCell;
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use crossbeam_utils::CachePadded;

use super::job::{HeapJob, Job, JobRef};
use super::latch::{CoreLatch, Latch, LockLatch};
use super::registry::{Registry, WorkerThread};
use super::tally::Phase;
use super::task::{Group, TaskNode};

/// How many times a member arriving at a barrier looks at its latch before it waits as an
/// idle worker (about a microsecond).
const BARRIER_SPINS: u32 = 256;

/// A team: the members of one parallel region.
pub(crate) struct Team {
    size: usize,
    /// Nesting depth of the region (1 for a region started outside any region).
    level: usize,
    /// Active (more than one member) regions enclosing this one, itself included.
    active_level: usize,
    /// The pool (none for a team of one started outside any pool).
    registry: Option<Arc<Registry>>,
    /// The pool worker of each member.
    workers: Vec<usize>,
    /// The member of each pool worker (`usize::MAX`: not in the team).
    member_of: Vec<usize>,
    /// Whether each member's share has started (its frame is set): a worker must not run a
    /// task of the team as a member before its own share runs, or the share would start
    /// nested inside the task and wait at the barrier for the task below it.
    started: Vec<std::sync::atomic::AtomicBool>,
    /// Members whose tree of tasks is not done in this phase (`tally.rs`).
    phase: CachePadded<Phase>,
    latches: Vec<CachePadded<CoreLatch>>,
    /// The shared state of worksharing constructs, by number: (state, members yet to take it).
    workshares: Mutex<HashMap<u64, Workshare>>,
    /// `single` constructs claimed so far (the first member to count one up runs it).
    singles: AtomicU64,
    /// The member number and team size of the thread that started this region, at each
    /// enclosing level (index 0 is level 1).
    ancestors: Vec<(usize, usize)>,
    /// Each member's implicit task (restarted by every barrier, reused by the next region).
    implicit: Vec<Arc<TaskNode>>,
    /// Each member's job (member 0's is unused: the starter runs its share itself).
    jobs: Vec<MemberJob>,
    /// The body of the current region (set while the starter holds the only reference;
    /// dangling between regions).
    body: Body,
}

/// A region's body, by raw pointer: the team outlives the region whose body it points to.
#[derive(Clone, Copy)]
struct Body(*const (dyn Fn(usize) + Sync));

// SAFETY: the body is `Sync` (it is called on every member at once); the pointer is only
// dereferenced by members during its region (`MemberJob::execute`).
unsafe impl Send for Body {}
// SAFETY: as above.
unsafe impl Sync for Body {}

/// A member's share of the current region, as the job its worker runs (module docs,
/// "Reuse").
struct MemberJob {
    team: TeamRef,
    member: usize,
}

impl Job for MemberJob {
    unsafe fn execute(this: *const Self) {
        // SAFETY: the job lives in its team, which the strong count the starter added for
        // this job keeps alive until `team` below drops.
        let (ptr, member) = unsafe { ((*this).team.0, (*this).member) };
        // SAFETY: that count is taken over here and given back when `team` drops.
        let team = unsafe { Arc::from_raw(ptr.as_ptr().cast_const()) };
        // SAFETY: the starter set the body of this region before sending the job, and the
        // body lives until the region's last barrier, which needs this member's share.
        let body = unsafe { &*team.body.0 };
        run_member(&team, member, body);
    }
}

thread_local! {
    /// The last team of several members this thread started at level 1 (module docs,
    /// "Reuse").
    static CACHED: RefCell<Option<Arc<Team>>> = const { RefCell::new(None) };
}

/// How many times a region's starter looks for its cached team to be free (its members
/// drop their references a moment after the last region's barrier) before making a new one.
const REUSE_SPINS: u32 = 64;

/// A worksharing construct's shared state and the members yet to take it.
type Workshare = (Arc<dyn Any + Send + Sync>, usize);

/// A team by plain pointer, as tasks hold it (see the module docs on lifetime).
#[derive(Clone, Copy)]
pub(crate) struct TeamRef(std::ptr::NonNull<Team>);

// SAFETY: `Team` is `Sync` (atomics, locks, immutable fields); the pointer is only read.
unsafe impl Send for TeamRef {}
// SAFETY: as above.
unsafe impl Sync for TeamRef {}

impl TeamRef {
    fn of(team: &Arc<Team>) -> Self {
        TeamRef(std::ptr::NonNull::from(&**team))
    }
}

impl std::ops::Deref for TeamRef {
    type Target = Team;
    fn deref(&self) -> &Team {
        // SAFETY: a TeamRef lives in the frames of the team's members (each holding an
        // `Arc` for the whole of its share) and of the team's tasks, which all finish before
        // the region ends and its last `Arc` drops (module docs, "Lifetime").
        unsafe { self.0.as_ref() }
    }
}

/// What a thread is doing inside a team: which member it is, and the task it runs.
#[derive(Clone)]
pub(crate) struct Frame {
    pub(crate) team: TeamRef,
    pub(crate) member: usize,
    pub(crate) task: Arc<TaskNode>,
    pub(crate) group: Option<Arc<Group>>,
    pub(crate) in_final: bool,
    /// The member's next worksharing construct and `single` (its implicit task's count).
    pub(crate) workshares: u64,
    pub(crate) singles: u64,
}

thread_local! {
    static FRAME: RefCell<Option<Frame>> = const { RefCell::new(None) };
}

/// Runs `f` with the current frame, if the thread is in a team.
pub(crate) fn with_frame<R>(f: impl FnOnce(Option<&mut Frame>) -> R) -> R {
    FRAME.with(|fr| f(fr.borrow_mut().as_mut()))
}

/// Makes `frame` the thread's frame until the guard drops (then the previous one returns).
pub(crate) fn enter(frame: Frame) -> FrameGuard {
    FrameGuard(Some(FRAME.with(|fr| fr.replace(Some(frame)))))
}

/// Clears the thread's frame until the guard drops (a member or task waiting, while it runs
/// other jobs).
pub(crate) fn leave() -> FrameGuard {
    FrameGuard(Some(FRAME.with(|fr| fr.replace(None))))
}

/// Puts the previous frame back when dropped.
pub(crate) struct FrameGuard(Option<Option<Frame>>);

impl Drop for FrameGuard {
    fn drop(&mut self) {
        if let Some(prev) = self.0.take() {
            let _ = FRAME.try_with(|fr| fr.replace(prev));
        }
    }
}

impl Team {
    pub(crate) fn size(&self) -> usize {
        self.size
    }

    pub(crate) fn registry(&self) -> Option<&Arc<Registry>> {
        self.registry.as_ref()
    }

    /// The member that pool worker `worker` is, if any.
    pub(crate) fn member_of(&self, worker: usize) -> Option<usize> {
        self.member_of
            .get(worker)
            .copied()
            .filter(|&m| m != usize::MAX)
    }

    /// Whether `member`'s share of the region has started.
    pub(crate) fn has_started(&self, member: usize) -> bool {
        self.started[member].load(Ordering::Acquire)
    }

    /// The pool worker of `member`.
    pub(crate) fn worker_of(&self, member: usize) -> usize {
        self.workers[member]
    }

    /// A member's implicit task is done (arrived, and its tree of tasks finished); the last
    /// one releases the barrier. The caller touches the team no more afterwards.
    pub(crate) fn count_down(&self) {
        if self.phase.done() {
            self.release();
        }
    }

    /// Every member arrived and every task finished: start the next phase and let them go.
    fn release(&self) {
        // `Phase::done` started the next phase: nobody counts before a latch is set (every
        // member waits and no task runs).
        // Member 0 last: once its latch is set the region may end and the team be freed
        // (member 0 holds the last `Arc` the caller may be relying on), so what the wake needs
        // is copied first and nothing is touched after that set.
        let registry = self.registry.clone();
        let first = self.workers[0];
        for m in (1..self.size).rev() {
            // SAFETY: the latch lives in the team, which member 0 keeps alive until its own
            // latch is set below.
            if unsafe { CoreLatch::set(&*self.latches[m]) } {
                if let Some(r) = &registry {
                    r.sleep().wake_specific(self.workers[m]);
                }
            }
        }
        // SAFETY: as above; the last access to the team.
        if unsafe { CoreLatch::set(&*self.latches[0]) } {
            if let Some(r) = &registry {
                r.sleep().wake_specific(first);
            }
        }
    }

    /// The calling member arrives at the barrier and waits (running the team's tasks) until
    /// every member arrived and every task is done.
    fn barrier(&self, member: usize, implicit: &TaskNode) {
        if self.size == 1 {
            return;
        }
        let latch = &*self.latches[member];
        implicit.arrive(self);
        // Members usually arrive close together: look at the latch for a moment before
        // waiting as an idle worker (whose bookkeeping reads the clock).
        for _ in 0..BARRIER_SPINS {
            if latch.probe() {
                break;
            }
            std::hint::spin_loop();
        }
        let wt = WorkerThread::current();
        // Jobs this member runs while it waits are not its share: they see no frame (the
        // team's tasks set their own).
        let outside = leave();
        // SAFETY: members are workers of the team's pool; the pointer is this thread's live
        // worker state.
        match unsafe { wt.as_ref() } {
            Some(wt) => wt.wait_until(latch),
            None => {
                while !latch.probe() {
                    std::thread::yield_now();
                }
            }
        }
        drop(outside);
        // The next phase's setter is the last arrival of the next barrier, which cannot
        // come before this member arrives there: resetting here races with nobody. No task
        // of this member's exists yet either, so its implicit task starts the phase afresh.
        latch.reset();
        implicit.restart();
    }
}

/// The current thread's place in a team, as an OpenMP runtime reports it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TeamInfo {
    /// The member's number in its team, from 0 (the thread that started the region).
    pub member: usize,
    /// The number of members.
    pub size: usize,
    /// Nesting depth of the innermost region (0 outside any region).
    pub level: usize,
    /// Enclosing regions with more than one member.
    pub active_level: usize,
}

/// The current thread's ancestor at nesting `level` (OpenMP's
/// `omp_get_ancestor_thread_num` and `omp_get_team_size`): its member number and team size
/// there; `(0, 1)` at level 0, None beyond the current level.
///
/// ```
/// use magpie::team;
/// assert_eq!(team::ancestor(0), Some((0, 1)));
/// assert_eq!(team::ancestor(1), None);
/// ```
pub fn ancestor(level: usize) -> Option<(usize, usize)> {
    with_frame(|f| match f {
        None => (level == 0).then_some((0, 1)),
        Some(f) => {
            let t = &f.team;
            if level == 0 {
                Some((0, 1))
            } else if level == t.level {
                Some((f.member, t.size))
            } else if level < t.level {
                t.ancestors.get(level - 1).copied()
            } else {
                None
            }
        }
    })
}

/// Where the current thread is: its member number and team size in the innermost parallel
/// region, and the region's levels; `member 0 of 1, level 0` outside any region.
///
/// ```
/// use magpie::team;
/// assert_eq!(team::info().size, 1);
/// let pool = magpie::ThreadPoolBuilder::new().num_workers(2).build().unwrap();
/// let seen = std::sync::Mutex::new(Vec::new());
/// pool.install(|| team::parallel(2, &|m| seen.lock().unwrap().push((m, team::info().size))));
/// let mut seen = seen.into_inner().unwrap();
/// seen.sort();
/// assert_eq!(seen, [(0, 2), (1, 2)]);
/// ```
pub fn info() -> TeamInfo {
    with_frame(|f| match f {
        Some(f) => TeamInfo {
            member: f.member,
            size: f.team.size,
            level: f.team.level,
            active_level: f.team.active_level,
        },
        None => TeamInfo {
            member: 0,
            size: 1,
            level: 0,
            active_level: 0,
        },
    })
}

/// Runs `body(member)` on `size` workers of the current pool at once, the calling worker as
/// member 0 (an OpenMP parallel region); returns when every member returned and every task
/// the region made (see [`crate::team::spawn_task`]) finished. Each member may wait for the
/// others at [`barrier`]. With `size` 1, outside any pool, or inside another region with more
/// than one member, the region runs on the calling thread alone (nested parallelism is
/// serialized). `size` is capped at the pool's size.
///
/// A panic in `body` or in a task aborts the process: the other members cannot finish the
/// region without the panicking one (OpenMP programs cannot unwind through a region either).
///
/// ```
/// use std::sync::atomic::{AtomicUsize, Ordering};
/// use magpie::team;
/// let pool = magpie::ThreadPoolBuilder::new().num_workers(2).build().unwrap();
/// let phase_one = AtomicUsize::new(0);
/// pool.install(|| {
///     team::parallel(2, &|_| {
///         phase_one.fetch_add(1, Ordering::Relaxed);
///         team::barrier();
///         // Every member finished phase one before any passes the barrier.
///         assert_eq!(phase_one.load(Ordering::Relaxed), 2);
///     })
/// });
/// ```
pub fn parallel(size: usize, body: &(dyn Fn(usize) + Sync)) {
    let outer = with_frame(|f| f.map(|f| (f.team.level, f.team.active_level, f.team.size)));
    let ancestors = with_frame(|f| match f {
        Some(f) => {
            let mut a = f.team.ancestors.clone();
            a.push((f.member, f.team.size));
            a
        }
        None => Vec::new(),
    });
    let (level, active) = outer.map_or((0, 0), |(l, a, _)| (l, a));
    // Inside any active region (a serialized one inside it included), regions are serialized.
    let nested_active = outer.is_some_and(|(_, active, _)| active >= 1);
    let wt = WorkerThread::current();
    // SAFETY: a non-null TLS pointer is this thread's live worker state.
    let wt = unsafe { wt.as_ref() };
    let size = match wt {
        Some(wt) if !nested_active => size.clamp(1, wt.registry().num_workers()),
        _ => 1,
    };
    if size == 1 {
        let me = wt.map_or(0, WorkerThread::index);
        let team = Arc::new(Team::new(
            1,
            (level + 1, active),
            ancestors,
            None,
            vec![me],
            Vec::new(),
        ));
        run_member(&team, 0, body);
        return;
    }
    let wt = wt.expect("a team of several members has a pool");
    let registry = wt.registry();
    let p = registry.num_workers();
    let me = wt.index();
    let cacheable = level == 0;
    let cached = if cacheable {
        reuse_cached(registry, me, size)
    } else {
        None
    };
    let mut team = cached.unwrap_or_else(|| {
        let workers: Vec<usize> = std::iter::once(me)
            .chain((0..p).filter(|&w| w != me).take(size - 1))
            .collect();
        let mut member_of = vec![usize::MAX; p];
        for (m, &w) in workers.iter().enumerate() {
            member_of[w] = m;
        }
        Arc::new(Team::new(
            size,
            (level + 1, active + 1),
            ancestors,
            Some(Arc::clone(registry)),
            workers,
            member_of,
        ))
    });
    // Only the lifetime is erased. `body` outlives every member's use of it: the members
    // call it before they arrive at the region's last barrier, and this function returns
    // only after that barrier completed.
    // SAFETY: a cast of a reference to a raw pointer of the same layout.
    let body_ptr = Body(unsafe {
        std::mem::transmute::<*const (dyn Fn(usize) + Sync + '_), *const (dyn Fn(usize) + Sync)>(
            body,
        )
    });
    // From the `Arc`'s own pointer, not through a reference, so that the `&mut` below does
    // not invalidate it (the jobs keep it for the team's later regions).
    let this =
        TeamRef(std::ptr::NonNull::new(Arc::as_ptr(&team).cast_mut()).expect("an Arc is not null"));
    {
        let t = Arc::get_mut(&mut team).expect("a new or reused team is not shared yet");
        // Written only when they change: a region started again from the same place finds
        // them in place, and its members read lines the starter did not write.
        if !std::ptr::eq(t.body.0, body_ptr.0) {
            t.body = body_ptr;
        }
        if t.jobs.last().is_some_and(|j| j.team.0 != this.0) {
            for job in &mut t.jobs {
                job.team = this;
            }
        }
    }
    // Workers outside the team wait, blocked, until the region ends.
    let hold = (size < p).then(|| Arc::new(LockLatch::new()));
    if let Some(hold) = &hold {
        for w in (0..p).filter(|&w| team.member_of(w).is_none()) {
            let hold = Arc::clone(hold);
            let job = HeapJob::new(move || hold.wait());
            // SAFETY: the job owns everything it touches.
            registry.inject_to(w, unsafe { job.into_job_ref() });
        }
    }
    for m in 1..size {
        // One strong count for the member's job, given back when the job ends.
        // SAFETY: the pointer comes from a live `Arc`.
        unsafe { Arc::increment_strong_count(Arc::as_ptr(&team)) };
        // SAFETY: the job lives in the team, which that count keeps alive until the job
        // ran; `body` is valid as argued above.
        registry.inject_to(team.workers[m], unsafe { JobRef::new(&team.jobs[m]) });
    }
    run_member(&team, 0, body);
    if let Some(hold) = &hold {
        // SAFETY: `hold` is alive (we hold an Arc); LockLatch::set touches nothing after
        // unlock.
        unsafe { Latch::set(&**hold) };
    }
    if cacheable {
        CACHED.with(|c| *c.borrow_mut() = Some(team));
    }
}

/// The calling thread's cached team, if it has the shape asked for and its members let go
/// of it within a short spin, made ready for a new region (module docs, "Reuse").
fn reuse_cached(registry: &Arc<Registry>, me: usize, size: usize) -> Option<Arc<Team>> {
    let mut team = CACHED.try_with(|c| c.borrow_mut().take()).ok()??;
    let fits = team.size == size
        && team.workers[0] == me
        && team.level == 1
        && team
            .registry
            .as_ref()
            .is_some_and(|r| Arc::ptr_eq(r, registry));
    if !fits {
        return None;
    }
    for _ in 0..REUSE_SPINS {
        if let Some(t) = Arc::get_mut(&mut team) {
            t.reset();
            return Some(team);
        }
        std::hint::spin_loop();
    }
    None
}

/// Runs one member's share of a region: its implicit task, then the region's last barrier.
fn run_member(team: &Arc<Team>, member: usize, body: &(dyn Fn(usize) + Sync)) {
    let implicit = Arc::clone(&team.implicit[member]);
    let frame = Frame {
        team: TeamRef::of(team),
        member,
        task: Arc::clone(&implicit),
        group: None,
        in_final: false,
        workshares: 0,
        singles: 0,
    };
    let guard = enter(frame);
    team.started[member].store(true, Ordering::Release);
    // A member cannot unwind out of a region: the others would wait for it forever.
    let abort = super::job::AbortOnUnwind;
    body(member);
    team.barrier(member, &implicit);
    if member != 0 {
        // Ready for a next region with this team (`Team::reset`).
        team.started[member].store(false, Ordering::Relaxed);
    }
    abort.disarm();
    drop(guard);
}

impl Team {
    fn new(
        size: usize,
        (level, active_level): (usize, usize),
        ancestors: Vec<(usize, usize)>,
        registry: Option<Arc<Registry>>,
        workers: Vec<usize>,
        member_of: Vec<usize>,
    ) -> Self {
        Team {
            size,
            level,
            active_level,
            registry,
            implicit: workers
                .iter()
                .map(|&w| Arc::new(TaskNode::implicit_on(w)))
                .collect(),
            jobs: (0..size)
                .map(|member| MemberJob {
                    team: TeamRef(std::ptr::NonNull::dangling()),
                    member,
                })
                .collect(),
            body: Body(&|_| {}),
            workers,
            member_of,
            started: (0..size)
                .map(|m| std::sync::atomic::AtomicBool::new(m == 0))
                .collect(),
            phase: CachePadded::new(Phase::new(size)),
            latches: (0..size)
                .map(|_| CachePadded::new(CoreLatch::new()))
                .collect(),
            workshares: Mutex::new(HashMap::new()),
            singles: AtomicU64::new(0),
            ancestors,
        }
    }

    /// Makes a team whose last region ended ready for the next (nobody else holds it).
    fn reset(&mut self) {
        // The last barrier restarted the phase count and every member's latch and implicit
        // task (dependences too), and each member cleared its start flag (`run_member`): a
        // region leaves behind only the `single` count here. Nothing of a member's is
        // written, so that its worker does not wait for those lines at the next start.
        *self.singles.get_mut() = 0;
        self.workshares
            .get_mut()
            .unwrap_or_else(|e| e.into_inner())
            .clear();
    }
}

/// The current member waits until every member of its team arrived here and every task
/// the team made so far finished; it runs the team's tasks meanwhile. Nothing outside a
/// team (or in a team of one, where tasks already ran).
///
/// ```
/// use std::sync::atomic::{AtomicUsize, Ordering};
/// use magpie::team;
/// let pool = magpie::ThreadPoolBuilder::new().num_workers(2).build().unwrap();
/// let tasks = AtomicUsize::new(0);
/// pool.install(|| team::parallel(2, &|_| {
///     let tasks: &'static AtomicUsize = unsafe { &*(&tasks as *const AtomicUsize) };
///     team::spawn_task(team::TaskOptions::default(), move || {
///         tasks.fetch_add(1, Ordering::Relaxed);
///     });
///     team::barrier();
///     assert_eq!(tasks.load(Ordering::Relaxed), 2);
/// }));
/// ```
pub fn barrier() {
    let found = with_frame(|f| f.map(|f| (f.team, f.member, Arc::clone(&f.task))));
    if let Some((team, member, task)) = found {
        team.barrier(member, &task);
    }
}

/// The shared state of the calling member's next worksharing construct (OpenMP's `for`,
/// `sections`, `single copyprivate`): the first member to reach it makes it with `init` and
/// gets `true`; the others get the same state and `false`. Every member must meet the same
/// constructs in the same order. Outside a team, or in a team of one, every call makes a
/// fresh state.
///
/// ```
/// use std::sync::atomic::{AtomicUsize, Ordering};
/// use magpie::team;
/// let pool = magpie::ThreadPoolBuilder::new().num_workers(2).build().unwrap();
/// let made = AtomicUsize::new(0);
/// pool.install(|| team::parallel(2, &|_| {
///     let (counter, _first) = team::workshare(|| {
///         made.fetch_add(1, Ordering::Relaxed);
///         AtomicUsize::new(0)
///     });
///     counter.fetch_add(1, Ordering::Relaxed);
///     team::barrier();
///     assert_eq!(counter.load(Ordering::Relaxed), 2);
/// }));
/// assert_eq!(made.into_inner(), 1);
/// ```
pub fn workshare<T: Any + Send + Sync>(init: impl FnOnce() -> T) -> (Arc<T>, bool) {
    let found = with_frame(|f| {
        f.filter(|f| f.team.size > 1).map(|f| {
            let k = f.workshares;
            f.workshares += 1;
            (f.team, k)
        })
    });
    let Some((team, k)) = found else {
        return (Arc::new(init()), true);
    };
    let mut table = team.workshares.lock().unwrap_or_else(|e| e.into_inner());
    let (state, first) = match table.get_mut(&k) {
        Some((state, left)) => {
            *left -= 1;
            let state = Arc::clone(state);
            if *left == 0 {
                table.remove(&k);
            }
            (state, false)
        }
        None => {
            let state: Arc<dyn Any + Send + Sync> = Arc::new(init());
            table.insert(k, (Arc::clone(&state), team.size - 1));
            (state, true)
        }
    };
    drop(table);
    match state.downcast::<T>() {
        Ok(s) => (s, first),
        // The members disagree on what construct k is: a program error OpenMP leaves
        // undefined; keep this member going with a state of its own.
        Err(_) => (Arc::new(init_fallback::<T>()), false),
    }
}

#[cold]
fn init_fallback<T>() -> T {
    eprintln!("magpie: team members met different worksharing constructs; aborting");
    std::process::abort()
}

/// Claims the calling member's next `single` construct: true for exactly one member of the
/// team (the first to get there), false for the others. True outside a team.
///
/// ```
/// use std::sync::atomic::{AtomicUsize, Ordering};
/// use magpie::team;
/// let pool = magpie::ThreadPoolBuilder::new().num_workers(2).build().unwrap();
/// let ran = AtomicUsize::new(0);
/// pool.install(|| team::parallel(2, &|_| {
///     for _ in 0..100 {
///         if team::single() {
///             ran.fetch_add(1, Ordering::Relaxed);
///         }
///     }
/// }));
/// assert_eq!(ran.into_inner(), 100);
/// ```
pub fn single() -> bool {
    with_frame(|f| match f {
        Some(f) if f.team.size > 1 => {
            let k = f.singles;
            f.singles += 1;
            f.team
                .singles
                .compare_exchange(k, k + 1, Ordering::AcqRel, Ordering::Relaxed)
                .is_ok()
        }
        _ => true,
    })
}
