//! Parallel regions, barriers, `single`, `copyprivate` and cancellation: the GOMP entry
//! points that translate to [`magpie::team`].

use std::cell::RefCell;
use std::ffi::c_void;
use std::sync::atomic::{AtomicPtr, Ordering};
use std::sync::Arc;

use magpie::team;

use crate::icv::{icv, pool};
use crate::worksharing::Ws;

/// The OpenMP state of a thread in its current region, beside magpie's team frame.
#[derive(Default)]
pub(crate) struct OmpThread {
    /// The worksharing construct the thread is in, with its cursor.
    pub(crate) ws: Option<crate::worksharing::Current>,
    /// The outlined function of the innermost region (the loops' identity).
    pub(crate) region_fn: usize,
    /// Worksharing constructs this member met in the region so far.
    pub(crate) ordinal: u64,
    /// The `single copyprivate` this thread won, until `GOMP_single_copy_end`.
    copy: Option<Arc<CopyWs>>,
}

thread_local! {
    pub(crate) static OMP: RefCell<OmpThread> = RefCell::new(OmpThread::default());
}

/// A raw pointer the members of a region share (the region's data block).
#[derive(Clone, Copy)]
pub(crate) struct Shared(pub(crate) *mut c_void);
// SAFETY: the pointer is the C program's shared data; OpenMP's rules on shared variables
// make the program responsible for synchronising its use, as libgomp's callers are.
unsafe impl Send for Shared {}
// SAFETY: as above.
unsafe impl Sync for Shared {}

/// The outlined function of a region or task.
pub(crate) type OutlinedFn = unsafe extern "C" fn(*mut c_void);

/// Runs a region of `num_threads` (0: nthreads-var) members, each calling `setup(member)`
/// then `f(data)`; returns after the region's last barrier.
pub(crate) fn run_region(
    f: OutlinedFn,
    data: *mut c_void,
    num_threads: u32,
    setup: &(dyn Fn() + Sync),
) {
    let n = match num_threads {
        0 => icv().nthreads.load(Ordering::Relaxed),
        n => n as usize,
    };
    if n > 1 {
        // The first region builds the pool, with this thread as worker 0.
        pool();
    }
    let data = Shared(data);
    let body = move |_member: usize| {
        let saved = OMP.with(|o| {
            o.replace(OmpThread {
                region_fn: f as usize,
                ..OmpThread::default()
            })
        });
        setup();
        let data = data;
        // SAFETY: the compiler's outlined function, called with its own data block, as
        // libgomp calls it on every member of the team.
        unsafe { f(data.0) };
        OMP.with(|o| o.replace(saved));
    };
    let team_size = if crate::icv::on_pool() { n } else { 1 };
    team::parallel(team_size, &body);
}

/// Starts a parallel region. ABI: `void GOMP_parallel (void (*fn) (void *), void *data,
/// unsigned num_threads, unsigned flags)`: `num_threads` 0 means nthreads-var (an `if`
/// clause that is false arrives as 1); `flags` carries `proc_bind`, which is accepted.
///
/// # Safety
/// `fn` is the compiler's outlined region and `data` its argument block.
#[no_mangle]
pub unsafe extern "C" fn GOMP_parallel(
    f: OutlinedFn,
    data: *mut c_void,
    num_threads: u32,
    _flags: u32,
) {
    crate::ffi("GOMP_parallel", || run_region(f, data, num_threads, &|| {}))
}

/// Waits for the team. ABI: `void GOMP_barrier (void)`.
#[no_mangle]
pub extern "C" fn GOMP_barrier() {
    crate::ffi("GOMP_barrier", team::barrier)
}

/// A barrier that could observe cancellation. ABI: `bool GOMP_barrier_cancel (void)`;
/// cancellation is off, so it is never cancelled.
#[no_mangle]
pub extern "C" fn GOMP_barrier_cancel() -> bool {
    crate::ffi("GOMP_barrier_cancel", || {
        team::barrier();
        false
    })
}

/// ABI: `bool GOMP_cancel (int which, bool do_cancel)`. Cancellation is off
/// (`omp_get_cancellation()` is false), so the construct is not cancelled.
#[no_mangle]
pub extern "C" fn GOMP_cancel(_which: i32, _do_cancel: bool) -> bool {
    false
}

/// ABI: `bool GOMP_cancellation_point (int which)`: never cancelled (cancellation is off).
#[no_mangle]
pub extern "C" fn GOMP_cancellation_point(_which: i32) -> bool {
    false
}

/// ABI: `bool GOMP_single_start (void)`: true for the one member that runs the block.
#[no_mangle]
pub extern "C" fn GOMP_single_start() -> bool {
    crate::ffi("GOMP_single_start", team::single)
}

/// The shared state of a `single copyprivate`: the winner's data block.
pub(crate) struct CopyWs(AtomicPtr<c_void>);

/// ABI: `void *GOMP_single_copy_start (void)`: NULL for the member that runs the block
/// (it then calls `GOMP_single_copy_end`), the winner's data block for the others, once the
/// winner published it.
#[no_mangle]
pub extern "C" fn GOMP_single_copy_start() -> *mut c_void {
    crate::ffi("GOMP_single_copy_start", || {
        let (ws, first) = team::workshare(|| CopyWs(AtomicPtr::new(std::ptr::null_mut())));
        if first {
            OMP.with(|o| o.borrow_mut().copy = Some(ws));
            std::ptr::null_mut()
        } else {
            team::barrier();
            ws.0.load(Ordering::Acquire)
        }
    })
}

/// ABI: `void GOMP_single_copy_end (void *data)`: the winner publishes its data block and
/// waits until the others can read it.
#[no_mangle]
pub extern "C" fn GOMP_single_copy_end(data: *mut c_void) {
    crate::ffi("GOMP_single_copy_end", || {
        if let Some(ws) = OMP.with(|o| o.borrow_mut().copy.take()) {
            ws.0.store(data, Ordering::Release);
            if team::info().size > 1 {
                team::barrier();
            }
        }
    })
}

impl OmpThread {
    /// Takes the next worksharing construct's number.
    pub(crate) fn next_ordinal(&mut self) -> u64 {
        let k = self.ordinal;
        self.ordinal += 1;
        k
    }
}

/// Runs a combined `parallel` + worksharing construct: every member joins `ws` as its first
/// construct before the outlined function asks for chunks.
pub(crate) fn run_combined(
    f: OutlinedFn,
    data: *mut c_void,
    num_threads: u32,
    make: &(dyn Fn(usize) -> Ws + Sync),
) {
    run_region(f, data, num_threads, &|| {
        crate::worksharing::join(make, false)
    })
}
