//! A rank's local side of a distributed loop: the pieces of iterations it holds, the state
//! its driver thread and main thread share, the driver that runs batches on the pool, and
//! the results it owns.

use std::collections::VecDeque;
use std::ops::Range;
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use magpie::loops::{Loop, StealAmount};

use super::{batch_size, steal_amount};

/// A contiguous run of iterations and their data: `items[j]` of iteration `start + j`.
pub(super) struct Piece<'d, T> {
    pub(super) owner: i32,
    pub(super) start: usize,
    pub(super) items: PieceItems<'d, T>,
}

/// A piece's elements: borrowed (the rank's own block) or received with stolen iterations.
pub(super) enum PieceItems<'d, T> {
    Own(&'d [T]),
    Stolen(Vec<T>),
}

impl<T> std::ops::Deref for PieceItems<'_, T> {
    type Target = [T];
    fn deref(&self) -> &[T] {
        match self {
            PieceItems::Own(s) => s,
            PieceItems::Stolen(v) => v,
        }
    }
}

/// A piece with its unclaimed iterations `[lo, hi)`.
pub(super) struct Cur<'d, T> {
    pub(super) piece: Arc<Piece<'d, T>>,
    pub(super) lo: usize,
    pub(super) hi: usize,
}

/// A finished batch: its owner, its first iteration, its results, its time in ns.
pub(super) type Done<R> = (i32, usize, Vec<R>, u64);

/// What the driver and the main thread share.
pub(super) struct Work<'d, T, R> {
    pub(super) current: Option<Cur<'d, T>>,
    pub(super) queue: VecDeque<Cur<'d, T>>,
    pub(super) running: bool,
    pub(super) finished: Vec<Done<R>>,
    pub(super) done: bool,
}

impl<T, R> Default for Work<'_, T, R> {
    fn default() -> Self {
        Work {
            current: None,
            queue: VecDeque::new(),
            running: false,
            finished: Vec::new(),
            done: false,
        }
    }
}

impl<T, R> Work<'_, T, R> {
    /// No unclaimed iteration, no batch running, no batch left to report.
    pub(super) fn idle(&self) -> bool {
        self.current.as_ref().is_none_or(|c| c.lo >= c.hi)
            && self.queue.iter().all(|c| c.lo >= c.hi)
            && !self.running
            && self.finished.is_empty()
    }
}

pub(super) struct Shared<'d, T, R> {
    pub(super) work: Mutex<Work<'d, T, R>>,
    pub(super) wake: Condvar,
}

impl<'d, T, R> Shared<'d, T, R> {
    pub(super) fn lock(&self) -> MutexGuard<'_, Work<'d, T, R>> {
        self.work.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Cuts a thief's share from the upper end of the unclaimed iterations (the current
    /// piece, else the last queued one): the piece and the cut range.
    pub(super) fn cut(
        &self,
        amount: StealAmount,
        ranks: usize,
    ) -> Option<(Arc<Piece<'d, T>>, Range<usize>)> {
        let mut w = self.lock();
        let w = &mut *w;
        let c = match w.current.as_mut().filter(|c| c.lo < c.hi) {
            Some(c) => c,
            None => w.queue.iter_mut().rev().find(|c| c.lo < c.hi)?,
        };
        let k = steal_amount(amount, c.hi - c.lo, ranks);
        if k == 0 {
            return None;
        }
        c.hi -= k;
        Some((c.piece.clone(), c.hi..c.hi + k))
    }

    pub(super) fn push(&self, cur: Cur<'d, T>) {
        self.lock().queue.push_back(cur);
        self.wake.notify_all();
    }

    pub(super) fn take_finished(&self) -> Vec<Done<R>> {
        std::mem::take(&mut self.lock().finished)
    }
}

/// What the driver measured.
#[derive(Default)]
pub(super) struct Driven {
    pub(super) iterations: u64,
    pub(super) batches: u64,
    pub(super) busy: Duration,
    pub(super) idle: Duration,
    pub(super) finish: Duration,
}

/// The rank's driver (on a thread inside the pool): claims a batch (steal mode) or a whole
/// chunk (share mode) from the lower end of the current piece, runs it with the local loop,
/// reports its results; waits when there is nothing, until `done`.
pub(super) fn drive<T, R, F>(
    shared: &Shared<'_, T, R>,
    lp: &Loop,
    body: &F,
    workers: usize,
    batches: bool,
    start: Instant,
) -> Driven
where
    T: Send + Sync,
    R: Send,
    F: Fn(usize, &T) -> R + Sync,
{
    let mut d = Driven::default();
    let mut idle_since = Some(Instant::now());
    loop {
        let (piece, range) = {
            let mut w = shared.lock();
            loop {
                if let Some(c) = w.current.as_mut() {
                    if c.lo < c.hi {
                        let rem = c.hi - c.lo;
                        let k = if batches {
                            batch_size(rem, workers)
                        } else {
                            rem
                        };
                        let a = c.lo;
                        c.lo += k;
                        let piece = c.piece.clone();
                        w.running = true;
                        break (piece, a..a + k);
                    }
                    w.current = None;
                }
                if let Some(next) = w.queue.pop_front() {
                    w.current = Some(next);
                    continue;
                }
                if w.done {
                    if let Some(s) = idle_since {
                        d.idle += s.elapsed();
                    }
                    return d;
                }
                w = shared
                    .wake
                    .wait_timeout(w, Duration::from_millis(1))
                    .unwrap_or_else(|e| e.into_inner())
                    .0;
            }
        };
        if let Some(s) = idle_since.take() {
            d.idle += s.elapsed();
        }
        let t = Instant::now();
        let parts: Mutex<Vec<(usize, Vec<R>)>> = Mutex::new(Vec::new());
        let items = &piece.items;
        lp.for_chunks(range.clone(), |chunk| {
            let rs: Vec<R> = chunk
                .clone()
                .map(|i| body(i, &items[i - piece.start]))
                .collect();
            parts
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .push((chunk.start, rs));
        });
        let mut parts = parts.into_inner().unwrap_or_else(|e| e.into_inner());
        parts.sort_by_key(|p| p.0);
        let results: Vec<R> = parts.into_iter().flat_map(|p| p.1).collect();
        assert_eq!(
            results.len(),
            range.len(),
            "the local loop covers its batch"
        );
        let elapsed = t.elapsed();
        d.busy += elapsed;
        d.iterations += range.len() as u64;
        d.batches += 1;
        d.finish = start.elapsed();
        let ns = u64::try_from(elapsed.as_nanos()).unwrap_or(u64::MAX);
        let mut w = shared.lock();
        w.running = false;
        w.finished.push((piece.owner, range.start, results, ns));
        let more = w.current.as_ref().is_some_and(|c| c.lo < c.hi) || !w.queue.is_empty();
        drop(w);
        if !more {
            idle_since = Some(Instant::now());
        }
    }
}

/// The results of the iterations a rank owns, each recorded exactly once.
pub(super) struct Owned<R> {
    pub(super) start: usize,
    pub(super) slots: Vec<Option<R>>,
    pub(super) filled: usize,
}

impl<R> Owned<R> {
    pub(super) fn new(range: Range<usize>) -> Self {
        Owned {
            start: range.start,
            slots: range.map(|_| None).collect(),
            filled: 0,
        }
    }

    pub(super) fn put(&mut self, start: usize, results: Vec<R>) {
        for (j, r) in results.into_iter().enumerate() {
            let i = start + j;
            let slot = i
                .checked_sub(self.start)
                .and_then(|k| self.slots.get_mut(k))
                .unwrap_or_else(|| {
                    panic!("iteration {i}'s result reached a rank that does not own it")
                });
            assert!(slot.is_none(), "iteration {i}'s result arrived twice");
            *slot = Some(r);
            self.filled += 1;
        }
    }

    pub(super) fn complete(&self) -> bool {
        self.filled == self.slots.len()
    }

    pub(super) fn into_results(self) -> Vec<R> {
        let start = self.start;
        self.slots
            .into_iter()
            .enumerate()
            .map(|(j, r)| {
                r.unwrap_or_else(|| panic!("iteration {}'s result is missing", start + j))
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn owned_results_exactly_once() {
        let mut o = Owned::new(10..15);
        o.put(12, vec![2, 3]);
        assert!(!o.complete());
        o.put(10, vec![0, 1]);
        o.put(14, vec![4]);
        assert!(o.complete());
        assert_eq!(o.into_results(), [0, 1, 2, 3, 4]);
        let twice = std::panic::catch_unwind(|| {
            let mut o = Owned::new(0..2);
            o.put(0, vec![1]);
            o.put(0, vec![1]);
        });
        assert!(twice.is_err());
    }
}
