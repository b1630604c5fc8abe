//! 0/1 knapsack (optimisation): readers, the fractional (Dantzig) upper bound, a search-tree
//! node with a lazy child generator, a sequential branch and bound and a dynamic-programming
//! oracle.
//!
//! Two file formats are read (see `shared/instances/README.md`, section 3):
//!
//! * **plain** (`low-dimensional/`, `large_scale/`): a line `n capacity`, then `n` lines
//!   `profit weight`, then optionally one line with an optimal 0/1 selection of `n` entries.
//!   Numbers may have a decimal fraction (`f5_l-d_kp_15_375`): every number of the file is then
//!   scaled by `10^d`, `d` the most fractional digits found, so all arithmetic stays exact
//!   integer arithmetic ([`Instance::decimals`] gives `d`).
//! * **Pisinger CSV** (`pisinger/*.csv`): many instances, each a name line, `n N`, `c C`,
//!   `z Z`, `time T`, `N` lines `index,profit,weight,x` and a closing `-----` line.
//!
//! [`read`] picks the format by the file name (`.csv` means Pisinger).
//!
//! Items are kept in file order (indices `0..n`) and, for the search, in *heuristic order*:
//! non-increasing profit/weight, ties by file index ([`Instance::order`] maps back).
//!
//! ```
//! use magpie_apps::knapsack::{solve, Instance};
//! // (profit, weight) in file order; capacity 10.
//! let inst = Instance::new(10, &[(10, 5), (40, 4), (30, 6), (50, 3)]).unwrap();
//! assert_eq!(inst.upper_bound(), 105); // 50 + 40 + (3/6)·30
//! let sol = solve(&inst);
//! assert_eq!(sol.profit, 90);
//! assert_eq!(sol.items, vec![1, 3]);
//! ```

use crate::input::InputError;
use std::path::Path;

mod app;
pub use app::APP;

/// A 0/1 knapsack instance. Profits, weights and the capacity are non-negative integers
/// (fixed-point with [`Instance::decimals`] fractional digits); every weight is positive.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Instance {
    name: String,
    capacity: u64,
    profits: Vec<u64>,
    weights: Vec<u64>,
    decimals: u32,
    stated_optimum: Option<u64>,
    stated_selection: Option<Vec<bool>>,
    /// Heuristic position -> file index.
    order: Vec<usize>,
    /// `(profit, weight)` in heuristic order: one lookup (and one bounds check) per item.
    sorted: Vec<(u64, u64)>,
    /// Prefix sums (length n + 1) of the sorted profits and weights.
    pp: Vec<u64>,
    pw: Vec<u64>,
}

impl Instance {
    /// An instance from `(profit, weight)` pairs in file order.
    ///
    /// Errors if a weight is zero or the total profit or weight overflows `u64`.
    ///
    /// ```
    /// use magpie_apps::knapsack::Instance;
    /// let inst = Instance::new(7, &[(3, 4), (5, 2)]).unwrap();
    /// assert_eq!(inst.order(), &[1, 0]); // ratio 5/2 before 3/4
    /// assert!(Instance::new(7, &[(3, 0)]).is_err());
    /// ```
    pub fn new(capacity: u64, items: &[(u64, u64)]) -> Result<Instance, String> {
        if let Some(i) = items.iter().position(|&(_, w)| w == 0) {
            return Err(format!(
                "item {} has weight 0 (weights must be positive)",
                i + 1
            ));
        }
        let mut order: Vec<usize> = (0..items.len()).collect();
        // p_a / w_a > p_b / w_b  <=>  p_a * w_b > p_b * w_a (exact in u128).
        order.sort_by(|&a, &b| {
            let (pa, wa) = items[a];
            let (pb, wb) = items[b];
            let l = pa as u128 * wb as u128;
            let r = pb as u128 * wa as u128;
            r.cmp(&l).then(a.cmp(&b))
        });
        let sorted: Vec<(u64, u64)> = order.iter().map(|&i| items[i]).collect();
        let prefix = |v: &mut dyn Iterator<Item = u64>, what: &str| -> Result<Vec<u64>, String> {
            let mut out = Vec::with_capacity(sorted.len() + 1);
            let mut acc = 0u64;
            out.push(0);
            for x in v {
                acc = acc
                    .checked_add(x)
                    .ok_or_else(|| format!("total {what} overflows 64 bits"))?;
                out.push(acc);
            }
            Ok(out)
        };
        let pp = prefix(&mut sorted.iter().map(|it| it.0), "profit")?;
        if pp.last().is_some_and(|&t| t > i64::MAX as u64) {
            // Search objectives are i64.
            return Err("total profit exceeds 2^63 - 1".to_string());
        }
        let pw = prefix(&mut sorted.iter().map(|it| it.1), "weight")?;
        Ok(Instance {
            name: String::new(),
            capacity,
            profits: items.iter().map(|it| it.0).collect(),
            weights: items.iter().map(|it| it.1).collect(),
            decimals: 0,
            stated_optimum: None,
            stated_selection: None,
            order,
            sorted,
            pp,
            pw,
        })
    }

    /// The instance's name (the Pisinger name line, or the file name; empty for [`Instance::new`]).
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Number of items.
    pub fn len(&self) -> usize {
        self.profits.len()
    }

    /// Whether there are no items.
    pub fn is_empty(&self) -> bool {
        self.profits.is_empty()
    }

    /// The capacity (scaled by `10^decimals`).
    pub fn capacity(&self) -> u64 {
        self.capacity
    }

    /// Profits in file order (scaled by `10^decimals`).
    pub fn profits(&self) -> &[u64] {
        &self.profits
    }

    /// Weights in file order (scaled by `10^decimals`).
    pub fn weights(&self) -> &[u64] {
        &self.weights
    }

    /// Number of fractional decimal digits every number of the file was scaled by (0 for
    /// integer files).
    ///
    /// ```
    /// use magpie_apps::knapsack::parse_plain;
    /// let inst = parse_plain("x", "2 3.5\n1.25 2\n1 1\n").unwrap();
    /// assert_eq!(inst.decimals(), 2);
    /// assert_eq!(inst.capacity(), 350);
    /// assert_eq!(inst.profits(), &[125, 100]);
    /// ```
    pub fn decimals(&self) -> u32 {
        self.decimals
    }

    /// The optimal profit stated in the file (Pisinger's `z`), if any.
    pub fn stated_optimum(&self) -> Option<u64> {
        self.stated_optimum
    }

    /// The optimal selection stated in the file (file order), if any.
    pub fn stated_selection(&self) -> Option<&[bool]> {
        self.stated_selection.as_deref()
    }

    /// Heuristic order: `order()[k]` is the file index of the item at heuristic position `k`
    /// (non-increasing profit/weight, ties by file index).
    pub fn order(&self) -> &[usize] {
        &self.order
    }

    /// The fractional (Dantzig) upper bound of the whole instance: the optimum of the LP
    /// relaxation, rounded down.
    ///
    /// ```
    /// use magpie_apps::knapsack::Instance;
    /// let inst = Instance::new(5, &[(6, 2), (10, 4)]).unwrap();
    /// assert_eq!(inst.upper_bound(), 13); // 6 + 3/4 * 10 = 13.5
    /// ```
    pub fn upper_bound(&self) -> u64 {
        self.dantzig(0, self.capacity)
    }

    /// Dantzig bound on the profit obtainable from heuristic positions `from..n` with
    /// capacity `cap`: greedy fill, then a fraction of the first item that does not fit.
    #[inline]
    fn dantzig(&self, from: usize, cap: u64) -> u64 {
        let base = self.pw[from];
        // `pw[j] - base <= cap` for the prefix entries pw[from..=n] that fit (at least 1:
        // pw[from]); saturating: past u64::MAX every entry fits.
        let limit = base.saturating_add(cap);
        let k = from + self.pw[from..].partition_point(|&x| x <= limit) - 1;
        let mut bound = self.pp[k] - self.pp[from];
        if let Some(&(p, w)) = self.sorted.get(k) {
            let left = cap - (self.pw[k] - base);
            // u64 arithmetic when the product fits (always on Pisinger's instances), u128
            // otherwise.
            bound += match left.checked_mul(p) {
                Some(x) => x / w,
                None => (left as u128 * p as u128 / w as u128) as u64,
            };
        }
        bound
    }

    /// A selection worth exactly `profit`, made on demand (the search nodes keep no
    /// selection): `None` when no selection is worth exactly `profit`.
    ///
    /// This is how the chosen items of an incumbent are recovered after a search: called
    /// with the optimum, it runs the depth-first branch and bound of [`solve`] with the
    /// incumbent set to `profit - 1` from the start (a node whose [`KnapNode::bound`] is
    /// below `profit` is pruned, and so is one worth more than `profit`) and stops at the
    /// first node worth `profit`. Every node it visits is one that [`solve`] visits before
    /// it first reaches the optimum (its incumbent is never above `profit - 1` until then),
    /// so it costs at most what the search did, and usually far less. It keeps the chosen
    /// positions as its stack of generators (an undo trail): no allocation per node.
    ///
    /// ```
    /// use magpie_apps::knapsack::Instance;
    /// let inst = Instance::new(10, &[(10, 5), (40, 4), (30, 6), (50, 3)]).unwrap();
    /// let sol = inst.certificate(90).unwrap();
    /// assert_eq!((sol.profit, sol.items), (90, vec![1, 3]));
    /// assert_eq!(inst.certificate(60).unwrap().items, vec![0, 3]); // 10 + 50, weight 8
    /// assert!(inst.certificate(91).is_none());
    /// assert_eq!(inst.certificate(0).unwrap().items, Vec::<usize>::new());
    /// ```
    pub fn certificate(&self, profit: u64) -> Option<Solution> {
        if profit == 0 {
            return Some(Solution {
                profit: 0,
                items: Vec::new(),
            });
        }
        let sol = branch_and_bound(self, profit - 1, profit);
        (sol.profit == profit).then_some(sol)
    }

    /// Total profit and weight of `items` (file indices).
    ///
    /// # Panics
    /// If an index is out of range.
    pub fn evaluate(&self, items: &[usize]) -> (u64, u64) {
        items.iter().fold((0, 0), |(p, w), &i| {
            (p + self.profits[i], w + self.weights[i])
        })
    }
}

/// A solution: the profit and the chosen items (0-based indices in **file** order, ascending).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Solution {
    /// Total profit of `items` (scaled by `10^decimals`).
    pub profit: u64,
    /// Chosen items, 0-based file indices, ascending.
    pub items: Vec<usize>,
}

/// A node of the include/exclude search tree. Items are decided in heuristic order
/// ([`Instance::order`]); positions `0..next_item` are decided. A node is a fixed-size `Copy`
/// value: it keeps no selection (making a child allocates nothing); the chosen items of an
/// incumbent are made on demand by [`Instance::certificate`].
///
/// ```
/// use magpie_apps::knapsack::{Instance, KnapNode};
/// let inst = Instance::new(5, &[(6, 2), (10, 4)]).unwrap();
/// let root = KnapNode::root(&inst);
/// assert_eq!(root.bound(&inst), 13);
/// let kids: Vec<KnapNode> = root.children(&inst).collect();
/// assert_eq!(kids.len(), 2);
/// assert_eq!((kids[0].profit, kids[0].weight), (6, 2)); // include first
/// assert_eq!((kids[1].profit, kids[1].weight), (0, 0)); // then exclude
/// assert_eq!(inst.certificate(kids[0].profit).unwrap().items, vec![0]);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct KnapNode {
    /// The next heuristic position to decide.
    pub next_item: usize,
    /// Profit of the chosen items.
    pub profit: u64,
    /// Weight of the chosen items (never above the capacity).
    pub weight: u64,
}

impl KnapNode {
    /// The root: nothing decided, nothing chosen.
    pub fn root(_inst: &Instance) -> KnapNode {
        KnapNode {
            next_item: 0,
            profit: 0,
            weight: 0,
        }
    }

    /// Upper bound on the profit of any completion: `profit` plus the Dantzig bound of the
    /// undecided items with the remaining capacity.
    #[inline]
    pub fn bound(&self, inst: &Instance) -> u64 {
        self.profit + inst.dantzig(self.next_item, inst.capacity - self.weight)
    }

    /// The child that decides the next position, adding `profit` and `weight` (the item's
    /// when it is included, zero when it is excluded).
    #[inline]
    fn child(&self, profit: u64, weight: u64) -> KnapNode {
        KnapNode {
            next_item: self.next_item + 1,
            profit: self.profit + profit,
            weight: self.weight + weight,
        }
    }

    /// Whether every item is decided.
    pub fn is_leaf(&self, inst: &Instance) -> bool {
        self.next_item >= inst.len()
    }

    /// Lazy child generator: the child that includes item `next_item` (if it fits) and then
    /// the one that excludes it; nothing at a leaf. Each child is built only when asked for.
    /// The generator keeps its own copy of the node, so it borrows only the instance.
    #[inline]
    pub fn children<'a>(&self, inst: &'a Instance) -> Children<'a> {
        Children {
            inst,
            parent: *self,
            stage: if self.is_leaf(inst) {
                Stage::Done
            } else {
                Stage::Include
            },
        }
    }
}

/// The next child a [`Children`] generator yields.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Stage {
    Include,
    Exclude,
    Done,
}

/// The lazy child generator of a [`KnapNode`] (see [`KnapNode::children`]): a fixed-size
/// value (the instance, the parent and a stage).
#[derive(Debug, Clone)]
pub struct Children<'a> {
    inst: &'a Instance,
    parent: KnapNode,
    stage: Stage,
}

impl Iterator for Children<'_> {
    type Item = KnapNode;

    #[inline]
    fn next(&mut self) -> Option<KnapNode> {
        let p = self.parent;
        let k = p.next_item;
        if self.stage == Stage::Include {
            self.stage = Stage::Exclude;
            let (profit, w) = self.inst.sorted[k];
            if p.weight + w <= self.inst.capacity {
                return Some(p.child(profit, w));
            }
        }
        if self.stage == Stage::Exclude {
            self.stage = Stage::Done;
            return Some(p.child(0, 0));
        }
        None
    }
}

/// The search tree for [`magpie::search`]: include/exclude over [`KnapNode`]s in heuristic
/// order; the objective is the profit, the bound [`KnapNode::bound`]. Children come include
/// first, so their bounds are not in order: do not use prune-level.
///
/// ```
/// use magpie::search::{optimise, Options, Skeleton};
/// use magpie_apps::knapsack::Instance;
/// let inst = Instance::new(50, &[(60, 10), (100, 20), (120, 30)]).unwrap();
/// let best = optimise(&inst, Skeleton::Sequential, &Options::default()).value.unwrap();
/// assert_eq!(best.0, 220);
/// assert_eq!(inst.certificate(best.1.profit).unwrap().items, vec![1, 2]);
/// ```
impl magpie::search::SearchSpace for Instance {
    type Node = KnapNode;
    type Children<'a> = Children<'a>;

    fn root(&self) -> KnapNode {
        KnapNode::root(self)
    }

    fn children<'a>(&'a self, node: &KnapNode) -> Children<'a> {
        node.children(self)
    }

    /// The same children as [`children`](magpie::search::SearchSpace::children) (include, if it fits, then
    /// exclude), built in locals.
    #[inline]
    fn for_each_child<F>(&self, node: &KnapNode, mut visit: F) -> std::ops::ControlFlow<()>
    where
        F: FnMut(&KnapNode) -> std::ops::ControlFlow<()>,
    {
        let Some(&(p, w)) = self.sorted.get(node.next_item) else {
            return std::ops::ControlFlow::Continue(());
        };
        // One call site for both children (the include child adds item `k`, the exclude
        // child adds nothing), so that the walk's closure is inlined once.
        let mut include = node.weight + w <= self.capacity;
        loop {
            let (dp, dw) = if include { (p, w) } else { (0, 0) };
            visit(&node.child(dp, dw))?;
            if !include {
                return std::ops::ControlFlow::Continue(());
            }
            include = false;
        }
    }

    /// Every item decided.
    #[inline]
    fn is_leaf(&self, node: &KnapNode) -> bool {
        node.is_leaf(self)
    }
}

impl magpie::search::Objective for Instance {
    fn objective(&self, node: &KnapNode) -> i64 {
        node.profit as i64 // the total profit fits in i64 (checked by `Instance::new`)
    }

    fn bound(&self, node: &KnapNode) -> i64 {
        node.bound(self) as i64
    }
}

/// Exact optimum by plain sequential depth-first branch and bound over [`KnapNode`]s
/// (include first, prune a child when its [`KnapNode::bound`] is not above the best profit
/// so far). The reference and the sequential baseline for parallel skeletons.
///
/// An explicit loop over a stack of child generators (one allocation per call, none per
/// node, no recursion however many items); the chosen items of each new incumbent are read
/// off that stack.
///
/// ```
/// use magpie_apps::knapsack::{solve, Instance};
/// let inst = Instance::new(50, &[(60, 10), (100, 20), (120, 30)]).unwrap();
/// let sol = solve(&inst);
/// assert_eq!(sol.profit, 220);
/// assert_eq!(sol.items, vec![1, 2]);
/// ```
pub fn solve(inst: &Instance) -> Solution {
    branch_and_bound(inst, 0, u64::MAX)
}

/// The depth-first branch and bound behind [`solve`] and [`Instance::certificate`]: the
/// incumbent starts at `floor` (the empty selection); a child is entered when its bound is
/// above the incumbent and its profit at most `ceiling`; a node worth more than the
/// incumbent becomes the incumbent, and the search stops once the incumbent is `ceiling`.
/// Returns the incumbent with its items (none when nothing beat `floor`).
fn branch_and_bound(inst: &Instance, floor: u64, ceiling: u64) -> Solution {
    let root = KnapNode::root(inst);
    let mut best = floor;
    // Heuristic positions chosen by the incumbent (reused buffer).
    let mut chosen: Vec<usize> = Vec::new();
    if root.bound(inst) <= floor {
        return Solution {
            profit: floor,
            items: Vec::new(),
        };
    }
    // stack[d] generates the children of the node at depth d (whose next_item is d).
    let mut stack: Vec<Children<'_>> = Vec::with_capacity(inst.len() + 1);
    stack.push(root.children(inst));
    while let Some(top) = stack.last_mut() {
        let Some(child) = top.next() else {
            stack.pop();
            continue;
        };
        if child.profit > ceiling || child.bound(inst) <= best {
            continue;
        }
        if child.profit > best {
            best = child.profit;
            chosen.clear();
            // Position d was included iff the weight grew from depth d to depth d + 1.
            let depth_weight = |d: usize| stack.get(d).map_or(child.weight, |g| g.parent.weight);
            chosen.extend((0..stack.len()).filter(|&d| depth_weight(d + 1) > depth_weight(d)));
            if best == ceiling {
                break;
            }
        }
        stack.push(child.children(inst));
    }
    let mut items: Vec<usize> = chosen.iter().map(|&k| inst.order[k]).collect();
    items.sort_unstable();
    Solution {
        profit: best,
        items,
    }
}

/// Exact optimum by dynamic programming over capacities (`O(n · capacity)` time, one bit per
/// item and capacity for the reconstruction): the oracle for small capacities.
///
/// # Panics
/// If `n · (capacity + 1)` exceeds 2^31.
///
/// ```
/// use magpie_apps::knapsack::{solve_dp, Instance};
/// let inst = Instance::new(50, &[(60, 10), (100, 20), (120, 30)]).unwrap();
/// let sol = solve_dp(&inst);
/// assert_eq!(sol.profit, 220);
/// assert_eq!(sol.items, vec![1, 2]);
/// ```
pub fn solve_dp(inst: &Instance) -> Solution {
    let n = inst.len();
    let cap = inst.capacity as usize;
    let cells = (n as u128) * (inst.capacity as u128 + 1);
    assert!(
        cells <= 1 << 31,
        "solve_dp: n * (capacity + 1) = {cells} is too large"
    );
    let width = cap + 1;
    let mut best = vec![0u64; width];
    let mut take = vec![0u64; (n * width).div_ceil(64)];
    for i in 0..n {
        let (p, w) = (inst.profits[i], inst.weights[i]);
        if w > inst.capacity {
            continue;
        }
        let w = w as usize;
        for c in (w..=cap).rev() {
            let with = best[c - w] + p;
            if with > best[c] {
                best[c] = with;
                let bit = i * width + c;
                take[bit / 64] |= 1 << (bit % 64);
            }
        }
    }
    let mut items = Vec::new();
    let mut c = cap;
    for i in (0..n).rev() {
        let bit = i * width + c;
        if take[bit / 64] >> (bit % 64) & 1 == 1 {
            items.push(i);
            c -= inst.weights[i] as usize;
        }
    }
    items.reverse();
    Solution {
        profit: best[cap],
        items,
    }
}

/// Reads a knapsack file: Pisinger CSV when the name ends in `.csv` (many instances),
/// otherwise the plain format (one instance).
///
/// ```
/// let p = magpie_apps::testdata::path("knapsack/low-dimensional/f3_l-d_kp_4_20");
/// let v = magpie_apps::knapsack::read(&p).unwrap();
/// assert_eq!(v.len(), 1);
/// assert_eq!(magpie_apps::knapsack::solve(&v[0]).profit, 35);
/// ```
pub fn read(path: impl AsRef<Path>) -> Result<Vec<Instance>, InputError> {
    let path = path.as_ref();
    let text = InputError::read_to_string(path)?;
    if path
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("csv"))
    {
        parse_pisinger(path, &text)
    } else {
        let mut inst = parse_plain(path, &text)?;
        inst.name = path
            .file_name()
            .map(|f| f.to_string_lossy().into_owned())
            .unwrap_or_default();
        Ok(vec![inst])
    }
}

/// A non-negative decimal number as (digits without the point, fractional digits).
fn parse_decimal(tok: &str) -> Result<(u64, u32), String> {
    if tok.starts_with('-') {
        return Err(format!("negative number `{tok}`"));
    }
    let (int, frac) = match tok.split_once('.') {
        Some((a, b)) => (a, b),
        None => (tok, ""),
    };
    let digits_ok = |s: &str| s.bytes().all(|b| b.is_ascii_digit());
    if int.is_empty() || !digits_ok(int) || !digits_ok(frac) || frac.len() > 9 {
        return Err(format!("`{tok}` is not a number"));
    }
    let mut v: u64 = 0;
    for b in int.bytes().chain(frac.bytes()) {
        v = v
            .checked_mul(10)
            .and_then(|v| v.checked_add((b - b'0') as u64))
            .ok_or_else(|| format!("number `{tok}` is too large"))?;
    }
    Ok((v, frac.len() as u32))
}

/// Parses the plain format (see the module docs); `path` only labels errors.
///
/// ```
/// use magpie_apps::knapsack::parse_plain;
/// let inst = parse_plain("t", "2 5\n3 4\n5 2\n0 1\n").unwrap();
/// assert_eq!((inst.len(), inst.capacity()), (2, 5));
/// assert_eq!(inst.stated_selection(), Some(&[false, true][..]));
/// let e = parse_plain("t", "2 5\n3 4\n").unwrap_err();
/// assert_eq!(e.to_string(), "t:2: file ends after 1 of 2 items");
/// ```
pub fn parse_plain(path: impl AsRef<Path>, text: &str) -> Result<Instance, InputError> {
    let path = path.as_ref();
    let err = |line: usize, msg: String| InputError::at(path, line, msg);
    let mut lines = text
        .lines()
        .enumerate()
        .map(|(i, l)| (i + 1, l.trim()))
        .filter(|(_, l)| !l.is_empty());
    let last_line = text.lines().count().max(1);
    let (hl, header) = lines
        .next()
        .ok_or_else(|| err(last_line, "empty file".into()))?;
    let f: Vec<&str> = header.split_whitespace().collect();
    if f.len() != 2 {
        return Err(err(
            hl,
            format!("expected `n capacity`, found {} fields", f.len()),
        ));
    }
    let n: usize = f[0].parse().map_err(|_| {
        err(
            hl,
            format!("item count `{}` is not a non-negative integer", f[0]),
        )
    })?;
    let cap = parse_decimal(f[1]).map_err(|m| err(hl, format!("capacity: {m}")))?;
    // (value, decimals, line) for every number: capacity first, then profit, weight pairs.
    let mut nums = vec![(cap.0, cap.1, hl)];
    let mut selection = None;
    let mut count = 0;
    while let Some((ln, l)) = lines.next() {
        let f: Vec<&str> = l.split_whitespace().collect();
        if count == n {
            // The optional selection vector, then nothing more.
            if f.len() != n || f.iter().any(|t| *t != "0" && *t != "1") {
                return Err(err(
                    ln,
                    format!(
                        "after the {n} items only a selection line of {n} 0/1 entries may follow"
                    ),
                ));
            }
            selection = Some(f.iter().map(|t| *t == "1").collect::<Vec<bool>>());
            if let Some((ln, _)) = lines.next() {
                return Err(err(ln, "unexpected data after the selection line".into()));
            }
            break;
        }
        if f.len() != 2 {
            return Err(err(
                ln,
                format!("expected `profit weight`, found {} fields", f.len()),
            ));
        }
        let p = parse_decimal(f[0]).map_err(|m| err(ln, format!("profit: {m}")))?;
        let w = parse_decimal(f[1]).map_err(|m| err(ln, format!("weight: {m}")))?;
        if w.0 == 0 {
            return Err(err(ln, "weight must be positive".into()));
        }
        nums.push((p.0, p.1, ln));
        nums.push((w.0, w.1, ln));
        count += 1;
    }
    if count < n {
        return Err(err(
            last_line,
            format!("file ends after {count} of {n} items"),
        ));
    }
    let d = nums.iter().map(|x| x.1).max().unwrap_or(0);
    let mut scaled = Vec::with_capacity(nums.len());
    for &(v, dv, ln) in &nums {
        let s = v
            .checked_mul(10u64.pow(d - dv))
            .ok_or_else(|| err(ln, "number too large after scaling".into()))?;
        scaled.push(s);
    }
    let items: Vec<(u64, u64)> = scaled[1..].chunks(2).map(|c| (c[0], c[1])).collect();
    let mut inst = Instance::new(scaled[0], &items).map_err(|m| err(last_line, m))?;
    inst.decimals = d;
    inst.stated_selection = selection;
    Ok(inst)
}

/// Parses a Pisinger CSV file (see the module docs); `path` only labels errors. Each
/// instance's `z` becomes [`Instance::stated_optimum`] and its `x` column
/// [`Instance::stated_selection`].
///
/// ```
/// use magpie_apps::knapsack::{parse_pisinger, solve};
/// let text = "inst_1\nn 2\nc 5\nz 5\ntime 0.00\n1,3,4,0\n2,5,2,1\n-----\n";
/// let v = parse_pisinger("t.csv", text).unwrap();
/// assert_eq!(v[0].name(), "inst_1");
/// assert_eq!(v[0].stated_optimum(), Some(5));
/// assert_eq!(solve(&v[0]).profit, 5);
/// ```
pub fn parse_pisinger(path: impl AsRef<Path>, text: &str) -> Result<Vec<Instance>, InputError> {
    let path = path.as_ref();
    let err = |line: usize, msg: String| InputError::at(path, line, msg);
    let last_line = text.lines().count().max(1);
    let mut lines = text
        .lines()
        .enumerate()
        .map(|(i, l)| (i + 1, l.trim()))
        .filter(|(_, l)| !l.is_empty());
    let mut out = Vec::new();
    let eof = |what: &str| err(last_line, format!("file ends early: expected {what}"));
    let keyed = |ln: usize, l: &str, key: &str| -> Result<String, InputError> {
        match l.split_once(char::is_whitespace) {
            Some((k, v)) if k == key => Ok(v.trim().to_string()),
            _ => Err(err(ln, format!("expected `{key} VALUE`, found `{l}`"))),
        }
    };
    let int = |ln: usize, s: &str, what: &str| -> Result<u64, InputError> {
        if s.starts_with('-') {
            return Err(err(ln, format!("{what}: negative number `{s}`")));
        }
        s.parse()
            .map_err(|_| err(ln, format!("{what}: `{s}` is not a non-negative integer")))
    };
    while let Some((_, name)) = lines.next() {
        let mut field = |key: &str| -> Result<(usize, String), InputError> {
            let (ln, l) = lines.next().ok_or_else(|| eof(&format!("`{key}` line")))?;
            Ok((ln, keyed(ln, l, key)?))
        };
        let (ln, v) = field("n")?;
        let n = int(ln, &v, "n")? as usize;
        let (ln, v) = field("c")?;
        let cap = int(ln, &v, "capacity")?;
        let (ln, v) = field("z")?;
        let z = int(ln, &v, "z")?;
        field("time")?;
        // Grown with the data: `n` is only a header's claim.
        let mut items = Vec::new();
        let mut sel = Vec::new();
        for k in 0..n {
            let (ln, l) = lines
                .next()
                .ok_or_else(|| eof(&format!("{n} items, found {k}")))?;
            let f: Vec<&str> = l.split(',').map(str::trim).collect();
            if f.len() != 4 {
                return Err(err(
                    ln,
                    format!(
                        "expected `index,profit,weight,x`, found {} fields (file ends after {k} of {n} items?)",
                        f.len()
                    ),
                ));
            }
            if int(ln, f[0], "index")? != k as u64 + 1 {
                return Err(err(ln, format!("item index {} should be {}", f[0], k + 1)));
            }
            let p = int(ln, f[1], "profit")?;
            let w = int(ln, f[2], "weight")?;
            if w == 0 {
                return Err(err(ln, "weight must be positive".into()));
            }
            let x = match f[3] {
                "0" => false,
                "1" => true,
                other => return Err(err(ln, format!("x must be 0 or 1, found `{other}`"))),
            };
            items.push((p, w));
            sel.push(x);
        }
        let (ln, l) = lines.next().ok_or_else(|| eof("`-----`"))?;
        if !l.starts_with("---") {
            return Err(err(
                ln,
                format!("expected `-----` after {n} items, found `{l}`"),
            ));
        }
        let mut inst = Instance::new(cap, &items).map_err(|m| err(ln, m))?;
        inst.name = name.to_string();
        inst.stated_optimum = Some(z);
        inst.stated_selection = Some(sel);
        out.push(inst);
    }
    if out.is_empty() {
        return Err(err(last_line, "no instances".into()));
    }
    Ok(out)
}
