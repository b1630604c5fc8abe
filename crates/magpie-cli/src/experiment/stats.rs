//! The statistics of `magpie experiment` (median, mean, sd, the Student t distribution,
//! Welch's t-test, the Pheet thesis' aggregated result): they live in
//! [`magpie_apps::stats`], shared with `magpie-bench`, and are re-exported here.

pub use magpie_apps::stats::*;
