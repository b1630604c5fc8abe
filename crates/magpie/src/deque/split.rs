//! The LCWS split deque. STUB: being written.

use super::signal::SignalError;
use super::{DequeOwner, DequeStealer, Exposure, Steal};
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
    /// A new, empty split deque with the given exposure.
    pub fn new(_exposure: Exposure) -> Self {
        todo!()
    }

    /// The exposure variant.
    pub fn exposure(&self) -> Exposure {
        todo!()
    }

    /// Binds the calling thread as this deque's owner for signal delivery (signal variants):
    /// records its pthread handle and points the thread's handler target at this deque and
    /// `counters`. Until bound, thieves of a signal variant only set the targeted flag.
    /// The binding ends when the guard drops (which waits for in-flight signal sends).
    pub fn bind_current_thread<'a>(
        &'a self,
        _signal: std::os::raw::c_int,
        _counters: &'a WorkerCounters,
    ) -> Result<BindGuard<'a>, SignalError> {
        todo!()
    }
}

/// Keeps a thread bound to a split deque for signal delivery; unbinds on drop.
pub struct BindGuard<'a> {
    _p: PhantomData<&'a ()>,
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
