//! The PBBS kernels (`magpie_apps::pbbs`) against sequential versions written apart (std's
//! sorts, a loop of counts, a `HashMap` of words), on several seeds, sizes and input
//! distributions, on the sequential `Join`, on magpie with 1, 2 and 4 workers and two
//! deques (chase-lev, lcws-user), and on rayon with the `rayon` feature
//! (`cargo test -p magpie-apps --features rayon --test pbbs`).

use magpie_apps::join::{Magpie, Sequential};
use magpie_apps::pbbs::comparison_sort::sample_sort_by;
use magpie_apps::pbbs::gen;
use magpie_apps::pbbs::histogram::{histogram, LOCAL_COUNTS_MAX};
use magpie_apps::pbbs::integer_sort::integer_sort;
use magpie_apps::pbbs::par::scatter;
use magpie_apps::pbbs::word_counts::{word_counts, TOKEN_BLOCK};
use magpie_apps::registry::{digest, KernelId, KernelInput};
use std::collections::HashMap;
use std::sync::OnceLock;

/// The magpie pools every case runs on: (deque, workers, pool).
fn pools() -> &'static [(&'static str, usize, magpie::ThreadPool)] {
    static POOLS: OnceLock<Vec<(&'static str, usize, magpie::ThreadPool)>> = OnceLock::new();
    POOLS.get_or_init(|| {
        let mut out = Vec::new();
        for deque in ["chase-lev", "lcws-user"] {
            for workers in [1, 2, 4] {
                let pool = magpie::ThreadPoolBuilder::new()
                    .num_workers(workers)
                    .deque(deque)
                    .build()
                    .unwrap();
                out.push((deque, workers, pool));
            }
        }
        out
    })
}

#[cfg(feature = "rayon")]
fn rayon_pool() -> &'static rayon::ThreadPool {
    static POOL: OnceLock<rayon::ThreadPool> = OnceLock::new();
    POOL.get_or_init(|| {
        rayon::ThreadPoolBuilder::new()
            .num_threads(2)
            .build()
            .unwrap()
    })
}

/// Evaluates `$body` with `$j` the sequential `Join`, then on every magpie pool (and rayon),
/// asserting that each gives the sequential result, which it returns.
macro_rules! on_every_runtime {
    ($what:expr, |$j:ident| $body:expr) => {{
        let expected = {
            let $j = &mut Sequential;
            $body
        };
        for (deque, workers, pool) in pools() {
            let got = pool.install(|| {
                let $j = &mut Magpie;
                $body
            });
            assert!(
                got == expected,
                "{} on magpie {deque} with {workers} worker(s)",
                $what
            );
        }
        #[cfg(feature = "rayon")]
        {
            let got = rayon_pool().install(|| {
                let $j = &mut magpie_apps::join::Rayon;
                $body
            });
            assert!(got == expected, "{} on rayon", $what);
        }
        expected
    }};
}

const SEEDS: [u64; 3] = [1, 2, 0xDEAD_BEEF];

#[test]
fn integer_sort_is_std_sort() {
    for seed in SEEDS {
        for n in [0, 1, 17, 20_000, 100_000] {
            let inputs = [
                (
                    "uniform below n",
                    gen::uniform_u32(n, n.max(1) as u32, seed),
                ),
                ("uniform below 256", gen::uniform_u32(n, 256, seed)),
                ("uniform u32", gen::uniform_u32(n, u32::MAX, seed)),
                ("exponential", gen::exponential_u32(n, 1 << 20, seed)),
                ("almost sorted", gen::almost_sorted_u32(n, seed)),
            ];
            for (what, keys) in inputs {
                let mut expected = keys.clone();
                expected.sort_unstable();
                let what = format!("integer_sort of {n} keys {what}, seed {seed}");
                let got = on_every_runtime!(what, |j| {
                    let mut v = keys.clone();
                    let mut tmp = vec![0; n];
                    integer_sort(j, &mut v, &mut tmp);
                    v
                });
                assert_eq!(got, expected, "{what}");
            }
        }
    }
}

#[test]
fn sample_sort_is_std_sort() {
    for seed in SEEDS {
        for n in [0, 1, 16_385, 100_000] {
            let inputs = [
                ("uniform", gen::uniform_f64(n, seed)),
                ("exponential", gen::exponential_f64(n, seed)),
                ("almost sorted", gen::almost_sorted_f64(n, seed)),
                (
                    "ten distinct values",
                    gen::uniform_u32(n, 10, seed)
                        .into_iter()
                        .map(f64::from)
                        .collect(),
                ),
            ];
            for (what, values) in inputs {
                let mut expected = values.clone();
                expected.sort_by(f64::total_cmp);
                let what = format!("sample sort of {n} f64 {what}, seed {seed}");
                let got = on_every_runtime!(what, |j| {
                    let mut v = values.clone();
                    let mut tmp = vec![0.0; n];
                    sample_sort_by(j, &mut v, &mut tmp, &f64::total_cmp);
                    v
                });
                assert_eq!(
                    got.iter().map(|x| x.to_bits()).collect::<Vec<_>>(),
                    expected.iter().map(|x| x.to_bits()).collect::<Vec<_>>(),
                    "{what}"
                );
            }
        }
        // And by another order, on u64 (descending).
        let values: Vec<u64> = gen::uniform_u32(50_000, u32::MAX, seed)
            .into_iter()
            .map(u64::from)
            .collect();
        let mut expected = values.clone();
        expected.sort_by(|a, b| b.cmp(a));
        let got = on_every_runtime!("sample sort of u64, descending", |j| {
            let mut v = values.clone();
            let mut tmp = vec![0; v.len()];
            sample_sort_by(j, &mut v, &mut tmp, &|a: &u64, b: &u64| b.cmp(a));
            v
        });
        assert_eq!(got, expected);
    }
}

/// The counts of a loop over the keys.
fn counted(keys: &[u32], buckets: usize) -> Vec<u64> {
    let mut counts = vec![0; buckets];
    for &k in keys {
        counts[k as usize] += 1;
    }
    counts
}

#[test]
fn histogram_is_a_loop_of_counts() {
    assert_eq!(
        histogram(&mut Sequential, &[3, 0, 3, 3, 1], 5),
        [1, 1, 0, 3, 0]
    );
    for seed in SEEDS {
        for n in [0, 1, 30_000, 200_000] {
            // One bucket, the kernel's 256, and more than LOCAL_COUNTS_MAX (atomic counters).
            for buckets in [1, 256, LOCAL_COUNTS_MAX + 1] {
                let b = buckets as u32;
                for (what, keys) in [
                    ("uniform", gen::uniform_u32(n, b, seed)),
                    ("exponential", gen::exponential_u32(n, b, seed)),
                ] {
                    let expected = counted(&keys, buckets);
                    let what = format!("histogram of {n} {what} keys into {buckets}, seed {seed}");
                    let got = on_every_runtime!(what, |j| histogram(j, &keys, buckets));
                    assert_eq!(got, expected, "{what}");
                }
            }
        }
    }
}

/// The counts of a sequential `HashMap`, sorted by word.
fn hash_map_counts(text: &[u8]) -> Vec<(Vec<u8>, u64)> {
    let mut map: HashMap<&[u8], u64> = HashMap::new();
    for w in text
        .split(|b| b.is_ascii_whitespace())
        .filter(|w| !w.is_empty())
    {
        *map.entry(w).or_default() += 1;
    }
    let mut v: Vec<(Vec<u8>, u64)> = map.into_iter().map(|(w, c)| (w.to_vec(), c)).collect();
    v.sort();
    v
}

#[test]
fn word_counts_are_a_hash_map_count() {
    let long_word = vec![b'x'; TOKEN_BLOCK + 1000];
    let mut crossing = b"  a\tb \n\n a ".to_vec();
    crossing.extend_from_slice(&long_word);
    crossing.extend_from_slice(b" b x ");
    crossing.extend_from_slice(&long_word);
    let mut texts: Vec<(String, Vec<u8>)> = vec![
        ("empty".into(), Vec::new()),
        ("blanks".into(), b" \n\t ".to_vec()),
        ("one word".into(), b"word".to_vec()),
        ("words across blocks".into(), crossing),
    ];
    for seed in SEEDS {
        for (words, vocabulary) in [(1, 1), (5_000, 100), (60_000, 20_000)] {
            texts.push((
                format!("zipf {words} words over {vocabulary}, seed {seed}"),
                gen::zipf_text(words, vocabulary, seed),
            ));
        }
    }
    for (what, text) in &texts {
        let expected = hash_map_counts(text);
        let got = on_every_runtime!(what, |j| {
            let mut v: Vec<(Vec<u8>, u64)> = word_counts(j, text)
                .iter()
                .map(|w| (w.word(text).to_vec(), w.count))
                .collect();
            v.sort();
            v
        });
        assert_eq!(got, expected, "{what}");
    }
    assert_eq!(
        hash_map_counts(&texts[3].1),
        [
            (b"a".to_vec(), 2),
            (b"b".to_vec(), 2),
            (b"x".to_vec(), 1),
            (long_word, 2)
        ]
    );
}

/// The registry's PBBS kernels, built small, give the sequential digest on every runtime.
#[test]
fn registered_kernels_agree_on_every_runtime() {
    let pbbs = [
        KernelId::IntegerSort,
        KernelId::ComparisonSort,
        KernelId::Histogram,
        KernelId::Histogram100K,
        KernelId::WordCounts,
    ];
    assert_eq!(
        pbbs.map(KernelId::name),
        [
            "integer-sort",
            "comparison-sort",
            "histogram",
            "histogram-100k",
            "word-counts"
        ]
    );
    for k in pbbs {
        for (size, seed) in [(0, 1), (50_000, 1), (50_000, 2)] {
            let mut input: KernelInput = k.build(size, seed).unwrap();
            let what = format!("{k} of size {size}, seed {seed}");
            on_every_runtime!(what, |j| {
                input.prepare();
                let ret = input.run(j);
                input.digest(ret).unwrap()
            });
        }
    }
}

/// `histogram-100k`, by name: the digest of exactly the counts a loop gives of its keys
/// (uniform below 100,000, from the kernel's seed), on every runtime; and not the
/// `histogram` kernel's.
#[test]
fn histogram_100k_counts_its_keys_into_100k_buckets() {
    let k = KernelId::from_name("histogram-100k").unwrap();
    assert!(k.about().contains("100,000 buckets"), "{}", k.about());
    for (size, seed) in [(0, 1), (1, 2), (300_000, 3), (300_000, 4)] {
        let keys = gen::uniform_u32(size, 100_000, seed);
        let want = digest(counted(&keys, 100_000));
        let mut input = k.build(size, seed).unwrap();
        assert_eq!(
            input.describe(),
            format!(
                "histogram of {size} u32 keys into 100000 buckets, one array of atomic \
                 counters, 16384 keys per task"
            )
        );
        let what = format!("{k} of size {size}, seed {seed}");
        let got = on_every_runtime!(what, |j| {
            input.prepare();
            let ret = input.run(j);
            input.digest(ret).unwrap()
        });
        assert_eq!(got, want, "{what}");
        if size > 0 {
            let mut small = KernelId::Histogram.build(size, seed).unwrap();
            let ret = small.run(&mut Sequential);
            assert_ne!(small.digest(ret).unwrap(), want, "{what}");
        }
    }
    // More than LOCAL_COUNTS_MAX: the atomic counters.
    const _: () = assert!(100_000 > LOCAL_COUNTS_MAX);
}

#[test]
fn a_non_deterministic_bucket_function_panics_instead_of_racing() {
    use std::sync::atomic::{AtomicUsize, Ordering};
    let calls = AtomicUsize::new(0);
    let src = vec![0u32; 10];
    let mut dst = vec![0u32; 10];
    let caught = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        // Bucket 0 while counting, bucket 1 while scattering.
        scatter(&mut Sequential, &src, &mut dst, 2, &|_: &u32| {
            usize::from(calls.fetch_add(1, Ordering::Relaxed) >= 10)
        })
    }));
    let message = caught.unwrap_err();
    let message = message.downcast_ref::<&str>().copied().unwrap_or_default();
    assert!(message.contains("not deterministic"), "{message:?}");
}

#[test]
fn generators_are_seeded_and_pinned() {
    assert_eq!(gen::uniform_u32(5, 10, 7), gen::uniform_u32(5, 10, 7));
    assert_ne!(
        gen::uniform_u32(100, 1000, 7),
        gen::uniform_u32(100, 1000, 8)
    );
    // The streams are part of recorded results: pinned.
    assert_eq!(gen::uniform_u32(5, 1000, 0), PINNED_U32);
    assert_eq!(
        gen::zipf_text(4, 3, 0),
        PINNED_TEXT.as_bytes(),
        "{}",
        String::from_utf8_lossy(&gen::zipf_text(4, 3, 0))
    );
    let almost = gen::almost_sorted_u32(10_000, 3);
    let mut sorted = almost.clone();
    sorted.sort_unstable();
    assert_eq!(sorted, (0..10_000).collect::<Vec<u32>>());
    let moved = almost
        .iter()
        .enumerate()
        .filter(|&(i, &x)| i as u32 != x)
        .count();
    assert!((1..=200).contains(&moved), "{moved} moved by 100 swaps");
}

const PINNED_U32: [u32; 5] = [883, 431, 26, 970, 106];
const PINNED_TEXT: &str = "owpfqguw abmrqxilat owpfqguw abmrqxilat";
