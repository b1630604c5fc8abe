//! The Chase-Lev deque ("WS" baseline). STUB: being written.

use super::{DequeOwner, DequeStealer, Steal};
use crate::stats::WorkerCounters;
use std::marker::PhantomData;

/// Owner side.
pub struct Worker<T> {
    _p: PhantomData<T>,
}
/// Thief side.
pub struct Stealer<T> {
    _p: PhantomData<T>,
}
impl<T> Clone for Stealer<T> {
    fn clone(&self) -> Self {
        Stealer { _p: PhantomData }
    }
}
unsafe impl<T: Send> Send for Worker<T> {}
unsafe impl<T: Send> Send for Stealer<T> {}
unsafe impl<T: Send> Sync for Stealer<T> {}

impl<T: Send> Worker<T> {
    /// A new, empty deque.
    pub fn new() -> Self {
        todo!()
    }
}
impl<T: Send> Default for Worker<T> {
    fn default() -> Self {
        Self::new()
    }
}

impl<T: Send> DequeOwner<T> for Worker<T> {
    type Stealer = Stealer<T>;
    fn push(&self, _task: T, _c: &WorkerCounters) {
        todo!()
    }
    fn pop(&self, _c: &WorkerCounters) -> Option<T> {
        todo!()
    }
    fn stealer(&self) -> Stealer<T> {
        todo!()
    }
    fn is_empty(&self) -> bool {
        todo!()
    }
    fn len(&self) -> usize {
        todo!()
    }
}
impl<T: Send> DequeStealer<T> for Stealer<T> {
    fn steal(&self, _c: &WorkerCounters) -> Steal<T> {
        todo!()
    }
    fn len_hint(&self) -> usize {
        todo!()
    }
}
