//! Kernels of the Problem Based Benchmark Suite (PBBS V2, the programs the LCWS paper
//! evaluates on), each written once over [`crate::join::Join`], checked against a
//! sequential version in its tests and listed in [`crate::registry::KernelId`]: sorting and
//! counting kernels with their PBBS-style inputs from [`gen`]; graph and geometry kernels
//! with inputs from [`graph_gen`] and [`point_gen`]; all of them built from the parallel
//! steps of [`par`].

pub mod backforward_bfs;
pub mod bfs;
pub mod comparison_sort;
pub mod gen;
pub mod graph_gen;
pub mod histogram;
pub mod hull;
pub mod integer_sort;
pub mod matching;
pub mod neighbours;
pub mod par;
pub mod point_gen;
pub mod word_counts;
