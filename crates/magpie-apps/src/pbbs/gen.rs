//! PBBS-style input generators (after PBBS's `randomSeq`, `exptSeq`, `almostSortedSeq`
//! and its word text), seeded and deterministic: the same arguments give the same sequence
//! on every platform ([`SplitMix64`] streams).
//!
//! ```
//! use magpie_apps::pbbs::gen;
//! let keys = gen::uniform_u32(1000, 50, 7);
//! assert!(keys.iter().all(|&k| k < 50));
//! assert_eq!(keys, gen::uniform_u32(1000, 50, 7));
//! let text = gen::zipf_text(100, 20, 7);
//! assert_eq!(text.split(|b| b.is_ascii_whitespace()).count(), 100);
//! ```

use crate::rng::SplitMix64;

/// `n` keys uniform in `0..bound` (PBBS `randomSeq -r bound`; its default bound is `n`).
///
/// # Panics
///
/// If `bound` is 0 while `n` is not.
pub fn uniform_u32(n: usize, bound: u32, seed: u64) -> Vec<u32> {
    assert!(n == 0 || bound > 0, "uniform_u32: bound 0");
    let mut rng = SplitMix64::new(seed);
    (0..n)
        .map(|_| (((rng.next_u64() >> 32) * bound as u64) >> 32) as u32)
        .collect()
}

/// `n` keys exponentially distributed with mean `bound / 10`, capped at `bound − 1` (in
/// the spirit of PBBS `exptSeq`: many repeats of small keys, a long tail).
///
/// # Panics
///
/// If `bound` is 0 while `n` is not.
///
/// ```
/// let keys = magpie_apps::pbbs::gen::exponential_u32(10_000, 1000, 1);
/// let small = keys.iter().filter(|&&k| k < 100).count();
/// assert!(small > 5000 && keys.iter().all(|&k| k < 1000)); // 1 − 1/e of them below the mean
/// ```
pub fn exponential_u32(n: usize, bound: u32, seed: u64) -> Vec<u32> {
    assert!(n == 0 || bound > 0, "exponential_u32: bound 0");
    let mean = bound as f64 / 10.0;
    exponential_f64(n, seed)
        .into_iter()
        .map(|x| ((x * mean) as u64).min(bound as u64 - 1) as u32)
        .collect()
}

/// `0, 1, …, n − 1` with about `√n` random pairs swapped (PBBS `almostSortedSeq`).
pub fn almost_sorted_u32(n: usize, seed: u64) -> Vec<u32> {
    assert!(
        n <= u32::MAX as usize + 1,
        "almost_sorted_u32: more than 2^32 keys"
    );
    let mut v: Vec<u32> = (0..n).map(|i| i as u32).collect();
    swap_some(&mut v, seed);
    v
}

/// `n` values uniform in `[0, 1)` (PBBS `randomSeq -t double`).
pub fn uniform_f64(n: usize, seed: u64) -> Vec<f64> {
    let mut rng = SplitMix64::new(seed);
    (0..n).map(|_| rng.next_f64()).collect()
}

/// `n` values exponentially distributed with mean 1 (`−ln(1 − u)`, `u` uniform).
pub fn exponential_f64(n: usize, seed: u64) -> Vec<f64> {
    let mut rng = SplitMix64::new(seed);
    (0..n).map(|_| -(1.0 - rng.next_f64()).ln()).collect()
}

/// `0.0, 1.0, …, (n − 1) as f64` with about `√n` random pairs swapped (PBBS
/// `almostSortedSeq -t double`).
pub fn almost_sorted_f64(n: usize, seed: u64) -> Vec<f64> {
    let mut v: Vec<f64> = (0..n).map(|i| i as f64).collect();
    swap_some(&mut v, seed);
    v
}

/// Swaps `⌊√n⌋` random pairs of `v`.
fn swap_some<T>(v: &mut [T], seed: u64) {
    let n = v.len();
    if n < 2 {
        return;
    }
    let mut rng = SplitMix64::new(seed);
    for _ in 0..n.isqrt() {
        let a = (rng.next_u64() % n as u64) as usize;
        let b = (rng.next_u64() % n as u64) as usize;
        v.swap(a, b);
    }
}

/// A text of `words` words drawn from a vocabulary of `vocabulary` random lowercase words
/// (3 to 10 letters; two may coincide) with Zipf's law: the word of rank `r` (from 1) with
/// probability proportional to `1/r`. Words are separated by one space, or a newline after
/// about one word in 16; no separator before the first or after the last.
///
/// # Panics
///
/// If `vocabulary` is 0 while `words` is not.
///
/// ```
/// let text = magpie_apps::pbbs::gen::zipf_text(10_000, 1000, 3);
/// let words: Vec<&[u8]> = text.split(|b| b.is_ascii_whitespace()).collect();
/// assert_eq!(words.len(), 10_000);
/// assert!(words.iter().all(|w| (3..=10).contains(&w.len())));
/// // The most frequent word takes about 1/H(1000) ≈ 13% of the text.
/// let mut counts = std::collections::HashMap::new();
/// for w in &words {
///     *counts.entry(*w).or_insert(0) += 1;
/// }
/// let top = *counts.values().max().unwrap();
/// assert!((1000..1700).contains(&top), "{top}");
/// ```
pub fn zipf_text(words: usize, vocabulary: usize, seed: u64) -> Vec<u8> {
    assert!(words == 0 || vocabulary > 0, "zipf_text: empty vocabulary");
    let mut rng = SplitMix64::new(seed);
    let vocab: Vec<Vec<u8>> = (0..vocabulary)
        .map(|_| {
            let len = 3 + (rng.next_u64() % 8) as usize;
            (0..len)
                .map(|_| b'a' + (rng.next_u64() % 26) as u8)
                .collect()
        })
        .collect();
    let mut cumulative = Vec::with_capacity(vocabulary);
    let mut total = 0.0;
    for r in 1..=vocabulary {
        total += 1.0 / r as f64;
        cumulative.push(total);
    }
    let mut text = Vec::with_capacity(words * 8);
    for i in 0..words {
        if i > 0 {
            text.push(if rng.next_u64().is_multiple_of(16) {
                b'\n'
            } else {
                b' '
            });
        }
        let u = rng.next_f64() * total;
        let r = cumulative.partition_point(|&c| c <= u).min(vocabulary - 1);
        text.extend_from_slice(&vocab[r]);
    }
    text
}
