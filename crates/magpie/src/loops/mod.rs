//! Parallel loops with self-scheduling and loop work stealing (LB4OMP): `parallel_for`,
//! `parallel_for_chunks` and `parallel_reduce` over an index range, scheduled by a
//! [`Schedule`] chosen in code, from a string (`name[,chunk]`, as `OMP_SCHEDULE`) or from the
//! `MAGPIE_SCHEDULE` variable.
//!
//! Two families of schedules: the *central-queue* techniques of the dynamic loop
//! self-scheduling literature (SS, GSS, TSS, FAC, FAC2, WF, AWF*, AF), where every worker
//! takes its next chunk from one shared counter and a [`chunks::ChunkRule`] sizes it; and
//! the *distributed* ones (static, static-steal, rws, laws, auto), where each worker owns a
//! block of iterations and idle workers steal part of someone else's.

pub mod chunks;
pub mod schedule;

pub use schedule::{Schedule, ScheduleError};
