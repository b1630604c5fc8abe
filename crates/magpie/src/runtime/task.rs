//! OpenMP's task model on the team's workers: explicit tasks pushed on the work-stealing
//! deques, counted by their parent (`taskwait`), their taskgroup and their team's barrier;
//! dependences between siblings; final and undeferred tasks.
//!
//! - **Counting.** A task is counted up, before it is queued, in its parent's `children`
//!   (direct children, for `taskwait`), its parent's `pending` (the parent's own body plus
//!   its children's unfinished subtrees, for the barrier) and its taskgroup's `count`
//!   (inherited by every descendant made inside the group). When its body returns it counts
//!   down `children` and the group, and its own `pending`; a node whose `pending` reaches zero
//!   counts down its parent's, and a member's implicit task reaching zero counts down the
//!   team's barrier (`team.rs`). Every count a task touches lives in its parent's node or its
//!   group, never in one line all workers share. A waiter (taskwait,
//!   taskgroup end) resets its latch, checks its count, and waits on the latch while the count
//!   is not zero; the task that brings the count to zero sets the latch and wakes the waiter
//!   (the worker that made the node: tied tasks never move between workers, so that worker is
//!   the one that waits). The waiter runs other jobs meanwhile.
//! - **Dependences** (`in`, `out`/`inout`, on addresses, between siblings): the parent keeps,
//!   per address, the last writer and the readers since; a new task depends on the last
//!   writer (`in`) or on it and the readers (`out`). A task starts with one predecessor more
//!   than it has (its own registration) and is queued when the count reaches zero; a
//!   finishing task marks itself done under its lock and counts down its successors. The
//!   table is cleared at `taskwait`, when every sibling finished.
//! - **Final, undeferred.** A task made inside a final task, or with `undeferred`, runs at
//!   once on the making thread (after its predecessors, whose wait runs other jobs); so does
//!   every task outside a team or in a team of one.

use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use super::job::{AbortOnUnwind, HeapJob};
use super::latch::CoreLatch;
use super::registry::WorkerThread;
use super::tally::{Node, Tree};
use super::team::{enter, leave, with_frame, Frame};

/// A task's bookkeeping as a parent: its unfinished children and its waiter's latch.
pub(crate) struct TaskNode {
    children: AtomicUsize,
    /// Its own body plus its children's unfinished subtrees, counted in its parent's
    /// (`tally.rs`); a member's implicit task is a root, counted by its team.
    tree: Tree<TaskNode>,
    latch: CoreLatch,
    /// The worker that runs this task (and waits in its taskwaits).
    owner: AtomicUsize,
    /// The dependences among this task's children.
    deps: Mutex<HashMap<usize, DepEntry>>,
    /// Whether any child had dependences (else `taskwait` has no table to clear).
    has_deps: std::sync::atomic::AtomicBool,
}

/// A taskgroup: its unfinished tasks (descendants included) and its waiter.
pub(crate) struct Group {
    count: AtomicUsize,
    latch: CoreLatch,
    owner: usize,
    parent: Option<Arc<Group>>,
}

/// The last writer of an address and the readers since.
#[derive(Default)]
struct DepEntry {
    writer: Option<Arc<DepNode>>,
    readers: Vec<Arc<DepNode>>,
}

/// A task with dependences: its unfinished predecessors, its successors, and its job until
/// it is released.
struct DepNode {
    preds: AtomicUsize,
    state: Mutex<DepState>,
}

#[derive(Default)]
struct DepState {
    done: bool,
    successors: Vec<Arc<DepNode>>,
    /// The task to queue once every predecessor finished (deferred tasks), and its priority.
    job: Option<Box<dyn FnOnce() + Send>>,
    priority: i64,
}

/// How a task depends on an address (OpenMP's `depend` clause).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DepKind {
    /// `in`: after the last sibling that wrote the address.
    In,
    /// `out`, `inout` (and, conservatively, `mutexinoutset`): after the last writer and
    /// every reader since.
    Out,
}

/// How to run a task: its priority, its dependences, and whether it may be deferred.
#[derive(Debug, Clone, Default)]
pub struct TaskOptions {
    /// Higher runs first among queued tasks (OpenMP's `priority`; 0 is ordinary).
    pub priority: i64,
    /// Addresses the task reads (`In`) or writes (`Out`), ordering it after earlier siblings.
    pub depend: Vec<(usize, DepKind)>,
    /// The task is final: every task it makes runs at once, inside it.
    pub final_task: bool,
}

impl TaskNode {
    /// The node of the implicit task of a member that runs on pool worker `owner`.
    pub(crate) fn implicit_on(owner: usize) -> Self {
        let node = Self::with_tree(Tree::root());
        node.owner.store(owner, Ordering::Relaxed);
        node
    }

    /// The node of a task made by the task of `parent`, counted there from now on.
    fn child_of(parent: Arc<TaskNode>) -> Self {
        Self::with_tree(Tree::child(parent))
    }

    fn with_tree(tree: Tree<TaskNode>) -> Self {
        TaskNode {
            children: AtomicUsize::new(0),
            tree,
            latch: CoreLatch::new(),
            owner: AtomicUsize::new(current_worker()),
            deps: Mutex::new(HashMap::new()),
            has_deps: std::sync::atomic::AtomicBool::new(false),
        }
    }

    /// The member whose implicit task this is arrives at its team's barrier: its own count
    /// goes; the last of its tree to finish counts the team down.
    pub(crate) fn arrive(&self, team: &super::team::Team) {
        if self.tree.parent().is_none() {
            Self::finished(self, team);
        }
    }

    /// After the barrier: the implicit task's own count is back for the next phase, and
    /// the dependences among its children are forgotten (no task of its tree exists, so
    /// none can order a later one).
    pub(crate) fn restart(&self) {
        if self.tree.parent().is_none() {
            self.tree.restart();
            if self.has_deps.load(Ordering::Relaxed) {
                self.has_deps.store(false, Ordering::Relaxed);
                self.deps.lock().unwrap_or_else(|e| e.into_inner()).clear();
            }
        }
    }

    /// The body of `node` is done; if that finished a member's whole tree, the team counts
    /// it. Touches nothing afterwards (the region may end).
    fn finished(node: &TaskNode, team: &super::team::Team) {
        if node.tree.finish() {
            team.count_down();
        }
    }

    fn child_done(&self, registry: Option<&Arc<super::registry::Registry>>) {
        if self.children.fetch_sub(1, Ordering::AcqRel) == 1 {
            let owner = self.owner.load(Ordering::Relaxed);
            // SAFETY: the node is alive (the child holds an Arc to it).
            if unsafe { CoreLatch::set(&self.latch) } {
                if let Some(r) = registry {
                    r.sleep().wake_specific(owner);
                }
            }
        }
    }
}

impl Node for TaskNode {
    fn tree(&self) -> &Tree<Self> {
        &self.tree
    }
}

impl Group {
    fn task_done(&self, registry: Option<&Arc<super::registry::Registry>>) {
        if self.count.fetch_sub(1, Ordering::AcqRel) == 1 {
            // SAFETY: the group is alive (the task holds an Arc to it).
            if unsafe { CoreLatch::set(&self.latch) } {
                if let Some(r) = registry {
                    r.sleep().wake_specific(self.owner);
                }
            }
        }
    }
}

fn current_worker() -> usize {
    // SAFETY: a non-null TLS pointer is this thread's live worker state.
    unsafe { WorkerThread::current().as_ref() }.map_or(0, WorkerThread::index)
}

/// Waits until `count` is zero, running other jobs; `latch` is set by whoever brings it there.
fn wait_for_zero(count: &AtomicUsize, latch: &CoreLatch) {
    // SAFETY: a non-null TLS pointer is this thread's live worker state.
    let wt = unsafe { WorkerThread::current().as_ref() };
    while count.load(Ordering::Acquire) != 0 {
        // A latch set by an earlier zero crossing is stale: clear it, then look again (the
        // fence orders the reset before the load, against the setter's count-down then set).
        latch.reset();
        std::sync::atomic::fence(Ordering::SeqCst);
        if count.load(Ordering::Acquire) == 0 {
            break;
        }
        match wt {
            Some(wt) => {
                // The children are most often still on this worker's own deque: run them
                // straight from there (a pop, no idle bookkeeping), and wait as an idle
                // worker only when the deque is empty. Other jobs run without this task's
                // frame (team tasks set their own).
                let _outside = leave();
                if wt.yield_local() == super::Yield::Idle {
                    wt.wait_until(latch);
                }
            }
            None => std::thread::yield_now(),
        }
    }
}

/// Makes a task: queued on the current worker's deque (run by any member of the team that
/// takes it), or run at once when it cannot be deferred (inside a final task, outside a
/// team, in a team of one). It counts as a child of the current task, a member of the
/// current taskgroup, and work the team's next barrier waits for.
///
/// ```
/// use std::sync::atomic::{AtomicUsize, Ordering};
/// use std::sync::Arc;
/// use magpie::team;
/// let pool = magpie::ThreadPoolBuilder::new().num_workers(2).build().unwrap();
/// let n = Arc::new(AtomicUsize::new(0));
/// pool.install(|| team::parallel(2, &|_| {
///     if team::single() {
///         for _ in 0..10 {
///             let n = Arc::clone(&n);
///             team::spawn_task(team::TaskOptions::default(), move || {
///                 n.fetch_add(1, Ordering::Relaxed);
///             });
///         }
///         team::taskwait();
///         assert_eq!(n.load(Ordering::Relaxed), 10);
///     }
/// }));
/// ```
pub fn spawn_task(options: TaskOptions, body: impl FnOnce() + Send + 'static) {
    if runs_as_parent(&options) {
        return body();
    }
    let parent = with_frame(|f| f.cloned());
    let Some(parent) = parent else {
        // Outside any team: the task runs at once, on its own.
        body();
        return;
    };
    if parent.in_final || parent.team.size() == 1 {
        return run_included(&parent, options, body);
    }
    let node = (!options.depend.is_empty()).then(|| register_deps(&parent, &options.depend));
    let team = parent.team;
    let mut child = make_child(parent, &options);
    child.dep = node.clone();
    let run = move || run_task(child, body);
    let priority = options.priority;
    match node {
        None => queue(&team, priority, run),
        Some(node) => {
            let mut state = node.state.lock().unwrap_or_else(|e| e.into_inner());
            state.job = Some(Box::new(run));
            state.priority = priority;
            drop(state);
            // Our own registration count: the last predecessor, or we, queue the task.
            release(&team, &node);
        }
    }
}

/// Runs a task at once on the calling thread (OpenMP's undeferred task: `if(0)`), after its
/// predecessors finished (running other jobs while it waits). It is a task of its own for
/// `taskwait`, taskgroups and `final`.
///
/// ```
/// use magpie::team;
/// let mut x = 0;
/// team::run_task_now(team::TaskOptions::default(), || x += 1);
/// assert_eq!(x, 1);
/// ```
pub fn run_task_now(options: TaskOptions, body: impl FnOnce()) {
    if runs_as_parent(&options) {
        return body();
    }
    let parent = with_frame(|f| f.cloned());
    match parent {
        None => body(),
        Some(parent) => run_included(&parent, options, body),
    }
}

/// Whether a task made now can run as a plain call inside its maker's frame: outside any
/// team, or in a team of one when it would not change whether the code runs in a final
/// task. In a team of one every task runs at once where it is made (deferring buys
/// nothing with one thread, as libgomp's lone thread does too), so its own children have
/// finished before it returns: a `taskwait` inside it finds none outstanding either way,
/// dependences are met by program order, and a taskgroup it opens it also closes. What it
/// saves is a task node, a frame switch and their counts per task, most of the time a
/// fine-grained task program spends at one thread.
fn runs_as_parent(options: &TaskOptions) -> bool {
    with_frame(|f| match f {
        None => true,
        Some(f) => f.team.size() == 1 && (f.in_final || !options.final_task),
    })
}

/// An included task: run at once, with a frame of its own.
fn run_included(parent: &Frame, options: TaskOptions, body: impl FnOnce()) {
    if !options.depend.is_empty() && parent.team.size() > 1 {
        let node = register_deps(parent, &options.depend);
        // Our registration is the last count; wait for the predecessors.
        node.preds.fetch_sub(1, Ordering::AcqRel);
        // SAFETY: a non-null TLS pointer is this thread's live worker state.
        let wt = unsafe { WorkerThread::current().as_ref() };
        while node.preds.load(Ordering::Acquire) != 0 {
            match wt {
                Some(wt) => {
                    let _ = wt.yield_now();
                }
                None => std::thread::yield_now(),
            }
        }
        run_inline(parent, &options, body);
        finish_deps(&parent.team, &node);
    } else {
        run_inline(parent, &options, body);
    }
}

fn run_inline(parent: &Frame, options: &TaskOptions, body: impl FnOnce()) {
    // Its deferred children (if it is not final) count in its node, which counts in the
    // parent's until they finished: the barrier waits for them.
    let node = Arc::new(TaskNode::child_of(Arc::clone(&parent.task)));
    let frame = Frame {
        task: Arc::clone(&node),
        in_final: parent.in_final || options.final_task,
        ..parent.clone()
    };
    let guard = enter(frame);
    body();
    drop(guard);
    TaskNode::finished(&node, &parent.team);
}

/// A deferred child: its frame (whose node points at its parent's) and its dependences.
struct Child {
    frame: Frame,
    dep: Option<Arc<DepNode>>,
}

fn make_child(parent: Frame, options: &TaskOptions) -> Child {
    let Frame {
        team,
        member,
        task,
        group,
        in_final: _,
        workshares,
        singles,
    } = parent;
    task.children.fetch_add(1, Ordering::Relaxed);
    if let Some(g) = &group {
        g.count.fetch_add(1, Ordering::Relaxed);
    }
    Child {
        frame: Frame {
            team,
            member,
            task: Arc::new(TaskNode::child_of(task)),
            group,
            in_final: options.final_task,
            workshares,
            singles,
        },
        dep: None,
    }
}

/// Runs a deferred task on whichever member took it, then gives back its counts.
fn run_task(mut child: Child, body: impl FnOnce() + Send + 'static) {
    let worker = current_worker();
    let team = child.frame.team;
    // Where the task must go instead of running here, if anywhere: behind this worker's
    // own share of the region if that is still queued (first in, first out, in its own
    // queue), so the share never runs nested in the task; to the member that made it if a
    // worker outside the team took it.
    let elsewhere = match team.member_of(worker) {
        Some(m) if !team.has_started(m) => Some(worker),
        Some(m) => {
            child.frame.member = m;
            None
        }
        None => Some(team.worker_of(child.frame.member)),
    };
    if let Some(to) = elsewhere {
        let job = HeapJob::new(move || run_task(child, body));
        if let Some(r) = team.registry() {
            // SAFETY: the job owns everything it touches.
            r.inject_to(to, unsafe { job.into_job_ref() });
        }
        return;
    }
    let node = Arc::clone(&child.frame.task);
    node.owner.store(worker, Ordering::Relaxed);
    let abort = AbortOnUnwind;
    let group = child.frame.group.clone();
    let guard = enter(child.frame);
    body();
    drop(guard);
    let registry = team.registry();
    if let Some(dep) = &child.dep {
        finish_deps(&team, dep);
    }
    if let Some(g) = &group {
        g.task_done(registry);
    }
    if let Some(parent) = node.tree.parent() {
        parent.child_done(registry);
    }
    // Last: this may release the team's barrier and end the region.
    TaskNode::finished(&node, &team);
    abort.disarm();
}

/// Queues a task's job on the current worker (by priority if it has one).
fn queue(team: &super::team::Team, priority: i64, job: impl FnOnce() + Send + 'static) {
    let job = HeapJob::new(job);
    // SAFETY: the job owns everything it touches.
    let job = unsafe { job.into_job_ref() };
    // SAFETY: a non-null TLS pointer is this thread's live worker state.
    match unsafe { WorkerThread::current().as_ref() } {
        Some(wt) if priority > 0 => wt.push_prioritized(priority, job),
        Some(wt) => wt.push(job),
        None => {
            if let Some(r) = team.registry() {
                r.inject(job)
            }
        }
    }
}

/// Registers a sibling's dependences in its parent's table; returns its node, with one
/// predecessor more than it has (the caller's registration).
fn register_deps(parent: &Frame, depend: &[(usize, DepKind)]) -> Arc<DepNode> {
    let node = Arc::new(DepNode {
        preds: AtomicUsize::new(1),
        state: Mutex::new(DepState::default()),
    });
    parent.task.has_deps.store(true, Ordering::Relaxed);
    let mut table = parent.task.deps.lock().unwrap_or_else(|e| e.into_inner());
    let after = |pred: &Arc<DepNode>| {
        if Arc::ptr_eq(pred, &node) {
            return;
        }
        let mut st = pred.state.lock().unwrap_or_else(|e| e.into_inner());
        if !st.done {
            node.preds.fetch_add(1, Ordering::AcqRel);
            st.successors.push(Arc::clone(&node));
        }
    };
    for &(addr, kind) in depend {
        let entry = table.entry(addr).or_default();
        if let Some(w) = &entry.writer {
            after(w);
        }
        match kind {
            DepKind::In => entry.readers.push(Arc::clone(&node)),
            DepKind::Out => {
                for r in &entry.readers {
                    after(r);
                }
                entry.readers.clear();
                entry.writer = Some(Arc::clone(&node));
            }
        }
    }
    node
}

/// Counts down one predecessor of `node`; the last one queues its task.
fn release(team: &super::team::Team, node: &Arc<DepNode>) {
    if node.preds.fetch_sub(1, Ordering::AcqRel) != 1 {
        return;
    }
    let (job, priority) = {
        let mut st = node.state.lock().unwrap_or_else(|e| e.into_inner());
        (st.job.take(), st.priority)
    };
    if let Some(job) = job {
        queue(team, priority, job);
    }
}

/// A task with dependences finished: mark it done and release its successors.
fn finish_deps(team: &super::team::Team, node: &Arc<DepNode>) {
    let successors = {
        let mut st = node.state.lock().unwrap_or_else(|e| e.into_inner());
        st.done = true;
        std::mem::take(&mut st.successors)
    };
    for s in &successors {
        release(team, s);
    }
}

/// Waits until every child of the current task finished (OpenMP's `taskwait`), running
/// other jobs meanwhile; grandchildren are not waited for.
///
/// ```
/// use std::sync::atomic::{AtomicUsize, Ordering};
/// use std::sync::Arc;
/// use magpie::team;
/// let pool = magpie::ThreadPoolBuilder::new().num_workers(2).build().unwrap();
/// pool.install(|| team::parallel(2, &|_| {
///     let n = Arc::new(AtomicUsize::new(0));
///     for _ in 0..4 {
///         let n = Arc::clone(&n);
///         team::spawn_task(team::TaskOptions::default(), move || { n.fetch_add(1, Ordering::Relaxed); });
///     }
///     team::taskwait();
///     assert_eq!(n.load(Ordering::Relaxed), 4);
/// }));
/// ```
pub fn taskwait() {
    let task = with_frame(|f| f.map(|f| Arc::clone(&f.task)));
    if let Some(task) = task {
        wait_for_zero(&task.children, &task.latch);
        // Every sibling finished: their dependences are history.
        if task.has_deps.load(Ordering::Relaxed) {
            task.deps.lock().unwrap_or_else(|e| e.into_inner()).clear();
        }
    }
}

/// Starts a taskgroup in the current task: [`taskgroup_end`] waits for every task made
/// inside it and their descendants.
///
/// ```
/// use std::sync::atomic::{AtomicUsize, Ordering};
/// use std::sync::Arc;
/// use magpie::team;
/// let pool = magpie::ThreadPoolBuilder::new().num_workers(2).build().unwrap();
/// pool.install(|| team::parallel(2, &|_| {
///     let n = Arc::new(AtomicUsize::new(0));
///     team::taskgroup_start();
///     let m = Arc::clone(&n);
///     team::spawn_task(team::TaskOptions::default(), move || {
///         let k = Arc::clone(&m);
///         // A grandchild: the group waits for it too.
///         team::spawn_task(team::TaskOptions::default(), move || { k.fetch_add(1, Ordering::Relaxed); });
///     });
///     team::taskgroup_end();
///     assert_eq!(n.load(Ordering::Relaxed), 1);
/// }));
/// ```
pub fn taskgroup_start() {
    let worker = current_worker();
    with_frame(|f| {
        if let Some(f) = f {
            let parent = f.group.take();
            f.group = Some(Arc::new(Group {
                count: AtomicUsize::new(0),
                latch: CoreLatch::new(),
                owner: worker,
                parent,
            }));
        }
    });
}

/// Ends the current taskgroup (see [`taskgroup_start`]): waits, running other jobs, until
/// every task made inside it finished, descendants included.
pub fn taskgroup_end() {
    let group = with_frame(|f| f.and_then(|f| f.group.clone()));
    if let Some(g) = group {
        wait_for_zero(&g.count, &g.latch);
        with_frame(|f| {
            if let Some(f) = f {
                f.group = g.parent.clone();
            }
        });
    }
}

/// Whether the current task is final (its tasks run at once, inside it).
///
/// ```
/// assert!(!magpie::team::in_final());
/// ```
pub fn in_final() -> bool {
    with_frame(|f| f.is_some_and(|f| f.in_final))
}

/// Lets the current thread run another task (OpenMP's `taskyield`): one queued job, if any.
///
/// ```
/// magpie::team::taskyield();
/// ```
pub fn taskyield() {
    // SAFETY: a non-null TLS pointer is this thread's live worker state.
    if let Some(wt) = unsafe { WorkerThread::current().as_ref() } {
        if with_frame(|f| f.is_some_and(|f| f.team.size() > 1)) {
            let _ = wt.yield_local();
        }
    }
}
