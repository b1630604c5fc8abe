//! magpie: a work-stealing runtime for irregular parallel work. (crate docs: TODO)
#![deny(unsafe_op_in_unsafe_fn)]
#![warn(missing_docs)]

pub mod deque;
pub mod stats;
pub mod sync;
