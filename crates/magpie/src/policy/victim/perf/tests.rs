//! Unit tests of the perf victim policy: hand-set queue lengths, refresh timing, spec parsing.

use super::*;
use std::cell::RefCell;

/// A pool whose queue lengths the test sets.
struct Pool(RefCell<Vec<usize>>);
impl Pool {
    fn new(queues: &[usize]) -> Self {
        Pool(RefCell::new(queues.to_vec()))
    }
    fn set(&self, queues: &[usize]) {
        *self.0.borrow_mut() = queues.to_vec();
    }
}
impl PoolView for Pool {
    fn num_workers(&self) -> usize {
        self.0.borrow().len()
    }
    fn queue_len(&self, w: usize) -> usize {
        self.0.borrow()[w]
    }
}

/// A clock the test moves by hand.
#[derive(Debug, Default)]
struct ManualClock(AtomicU64);
impl ManualClock {
    fn set_ms(&self, ms: f64) {
        self.0.store((ms * 1e6) as u64, Ordering::Relaxed);
    }
}
impl Clock for ManualClock {
    fn now_ns(&self) -> u64 {
        self.0.load(Ordering::Relaxed)
    }
}

fn close(a: f64, b: f64) {
    assert!((a - b).abs() < 1e-9, "{a} != {b}");
}

fn ms(x: u64) -> Duration {
    Duration::from_millis(x)
}

fn cycle(work_us: u64, idle_us: u64) -> TaskCycle {
    TaskCycle {
        idle_ns: idle_us * 1000,
        work_ns: work_us * 1000,
    }
}

fn probe(victim: usize, outcome: ProbeOutcome, latency_ns: u64) -> Probe {
    Probe {
        victim,
        outcome,
        latency_ns,
    }
}

/// The next `k` draws of a reference stream identical to a selector's.
fn draws(reference: &mut RandomOther, k: usize) -> Vec<usize> {
    (0..k).map(|_| reference.draw().unwrap()).collect()
}

// Hand-computed (Python, math.log) values of Eq. 3.1 and 3.2 with the defaults.
/// ln(3.72)·ln(102.72)·0.65 + 1.0·0.35: work 100 µs, idle 0, from 1.0.
const R1: f64 = 4.305365061238248;
/// ln(3.02)·ln(102.72)·0.65 + R1·0.35: then work 30 µs, idle 70 µs.
const R2: f64 = 4.834589953302652;
/// ln(2.72)·ln(52.72)·0.65 + R2·0.35: then work 0, idle 50 µs.
const R3: f64 = 4.270981673707032;
/// ln(2.72)·ln(1002.72)·0.65 + 0.35: work 0, idle 1000 µs, from 1.0.
const R_IDLE: f64 = 4.844644815303632;
/// ln(2.72 + 2.5·4)·0.65: a 2.5 µs probe with 4 local workers, from 0.
const D1: f64 = 1.6530641126427843;
/// ln(2.72 + 0.5·4)·0.65 + D1·0.35: then a 0.5 µs probe.
const D2: f64 = 1.5872481591633263;
/// ln(2.72 + 2.5·16)·0.65: a 2.5 µs probe with 16 local workers, from 0.
const D16: f64 = 2.440533676523761;
/// ln(2.72 + 1e6·4)·0.65: a 1 s probe with 4 local workers, from 0.
const D_SLOW: f64 = 9.881173639404556;

#[test]
fn work_rate_follows_eq_3_1() {
    let p = PerfParams::default();
    let r1 = work_rate(1.0, cycle(100, 0), &p);
    close(r1, R1);
    close(r1, 3.72f64.ln() * 102.72f64.ln() * 0.65 + 0.35);
    let r2 = work_rate(r1, cycle(30, 70), &p);
    close(r2, R2);
    close(work_rate(r2, cycle(0, 50), &p), R3);
    // Cycle length dominates: a cycle of pure idling rates higher than one of pure work.
    close(work_rate(1.0, cycle(0, 1000), &p), R_IDLE);
    // Nanoseconds are converted to fractional microseconds.
    let half = TaskCycle {
        idle_ns: 0,
        work_ns: 500,
    };
    close(
        work_rate(1.0, half, &p),
        3.72f64.ln() * 3.22f64.ln() * 0.65 + 0.35,
    );
    // A zero-length cycle leaves the rate alone (instead of 0/0).
    assert_eq!(work_rate(R1, cycle(0, 0), &p), R1);
    // Other constants.
    let q = PerfParams {
        e: 3.0,
        alpha: 0.5,
        ..PerfParams::default()
    };
    close(
        work_rate(2.0, cycle(100, 0), &q),
        4f64.ln() * 103f64.ln() * 0.5 + 1.0,
    );
}

#[test]
fn delay_follows_eq_3_2() {
    let p = PerfParams::default();
    let d1 = smoothed_delay(0.0, 2_500, 4, &p);
    close(d1, D1);
    close(smoothed_delay(d1, 500, 4, &p), D2);
    close(smoothed_delay(0.0, 2_500, 16, &p), D16);
    close(smoothed_delay(0.0, 1_000_000_000, 4, &p), D_SLOW);
    // A zero latency still costs ln(2.72)·0.65.
    close(smoothed_delay(0.0, 0, 4, &p), 2.72f64.ln() * 0.65);
}

#[test]
fn score_follows_eq_3_3() {
    let p = PerfParams::default();
    assert_eq!(score(2.0, 3, 1.5, &p), 4.5);
    // The load floor: a negligible load counts as 1e-4.
    close(score(0.0, 5, 0.3, &p), -0.2995);
    close(score(0.00005, 1000, 0.05, &p), 0.05);
    // No tasks: minus the delay.
    assert_eq!(score(3.0, 0, 0.7, &p), -0.7);
    let q = PerfParams {
        min_load: 0.5,
        ..PerfParams::default()
    };
    assert_eq!(score(0.1, 4, 1.0, &q), 1.0);
}

#[test]
fn interval_steps() {
    let p = PerfParams::default();
    let mut i = p.refresh_start;
    let mut good = Vec::new();
    for _ in 0..6 {
        i = next_interval(i, true, &p);
        good.push(i);
    }
    assert_eq!(good, [ms(61), ms(121), ms(181), ms(240), ms(240), ms(240)]);
    let mut bad = Vec::new();
    for _ in 0..3 {
        i = next_interval(i, false, &p);
        bad.push(i);
    }
    assert_eq!(bad, [ms(120), ms(5), ms(5)]);
    assert_eq!(next_interval(ms(1), false, &p), ms(5));
    assert_eq!(next_interval(ms(100), false, &p), ms(5));
    assert_eq!(next_interval(ms(5), true, &p), ms(65));
    let q = PerfParams {
        refresh_good: ms(10),
        refresh_bad: ms(3),
        refresh_min: ms(2),
        refresh_max: ms(25),
        ..PerfParams::default()
    };
    assert_eq!(next_interval(ms(20), true, &q), ms(25));
    assert_eq!(next_interval(ms(20), false, &q), ms(17));
    assert_eq!(next_interval(ms(4), false, &q), ms(2));
}

/// Worker loads (1.0, R1, 1.0, R_IDLE) after feeding cycles to workers 1 and 3.
fn loaded_monitor(n: usize) -> PerfMonitor {
    let m = PerfMonitor::new(n, PerfParams::default(), 0);
    m.record_cycle(1, cycle(100, 0));
    m.record_cycle(3, cycle(0, 1000));
    m
}

#[test]
fn monitor_records_rates_and_delays() {
    let m = loaded_monitor(4);
    assert_eq!(m.local_workers(), 4);
    assert_eq!(m.work_rate(0), 1.0);
    close(m.work_rate(1), R1);
    close(m.work_rate(3), R_IDLE);
    m.record_probe(probe(2, ProbeOutcome::Empty, 2_500));
    m.record_probe(probe(2, ProbeOutcome::Stolen, 500));
    close(m.delay(2), D2);
    assert_eq!(m.delay(1), 0.0);
    // Out-of-range workers are ignored.
    m.record_probe(probe(9, ProbeOutcome::Empty, 500));
    m.record_cycle(9, cycle(1, 1));
    assert_eq!(m.delay(9), 0.0);
    // `workers` overrides the pool size in Eq. 3.2.
    let p = PerfParams {
        workers: Some(16),
        ..PerfParams::default()
    };
    let m = PerfMonitor::new(4, p, 0);
    m.record_probe(probe(1, ProbeOutcome::Empty, 2_500));
    close(m.delay(1), D16);
}

#[test]
fn best_victim_is_the_argmax_of_the_scores() {
    let m = loaded_monitor(4);
    // Scores: 0: 1·0; 1: R1·2 = 8.61; 2: 1·7 = 7; 3: R_IDLE·1 = 4.84.
    // By queue length alone 2 would win; the load makes it 1.
    let pool = Pool::new(&[0, 2, 7, 1]);
    let r = m.auxiliary_refresh(&pool).unwrap();
    assert_eq!(r.argmax, 1);
    close(r.score, 2.0 * R1);
    assert_eq!(m.best(), Some(1));
    // A slow victim: a 1 s probe of 1 makes its score 8.61 − 9.88 < 0, and 2 wins.
    m.record_probe(probe(1, ProbeOutcome::Busy, 1_000_000_000));
    close(m.delay(1), D_SLOW);
    let r = m.auxiliary_refresh(&pool).unwrap();
    assert_eq!((r.argmax, r.score), (2, 7.0));
    assert_eq!(m.best(), Some(2));
    // Ties go to the lowest index.
    let m2 = PerfMonitor::new(4, PerfParams::default(), 0);
    pool.set(&[0, 3, 3, 0]);
    assert_eq!(m2.evaluate(&pool).argmax, 1);
    // Nothing to steal anywhere: the best score is ≤ 0 and nothing is cached.
    pool.set(&[0, 0, 0, 0]);
    let r = m.auxiliary_refresh(&pool).unwrap();
    assert!(!r.is_good());
    assert_eq!(r.best(), None);
    assert_eq!(m.best(), None);
    assert_eq!(m.refreshes(), 3);
}

#[test]
fn the_load_floor_decides_whether_a_refresh_is_good() {
    // All loads 0: every score is 1e-4 · tasks − delay.
    let p = PerfParams {
        rate_start: 0.0,
        ..PerfParams::default()
    };
    let m = PerfMonitor::new(3, p, 0);
    m.record_probe(probe(1, ProbeOutcome::Empty, 0));
    // delay_1 = ln(2.72)·0.65 = 0.65039…: 1e-4 · 1000 − 0.65 < 0, nothing cached.
    let pool = Pool::new(&[0, 1000, 0]);
    assert_eq!(m.auxiliary_refresh(&pool).unwrap().best(), None);
    // 1e-4 · 10000 − 0.65 > 0.
    pool.set(&[0, 10000, 0]);
    let r = m.auxiliary_refresh(&pool).unwrap();
    close(r.score, 1.0 - 2.72f64.ln() * 0.65);
    assert_eq!(m.best(), Some(1));
}

/// The victims `s` picks for its next round on `pool`.
fn next_round(s: &mut dyn VictimSelector, pool: &dyn PoolView) -> Vec<usize> {
    let mut round = Vec::new();
    s.next_round(pool, &mut round);
    round
}

/// The monitor and the selectors of a default perf policy for `workers` workers, on a
/// manual clock (at 0), and the clock.
fn on_manual_clock(
    workers: usize,
) -> (
    Arc<ManualClock>,
    Arc<PerfMonitor>,
    Vec<Box<dyn VictimSelector>>,
) {
    let clock = Arc::new(ManualClock::default());
    let policy = PerfVictims::default().with_clock(clock.clone());
    let (monitor, sel) = policy.selectors_with_monitor(workers);
    (clock, monitor, sel)
}

#[test]
fn the_best_victim_is_cached_per_pool_and_a_thief_never_robs_itself() {
    let (clock, monitor, mut sel) = on_manual_clock(3);
    let pool = Pool::new(&[50, 4, 0]);
    clock.set_ms(1.0);
    let mut round = Vec::new();
    // Worker 0 holds the most work: it is cached, and worker 0 itself draws at random.
    sel[0].next_round(&pool, &mut round);
    assert_eq!(monitor.best(), Some(0));
    assert_eq!(round, draws(&mut RandomOther::new(0, 3), 2));
    // Worker 1 goes for 0, alone at first.
    round = next_round(sel[1].as_mut(), &pool);
    assert_eq!(round, [0]);
    assert_eq!(monitor.refreshes(), 1);
}

#[test]
fn refresh_schedule() {
    let (clock, monitor, mut sel) = on_manual_clock(4);
    let mut random0 = RandomOther::new(0, 4);
    let pool = Pool::new(&[0, 5, 0, 0]);
    assert_eq!(monitor.next_refresh_ns(), 1_000_000);
    assert_eq!(monitor.interval(), ms(1));
    let mut round = Vec::new();

    // Before 1 ms: no refresh, nothing cached, a random round.
    clock.set_ms(0.999);
    sel[0].next_round(&pool, &mut round);
    assert_eq!(monitor.refreshes(), 0);
    assert_eq!(round, draws(&mut random0, 3));

    // At 1 ms: a good refresh (worker 1 scores 5): next interval 61 ms, due at 62 ms.
    clock.set_ms(1.0);
    round = next_round(sel[0].as_mut(), &pool);
    assert_eq!(monitor.refreshes(), 1);
    assert_eq!(round, [1]);
    assert_eq!(monitor.interval(), ms(61));
    assert_eq!(monitor.next_refresh_ns(), 62_000_000);
    sel[0].on_probe(&pool, probe(1, ProbeOutcome::Stolen, 0), &mut round);
    assert_eq!(round, [1]);

    // Another thief at the same instant does not refresh again.
    round = next_round(sel[2].as_mut(), &pool);
    assert_eq!(monitor.refreshes(), 1);
    assert_eq!(round, [1]);

    // Not yet due at 61.999 ms.
    clock.set_ms(61.999);
    next_round(sel[0].as_mut(), &pool);
    assert_eq!(monitor.refreshes(), 1);

    // At 62 ms: a good refresh again: 121 ms, due at 183 ms.
    clock.set_ms(62.0);
    next_round(sel[3].as_mut(), &pool);
    assert_eq!(monitor.refreshes(), 2);
    assert_eq!(monitor.interval(), ms(121));
    assert_eq!(monitor.next_refresh_ns(), 183_000_000);

    // At 200 ms with nothing anywhere: a bad refresh: 121 − 120 = 1 → 5 ms, due at
    // 205 ms; nothing cached, so the round is random.
    pool.set(&[0, 0, 0, 0]);
    clock.set_ms(200.0);
    round = next_round(sel[0].as_mut(), &pool);
    assert_eq!(monitor.refreshes(), 3);
    assert_eq!(monitor.interval(), ms(5));
    assert_eq!(monitor.next_refresh_ns(), 205_000_000);
    assert_eq!(monitor.best(), None);
    assert_eq!(round, draws(&mut random0, 3));
}

#[test]
fn a_failed_steal_from_the_cached_victim_refreshes_once_and_steals_once_more() {
    let (clock, monitor, mut sel) = on_manual_clock(4);
    let mut random0 = RandomOther::new(0, 4);
    let pool = Pool::new(&[0, 5, 0, 0]);
    clock.set_ms(1.0);
    let mut round = Vec::new();
    sel[0].next_round(&pool, &mut round);
    assert_eq!(round, [1]);
    assert_eq!(monitor.refreshes(), 1);

    // 1 ran dry and 3 has work: the failed probe refreshes (not the schedule) and
    // appends 3, then the random victims.
    pool.set(&[0, 0, 0, 6]);
    sel[0].on_probe(&pool, probe(1, ProbeOutcome::Empty, 2_500), &mut round);
    assert_eq!(monitor.refreshes(), 2);
    assert_eq!(monitor.best(), Some(3));
    let mut expected = vec![1, 3];
    expected.extend(draws(&mut random0, 3));
    assert_eq!(round, expected);
    assert_eq!(monitor.interval(), ms(61));
    assert_eq!(monitor.next_refresh_ns(), 62_000_000);
    // The probe's latency went into 1's delay.
    close(monitor.delay(1), D1);
    // Later probes of the round change nothing but delays: no more refreshes, no more
    // victims.
    sel[0].on_probe(&pool, probe(3, ProbeOutcome::Busy, 0), &mut round);
    sel[0].on_probe(&pool, probe(2, ProbeOutcome::Empty, 0), &mut round);
    assert_eq!(round.len(), expected.len());
    assert_eq!(monitor.refreshes(), 2);

    // If the refresh finds the same victim again (it still has tasks: the steal lost a
    // race), the thief tries it once more.
    round = next_round(sel[0].as_mut(), &pool);
    assert_eq!(round, [3]);
    sel[0].on_probe(&pool, probe(3, ProbeOutcome::Busy, 0), &mut round);
    assert_eq!(round[..2], [3, 3]);
    assert_eq!(round.len(), 5);

    // Nothing anywhere: the refresh caches nothing, so only the random victims follow.
    pool.set(&[0, 0, 0, 0]);
    round = next_round(sel[0].as_mut(), &pool);
    assert_eq!(round, [3]);
    draws(&mut random0, 3); // the draws of the round above
    sel[0].on_probe(&pool, probe(3, ProbeOutcome::Empty, 0), &mut round);
    let mut expected = vec![3];
    expected.extend(draws(&mut random0, 3));
    assert_eq!(round, expected);
    assert_eq!(monitor.best(), None);
}

#[test]
fn refreshes_are_single_flight() {
    let (clock, monitor, mut sel) = on_manual_clock(3);
    let pool = Pool::new(&[0, 5, 0]);
    clock.set_ms(5.0);

    // While another refresher holds the guard, a due refresh is skipped (and stays
    // due), and so is an auxiliary one.
    let guard = monitor.try_guard().unwrap();
    assert!(monitor.try_guard().is_none());
    let mut round = Vec::new();
    sel[0].next_round(&pool, &mut round);
    assert_eq!(monitor.refreshes(), 0);
    assert_eq!(monitor.best(), None);
    assert_eq!(monitor.interval(), ms(1));
    assert_eq!(monitor.next_refresh_ns(), 1_000_000);
    assert!(monitor.refresh_if_due(&pool, 5_000_000).is_none());
    assert!(monitor.auxiliary_refresh(&pool).is_none());
    drop(guard);

    // Released: the next round refreshes.
    round = next_round(sel[2].as_mut(), &pool);
    assert_eq!(monitor.refreshes(), 1);
    assert_eq!(round, [1]);

    // A thief whose cached steal fails while the guard is held does not refresh, and
    // does not retry the victim that just failed (the cache still names it).
    pool.set(&[0, 0, 4]);
    let guard = monitor.try_guard().unwrap();
    sel[2].on_probe(&pool, probe(1, ProbeOutcome::Empty, 0), &mut round);
    drop(guard);
    assert_eq!(monitor.refreshes(), 1);
    assert_eq!(monitor.best(), Some(1));
    let mut expected = vec![1];
    let mut random2 = RandomOther::new(2, 3);
    expected.extend(draws(&mut random2, 2));
    assert_eq!(round, expected);
}

#[test]
fn task_cycles_update_the_thiefs_own_rate() {
    let (monitor, mut sel) = PerfVictims::default().selectors_with_monitor(3);
    sel[2].on_task_done(cycle(100, 0));
    close(monitor.work_rate(2), R1);
    assert_eq!(monitor.work_rate(0), 1.0);
    assert_eq!(monitor.work_rate(1), 1.0);
}

#[test]
fn params() {
    let p = super::super::by_name("perf").unwrap();
    assert_eq!(p.name(), "perf");
    assert!(p.measures());
    let mut spec: PolicySpec = "perf:e=3,alpha=0.5,min-load=0.01,rate-start=2,\
        refresh-start=2ms,refresh-good=10ms,refresh-bad=20ms,refresh-min=1ms,\
        refresh-max=50ms,workers=8"
        .parse()
        .unwrap();
    let got = PerfParams::from_spec(&mut spec).unwrap();
    spec.finish().unwrap();
    assert_eq!(
        got,
        PerfParams {
            e: 3.0,
            alpha: 0.5,
            min_load: 0.01,
            rate_start: 2.0,
            refresh_start: ms(2),
            refresh_good: ms(10),
            refresh_bad: ms(20),
            refresh_min: ms(1),
            refresh_max: ms(50),
            workers: Some(8),
        }
    );
    let mut spec: PolicySpec = "perf".parse().unwrap();
    assert_eq!(
        PerfParams::from_spec(&mut spec).unwrap(),
        PerfParams::default()
    );
    for (bad, says) in [
        ("perf:e=0.5", "e=0.5: must be at least 1"),
        (
            "perf:alpha=0",
            "alpha=0: the weight of a new sample must be in (0, 1]",
        ),
        ("perf:alpha=1.5", "alpha=1.5"),
        ("perf:alpha=x", "parameter alpha=\"x\": expected a number"),
        (
            "perf:min-load=0",
            "min-load=0: the load floor must be greater than 0",
        ),
        ("perf:rate-start=-1", "rate-start=-1"),
        (
            "perf:refresh-min=300ms",
            "refresh-min (300ms) must not exceed refresh-max (240ms)",
        ),
        ("perf:refresh-max=1", "expected a duration"),
        (
            "perf:workers=0",
            "workers=0: the number of local workers must be at least 1",
        ),
        ("perf:workers=-2", "expected a non-negative integer"),
        ("perf:refresh=5ms", "unknown parameter \"refresh\""),
    ] {
        let err = super::super::by_name(bad).unwrap_err().to_string();
        assert!(err.starts_with("perf: "), "{bad}: {err}");
        assert!(err.contains(says), "{bad}: {err}");
    }
    assert!(PerfVictims::new(PerfParams {
        alpha: 0.0,
        ..PerfParams::default()
    })
    .is_err());
    // The start interval may lie outside [refresh-min, refresh-max].
    assert!(super::super::by_name("perf:refresh-start=1s").is_ok());
}
