//! `sequential`: single-threaded solves of big instances, with node counts and nodes/s. Each
//! item runs in a child process (this binary, `search --child-item ITEM`) that reports each
//! run as a JSON line; a child that does not finish a run within `--timeout` seconds is
//! killed and the item reported as "did not finish".

use super::cases::{Item, Loaded, Solver};
use super::measure::{self, Contender, Job, Sample};
use super::{App, Report, Row, SearchArgs, SeqSolver};
use magpie::search::Skeleton;
use magpie_apps::registry::{BenchQuery, Experiment};
use magpie_measure::process;
use magpie_measure::progress::RunsBar;
// Messages on stderr go above the progress bar while it is shown.
use magpie_measure::{eprint_above as eprint, eprintln_above as eprintln};
use serde::{Deserialize, Serialize};
use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};
use std::sync::mpsc::{self, RecvTimeoutError};
use std::time::Duration;

const EXP: &str = "sequential";

/// The solver that `solver` runs on `loaded`, and its label.
fn solver_of<'p>(
    loaded: &Loaded,
    solver: SeqSolver,
    pool: Option<&'p magpie::ThreadPool>,
) -> (Solver<'p>, &'static str) {
    match (solver, pool, loaded.hand_written()) {
        (SeqSolver::Skeleton, Some(p), _) => {
            (Solver::Skeleton(p, Skeleton::Sequential), "Sequential")
        }
        (SeqSolver::Skeleton, None, _) => (Solver::Plain, "Sequential"),
        (SeqSolver::Plain, ..) => (Solver::Plain, "plain"),
        (SeqSolver::Reference, _, Some(name)) if !loaded.case.plain_reference => {
            (Solver::HandWritten, name)
        }
        // A hand-written solver that counts no nodes (or not the skeleton's): the plain
        // branch and bound visits the same tree.
        (SeqSolver::Reference, ..) => (Solver::Plain, "plain B&B"),
    }
}

/// One run, as the child reports it.
#[derive(Debug, Serialize, Deserialize)]
struct Line {
    time_s: f64,
    nodes: Option<u64>,
    /// False for the warm-up.
    timed: bool,
}

pub fn run(args: &SearchArgs, report: &mut Report) -> String {
    let items: Vec<String> = match &args.sequential_items {
        Some(items) => items.clone(),
        None => {
            // Every application's own sequential cases.
            let query = BenchQuery::new(Experiment::Sequential, args.quick);
            let mut items = Vec::new();
            for app in App::all() {
                match Loaded::cases(app, &query) {
                    Ok(cases) => items.extend(cases.iter().map(|c| format!("{app}:{}", c.label))),
                    Err(e) => report.error(EXP, app.name(), "-", e),
                }
            }
            items
        }
    };
    for spec in &items {
        let item = match Item::parse(spec) {
            Ok(i) => i,
            Err(e) => {
                report.error(EXP, "-", spec, e);
                continue;
            }
        };
        match item.load().and_then(|loaded| run_item(args, &loaded, spec)) {
            Ok(row) => report.push(row),
            Err(e) => report.error(EXP, item.app.name(), &item.name, e),
        }
    }
    format!(
        "{} solver, one process per item, median of {} runs (after a warm-up where it takes \
         under {} s), each run killed after {} s",
        args.sequential_solver,
        args.runs,
        measure::WARMUP_LIMIT.as_secs(),
        args.timeout
    )
}

fn run_item(args: &SearchArgs, loaded: &Loaded, spec: &str) -> Result<Row, String> {
    let (app, instance) = (loaded.app.name(), loaded.case.label.as_str());
    let exe = std::env::current_exe().map_err(|e| format!("locating this program: {e}"))?;
    let mut cmd = Command::new(exe);
    cmd.args(["search", "--child-item", spec, "--sequential-solver"])
        .arg(args.sequential_solver.name())
        .arg("--runs")
        .arg(args.runs.to_string());
    if let Some(d) = &args.deque {
        cmd.arg("--deque").arg(d);
    }
    process::in_own_group(&mut cmd)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = cmd
        .spawn()
        .map_err(|e| format!("starting the child process: {e}"))?;
    let stdout = child.stdout.take().ok_or("no pipe to the child")?;
    let stderr = child.stderr.take().ok_or("no pipe to the child")?;
    // The child's messages: passed on, and kept for the error row.
    let messages = std::thread::spawn(move || {
        let mut kept = Vec::new();
        for line in BufReader::new(stderr).lines().map_while(Result::ok) {
            eprintln!("  [child] {line}");
            kept.push(line);
        }
        kept
    });
    let (tx, rx) = mpsc::channel();
    let reader = std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines() {
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    let what = format!("{EXP} {app} {instance}");
    let config = solver_of(loaded, args.sequential_solver, None).1;
    let mut c = Contender::new(config, 1, || Err("not run here".to_string()));
    let timeout = Duration::from_secs(args.timeout);
    let mut finished = true;
    // The timed runs (the child decides whether a warm-up run comes first).
    let bar = RunsBar::new(args.progress(), &what, u64::from(args.runs));
    bar.set_message(format!("{config}: first run"));
    eprint!("{what} ({config}):");
    loop {
        match rx.recv_timeout(timeout) {
            Ok(Ok(text)) => {
                let line: Line = serde_json::from_str(&text)
                    .map_err(|e| format!("bad line from the child `{text}`: {e}"))?;
                let s = Sample::new(Duration::from_secs_f64(line.time_s), line.nodes);
                eprint!(
                    " {}{:.3}",
                    if line.timed { "" } else { "warm-up=" },
                    line.time_s
                );
                if line.timed {
                    c.samples.push(s);
                    bar.inc();
                } else {
                    c.warmup = Some(s);
                }
                bar.set_message(format!("{config}: timed run {}", c.samples.len() + 1));
            }
            Ok(Err(e)) => return Err(format!("reading from the child: {e}")),
            Err(RecvTimeoutError::Timeout) => {
                finished = false;
                process::stop_group(&mut child);
                break;
            }
            Err(RecvTimeoutError::Disconnected) => break,
        }
    }
    drop(bar);
    eprintln!();
    let status = child
        .wait()
        .map_err(|e| format!("waiting for the child: {e}"))?;
    let _ = reader.join();
    let messages = messages.join().unwrap_or_default();
    if finished && !status.success() {
        let why = messages
            .iter()
            .rev()
            .find(|l| !l.trim().is_empty())
            .map_or("no message", |l| {
                l.trim_start_matches("magpie-bench: error: ")
            });
        return Err(format!("the child process failed ({status}): {why}"));
    }
    let mut row = if c.samples.is_empty() {
        Row::new(EXP, app, instance, config, 1)
    } else {
        c.row(EXP, app, instance)
    };
    if !finished {
        row.verdict = Some("DNF".into());
        row.add_note(&format!(
            "did not finish within {} s (after {} timed run(s))",
            args.timeout,
            c.samples.len()
        ));
        eprintln!("{what}: did not finish within {} s", args.timeout);
    }
    Ok(row)
}

/// The child's side: runs `spec` (warm-up where affordable, then `--runs` timed runs) and
/// prints one [`Line`] per run on stdout.
pub fn child(args: &SearchArgs, spec: &str) -> Result<(), String> {
    let loaded = Item::parse(spec)?.load()?;
    let pool = super::pool(args, 1)?;
    let solver = solver_of(&loaded, args.sequential_solver, Some(&pool)).0;
    child_loop(args, loaded.job(solver))
}

fn child_loop(args: &SearchArgs, mut job: Job<'_>) -> Result<(), String> {
    let mut out = std::io::stdout().lock();
    let mut emit = |s: &Sample, timed: bool| -> Result<(), String> {
        let line = Line {
            time_s: s.time.as_secs_f64(),
            nodes: s.nodes,
            timed,
        };
        let text = serde_json::to_string(&line).map_err(|e| e.to_string())?;
        writeln!(out, "{text}")
            .and_then(|_| out.flush())
            .map_err(|e| e.to_string())
    };
    let first = job()?;
    let mut timed = 0;
    if first.time > measure::WARMUP_LIMIT {
        emit(&first, true)?;
        timed += 1;
    } else {
        emit(&first, false)?;
    }
    while timed < args.runs {
        let s = job()?;
        emit(&s, true)?;
        timed += 1;
    }
    Ok(())
}
