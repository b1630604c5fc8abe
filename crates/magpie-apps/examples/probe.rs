// scratch probe (not committed)
use magpie::search::{self, CountPerDepth, NodeCount, Options, Skeleton};
use std::time::Instant;
fn t<R>(f: impl FnOnce() -> R) -> (f64, R) {
    let s = Instant::now();
    let r = f();
    (s.elapsed().as_secs_f64(), r)
}
fn main() {
    let args: Vec<String> = std::env::args().collect();
    let what = args[1].as_str();
    let sk = match args.get(2).map(|s| s.as_str()).unwrap_or("seq") {
        "seq" => Skeleton::Sequential,
        "budget" => Skeleton::Budget { backtracks: 10000 },
        "ss" => Skeleton::StackStealing { steal_all: false },
        "dbs" => Skeleton::DepthBounded { spawn_depth: 2 },
        "ssall" => Skeleton::StackStealing { steal_all: true },
        s if s.starts_with("dbs") => Skeleton::DepthBounded {
            spawn_depth: s[3..].parse().unwrap(),
        },
        s if s.starts_with("budget") => Skeleton::Budget {
            backtracks: s[6..].parse().unwrap(),
        },
        s => panic!("{s}"),
    };
    let w: usize = args.get(3).map(|s| s.parse().unwrap()).unwrap_or(1);
    let reps: usize = args.get(4).map(|s| s.parse().unwrap()).unwrap_or(5);
    let pool = magpie::ThreadPoolBuilder::new()
        .num_workers(w)
        .build()
        .unwrap();
    for _ in 0..reps {
        match what {
            "ns" => {
                let tree = magpie_apps::ns::Tree::new(28).unwrap();
                let (a, x) = t(|| {
                    pool.install(|| {
                        search::enumerate(&tree, &CountPerDepth, sk, &Options::default())
                    })
                });
                let (b, y) = t(|| magpie_apps::ns::count_by_genus(28));
                assert_eq!(x.value, y);
                println!(
                    "ns engine {a:.4} hand {b:.4} ratio {:.3} shares {:?} steals {} tasks {}",
                    a / b,
                    x.stats.per_worker,
                    x.stats.steals,
                    x.stats.tasks
                );
            }
            "nq" => {
                let board = magpie_apps::nqueens::Board::new(13).unwrap();
                let (a, x) = t(|| {
                    pool.install(|| {
                        search::enumerate(
                            &board,
                            &magpie_apps::nqueens::Solutions(13),
                            sk,
                            &Options::default(),
                        )
                    })
                });
                let (b, y) = t(|| magpie_apps::nqueens::count(13));
                assert_eq!(x.value, y);
                println!("nq engine {a:.4} hand {b:.4} ratio {:.3}", a / b);
            }
            "uts" => {
                let p = magpie_apps::uts::Params::named("T1").unwrap();
                let (a, x) = t(|| {
                    pool.install(|| search::enumerate(&p, &NodeCount, sk, &Options::default()))
                });
                let (b, y) = t(|| magpie_apps::uts::count(&p));
                assert_eq!(x.value, y.nodes);
                println!("uts engine {a:.4} hand {b:.4} ratio {:.3}", a / b);
            }
            "nsonly" => {
                let tree = magpie_apps::ns::Tree::new(28).unwrap();
                let (a, _x) = t(|| {
                    pool.install(|| {
                        search::enumerate(&tree, &CountPerDepth, sk, &Options::default())
                    })
                });
                println!("ns engine {a:.4}");
            }
            "nshand" => {
                let (b, _) = t(|| magpie_apps::ns::count_by_genus(28));
                println!("ns hand {b:.4}");
            }
            "nqonly" => {
                let board = magpie_apps::nqueens::Board::new(13).unwrap();
                let (a, _) = t(|| {
                    pool.install(|| {
                        search::enumerate(
                            &board,
                            &magpie_apps::nqueens::Solutions(13),
                            sk,
                            &Options::default(),
                        )
                    })
                });
                println!("nq engine {a:.4}");
            }
            "nqhand" => {
                let (b, _) = t(|| magpie_apps::nqueens::count(13));
                println!("nq hand {b:.4}");
            }
            "utsonly" => {
                let p = magpie_apps::uts::Params::named("T1").unwrap();
                let (a, _) = t(|| {
                    pool.install(|| search::enumerate(&p, &NodeCount, sk, &Options::default()))
                });
                println!("uts engine {a:.4}");
            }
            "utshand" => {
                let p = magpie_apps::uts::Params::named("T1").unwrap();
                let (b, _) = t(|| magpie_apps::uts::count(&p));
                println!("uts hand {b:.4}");
            }
            "utssmall" => {
                let p = magpie_apps::uts::Params::from_flags("-t 1 -a 3 -d 7 -b 4 -r 19").unwrap();
                let (a, x) = t(|| {
                    pool.install(|| search::enumerate(&p, &NodeCount, sk, &Options::default()))
                });
                println!("uts engine {a:.4} {}", x.value);
            }
            "utssmallhand" => {
                let p = magpie_apps::uts::Params::from_flags("-t 1 -a 3 -d 7 -b 4 -r 19").unwrap();
                let (b, y) = t(|| magpie_apps::uts::count(&p));
                println!("uts hand {b:.4} {}", y.nodes);
            }
            "nqsmall" => {
                let board = magpie_apps::nqueens::Board::new(11).unwrap();
                let (a, _) = t(|| {
                    pool.install(|| {
                        search::enumerate(
                            &board,
                            &magpie_apps::nqueens::Solutions(11),
                            sk,
                            &Options::default(),
                        )
                    })
                });
                println!("nq engine {a:.4}");
            }
            "nqsmallhand" => {
                let (b, _) = t(|| magpie_apps::nqueens::count(11));
                println!("nq hand {b:.4}");
            }
            "nssmall" => {
                let tree = magpie_apps::ns::Tree::new(22).unwrap();
                let (a, _) = t(|| {
                    pool.install(|| {
                        search::enumerate(&tree, &CountPerDepth, sk, &Options::default())
                    })
                });
                println!("ns engine {a:.4}");
            }
            "nssmallhand" => {
                let (b, _) = t(|| magpie_apps::ns::count_by_genus(22));
                println!("ns hand {b:.4}");
            }
            "nsshape" => {
                use magpie::search::SearchSpace;
                let tree = magpie_apps::ns::Tree::new(28).unwrap();
                fn size(t: &magpie_apps::ns::Tree, n: &magpie_apps::ns::Semigroup) -> u64 {
                    1 + t.children(n).map(|c| size(t, &c)).sum::<u64>()
                }
                for d in [2usize, 4, 8, 12, 16, 20] {
                    let mut frontier = vec![tree.root()];
                    for _ in 0..d {
                        frontier = frontier
                            .iter()
                            .flat_map(|n| tree.children(n).collect::<Vec<_>>())
                            .collect();
                    }
                    let mut sizes: Vec<u64> = frontier.iter().map(|n| size(&tree, n)).collect();
                    let total: u64 = sizes.iter().sum();
                    sizes.sort_unstable_by(|a, b| b.cmp(a));
                    println!(
                        "depth {d}: {} tasks, total {total}, largest {:.3} {:.3} {:.3}",
                        sizes.len(),
                        sizes[0] as f64 / total as f64,
                        sizes.get(1).copied().unwrap_or(0) as f64 / total as f64,
                        sizes.get(2).copied().unwrap_or(0) as f64 / total as f64
                    );
                }
            }
            "noop" => {
                pool.install(|| ());
            }
            _ => panic!(),
        }
    }
}
