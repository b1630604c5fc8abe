//! `sequential`: single-threaded solves of big instances, with node counts and nodes/s. Each
//! item runs in a child process (this binary, `search --child-item ITEM`) that reports each
//! run as a JSON line; a child that does not finish a run within `--timeout` seconds is
//! killed and the item reported as "did not finish".

use super::instances::{Clique, Knapsack, Tsp};
use super::jobs::{self, Solver, UtsTree};
use super::measure::{self, Contender, Job, Sample};
use super::{Report, Row, SearchArgs, SeqSolver};
use magpie::search::Skeleton;
use magpie_apps::maxclique::CliqueSpace;
use magpie_apps::{ns, uts};
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

/// The default items.
const FULL: &[&str] = &[
    "clique:brock400_1",
    "clique:brock800_2",
    "ns:36",
    "uts:T1L",
    "knapsack:knapPI_3_500_1000_1",
    "tsp:eil51",
];

/// The default items with `--quick`.
const QUICK: &[&str] = &[
    "clique:brock200_4",
    "ns:24",
    "uts:T3",
    "knapsack:knapPI_3_200_1000_1",
    "tsp:bayg29",
];

/// One sequential item.
enum Item {
    Clique(String),
    Ns(u64),
    Uts(String),
    Knapsack(String),
    Tsp(String),
}

impl Item {
    fn parse(s: &str) -> Result<Item, String> {
        let (kind, arg) = s
            .split_once(':')
            .ok_or_else(|| format!("sequential item `{s}`: expected KIND:ARG"))?;
        Ok(match kind {
            "clique" | "maxclique" => Item::Clique(arg.into()),
            "ns" => Item::Ns(
                arg.parse()
                    .map_err(|e| format!("sequential item `{s}`: genus: {e}"))?,
            ),
            "uts" => {
                if uts::NamedTree::find(arg).is_none() {
                    return Err(format!(
                        "sequential item `{s}`: `{arg}` is not a named UTS tree (T1, T1L, T3L…)"
                    ));
                }
                Item::Uts(arg.into())
            }
            "knapsack" => Item::Knapsack(arg.into()),
            "tsp" => Item::Tsp(arg.into()),
            _ => {
                return Err(format!(
                    "sequential item `{s}`: unknown kind `{kind}` (clique, ns, uts, knapsack, tsp)"
                ))
            }
        })
    }

    /// Its application's name (`magpie_apps::registry::SEARCH_APPS`).
    fn app(&self) -> &'static str {
        match self {
            Item::Clique(_) => magpie_apps::maxclique::APP.name,
            Item::Ns(_) => magpie_apps::ns::APP.name,
            Item::Uts(_) => magpie_apps::uts::APP.name,
            Item::Knapsack(_) => magpie_apps::knapsack::APP.name,
            Item::Tsp(_) => magpie_apps::tsp::APP.name,
        }
    }

    fn instance(&self) -> String {
        match self {
            Item::Clique(n) | Item::Uts(n) | Item::Knapsack(n) | Item::Tsp(n) => n.clone(),
            Item::Ns(g) => format!("genus {g}"),
        }
    }

    /// What `solver` runs for this item.
    fn solver_name(&self, solver: SeqSolver) -> &'static str {
        match (solver, self) {
            (SeqSolver::Plain, _) => "plain",
            (SeqSolver::Skeleton, _) => "Sequential",
            (SeqSolver::Reference, Item::Clique(_)) => "max_clique_counted",
            (SeqSolver::Reference, Item::Ns(_)) => "ns::count_by_genus",
            (SeqSolver::Reference, Item::Uts(_)) => "uts::count",
            // knapsack::solve and tsp::solve count no nodes: the plain B&B visits their tree.
            (SeqSolver::Reference, Item::Knapsack(_) | Item::Tsp(_)) => "plain B&B",
        }
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
    let items: Vec<String> = args.sequential_items.clone().unwrap_or_else(|| {
        let d = if args.quick { QUICK } else { FULL };
        d.iter().map(|s| s.to_string()).collect()
    });
    for spec in &items {
        let item = match Item::parse(spec) {
            Ok(i) => i,
            Err(e) => {
                report.error(EXP, "-", spec, e);
                continue;
            }
        };
        match run_item(args, &item, spec) {
            Ok(row) => report.push(row),
            Err(e) => report.error(EXP, item.app(), &item.instance(), e),
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

fn run_item(args: &SearchArgs, item: &Item, spec: &str) -> Result<Row, String> {
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
    let what = format!("{EXP} {} {}", item.app(), item.instance());
    let config = item.solver_name(args.sequential_solver);
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
        Row::new(EXP, item.app(), &item.instance(), config, 1)
    } else {
        c.row(EXP, item.app(), &item.instance())
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
    let item = Item::parse(spec)?;
    let pool = super::pool(args, 1)?;
    let solver = match args.sequential_solver {
        SeqSolver::Skeleton => Solver::Skeleton(&pool, Skeleton::Sequential),
        SeqSolver::Plain => Solver::Plain,
        SeqSolver::Reference => match item {
            Item::Knapsack(_) | Item::Tsp(_) => Solver::Plain,
            _ => Solver::Reference,
        },
    };
    match &item {
        Item::Clique(name) => {
            let clq = Clique::load(name)?;
            let space = CliqueSpace::new(&clq.graph);
            child_loop(args, jobs::maxclique(&clq, &space, solver))
        }
        Item::Ns(g) => {
            let tree = ns::Tree::new(*g).map_err(|e| e.to_string())?;
            if tree.max_genus() >= ns::EXPECTED_COUNTS.len() {
                return Err(format!("ns genus {g}: no oracle beyond genus 50"));
            }
            child_loop(args, jobs::ns(&tree, solver))
        }
        Item::Uts(name) => {
            let tree = UtsTree::load(name)?;
            child_loop(args, jobs::uts(&tree, solver))
        }
        Item::Knapsack(k) => {
            let k = Knapsack::load(k)?;
            child_loop(args, jobs::knapsack(&k, solver))
        }
        Item::Tsp(name) => {
            let t = Tsp::load(name)?;
            child_loop(args, jobs::tsp(&t, solver))
        }
    }
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
