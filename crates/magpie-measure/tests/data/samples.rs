// Small inputs of every kind the pictures read, in the formats of issue 16 (the trace
// and incumbent-log formats) and of the reports (`magpie experiment --format json`,
// `magpie-bench forkjoin --json`). Deterministic. Included by the tests of magpie-measure
// and magpie-cli (`include!`), so that both draw the same inputs.

#[allow(dead_code)]
fn span(cat: &str, tid: u64, ts: f64, dur: f64) -> String {
    let name = match cat {
        "steal" => "steal attempts",
        c => c,
    };
    let args = match cat {
        "steal" => ",\"args\":{\"attempts\":3}",
        _ => "",
    };
    format!(
        "{{\"ph\":\"X\",\"cat\":\"{cat}\",\"name\":\"{name}\",\"pid\":0,\"tid\":{tid},\"ts\":{ts},\"dur\":{dur}{args}}}"
    )
}

#[allow(dead_code)]
fn trace_file(events: &[String], workers: u64, command: &str) -> String {
    let mut all: Vec<String> = vec![
        "{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":0,\"args\":{\"name\":\"rank 0\"}}".into(),
    ];
    for w in 0..workers {
        all.push(format!(
            "{{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":0,\"tid\":{w},\"args\":{{\"name\":\"worker {w}\"}}}}"
        ));
    }
    all.extend(events.iter().cloned());
    format!(
        "{{\"traceEvents\":[\n{}\n],\n\"displayTimeUnit\":\"ms\",\n\"otherData\":{{\"magpie_trace\":1,\"command\":\"{command}\",\"workers\":{workers},\"ranks\":1}}}}\n",
        all.join(",\n")
    )
}

/// Three workers running tasks back to back for 10 ms.
#[allow(dead_code)]
pub fn working_only() -> String {
    let mut ev = Vec::new();
    for w in 0..3u64 {
        let mut t = 0.0;
        let mut k = w + 1;
        while t < 10_000.0 {
            let d = 200.0 + (k * 37 % 11) as f64 * 60.0;
            ev.push(span("task", w, t, d.min(10_000.0 - t)));
            t += d;
            k += 1;
        }
    }
    trace_file(&ev, 3, "magpie search uts --tree T1")
}

/// Two workers over 1 ms: worker 0 works throughout, worker 1 is parked throughout.
#[allow(dead_code)]
pub fn half_parked() -> String {
    trace_file(
        &[span("task", 0, 0.0, 1000.0), span("park", 1, 0.0, 1000.0)],
        2,
        "two workers",
    )
}

/// Four workers over 20 ms of a search: worker 0 runs the root task, which waits at joins
/// (steal attempts nested in it, stolen tasks nested in those gaps); the others alternate
/// steal attempts, tasks, idle spins, dozes and parks. Successful steals, exposure and
/// incumbent instants, and a flow event that the pictures ignore.
#[allow(dead_code)]
pub fn search_trace() -> String {
    let mut ev = vec![span("task", 0, 0.0, 20_000.0)];
    // Worker 0 waits at a join twice: steal attempts, then a stolen task.
    for (a, b) in [(6_000.0, 7_000.0), (14_000.0, 15_500.0)] {
        ev.push(span("steal", 0, a, 300.0));
        ev.push(span("task", 0, a + 300.0, b - a - 300.0));
    }
    let mut seed: u64 = 12345;
    let mut next = |n: u64| {
        seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        (seed >> 33) % n
    };
    for w in 1..4u64 {
        let mut t = 0.0;
        while t < 20_000.0 {
            let (cat, d) = match next(10) {
                0..=4 => ("task", 400.0 + next(1200) as f64),
                5 | 6 => ("steal", 100.0 + next(300) as f64),
                7 => ("idle", 100.0 + next(400) as f64),
                8 => ("doze", 200.0 + next(300) as f64),
                _ => ("park", 300.0 + next(900) as f64),
            };
            let d = d.min(20_000.0 - t);
            if cat == "task" {
                ev.push(format!(
                    "{{\"ph\":\"i\",\"s\":\"t\",\"cat\":\"steal\",\"name\":\"steal\",\"pid\":0,\"tid\":{w},\"ts\":{t},\"args\":{{\"victim\":0}}}}"
                ));
            }
            ev.push(span(cat, w, t, d));
            t += d;
        }
    }
    ev.push("{\"ph\":\"i\",\"s\":\"t\",\"cat\":\"expose\",\"name\":\"signal\",\"pid\":0,\"tid\":0,\"ts\":500,\"args\":{\"victim\":0}}".into());
    ev.push("{\"ph\":\"i\",\"s\":\"t\",\"cat\":\"search\",\"name\":\"incumbent\",\"pid\":0,\"tid\":2,\"ts\":900,\"args\":{\"value\":12,\"nodes\":400}}".into());
    ev.push("{\"ph\":\"s\",\"cat\":\"mpi\",\"name\":\"steal request\",\"id\":1,\"pid\":0,\"tid\":1,\"ts\":50}".into());
    trace_file(&ev, 4, "magpie search maxclique brock200_1.clq --workers 4")
}

/// A loop of 20000 iterations on four workers under guided self-scheduling (each chunk
/// ⌈remaining / 4⌉, at least 8), each iteration 1 µs on worker w scaled by 1 + w/4; then
/// the workers spin idle until the last one finishes.
#[allow(dead_code)]
pub fn loop_trace() -> String {
    let mut ev = Vec::new();
    let mut free = [0.0f64; 4];
    let mut next = 0u64;
    let n = 20_000u64;
    while next < n {
        let w = (0..4).min_by(|&a, &b| free[a].total_cmp(&free[b])).unwrap();
        let size = ((n - next).div_ceil(4)).max(8).min(n - next);
        let d = size as f64 * (1.0 + w as f64 / 4.0);
        ev.push(format!(
            "{{\"ph\":\"X\",\"cat\":\"chunk\",\"name\":\"chunk\",\"pid\":0,\"tid\":{w},\"ts\":{},\"dur\":{d},\"args\":{{\"start\":{next},\"end\":{},\"size\":{size}}}}}",
            free[w],
            next + size
        ));
        free[w] += d;
        next += size;
    }
    let end = free.iter().copied().fold(0.0, f64::max);
    for (w, &f) in free.iter().enumerate() {
        if f < end {
            ev.push(span("idle", w as u64, f, end - f));
        }
    }
    trace_file(&ev, 4, "magpie loop dist --schedule gss --workers 4")
}

/// An incumbent log of a maximisation: 9 improvements over 2.4 s.
#[allow(dead_code)]
pub fn incumbents() -> String {
    let points = [
        (0.0012, 11),
        (0.004, 14),
        (0.021, 16),
        (0.09, 18),
        (0.2, 19),
        (0.55, 20),
        (0.9, 21),
        (1.7, 22),
        (2.4, 23),
    ];
    points
        .iter()
        .enumerate()
        .map(|(i, (t, v))| {
            format!(
                "{{\"time_s\":{t},\"value\":{v},\"worker\":{},\"rank\":0,\"nodes\":{}}}\n",
                i % 3,
                (t * 1e6) as u64
            )
        })
        .collect()
}

/// `magpie-bench forkjoin --json` rows: kernels fib and quicksort; sequential, magpie
/// chase-lev and rayon at 1 and 2 workers, five runs each.
#[allow(dead_code)]
pub fn forkjoin_json() -> String {
    let mut rows = Vec::new();
    for (kernel, base) in [("fib", 0.8), ("quicksort", 1.4)] {
        for (runtime, variant, workers, factor) in [
            ("sequential", "", 1, 1.0),
            ("magpie", "chase-lev", 1, 1.1),
            ("magpie", "chase-lev", 2, 0.58),
            ("rayon", "", 1, 1.05),
            ("rayon", "", 2, 0.62),
        ] {
            let times: Vec<f64> = (0..5)
                .map(|i| base * factor * (1.0 + [0.0, 0.02, -0.015, 0.04, 0.01][i]))
                .collect();
            let mut sorted = times.clone();
            sorted.sort_by(f64::total_cmp);
            rows.push(format!(
                "  {{\"kernel\":\"{kernel}\",\"runtime\":\"{runtime}\",\"variant\":\"{variant}\",\"workers\":{workers},\"median_s\":{},\"min_s\":{},\"max_s\":{},\"times_s\":{:?}}}",
                sorted[2], sorted[0], sorted[4], times
            ));
        }
    }
    format!("[\n{}\n]\n", rows.join(",\n"))
}

/// A `magpie experiment policies --format json` report: apps uts and fib, idle park and
/// yield, workers 1 and 2, four runs each.
#[allow(dead_code)]
pub fn experiment_json() -> String {
    let mut rows = Vec::new();
    for (app, base) in [("uts --tree T1", 0.30), ("fib --n 30", 0.12)] {
        for workers in [1, 2] {
            for (idle, f) in [("park", 1.0), ("yield", 1.08)] {
                let scale = if workers == 1 { 1.0 } else { 0.55 };
                let times: Vec<f64> = (0..4)
                    .map(|i| base * f * scale * (1.0 + [0.0, 0.03, -0.02, 0.05][i]))
                    .collect();
                rows.push(format!(
                    "{{\"app\":\"{app}\",\"app_name\":\"{}\",\"runtime\":\"magpie\",\"workers\":{workers},\"deque\":\"chase-lev\",\"victims\":\"random\",\"idle\":\"{idle}\",\"runs\":4,\"times\":{times:?},\"median\":{base}}}",
                    app.split(' ').next().unwrap()
                ));
            }
        }
    }
    format!(
        "{{\"experiment\":\"policies\",\"runs\":4,\"instances\":1,\"workers\":[1,2],\"rows\":[\n{}\n],\"aggregated\":[]}}\n",
        rows.join(",\n")
    )
}

/// The times of `n` runs around `median` (spread by a fixed pattern), their median, min and
/// max, for the benchmark samples below.
#[allow(dead_code)]
fn runs_around(median: f64, n: usize) -> (Vec<f64>, f64, f64, f64) {
    let spread = [0.0, 0.03, -0.02, 0.05, -0.01];
    let times: Vec<f64> = (0..n).map(|i| median * (1.0 + spread[i % 5])).collect();
    let mut sorted = times.clone();
    sorted.sort_by(f64::total_cmp);
    (times, sorted[n / 2], sorted[0], sorted[n - 1])
}

/// A `magpie-bench search --json` report (the fields of its rows, in their order): the
/// overhead of nqueens n = 11 (three 1-worker contenders and a ratio row), the speedup of
/// uts T1 at depth 7 (screening at 2 workers, the best skeleton at 1 and 2 workers, the
/// hand-written solver marked `baseline`, ratio rows) and an ERROR row.
#[allow(dead_code)]
pub fn search_json() -> String {
    let mut rows = Vec::new();
    let mut row = |experiment: &str,
                   app: &str,
                   instance: &str,
                   config: &str,
                   workers: usize,
                   median: Option<f64>,
                   ratio: Option<f64>,
                   baseline: bool| {
        let (times, med, min, max) = match median {
            Some(m) => {
                let (t, a, b, c) = runs_around(m, 3);
                (format!("{t:?}"), format!("{a}"), format!("{b}"), format!("{c}"))
            }
            None => ("null".into(), "null".into(), "null".into(), "null".into()),
        };
        let runs = if median.is_some() { 3 } else { 0 };
        let ratio = ratio.map_or("null".to_string(), |r| format!("{r}"));
        rows.push(format!(
            "  {{\"experiment\":\"{experiment}\",\"app\":\"{app}\",\"instance\":\"{instance}\",\"config\":\"{config}\",\"workers\":{workers},\"runs\":{runs},\"median_s\":{med},\"min_s\":{min},\"max_s\":{max},\"nodes\":null,\"nodes_per_s\":null,\"ratio\":{ratio},\"target\":null,\"verdict\":null,\"note\":\"\",\"worker_shares\":null,\"times_s\":{times},\"baseline\":{baseline}}}"
        ));
    };
    let q = "n = 11";
    row("overhead", "nqueens", q, "plain", 1, Some(0.040), None, false);
    row("overhead", "nqueens", q, "Sequential", 1, Some(0.043), None, false);
    row("overhead", "nqueens", q, "nqueens::count", 1, Some(0.021), None, false);
    row("overhead", "nqueens", q, "Sequential / plain", 1, None, Some(1.075), false);
    let u = "T1 at depth 7";
    row("speedup", "uts", u, "dbs:2 (screening)", 2, Some(0.095), None, false);
    row("speedup", "uts", u, "budget:10000 (screening)", 2, Some(0.090), None, false);
    row("speedup", "uts", u, "budget:10000", 1, Some(0.170), None, false);
    row("speedup", "uts", u, "budget:10000", 2, Some(0.091), None, false);
    row("speedup", "uts", u, "uts::count", 1, Some(0.155), None, true);
    row("speedup", "uts", u, "speedup budget:10000 1w / 2w", 2, None, Some(1.868), false);
    rows.push(
        "  {\"experiment\":\"cpeer\",\"app\":\"knapsack\",\"instance\":\"knapPI_3_100_1000_1\",\"config\":\"-\",\"workers\":0,\"runs\":0,\"median_s\":null,\"min_s\":null,\"max_s\":null,\"nodes\":null,\"nodes_per_s\":null,\"ratio\":null,\"target\":null,\"verdict\":\"ERROR\",\"note\":\"no such file\",\"worker_shares\":null,\"times_s\":null,\"baseline\":false}".into(),
    );
    format!("[\n{}\n]\n", rows.join(",\n"))
}

/// A `magpie-bench distributed --json` report (its four kinds of row, `row` naming each):
/// overhead on uts-d7 (2x1 vs 1x2 and their ratio), the policies on ns-20 isolated (three
/// policies at 4 ranks, a comparison), and the loops at 2 and 4 ranks (steal vs share).
#[allow(dead_code)]
pub fn distributed_json() -> String {
    let mut rows = Vec::new();
    let mut time = |experiment: &str,
                    app: &str,
                    load: &str,
                    contender: &str,
                    ranks: u32,
                    workers: u32,
                    median: f64| {
        let (times, med, min, max) = runs_around(median, 5);
        rows.push(format!(
            "  {{\"row\":\"time\",\"experiment\":\"{experiment}\",\"app\":\"{app}\",\"load\":\"{load}\",\"contender\":\"{contender}\",\"ranks\":{ranks},\"workers\":{workers},\"median_s\":{med},\"min_s\":{min},\"max_s\":{max},\"times_s\":{times:?},\"cov\":0.05}}"
        ));
    };
    time("overhead", "uts-d7", "", "2x1", 2, 1, 0.210);
    time("overhead", "uts-d7", "", "1x2", 1, 2, 0.190);
    time("policies", "ns-20", "isolated", "random", 4, 1, 0.330);
    time("policies", "ns-20", "isolated", "sticky", 4, 1, 0.320);
    time("policies", "ns-20", "isolated", "perf", 4, 1, 0.300);
    time("loops", "exponential", "", "steal", 2, 1, 0.80);
    time("loops", "exponential", "", "share", 2, 1, 0.86);
    time("loops", "exponential", "", "steal", 4, 1, 0.46);
    time("loops", "exponential", "", "share", 4, 1, 0.55);
    rows.insert(
        2,
        "  {\"row\":\"ratio\",\"experiment\":\"overhead\",\"app\":\"uts-d7\",\"ratio_of\":\"2x1/1x2\",\"ratio\":1.105,\"target\":1.15,\"met\":true}".into(),
    );
    rows.push(
        "  {\"row\":\"compare\",\"app\":\"ns-20\",\"load\":\"isolated\",\"candidate\":\"perf\",\"other\":\"random\",\"reduction_pct\":9.09,\"welch_t\":-3.2,\"welch_df\":7.9,\"welch_p\":0.0127}".into(),
    );
    rows.push(
        "  {\"row\":\"error\",\"experiment\":\"policies\",\"app\":\"brock200_4\",\"contender\":\"\",\"command\":\"\",\"error\":\"app `brock200_4`: no DIMACS file\"}".into(),
    );
    format!("[\n{}\n]\n", rows.join(",\n"))
}
