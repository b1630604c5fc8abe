//! fib with no cutoff on every deque: `cargo run --release -p magpie --example fib -- 32`.
use std::time::Instant;

fn fib(n: u64) -> u64 {
    if n < 2 {
        return n;
    }
    let (a, b) = magpie::join(|| fib(n - 1), || fib(n - 2));
    a + b
}

fn fib_seq(n: u64) -> u64 {
    if n < 2 {
        return n;
    }
    let (a, b) = (fib_seq(n - 1), fib_seq(n - 2));
    a + b
}

fn main() {
    let n: u64 = std::env::args()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(32);
    for _ in 0..3 {
        let t = Instant::now();
        let r = std::hint::black_box(fib_seq(std::hint::black_box(n)));
        println!("{:>18} fib({n})={r} {:?}", "sequential", t.elapsed());
    }
    let only = std::env::var("FIB_DEQUE").ok();
    let workers_list: Vec<usize> = match std::env::var("FIB_WORKERS") {
        Ok(w) => w.split(',').map(|x| x.parse().unwrap()).collect(),
        Err(_) => vec![1, 2],
    };
    for deque in [
        "chase-lev",
        "lcws-user",
        "lcws-signal",
        "lcws-conservative",
        "lcws-half",
    ] {
        if only.as_deref().is_some_and(|o| o != deque) {
            continue;
        }
        for &workers in &workers_list {
            let pool = magpie::ThreadPoolBuilder::from_env()
                .num_workers(workers)
                .deque(deque)
                .build()
                .unwrap();
            for _ in 0..3 {
                let t = Instant::now();
                let r = pool.install(|| fib(n));
                println!("{deque:>18} w={workers} fib({n})={r} {:?}", t.elapsed());
            }
            println!("{:?}", pool.stats().total());
        }
    }
}
