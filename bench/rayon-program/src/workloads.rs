//! The workloads. Each builds its input untimed from its size and a fixed seed, runs the
//! timed part on the current rayon pool, and checks its result untimed: against a
//! sequential computation of the same thing, a closed form, or an exact invariant. The check
//! value it returns does not depend on the thread count or the scheduling, so the two builds
//! of the program must print the same one.

use rayon::prelude::*;
use std::time::{Duration, Instant};

/// One workload: a name for the command line, what it computes, its sizes.
pub struct Workload {
    pub name: &'static str,
    pub what: &'static str,
    /// What the size counts.
    pub unit: &'static str,
    pub full: usize,
    pub quick: usize,
    make: fn(usize, bool) -> Box<dyn Instance>,
}

impl Workload {
    /// The input of size `size` (`quick`: the workload's small variant, where other
    /// parameters than the size shrink too).
    pub fn make(&self, size: usize, quick: bool) -> Box<dyn Instance> {
        (self.make)(size, quick)
    }
}

/// A workload's input and the state its runs share.
pub trait Instance: Send {
    /// Untimed: restores the input a run consumes (a sort's unsorted keys).
    fn reset(&mut self) {}
    /// The timed run.
    fn run(&mut self) -> Ran;
    /// Untimed: checks the run's result; returns the check value to print.
    fn check(&self, result: u64) -> Result<u64, String>;
}

/// What a run returns.
pub struct Ran {
    /// Its result (checked by [`Instance::check`]).
    pub result: u64,
    /// The time to report instead of the run's wall time (bursts: the bursts without the
    /// sleeps between them).
    pub busy: Option<Duration>,
}

impl From<u64> for Ran {
    fn from(result: u64) -> Ran {
        Ran { result, busy: None }
    }
}

/// Every workload, in the order they run by default.
pub const ALL: &[Workload] = &[
    Workload {
        name: "map-sum",
        what: "par_iter().map(hash).sum() over a Vec<u64>",
        unit: "elements",
        full: 32_000_000,
        quick: 500_000,
        make: |n, _| Box::new(MapSum::new(n)),
    },
    Workload {
        name: "map-collect",
        what: "par_iter().map(hash).collect::<Vec<u64>>()",
        unit: "elements",
        full: 10_000_000,
        quick: 200_000,
        make: |n, _| Box::new(MapCollect::new(n)),
    },
    Workload {
        name: "sort",
        what: "par_sort of pseudo-random u64 keys",
        unit: "keys",
        full: 10_000_000,
        quick: 200_000,
        make: |n, _| Box::new(Sort::new(n, true)),
    },
    Workload {
        name: "sort-unstable",
        what: "par_sort_unstable of pseudo-random u64 keys",
        unit: "keys",
        full: 10_000_000,
        quick: 200_000,
        make: |n, _| Box::new(Sort::new(n, false)),
    },
    Workload {
        name: "chunks",
        what: "par_chunks_mut(4096): a chained hash through each chunk of a Vec<u64>",
        unit: "elements",
        full: 16_000_000,
        quick: 300_000,
        make: |n, _| Box::new(Chunks::new(n)),
    },
    Workload {
        name: "fib",
        what: "fib(n) by rayon::join at every call, no cutoff",
        unit: "n",
        full: 32,
        quick: 22,
        make: |n, _| Box::new(Fib { n: n as u64 }),
    },
    Workload {
        name: "irregular",
        what: "into_par_iter().map(): item i costs 8·2^(hash(i) mod 16) LCG steps (8 to 262144)",
        unit: "items",
        full: 30_000,
        quick: 1_000,
        make: |n, _| Box::new(Irregular { n: n as u64 }),
    },
    Workload {
        name: "nbody",
        what: "n-body, 4 steps: O(n^2) forces with par_iter over the bodies, then par_iter_mut moves them",
        unit: "bodies",
        full: 3_000,
        quick: 300,
        make: |n, _| Box::new(NBody::new(n, 4)),
    },
    Workload {
        name: "matmul",
        what: "blocked f64 matrix multiply C = A·B, par_chunks_mut over blocks of 32 rows of C",
        unit: "n (n×n matrices)",
        full: 768,
        quick: 128,
        make: |n, _| Box::new(Matmul::new(n)),
    },
    Workload {
        name: "bursts",
        what: "20 bursts (4 with --quick) of 10 par_iter maps of `size` items of 2^18 LCG steps, \
               each burst followed by a 50 ms sleep; seconds: the bursts alone, cpu_seconds: \
               the whole run",
        unit: "items per map",
        full: 48,
        quick: 4,
        make: |n, quick| Box::new(Bursts::new(n, if quick { 4 } else { 20 })),
    },
];

/// The workload named `name`.
pub fn find(name: &str) -> Option<&'static Workload> {
    ALL.iter().find(|w| w.name == name)
}

/// splitmix64's finalizer: the inputs' generator and the maps' "work".
#[inline]
pub fn mix(x: u64) -> u64 {
    let mut z = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d1_049b_b133_111b);
    z ^ (z >> 31)
}

/// The seed every input starts from.
const SEED: u64 = 0x5eed_2026_1128;

/// An order-sensitive digest of a sequence: Σ (i + 1) · mix(x_i), wrapping.
fn digest(xs: &[u64]) -> u64 {
    xs.iter().enumerate().fold(0u64, |acc, (i, &x)| {
        acc.wrapping_add((i as u64 + 1).wrapping_mul(mix(x)))
    })
}

/// An order-insensitive fingerprint of a multiset: (Σ mix(x), Σ x), wrapping.
fn fingerprint(xs: &[u64]) -> (u64, u64) {
    xs.iter().fold((0u64, 0u64), |(a, b), &x| {
        (a.wrapping_add(mix(x)), b.wrapping_add(x))
    })
}

fn keys(n: usize) -> Vec<u64> {
    (0..n as u64).map(|i| mix(i ^ SEED)).collect()
}

/// A check: `Ok(got)` where it is `want`, else an error naming `what` and both values.
fn expect(what: &str, got: u64, want: u64) -> Result<u64, String> {
    if got != want {
        return Err(format!("{what}: got {got:#x}, expected {want:#x}"));
    }
    Ok(got)
}

// ---- map-sum ----------------------------------------------------------------------------

/// The map of map-sum and map-collect: a hash, its top 32 bits (so a sum of up to 2^32
/// values cannot overflow).
#[inline]
fn map_item(x: u64) -> u64 {
    mix(x) >> 32
}

struct MapSum {
    v: Vec<u64>,
    expected: u64,
}

impl MapSum {
    fn new(n: usize) -> MapSum {
        let v = keys(n);
        let expected = v.iter().map(|&x| map_item(x)).sum();
        MapSum { v, expected }
    }
}

impl Instance for MapSum {
    fn run(&mut self) -> Ran {
        self.v.par_iter().map(|&x| map_item(x)).sum::<u64>().into()
    }

    fn check(&self, result: u64) -> Result<u64, String> {
        expect("sum", result, self.expected)
    }
}

// ---- map-collect ------------------------------------------------------------------------

struct MapCollect {
    v: Vec<u64>,
    out: Vec<u64>,
    expected: u64,
}

impl MapCollect {
    fn new(n: usize) -> MapCollect {
        let v = keys(n);
        let mapped: Vec<u64> = v.iter().map(|&x| map_item(x)).collect();
        MapCollect {
            expected: digest(&mapped),
            v,
            out: Vec::new(),
        }
    }
}

impl Instance for MapCollect {
    fn reset(&mut self) {
        // The previous run's vector is freed here, untimed.
        self.out = Vec::new();
    }

    fn run(&mut self) -> Ran {
        self.out = self.v.par_iter().map(|&x| map_item(x)).collect();
        (self.out.len() as u64).into()
    }

    fn check(&self, result: u64) -> Result<u64, String> {
        expect("collected length", result, self.v.len() as u64)?;
        let d = digest(&self.out);
        expect("digest of the collected vector", d, self.expected)
    }
}

// ---- sort, sort-unstable ----------------------------------------------------------------

struct Sort {
    input: Vec<u64>,
    v: Vec<u64>,
    stable: bool,
    fingerprint: (u64, u64),
}

impl Sort {
    fn new(n: usize, stable: bool) -> Sort {
        let input = keys(n);
        Sort {
            fingerprint: fingerprint(&input),
            v: Vec::with_capacity(n),
            input,
            stable,
        }
    }
}

impl Instance for Sort {
    fn reset(&mut self) {
        self.v.clear();
        self.v.extend_from_slice(&self.input);
    }

    fn run(&mut self) -> Ran {
        if self.stable {
            self.v.par_sort();
        } else {
            self.v.par_sort_unstable();
        }
        (self.v.len() as u64).into()
    }

    fn check(&self, _: u64) -> Result<u64, String> {
        if let Some(i) = self.v.windows(2).position(|w| w[0] > w[1]) {
            return Err(format!(
                "not sorted at index {i}: {} > {}",
                self.v[i],
                self.v[i + 1]
            ));
        }
        if fingerprint(&self.v) != self.fingerprint {
            return Err("the sorted keys are not the input's (multiset fingerprint)".into());
        }
        Ok(digest(&self.v))
    }
}

// ---- chunks -----------------------------------------------------------------------------

const CHUNK: usize = 4096;

/// The per-chunk transform: a hash chained through the chunk, started from its index.
fn transform_chunk(index: usize, chunk: &mut [u64]) {
    let mut acc = index as u64;
    for x in chunk {
        acc = mix(acc ^ *x);
        *x = acc;
    }
}

struct Chunks {
    input: Vec<u64>,
    v: Vec<u64>,
    expected: u64,
}

impl Chunks {
    fn new(n: usize) -> Chunks {
        let input = keys(n);
        let mut v = input.clone();
        for (i, c) in v.chunks_mut(CHUNK).enumerate() {
            transform_chunk(i, c);
        }
        Chunks {
            expected: digest(&v),
            input,
            v,
        }
    }
}

impl Instance for Chunks {
    fn reset(&mut self) {
        self.v.copy_from_slice(&self.input);
    }

    fn run(&mut self) -> Ran {
        self.v
            .par_chunks_mut(CHUNK)
            .enumerate()
            .for_each(|(i, c)| transform_chunk(i, c));
        0.into()
    }

    fn check(&self, _: u64) -> Result<u64, String> {
        let d = digest(&self.v);
        expect("digest of the transformed vector", d, self.expected)
    }
}

// ---- fib --------------------------------------------------------------------------------

fn fib(n: u64) -> u64 {
    if n < 2 {
        return n;
    }
    let (a, b) = rayon::join(|| fib(n - 1), || fib(n - 2));
    a + b
}

struct Fib {
    n: u64,
}

impl Instance for Fib {
    fn run(&mut self) -> Ran {
        fib(self.n).into()
    }

    fn check(&self, result: u64) -> Result<u64, String> {
        let (mut a, mut b) = (0u64, 1u64);
        for _ in 0..self.n {
            (a, b) = (b, a + b);
        }
        expect(&format!("fib({})", self.n), result, a)
    }
}

// ---- irregular, bursts: LCG steps -------------------------------------------------------

const LCG_A: u64 = 6_364_136_223_846_793_005;
const LCG_C: u64 = 1_442_695_040_888_963_407;

/// `steps` steps of the LCG x ← a·x + c from `x`: the work of one item, a chain of dependent
/// multiply-adds (LLVM unrolls the loop by 8 and composes the 8 steps into one, so a step
/// costs about an eighth of a multiply-add; the cost stays proportional to `steps`).
#[inline(never)]
fn lcg_steps(mut x: u64, steps: u64) -> u64 {
    for _ in 0..steps {
        x = x.wrapping_mul(LCG_A).wrapping_add(LCG_C);
    }
    x
}

/// The same result in O(log steps): the affine map x ↦ a·x + c composed `steps` times by
/// repeated squaring. The checks use it.
fn lcg_jump(x: u64, mut steps: u64) -> u64 {
    let (mut acc_a, mut acc_c) = (1u64, 0u64); // the identity map
    let (mut a, mut c) = (LCG_A, LCG_C);
    while steps > 0 {
        if steps & 1 == 1 {
            // acc ∘ (a, c) — both are powers of one map, so they commute.
            acc_a = acc_a.wrapping_mul(a);
            acc_c = acc_c.wrapping_mul(a).wrapping_add(c);
        }
        // (a, c) ∘ (a, c)
        c = c.wrapping_mul(a).wrapping_add(c);
        a = a.wrapping_mul(a);
        steps >>= 1;
    }
    acc_a.wrapping_mul(x).wrapping_add(acc_c)
}

/// Item `i`'s cost in irregular: 8 · 2^(hash(i) mod 16) steps, 8 to 262144 (mean ≈ 32768).
fn irregular_cost(i: u64) -> u64 {
    8 << (mix(i ^ SEED) & 15)
}

struct Irregular {
    n: u64,
}

impl Instance for Irregular {
    fn run(&mut self) -> Ran {
        (0..self.n)
            .into_par_iter()
            .map(|i| lcg_steps(mix(i), irregular_cost(i)))
            .reduce(|| 0, u64::wrapping_add)
            .into()
    }

    fn check(&self, result: u64) -> Result<u64, String> {
        let want = (0..self.n)
            .map(|i| lcg_jump(mix(i), irregular_cost(i)))
            .fold(0, u64::wrapping_add);
        expect("sum of the items", result, want)
    }
}

/// The LCG steps of one item of a burst.
const BURST_STEPS: u64 = 1 << 18;
/// par_iter maps per burst.
const BURST_MAPS: u64 = 10;
/// The sleep after each burst.
const BURST_SLEEP: Duration = Duration::from_millis(50);

struct Bursts {
    items: u64,
    bursts: u64,
}

impl Bursts {
    fn new(items: usize, bursts: u64) -> Bursts {
        Bursts {
            items: items as u64,
            bursts,
        }
    }

    /// The start of item `i` of map `m` (over all bursts).
    fn start(&self, m: u64, i: u64) -> u64 {
        mix(m * self.items + i)
    }
}

impl Instance for Bursts {
    fn run(&mut self) -> Ran {
        let mut sum = 0u64;
        let mut busy = Duration::ZERO;
        for b in 0..self.bursts {
            let t = Instant::now();
            for m in b * BURST_MAPS..(b + 1) * BURST_MAPS {
                let s = (0..self.items)
                    .into_par_iter()
                    .map(|i| lcg_steps(self.start(m, i), BURST_STEPS))
                    .reduce(|| 0, u64::wrapping_add);
                sum = sum.wrapping_add(s);
            }
            busy += t.elapsed();
            std::thread::sleep(BURST_SLEEP);
        }
        Ran {
            result: sum,
            busy: Some(busy),
        }
    }

    fn check(&self, result: u64) -> Result<u64, String> {
        let mut want = 0u64;
        for m in 0..self.bursts * BURST_MAPS {
            for i in 0..self.items {
                want = want.wrapping_add(lcg_jump(self.start(m, i), BURST_STEPS));
            }
        }
        expect("sum of the bursts' items", result, want)
    }
}

// ---- nbody ------------------------------------------------------------------------------

#[derive(Clone, Copy)]
struct Body {
    pos: [f64; 3],
    vel: [f64; 3],
    mass: f64,
}

/// Body `i`'s acceleration from every other body (softened gravity, G = 1): a sequential
/// loop over `j`, so its value does not depend on who computes it.
fn acceleration(i: usize, bodies: &[Body]) -> [f64; 3] {
    const SOFTENING: f64 = 1e-3;
    let p = bodies[i].pos;
    let mut a = [0.0; 3];
    for (j, b) in bodies.iter().enumerate() {
        if j == i {
            continue;
        }
        let d = [b.pos[0] - p[0], b.pos[1] - p[1], b.pos[2] - p[2]];
        let r2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2] + SOFTENING;
        let s = b.mass / (r2 * r2.sqrt());
        a[0] += d[0] * s;
        a[1] += d[1] * s;
        a[2] += d[2] * s;
    }
    a
}

const DT: f64 = 1e-3;

fn advance(b: &mut Body, a: [f64; 3]) {
    for ((v, p), a) in b.vel.iter_mut().zip(&mut b.pos).zip(a) {
        *v += a * DT;
        *p += *v * DT;
    }
}

fn nbody_digest(bodies: &[Body]) -> u64 {
    let bits: Vec<u64> = bodies
        .iter()
        .flat_map(|b| b.pos.into_iter().chain(b.vel))
        .map(f64::to_bits)
        .collect();
    digest(&bits)
}

struct NBody {
    init: Vec<Body>,
    bodies: Vec<Body>,
    steps: usize,
    expected: u64,
}

impl NBody {
    fn new(n: usize, steps: usize) -> NBody {
        let unit = |x: u64| (mix(x) >> 11) as f64 / (1u64 << 53) as f64; // [0, 1)
        let init: Vec<Body> = (0..n as u64)
            .map(|i| {
                let s = SEED ^ (i << 8);
                Body {
                    pos: [unit(s), unit(s + 1), unit(s + 2)],
                    vel: [unit(s + 3) - 0.5, unit(s + 4) - 0.5, unit(s + 5) - 0.5],
                    mass: 1.0 / n as f64 * (0.5 + unit(s + 6)),
                }
            })
            .collect();
        // The reference: the same steps, sequentially (bit for bit the same arithmetic).
        let mut bodies = init.clone();
        for _ in 0..steps {
            let acc: Vec<[f64; 3]> = (0..n).map(|i| acceleration(i, &bodies)).collect();
            for (b, a) in bodies.iter_mut().zip(acc) {
                advance(b, a);
            }
        }
        NBody {
            expected: nbody_digest(&bodies),
            bodies: init.clone(),
            init,
            steps,
        }
    }
}

impl Instance for NBody {
    fn reset(&mut self) {
        self.bodies.copy_from_slice(&self.init);
    }

    fn run(&mut self) -> Ran {
        for _ in 0..self.steps {
            let bodies = &self.bodies;
            let acc: Vec<[f64; 3]> = (0..bodies.len())
                .into_par_iter()
                .map(|i| acceleration(i, bodies))
                .collect();
            self.bodies
                .par_iter_mut()
                .zip(acc)
                .for_each(|(b, a)| advance(b, a));
        }
        0.into()
    }

    fn check(&self, _: u64) -> Result<u64, String> {
        expect(
            "digest of the bodies (vs sequential steps)",
            nbody_digest(&self.bodies),
            self.expected,
        )
    }
}

// ---- matmul -----------------------------------------------------------------------------

/// Rows of C per parallel item.
const ROW_BLOCK: usize = 32;
/// Columns of A (rows of B) per cache block.
const K_BLOCK: usize = 128;

struct Matmul {
    n: usize,
    a: Vec<f64>,
    b: Vec<f64>,
    c: Vec<f64>,
}

impl Matmul {
    fn new(n: usize) -> Matmul {
        // Small integers: every product and sum is exact in f64, so the result is exact and
        // Freivalds' check below can compare exactly.
        let small = |x: u64| (mix(x) % 8) as f64;
        Matmul {
            n,
            a: (0..(n * n) as u64).map(|i| small(i ^ SEED)).collect(),
            b: (0..(n * n) as u64).map(|i| small(i ^ !SEED)).collect(),
            c: vec![0.0; n * n],
        }
    }

    /// y = M·x for an n×n matrix M.
    fn times(&self, m: &[f64], x: &[f64]) -> Vec<f64> {
        m.chunks(self.n)
            .map(|row| row.iter().zip(x).map(|(a, b)| a * b).sum())
            .collect()
    }
}

impl Instance for Matmul {
    fn reset(&mut self) {
        self.c.fill(0.0);
    }

    fn run(&mut self) -> Ran {
        let (n, a, b) = (self.n, &self.a, &self.b);
        self.c
            .par_chunks_mut(ROW_BLOCK * n)
            .enumerate()
            .for_each(|(block, c)| {
                let first = block * ROW_BLOCK;
                for k0 in (0..n).step_by(K_BLOCK) {
                    let k1 = (k0 + K_BLOCK).min(n);
                    for (r, c_row) in c.chunks_mut(n).enumerate() {
                        let a_row = &a[(first + r) * n..][..n];
                        for k in k0..k1 {
                            let x = a_row[k];
                            let b_row = &b[k * n..][..n];
                            for (cj, bj) in c_row.iter_mut().zip(b_row) {
                                *cj += x * bj;
                            }
                        }
                    }
                }
            });
        0.into()
    }

    fn check(&self, _: u64) -> Result<u64, String> {
        // Freivalds: A·(B·r) = C·r for two pseudo-random vectors r of small integers.
        for t in 0..2u64 {
            let r: Vec<f64> = (0..self.n as u64)
                .map(|i| (mix(i ^ (t << 40) ^ SEED) % 4) as f64)
                .collect();
            let abr = self.times(&self.a, &self.times(&self.b, &r));
            let cr = self.times(&self.c, &r);
            if let Some(i) = (0..self.n).find(|&i| abr[i] != cr[i]) {
                return Err(format!(
                    "C != A·B (Freivalds, vector {t}): row {i}: (C·r)_i = {}, (A·B·r)_i = {}",
                    cr[i], abr[i]
                ));
            }
        }
        let bits: Vec<u64> = self.c.iter().map(|&x| x as u64).collect();
        Ok(digest(&bits))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_jump_is_the_steps() {
        for (x, k) in [(0, 0), (1, 1), (7, 2), (123, 1000), (u64::MAX, 32768)] {
            assert_eq!(lcg_jump(x, k), lcg_steps(x, k), "x {x}, steps {k}");
        }
    }

    #[test]
    fn every_quick_workload_checks_on_two_threads() {
        let pool = crate::pool(Some(2)).unwrap();
        for w in ALL {
            let mut inst = w.make(w.quick, true);
            let mut values = Vec::new();
            for _ in 0..2 {
                inst.reset();
                let ran = pool.install(|| inst.run());
                values.push(
                    inst.check(ran.result)
                        .unwrap_or_else(|e| panic!("{}: {e}", w.name)),
                );
            }
            assert_eq!(values[0], values[1], "{}", w.name);
        }
    }
}
