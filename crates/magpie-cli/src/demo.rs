//! `magpie demo`: a tour of exact search on magpie, sequential then parallel on each deque,
//! every result checked against a known value.

use std::time::{Duration, Instant};

use magpie::deque::DequeKind;
use magpie::search::{self, CountPerDepth, Options, Skeleton};
use magpie::ThreadPool;
use magpie_apps::maxclique::{is_clique, CliqueSpace, Graph};
use magpie_apps::{nqueens, ns, uts, NQUEENS_SOLUTIONS};

use crate::config::{Config, ConfigError};

/// The random graph of the max-clique workload: G(n, p) from a fixed seed, and its clique
/// number (found by `magpie_apps::maxclique::max_clique` on this exact graph; the generator
/// is deterministic, see `Graph::random`).
struct RandomGraph {
    n: usize,
    density: f64,
    seed: u64,
    /// 0: unknown, computed by the plain solver before the tour.
    omega: usize,
}

/// The sizes of one tour.
struct Sizes {
    uts_tree: &'static str,
    genus: u64,
    queens: u32,
    graph: RandomGraph,
}

/// About ten seconds on two cores: every workload takes under two seconds sequentially.
const FULL: Sizes = Sizes {
    uts_tree: "T1",
    genus: 30,
    queens: 13,
    graph: RandomGraph {
        n: 200,
        density: 0.8,
        seed: 2026,
        omega: 25,
    },
};

/// A few seconds (`magpie demo --quick`, used by the tests).
const QUICK: Sizes = Sizes {
    uts_tree: "default",
    genus: 18,
    queens: 9,
    graph: RandomGraph {
        n: 60,
        density: 0.5,
        seed: 2026,
        omega: 0,
    },
};

/// One search problem of the tour.
enum Workload {
    Uts(uts::Params, &'static uts::NamedTree),
    Ns(ns::Tree),
    Queens(nqueens::Board),
    Clique(Box<Graph>, CliqueSpace, usize),
}

/// What one run found: the answer as shown, nodes explored, and `None` if it is the known
/// answer, else the expected one.
struct Found {
    shown: String,
    nodes: u64,
    steals: u64,
    wrong: Option<String>,
}

impl Workload {
    fn label(&self, sizes: &Sizes) -> String {
        match self {
            Workload::Uts(_, t) => format!("UTS {}", t.name),
            Workload::Ns(t) => format!("NS genus {}", t.max_genus()),
            Workload::Queens(b) => format!("N-Queens {}", b.n()),
            Workload::Clique(..) => {
                format!("max clique G({}, {})", sizes.graph.n, sizes.graph.density)
            }
        }
    }

    /// The skeleton the parallel runs use: the one that suits the tree's shape.
    fn parallel_skeleton(&self) -> Skeleton {
        match self {
            // Deep, very irregular trees: hand over work on request.
            Workload::Uts(..) | Workload::Ns(_) => Skeleton::StackStealing { steal_all: false },
            // Wide and shallow: the first two rows give enough tasks.
            Workload::Queens(_) | Workload::Clique(..) => Skeleton::DepthBounded { spawn_depth: 2 },
        }
    }

    fn run(&self, skeleton: Skeleton) -> Found {
        let opts = Options::default();
        match self {
            Workload::Uts(params, tree) => {
                let out = search::enumerate(params, &uts::Tally(params), skeleton, &opts);
                let c = out.value;
                Found {
                    shown: format!("{} nodes", c.nodes),
                    nodes: out.stats.expanded,
                    steals: out.stats.steals,
                    wrong: (c.nodes != tree.nodes
                        || tree.leaves.is_some_and(|l| l != c.leaves)
                        || tree.max_depth.is_some_and(|d| d != c.max_depth))
                    .then(|| format!("{} nodes", tree.nodes)),
                }
            }
            Workload::Ns(tree) => {
                let out = search::enumerate(tree, &CountPerDepth, skeleton, &opts);
                let g = tree.max_genus();
                let want = &ns::EXPECTED_COUNTS[..=g];
                Found {
                    shown: format!("n_{g} = {}", out.value.get(g).copied().unwrap_or(0)),
                    nodes: out.stats.expanded,
                    steals: out.stats.steals,
                    wrong: (out.value != want).then(|| format!("n_{g} = {}", want[g])),
                }
            }
            Workload::Queens(board) => {
                let n = board.n();
                let out = search::enumerate(board, &nqueens::Solutions(n), skeleton, &opts);
                let want = NQUEENS_SOLUTIONS[n as usize];
                Found {
                    shown: format!("{} solutions", out.value),
                    nodes: out.stats.expanded,
                    steals: out.stats.steals,
                    wrong: (out.value != want).then(|| format!("{want} solutions")),
                }
            }
            Workload::Clique(graph, space, omega) => {
                let opts = Options {
                    prune_level: true,
                    ..Options::default()
                };
                let out = search::optimise(space, skeleton, &opts);
                let clique = out
                    .value
                    .map(|(_, node)| space.clique(&node))
                    .unwrap_or_default();
                let ok = clique.len() == *omega && is_clique(graph, &clique);
                Found {
                    shown: format!("omega = {}", clique.len()),
                    nodes: out.stats.expanded,
                    steals: out.stats.steals,
                    wrong: (!ok).then(|| format!("a clique of {omega}")),
                }
            }
        }
    }
}

fn workloads(sizes: &Sizes) -> Vec<Workload> {
    let tree = uts::NAMED_TREES
        .iter()
        .find(|t| t.name == sizes.uts_tree)
        .expect("the demo's UTS tree is a named tree");
    let params = uts::Params::named(tree.name).expect("named trees are valid");
    let graph = Graph::random(sizes.graph.n, sizes.graph.density, sizes.graph.seed);
    let space = CliqueSpace::new(&graph);
    let omega = match sizes.graph.omega {
        0 => magpie_apps::maxclique::max_clique(&graph).len(),
        known => known,
    };
    vec![
        Workload::Uts(params, tree),
        Workload::Ns(ns::Tree::new(sizes.genus).expect("the demo's genus is valid")),
        Workload::Queens(nqueens::Board::new(u64::from(sizes.queens)).expect("valid size")),
        Workload::Clique(Box::new(graph), space, omega),
    ]
}

fn skeleton_name(s: Skeleton) -> String {
    match s {
        Skeleton::Sequential => "sequential".into(),
        Skeleton::DepthBounded { spawn_depth } => format!("depth-bounded d={spawn_depth}"),
        Skeleton::Budget { backtracks } => format!("budget b={backtracks}"),
        Skeleton::StackStealing { steal_all } => {
            format!("stack-stealing{}", if steal_all { " all" } else { "" })
        }
        Skeleton::Ordered { spawn_depth, .. } => format!("ordered d={spawn_depth}"),
        // A skeleton added later is shown by its Debug form until it gets a name here.
        other => format!("{other:?}"),
    }
}

#[allow(clippy::too_many_arguments)]
fn row(
    workload: &str,
    skeleton: &str,
    deque: &str,
    workers: &str,
    secs: &str,
    nodes: &str,
    result: &str,
    speedup: &str,
    steals: &str,
    ok: &str,
) {
    println!(
        "{workload:<22} {skeleton:<18} {deque:<17} {workers:>7} {secs:>8} {nodes:>11}  {result:<20} {speedup:>7} {steals:>7}  {ok}"
    );
}

fn timed(pool: &ThreadPool, w: &Workload, skeleton: Skeleton) -> (Found, Duration) {
    let start = Instant::now();
    let found = pool.install(|| w.run(skeleton));
    (found, start.elapsed())
}

/// Runs the tour (the short one with `quick`). Returns whether every result was correct.
pub fn demo(config: &Config, quick: bool) -> Result<bool, ConfigError> {
    let sizes = if quick { &QUICK } else { &FULL };
    let deques: Vec<DequeKind> = if config.deque.source.is_given() {
        vec![config.deque.value]
    } else {
        DequeKind::ALL.to_vec()
    };
    let workers = config.workers.value;
    println!(
        "magpie demo: exact search, sequential on 1 worker, then parallel on {workers} worker(s) \
         with {} deque(s); victims {}, idle {}",
        deques.len(),
        config.victims.value,
        config.idle.value,
    );
    println!(
        "(single timed runs, not a benchmark; speedup = sequential time / this time; steals = \
         tasks stolen plus stack-stealing hand-overs)"
    );
    let started = Instant::now();
    let workloads = workloads(sizes);
    println!();
    row(
        "workload", "skeleton", "deque", "workers", "time s", "nodes", "result", "speedup",
        "steals", "ok",
    );
    let sequential_pool = config.build(DequeKind::default(), 1)?;
    let parallel_pools = deques
        .iter()
        .map(|&d| Ok((d, config.build(d, workers)?)))
        .collect::<Result<Vec<_>, ConfigError>>()?;
    let (mut runs, mut failures) = (0, 0);
    let mut report = |label: &str,
                      skeleton: Skeleton,
                      deque: &str,
                      n: usize,
                      f: Found,
                      t: Duration,
                      base: Option<Duration>| {
        runs += 1;
        let ok = match &f.wrong {
            None => "ok".to_string(),
            Some(want) => {
                failures += 1;
                format!("WRONG (expected {want})")
            }
        };
        let speedup = base.map_or("-".to_string(), |b| {
            format!("{:.2}x", b.as_secs_f64() / t.as_secs_f64().max(1e-9))
        });
        row(
            label,
            &skeleton_name(skeleton),
            deque,
            &n.to_string(),
            &format!("{:.3}", t.as_secs_f64()),
            &f.nodes.to_string(),
            &f.shown,
            &speedup,
            &f.steals.to_string(),
            &ok,
        );
    };
    for w in &workloads {
        let label = w.label(sizes);
        let (found, base) = timed(&sequential_pool, w, Skeleton::Sequential);
        report(&label, Skeleton::Sequential, "-", 1, found, base, None);
        let skeleton = w.parallel_skeleton();
        for (deque, pool) in &parallel_pools {
            let (found, t) = timed(pool, w, skeleton);
            report(
                &label,
                skeleton,
                deque.name(),
                workers,
                found,
                t,
                Some(base),
            );
        }
    }
    println!();
    if failures == 0 {
        println!(
            "all {runs} results correct ({:.1} s)",
            started.elapsed().as_secs_f64()
        );
    } else {
        println!("{failures} of {runs} results WRONG");
    }
    Ok(failures == 0)
}
