//! Numerical semigroups by genus (YewPar's "NS-hivert"): the domain layer.
//!
//! A numerical semigroup `S` is a subset of ℕ = {0, 1, 2, …} containing 0, closed under
//! addition, with a finite complement (its *gaps*; their number is the *genus*). Every
//! numerical semigroup sits exactly once in a tree rooted at ℕ: the children of `S` are
//! `S \ {x}` for every minimal generator `x` of `S` greater than its Frobenius number (the
//! largest gap), so depth = genus. Counting the nodes level by level gives OEIS A007323
//! (`1, 1, 2, 4, 7, 12, 23, …`), see [`EXPECTED_COUNTS`].
//!
//! [`Semigroup`] uses Fromentin and Hivert's representation by *decomposition numbers*
//! `d(p) = #{(a, b) : a ≤ b, a + b = p, a, b ∈ S}`, one byte each for `p < DECOMP_LEN`:
//! `p ∈ S ⇔ d(p) ≥ 1`, `p > 0` is a minimal generator `⇔ d(p) = 1`, and removing a
//! generator `x` is the branch-free update `d'(p) = d(p) − [d(p − x) ≠ 0]` for `p ≥ x`.
//! [`Semigroup::children`] generates the children lazily in increasing order of the removed
//! generator; [`count_by_genus`] is the plain sequential depth-first reference count.
//!
//! Specification: `shared/specs/numerical-semigroups.md`.
//!
//! ```
//! use magpie_apps::ns::{count_by_genus, validate_genus, Semigroup};
//! let g = validate_genus(10).unwrap();
//! assert_eq!(count_by_genus(g), [1, 1, 2, 4, 7, 12, 23, 39, 67, 118, 204]);
//! let root = Semigroup::root();
//! let kids: Vec<Semigroup> = root.children().collect();
//! assert_eq!(kids.len(), 1);
//! assert_eq!(kids[0].generators(), [2, 3]);
//! ```

use std::fmt;
use std::ops::ControlFlow;

use crate::input::InputError;

mod app;
#[cfg(feature = "rayon")]
mod rayon_peer;
pub use app::{check_known, key, APP};

/// Number of decomposition numbers a [`Semigroup`] stores (`d(0)`, …, `d(DECOMP_LEN − 1)`).
pub const DECOMP_LEN: usize = 128;

/// The largest genus the representation holds.
///
/// Every minimal generator of a genus-`g` semigroup is at most `2g + 1`, so expanding a node
/// of genus `g` needs `d(0..=2g + 1)` exactly: with [`DECOMP_LEN`]` = 128` bytes, nodes of
/// genus up to 63 can be expanded and their children (genus up to 64) are exact. A node of
/// genus `MAX_GENUS` exists but has no [`children`](Semigroup::children) (calling it panics),
/// and [`count_by_genus`] accepts `max_genus ≤ MAX_GENUS`. (Far beyond any feasible run:
/// `n_50 ≈ 1.0e11`.)
pub const MAX_GENUS: usize = 64;

/// `n_0, …, n_50`: the number of numerical semigroups of each genus (OEIS A007323, checked
/// against Hivert's table in the specification).
///
/// ```
/// use magpie_apps::ns::EXPECTED_COUNTS;
/// assert_eq!(EXPECTED_COUNTS[30], 5_646_773);
/// assert_eq!(EXPECTED_COUNTS.len(), 51);
/// ```
pub const EXPECTED_COUNTS: [u64; 51] = [
    1,
    1,
    2,
    4,
    7,
    12,
    23,
    39,
    67,
    118,
    204,
    343,
    592,
    1001,
    1693,
    2857,
    4806,
    8045,
    13467,
    22464,
    37396,
    62194,
    103246,
    170963,
    282828,
    467224,
    770832,
    1270267,
    2091030,
    3437839,
    5646773,
    9266788,
    15195070,
    24896206,
    40761087,
    66687201,
    109032500,
    178158289,
    290939807,
    474851445,
    774614284,
    1262992840,
    2058356522,
    3353191846,
    5460401576,
    8888486816,
    14463633648,
    23527845502,
    38260496374,
    62200036752,
    101090300128,
];

/// Checks a genus parameter (e.g. `--genus`): `0 ..= MAX_GENUS` (64) is accepted and returned
/// as a `usize` for [`count_by_genus`].
///
/// ```
/// use magpie_apps::ns::validate_genus;
/// assert_eq!(validate_genus(30), Ok(30));
/// assert_eq!(validate_genus(64), Ok(64));
/// let e = validate_genus(65).unwrap_err();
/// assert_eq!(
///     e.to_string(),
///     "--genus: genus 65 is out of range 0..=64 (the maximum genus of the \
///      128-byte decomposition-number representation)"
/// );
/// ```
pub fn validate_genus(g: u64) -> Result<usize, InputError> {
    match usize::try_from(g) {
        Ok(g) if g <= MAX_GENUS => Ok(g),
        _ => Err(InputError::file(
            "--genus",
            format!(
                "genus {g} is out of range 0..={MAX_GENUS} (the maximum genus of the \
                 {DECOMP_LEN}-byte decomposition-number representation)"
            ),
        )),
    }
}

/// A numerical semigroup of genus at most [`MAX_GENUS`], as a node of the tree by genus.
///
/// Stores the decomposition numbers `d(0..DECOMP_LEN)` (exact), the conductor, the
/// multiplicity and the genus. Equality compares the semigroups (equal fields ⇔ equal sets).
///
/// ```
/// use magpie_apps::ns::Semigroup;
/// // S_E = <3, 7> = {0, 3, 6, 7, 9, 10} ∪ [12, ∞), the paper's example.
/// let mut s = Semigroup::root();
/// for x in [1, 2, 4, 5, 8, 11] {
///     s = s.child(x).unwrap();
/// }
/// assert_eq!(s.genus(), 6);
/// assert_eq!(s.frobenius(), 11);
/// assert_eq!(s.conductor(), 12);
/// assert_eq!(s.multiplicity(), 3);
/// assert_eq!(s.gaps(), [1, 2, 4, 5, 8, 11]);
/// assert_eq!(s.generators(), [3, 7]);
/// assert_eq!(s.decomposition(14), 2); // 0 + 14 and 7 + 7
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub struct Semigroup {
    /// `d[p]` = number of unordered decompositions `p = a + b` with `a, b ∈ S`.
    #[serde(with = "serde_big_array::BigArray")]
    d: [u8; DECOMP_LEN],
    /// Conductor (first position of the child scan): `F + 1`, and 1 for ℕ (see the spec).
    c: u32,
    /// Multiplicity (smallest non-zero element).
    m: u32,
    /// Genus (number of gaps).
    g: u32,
}

impl Semigroup {
    /// ℕ itself: genus 0, multiplicity 1, conductor 0, Frobenius number −1; the tree's root.
    ///
    /// ```
    /// use magpie_apps::ns::Semigroup;
    /// let n = Semigroup::root();
    /// assert_eq!((n.genus(), n.multiplicity(), n.conductor(), n.frobenius()), (0, 1, 0, -1));
    /// assert_eq!(n.generators(), [1]);
    /// assert_eq!(n.decomposition(7), 4); // 0+7, 1+6, 2+5, 3+4
    /// ```
    pub fn root() -> Self {
        let mut d = [0u8; DECOMP_LEN];
        for (p, v) in d.iter_mut().enumerate() {
            *v = (p / 2 + 1) as u8;
        }
        Semigroup {
            d,
            c: 1,
            m: 1,
            g: 0,
        }
    }

    /// The genus: the number of gaps (elements of ℕ not in the semigroup), = depth in the tree.
    ///
    /// ```
    /// use magpie_apps::ns::Semigroup;
    /// assert_eq!(Semigroup::root().child(1).unwrap().genus(), 1);
    /// ```
    pub fn genus(&self) -> usize {
        self.g as usize
    }

    /// The multiplicity: the smallest non-zero element (1 for ℕ).
    ///
    /// ```
    /// use magpie_apps::ns::Semigroup;
    /// let s = Semigroup::root().child(1).unwrap().child(3).unwrap(); // <2, 5>
    /// assert_eq!(s.multiplicity(), 2);
    /// ```
    pub fn multiplicity(&self) -> usize {
        self.m as usize
    }

    /// The Frobenius number: the largest gap, −1 for ℕ.
    ///
    /// ```
    /// use magpie_apps::ns::Semigroup;
    /// let s = Semigroup::root().child(1).unwrap().child(3).unwrap(); // <2, 5>
    /// assert_eq!(s.frobenius(), 3);
    /// assert_eq!(Semigroup::root().frobenius(), -1);
    /// ```
    pub fn frobenius(&self) -> i64 {
        if self.g == 0 {
            -1
        } else {
            i64::from(self.c) - 1
        }
    }

    /// The conductor `F + 1`: every integer `≥` it is in the semigroup (0 for ℕ).
    ///
    /// ```
    /// use magpie_apps::ns::Semigroup;
    /// let s = Semigroup::root().child(1).unwrap().child(2).unwrap(); // <3, 4, 5>
    /// assert_eq!(s.conductor(), 3);
    /// assert_eq!(Semigroup::root().conductor(), 0);
    /// ```
    pub fn conductor(&self) -> usize {
        if self.g == 0 {
            0
        } else {
            self.c as usize
        }
    }

    /// Whether `p` belongs to the semigroup (exact for every `p`).
    ///
    /// ```
    /// use magpie_apps::ns::Semigroup;
    /// let s = Semigroup::root().child(1).unwrap().child(3).unwrap(); // <2, 5>
    /// let members: Vec<usize> = (0..8).filter(|&p| s.contains(p)).collect();
    /// assert_eq!(members, [0, 2, 4, 5, 6, 7]);
    /// assert!(s.contains(1_000_001));
    /// ```
    pub fn contains(&self, p: usize) -> bool {
        p >= self.c as usize || self.d[p] != 0
    }

    /// The decomposition number `d(p) = #{(a, b) : a ≤ b, a + b = p, a, b ∈ S}` (exact for
    /// every `p`: read from the stored array below [`DECOMP_LEN`], counted beyond).
    ///
    /// ```
    /// use magpie_apps::ns::Semigroup;
    /// let s = Semigroup::root().child(1).unwrap(); // <2, 3>
    /// let d: Vec<usize> = (0..8).map(|p| s.decomposition(p)).collect();
    /// assert_eq!(d, [1, 0, 1, 1, 2, 2, 3, 3]);
    /// assert_eq!(s.decomposition(1000), 500);
    /// ```
    pub fn decomposition(&self, p: usize) -> usize {
        if p < DECOMP_LEN {
            usize::from(self.d[p])
        } else {
            (0..=p / 2)
                .filter(|&a| self.contains(a) && self.contains(p - a))
                .count()
        }
    }

    /// The gaps (elements of ℕ not in the semigroup), increasing; there are `genus()` of them.
    ///
    /// ```
    /// use magpie_apps::ns::Semigroup;
    /// let s = Semigroup::root().child(1).unwrap().child(3).unwrap(); // <2, 5>
    /// assert_eq!(s.gaps(), [1, 3]);
    /// ```
    pub fn gaps(&self) -> Vec<usize> {
        (1..self.c as usize).filter(|&p| self.d[p] == 0).collect()
    }

    /// The minimal generators (irreducible elements), increasing.
    ///
    /// ```
    /// use magpie_apps::ns::Semigroup;
    /// let s = Semigroup::root().child(1).unwrap().child(2).unwrap();
    /// assert_eq!(s.generators(), [3, 4, 5]);
    /// ```
    pub fn generators(&self) -> Vec<usize> {
        // Every generator is below c + m (and c ≥ 1 here, so 0 is never scanned).
        (1..(self.c + self.m) as usize)
            .filter(|&p| self.decomposition(p) == 1)
            .collect()
    }

    /// The child `S \ {x}`, if `x` is a minimal generator with `x ≥ conductor()` (otherwise
    /// `S \ {x}` is not a semigroup or not a child in the tree): `None` otherwise.
    ///
    /// # Panics
    ///
    /// If `genus() == MAX_GENUS` (the child would exceed the representation).
    ///
    /// ```
    /// use magpie_apps::ns::Semigroup;
    /// let s = Semigroup::root().child(1).unwrap(); // <2, 3>
    /// assert_eq!(s.child(3).unwrap().generators(), [2, 5]);
    /// assert!(s.child(4).is_none()); // 4 = 2 + 2 is not a generator
    /// assert!(s.child(1).is_none()); // 1 is a gap
    /// ```
    pub fn child(&self, x: usize) -> Option<Semigroup> {
        self.assert_expandable();
        (x >= self.c as usize && x < DECOMP_LEN && self.d[x] == 1).then(|| self.remove_generator(x))
    }

    /// The number of children (what [`children`](Self::children) yields), without building
    /// them.
    ///
    /// # Panics
    ///
    /// If `genus() == MAX_GENUS`.
    ///
    /// ```
    /// use magpie_apps::ns::Semigroup;
    /// let s = Semigroup::root().child(1).unwrap(); // <2, 3>
    /// assert_eq!(s.num_children(), 2);
    /// ```
    pub fn num_children(&self) -> usize {
        self.assert_expandable();
        self.child_mask().count_ones() as usize
    }

    /// The children in the tree by genus, lazily, in increasing order of the removed
    /// generator `x` (= the child's Frobenius number): `S \ {x}` for every minimal generator
    /// `x > F(S)`. Each has genus `genus() + 1`.
    ///
    /// # Panics
    ///
    /// If `genus() == MAX_GENUS`.
    ///
    /// ```
    /// use magpie_apps::ns::Semigroup;
    /// let s = Semigroup::root().child(1).unwrap(); // <2, 3>
    /// let kids: Vec<Vec<usize>> = s.children().map(|c| c.generators()).collect();
    /// assert_eq!(kids, [vec![3, 4, 5], vec![2, 5]]);
    /// let grandkids: Vec<i64> = s.children().flat_map(|c| {
    ///     c.children().map(|k| k.frobenius()).collect::<Vec<_>>()
    /// }).collect();
    /// assert_eq!(grandkids, [3, 4, 5, 5]); // <4,5,6,7>, <3,5,7>, <3,4>, <2,7>
    /// ```
    #[inline(always)]
    pub fn children(&self) -> Children {
        self.assert_expandable();
        Children::of(self, self.child_mask())
    }

    /// Calls `f` on this semigroup and every descendant of genus at most `max_genus`, depth
    /// first, parents before their children (a whole small tree, for checks over it).
    ///
    /// ```
    /// use magpie_apps::ns::{Semigroup, EXPECTED_COUNTS};
    /// let mut nodes = 0;
    /// Semigroup::root().each_up_to_genus(5, &mut |_| nodes += 1);
    /// assert_eq!(nodes, EXPECTED_COUNTS[..=5].iter().sum::<u64>());
    /// ```
    pub fn each_up_to_genus(&self, max_genus: usize, f: &mut impl FnMut(&Semigroup)) {
        f(self);
        if self.genus() < max_genus {
            for c in self.children() {
                c.each_up_to_genus(max_genus, f);
            }
        }
    }

    #[inline]
    fn assert_expandable(&self) {
        assert!(
            (self.g as usize) < MAX_GENUS,
            "numerical semigroup of genus {} has no children in the representation \
             (maximum genus {MAX_GENUS})",
            self.g
        );
    }

    /// Bit `p` set iff `p` is in `[c, c + m)` and `d[p] == 1`, i.e. `S \ {p}` is a child.
    /// Requires `g < MAX_GENUS` (then every such `p` is `≤ 2g + 1 < DECOMP_LEN`).
    #[inline]
    fn child_mask(&self) -> u128 {
        let lo = self.c as usize;
        let hi = ((self.c + self.m) as usize).min(DECOMP_LEN);
        if lo >= hi {
            return 0;
        }
        const ONES: u64 = 0x0101_0101_0101_0101;
        const LOW7: u64 = 0x7f7f_7f7f_7f7f_7f7f;
        const HIGH: u64 = 0x8080_8080_8080_8080;
        let mut mask = 0u128;
        for w in lo / 8..=(hi - 1) / 8 {
            let word = u64::from_le_bytes(self.d[8 * w..8 * w + 8].try_into().unwrap());
            // Bytes equal to 1 become zero bytes; exact zero-byte test (bit 7 of each byte).
            let v = word ^ ONES;
            let zero = !(((v & LOW7).wrapping_add(LOW7)) | v) & HIGH;
            // Gather bit 7 of byte k into bit k of the top byte.
            let bits = (zero >> 7).wrapping_mul(0x0102_0408_1020_4080) >> 56;
            mask |= u128::from(bits) << (8 * w);
        }
        let keep_hi = if hi == DECOMP_LEN {
            u128::MAX
        } else {
            (1u128 << hi) - 1
        };
        mask & keep_hi & !((1u128 << lo) - 1)
    }

    /// `S \ {x}` for a generator `x ≥ c` (the spec's `remove_generator`).
    #[inline]
    fn remove_generator(&self, x: usize) -> Semigroup {
        remove_generator(&self.d, self.m, self.g, x)
    }
}

/// The semigroup with decomposition table `d`, multiplicity `m` and genus `g`, less its
/// generator `x`.
#[inline(always)]
fn remove_generator(d0: &[u8; DECOMP_LEN], m: u32, g: u32, x: usize) -> Semigroup {
    let mut d = *d0;
    for (dst, &src) in d[x..].iter_mut().zip(&d0[..DECOMP_LEN - x]) {
        *dst -= u8::from(src != 0);
    }
    let x32 = x as u32;
    Semigroup {
        d,
        c: x32 + 1,
        m: if x32 == m { x32 + 1 } else { m },
        g: g + 1,
    }
}

impl fmt::Debug for Semigroup {
    /// `Semigroup <g1, g2, …> (genus g, frobenius F, multiplicity m)`.
    ///
    /// ```
    /// use magpie_apps::ns::Semigroup;
    /// let s = Semigroup::root().child(1).unwrap();
    /// assert_eq!(format!("{s:?}"), "Semigroup <2, 3> (genus 1, frobenius 1, multiplicity 2)");
    /// ```
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let gens: Vec<String> = self.generators().iter().map(|x| x.to_string()).collect();
        write!(
            f,
            "Semigroup <{}> (genus {}, frobenius {}, multiplicity {})",
            gens.join(", "),
            self.genus(),
            self.frobenius(),
            self.multiplicity()
        )
    }
}

/// The lazy iterator over a node's children, from [`Semigroup::children`]: builds each child
/// only when asked for it. It keeps its own copy of the parent, so it borrows nothing.
#[derive(Clone, Debug)]
pub struct Children {
    /// The parent and the removed generators still to yield; `None` for a leaf (so that a
    /// leaf's empty generator copies no semigroup).
    next: Option<Parent>,
}

/// A copy of the parent, field by field: the 128-byte table is copied inline rather than by
/// a call to `memcpy` (which a 140-byte `Semigroup` copy costs).
#[derive(Clone, Debug)]
struct Parent {
    d: [u8; DECOMP_LEN],
    m: u32,
    g: u32,
    /// Removed generators still to yield (bit `x`).
    mask: u128,
}

impl Children {
    #[inline(always)]
    fn of(s: &Semigroup, mask: u128) -> Children {
        if mask == 0 {
            Children { next: None }
        } else {
            Children {
                next: Some(Parent {
                    d: s.d,
                    m: s.m,
                    g: s.g,
                    mask,
                }),
            }
        }
    }
}

impl Iterator for Children {
    type Item = Semigroup;

    #[inline]
    fn next(&mut self) -> Option<Semigroup> {
        let p = self.next.as_mut()?;
        if p.mask == 0 {
            return None;
        }
        let x = p.mask.trailing_zeros() as usize;
        p.mask &= p.mask - 1;
        Some(remove_generator(&p.d, p.m, p.g, x))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self
            .next
            .as_ref()
            .map_or(0, |p| p.mask.count_ones() as usize);
        (n, Some(n))
    }
}

impl ExactSizeIterator for Children {}

impl std::iter::FusedIterator for Children {}

/// The tree of numerical semigroups by genus down to genus `max_genus`, for
/// [`magpie::search`]: the root is ℕ, a node's children are [`Semigroup::children`], and a
/// node of genus `max_genus` is a leaf. With [`magpie::search::CountPerDepth`], entry `h` of
/// the result is `n_h` (a node's depth is its genus).
///
/// ```
/// use magpie::search::{enumerate, CountPerDepth, Options, Skeleton};
/// let tree = magpie_apps::ns::Tree::new(7).unwrap();
/// let counts = enumerate(&tree, &CountPerDepth, Skeleton::Sequential, &Options::default()).value;
/// assert_eq!(counts, [1, 1, 2, 4, 7, 12, 23, 39]);
/// assert!(magpie_apps::ns::Tree::new(65).is_err());
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Tree {
    max_genus: usize,
}

impl Tree {
    /// The tree down to genus `max_genus` (at most [`MAX_GENUS`]).
    pub fn new(max_genus: u64) -> Result<Tree, InputError> {
        Ok(Tree {
            max_genus: validate_genus(max_genus)?,
        })
    }

    /// The deepest genus searched.
    pub fn max_genus(&self) -> usize {
        self.max_genus
    }
}

impl magpie::search::SearchSpace for Tree {
    type Node = Semigroup;
    type Children<'a> = Children;

    fn root(&self) -> Semigroup {
        Semigroup::root()
    }

    #[inline(always)]
    fn children(&self, node: &Semigroup) -> Children {
        if node.genus() < self.max_genus {
            node.children()
        } else {
            // A leaf: an empty generator, without expanding (genus MAX_GENUS cannot be).
            Children { next: None }
        }
    }

    /// The same children as [`children`](magpie::search::SearchSpace::children), each built in a local (as
    /// [`count_by_genus`] does), with no copy of the parent.
    #[inline]
    fn for_each_child<F>(&self, node: &Semigroup, mut visit: F) -> ControlFlow<()>
    where
        F: FnMut(&Semigroup) -> ControlFlow<()>,
    {
        if node.genus() < self.max_genus {
            node.assert_expandable();
            let mut mask = node.child_mask();
            while mask != 0 {
                let x = mask.trailing_zeros() as usize;
                mask &= mask - 1;
                visit(&node.remove_generator(x))?;
            }
        }
        ControlFlow::Continue(())
    }
}

/// Counts the numerical semigroups of each genus `0..=max_genus` (`n_0, …, n_max_genus`) by a
/// plain sequential recursive depth-first walk of the tree, building every node with
/// [`Semigroup::children`] (no last-level shortcut): the reference the parallel skeletons
/// are checked and timed against. Visits `Σ n_h` nodes (14,396,338 for genus 30).
///
/// # Panics
///
/// If `max_genus > MAX_GENUS` (use [`validate_genus`] on user input).
///
/// ```
/// use magpie_apps::ns::count_by_genus;
/// assert_eq!(count_by_genus(0), [1]);
/// assert_eq!(count_by_genus(12)[12], 592);
/// ```
pub fn count_by_genus(max_genus: usize) -> Vec<u64> {
    assert!(
        max_genus <= MAX_GENUS,
        "count_by_genus({max_genus}): the maximum genus is {MAX_GENUS}"
    );
    count_from(&Semigroup::root(), max_genus)
}

/// [`count_by_genus`]'s walk from `node` instead of the root: entry `h` of the result
/// (length `max_genus + 1`) is the number of semigroups of genus `h` in `node`'s subtree,
/// `node` included (entries below `node.genus()` are 0). For parallel searches that split
/// the tree above some genus and count the subtrees below sequentially.
///
/// # Panics
///
/// If `max_genus > MAX_GENUS`.
///
/// ```
/// use magpie_apps::ns::{count_by_genus, count_from, Semigroup};
/// let root = Semigroup::root();
/// assert_eq!(count_from(&root, 12), count_by_genus(12));
/// // The tree below <2, 3> is the whole tree but the root.
/// let sub = count_from(&root.child(1).unwrap(), 12);
/// assert_eq!(sub[0], 0);
/// assert_eq!(sub[1..], count_by_genus(12)[1..]);
/// // A node deeper than max_genus counts nothing.
/// assert_eq!(count_from(&root.child(1).unwrap(), 0), [0]);
/// ```
pub fn count_from(node: &Semigroup, max_genus: usize) -> Vec<u64> {
    assert!(
        max_genus <= MAX_GENUS,
        "count_from(.., {max_genus}): the maximum genus is {MAX_GENUS}"
    );
    fn walk(s: &Semigroup, max_genus: usize, counts: &mut [u64]) {
        counts[s.genus()] += 1;
        if s.genus() < max_genus {
            for child in s.children() {
                walk(&child, max_genus, counts);
            }
        }
    }
    let mut counts = vec![0; max_genus + 1];
    if node.genus() <= max_genus {
        walk(node, max_genus, &mut counts);
    }
    counts
}

/// [`count_by_genus`] with Hivert's last-level shortcut: nodes of genus `max_genus − 1` add
/// their [`num_children`](Semigroup::num_children) instead of building the children. Same
/// result, roughly 2.5× less node construction.
///
/// # Panics
///
/// If `max_genus > MAX_GENUS`.
///
/// ```
/// use magpie_apps::ns::{count_by_genus, count_by_genus_shortcut};
/// assert_eq!(count_by_genus_shortcut(15), count_by_genus(15));
/// assert_eq!(count_by_genus_shortcut(15)[15], 2857);
/// ```
pub fn count_by_genus_shortcut(max_genus: usize) -> Vec<u64> {
    assert!(
        max_genus <= MAX_GENUS,
        "count_by_genus_shortcut({max_genus}): the maximum genus is {MAX_GENUS}"
    );
    fn walk(s: &Semigroup, max_genus: usize, counts: &mut [u64]) {
        let g = s.genus();
        counts[g] += 1;
        if g + 1 == max_genus {
            counts[max_genus] += s.num_children() as u64;
        } else if g < max_genus {
            for child in s.children() {
                walk(&child, max_genus, counts);
            }
        }
    }
    let mut counts = vec![0; max_genus + 1];
    walk(&Semigroup::root(), max_genus, &mut counts);
    counts
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Naive child positions, straight from the definition.
    fn naive_children(s: &Semigroup) -> Vec<usize> {
        (s.c as usize..(s.c + s.m) as usize)
            .filter(|&x| x < DECOMP_LEN && s.d[x] == 1)
            .collect()
    }

    #[test]
    fn swar_mask_matches_naive_scan() {
        let mut nodes = 0;
        Semigroup::root().each_up_to_genus(14, &mut |s| {
            let got: Vec<usize> = s.children().map(|c| c.frobenius() as usize).collect();
            assert_eq!(got, naive_children(s), "{s:?}");
            assert_eq!(s.num_children(), got.len());
            nodes += 1;
        });
        assert_eq!(nodes, EXPECTED_COUNTS[..=14].iter().sum::<u64>());
    }

    #[test]
    fn decomposition_numbers_match_definition() {
        Semigroup::root().each_up_to_genus(9, &mut |s| {
            for p in 0..DECOMP_LEN {
                let want = (0..=p / 2)
                    .filter(|&a| s.contains(a) && s.contains(p - a))
                    .count();
                assert_eq!(usize::from(s.d[p]), want, "d({p}) of {s:?}");
            }
        });
    }

    #[test]
    fn root_fields() {
        let r = Semigroup::root();
        assert_eq!((r.c, r.m, r.g), (1, 1, 0));
        assert_eq!(&r.d[..8], &[1, 1, 2, 2, 3, 3, 4, 4]);
        assert_eq!(r.d[DECOMP_LEN - 1], 64);
    }

    #[test]
    fn ordinary_semigroup_multiplicity_update() {
        // Removing the multiplicity from the ordinary semigroup {0} ∪ [m, ∞).
        let mut s = Semigroup::root();
        for x in 1..=10 {
            s = s.child(x).unwrap();
            assert_eq!(s.multiplicity(), x + 1);
            assert_eq!(s.conductor(), x + 1);
            assert_eq!(s.generators(), ((x + 1)..=(2 * x + 1)).collect::<Vec<_>>());
        }
    }
}
