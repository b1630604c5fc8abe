//! Kernels of the Problem Based Benchmark Suite (PBBS V2, the programs the LCWS paper
//! evaluates on), each written once over [`crate::join::Join`], checked against a
//! sequential version in its tests and listed in [`crate::registry::KernelId`]; [`gen`]
//! makes their PBBS-style inputs, [`par`] holds the parallel steps they share.

pub mod comparison_sort;
pub mod gen;
pub mod histogram;
pub mod integer_sort;
pub mod par;
pub mod word_counts;
