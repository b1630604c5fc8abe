//! UTS, the Unbalanced Tree Search benchmark (Olivier et al., LCPC 2006): the domain layer,
//! bit-exact with the reference UTS 2.1 as restated in `shared/specs/uts.md`.
//!
//! A UTS tree is implicit. Every [`Node`] carries a 20-byte SHA-1 state; the state alone decides
//! how many children the node has ([`Params::num_children`]) and what their states are
//! ([`rng_spawn`]). Nothing is stored, so every traversal order (sequential, parallel,
//! work-stealing) sees the same tree, and [`count`] — a plain sequential depth-first search —
//! is the reference for all of them.
//!
//! ```
//! use magpie_apps::uts::{count, Counts, Params};
//! // The reference's default tree: geometric, linear shape, depth 6, b0 = 4, seed 0.
//! let p = Params::named("default").unwrap();
//! assert_eq!(count(&p), Counts { nodes: 1_732, leaves: 1_050, max_depth: 6 });
//! ```
//!
//! Parameters use the reference's flags and numbering (section 3 of the spec), e.g.
//! [`Params::from_flags`]`("-t 1 -a 3 -d 10 -b 4 -r 19")` is T1. The shape function numbering
//! is the reference's (0 linear, 1 expdec, 2 cyclic, 3 fixed); YewPar numbers them differently
//! (0 linear, 1 cyclic, 2 fixed, 3 expdec), so YewPar's `--uts-a 2` is our [`Shape::Fixed`].
//!
//! Deviation, only for degenerate parameters the reference leaves undefined: a child count that
//! comes out negative (or NaN) — possible only with an infinite target branching factor, e.g.
//! EXPDEC with `gen_mx = 1` and `b0 < 1` — counts as 0 children here.

use crate::input::InputError;
use std::ops::ControlFlow;

use sha1::{Digest, Sha1};
use std::fmt;
use std::iter::FusedIterator;

mod app;
#[cfg(feature = "rayon")]
mod rayon_peer;
pub use app::{check_published, key, APP};

/// The most children a non-BIN-root node may have (the reference's `MAXNUMCHILDREN`).
pub const MAX_NUM_CHILDREN: u32 = 100;

/// The tree type (the reference's `-t`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TreeType {
    /// `-t 0`: the root has `floor(b0)` children; every other node has `m` children with
    /// probability `q`, else none.
    Binomial,
    /// `-t 1`: geometrically distributed child counts whose mean depends on the height
    /// through the [`Shape`] function.
    Geometric,
    /// `-t 2`: geometric above `shift_depth * gen_mx`, binomial from there down.
    Hybrid,
    /// `-t 3`: every node above height `gen_mx` has exactly `(int) b0` children.
    Balanced,
}

impl TreeType {
    /// The reference's number for this type (`-t`).
    ///
    /// ```
    /// use magpie_apps::uts::TreeType;
    /// assert_eq!(TreeType::Hybrid.code(), 2);
    /// ```
    pub fn code(self) -> i32 {
        match self {
            TreeType::Binomial => 0,
            TreeType::Geometric => 1,
            TreeType::Hybrid => 2,
            TreeType::Balanced => 3,
        }
    }

    /// The type with reference number `code` (`-t`), if any.
    ///
    /// ```
    /// use magpie_apps::uts::TreeType;
    /// assert_eq!(TreeType::from_code(0), Some(TreeType::Binomial));
    /// assert_eq!(TreeType::from_code(4), None);
    /// ```
    pub fn from_code(code: i32) -> Option<TreeType> {
        Some(match code {
            0 => TreeType::Binomial,
            1 => TreeType::Geometric,
            2 => TreeType::Hybrid,
            3 => TreeType::Balanced,
            _ => return None,
        })
    }
}

/// The shape function of geometric trees (the reference's `-a`, with its numbering).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Shape {
    /// `-a 0`: `b_h = b0 * (1 - h / gen_mx)`.
    Linear,
    /// `-a 1`: `b_h = b0 * h^(-ln(b0) / ln(gen_mx))`.
    ExpDec,
    /// `-a 2`: `b_h = b0^sin(2 pi h / gen_mx)`, and 0 beyond height `5 * gen_mx`.
    Cyclic,
    /// `-a 3`: `b_h = b0` below height `gen_mx`, else 0.
    Fixed,
}

impl Shape {
    /// The reference's number for this shape (`-a`).
    ///
    /// ```
    /// use magpie_apps::uts::Shape;
    /// assert_eq!(Shape::Fixed.code(), 3);
    /// ```
    pub fn code(self) -> i32 {
        match self {
            Shape::Linear => 0,
            Shape::ExpDec => 1,
            Shape::Cyclic => 2,
            Shape::Fixed => 3,
        }
    }

    /// The shape with reference number `code` (`-a`), if any.
    ///
    /// ```
    /// use magpie_apps::uts::Shape;
    /// assert_eq!(Shape::from_code(2), Some(Shape::Cyclic));
    /// assert_eq!(Shape::from_code(-1), None);
    /// ```
    pub fn from_code(code: i32) -> Option<Shape> {
        Some(match code {
            0 => Shape::Linear,
            1 => Shape::ExpDec,
            2 => Shape::Cyclic,
            3 => Shape::Fixed,
            _ => return None,
        })
    }
}

// ---------------------------------------------------------------------------------------------
// RNG: SHA-1 (the `sha1` crate, which uses the CPU's SHA extensions where it has them; a
// hand-written single-block SHA-1 measured 3.6 times slower on the SHA-NI development machine).

/// The root state for seed `seed` (the reference's `rng_init`): SHA-1 of 16 zero bytes
/// followed by `seed` as 4 big-endian bytes (two's complement if negative).
///
/// ```
/// use magpie_apps::uts::{rng_init, rng_rand};
/// let s = rng_init(0);
/// assert_eq!(s[..4], [0x67, 0x68, 0x03, 0x3e]);
/// assert_eq!(rng_rand(&s), 2_038_534_031);
/// ```
pub fn rng_init(seed: i32) -> [u8; 20] {
    let mut msg = [0u8; 20];
    msg[16..].copy_from_slice(&seed.to_be_bytes());
    Sha1::digest(msg).into()
}

/// The state of child `i` (0-based) of a node with state `parent` (the reference's
/// `rng_spawn`): SHA-1 of the 20 parent bytes followed by `i` as 4 big-endian bytes.
///
/// ```
/// use magpie_apps::uts::{rng_init, rng_rand, rng_spawn};
/// let child1 = rng_spawn(&rng_init(0), 1);
/// assert_eq!(child1[..4], [0x5f, 0x9c, 0xe3, 0x97]);
/// assert_eq!(rng_rand(&child1), 17_294_612);
/// ```
#[inline]
pub fn rng_spawn(parent: &[u8; 20], i: i32) -> [u8; 20] {
    let mut msg = [0u8; 24];
    msg[..20].copy_from_slice(parent);
    msg[20..].copy_from_slice(&i.to_be_bytes());
    Sha1::digest(msg).into()
}

/// The node's random number (the reference's `rng_rand`): the last four state bytes read
/// big-endian, top bit cleared; in `0..2^31`.
///
/// ```
/// use magpie_apps::uts::rng_rand;
/// let mut s = [0xffu8; 20];
/// s[16..].copy_from_slice(&[0x80, 0x00, 0x01, 0x02]);
/// assert_eq!(rng_rand(&s), 0x0000_0102);
/// ```
pub fn rng_rand(state: &[u8; 20]) -> u32 {
    u32::from_be_bytes([state[16], state[17], state[18], state[19]]) & 0x7fff_ffff
}

/// `r / 2^31` as `f64` (the reference's `rng_toProb`); exact, in `[0, 1)`.
///
/// ```
/// use magpie_apps::uts::rng_to_prob;
/// assert_eq!(rng_to_prob(2_038_534_031), 0.9492663810960948);
/// assert_eq!(rng_to_prob(1 << 30), 0.5);
/// ```
pub fn rng_to_prob(r: u32) -> f64 {
    f64::from(r) / 2_147_483_648.0
}

// ---------------------------------------------------------------------------------------------
// Nodes.

/// A tree node: its 20-byte SHA-1 state and its height (the root has height 0).
///
/// The node's tree type is not stored: it only matters for the root (the spec's section 4.6),
/// and [`Params`] knows the root's type.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub struct Node {
    /// The SHA-1 state (a digest).
    pub state: [u8; 20],
    /// The depth in the tree; the root has height 0.
    pub height: u32,
}

impl Node {
    /// The node's random number, [`rng_rand`] of its state.
    ///
    /// ```
    /// use magpie_apps::uts::Params;
    /// let t1 = Params::named("T1").unwrap();
    /// assert_eq!(t1.root().rand(), 1_518_729_323);
    /// ```
    pub fn rand(&self) -> u32 {
        rng_rand(&self.state)
    }
}

/// The children of a node, generated lazily in order 0, 1, … (see [`Params::children`]).
///
/// Owns a copy of the parent's state, so it borrows nothing.
#[derive(Debug, Clone)]
pub struct Children {
    parent: [u8; 20],
    height: u32,
    next: u32,
    end: u32,
    granularity: u32,
}

/// The state of child `i` of a node in state `parent`, computed `granularity` times (the
/// reference's compute granularity: the same spawn redone, overwriting; `black_box` keeps
/// the work).
#[inline]
fn spawn(parent: &[u8; 20], i: u32, granularity: u32) -> [u8; 20] {
    let mut state = rng_spawn(parent, i as i32);
    for _ in 1..granularity {
        state = rng_spawn(std::hint::black_box(parent), i as i32);
    }
    state
}

impl Iterator for Children {
    type Item = Node;

    #[inline]
    fn next(&mut self) -> Option<Node> {
        if self.next >= self.end {
            return None;
        }
        let i = self.next;
        self.next += 1;
        Some(Node {
            state: spawn(&self.parent, i, self.granularity),
            height: self.height + 1,
        })
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = (self.end - self.next) as usize;
        (n, Some(n))
    }
}

impl ExactSizeIterator for Children {}
impl FusedIterator for Children {}

// ---------------------------------------------------------------------------------------------
// Parameters.

/// The parameters of a UTS tree (the reference's flags; see [`ParamsBuilder`] for defaults and
/// ranges). Build with [`Params::named`], [`Params::from_flags`] or [`Params::builder`].
#[derive(Debug, Clone, PartialEq)]
pub struct Params {
    /// The parameters as built, checked (`granularity` at least 1).
    flags: ParamsBuilder,
    /// `ln(1 - p)` of the geometric rule for heights `0..len` (same values as computed on the
    /// fly; the spec allows this precomputation).
    geo_ln_1mp: Vec<f64>,
}

/// Heights for which [`Params`] tabulates the geometric rule; beyond, it computes on the fly.
const GEO_TABLE_MAX: usize = 4096;

/// Builder for [`Params`]; [`Params::builder`] starts from the reference's defaults
/// (`-t 1 -a 0 -d 6 -b 4 -r 0 -q 0.234375 -m 4 -f 0.5 -g 1`).
///
/// ```
/// use magpie_apps::uts::{count, Params, Shape, TreeType};
/// let p = Params::builder()
///     .tree_type(TreeType::Geometric)
///     .shape(Shape::Fixed)
///     .gen_mx(10)
///     .b0(4.0)
///     .seed(19)
///     .build()
///     .unwrap();
/// assert_eq!(p, Params::named("T1").unwrap());
///
/// let err = Params::builder().q(1.5).build().unwrap_err();
/// assert_eq!(err.to_string(), "q (-q): 1.5 is out of range: must be in [0, 1]");
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct ParamsBuilder {
    tree_type: TreeType,
    shape: Shape,
    b0: f64,
    gen_mx: i32,
    q: f64,
    m: i32,
    seed: i32,
    shift_depth: f64,
    granularity: i32,
}

impl Default for ParamsBuilder {
    fn default() -> Self {
        ParamsBuilder {
            tree_type: TreeType::Geometric,
            shape: Shape::Linear,
            b0: 4.0,
            gen_mx: 6,
            q: 0.234375,
            m: 4,
            seed: 0,
            shift_depth: 0.5,
            granularity: 1,
        }
    }
}

/// The setters of [`ParamsBuilder`] and the getters of [`Params`], from one list of the
/// parameters: each entry is the setter's documentation, the field and its type, and the
/// getter's documentation.
macro_rules! parameters {
    ($($(#[doc = $set:literal])* $name:ident: $ty:ty, get $get:literal;)*) => {
        impl ParamsBuilder {
            $(
                $(#[doc = $set])*
                pub fn $name(mut self, value: $ty) -> Self {
                    self.$name = value;
                    self
                }
            )*
        }

        impl Params {
            $(
                #[doc = $get]
                pub fn $name(&self) -> $ty {
                    self.flags.$name
                }
            )*
        }
    };
}

parameters! {
    /// Tree type (`-t`; default [`TreeType::Geometric`]).
    tree_type: TreeType, get "The tree type (`-t`).";
    /// Shape function of geometric (and hybrid) trees (`-a`; default [`Shape::Linear`]).
    shape: Shape, get "The shape function (`-a`).";
    /// `b0` (`-b`, default 4): the BIN root's child count `floor(b0)`, the geometric root's
    /// expected branching factor and the shape functions' base, the BALANCED branching
    /// `(int) b0`. Must be finite and in `[0, 2^31)`.
    b0: f64, get "`b0` (`-b`).";
    /// `gen_mx` (`-d`, default 6): the depth parameter of geometric and balanced trees.
    /// Must be at least 1.
    gen_mx: i32, get "`gen_mx` (`-d`).";
    /// `q` (`-q`, default 0.234375): probability that a non-root BIN node has children.
    /// Must be in `[0, 1]`.
    q: f64, get "`q` (`-q`).";
    /// `m` (`-m`, default 4): child count of an internal non-root BIN node. Must be at least 0
    /// (counts above [`MAX_NUM_CHILDREN`] are capped like the reference's).
    m: i32, get "`m` (`-m`).";
    /// Root seed (`-r`, default 0); any `i32` (negative seeds hash their two's complement).
    seed: i32, get "The root seed (`-r`).";
    /// `shiftDepth` (`-f`, default 0.5): the fraction of `gen_mx` at which a hybrid tree
    /// switches from geometric to binomial. Must be in `[0, 1]`.
    shift_depth: f64, get "`shiftDepth` (`-f`).";
    /// Compute granularity (`-g`, default 1): every spawn is computed this many times. It
    /// only adds work; the tree is the same. Values below 1 mean 1, as in the reference.
    granularity: i32, get "The compute granularity (`-g`, at least 1).";
}

impl ParamsBuilder {
    /// Checks the ranges and builds the parameters.
    ///
    /// # Errors
    ///
    /// An [`InputError`] whose path names the offending parameter (e.g. `b0 (-b)`), if a value
    /// is out of range.
    pub fn build(self) -> Result<Params, InputError> {
        let bad = |name: &str, value: &dyn fmt::Display, range: &str| {
            Err(InputError::file(
                name,
                format!("{value} is out of range: must be {range}"),
            ))
        };
        if !(self.b0.is_finite() && self.b0 >= 0.0 && self.b0 < 2_147_483_648.0) {
            return bad("b0 (-b)", &self.b0, "finite and in [0, 2^31)");
        }
        if self.gen_mx < 1 {
            return bad("gen_mx (-d)", &self.gen_mx, "at least 1");
        }
        if !(0.0..=1.0).contains(&self.q) {
            return bad("q (-q)", &self.q, "in [0, 1]");
        }
        if self.m < 0 {
            return bad("m (-m)", &self.m, "at least 0");
        }
        if !(0.0..=1.0).contains(&self.shift_depth) {
            return bad("shift_depth (-f)", &self.shift_depth, "in [0, 1]");
        }
        let mut p = Params {
            flags: ParamsBuilder {
                granularity: self.granularity.max(1),
                ..self
            },
            geo_ln_1mp: Vec::new(),
        };
        if matches!(p.flags.tree_type, TreeType::Geometric | TreeType::Hybrid) {
            let heights = match p.flags.shape {
                Shape::Linear | Shape::Fixed => p.flags.gen_mx as usize + 1,
                Shape::Cyclic => 5 * p.flags.gen_mx as usize + 2,
                Shape::ExpDec => GEO_TABLE_MAX,
            }
            .min(GEO_TABLE_MAX);
            p.geo_ln_1mp = (0..heights as u32).map(|h| p.geo_ln_1mp_at(h)).collect();
        }
        Ok(p)
    }
}

mod named;
pub use named::{NamedTree, NAMED_TREES};

impl Params {
    /// A builder starting from the reference's defaults (see [`ParamsBuilder`]).
    pub fn builder() -> ParamsBuilder {
        ParamsBuilder::default()
    }

    /// The named tree `name` of the spec (ASCII case-insensitive; see [`NAMED_TREES`]).
    ///
    /// # Errors
    ///
    /// For an unknown name, an [`InputError`] listing the known names.
    ///
    /// ```
    /// use magpie_apps::uts::{Params, Shape, TreeType};
    /// let t1 = Params::named("T1").unwrap();
    /// assert_eq!((t1.tree_type(), t1.shape(), t1.gen_mx(), t1.b0(), t1.seed()),
    ///            (TreeType::Geometric, Shape::Fixed, 10, 4.0, 19));
    /// let err = Params::named("T9").unwrap_err();
    /// assert!(err.to_string().starts_with("uts tree name: unknown tree \"T9\"; known: default, T1, T5,"));
    /// ```
    pub fn named(name: &str) -> Result<Params, InputError> {
        match NamedTree::find(name) {
            Some(t) => Ok(t.params()),
            None => {
                let known: Vec<&str> = NAMED_TREES.iter().map(|t| t.name).collect();
                Err(InputError::file(
                    "uts tree name",
                    format!("unknown tree {name:?}; known: {}", known.join(", ")),
                ))
            }
        }
    }

    /// Parameters from the reference's command-line flags, whitespace-separated: `-t -b -r -a
    /// -d -q -m -f -g`, each followed by its value; unspecified ones keep their defaults and a
    /// repeated flag takes its last value. Integers must be plain decimal `i32`s and
    /// reals decimal `f64`s (stricter than the reference's `atoi`/`atof`).
    ///
    /// # Errors
    ///
    /// An [`InputError`] naming the flag for an unknown flag, a missing or unparsable value,
    /// an unknown tree type or shape, or a value out of range (see [`ParamsBuilder`]).
    ///
    /// ```
    /// use magpie_apps::uts::{count, Counts, Params};
    /// let p = Params::from_flags("-t 0 -b 4 -r 0").unwrap();
    /// assert_eq!(count(&p), Counts { nodes: 25, leaves: 19, max_depth: 4 });
    /// let err = Params::from_flags("-t 7").unwrap_err();
    /// assert_eq!(err.to_string(), "tree type (-t): 7 is not a tree type (0 BIN, 1 GEO, 2 HYBRID, 3 BALANCED)");
    /// ```
    pub fn from_flags(flags: &str) -> Result<Params, InputError> {
        let mut b = Params::builder();
        let mut tokens = flags.split_whitespace();
        while let Some(flag) = tokens.next() {
            let name = match flag {
                "-t" => "tree type (-t)",
                "-b" => "b0 (-b)",
                "-r" => "seed (-r)",
                "-a" => "shape (-a)",
                "-d" => "gen_mx (-d)",
                "-q" => "q (-q)",
                "-m" => "m (-m)",
                "-f" => "shift_depth (-f)",
                "-g" => "granularity (-g)",
                _ => {
                    return Err(InputError::file(
                        "uts flags",
                        format!("unknown flag {flag:?} (known: -t -b -r -a -d -q -m -f -g)"),
                    ))
                }
            };
            let value = tokens
                .next()
                .ok_or_else(|| InputError::file(name, "missing value"))?;
            let int = || {
                value
                    .parse::<i32>()
                    .map_err(|_| InputError::file(name, format!("{value:?} is not an integer")))
            };
            let real = || {
                value
                    .parse::<f64>()
                    .map_err(|_| InputError::file(name, format!("{value:?} is not a number")))
            };
            let not_a =
                |code: i32, what: &str| InputError::file(name, format!("{code} is not a {what}"));
            b = match flag {
                "-t" => {
                    let code = int()?;
                    let what = "tree type (0 BIN, 1 GEO, 2 HYBRID, 3 BALANCED)";
                    b.tree_type(TreeType::from_code(code).ok_or_else(|| not_a(code, what))?)
                }
                "-a" => {
                    let code = int()?;
                    let what = "shape (0 LINEAR, 1 EXPDEC, 2 CYCLIC, 3 FIXED)";
                    b.shape(Shape::from_code(code).ok_or_else(|| not_a(code, what))?)
                }
                "-b" => b.b0(real()?),
                "-r" => b.seed(int()?),
                "-d" => b.gen_mx(int()?),
                "-q" => b.q(real()?),
                "-m" => b.m(int()?),
                "-f" => b.shift_depth(real()?),
                _ => b.granularity(int()?),
            };
        }
        b.build()
    }

    /// The root: state [`rng_init`]`(seed)`, height 0.
    ///
    /// ```
    /// use magpie_apps::uts::Params;
    /// let root = Params::named("T1").unwrap().root();
    /// assert_eq!((root.height, root.state[..4].to_vec()), (0, vec![0xc6, 0x98, 0x8a, 0xb7]));
    /// ```
    pub fn root(&self) -> Node {
        Node {
            state: rng_init(self.flags.seed),
            height: 0,
        }
    }

    /// The target branching factor `b_h` of the geometric rule at height `h`.
    fn geo_bh(&self, h: u32) -> f64 {
        if h == 0 {
            return self.flags.b0;
        }
        let hf = f64::from(h);
        let d = f64::from(self.flags.gen_mx);
        match self.flags.shape {
            Shape::Linear => self.flags.b0 * (1.0 - hf / d),
            Shape::ExpDec => self.flags.b0 * hf.powf(-self.flags.b0.ln() / d.ln()),
            Shape::Cyclic => {
                if i64::from(h) > 5 * i64::from(self.flags.gen_mx) {
                    0.0
                } else {
                    #[allow(clippy::approx_constant)]
                    let pi = 3.141592653589793_f64;
                    self.flags.b0.powf((2.0 * pi * hf / d).sin())
                }
            }
            Shape::Fixed => {
                if i64::from(h) < i64::from(self.flags.gen_mx) {
                    self.flags.b0
                } else {
                    0.0
                }
            }
        }
    }

    /// `ln(1 - p)` with `p = 1 / (1 + b_h)`, in the spec's operation order.
    fn geo_ln_1mp_at(&self, h: u32) -> f64 {
        let p = 1.0 / (1.0 + self.geo_bh(h));
        (1.0 - p).ln()
    }

    /// Geometric child count (before the cap) for height `h` and probability `u`.
    #[inline]
    fn geo_count(&self, h: u32, u: f64) -> i64 {
        let ln_1mp = match self.geo_ln_1mp.get(h as usize) {
            Some(&v) => v,
            None => self.geo_ln_1mp_at(h),
        };
        ((1.0 - u).ln() / ln_1mp).floor() as i32 as i64
    }

    /// Binomial non-root child count for probability `u`.
    #[inline]
    fn bin_count(&self, u: f64) -> i64 {
        if u < self.flags.q {
            i64::from(self.flags.m)
        } else {
            0
        }
    }

    /// The number of children of `node` (the spec's section 4, caps included).
    ///
    /// ```
    /// use magpie_apps::uts::Params;
    /// let t3 = Params::named("T3").unwrap();
    /// assert_eq!(t3.num_children(&t3.root()), 2000);
    /// let t1 = Params::named("T1").unwrap();
    /// assert_eq!(t1.num_children(&t1.root()), 5);
    /// ```
    #[inline]
    pub fn num_children(&self, node: &Node) -> u32 {
        let h = node.height;
        let u = || rng_to_prob(node.rand());
        let n: i64 = match self.flags.tree_type {
            TreeType::Binomial => {
                if h == 0 {
                    // Floor, then the (inactive) cap at ceil(b0); no 100 cap for a BIN root.
                    let n = self.flags.b0.floor() as i32;
                    return n.min(self.flags.b0.ceil() as i32).max(0) as u32;
                }
                self.bin_count(u())
            }
            TreeType::Geometric => self.geo_count(h, u()),
            TreeType::Hybrid => {
                if f64::from(h) < self.flags.shift_depth * f64::from(self.flags.gen_mx) {
                    self.geo_count(h, u())
                } else {
                    self.bin_count(u())
                }
            }
            TreeType::Balanced => {
                return if i64::from(h) < i64::from(self.flags.gen_mx) {
                    self.flags.b0 as i32 as u32
                } else {
                    0
                };
            }
        };
        n.clamp(0, i64::from(MAX_NUM_CHILDREN)) as u32
    }

    /// The children of `node`, generated lazily in the spec's order (child `i` has state
    /// [`rng_spawn`]`(state, i)` and height `height + 1`). The iterator owns a copy of the
    /// parent's state and knows its exact length ([`Params::num_children`]).
    ///
    /// ```
    /// use magpie_apps::uts::{rng_spawn, Params};
    /// let p = Params::named("T1").unwrap();
    /// let root = p.root();
    /// let kids: Vec<_> = p.children(&root).collect();
    /// assert_eq!(kids.len(), 5);
    /// assert_eq!(kids[0].state[..4], [0x2f, 0xb3, 0x13, 0x10]);
    /// assert_eq!((kids[1].height, kids[1].rand()), (1, 1_765_374_811));
    /// assert_eq!(kids[3].state, rng_spawn(&root.state, 3));
    /// ```
    pub fn children(&self, node: &Node) -> Children {
        self.children_n(node, self.num_children(node))
    }

    /// [`Params::children`] when `n` is already known to be `num_children(node)`.
    fn children_n(&self, node: &Node, n: u32) -> Children {
        Children {
            parent: node.state,
            height: node.height,
            next: 0,
            end: n,
            granularity: self.flags.granularity as u32,
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Sequential search.

/// The statistics the reference reports for a tree.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, Default, serde::Serialize, serde::Deserialize,
)]
pub struct Counts {
    /// Number of nodes, root included.
    pub nodes: u64,
    /// Number of nodes without children.
    pub leaves: u64,
    /// The largest height (the root has height 0).
    pub max_depth: u32,
}

impl Counts {
    /// The statistics of a single node of height `height` with `num_children` children.
    ///
    /// ```
    /// use magpie_apps::uts::Counts;
    /// assert_eq!(Counts::node(3, 0), Counts { nodes: 1, leaves: 1, max_depth: 3 });
    /// ```
    pub fn node(height: u32, num_children: u32) -> Counts {
        Counts {
            nodes: 1,
            leaves: u64::from(num_children == 0),
            max_depth: height,
        }
    }

    /// Combines the statistics of disjoint parts of a tree (sums, and the larger depth).
    ///
    /// ```
    /// use magpie_apps::uts::Counts;
    /// let a = Counts { nodes: 5, leaves: 3, max_depth: 2 };
    /// let b = Counts { nodes: 2, leaves: 1, max_depth: 4 };
    /// assert_eq!(a.merge(b), Counts { nodes: 7, leaves: 4, max_depth: 4 });
    /// ```
    pub fn merge(self, other: Counts) -> Counts {
        Counts {
            nodes: self.nodes + other.nodes,
            leaves: self.leaves + other.leaves,
            max_depth: self.max_depth.max(other.max_depth),
        }
    }
}

/// The tree of `Params` for [`magpie::search`]: root and children as [`Params::root`] and
/// [`Params::children`], each node with its child count ([`SearchNode`]). Fold it with
/// [`Tally`] for the reference statistics.
///
/// ```
/// use magpie::search::{enumerate, NodeCount, Options, Skeleton};
/// use magpie_apps::uts::{count, Params, Tally};
/// let t = Params::from_flags("-t 1 -a 3 -d 6 -b 4 -r 19").unwrap();
/// let seq = Skeleton::Sequential;
/// let counts = enumerate(&t, &Tally(&t), seq, &Options::default()).value;
/// assert_eq!(counts, count(&t));
/// assert_eq!(enumerate(&t, &NodeCount, seq, &Options::default()).value, counts.nodes);
/// ```
impl magpie::search::SearchSpace for Params {
    type Node = SearchNode;
    type Children<'a> = SearchChildren<'a>;

    fn root(&self) -> SearchNode {
        SearchNode::new(self, Params::root(self))
    }

    #[inline]
    fn children<'a>(&'a self, node: &SearchNode) -> SearchChildren<'a> {
        SearchChildren {
            params: self,
            children: self.children_n(&node.node, node.num_children),
        }
    }

    /// The same children as [`children`](Self::children), hashed in batches of up to 16
    /// siblings back to back before any of them is visited (as [`count`] hashes a node's
    /// children before it pops one): a child's hash no longer waits behind its elder
    /// sibling's subtree, and the walk ran about a fifth faster on T1 (alternating runs of
    /// the Sequential skeleton, min of 15).
    #[inline]
    fn for_each_child<F>(&self, node: &SearchNode, mut visit: F) -> ControlFlow<()>
    where
        F: FnMut(&SearchNode) -> ControlFlow<()>,
    {
        const BATCH: u32 = 16;
        let mut states = [[0u8; 20]; BATCH as usize];
        let granularity = self.flags.granularity.max(1) as u32;
        let height = node.node.height + 1;
        let mut first = 0;
        while first < node.num_children {
            let k = (node.num_children - first).min(BATCH);
            for (i, state) in (first..).zip(&mut states[..k as usize]) {
                *state = spawn(&node.node.state, i, granularity);
            }
            for state in &states[..k as usize] {
                visit(&SearchNode::new(
                    self,
                    Node {
                        state: *state,
                        height,
                    },
                ))?;
            }
            first += k;
        }
        ControlFlow::Continue(())
    }

    /// The child count is in the node.
    #[inline]
    fn is_leaf(&self, node: &SearchNode) -> bool {
        node.num_children == 0
    }
}

/// A node of the [`magpie::search`] tree of a [`Params`]: a [`Node`] and its number of
/// children, computed once when the node is made (the fold and the generator both need it,
/// and it costs a logarithm on geometric trees).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub struct SearchNode {
    /// The tree node.
    pub node: Node,
    /// [`Params::num_children`] of `node`.
    pub num_children: u32,
}

impl SearchNode {
    /// `node` with its child count under `params`.
    #[inline]
    pub fn new(params: &Params, node: Node) -> Self {
        SearchNode {
            num_children: params.num_children(&node),
            node,
        }
    }
}

/// The lazy child generator of a [`SearchNode`].
#[derive(Debug, Clone)]
pub struct SearchChildren<'a> {
    params: &'a Params,
    children: Children,
}

impl Iterator for SearchChildren<'_> {
    type Item = SearchNode;

    #[inline]
    fn next(&mut self) -> Option<SearchNode> {
        self.children
            .next()
            .map(|node| SearchNode::new(self.params, node))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        self.children.size_hint()
    }
}

impl ExactSizeIterator for SearchChildren<'_> {}

/// The enumeration fold giving a tree's [`Counts`] (nodes, leaves, depth). (It keeps the
/// parameters for compatibility; the child counts come with the nodes.)
#[derive(Debug, Clone, Copy)]
pub struct Tally<'p>(pub &'p Params);

impl magpie::search::Enumerate<Params> for Tally<'_> {
    type Acc = Counts;

    fn empty(&self) -> Counts {
        Counts::default()
    }

    #[inline]
    fn visit(&self, acc: &mut Counts, node: &SearchNode, _depth: usize) {
        *acc = acc.merge(Counts::node(node.node.height, node.num_children));
    }

    fn merge(&self, a: Counts, b: Counts) -> Counts {
        a.merge(b)
    }
}

/// Counts the whole tree of `params` by a plain sequential depth-first search (explicit stack,
/// so even the deepest binomial trees do not overflow the call stack). The reference for every
/// other traversal.
///
/// ```
/// use magpie_apps::uts::{count, Counts, Params};
/// let p = Params::from_flags("-t 3 -b 4 -d 6").unwrap(); // balanced: (4^7 - 1) / 3 nodes
/// assert_eq!(count(&p), Counts { nodes: 5_461, leaves: 4_096, max_depth: 6 });
/// ```
pub fn count(params: &Params) -> Counts {
    count_from(params, &params.root())
}

/// Like [`count`], for the subtree rooted at `node`.
///
/// ```
/// use magpie_apps::uts::{count, count_from, Counts, Params};
/// let p = Params::named("default").unwrap();
/// let root = p.root();
/// let total = p
///     .children(&root)
///     .map(|c| count_from(&p, &c))
///     .fold(Counts::node(0, p.num_children(&root)), Counts::merge);
/// assert_eq!(total, count(&p));
/// ```
pub fn count_from(params: &Params, node: &Node) -> Counts {
    let mut c = Counts::default();
    let mut stack = vec![*node];
    while let Some(v) = stack.pop() {
        let n = params.num_children(&v);
        c.nodes += 1;
        c.max_depth = c.max_depth.max(v.height);
        if n == 0 {
            c.leaves += 1;
        } else {
            stack.extend(params.children_n(&v, n));
        }
    }
    c
}

#[cfg(test)]
mod tests;
