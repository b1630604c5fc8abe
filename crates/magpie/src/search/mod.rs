//! Exact combinatorial search (YewPar-style) on a magpie pool.
//!
//! What a user writes: a [`SearchSpace`] — immutable problem data, a node type, and a *lazy*
//! generator of a node's children in heuristic order (an iterator: children are made on
//! demand, so pruning and early stops skip the work of making the rest). Optimisation and
//! decision searches add an [`Objective`] (maximised; minimise by negating) and, for
//! pruning, an admissible [`Objective::bound`].
//!
//! Search kinds: [`enumerate`] folds an [`Enumerate`] monoid over every node; [`decide`]
//! stops every worker once a node reaches a target objective; [`optimise`] is branch and
//! bound with one shared incumbent. Skeletons ([`Skeleton`]) say how the tree is split into
//! tasks; every skeleton gives the answer [`Skeleton::Sequential`] gives (for optimisation:
//! the same optimum value; which optimal node is reported may differ).
//!
//! ```
//! use magpie::search::{self, NodeCount, SearchSpace, Skeleton, Options};
//!
//! /// N-Queens: a node is the column of the queen in each filled row.
//! struct Queens(usize);
//! impl SearchSpace for Queens {
//!     type Node = Vec<usize>;
//!     type Children<'a> = Box<dyn Iterator<Item = Vec<usize>> + 'a>;
//!     fn root(&self) -> Vec<usize> { Vec::new() }
//!     fn children<'a>(&'a self, node: &Vec<usize>) -> Self::Children<'a> {
//!         let node = node.clone();
//!         let row = node.len();
//!         let columns = if row < self.0 { 0..self.0 } else { 0..0 }; // a full board is a leaf
//!         Box::new(columns.filter_map(move |c| {
//!             let safe = node.iter().enumerate().all(|(i, &q)| q != c && q.abs_diff(c) != row - i);
//!             safe.then(|| { let mut next = node.clone(); next.push(c); next })
//!         }))
//!     }
//! }
//!
//! let pool = magpie::ThreadPoolBuilder::new().num_workers(2).build().unwrap();
//! let per_depth = pool.install(|| {
//!     search::enumerate(&Queens(6), &search::CountPerDepth, Skeleton::DepthBounded { spawn_depth: 2 }, &Options::default()).value
//! });
//! assert_eq!(per_depth[6], 4); // 4 solutions of 6-Queens
//! let nodes = search::enumerate(&Queens(6), &NodeCount, Skeleton::Sequential, &Options::default()).value;
//! assert_eq!(nodes, per_depth.iter().sum::<u64>());
//! ```

mod complete_tree;
mod engine;
mod monitor;

use std::fmt;
use std::ops::ControlFlow;
use std::str::FromStr;
use std::time::Duration;

pub use complete_tree::{CompleteTree, CompleteTreeChildren};
pub use engine::{decide, enumerate, optimise};
pub use monitor::{Improvement, Monitor};

/// A search tree given lazily: the root and a generator of each node's children.
pub trait SearchSpace: Sync {
    /// A search-tree node. Cloned when a subtree becomes a task.
    type Node: Send;
    /// The lazy child generator. It may borrow the space but not the parent node (copy what
    /// it needs from the parent), so that skeletons can keep generators on a stack.
    type Children<'a>: Iterator<Item = Self::Node> + 'a
    where
        Self: 'a;

    /// The root.
    fn root(&self) -> Self::Node;

    /// The children of `node`, in heuristic order (best first).
    fn children<'a>(&'a self, node: &Self::Node) -> Self::Children<'a>;

    /// Calls `visit` with each child of `node`, in the order of [`children`](Self::children),
    /// until it returns [`ControlFlow::Break`] (then returns `Break`).
    ///
    /// The skeletons walk their sequential parts (Sequential, DepthBounded below its spawn
    /// depth, Ordered's tasks) with this internal iteration, and split work off with
    /// [`children`](Self::children). The default iterates `children`; override it when a
    /// child can be built in a local and lent (`&child`) more cheaply than an iterator can
    /// own and yield it — as a hand-written recursion would — and it must yield exactly the
    /// same children in the same order.
    ///
    /// ```
    /// use std::ops::ControlFlow;
    /// use magpie::search::SearchSpace;
    ///
    /// /// The binary strings of length 3, each node lent to the visitor from a local.
    /// struct Bits;
    /// impl SearchSpace for Bits {
    ///     type Node = (u8, u32); // (length, bits)
    ///     type Children<'a> = std::vec::IntoIter<(u8, u32)>;
    ///     fn root(&self) -> (u8, u32) { (0, 0) }
    ///     fn children<'a>(&'a self, &(len, bits): &(u8, u32)) -> Self::Children<'a> {
    ///         if len == 3 { vec![] } else { vec![(len + 1, bits << 1), (len + 1, bits << 1 | 1)] }.into_iter()
    ///     }
    ///     fn for_each_child<F>(&self, &(len, bits): &(u8, u32), mut visit: F) -> ControlFlow<()>
    ///     where
    ///         F: FnMut(&(u8, u32)) -> ControlFlow<()>,
    ///     {
    ///         if len < 3 {
    ///             for b in 0..2 {
    ///                 let child = (len + 1, bits << 1 | b);
    ///                 visit(&child)?;
    ///             }
    ///         }
    ///         ControlFlow::Continue(())
    ///     }
    /// }
    ///
    /// let mut seen = Vec::new();
    /// let _ = Bits.for_each_child(&(1, 1), |c| { seen.push(*c); ControlFlow::Continue(()) });
    /// assert_eq!(seen, Bits.children(&(1, 1)).collect::<Vec<_>>());
    /// let nodes = magpie::search::enumerate(&Bits, &magpie::search::NodeCount,
    ///     magpie::search::Skeleton::Sequential, &Default::default()).value;
    /// assert_eq!(nodes, 15);
    /// ```
    #[inline]
    fn for_each_child<F>(&self, node: &Self::Node, mut visit: F) -> ControlFlow<()>
    where
        F: FnMut(&Self::Node) -> ControlFlow<()>,
    {
        for child in self.children(node) {
            visit(&child)?;
        }
        ControlFlow::Continue(())
    }

    /// Whether `node` surely has no children, told cheaply (a field, a mask), as a
    /// hand-written recursion tests before it calls itself. The walks skip the descent into
    /// such a node (it still counts as expanded, and its subtree as finished). The default,
    /// `false`, means "not known": the node's children are asked for. It must never be
    /// `true` for a node that has children; leave the default where the test costs about
    /// as much as making the children.
    ///
    /// ```
    /// use magpie::search::SearchSpace;
    ///
    /// /// The binary strings of length at most 3.
    /// struct Bits;
    /// impl SearchSpace for Bits {
    ///     type Node = (u8, u32); // (length, bits)
    ///     type Children<'a> = std::vec::IntoIter<(u8, u32)>;
    ///     fn root(&self) -> (u8, u32) { (0, 0) }
    ///     fn children<'a>(&'a self, &(len, bits): &(u8, u32)) -> Self::Children<'a> {
    ///         if len == 3 { vec![] } else { vec![(len + 1, bits << 1), (len + 1, bits << 1 | 1)] }.into_iter()
    ///     }
    ///     fn is_leaf(&self, &(len, _): &(u8, u32)) -> bool {
    ///         len == 3
    ///     }
    /// }
    ///
    /// assert!(Bits.is_leaf(&(3, 5)) && Bits.children(&(3, 5)).next().is_none());
    /// let out = magpie::search::enumerate(&Bits, &magpie::search::NodeCount,
    ///     magpie::search::Skeleton::Sequential, &Default::default());
    /// assert_eq!((out.value, out.stats.backtracks), (15, 15));
    /// ```
    #[inline]
    fn is_leaf(&self, _node: &Self::Node) -> bool {
        false
    }
}

/// The objective of an optimisation or decision search: maximised.
pub trait Objective: SearchSpace {
    /// The objective value of `node` (as a solution).
    fn objective(&self, node: &Self::Node) -> i64;

    /// An admissible upper bound on the objective of every node in `node`'s subtree
    /// (`node` included). Optimisation prunes a subtree whose bound cannot beat the
    /// incumbent. Default: no pruning.
    fn bound(&self, _node: &Self::Node) -> i64 {
        i64::MAX
    }
}

/// A monoid folded over every node of an enumeration.
pub trait Enumerate<S: SearchSpace + ?Sized>: Sync {
    /// The accumulated value.
    type Acc: Send;
    /// The identity element.
    fn empty(&self) -> Self::Acc;
    /// Adds one node (at `depth`, the root being 0) to `acc`.
    fn visit(&self, acc: &mut Self::Acc, node: &S::Node, depth: usize);
    /// Combines two accumulators (associative).
    fn merge(&self, a: Self::Acc, b: Self::Acc) -> Self::Acc;
}

/// Counts the nodes.
#[derive(Debug, Clone, Copy, Default)]
pub struct NodeCount;

impl<S: SearchSpace + ?Sized> Enumerate<S> for NodeCount {
    type Acc = u64;
    fn empty(&self) -> u64 {
        0
    }
    fn visit(&self, acc: &mut u64, _node: &S::Node, _depth: usize) {
        *acc += 1;
    }
    fn merge(&self, a: u64, b: u64) -> u64 {
        a + b
    }
}

/// Counts the nodes at each depth (index = depth).
#[derive(Debug, Clone, Copy, Default)]
pub struct CountPerDepth;

impl<S: SearchSpace + ?Sized> Enumerate<S> for CountPerDepth {
    type Acc = Vec<u64>;
    fn empty(&self) -> Vec<u64> {
        Vec::new()
    }
    fn visit(&self, acc: &mut Vec<u64>, _node: &S::Node, depth: usize) {
        if acc.len() <= depth {
            acc.resize(depth + 1, 0);
        }
        acc[depth] += 1;
    }
    fn merge(&self, mut a: Vec<u64>, b: Vec<u64>) -> Vec<u64> {
        if a.len() < b.len() {
            a.resize(b.len(), 0);
        }
        for (x, y) in a.iter_mut().zip(b) {
            *x += y;
        }
        a
    }
}

/// How the search tree is split into tasks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Skeleton {
    /// Depth-first on the calling worker, no tasks.
    Sequential,
    /// Every node above depth `spawn_depth` makes each of its children a task; below it the
    /// search is sequential.
    DepthBounded {
        /// Children of nodes at depth `< spawn_depth` become tasks.
        spawn_depth: usize,
    },
    /// Depth-first; after `backtracks` backtracks, the unexplored siblings of the shallowest
    /// level that still has some become tasks (and the count restarts), taken most
    /// promising first by whoever runs them. On a 1-worker pool it never splits.
    Budget {
        /// Backtracks between two spawns (≥ 1).
        backtracks: u64,
    },
    /// One search worker per pool worker, each depth-first over its own part of the tree. An
    /// idle worker asks a busy one (chosen at random) for work; the busy one answers within
    /// a few nodes with the most promising sibling it has not started at its shallowest
    /// level — or all of that level's remaining siblings with `steal_all`.
    StackStealing {
        /// Hand over every unexplored sibling of the shallowest level, not just one.
        steal_all: bool,
    },
    /// YewPar's priority-ordered skeleton (Archibald, Maier, McCreesh, Stewart, Trinder,
    /// "Replicable parallel branch and bound search", JPDC 2018). The nodes at depth
    /// `spawn_depth` are tasks, numbered by priority in `order`; a priority pool starts them
    /// strictly in that order, each exactly once: an idle worker always takes the
    /// highest-priority task not started, and a task starts only after every
    /// higher-priority one has. A task is searched depth-first to its end by the worker that
    /// took it, so the lowest-numbered unfinished task is always running (YewPar's
    /// "sequential" worker). A task whose bound cannot beat the incumbent when it starts is
    /// skipped.
    ///
    /// The frontier is generated lazily, in priority order, as tasks start (the nodes above
    /// `spawn_depth` are visited by whichever worker needs the next task): in
    /// [`TaskOrder::Sequential`] the pool holds only the unexpanded siblings along one path,
    /// whatever the spawn depth.
    ///
    /// What is replicable, on every run and every worker count:
    /// - the order in which tasks start (the priority order);
    /// - enumerations: the value and the counters `expanded`, `pruned`, `backtracks`,
    ///   `tasks` (those of [`Skeleton::Sequential`] for the first three);
    /// - decisions and optimisations: the answer (found or not; the optimum value), and on
    ///   one worker every counter. On more workers an optimisation's node counts depend on
    ///   when each worker sees a new incumbent (on brock200_1, two series of 10 runs on 2
    ///   workers: within 1% of the nodes, against 2.2–2.3% for [`Skeleton::DepthBounded`]),
    ///   unless [`Options::replicable_window`] is set: then they are fixed too, on every run
    ///   and worker count, and so is the reported node.
    ///
    /// ```
    /// use magpie::search::{self, NodeCount, Options, SearchSpace, Skeleton, TaskOrder};
    ///
    /// /// The complete binary tree of depth 10 (2,047 nodes).
    /// struct Binary;
    /// impl SearchSpace for Binary {
    ///     type Node = u32; // the depth
    ///     type Children<'a> = std::iter::RepeatN<u32>;
    ///     fn root(&self) -> u32 { 0 }
    ///     fn children<'a>(&'a self, &d: &u32) -> Self::Children<'a> {
    ///         std::iter::repeat_n(d + 1, if d < 10 { 2 } else { 0 })
    ///     }
    /// }
    ///
    /// let skeleton = Skeleton::Ordered { spawn_depth: 4, order: TaskOrder::Discrepancy };
    /// let pool = magpie::ThreadPoolBuilder::new().num_workers(2).build().unwrap();
    /// let out = pool.install(|| search::enumerate(&Binary, &NodeCount, skeleton, &Options::default()));
    /// assert_eq!((out.value, out.stats.tasks), (2_047, 16));
    /// ```
    Ordered {
        /// Depth of the task nodes.
        spawn_depth: usize,
        /// The order in which tasks start.
        order: TaskOrder,
    },
}

/// A skeleton as a spec string: `seq` (or `sequential`), `dbs:D` (or `depth-bounded:D`),
/// `budget:B` (B ≥ 1), `ss` (or `stack-stealing`), `ss-all` (stack-stealing handing over
/// every sibling), `ordered:D` and `ordered-disc:D` ([`TaskOrder::Discrepancy`]). The
/// [`Display`](fmt::Display) form is the short one, which parses back to the same skeleton.
///
/// ```
/// use magpie::search::{Skeleton, TaskOrder};
///
/// assert_eq!("dbs:2".parse(), Ok(Skeleton::DepthBounded { spawn_depth: 2 }));
/// assert_eq!("depth-bounded:2".parse(), Ok(Skeleton::DepthBounded { spawn_depth: 2 }));
/// assert_eq!("budget:1000".parse(), Ok(Skeleton::Budget { backtracks: 1000 }));
/// assert_eq!("ss".parse(), Ok(Skeleton::StackStealing { steal_all: false }));
/// assert_eq!("ss-all".parse(), Ok(Skeleton::StackStealing { steal_all: true }));
/// let ordered = Skeleton::Ordered { spawn_depth: 3, order: TaskOrder::Discrepancy };
/// assert_eq!("ordered-disc:3".parse(), Ok(ordered));
/// assert_eq!(ordered.to_string(), "ordered-disc:3");
/// assert_eq!(Skeleton::Sequential.to_string(), "seq");
/// for spec in ["seq", "dbs:2", "budget:10000", "ss", "ss-all", "ordered:3", "ordered-disc:1"] {
///     assert_eq!(spec.parse::<Skeleton>().unwrap().to_string(), spec);
/// }
///
/// // A parameter is required where the skeleton has one, and refused where it has none.
/// assert!("dbs".parse::<Skeleton>().is_err());
/// assert!("budget:0".parse::<Skeleton>().is_err());
/// assert!("ss:1".parse::<Skeleton>().is_err());
/// let e = "nope".parse::<Skeleton>().unwrap_err();
/// assert!(e.to_string().starts_with("unknown skeleton `nope`"));
/// ```
impl FromStr for Skeleton {
    type Err = ParseSkeletonError;

    fn from_str(s: &str) -> Result<Skeleton, ParseSkeletonError> {
        let err = |m: String| Err(ParseSkeletonError(m));
        let (name, arg) = match s.split_once(':') {
            Some((n, a)) => (n, Some(a)),
            None => (s, None),
        };
        let num = |what: &str| -> Result<u64, ParseSkeletonError> {
            arg.ok_or_else(|| {
                ParseSkeletonError(format!("skeleton `{s}`: `{name}` needs `:{what}`"))
            })?
            .parse::<u64>()
            .map_err(|e| ParseSkeletonError(format!("skeleton `{s}`: {e}")))
        };
        let depth = || -> Result<usize, ParseSkeletonError> {
            let d = num("DEPTH")?;
            usize::try_from(d).map_err(|e| ParseSkeletonError(format!("skeleton `{s}`: {e}")))
        };
        let no_arg = |k: Skeleton| match arg {
            None => Ok(k),
            Some(_) => err(format!("skeleton `{s}`: `{name}` takes no argument")),
        };
        match name {
            "seq" | "sequential" => no_arg(Skeleton::Sequential),
            "dbs" | "depth-bounded" => Ok(Skeleton::DepthBounded {
                spawn_depth: depth()?,
            }),
            "budget" => match num("BACKTRACKS")? {
                0 => err(format!("skeleton `{s}`: the budget must be at least 1")),
                backtracks => Ok(Skeleton::Budget { backtracks }),
            },
            "ss" | "stack-stealing" => no_arg(Skeleton::StackStealing { steal_all: false }),
            "ss-all" => no_arg(Skeleton::StackStealing { steal_all: true }),
            "ordered" => Ok(Skeleton::Ordered {
                spawn_depth: depth()?,
                order: TaskOrder::Sequential,
            }),
            "ordered-disc" => Ok(Skeleton::Ordered {
                spawn_depth: depth()?,
                order: TaskOrder::Discrepancy,
            }),
            _ => err(format!(
                "unknown skeleton `{s}` (known: seq, dbs:D, budget:B, ss, ss-all, ordered:D, \
                 ordered-disc:D)"
            )),
        }
    }
}

impl fmt::Display for Skeleton {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let s = match *self {
            Skeleton::Sequential => "seq".to_string(),
            Skeleton::DepthBounded { spawn_depth } => format!("dbs:{spawn_depth}"),
            Skeleton::Budget { backtracks } => format!("budget:{backtracks}"),
            Skeleton::StackStealing { steal_all: false } => "ss".to_string(),
            Skeleton::StackStealing { steal_all: true } => "ss-all".to_string(),
            Skeleton::Ordered {
                spawn_depth,
                order: TaskOrder::Sequential,
            } => format!("ordered:{spawn_depth}"),
            Skeleton::Ordered {
                spawn_depth,
                order: TaskOrder::Discrepancy,
            } => format!("ordered-disc:{spawn_depth}"),
        };
        f.pad(&s)
    }
}

/// Why a spec string is not a [`Skeleton`]: its `Display` says what was wrong and, for an
/// unknown name, lists the known ones.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct ParseSkeletonError(String);

/// The order of [`Skeleton::Ordered`]'s tasks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TaskOrder {
    /// Depth-first order (what a sequential search would reach first starts first).
    Sequential,
    /// Fewest discrepancies first (a discrepancy is taking a child other than the first,
    /// i.e. going against the heuristic; the position counts the children pruned before
    /// it), ties in depth-first order: limited discrepancy search's order, which starts
    /// early the tasks a good heuristic says are likely to hold a solution.
    Discrepancy,
}

/// Settings shared by the search kinds.
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// Do not expand nodes deeper than this (the root is depth 0).
    pub max_depth: Option<usize>,
    /// Optimisation: once a child fails the bound, skip its later siblings (children come in
    /// heuristic order, so they are no better), as YewPar's "prune level" does.
    pub prune_level: bool,
    /// Optimisation: start with this incumbent value (only strictly better nodes are kept).
    pub initial_bound: Option<i64>,
    /// Optimisation with [`Skeleton::Ordered`]: make the search replicable (Archibald et al.'s
    /// "replicable parallel branch and bound"). With `Some(window)`, the task numbered `k` in
    /// priority order prunes with the best value found by the frontier visits before it, by
    /// the tasks numbered at most `k - window`, and by task 0 in its first 1,024 expanded
    /// nodes (the heuristic's first dive), waiting for those if they are not done; it raises
    /// that value only with its own finds. No pruning decision then depends on timing: the
    /// optimum, the reported node and the counters `expanded`, `pruned`, `backtracks` and
    /// `tasks` are the same on every run and every worker count (for the same `window`).
    ///
    /// `window` bounds how many tasks run at once (give a few times the number of workers);
    /// `1` makes every task wait for the one before it (sequential). A larger window waits
    /// less and prunes with an older incumbent. `None` (the default): every task prunes
    /// with the shared incumbent as soon as any worker improves it, which usually explores
    /// fewer nodes but not the same number on every run. Enumerations with Ordered are
    /// replicable without it; decisions and the other skeletons ignore it.
    ///
    /// ```
    /// use std::num::NonZeroUsize;
    /// use magpie::search::{self, Objective, Options, SearchSpace, Skeleton, TaskOrder};
    ///
    /// /// Bit strings of length 14; a string's value is a hash of it, its bound the best
    /// /// value any string with its prefix can have.
    /// struct Strings;
    /// fn value(bits: u32) -> i64 { (bits.wrapping_mul(2_654_435_761) >> 12) as i64 }
    /// impl SearchSpace for Strings {
    ///     type Node = (u32, u32); // (length, bits)
    ///     type Children<'a> = std::vec::IntoIter<(u32, u32)>;
    ///     fn root(&self) -> (u32, u32) { (0, 0) }
    ///     fn children<'a>(&'a self, &(len, bits): &(u32, u32)) -> Self::Children<'a> {
    ///         if len == 14 { vec![] } else { vec![(len + 1, bits << 1), (len + 1, bits << 1 | 1)] }.into_iter()
    ///     }
    /// }
    /// impl Objective for Strings {
    ///     fn objective(&self, &(len, bits): &(u32, u32)) -> i64 {
    ///         if len == 14 { value(bits) } else { i64::MIN }
    ///     }
    ///     fn bound(&self, &(len, bits): &(u32, u32)) -> i64 {
    ///         let free = 14 - len;
    ///         (0..1u32 << free).map(|rest| value(bits << free | rest)).max().unwrap()
    ///     }
    /// }
    ///
    /// let skeleton = Skeleton::Ordered { spawn_depth: 4, order: TaskOrder::Sequential };
    /// let opts = Options { replicable_window: NonZeroUsize::new(4), ..Options::default() };
    /// let counts = |workers| {
    ///     let pool = magpie::ThreadPoolBuilder::new().num_workers(workers).build().unwrap();
    ///     let out = pool.install(|| search::optimise(&Strings, skeleton, &opts));
    ///     let (best, node) = out.value.unwrap();
    ///     (best, node, out.stats.expanded, out.stats.pruned, out.stats.tasks)
    /// };
    /// let one = counts(1);
    /// assert_eq!(one.0, (0..1u32 << 14).map(value).max().unwrap());
    /// assert_eq!(counts(2), one);
    /// assert_eq!(counts(3), one);
    /// ```
    pub replicable_window: Option<std::num::NonZeroUsize>,
    /// A [`Monitor`] to watch the search (its live node count, each incumbent improvement)
    /// and to stop it from another thread (a time limit, Ctrl-C): a stopped search returns
    /// what it has with [`SearchStats::stopped`] set. `None` (the default): nothing is
    /// published, and the walks test this `Option` once per tick.
    pub monitor: Option<Monitor>,
}

/// What a search kind decided at a node, and how the node counts in [`SearchStats`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Visit {
    /// Expand its children (counts as expanded).
    Expand,
    /// Do not expand it.
    Skip {
        /// Its bound cannot beat the incumbent (or reach the target): it counts as pruned
        /// and, under prune-level, cuts its later siblings. Otherwise the node was a found
        /// target or the search had stopped: visited, so it counts as expanded.
        by_bound: bool,
    },
}

/// Counters of one search.
///
/// With the `serde` feature it is `Serialize` and `Deserialize` (a distributed search sends
/// each worker's counters to rank 0).
///
/// ```
/// use magpie::search::{SearchStats, Visit};
///
/// let mut s = SearchStats::default();
/// for v in [Visit::Expand, Visit::Skip { by_bound: true }, Visit::Skip { by_bound: false }] {
///     s.count(v);
/// }
/// assert_eq!((s.expanded, s.pruned), (2, 1));
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct SearchStats {
    /// Nodes visited and not pruned (the root included): the search tree actually explored.
    pub expanded: u64,
    /// Nodes generated, then cut by the bound (with their subtrees) without being explored.
    pub pruned: u64,
    /// Tasks spawned by the skeleton.
    pub tasks: u64,
    /// Backtracks: child generators run to their end (one per expanded node whose subtree
    /// was finished, leaves included; a search stopped early counts fewer).
    pub backtracks: u64,
    /// Work moved between workers: the pool's successful steals during the search (with
    /// the default `counters` feature; other work on the same pool at the same time counts
    /// too) plus, for StackStealing, the requests answered with work.
    pub steals: u64,
    /// Nodes visited by each worker of the pool (index = worker).
    pub per_worker: Vec<u64>,
    /// Wall-clock time of the search.
    pub time: Duration,
    /// The search was stopped by its [`Monitor`] before it had finished: the counters (and
    /// an enumeration's fold) cover part of the tree, an optimisation's answer is the best
    /// found so far (not proven optimal), a decision without a node has not ruled one out.
    #[cfg_attr(feature = "serde", serde(default))]
    pub stopped: bool,
}

impl SearchStats {
    /// Counts one visited node as [`Visit`] says: expanded, or pruned by its bound. Returns
    /// whether the node is to be expanded.
    pub fn count(&mut self, visit: Visit) -> bool {
        match visit {
            Visit::Expand => {
                self.expanded += 1;
                true
            }
            Visit::Skip { by_bound: true } => {
                self.pruned += 1;
                false
            }
            Visit::Skip { by_bound: false } => {
                self.expanded += 1;
                false
            }
        }
    }
}

/// The result of a search: its value and statistics.
#[derive(Debug, Clone)]
pub struct Outcome<T> {
    /// The answer: the fold (enumeration), the found node (decision), the best value and
    /// node (optimisation).
    pub value: T,
    /// What the search did.
    pub stats: SearchStats,
}
