//! Traces (`ThreadPool::start_trace` / `take_trace`): a traced pool records exactly one task
//! span per job its workers ran, spans that nest or follow each other on every worker, one
//! steal event per steal the counters count (with a victim), one exposure event per exposure
//! request, loop chunks that cover the loop exactly once; nothing when no recording runs;
//! and two pools recording at once keep their events apart. Every deque.

use magpie::deque::DequeKind;
use magpie::loops::{Loop, Schedule};
use magpie::trace::{Event, EventKind, Trace};
use magpie::{ThreadPool, ThreadPoolBuilder};

fn pool(deque: DequeKind, workers: usize) -> ThreadPool {
    ThreadPoolBuilder::new()
        .num_workers(workers)
        .deque(deque)
        .build()
        .unwrap()
}

fn fib(n: u64) -> u64 {
    if n < 2 {
        return n;
    }
    let (a, b) = magpie::join(|| fib(n - 1), || fib(n - 2));
    a + b
}

fn count(trace: &Trace, pred: impl Fn(&EventKind) -> bool) -> usize {
    trace.events().filter(|(_, e)| pred(&e.kind)).count()
}

/// Every event lies in the recording; on each worker, any two spans are disjoint or one
/// holds the other.
fn assert_well_formed(trace: &Trace) {
    for (w, t) in trace.workers.iter().enumerate() {
        let mut open: Vec<&Event> = Vec::new();
        for e in &t.events {
            assert!(
                e.start_ns <= e.end_ns,
                "worker {w}: {e:?} ends before it starts"
            );
            assert!(
                e.end_ns <= trace.duration_ns,
                "worker {w}: {e:?} after the take"
            );
            if !e.kind.is_span() {
                assert_eq!(e.start_ns, e.end_ns, "worker {w}: instant {e:?} lasts");
                continue;
            }
            while open.last().is_some_and(|o| o.end_ns <= e.start_ns) {
                open.pop();
            }
            if let Some(o) = open.last() {
                assert!(
                    e.end_ns <= o.end_ns,
                    "worker {w}: {e:?} overlaps {o:?} without nesting in it"
                );
            }
            open.push(e);
        }
    }
}

#[test]
fn spawned_tasks_are_one_span_each() {
    const N: usize = 200;
    for deque in DequeKind::ALL {
        let pool = pool(deque, 2);
        pool.start_trace();
        pool.scope(|s| {
            for i in 0..N {
                s.spawn(move |_| {
                    std::hint::black_box((0..(i as u64 % 7) * 100).sum::<u64>());
                });
            }
        });
        let trace = pool.take_trace();
        assert_eq!(trace.workers.len(), 2);
        // The N spawned jobs and the scope's own job (sent to the pool from outside).
        assert_eq!(count(&trace, |k| *k == EventKind::Task), N + 1, "{deque}");
        assert_well_formed(&trace);
    }
}

/// `ROUNDS` times: two tasks queued, then the queuing job waits (serving exposure requests)
/// until another worker has run one of them: at least `ROUNDS` steals, whatever the timing.
fn forced_steals(workers: usize) -> usize {
    const ROUNDS: usize = 20;
    let me = magpie::current_worker_index();
    let mut stolen = 0;
    for _ in 0..ROUNDS {
        let elsewhere = std::sync::atomic::AtomicBool::new(false);
        magpie::scope(|s| {
            for _ in 0..2 {
                s.spawn(|_| {
                    if magpie::current_worker_index() != me {
                        elsewhere.store(true, std::sync::atomic::Ordering::Release);
                    }
                });
            }
            if workers > 1 {
                while !elsewhere.load(std::sync::atomic::Ordering::Acquire) {
                    magpie::expose_work();
                    std::hint::spin_loop();
                }
            }
        });
        stolen += usize::from(elsewhere.into_inner());
    }
    stolen
}

#[test]
fn steals_match_the_counters() {
    for deque in DequeKind::ALL {
        for workers in [1, 2, 3] {
            let pool = pool(deque, workers);
            pool.reset_stats();
            pool.start_trace();
            let (got, forced) = pool.install(|| (fib(20), forced_steals(workers)));
            assert_eq!(forced, if workers > 1 { 20 } else { 0 });
            // Idle workers may still probe victims (and ask them to expose work) around
            // the end of the recording: the counters read just before and just after it
            // bound what the trace can hold, one probe in flight per worker apart.
            let before = pool.stats();
            let trace = pool.take_trace();
            let stats = pool.stats();
            assert_eq!(got, 6765);
            assert_well_formed(&trace);
            let total = stats.total();
            if workers > 1 {
                assert!(total.steals >= 20, "{deque}: {total:?}");
                if deque != DequeKind::ChaseLev {
                    assert!(total.exposure_requests > 0, "{deque}: {total:?}");
                }
            }
            for (w, t) in trace.workers.iter().enumerate() {
                let mut steals = 0;
                let mut requests = 0;
                let mut signals = 0;
                for e in &t.events {
                    match e.kind {
                        EventKind::Steal { victim } => {
                            assert!(victim < workers && victim != w, "{deque}: {e:?} on {w}");
                            steals += 1;
                        }
                        EventKind::ExposureRequest { victim } => {
                            assert!(victim < workers && victim != w, "{deque}: {e:?} on {w}");
                            requests += 1;
                        }
                        EventKind::Signal { .. } => signals += 1,
                        EventKind::StealAttempts { attempts } => assert!(attempts > 0),
                        _ => {}
                    }
                }
                let s = &stats.workers[w];
                let ctx = format!("{deque}, {workers} workers, worker {w}");
                let b = &before.workers[w];
                // No work is left to steal once `install` has returned: steals are exact.
                assert_eq!(steals, s.steals, "{ctx}: steals");
                let within = |n: u64, lo: u64, hi: u64| n <= hi && n + 1 >= lo;
                assert!(
                    within(requests, b.exposure_requests, s.exposure_requests),
                    "{ctx}: exposure requests {requests}, counters {} then {}",
                    b.exposure_requests,
                    s.exposure_requests
                );
                assert!(
                    within(signals, b.signals_sent, s.signals_sent),
                    "{ctx}: signals {signals}, counters {} then {}",
                    b.signals_sent,
                    s.signals_sent
                );
                // Each stolen job ran: at least as many task spans as steals.
                let tasks = t
                    .events
                    .iter()
                    .filter(|e| e.kind == EventKind::Task)
                    .count();
                assert!(tasks as u64 >= s.steals, "{ctx}: {tasks} tasks");
                if std::env::var_os("TRACE_TEST_SHOW").is_some() {
                    eprintln!("{ctx}: {steals} steals, {requests} requests, {signals} signals");
                }
            }
        }
    }
}

#[test]
fn loop_chunks_cover_the_range_once() {
    const N: usize = 10_007;
    for spec in [
        "static", "static,7", "ss,16", "gss", "fac2", "awf-b", "rws", "auto",
    ] {
        let schedule: Schedule = spec.parse().unwrap();
        let pool = pool(DequeKind::default(), 3);
        let lp = Loop::new(schedule);
        pool.start_trace();
        pool.install(|| {
            lp.for_each(5..5 + N, |i| {
                std::hint::black_box(i);
            })
        });
        let trace = pool.take_trace();
        assert_well_formed(&trace);
        let mut chunks: Vec<(usize, usize)> = trace
            .events()
            .filter_map(|(_, e)| match e.kind {
                EventKind::Chunk { start, end } => Some((start, end)),
                _ => None,
            })
            .collect();
        chunks.sort_unstable();
        let mut next = 5;
        for (start, end) in chunks {
            assert_eq!(start, next, "{spec}: a gap or an overlap at {start}");
            assert!(end > start, "{spec}: an empty chunk at {start}");
            next = end;
        }
        assert_eq!(next, 5 + N, "{spec}: the chunks end early");
    }
}

#[test]
fn nothing_is_recorded_when_off() {
    let pool = pool(DequeKind::default(), 2);
    // Never started.
    assert_eq!(pool.install(|| fib(18)), 2584);
    let trace = pool.take_trace();
    assert_eq!(trace.workers.len(), 2);
    assert_eq!(trace.events().count(), 0);
    assert_eq!(trace.duration_ns, 0);
    // Started, taken, then work: the next take is empty.
    pool.start_trace();
    pool.install(|| fib(10));
    assert!(pool.take_trace().events().count() > 0);
    pool.install(|| fib(18));
    assert_eq!(pool.take_trace().events().count(), 0);
}

#[test]
fn pools_record_apart() {
    let a = pool(DequeKind::default(), 2);
    let b = pool(DequeKind::default(), 3);
    a.start_trace();
    b.start_trace();
    let spawn = |p: &ThreadPool, n: usize| {
        p.scope(|s| {
            for _ in 0..n {
                s.spawn(|_| {
                    std::hint::black_box((0..1000u64).sum::<u64>());
                });
            }
        })
    };
    std::thread::scope(|s| {
        s.spawn(|| spawn(&a, 5));
        s.spawn(|| spawn(&b, 7));
    });
    let (ta, tb) = (a.take_trace(), b.take_trace());
    assert_eq!(ta.workers.len(), 2);
    assert_eq!(tb.workers.len(), 3);
    assert_eq!(count(&ta, |k| *k == EventKind::Task), 6);
    assert_eq!(count(&tb, |k| *k == EventKind::Task), 8);
}
