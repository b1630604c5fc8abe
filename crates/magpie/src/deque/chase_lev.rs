//! TEMPORARY stand-in (crossbeam-deque) until the real Chase-Lev deque lands.
#![allow(missing_docs)]
use super::{DequeOwner, DequeStealer, Steal};
use crate::stats::WorkerCounters;

pub struct Worker<T>(crossbeam_deque::Worker<T>);
pub struct Stealer<T>(crossbeam_deque::Stealer<T>);
impl<T> Clone for Stealer<T> {
    fn clone(&self) -> Self {
        Stealer(self.0.clone())
    }
}
impl<T: Send> Worker<T> {
    pub fn new() -> Self {
        Worker(crossbeam_deque::Worker::new_lifo())
    }
}
impl<T: Send> Default for Worker<T> {
    fn default() -> Self {
        Self::new()
    }
}
impl<T: Send> DequeOwner<T> for Worker<T> {
    type Stealer = Stealer<T>;
    fn push(&self, t: T, c: &WorkerCounters) {
        c.pushes.bump();
        self.0.push(t)
    }
    fn pop(&self, c: &WorkerCounters) -> Option<T> {
        let r = self.0.pop();
        if r.is_some() {
            c.private_pops.bump();
        }
        r
    }
    fn stealer(&self) -> Stealer<T> {
        Stealer(self.0.stealer())
    }
    fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
    fn len(&self) -> usize {
        self.0.len()
    }
}
impl<T: Send> DequeStealer<T> for Stealer<T> {
    fn steal(&self, c: &WorkerCounters) -> Steal<T> {
        c.steal_attempts.bump();
        match self.0.steal() {
            crossbeam_deque::Steal::Success(t) => {
                c.steals.bump();
                Steal::Success(t)
            }
            crossbeam_deque::Steal::Empty => Steal::Empty,
            crossbeam_deque::Steal::Retry => Steal::Retry,
        }
    }
    fn len_hint(&self) -> usize {
        self.0.len()
    }
}
