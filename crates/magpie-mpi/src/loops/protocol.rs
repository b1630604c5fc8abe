//! The wire protocol of a distributed loop: message tags, the messages, and the main
//! thread's non-blocking sends and receives (every message body is [`crate::codec`]'s).

use std::collections::VecDeque;
use std::time::Duration;

use mpi::topology::SimpleCommunicator;
use mpi::traits::*;
use serde::{Deserialize, Serialize};

use super::{DataDescription, RankLoopStats};

// Tags, distinct from the search's.
pub(super) const TAG_REQUEST: i32 = 20;
pub(super) const TAG_CHUNK: i32 = 21;
pub(super) const TAG_NO_MORE: i32 = 22;
pub(super) const TAG_RESULT: i32 = 23;
pub(super) const TAG_RELAY: i32 = 24;
pub(super) const TAG_WORK: i32 = 25;
pub(super) const TAG_NO_WORK: i32 = 26;
pub(super) const TAG_REJECT: i32 = 27;
pub(super) const TAG_GRANTED: i32 = 28;
pub(super) const TAG_COMPLETE: i32 = 29;
pub(super) const TAG_END: i32 = 30;
pub(super) const TAG_DRAINED: i32 = 31;
pub(super) const TAG_FINAL: i32 = 32;
pub(super) const TAG_STATS: i32 = 33;
pub(super) const TAG_GATHER: i32 = 34;

/// The main thread's side of MPI: non-blocking sends that keep receiving while they wait,
/// and messages to this rank itself through the inbox.
pub(super) struct Comm {
    pub(super) world: SimpleCommunicator,
    pub(super) rank: i32,
    pub(super) size: i32,
    pub(super) inbox: VecDeque<(i32, i32, Vec<u8>)>,
    /// The recording of this thread's messages (`--trace`), if one runs.
    pub(super) trace: Option<crate::trace::CommRecorder>,
}

impl Comm {
    pub(super) fn send(&mut self, to: i32, tag: i32, bytes: Vec<u8>) {
        if to == self.rank {
            self.inbox.push_back((to, tag, bytes));
            return;
        }
        let world = &self.world;
        let inbox = &mut self.inbox;
        mpi::request::scope(|scope| {
            let mut req = Some(world.process_at_rank(to).immediate_send_with_tag(
                scope,
                &bytes[..],
                tag,
            ));
            // A slow or stopped (SIGSTOP) receiver: wait without a hot spin.
            crate::wait_politely(|| {
                match req.take()?.test() {
                    Ok(_) => return Some(()),
                    Err(r) => req = Some(r),
                }
                // Keep receiving: a peer blocked sending to us must not block us in turn.
                if let Some(p) = world.any_process().immediate_matched_probe() {
                    let (b, status) = p.matched_receive_vec::<u8>();
                    inbox.push_back((status.source_rank(), status.tag(), b));
                }
                None
            });
        });
    }

    pub(super) fn signal(&mut self, to: i32, tag: i32) {
        self.send(to, tag, vec![0u8]);
    }

    /// Records `message` sent to (`sent`) or received from `peer`, if a recording runs.
    pub(super) fn record(&mut self, sent: bool, peer: i32, message: crate::trace::Message) {
        crate::trace::record(&mut self.trace, sent, peer, message);
    }

    pub(super) fn recv(&mut self) -> Option<(i32, i32, Vec<u8>)> {
        if let Some(m) = self.inbox.pop_front() {
            return Some(m);
        }
        let p = self.world.any_process().immediate_matched_probe()?;
        let (b, status) = p.matched_receive_vec::<u8>();
        Some((status.source_rank(), status.tag(), b))
    }
}

/// Stolen work on the wire.
#[derive(Serialize, Deserialize)]
pub(super) struct WorkMsg {
    pub(super) owner: i32,
    pub(super) start: u64,
    pub(super) end: u64,
    pub(super) data: Vec<u8>,
}

/// For fuzzing: decodes `bytes` as each message this module exchanges (results as `f64`
/// and `Vec<u8>`, data as `u64`), with [`crate::codec::check_decode`].
#[doc(hidden)]
pub fn decode_each_message(bytes: &[u8]) -> Vec<Result<(), crate::codec::DecodeError>> {
    use crate::codec::check_decode;
    vec![
        check_decode::<RankLoopStats>(bytes, "statistics"),
        check_decode::<(u64, Vec<f64>)>(bytes, "gathered results"),
        check_decode::<(u64, Vec<Vec<u8>>)>(bytes, "result"),
        check_decode::<i32>(bytes, "relay"),
        check_decode::<WorkMsg>(bytes, "work"),
        check_decode::<(u64, u64)>(bytes, "chunk"),
        check_decode::<(u64, u64, Vec<f64>)>(bytes, "result"),
        DataDescription::<u64>::OneToOne
            .decode(0..3, bytes)
            .map(drop)
            .map_err(|e| match e {
                crate::Error::Decode(e) => e,
                other => crate::codec::DecodeError {
                    what: "iteration data",
                    len: bytes.len(),
                    reason: other.to_string(),
                },
            }),
    ]
}

pub(super) fn pause(progressed: bool, idle: bool) {
    if !progressed {
        std::thread::sleep(Duration::from_micros(if idle { 50 } else { 200 }));
    }
}
