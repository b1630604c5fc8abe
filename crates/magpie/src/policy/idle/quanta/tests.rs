//! Unit tests of the quanta idle policies: scripted clocks, the inefficiency conditions, spec parsing.

use super::*;
use crate::policy::idle::by_name;

/// A worker's quanta state on a hand-driven clock; events happen at given nanoseconds.
struct Script {
    clock: ManualClock,
    s: QuantaState<ManualClock>,
}

impl Script {
    fn dynamic(spec: &str) -> Self {
        let p = DynamicQuanta::from_spec(&mut spec.parse().unwrap()).unwrap();
        let clock = ManualClock::default();
        let s = p.state_with_clock(clock.clone());
        Script { clock, s }
    }

    fn long_short(spec: &str) -> Self {
        let p = LongShortQuanta::from_spec(&mut spec.parse().unwrap()).unwrap();
        let clock = ManualClock::default();
        let s = p.state_with_clock(clock.clone());
        Script { clock, s }
    }

    /// A failed steal at `at`: the sleep asked for, in nanoseconds.
    fn fail(&mut self, at: u64) -> Option<u64> {
        self.clock.set_ns(at);
        let action = self.s.on_failed_steal();
        assert_eq!(self.s.on_failed_round(), IdleAction::Spin);
        action.map(|a| match a {
            IdleAction::Sleep(d) => d.as_nanos() as u64,
            other => panic!("expected a sleep, got {other:?}"),
        })
    }

    /// A successful steal (or a wake-up) at `at`.
    fn found(&mut self, at: u64) {
        self.clock.set_ns(at);
        self.s.on_work_found();
    }

    fn long(&self) -> Long {
        self.s.long.unwrap()
    }
}

#[test]
fn efficient_quantum_does_not_sleep() {
    let mut w = Script::dynamic("dynamic-quanta");
    // The first quantum (0–75 µs) ends while working: discarded at the first failure.
    assert_eq!(w.fail(100_000), None);
    assert_eq!((w.s.t_qs, w.s.t_qe), (100_000, 175_000));
    w.found(110_000); // 10 µs stealing
    assert_eq!(w.fail(150_000), None);
    // Quantum 100–180 µs: 10 + 30 µs of 80 stealing, r_s = 0.5, not above T = 0.5.
    assert_eq!(w.fail(180_000), None);
    assert_eq!(w.s.inefficient_quanta(), 0);
    assert_eq!((w.s.t_qs, w.s.t_qe), (180_000, 255_000));
    // The next one is all stealing: r_s = 1, sleep 75 µs · 1 · 0.4.
    assert_eq!(w.fail(255_000), None);
    assert_eq!(w.fail(260_000), Some(30_000));
    assert_eq!(w.s.inefficient_quanta(), 1);
}

#[test]
fn partial_steal_ratio_scales_the_sleep() {
    let script = |spec: &str| {
        let mut w = Script::dynamic(spec);
        assert_eq!(w.fail(0), None);
        w.found(20_000);
        assert_eq!(w.fail(40_000), None);
        // 20 + 60 µs of 100 stealing: r_s = 0.8.
        w.fail(100_000)
    };
    assert_eq!(script("dynamic-quanta"), Some(24_000)); // 75 µs · 0.8 · 0.4
    assert_eq!(script("dynamic-quanta:s1=1"), Some(60_000));
    assert_eq!(script("dynamic-quanta:t=0.79"), Some(24_000));
    assert_eq!(script("dynamic-quanta:t=0.8"), None);
    assert_eq!(script("dynamic-quanta:quantum=50us"), Some(16_000));
    assert_eq!(script("dynamic-quanta:max-sleep=20us"), Some(20_000));
}

/// Steals that always fail, sleeping exactly as asked: the sleeps and quantum lengths.
fn starving(spec: &str, quanta: usize) -> (Vec<u64>, Vec<u64>) {
    let mut w = Script::dynamic(spec);
    let (mut sleeps, mut lens) = (vec![], vec![]);
    let mut start = 0;
    assert_eq!(w.fail(start), None);
    for _ in 0..quanta {
        let len = w.s.quantum_length().as_nanos() as u64;
        lens.push(len);
        // The quantum lasts at least `len` (strictly more to end), steals failing all along.
        assert_eq!(w.fail(start + len / 2), None);
        assert_eq!(w.fail(start + len), None);
        let st = w
            .fail(start + len + 1)
            .expect("an all-stealing quantum is inefficient");
        sleeps.push(st);
        start += len + 1 + st;
        // The next quantum starts at the first failure after the sleep.
        assert_eq!(w.fail(start), None);
    }
    (sleeps, lens)
}

#[test]
fn inefficient_quanta_sleep_longer_and_shorten() {
    let (sleeps, lens) = starving("dynamic-quanta", 12);
    // min(75 µs · 1 · 0.4 + 75 µs · n_iq · 0.8, 1.5 ms), n_iq = 0, 1, 2, …
    assert_eq!(
        sleeps,
        [
            30_000, 90_000, 150_000, 210_000, 270_000, 330_000, 390_000, 450_000, 510_000, 570_000,
            630_000, 690_000
        ]
    );
    // 75 µs / (n_iq · 2 + 1), but after the 8th inefficient quantum in a row a full one.
    assert_eq!(
        lens,
        [75_000, 25_000, 15_000, 10_714, 8_333, 6_818, 5_769, 5_000, 75_000, 3_947, 3_571, 3_261]
    );
    // The sleep reaches its cap at n_iq = 25 (30 + 25 · 60 µs > 1.5 ms).
    let (sleeps, _) = starving("dynamic-quanta", 27);
    assert_eq!(sleeps[24], 1_470_000);
    assert_eq!(sleeps[25..], [1_500_000, 1_500_000]);
}

#[test]
fn inserted_normal_quantum_period() {
    let (_, lens) = starving("dynamic-quanta:normal-every=0", 10);
    assert_eq!(lens[8..], [4_412, 3_947]); // 75/17 and 75/19 µs: never a full one
    let (_, lens) = starving("dynamic-quanta:normal-every=3", 8);
    assert_eq!(
        lens,
        [75_000, 25_000, 15_000, 75_000, 8_333, 6_818, 75_000, 5_000]
    );
    let (sleeps, lens) = starving("dynamic-quanta:c=0,s2=0", 3);
    assert_eq!(lens, [75_000; 3]);
    assert_eq!(sleeps, [30_000; 3]);
}

#[test]
fn first_failure_after_the_end_discards_the_quantum() {
    let mut w = Script::dynamic("dynamic-quanta");
    assert_eq!(w.fail(0), None);
    assert_eq!(w.fail(75_001), Some(30_000));
    // Woken early by work 15 µs into the sleep: the 25 µs quantum starts now.
    w.found(90_000);
    assert_eq!((w.s.t_qs, w.s.t_qe), (90_000, 115_000));
    // Work until long after the quantum's end: the first failure discards it (no
    // classification, n_iq stays 1) and starts one as long (25 µs).
    assert_eq!(w.fail(1_090_000), None);
    assert_eq!(w.s.inefficient_quanta(), 1);
    assert_eq!(w.fail(1_115_000), None);
    // All stealing: 75 µs · 0.4 + 75 µs · 1 · 0.8.
    assert_eq!(w.fail(1_115_001), Some(90_000));
}

#[test]
fn the_next_quantum_starts_at_the_first_event_after_a_sleep() {
    // Woken early: the quantum starts at the wake-up, not at the planned end of the sleep.
    let mut w = Script::dynamic("dynamic-quanta");
    assert_eq!(w.fail(0), None);
    assert_eq!(w.fail(75_001), Some(30_000));
    w.found(80_000);
    assert_eq!(w.fail(80_000), None);
    assert_eq!(w.fail(105_000), None);
    assert_eq!(w.fail(105_001), Some(90_000));
    // Overslept: the quantum starts when the worker is back, the oversleep is no steal time.
    let mut w = Script::dynamic("dynamic-quanta");
    assert_eq!(w.fail(0), None);
    assert_eq!(w.fail(75_001), Some(30_000));
    assert_eq!(w.fail(200_000), None);
    assert_eq!(w.fail(225_000), None);
    assert_eq!(w.fail(225_001), Some(90_000));
}

#[test]
fn work_found_without_failures_never_reads_the_clock() {
    #[derive(Debug, Clone, Default)]
    struct Counting(Arc<AtomicU64>);
    impl Clock for Counting {
        fn now_ns(&self) -> u64 {
            self.0.fetch_add(1, Ordering::Relaxed);
            0
        }
    }
    let clock = Counting::default();
    let mut s = DynamicQuanta::default().state_with_clock(clock.clone());
    let reads = clock.0.load(Ordering::Relaxed);
    for _ in 0..1000 {
        s.on_work_found();
    }
    assert_eq!(clock.0.load(Ordering::Relaxed), reads);
    assert_eq!(s.on_failed_steal(), None);
    s.on_work_found();
    assert_eq!(clock.0.load(Ordering::Relaxed), reads + 2);
}

#[test]
fn long_short_sleep_excludes_sleeps_from_the_long_quantum() {
    let mut w = Script::long_short("long-short-quanta");
    assert_eq!(w.fail(0), None);
    // r_s = 1, r_ls = (80/80 + 0)/2: 75 µs · 1 · 0.5 · 0.8.
    assert_eq!(w.fail(80_000), Some(30_000));
    assert_eq!(w.fail(110_000), None);
    assert_eq!(w.long().t_lqs, 30_000);
    assert_eq!(w.fail(135_000), None);
    // Long quantum 0–140 µs less 30 µs asleep, 80 + 30 µs stealing: r_ls = (1 + 0)/2;
    // 75 µs · 1 · 0.5 · 0.8 + 75 µs · 1 · 0.8.
    assert_eq!(w.fail(140_000), Some(90_000));
}

#[test]
fn long_short_uses_the_previous_long_quantum() {
    let mut w = Script::long_short("long-short-quanta");
    assert_eq!(w.fail(0), None);
    w.found(31_000);
    // The first failure after 3.1 ms of work ends the long quantum: r_pls = 31/3100.
    assert_eq!(w.fail(3_100_000), None);
    assert_eq!(w.long().r_pls, 0.01);
    assert_eq!((w.long().t_lqs, w.long().t_lqe), (3_100_000, 6_100_000));
    // r_s = 1, r_ls = (1 + 0.01)/2: 75 µs · 1 · 0.505 · 0.8.
    assert_eq!(w.fail(3_175_001), Some(30_300));
}

#[test]
fn long_quantum_ending_alone_counts_its_stealing() {
    let mut w = Script::long_short("long-short-quanta:quantum=1ms,long-quantum=100us");
    assert_eq!(w.fail(0), None);
    assert_eq!(w.fail(100_001), None);
    assert_eq!(w.long().r_pls, 1.0);
    assert_eq!(w.long().t_lqs, 100_001);
    // r_s = 1, r_ls = (1 + 1)/2: 1 ms · 1 · 1 · 0.8.
    assert_eq!(w.fail(1_000_001), Some(800_000));
}

#[test]
fn long_short_conditions() {
    let script = |cond: &str| {
        let mut w = Script::long_short(&format!(
            "long-short-quanta:quantum=90us,long-quantum=90us,cond={cond}"
        ));
        assert_eq!(w.fail(0), None);
        // Both quanta end: r_s = 1, r_ls = 0.5; sleep 90 µs · 1 · 0.5 · 0.8.
        assert_eq!(w.fail(90_001), Some(36_000));
        // After the sleep the long quantum ends: 90 µs stealing in 126 − 36 µs: r_pls = 1.
        assert_eq!(w.fail(126_001), None);
        assert_eq!(w.long().r_pls, 1.0);
        assert_eq!(w.s.quantum_length(), Duration::from_micros(30));
        w.found(136_001);
        assert_eq!(w.fail(151_002), None);
        // Short quantum 126–156 µs: r_s = 15.001/30.002 = 0.5; r_ls = (0.5 + 1)/2 = 0.75.
        w.fail(156_003)
    };
    // 90 µs · 0.5 · 0.75 · 0.8 + 90 µs · 1 · 0.8
    assert_eq!(script("or"), Some(99_000));
    assert_eq!(script("mean"), Some(99_000));
    assert_eq!(script("short"), None);
    let t = 0.6;
    for (cond, r_s, r_ls, inefficient) in [
        (Inefficiency::Or, 0.5, 0.75, true),
        (Inefficiency::Or, 0.6, 0.6, false),
        (Inefficiency::And, 0.7, 0.75, true),
        (Inefficiency::And, 1.0, 0.5, false),
        (Inefficiency::Short, 0.61, 0.0, true),
        (Inefficiency::Short, 0.5, 1.0, false),
        (Inefficiency::Mean, 0.4, 0.9, true),
        (Inefficiency::Mean, 0.4, 0.7, false),
    ] {
        assert_eq!(
            cond.holds(r_s, r_ls, t),
            inefficient,
            "{cond:?} {r_s} {r_ls}"
        );
    }
}

#[test]
fn parameters_are_read_from_the_spec() {
    let p = DynamicQuanta::from_spec(
        &mut "dynamic-quanta:s1=0.1,s2=0.2,max-sleep=1ms,quantum=300us,t=0.7,c=0.5,normal-every=4"
            .parse()
            .unwrap(),
    )
    .unwrap();
    assert_eq!(
        p,
        DynamicQuanta {
            s1: 0.1,
            s2: 0.2,
            max_sleep: Duration::from_millis(1),
            quantum: Duration::from_micros(300),
            t: 0.7,
            c: 0.5,
            normal_every: 4,
        }
    );
    let p = LongShortQuanta::from_spec(
        &mut "long-short-quanta:long-quantum=5ms,cond=AND"
            .parse()
            .unwrap(),
    )
    .unwrap();
    assert_eq!(
        p,
        LongShortQuanta {
            long_quantum: Duration::from_millis(5),
            condition: Inefficiency::And,
            ..LongShortQuanta::default()
        }
    );
    assert_eq!(LongShortQuanta::default().s1, 0.8);
    assert_eq!(LongShortQuanta::default().t, 0.6);
    for name in ["dynamic-quanta", "long-short-quanta"] {
        let p = by_name(name).unwrap();
        assert_eq!(p.name(), name);
        // The real clock: a first failure never sleeps.
        let mut s = p.state(0);
        assert_eq!(s.on_failed_steal(), None);
        assert_eq!(s.on_failed_round(), IdleAction::Spin);
        s.on_work_found();
    }
}

#[test]
fn bad_parameters_name_policy_and_key() {
    let cases = [
        (
            "dynamic-quanta:t=2",
            "dynamic-quanta: t=2 must lie in [0, 1]",
        ),
        (
            "dynamic-quanta:quantum=0us",
            "dynamic-quanta: quantum must be greater than 0",
        ),
        (
            "dynamic-quanta:quantum=fast",
            "dynamic-quanta: parameter quantum=\"fast\": expected a duration",
        ),
        (
            "dynamic-quanta:max-sleep=2",
            "dynamic-quanta: parameter max-sleep=\"2\": expected a duration",
        ),
        (
            "dynamic-quanta:s1=-1",
            "dynamic-quanta: s1=-1 must not be negative",
        ),
        (
            "dynamic-quanta:s2=x",
            "dynamic-quanta: parameter s2=\"x\": expected a number",
        ),
        (
            "dynamic-quanta:c=-0.5",
            "dynamic-quanta: c=-0.5 must not be negative",
        ),
        (
            "dynamic-quanta:normal-every=-1",
            "dynamic-quanta: parameter normal-every=\"-1\": expected a non-negative integer",
        ),
        (
            "dynamic-quanta:normal-every=5000000000",
            "dynamic-quanta: normal-every=5000000000 is too large",
        ),
        (
            "dynamic-quanta:long-quantum=3ms",
            "dynamic-quanta: unknown parameter \"long-quantum\"",
        ),
        (
            "long-short-quanta:cond=xor",
            "long-short-quanta: parameter cond=\"xor\": expected short, and, or or mean",
        ),
        (
            "long-short-quanta:long-quantum=0s",
            "long-short-quanta: long-quantum must be greater than 0",
        ),
        (
            "long-short-quanta:t=-0.1",
            "long-short-quanta: t=-0.1 must lie in [0, 1]",
        ),
    ];
    for (spec, message) in cases {
        let e = by_name(spec).unwrap_err().to_string();
        assert!(e.contains(message), "{spec}: {e:?} lacks {message:?}");
    }
}

#[test]
fn unknown_names_are_left_to_others() {
    assert!(build(&mut "linear".parse().unwrap()).is_none());
}

#[test]
fn every_idle_policy_name_builds() {
    for &name in crate::policy::idle::NAMES {
        assert_eq!(by_name(name).unwrap().name(), name);
    }
}
