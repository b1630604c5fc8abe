//! A rank's main thread, the only one that calls MPI: serves steal requests, steals when
//! the rank is idle, sends and receives incumbents, runs the `perf` monitor, and returns
//! credit until the search is over.

use std::collections::VecDeque;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use mpi::traits::*;
use serde::de::DeserializeOwned;
use serde::Serialize;

use super::pool::Shared;
use super::protocol::*;
use super::RankState;
use crate::codec::{decode_from, encode};
use crate::credit::{Credit, Recovered};
use crate::trace::{record, Message};
use crate::victims::RemoteVictims;
use crate::{Cluster, RankStats};

/// The rank's communication loop (main thread): serves steal requests, steals when idle,
/// returns credit, and ends when `DONE` arrives (or, on rank 0, when the whole credit is
/// back). With `priority` (Ordered, its spawn depth) every task is on rank 0 until taken: a
/// rank other than 0 asks rank 0, and only rank 0, as soon as one of its workers is idle and
/// its pool empty (not only when the whole rank is idle), so that each of its workers gets
/// the next task in priority order; rank 0 never asks, and never gives away the root.
///
/// `monitor`'s stop ends the search: rank 0 sends `DONE` at once; another rank sends
/// `STOP` to rank 0 (once), which then sends `DONE`. On rank 0, the incumbents that
/// other ranks send are recorded in `monitor`. Returns whether rank 0 ended the search for
/// a stop (on the other ranks, `false`).
#[allow(clippy::too_many_arguments)]
pub(super) fn communicate<N: Serialize + DeserializeOwned>(
    cluster: &Cluster,
    shared: &Shared<N>,
    state: &RankState,
    credit: &mut Credit,
    (victims, monitor): (&RemoteVictims, Option<&magpie::search::Monitor>),
    stats: &mut RankStats,
    rank: i32,
    size: i32,
    on_demand: bool,
    priority: Option<usize>,
) -> bool {
    let world = cluster.world();
    let mut recovered = Recovered::default();
    let mut stop_asked = false;
    let mut stopped = false;
    let mut chooser = victims.chooser(rank, size, state.rates.len());
    let mut waiting_thieves: VecDeque<i32> = VecDeque::new();
    let mut asked: Option<i32> = None;
    let mut idle_since: Option<Instant> = None;
    let min_depth = priority.unwrap_or(0);
    // The recording of this thread's messages (`--trace`), if one runs; given back at the end.
    let mut trace = cluster.lock_recorder().take();
    let finish = |world: &mpi::topology::SimpleCommunicator| {
        for r in 1..size {
            world.process_at_rank(r).send_with_tag(&[0u8][..], TAG_DONE);
        }
    };
    'serve: loop {
        if crate::abort_requested() {
            // A worker of this rank panicked (its hook printed the error).
            crate::abort_job();
        }
        if !stop_asked && monitor.is_some_and(|m| m.is_stopped()) {
            stop_asked = true;
            if rank == 0 {
                stopped = true;
                finish(&world);
                break 'serve;
            }
            world.process_at_rank(0).send_with_tag(&[0u8][..], TAG_STOP);
        }
        let mut progressed = false;
        while let Some(probed) = world.any_process().immediate_matched_probe() {
            progressed = true;
            let (bytes, status) = probed.matched_receive_vec::<u8>();
            let from = status.source_rank();
            match status.tag() {
                TAG_STEAL => {
                    stats.requests_received += 1;
                    record(&mut trace, false, from, Message::StealRequest);
                    if !give_work(
                        &world,
                        shared,
                        credit,
                        (stats, &mut trace),
                        (from, min_depth),
                    ) {
                        if on_demand && shared.lock().active > 0 {
                            // StackStealing: a busy worker will split its stack; the
                            // thief waits for that (or for this rank to run dry).
                            shared.split_wanted.store(true, Ordering::Relaxed);
                            waiting_thieves.push_back(from);
                        } else {
                            refuse(&world, from, &mut trace);
                        }
                    }
                }
                TAG_WORK => {
                    let work: Work<N> = decode_from(&bytes, "work", from);
                    stats.bytes_received += bytes.len() as u64;
                    stats.steals_ok += 1;
                    let tasks = work.tasks.len() as u64;
                    stats.tasks_received += tasks;
                    record(&mut trace, false, from, Message::Work { tasks });
                    if asked.take().is_some() {
                        chooser.outcome(from, true, Instant::now());
                    }
                    credit.absorb(Credit::from_exponents(work.credit));
                    let mut p = shared.lock();
                    for (depth, node) in work.tasks {
                        p.push(depth as usize, node, None);
                    }
                    drop(p);
                    shared.wake.notify_all();
                }
                TAG_NO_WORK => {
                    stats.steals_failed += 1;
                    record(&mut trace, false, from, Message::Refusal);
                    if asked.take().is_some() {
                        chooser.outcome(from, false, Instant::now());
                    }
                }
                TAG_CREDIT => {
                    let returned: Vec<u32> = decode_from(&bytes, "credit", from);
                    recovered.add(Credit::from_exponents(returned));
                    if recovered.is_whole() {
                        finish(&world);
                        break 'serve;
                    }
                }
                TAG_BOUND => {
                    let value: i64 = decode_from(&bytes, "bound", from);
                    stats.bounds_received += 1;
                    state.incumbent.fetch_max(value, Ordering::Relaxed);
                    if let Some(m) = monitor {
                        m.improved(value, None, from as usize);
                    }
                }
                TAG_PERF_QUERY => {
                    // The `perf` policy's monitor on rank `from` asks for this rank's load
                    // and residual tasks (answered whatever this rank's own policy).
                    let tasks = shared.lock().len as u64;
                    let bytes = encode(&(state.load(), tasks));
                    world
                        .process_at_rank(from)
                        .send_with_tag(&bytes[..], TAG_PERF_REPLY);
                }
                TAG_PERF_REPLY => {
                    let (load, tasks): (f64, u64) = decode_from(&bytes, "monitor reply", from);
                    if let Some(m) = chooser.monitor() {
                        m.reply(from, load, tasks, Instant::now());
                    }
                }
                TAG_FOUND => {
                    // Rank 0: a rank found a node reaching the target.
                    finish(&world);
                    break 'serve;
                }
                TAG_STOP => {
                    // Rank 0: a rank's monitor was stopped (a signal there).
                    stopped = true;
                    finish(&world);
                    break 'serve;
                }
                TAG_DONE => break 'serve,
                other => panic!("rank {rank}: unexpected message tag {other} from rank {from}"),
            }
        }
        if state.improved.swap(false, Ordering::Acquire) {
            // A better incumbent here: every other rank prunes with it at once.
            let bytes = encode(&state.incumbent.load(Ordering::Relaxed));
            for r in (0..size).filter(|&r| r != rank) {
                world
                    .process_at_rank(r)
                    .send_with_tag(&bytes[..], TAG_BOUND);
                stats.bounds_sent += 1;
            }
        }
        if state.found.swap(false, Ordering::Acquire) {
            // Decision: the first success ends the search on every rank.
            if rank == 0 {
                finish(&world);
                break 'serve;
            }
            world
                .process_at_rank(0)
                .send_with_tag(&[0u8][..], TAG_FOUND);
        }
        if let Some(m) = chooser.monitor() {
            let now = Instant::now();
            if size > 1 && m.refresh_due(now) {
                m.refresh_sent(now);
                for r in (0..size).filter(|&r| r != rank) {
                    world
                        .process_at_rank(r)
                        .send_with_tag(&[0u8][..], TAG_PERF_QUERY);
                }
                progressed = true;
            }
        }
        let (idle, hungry) = {
            let p = shared.lock();
            (
                p.len == 0 && p.active == 0,
                p.len == 0 && p.active < state.rates.len(),
            )
        };
        while let Some(&thief) = waiting_thieves.front() {
            if give_work(
                &world,
                shared,
                credit,
                (stats, &mut trace),
                (thief, min_depth),
            ) {
                waiting_thieves.pop_front();
                progressed = true;
            } else if idle {
                refuse(&world, thief, &mut trace);
                waiting_thieves.pop_front();
            } else {
                break;
            }
        }
        if idle {
            idle_since.get_or_insert_with(Instant::now);
            if !credit.is_empty() {
                let c = credit.take();
                if rank == 0 {
                    recovered.add(c);
                    if recovered.is_whole() {
                        finish(&world);
                        break 'serve;
                    }
                } else {
                    let bytes = encode(&c.exponents().to_vec());
                    world
                        .process_at_rank(0)
                        .send_with_tag(&bytes[..], TAG_CREDIT);
                }
            }
        } else if let Some(since) = idle_since.take() {
            stats.idle += since.elapsed();
        }
        let wants_work = if priority.is_some() {
            hungry && rank != 0
        } else {
            idle
        };
        if wants_work && asked.is_none() && size > 1 && chooser.may_steal(Instant::now()) {
            let victim = if priority.is_some() {
                0
            } else {
                chooser.next_victim()
            };
            stats.requests_sent += 1;
            world
                .process_at_rank(victim)
                .send_with_tag(&[0u8][..], TAG_STEAL);
            record(&mut trace, true, victim, Message::StealRequest);
            asked = Some(victim);
            progressed = true;
        }
        if !progressed {
            // Nothing arrived: let the workers have the core for a moment.
            std::thread::sleep(Duration::from_micros(if idle { 50 } else { 200 }));
        }
    }
    // The rank's last idle stretch, however the loop ended.
    if let Some(since) = idle_since {
        stats.idle += since.elapsed();
    }
    if let Some(m) = chooser.monitor() {
        (stats.refreshes, stats.aux_refreshes) = m.refreshes;
    }
    *cluster.lock_recorder() = trace;
    stopped
}
