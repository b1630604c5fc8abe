//! Symmetric travelling salesman (optimisation): a TSPLIB reader, a sound lower bound for
//! partial tours, a search-tree node with a lazy child generator and a sequential branch and
//! bound.
//!
//! Distances follow TSPLIB95's integer rules exactly: `nint` for EUC_2D, `ceil` for CEIL_2D,
//! the pseudo-Euclidean ATT rule and the GEO rule (degrees.minutes coordinates, `PI =
//! 3.141592`, `RRR = 6378.388`; the degree part is truncated, as in TSPLIB's reference code).
//! EXPLICIT matrices in FULL_MATRIX, UPPER_ROW, LOWER_ROW, UPPER_DIAG_ROW and LOWER_DIAG_ROW
//! are read too.
//!
//! Cities are 0-based inside ([`Instance::dist`], [`TspNode::path`]) and 1-based in
//! [`Tour::cities`], [`tour_length`] and files.
//!
//! ```
//! use magpie_apps::tsp::{parse, solve};
//! let text = "NAME: sq\nTYPE: TSP\nDIMENSION: 4\nEDGE_WEIGHT_TYPE: EUC_2D\n\
//!             NODE_COORD_SECTION\n1 0 0\n2 3 0\n3 0 4\n4 3 4\nEOF\n";
//! let inst = parse("sq.tsp", text).unwrap();
//! assert_eq!(inst.dist(0, 3), 5);
//! let t = solve(&inst);
//! assert_eq!(t.length, 14);
//! assert_eq!(t.cities, vec![1, 2, 4, 3]);
//! ```

use crate::pool::Words;

mod app;
pub use app::APP;

/// A symmetric TSP instance: `n` cities and an integer distance matrix.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Instance {
    name: String,
    n: usize,
    d: Vec<i64>,
    /// Held–Karp node penalties (in units of `1 / SCALE`) from a root subgradient ascent;
    /// any values keep [`TspNode::lower_bound`] sound, good ones make it tight.
    pi: Vec<i64>,
}

/// Penalised distances are `SCALE * d(i, j) + pi[i] + pi[j]` (exact integers).
const SCALE: i64 = 16;

/// The most cities [`parse`] accepts: the distance matrix takes `8·N²` bytes (512 MiB here)
/// however short the file, so a DIMENSION above this is refused, with the bytes it would
/// need, before anything is allocated.
pub const MAX_CITIES: usize = 1 << 13;

/// The largest absolute coordinate [`parse`] accepts, so that every distance stays below
/// [`MAX_WEIGHT`].
pub const MAX_COORDINATE: f64 = 1e9;

/// The largest explicit edge weight [`parse`] accepts: with at most [`MAX_CITIES`] cities,
/// tour lengths and the scaled, penalised bounds stay far inside `i64`.
pub const MAX_WEIGHT: f64 = 4_294_967_296.0;

impl Instance {
    /// An instance from a full `n × n` row-major matrix (0-based cities).
    ///
    /// # Panics
    /// If `matrix.len() != n * n`.
    ///
    /// ```
    /// let inst = magpie_apps::tsp::Instance::from_matrix(2, vec![0, 7, 7, 0]);
    /// assert_eq!(inst.dist(1, 0), 7);
    /// ```
    pub fn from_matrix(n: usize, matrix: Vec<i64>) -> Instance {
        assert_eq!(matrix.len(), n * n, "from_matrix: need n * n entries");
        Instance {
            name: String::new(),
            n,
            d: matrix,
            pi: Vec::new(),
        }
        .with_penalties()
    }

    /// Penalised distance (scaled by `SCALE`).
    fn pd(&self, i: usize, j: usize) -> i64 {
        SCALE * self.d[i * self.n + j] + self.pi[i] + self.pi[j]
    }

    /// Sets `pi` by subgradient ascent on the root's 1-tree bound (Held–Karp), keeping the
    /// best penalties found (all zero if nothing beats them).
    fn with_penalties(mut self) -> Instance {
        let n = self.n;
        self.pi = vec![0; n];
        if n < 3 {
            return self;
        }
        let mut sum = 0;
        for i in 0..n {
            for j in i + 1..n {
                sum += self.dist(i, j);
            }
        }
        let avg = sum / (n * (n - 1) / 2) as i64;
        let mut step = (SCALE * avg / 10).max(1);
        let (mut best_val, _) = self.one_tree();
        let mut best_pi = self.pi.clone();
        let mut since = 0;
        for _ in 0..(50 * n).max(500) {
            let (val, deg) = self.one_tree();
            if val > best_val {
                best_val = val;
                best_pi = self.pi.clone();
                since = 0;
            } else {
                since += 1;
                if since >= 10 {
                    step /= 2;
                    since = 0;
                    if step == 0 {
                        break;
                    }
                }
            }
            if deg.iter().all(|&g| g == 2) {
                break;
            }
            for (p, &g) in self.pi.iter_mut().zip(&deg).skip(1) {
                *p += step * (g as i64 - 2);
            }
        }
        self.pi = best_pi;
        self
    }

    /// The root's 1-tree under the penalised distances: its value minus `2 * sum(pi)` (a
    /// scaled lower bound on every tour) and the degrees.
    fn one_tree(&self) -> (i64, Vec<u32>) {
        let n = self.n;
        let mut deg = vec![0u32; n];
        // Prim on cities 1..n.
        let mut key: Vec<i64> = (0..n).map(|v| self.pd(1, v)).collect();
        let mut parent = vec![1usize; n];
        let mut done = vec![false; n];
        done[0] = true;
        done[1] = true;
        let mut cost = prim(&mut key, &mut done, 2..n, |j, t, key_t| {
            if self.pd(j, t) < *key_t {
                *key_t = self.pd(j, t);
                parent[t] = j;
            }
        });
        for j in 2..n {
            deg[j] += 1;
            deg[parent[j]] += 1;
        }
        // The two cheapest edges from city 0.
        let mut e: Vec<(i64, usize)> = (1..n).map(|v| (self.pd(0, v), v)).collect();
        e.sort_unstable();
        for &(c, v) in &e[..2] {
            cost += c;
            deg[v] += 1;
        }
        deg[0] = 2;
        (cost - 2 * self.pi.iter().sum::<i64>(), deg)
    }

    /// The NAME from the file (empty for [`Instance::from_matrix`]).
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Number of cities.
    pub fn len(&self) -> usize {
        self.n
    }

    /// Whether there are no cities.
    pub fn is_empty(&self) -> bool {
        self.n == 0
    }

    /// Distance between 0-based cities `i` and `j`.
    pub fn dist(&self, i: usize, j: usize) -> i64 {
        self.d[i * self.n + j]
    }
}

/// A closed tour: its length and the cities in order (1-based ids, starting with city 1).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Tour {
    /// Total length including the closing edge.
    pub length: i64,
    /// The cities in visiting order, 1-based.
    pub cities: Vec<usize>,
}

/// Length of the closed tour through `cities` (1-based ids), including the edge back to the
/// first city.
///
/// # Panics
/// If an id is 0 or above `inst.len()`.
///
/// ```
/// use magpie_apps::tsp::{tour_length, Instance};
/// let inst = Instance::from_matrix(3, vec![0, 1, 2, 1, 0, 4, 2, 4, 0]);
/// assert_eq!(tour_length(&inst, &[1, 2, 3]), 7);
/// ```
pub fn tour_length(inst: &Instance, cities: &[usize]) -> i64 {
    let k = cities.len();
    (0..k)
        .map(|i| {
            let (a, b) = (cities[i], cities[(i + 1) % k]);
            assert!(
                (1..=inst.n).contains(&a) && (1..=inst.n).contains(&b),
                "tour_length: city id out of range 1..={}",
                inst.n
            );
            inst.dist(a - 1, b - 1)
        })
        .sum()
}

/// A node of the search tree: a path from city 0 (city 1 in the file) through distinct cities.
///
/// The visited cities (a bitset) and the path (one word a city) share one recycled buffer
/// ([`crate::pool::Words`]), so making a node allocates nothing once the search has reached
/// its depth before.
///
/// ```
/// use magpie_apps::tsp::{Instance, TspNode};
/// let inst = Instance::from_matrix(3, vec![0, 1, 2, 1, 0, 4, 2, 4, 0]);
/// let root = TspNode::root(&inst);
/// assert_eq!(root.lower_bound(&inst), 6); // MST {1,2} = 4, plus 1 + 1 from the ends
/// let kids: Vec<TspNode> = root.children(&inst).collect();
/// assert_eq!(kids[0].path().collect::<Vec<_>>(), vec![0, 1]); // nearest city first
/// assert_eq!(kids[1].path().collect::<Vec<_>>(), vec![0, 2]);
/// assert!(kids[1].is_visited(2) && !kids[1].is_visited(1));
/// assert_eq!(kids[0].length, 1);
/// ```
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct TspNode {
    /// `⌈n/64⌉` words of visited cities, then the path's cities in order (0-based, one a
    /// word, starting with city 0).
    words: Words,
    /// The number of visited-city words.
    vw: usize,
    /// Length of the (open) path.
    pub length: i64,
}

impl TspNode {
    /// The path `[0]`.
    ///
    /// # Panics
    /// If the instance has no cities.
    pub fn root(inst: &Instance) -> TspNode {
        assert!(inst.n > 0, "TspNode::root: empty instance");
        let vw = inst.n.div_ceil(64);
        let mut words = Words::take(vw + inst.n);
        words.resize(vw, 0);
        words[0] = 1;
        words.push(0);
        TspNode {
            words,
            vw,
            length: 0,
        }
    }

    /// The cities visited so far, in order, 0-based; starts with city 0.
    pub fn path(&self) -> impl ExactSizeIterator<Item = usize> + '_ {
        self.words[self.vw..].iter().map(|&c| c as usize)
    }

    /// The number of cities on the path.
    pub fn path_len(&self) -> usize {
        self.words.len() - self.vw
    }

    /// The last city of the path.
    pub fn last(&self) -> usize {
        self.words[self.words.len() - 1] as usize
    }

    /// Whether city `c` is on the path (`false` when out of range).
    pub fn is_visited(&self, c: usize) -> bool {
        visited(&self.words[..self.vw], c)
    }

    /// Whether every city is on the path.
    pub fn is_complete(&self, inst: &Instance) -> bool {
        self.path_len() == inst.n
    }

    /// Length of the closed tour when complete (path plus the edge back to city 0).
    pub fn tour_length(&self, inst: &Instance) -> i64 {
        self.length + inst.dist(self.last(), 0)
    }

    /// A lower bound on the length of every tour extending this path: the path length plus
    /// the larger of two sound bounds on the rest (the closing path from the last city
    /// through every unvisited city back to city 0), both computed on Held–Karp penalised
    /// distances `d(i, j) + π_i + π_j` (π from a subgradient ascent on the root's 1-tree when
    /// the instance is built; the penalties are subtracted again, so any π keeps it sound):
    ///
    /// * **degree bound**: every unvisited city has two edges to unvisited cities or the two
    ///   ends, each end has one edge to an unvisited city; half the sum of these cheapest
    ///   edges, rounded up;
    /// * **MST bound**: a minimum spanning tree of the unvisited cities plus the cheapest edge
    ///   from each end to them.
    ///
    /// It is exact for complete paths (the closed tour's length).
    pub fn lower_bound(&self, inst: &Instance) -> i64 {
        lower_bound(
            inst,
            &self.words[..self.vw],
            self.last(),
            self.length,
            self.path_len(),
        )
    }

    /// Lazy child generator: the path extended by each unvisited city, nearest to the last
    /// city first (ties by city number). Children are built one at a time as asked for. The
    /// generator keeps its own copy of the node (in a recycled buffer, with the sorted
    /// candidates), so it borrows only the instance.
    pub fn children<'a>(&self, inst: &'a Instance) -> Children<'a> {
        let last = self.last();
        let parent = self.words.len();
        let mut buf = Words::take(parent + inst.n - self.path_len());
        buf.extend_from_slice(&self.words);
        buf.extend((0..inst.n as u64).filter(|&c| !self.is_visited(c as usize)));
        // The keys are distinct (the city breaks ties): unstable is stable, and sorts in place.
        buf[parent..].sort_unstable_by_key(|&c| (inst.dist(last, c as usize), c));
        Children {
            inst,
            vw: self.vw,
            parent,
            length: self.length,
            last,
            next: parent,
            buf,
        }
    }

    /// This complete node as a [`Tour`] (1-based ids).
    ///
    /// # Panics
    /// If the node is not complete.
    pub fn tour(&self, inst: &Instance) -> Tour {
        assert!(self.is_complete(inst), "TspNode::tour: path not complete");
        Tour {
            length: self.tour_length(inst),
            cities: self.path().map(|c| c + 1).collect(),
        }
    }
}

/// Whether city `c` is in the visited-city bitset `words`.
fn visited(words: &[u64], c: usize) -> bool {
    words.get(c / 64).is_some_and(|w| w >> (c % 64) & 1 == 1)
}

/// Scratch space for [`lower_bound`], one per thread.
#[derive(Default)]
struct BoundScratch {
    un: Vec<usize>,
    key: Vec<i64>,
    done: Vec<bool>,
}

/// [`TspNode::lower_bound`] of the path of `path_len` cities and length `length` that ends at
/// `last` and visits the cities of the bitset `visited_words`; allocates nothing once this
/// thread's scratch space has grown.
fn lower_bound(
    inst: &Instance,
    visited_words: &[u64],
    last: usize,
    length: i64,
    path_len: usize,
) -> i64 {
    thread_local! {
        static SCRATCH: std::cell::RefCell<BoundScratch> = std::cell::RefCell::default();
    }
    if path_len == inst.n {
        return length + inst.dist(last, 0);
    }
    let run = |s: &mut BoundScratch| bound_rest(inst, visited_words, last, s);
    let rest = SCRATCH
        .try_with(|s| s.try_borrow_mut().ok().map(|mut s| run(&mut s)))
        .ok()
        .flatten()
        .unwrap_or_else(|| run(&mut BoundScratch::default()));
    length + rest
}

/// The bound on the closing path of [`lower_bound`] (unscaled, rounded up).
fn bound_rest(inst: &Instance, visited_words: &[u64], last: usize, s: &mut BoundScratch) -> i64 {
    let n = inst.n;
    let start = 0;
    let BoundScratch { un, key, done } = s;
    un.clear();
    un.extend((0..n).filter(|&c| !visited(visited_words, c)));
    let d = |i: usize, j: usize| inst.pd(i, j);
    // Degree bound (doubled), on penalised distances.
    let mut twice = 0;
    let mut min_start = i64::MAX;
    let mut min_last = i64::MAX;
    for &u in un.iter() {
        let (mut a, mut b) = (d(u, start), d(u, last));
        if b < a {
            std::mem::swap(&mut a, &mut b);
        }
        for &v in un.iter() {
            if v != u {
                let x = d(u, v);
                if x < a {
                    b = a;
                    a = x;
                } else if x < b {
                    b = x;
                }
            }
        }
        twice += a + b;
        min_start = min_start.min(d(start, u));
        min_last = min_last.min(d(last, u));
    }
    twice += min_start + min_last;
    let degree = -((-twice).div_euclid(2)); // ceil(twice / 2)

    // MST bound (Prim), on penalised distances.
    let un = &un[..];
    let k = un.len();
    key.clear();
    key.extend(un.iter().map(|&u| d(un[0], u)));
    done.clear();
    done.resize(k, false);
    done[0] = true; // `un` holds at least the city not yet on the path
    let mst = prim(key, done, 0..k, |j, t, key_t| {
        *key_t = (*key_t).min(d(un[j], un[t]));
    });
    let tree = mst + min_start + min_last;
    // The closing path has penalised length SCALE * length + 2 pi(U) + pi(start) + pi(last).
    let pen: i64 = 2 * un.iter().map(|&u| inst.pi[u]).sum::<i64>() + inst.pi[start] + inst.pi[last];
    let x = degree.max(tree) - pen;
    -(-x).div_euclid(SCALE) // ceil(x / SCALE)
}

/// Prim's minimum spanning tree on the slots `slots` of `key` and `done`: `key[t]` is the
/// cheapest known edge into slot `t` from the tree (the slots already `done`). Repeatedly
/// adds the cheapest slot `j` not done (the first on a tie) at its key, then lets
/// `relax(j, t, &mut key[t])` lower the key of every slot `t` not done; the tree's cost.
fn prim(
    key: &mut [i64],
    done: &mut [bool],
    slots: std::ops::Range<usize>,
    mut relax: impl FnMut(usize, usize, &mut i64),
) -> i64 {
    let mut cost = 0;
    loop {
        let mut j = usize::MAX;
        for t in slots.clone() {
            if !done[t] && (j == usize::MAX || key[t] < key[j]) {
                j = t;
            }
        }
        if j == usize::MAX {
            return cost;
        }
        done[j] = true;
        cost += key[j];
        for t in slots.clone() {
            if !done[t] {
                relax(j, t, &mut key[t]);
            }
        }
    }
}

/// The lazy child generator of a [`TspNode`] (see [`TspNode::children`]).
#[derive(Debug)]
pub struct Children<'a> {
    inst: &'a Instance,
    vw: usize,
    /// The parent's words are `buf[..parent]`, its unvisited cities `buf[parent..]`, sorted.
    parent: usize,
    length: i64,
    last: usize,
    /// The index in `buf` of the next child's city.
    next: usize,
    buf: Words,
}

impl Iterator for Children<'_> {
    type Item = TspNode;

    fn next(&mut self) -> Option<TspNode> {
        let &c = self.buf.get(self.next)?;
        self.next += 1;
        let c = c as usize;
        let mut words = Words::take(self.parent + 1);
        words.extend_from_slice(&self.buf[..self.parent]);
        words[c / 64] |= 1 << (c % 64);
        words.push(c as u64);
        Some(TspNode {
            words,
            vw: self.vw,
            length: self.length + self.inst.dist(self.last, c),
        })
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let left = self.buf.len() - self.next;
        (left, Some(left))
    }
}

impl ExactSizeIterator for Children<'_> {}

/// The search tree for [`magpie::search`] (minimising the tour length as maximising its
/// negation): the objective of a complete path is `-(tour length)` and of any other node
/// `i64::MIN` (not a tour); the bound is `-`[`TspNode::lower_bound`]. Children come nearest
/// city first, which does not order their bounds: do not use prune-level.
///
/// ```
/// use magpie::search::{optimise, Options, Skeleton};
/// use magpie_apps::tsp::{heuristic_tour, Instance};
/// let inst = Instance::from_matrix(4, vec![0, 1, 9, 1, 1, 0, 1, 9, 9, 1, 0, 1, 1, 9, 1, 0]);
/// let opts = Options { initial_bound: Some(-heuristic_tour(&inst).length - 1), ..Options::default() };
/// let (value, node) = optimise(&inst, Skeleton::Sequential, &opts).value.unwrap();
/// assert_eq!(value, -4);
/// assert_eq!(node.tour(&inst).cities, vec![1, 2, 3, 4]);
/// ```
impl magpie::search::SearchSpace for Instance {
    type Node = TspNode;
    type Children<'a> = Children<'a>;

    fn root(&self) -> TspNode {
        TspNode::root(self)
    }

    fn children<'a>(&'a self, node: &TspNode) -> Children<'a> {
        node.children(self)
    }
}

impl magpie::search::Objective for Instance {
    fn objective(&self, node: &TspNode) -> i64 {
        if node.is_complete(self) {
            -node.tour_length(self)
        } else {
            i64::MIN
        }
    }

    fn bound(&self, node: &TspNode) -> i64 {
        -node.lower_bound(self)
    }
}

/// An optimal tour by a hand-written sequential depth-first branch and bound, starting with
/// the [`heuristic_tour`] as the incumbent: [`branch_and_bound`] below its length. The
/// reference and the sequential baseline for parallel skeletons.
///
/// # Panics
/// If the instance has no cities.
///
/// ```
/// use magpie_apps::tsp::{solve, Instance};
/// let inst = Instance::from_matrix(3, vec![0, 1, 2, 1, 0, 4, 2, 4, 0]);
/// assert_eq!(solve(&inst), magpie_apps::tsp::Tour { length: 7, cities: vec![1, 2, 3] });
/// ```
pub fn solve(inst: &Instance) -> Tour {
    let start = heuristic_tour(inst);
    branch_and_bound(inst, start.length).0.unwrap_or(start)
}

/// The shortest tour shorter than `upper`, if there is one, and the number of nodes the
/// search expanded. A hand-written depth-first branch and bound over the tree of
/// [`TspNode`]s (nearest city first; a node is expanded when its [`TspNode::lower_bound`] is
/// below the best tour so far, the root included), on one path and one visited-city bitset
/// changed in place and undone on the way back, with a candidate buffer per depth: it
/// allocates per depth, never per node. With `upper = heuristic_tour(inst).length` it
/// expands exactly the nodes that `magpie::search::optimise` on the `Sequential` skeleton
/// expands with `initial_bound: Some(-upper)` (`SearchStats::expanded`).
///
/// # Panics
/// If the instance has no cities.
///
/// ```
/// use magpie_apps::tsp::{branch_and_bound, Instance};
/// let inst = Instance::from_matrix(4, vec![0, 1, 9, 1, 1, 0, 1, 9, 9, 1, 0, 1, 1, 9, 1, 0]);
/// let (tour, nodes) = branch_and_bound(&inst, i64::MAX);
/// assert_eq!(tour.unwrap().cities, vec![1, 2, 3, 4]);
/// assert_eq!(nodes, 4); // the root, 1, 1-2, 1-2-3-4 (the rest is pruned)
/// // The root's bound is 4, which does not beat 4: nothing is expanded.
/// assert_eq!(branch_and_bound(&inst, 4), (None, 0));
/// ```
pub fn branch_and_bound(inst: &Instance, upper: i64) -> (Option<Tour>, u64) {
    assert!(inst.n > 0, "branch_and_bound: empty instance");
    let vw = inst.n.div_ceil(64);
    let mut b = Bnb {
        inst,
        visited: vec![0; vw],
        path: Vec::with_capacity(inst.n),
        best_len: upper,
        best: None,
        nodes: 0,
        levels: Vec::new(),
    };
    b.visited[0] = 1;
    b.path.push(0);
    if lower_bound(inst, &b.visited, 0, 0, 1) < b.best_len {
        b.nodes = 1;
        b.expand(0, 0);
    }
    let tour = b.best.map(|path| Tour {
        length: b.best_len,
        cities: path.iter().map(|c| c + 1).collect(),
    });
    (tour, b.nodes)
}

/// The state of [`branch_and_bound`].
struct Bnb<'a> {
    inst: &'a Instance,
    visited: Vec<u64>,
    path: Vec<usize>,
    best_len: i64,
    best: Option<Vec<usize>>,
    nodes: u64,
    /// The sorted candidates of each open depth (reused).
    levels: Vec<Vec<usize>>,
}

impl Bnb<'_> {
    /// Expands the current path, of length `length`, at `depth`.
    fn expand(&mut self, depth: usize, length: i64) {
        let inst = self.inst;
        let last = *self.path.last().expect("the path starts at city 0");
        if self.path.len() == inst.n {
            let tour = length + inst.dist(last, 0);
            if tour < self.best_len {
                self.best_len = tour;
                match &mut self.best {
                    Some(b) => b.clone_from(&self.path),
                    None => self.best = Some(self.path.clone()),
                }
            }
            return;
        }
        if self.levels.len() <= depth {
            self.levels.resize_with(depth + 1, Vec::new);
        }
        let mut cand = std::mem::take(&mut self.levels[depth]);
        cand.clear();
        cand.extend((0..inst.n).filter(|&c| !visited(&self.visited, c)));
        cand.sort_unstable_by_key(|&c| (inst.dist(last, c), c));
        for &c in &cand {
            let len = length + inst.dist(last, c);
            self.visited[c / 64] |= 1 << (c % 64);
            self.path.push(c);
            if lower_bound(inst, &self.visited, c, len, self.path.len()) < self.best_len {
                self.nodes += 1;
                self.expand(depth + 1, len);
            }
            self.path.pop();
            self.visited[c / 64] &= !(1 << (c % 64));
        }
        self.levels[depth] = cand;
    }
}

/// A good (not necessarily optimal) tour: nearest neighbour from every city, each improved
/// by 2-opt until no move helps; the shortest, rotated to start at city 1.
///
/// # Panics
/// If the instance has no cities.
///
/// ```
/// use magpie_apps::tsp::{heuristic_tour, tour_length, Instance};
/// let inst = Instance::from_matrix(3, vec![0, 1, 2, 1, 0, 4, 2, 4, 0]);
/// let t = heuristic_tour(&inst);
/// assert_eq!(t.length, 7);
/// assert_eq!(tour_length(&inst, &t.cities), 7);
/// ```
pub fn heuristic_tour(inst: &Instance) -> Tour {
    let n = inst.n;
    assert!(n > 0, "heuristic_tour: empty instance");
    let len = |t: &[usize]| -> i64 { (0..n).map(|i| inst.dist(t[i], t[(i + 1) % n])).sum() };
    let mut best: Option<(i64, Vec<usize>)> = None;
    for s in 0..n {
        let mut used = vec![false; n];
        let mut t = vec![s];
        used[s] = true;
        while t.len() < n {
            let last = *t.last().unwrap();
            let next = (0..n)
                .filter(|&c| !used[c])
                .min_by_key(|&c| (inst.dist(last, c), c))
                .unwrap();
            used[next] = true;
            t.push(next);
        }
        // 2-opt: reverse t[i+1..=j] when it shortens the tour.
        let mut improved = true;
        while improved {
            improved = false;
            for i in 0..n.saturating_sub(2) {
                for j in i + 2..n {
                    let (a, b) = (t[i], t[i + 1]);
                    let (c, d) = (t[j], t[(j + 1) % n]);
                    if a == d {
                        continue;
                    }
                    if inst.dist(a, c) + inst.dist(b, d) < inst.dist(a, b) + inst.dist(c, d) {
                        t[i + 1..=j].reverse();
                        improved = true;
                    }
                }
            }
        }
        let l = len(&t);
        if best.as_ref().is_none_or(|b| l < b.0) {
            best = Some((l, t));
        }
    }
    let (length, mut t) = best.unwrap();
    let z = t.iter().position(|&c| c == 0).unwrap();
    t.rotate_left(z);
    Tour {
        length,
        cities: t.into_iter().map(|c| c + 1).collect(),
    }
}

mod tsplib;
pub use tsplib::{parse, parse_tour, read, read_tour};
