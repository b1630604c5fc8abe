//! Unit tests of the chunk rules: hand-computed chunk sequences, the mFAC plan, the
//! adaptive rules' learning.

use super::*;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

/// The chunk sizes one worker (worker 0) gets when it alone drains a loop of `shape` under
/// `schedule`; None as for [`central_rule`]. No timing is reported, so
/// adaptive rules keep their starting sizes.
fn chunk_sequence(schedule: &Schedule, shape: LoopShape) -> Option<Vec<u64>> {
    let mut rule = central_rule(schedule, shape, &LoopHistory::default())?;
    let mut remaining = shape.iterations;
    let mut chunks = Vec::new();
    while remaining > 0 {
        let c = rule.next_chunk(0, remaining);
        debug_assert!((1..=remaining).contains(&c));
        chunks.push(c);
        remaining -= c;
    }
    Some(chunks)
}

fn seq(s: &str, n: u64, p: usize) -> Vec<u64> {
    chunk_sequence(
        &s.parse().unwrap(),
        LoopShape {
            iterations: n,
            workers: p,
        },
    )
    .unwrap()
}

const CENTRAL: &[&str] = &[
    "ss",
    "ss,3",
    "ss,1000",
    "gss",
    "gss,4",
    "tss",
    "tss,3",
    "tss,50",
    "fac",
    "fac,2",
    "fac2",
    "fac2,5",
    "mfac",
    "mfac,7",
    "tss,30:4",
    "wf",
    "wf,1:3",
    "wf,0.1:7:2",
    "awf",
    "awf-b",
    "awf-c",
    "awf-d",
    "awf-e",
    "awf-c,4",
    "af",
    "af,3",
];

/// `(size, count)` runs as a list: `runs(&[(4, 2), (1, 1)])` is `[4, 4, 1]`.
fn runs(r: &[(u64, usize)]) -> Vec<u64> {
    r.iter()
        .flat_map(|&(c, k)| std::iter::repeat_n(c, k))
        .collect()
}

/// The chunk sequence of every technique that has one, for N = 1000 iterations on
/// P = 4 workers, with and without the expert chunk parameter, written out from the
/// formula (and checked independently with exact fractions, not with this code).
#[test]
fn chunk_sequences_n1000_p4_by_hand() {
    // SS,64: ⌊1000/64⌋ = 15 chunks of 64, then the remaining 40.
    assert_eq!(seq("ss,64", 1000, 4), runs(&[(64, 15), (40, 1)]));
    assert_eq!(seq("ss", 1000, 4), runs(&[(1, 1000)]));
    // GSS: ⌈R/4⌉ for R = 1000, 750, 562, 421, 315, 236, 177, 132, 99, 74, 55, 41, 30,
    // 22, 16, 12, 9, 6, 4, 3, 2, 1.
    let gss = [250, 188, 141, 106, 79, 59, 45, 33, 25, 19, 14, 11];
    assert_eq!(
        seq("gss", 1000, 4),
        [&gss[..], &[8, 6, 4, 3, 3, 2, 1, 1, 1, 1]].concat()
    );
    // GSS,10: the same until ⌈R/4⌉ < 10 at R = 30: then 10, 10, 10.
    assert_eq!(seq("gss,10", 1000, 4), [&gss[..], &[10, 10, 10]].concat());
    // TSS: F = ⌈1000/8⌉ = 125, L = 1, C = ⌈2000/126⌉ = 16, δ = 124/15 = 8.27; F − iδ
    // rounded half up = 125, 117, 108, 100, 92, 84, 75, 67, 59, 51, 42, 34, 26, 18, 9:
    // the first fourteen add up to 998, so the fifteenth is cut to 2.
    assert_eq!(
        seq("tss", 1000, 4),
        [125, 117, 108, 100, 92, 84, 75, 67, 59, 51, 42, 34, 26, 18, 2]
    );
    // TSS,5: F = 125, L = 5, C = ⌈2000/130⌉ = 16, δ = 120/15 = 8: 125, 117, …, 37 add
    // up to 972; the next (29) is cut to 28.
    assert_eq!(
        seq("tss,5", 1000, 4),
        [125, 117, 109, 101, 93, 85, 77, 69, 61, 53, 45, 37, 28]
    );
    // TSS,100:10 (expert first and last chunk): C = ⌈2000/110⌉ = 19, δ = 90/18 = 5:
    // 100, 95, …, 25 add up to exactly 1000.
    assert_eq!(
        seq("tss,100:10", 1000, 4),
        (0..16).map(|i| 100 - 5 * i).collect::<Vec<u64>>()
    );
    // FAC2: batches of 4 chunks of ⌈R_b/8⌉, R_b = 1000, 500, 248, 124, 60, 28, 12, 4.
    let fac2 = runs(&[
        (125, 4),
        (63, 4),
        (31, 4),
        (16, 4),
        (8, 4),
        (4, 4),
        (2, 4),
        (1, 4),
    ]);
    assert_eq!(seq("fac2", 1000, 4), fac2);
    // FAC2,10: from R_b = 60 on, ⌈R_b/8⌉ < 10: 4 chunks of 10, then R_b = 20: two of 10.
    let fac2_10 = runs(&[(125, 4), (63, 4), (31, 4), (16, 4), (10, 6)]);
    assert_eq!(seq("fac2,10", 1000, 4), fac2_10);
    // mFAC computes the same batches from chunk numbers (nothing learned: FAC2's).
    assert_eq!(seq("mfac", 1000, 4), fac2);
    assert_eq!(seq("mfac,10", 1000, 4), fac2_10);
    // WF,1:3 (weights 1:3:1:3, normalised 0.5:1.5:0.5:1.5), worker 0's chunks:
    // ⌈0.5·R_b/8⌉ for R_b = 1000, 748, 560, 420, 312, 232, 172, 128, 96, 72, 52, 36,
    // 24, 16, 12, 8, 4.
    assert_eq!(
        seq("wf,1:3", 1000, 4),
        runs(&[
            (63, 4),
            (47, 4),
            (35, 4),
            (27, 4),
            (20, 4),
            (15, 4),
            (11, 4),
            (8, 4),
            (6, 4),
            (5, 4),
            (4, 4),
            (3, 4),
            (2, 4),
            (1, 16),
        ])
    );
    // AWF-C (nothing measured, equal weights): ⌈R/8⌉ at every chunk.
    assert_eq!(
        seq("awf-c", 1000, 4),
        [
            &[125, 110, 96, 84, 74, 64, 56, 49, 43, 38, 33, 29, 25, 22, 19, 17, 15][..],
            &[13, 11, 10, 9, 8, 7, 6, 5, 4, 4, 3, 3, 3, 2, 2, 2, 2, 1, 1, 1, 1, 1, 1, 1],
        ]
        .concat()
    );
    // The minimum chunk of AWF-B and AF (nothing learned: FAC2's sizes) acts as FAC2's.
    assert_eq!(seq("awf-b,10", 1000, 4), fac2_10);
    assert_eq!(seq("af,10", 1000, 4), fac2_10);
    assert_eq!(seq("fac,10", 1000, 4), fac2_10);
}

#[test]
fn mfac_places_chunks_by_number() {
    // N = 1000, P = 4, FAC2 sizes: batch 0 chunks at 0, 125, 250, 375; batch 1 (c = 63)
    // at 500, 563, 626, 689; batch 7 (c = 1) at 996..1000; nothing from chunk 32 on.
    let mut b = Batches::new(1000, 4, 1, None);
    assert_eq!(b.chunk(0), Some((0, 125)));
    assert_eq!(b.chunk(3), Some((375, 125)));
    assert_eq!(b.chunk(5), Some((563, 63)));
    assert_eq!(b.chunk(31), Some((999, 1)));
    assert_eq!(b.chunk(32), None);
    assert_eq!(b.chunk(1000), None);
    // Asked out of order, it starts again from the first batch.
    assert_eq!(b.chunk(7), Some((689, 63)));
    // N = 100, P = 2, FAC2 sizes: c_0 = ⌈100/4⌉ = 25, c_1 = ⌈50/4⌉ = 13, c_2 = ⌈24/4⌉ = 6.
    let mut b = Batches::new(100, 2, 1, None);
    assert_eq!(b.chunk(0), Some((0, 25)));
    assert_eq!(b.chunk(3), Some((63, 13)));
    assert_eq!(b.chunk(4), Some((76, 6)));
    assert_eq!(b.chunk(12), None);
    // Every chunk number, walked in order, tiles the loop exactly.
    for (n, p, min) in [
        (0, 3, 1),
        (1, 8, 1),
        (97, 3, 1),
        (1000, 4, 10),
        (4097, 7, 3),
    ] {
        let mut b = Batches::new(n, p, min, None);
        let mut at = 0;
        for k in 0.. {
            match b.chunk(k) {
                Some((lo, len)) => {
                    assert_eq!((lo, len >= 1), (at, true), "N={n} P={p} k={k}");
                    at += len;
                }
                None => break,
            }
        }
        assert_eq!(at, n, "N={n} P={p}");
    }
}

#[test]
fn mfac_follows_fac_with_learned_statistics() {
    // With μ and σ learned, mFAC's batches are FAC's (the redundant calculation gives
    // the same sizes as the locked one): N = 1000, P = 2, σ/μ = 10 gives 321, 321, then
    // R_b = 358 and 54, 54 (see `fac_uses_learned_statistics`).
    let h = LoopHistory {
        iteration_ns: Some(TimeStats {
            mean_ns: 100.0,
            std_dev_ns: 1000.0,
        }),
        ..LoopHistory::default()
    };
    let mfac = seq_with("mfac", 1000, 2, &h);
    assert_eq!(mfac[..4], [321, 321, 54, 54], "{mfac:?}");
    for (n, p) in [(1000, 2), (1000, 4), (100_000, 8), (37, 3)] {
        assert_eq!(
            seq_with("mfac", n, p, &h),
            seq_with("fac", n, p, &h),
            "N={n}"
        );
    }
    // mFAC learns μ and σ as FAC does.
    let h = learned("mfac", 1000, 1);
    assert!((h.iteration_ns.unwrap().mean_ns - 100.0).abs() < 1e-9);
    assert_eq!(seq_with("mfac", 1000, 2, &h)[..2], [500, 500]);
}

#[test]
fn ss_fixed_chunks() {
    assert_eq!(seq("ss,3", 10, 4), [3, 3, 3, 1]);
    assert_eq!(seq("ss", 3, 2), [1, 1, 1]);
}

#[test]
fn gss_by_hand() {
    // ⌈R/4⌉ for R = 100, 75, 56, 42, 31, 23, 17, 12, 9, 6, 4, 3, 2, 1.
    assert_eq!(
        seq("gss", 100, 4),
        [25, 19, 14, 11, 8, 6, 5, 3, 3, 2, 1, 1, 1, 1]
    );
    // Minimum chunk 5: ⌈R/4⌉ for R = 100, 75, 56, 42, 31, 23 then 5s, the last one 2.
    assert_eq!(seq("gss,5", 100, 4), [25, 19, 14, 11, 8, 6, 5, 5, 5, 2]);
}

#[test]
fn tss_by_hand() {
    // N = 100, P = 4: F = ⌈100/8⌉ = 13, L = 1, C = ⌈200/14⌉ = 15, δ = 12/14 = 0.857…
    // F − iδ = 13, 12.14, 11.29, 10.43, 9.57, 8.71, 7.86, 7.00, 6.14, 5.29, 4.43, 3.57,
    // 2.71, … rounded half up: 13, 12, 11, 10, 10, 9, 8, 7, 6, 5, 4, 4, 3. The first twelve
    // add up to 99, so the thirteenth is clamped to the last remaining iteration.
    assert_eq!(
        seq("tss", 100, 4),
        [13, 12, 11, 10, 10, 9, 8, 7, 6, 5, 4, 4, 1]
    );
    // N = 20, P = 2: F = 5, C = ⌈40/6⌉ = 7, δ = 4/6: 5, 4.33, 3.67, 3, 2.33, 1.67, 1
    // → 5, 4, 4, 3, 2, 2 (sum 20).
    assert_eq!(seq("tss", 20, 2), [5, 4, 4, 3, 2, 2]);
}

#[test]
fn fac2_by_hand() {
    // Batches of 2 chunks of ⌈R_b/4⌉: R_b = 100, 50, 24, 12, 6, 2.
    assert_eq!(
        seq("fac2", 100, 2),
        [25, 25, 13, 13, 6, 6, 3, 3, 2, 2, 1, 1]
    );
    // With no history FAC is FAC2, and so are WF with equal weights and the AWFs.
    for s in ["fac", "wf", "wf,2:2", "awf", "awf-b", "awf-d", "af"] {
        assert_eq!(seq(s, 100, 2), seq("fac2", 100, 2), "{s}");
    }
    // AWF-C/E size from the current R: ⌈R/4⌉.
    assert_eq!(seq("awf-c", 20, 2), [5, 4, 3, 2, 2, 1, 1, 1, 1]);
}

#[test]
fn every_rule_covers_the_loop_exactly() {
    for s in CENTRAL {
        for p in [1, 2, 3, 4, 7, 16, 64] {
            for n in (0..40).chain([97, 100, 128, 1000, 4097, 100_000]) {
                let chunks = seq(s, n, p);
                assert_eq!(chunks.iter().sum::<u64>(), n, "{s} N={n} P={p}");
                assert!(chunks.iter().all(|&c| c >= 1), "{s} N={n} P={p}");
            }
        }
    }
    assert_eq!(seq("gss", 1, 8), [1]);
    assert_eq!(seq("tss", 1, 8), [1]);
    assert_eq!(seq("fac2", 3, 8), [1, 1, 1]);
    assert!(seq("af", 0, 2).is_empty());
}

#[test]
fn distributed_schedules_have_no_central_rule() {
    let shape = LoopShape {
        iterations: 10,
        workers: 2,
    };
    // Every schedule whose name is not among the central ones (static, static-steal, rws,
    // laws, auto, runtime and the four selectors), and two of them with an argument.
    let central: Vec<&str> = CENTRAL
        .iter()
        .map(|s| s.split(',').next().unwrap())
        .collect();
    let mut distributed = 0;
    for name in Schedule::names()
        .iter()
        .copied()
        .chain(["static,4", "laws,fac2"])
    {
        if central.contains(&name) {
            continue;
        }
        let s: Schedule = name.parse().unwrap();
        assert!(
            central_rule(&s, shape, &LoopHistory::default()).is_none(),
            "{name}"
        );
        assert!(chunk_sequence(&s, shape).is_none(), "{name}");
        distributed += 1;
    }
    assert_eq!(distributed, 12);
}

fn rule(s: &str, n: u64, p: usize, h: &LoopHistory) -> Box<dyn ChunkRule> {
    central_rule(
        &s.parse().unwrap(),
        LoopShape {
            iterations: n,
            workers: p,
        },
        h,
    )
    .unwrap()
}

#[test]
fn wf_weights_scale_chunks() {
    // Weights 1:3 normalise to 0.5 and 1.5 of the FAC2 chunk ⌈1000/4⌉ = 250.
    let mut r = rule("wf,1:3", 1000, 2, &LoopHistory::default());
    let a = r.next_chunk(0, 1000);
    let b = r.next_chunk(1, 1000 - a);
    assert_eq!((a, b), (125, 375));
    assert_eq!(b, 3 * a);
    // Weights are reused cyclically: 1:3 on 4 workers is 1:3:1:3.
    let mut r = rule("wf,1:3", 800, 4, &LoopHistory::default());
    let c: Vec<u64> = (0..4).map(|w| r.next_chunk(w, 800)).collect();
    assert_eq!(c, [50, 150, 50, 150]);
}

/// What the rule of `schedule` learns from one call over `n` iterations on two workers
/// driven as [`drive`] does (worker 1 `slow` times slower), from nothing.
fn learned(schedule: &str, n: u64, slow: u64) -> LoopHistory {
    let mut h = LoopHistory::default();
    let mut r = rule(schedule, n, 2, &h);
    drive(r.as_mut(), n, slow);
    r.finish(&mut h);
    h
}

/// Drives a rule with two workers where worker 1 takes `slow`× as long per iteration,
/// alternating requests; returns the chunks each worker got.
fn drive(r: &mut dyn ChunkRule, n: u64, slow: u64) -> [Vec<u64>; 2] {
    let mut got = [Vec::new(), Vec::new()];
    let mut remaining = n;
    let mut w = 0;
    while remaining > 0 {
        let c = r.next_chunk(w, remaining);
        assert!((1..=remaining).contains(&c));
        remaining -= c;
        got[w].push(c);
        r.chunk_done(w, c, c * 100 * if w == 1 { slow } else { 1 });
        w = 1 - w;
    }
    got
}

#[test]
fn adaptive_rules_favour_the_faster_worker() {
    for s in ["awf-b", "awf-c", "af"] {
        let mut r = rule(s, 10_000, 2, &LoopHistory::default());
        let [fast, slow] = drive(r.as_mut(), 10_000, 4);
        // Compare the chunks each got once both had been measured (from the third pair of
        // requests on), pairwise.
        let pairs: Vec<(u64, u64)> = fast
            .iter()
            .zip(&slow)
            .skip(2)
            .map(|(&a, &b)| (a, b))
            .collect();
        assert!(!pairs.is_empty(), "{s}");
        let (a, b) = pairs[0];
        assert!(a >= 3 * b, "{s}: fast {a} vs slow {b}; {fast:?} {slow:?}");
        assert!(pairs.iter().all(|&(a, b)| a >= b), "{s}: {fast:?} {slow:?}");
    }
}

#[test]
fn awf_learns_weights_across_calls() {
    let mut h = LoopHistory::default();
    let mut r = rule("awf", 1000, 2, &h);
    let [f, s] = drive(r.as_mut(), 1000, 4);
    assert_eq!(f[0], s[0], "equal weights in the first call");
    r.finish(&mut h);
    assert_eq!(h.calls, 1);
    assert!((h.weights[0] - 1.6).abs() < 1e-9, "{:?}", h.weights);
    assert!((h.weights[1] - 0.4).abs() < 1e-9, "{:?}", h.weights);
    let mut r = rule("awf", 1000, 2, &h);
    let a = r.next_chunk(0, 1000);
    let b = r.next_chunk(1, 1000 - a);
    assert_eq!((a, b), (400, 100));
}

/// Simulates two workers running concurrently on a fake clock: each computes a chunk in
/// 10 ns per iteration, and worker 1 spends `overhead1` ns between finishing a chunk and
/// asking for the next. Returns the chunks each worker got.
fn simulate(r: &mut dyn ChunkRule, now: &AtomicU64, n: u64, overhead1: u64) -> [Vec<u64>; 2] {
    // Per worker: (time of its next event, Some(chunk) if that event is the chunk's end).
    let mut pending: [(u64, Option<u64>); 2] = [(0, None), (overhead1, None)];
    let mut got = [Vec::new(), Vec::new()];
    let mut remaining = n;
    loop {
        let live: Vec<usize> = (0..2)
            .filter(|&w| remaining > 0 || pending[w].1.is_some())
            .collect();
        let Some(&w) = live.iter().min_by_key(|&&w| pending[w].0) else {
            return got;
        };
        let t = pending[w].0;
        now.store(t, Ordering::SeqCst);
        match pending[w].1 {
            None => {
                let c = r.next_chunk(w, remaining);
                remaining -= c;
                got[w].push(c);
                pending[w] = (t + 10 * c, Some(c));
            }
            Some(c) => {
                r.chunk_done(w, c, 10 * c);
                pending[w] = (t + if w == 1 { overhead1 } else { 0 }, None);
            }
        }
    }
}

#[test]
fn awf_d_and_e_count_overhead_time() {
    for (inner, adapt) in [("awf-d", Adapt::PerBatch), ("awf-e", Adapt::PerChunk)] {
        let now = Arc::new(AtomicU64::new(0));
        let clock = {
            let now = now.clone();
            Box::new(move || now.load(Ordering::SeqCst))
        };
        let plain = || Box::new(Weighted::new(2, 1, vec![1.0, 1.0], adapt));
        let mut with = WithOverhead::new(plain(), 2, clock);
        let [fast, slow] = simulate(&mut with, &now, 100_000, 20_000);
        // Worker 1's cycle is 20 µs longer per chunk, so its later chunks are smaller.
        assert!(fast[3] > slow[3], "{inner}: {fast:?} {slow:?}");
        // Without counting the overhead (AWF-B/C) both measure the same rate.
        let mut without = plain();
        simulate(without.as_mut(), &now, 100_000, 20_000);
        let w = without.measured_weights().unwrap();
        assert!(
            (w[0] - 1.0).abs() < 1e-9 && (w[1] - 1.0).abs() < 1e-9,
            "{w:?}"
        );
    }
}

#[test]
fn fac_uses_learned_statistics() {
    // Constant iteration times: σ = 0, so FAC's first batch gives each worker R/P.
    let mut h = learned("fac", 1000, 1);
    let st = h.iteration_ns.unwrap();
    assert!(
        (st.mean_ns - 100.0).abs() < 1e-9 && st.std_dev_ns.abs() < 1e-6,
        "{st:?}"
    );
    assert_eq!(seq_with("fac", 1000, 2, &h)[..2], [500, 500]);
    // A large deviation makes the chunks smaller than FAC2's.
    h.iteration_ns = Some(TimeStats {
        mean_ns: 100.0,
        std_dev_ns: 1000.0,
    });
    // b = Pσ/(2μ√R_b): x_0 = 1 + b² + b√(b²+2) ≈ 1.56 gives ⌈1000/3.12⌉ = 321, then
    // R_b = 358, x ≈ 3.37 gives 54 where FAC2 would give ⌈358/4⌉ = 90.
    let fac = seq_with("fac", 1000, 2, &h);
    assert_eq!(fac[..4], [321, 321, 54, 54], "{fac:?}");
    assert_eq!(fac.iter().sum::<u64>(), 1000);
}

#[test]
fn af_records_per_worker_estimates() {
    let h = learned("af", 10_000, 4);
    let m: Vec<f64> = h
        .worker_iteration_ns
        .iter()
        .map(|e| e.unwrap().mean_ns)
        .collect();
    assert!(
        (m[0] - 100.0).abs() < 1e-9 && (m[1] - 400.0).abs() < 1e-9,
        "{m:?}"
    );
    // The next call starts from them: zero deviation splits R by speed, 4:1.
    let mut r = rule("af", 1000, 2, &h);
    assert_eq!(r.next_chunk(0, 1000), 800);
    assert_eq!(r.next_chunk(1, 200), 40);
}

fn seq_with(s: &str, n: u64, p: usize, h: &LoopHistory) -> Vec<u64> {
    let mut r = rule(s, n, p, h);
    let mut remaining = n;
    let mut out = Vec::new();
    while remaining > 0 {
        let c = r.next_chunk(0, remaining);
        out.push(c);
        remaining -= c;
    }
    out
}
