//! The C peer of magpie's knapsack search: a minimal depth-first branch and bound with the
//! Dantzig bound (`csrc/knapsack_bb.c`, compiled by `build.rs` with `-O3`), behind a safe
//! wrapper.
//!
//! The C program walks the same tree as `magpie_apps::knapsack::KnapNode` under the
//! `Sequential` skeleton: items in heuristic order (non-increasing profit/weight, as
//! [`Instance::order`]), include first, a child entered only when its profit plus the
//! Dantzig bound of the rest is above the best profit so far. So its call count equals the
//! skeleton's expanded-node count, which the `cpeer` experiment checks. It returns the
//! optimum only (no selection).

use magpie_apps::knapsack::Instance;

mod ffi {
    extern "C" {
        pub fn knapsack_bb(
            n: usize,
            cap: u64,
            p: *const u64,
            w: *const u64,
            pp: *const u64,
            pw: *const u64,
            calls: *mut u64,
        ) -> u64;
    }
}

/// An instance prepared for the C solver: profits and weights in heuristic order and their
/// prefix sums (made once, outside any timing).
#[derive(Debug, Clone)]
pub struct CKnapsack {
    capacity: u64,
    p: Vec<u64>,
    w: Vec<u64>,
    pp: Vec<u64>,
    pw: Vec<u64>,
}

impl CKnapsack {
    /// Prepares `inst` (whose `Instance::new` already checked that the sums fit in u64).
    pub fn new(inst: &Instance) -> CKnapsack {
        let p: Vec<u64> = inst.order().iter().map(|&i| inst.profits()[i]).collect();
        let w: Vec<u64> = inst.order().iter().map(|&i| inst.weights()[i]).collect();
        let prefix = |v: &[u64]| {
            let mut out = Vec::with_capacity(v.len() + 1);
            out.push(0u64);
            let mut acc = 0u64;
            for &x in v {
                acc += x;
                out.push(acc);
            }
            out
        };
        CKnapsack {
            capacity: inst.capacity(),
            pp: prefix(&p),
            pw: prefix(&w),
            p,
            w,
        }
    }

    /// Solves the instance: (the optimum, the number of calls = search-tree nodes).
    pub fn solve(&self) -> (u64, u64) {
        let mut calls = 0u64;
        // SAFETY: `p` and `w` hold `n` entries and `pp`, `pw` hold `n + 1` (built by `new`
        // from the same `n` items), which is all the C code reads; the pointers stay valid
        // for the call (borrowed from `self`), the C code only reads through them, and
        // `calls` is a valid, exclusive `u64` it writes once. The C code keeps no pointer
        // after returning.
        let best = unsafe {
            ffi::knapsack_bb(
                self.p.len(),
                self.capacity,
                self.p.as_ptr(),
                self.w.as_ptr(),
                self.pp.as_ptr(),
                self.pw.as_ptr(),
                &mut calls,
            )
        };
        (best, calls)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use magpie::search::{optimise, Options, Skeleton};
    use magpie_apps::knapsack::solve_dp;
    use magpie_apps::rng::XorShift64Star;

    #[test]
    fn c_peer_matches_dp_and_the_sequential_skeleton_node_count() {
        let mut rng = XorShift64Star::from_state(0x2545_f491_4f6c_dd1d);
        let mut next = |m: u64| rng.next_u64() % m;
        for case in 0..300 {
            let n = next(30) as usize;
            let items: Vec<(u64, u64)> = (0..n)
                .map(|_| {
                    let w = 1 + next(50);
                    (if case % 2 == 0 { w + 10 } else { next(80) }, w)
                })
                .collect();
            let total: u64 = items.iter().map(|x| x.1).sum();
            let inst = Instance::new(next(total + 2), &items).unwrap();
            let (best, calls) = CKnapsack::new(&inst).solve();
            assert_eq!(best, solve_dp(&inst).profit, "case {case}: {items:?}");
            let out = optimise(&inst, Skeleton::Sequential, &Options::default());
            assert_eq!(out.value.unwrap().0 as u64, best, "case {case}");
            assert_eq!(calls, out.stats.expanded, "case {case}: {items:?}");
        }
    }

    #[test]
    fn c_peer_on_knapsack_pi_3_500() {
        let path = magpie_apps::testdata::path("knapsack/large_scale/knapPI_3_500_1000_1");
        let inst = magpie_apps::knapsack::read(path).unwrap().pop().unwrap();
        // The README's optimum; 73,102 nodes, as the Sequential skeleton expands.
        assert_eq!(CKnapsack::new(&inst).solve(), (7117, 73_102));
    }
}
