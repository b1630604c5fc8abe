//! The wire protocol of a distributed search: message tags, the work message, and the
//! answers to a thief (every message body is [`crate::codec`]'s).

use mpi::traits::*;
use serde::{Deserialize, Serialize};

use super::pool::Shared;
use crate::codec::encode;
use crate::credit::Credit;
use crate::trace::{record, CommRecorder, Message};
use crate::RankStats;

pub(super) const TAG_STEAL: i32 = 1;
pub(super) const TAG_WORK: i32 = 2;
pub(super) const TAG_NO_WORK: i32 = 3;
pub(super) const TAG_CREDIT: i32 = 4;
pub(super) const TAG_DONE: i32 = 5;
pub(super) const TAG_RESULT: i32 = 6;
pub(super) const TAG_BOUND: i32 = 7;
pub(super) const TAG_FOUND: i32 = 8;
pub(super) const TAG_PERF_QUERY: i32 = 9;
pub(super) const TAG_PERF_REPLY: i32 = 10;
/// Another rank asks rank 0 to end the search (its monitor was stopped).
pub(super) const TAG_STOP: i32 = 11;

/// What a steal answer carries: the credit that goes with the work, and the tasks.
#[derive(Serialize, Deserialize)]
pub(super) struct Work<N> {
    pub(super) credit: Vec<u32>,
    pub(super) tasks: Vec<(u32, N)>,
}

/// For fuzzing: decodes `bytes` as each message this module exchanges (nodes and
/// accumulators as `u64` and `Vec<u32>`), with [`crate::codec::check_decode`].
#[doc(hidden)]
pub fn decode_each_message(bytes: &[u8]) -> Vec<Result<(), crate::codec::DecodeError>> {
    use crate::codec::check_decode;
    vec![
        check_decode::<Work<u64>>(bytes, "work"),
        check_decode::<Work<Vec<u32>>>(bytes, "work"),
        check_decode::<(u64, RankStats)>(bytes, "result"),
        check_decode::<(Vec<u32>, RankStats)>(bytes, "result"),
        check_decode::<Vec<u32>>(bytes, "credit"),
        check_decode::<i64>(bytes, "bound"),
        check_decode::<(f64, u64)>(bytes, "monitor reply"),
        check_decode::<crate::trace::RankTrace>(bytes, "trace"),
    ]
}

/// Sends thief `from` the shallowest task of this rank with half of its credit (recorded on
/// `trace`); `false` if the pool is empty or its shallowest task is above `min_depth`.
pub(super) fn give_work<N: Serialize>(
    world: &mpi::topology::SimpleCommunicator,
    shared: &Shared<N>,
    credit: &mut Credit,
    (stats, trace): (&mut RankStats, &mut Option<CommRecorder>),
    (from, min_depth): (i32, usize),
) -> bool {
    let Some((depth, node)) = shared.lock().pop_shallowest(min_depth) else {
        return false;
    };
    let half = credit.split().expect("a rank with work holds credit");
    let work = Work {
        credit: half.exponents().to_vec(),
        tasks: vec![(depth as u32, node)],
    };
    let tasks = work.tasks.len() as u64;
    let bytes = encode(&work);
    stats.tasks_sent += tasks;
    stats.bytes_sent += bytes.len() as u64;
    world
        .process_at_rank(from)
        .send_with_tag(&bytes[..], TAG_WORK);
    record(trace, true, from, Message::Work { tasks });
    true
}

/// Tells thief `from` this rank has no work for it (recorded on `trace`).
pub(super) fn refuse(
    world: &mpi::topology::SimpleCommunicator,
    from: i32,
    trace: &mut Option<CommRecorder>,
) {
    world
        .process_at_rank(from)
        .send_with_tag(&[0u8][..], TAG_NO_WORK);
    record(trace, true, from, Message::Refusal);
}
