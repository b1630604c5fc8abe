//! PBBS kernels (issue 17, item 2): graph and geometry kernels of the Problem Based
//! Benchmark Suite, each written once over [`crate::join::Join`].

pub mod bfs;
pub mod graph_gen;
pub mod hull;
pub mod matching;
pub mod neighbours;
pub mod par;
pub mod point_gen;
