//! Explicit tasks: `GOMP_task`, `taskwait`, taskgroups, `taskyield` and `taskloop`, on
//! magpie's team tasks (work-stealing deques, priorities, dependences).

use std::alloc::Layout;
use std::ffi::c_void;

use magpie::team::{self, DepKind, TaskOptions};

use crate::region::{OutlinedFn, Shared};
use crate::worksharing::Bounds;

/// GOMP_task/GOMP_taskloop flag bits (gomp-constants.h).
const FLAG_FINAL: u32 = 1 << 1;
const FLAG_DEPEND: u32 = 1 << 3;
const FLAG_PRIORITY: u32 = 1 << 4;
const FLAG_UP: u32 = 1 << 8;
const FLAG_GRAINSIZE: u32 = 1 << 9;
const FLAG_IF: u32 = 1 << 10;
const FLAG_NOGROUP: u32 = 1 << 11;
const FLAG_REDUCTION: u32 = 1 << 12;
const FLAG_DETACH: u32 = 1 << 13;
const FLAG_STRICT: u32 = 1 << 14;

/// The compiler's copy function: copies the firstprivate data into the task's block.
type CopyFn = unsafe extern "C" fn(*mut c_void, *mut c_void);

/// A task's own copy of its argument block, freed when the task is done.
struct ArgBlock {
    ptr: *mut u8,
    layout: Layout,
}

// SAFETY: the block is owned by one task, which runs on one thread at a time.
unsafe impl Send for ArgBlock {}

impl ArgBlock {
    /// A copy of `data` (`size` bytes, aligned to `align`), made by `cpyfn` if given.
    ///
    /// # Safety
    /// `data` is valid for `size` bytes (or what `cpyfn` reads).
    unsafe fn copy(data: *mut c_void, cpyfn: Option<CopyFn>, size: i64, align: i64) -> Self {
        let align = usize::try_from(align)
            .ok()
            .filter(|a| a.is_power_of_two())
            .unwrap_or(1);
        let size = usize::try_from(size).unwrap_or(0);
        let layout = Layout::from_size_align(size.max(1), align)
            .unwrap_or_else(|_| crate::fatal("GOMP_task: argument block of impossible size"));
        // SAFETY: a non-zero-sized layout.
        let ptr = unsafe { std::alloc::alloc(layout) };
        if ptr.is_null() {
            std::alloc::handle_alloc_error(layout);
        }
        match cpyfn {
            // SAFETY: the compiler's copy function, into a block of the size it asked for.
            Some(c) => unsafe { c(ptr.cast(), data) },
            // SAFETY: `data` has `size` bytes (caller), the block as many.
            None => unsafe { std::ptr::copy_nonoverlapping(data.cast::<u8>(), ptr, size) },
        }
        ArgBlock { ptr, layout }
    }
}

impl Drop for ArgBlock {
    fn drop(&mut self) {
        // SAFETY: allocated in `copy` with this layout.
        unsafe { std::alloc::dealloc(self.ptr, self.layout) }
    }
}

/// Reads a `depend` array: the old layout `[n, n_out, addr…]` (out/inout first) or GCC 9's
/// `[0, n, n_out, n_mutexinoutset, n_in, addr…]` (then depobjs, each `{addr, kind}`).
///
/// # Safety
/// `depend` is the compiler's array.
unsafe fn read_depend(depend: *mut *mut c_void) -> Vec<(usize, DepKind)> {
    // SAFETY: the compiler's array, read within the counts it gives.
    unsafe {
        let word = |i: usize| *depend.add(i) as usize;
        if word(0) != 0 {
            let (n, out) = (word(0), word(1));
            (0..n)
                .map(|i| {
                    let kind = if i < out { DepKind::Out } else { DepKind::In };
                    (word(2 + i), kind)
                })
                .collect()
        } else {
            let (n, out, mutex, ins) = (word(1), word(2), word(3), word(4));
            (0..n)
                .map(|i| {
                    let addr = word(5 + i);
                    if i < out + mutex {
                        (addr, DepKind::Out)
                    } else if i < out + mutex + ins {
                        (addr, DepKind::In)
                    } else {
                        // A depobj: `omp_depend_t` = {address, kind}; kind 1 is `in`.
                        let obj = addr as *const usize;
                        let kind = if *obj.add(1) == 1 {
                            DepKind::In
                        } else {
                            DepKind::Out
                        };
                        (*obj, kind)
                    }
                })
                .collect()
        }
    }
}

/// Makes an explicit task. ABI (GCC 11+): `void GOMP_task (void (*fn) (void *), void
/// *data, void (*cpyfn) (void *, void *), long arg_size, long arg_align, bool if_clause,
/// unsigned flags, void **depend, int priority, void *detach)`. `depend`, `priority` and
/// `detach` are read only when their flag bits are set. A deferred task runs on a copy of
/// `data` (made by `cpyfn`, or copied); an undeferred one (`if` false) runs at once.
///
/// # Safety
/// The arguments are the compiler's, as for libgomp.
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn GOMP_task(
    f: OutlinedFn,
    data: *mut c_void,
    cpyfn: Option<CopyFn>,
    arg_size: i64,
    arg_align: i64,
    if_clause: bool,
    flags: u32,
    depend: *mut *mut c_void,
    priority: i32,
    _detach: *mut c_void,
) {
    crate::ffi("GOMP_task", || {
        if flags & FLAG_DETACH != 0 {
            crate::fatal("GOMP_task: the detach clause is not supported by magpie");
        }
        let options = TaskOptions {
            priority: if flags & FLAG_PRIORITY != 0 {
                i64::from(priority)
            } else {
                0
            },
            depend: if flags & FLAG_DEPEND != 0 && !depend.is_null() {
                // SAFETY: the flag says the compiler passed its array.
                unsafe { read_depend(depend) }
            } else {
                Vec::new()
            },
            final_task: flags & FLAG_FINAL != 0,
        };
        // Undeferred, final, or in a team of one (where magpie runs every task at once):
        // the task runs now, on the caller's data block unless a copy function must run.
        if !if_clause || team::in_final() || team::info().size == 1 {
            let run = || match cpyfn {
                // SAFETY: as libgomp does for an undeferred task with a copy function.
                Some(_) => unsafe {
                    let block = ArgBlock::copy(data, cpyfn, arg_size, arg_align);
                    f(block.ptr.cast());
                },
                // SAFETY: the compiler's outlined task on its own data.
                None => unsafe { f(data) },
            };
            team::run_task_now(options, run);
            return;
        }
        // SAFETY: the compiler's data block of `arg_size` bytes.
        let block = unsafe { ArgBlock::copy(data, cpyfn, arg_size, arg_align) };
        team::spawn_task(options, move || {
            let block = block;
            // SAFETY: the compiler's outlined task on the task's own copy of its data.
            unsafe { f(block.ptr.cast()) };
        });
    })
}

void_entries! {
    /// ABI: `void GOMP_taskwait (void)`: waits for the current task's children.
    GOMP_taskwait => team::taskwait;
    /// ABI: `void GOMP_taskyield (void)`.
    GOMP_taskyield => team::taskyield;
    /// ABI: `void GOMP_taskgroup_start (void)`.
    GOMP_taskgroup_start => team::taskgroup_start;
    /// ABI: `void GOMP_taskgroup_end (void)`: waits for the group's tasks and their
    /// descendants.
    GOMP_taskgroup_end => team::taskgroup_end;
}

/// How a taskloop splits `n` iterations: the number of tasks and the iterations of each
/// (the first `n % tasks` get one more).
fn taskloop_split(n: u64, flags: u32, num_tasks: u64, team_size: usize) -> (u64, u64, u64) {
    let tasks = if flags & FLAG_GRAINSIZE != 0 {
        let grain = num_tasks.max(1);
        if flags & FLAG_STRICT != 0 {
            // Every task but the last has exactly `grain` iterations.
            return (n.div_ceil(grain), grain, 0);
        }
        (n / grain).max(1)
    } else if num_tasks == 0 {
        team_size as u64
    } else {
        num_tasks
    }
    .clamp(1, n.max(1));
    (tasks, n / tasks, n % tasks)
}

/// One taskloop, generic over its iteration type's width (the bounds are stored as the
/// first two words of each task's argument block).
///
/// # Safety
/// The compiler's arguments.
#[allow(clippy::too_many_arguments)]
unsafe fn taskloop(
    f: OutlinedFn,
    data: *mut c_void,
    cpyfn: Option<CopyFn>,
    arg_size: i64,
    arg_align: i64,
    flags: u32,
    num_tasks: u64,
    priority: i32,
    bounds: Bounds,
) {
    let n = bounds.trips() as u64;
    if flags & FLAG_REDUCTION != 0 {
        crate::fatal("GOMP_taskloop: task reductions are not supported by magpie");
    }
    if n == 0 {
        return;
    }
    let (tasks, each, extra) = taskloop_split(n, flags, num_tasks, team::info().size);
    let group = flags & FLAG_NOGROUP == 0;
    if group {
        team::taskgroup_start();
    }
    let options = TaskOptions {
        priority: if flags & FLAG_PRIORITY != 0 {
            i64::from(priority)
        } else {
            0
        },
        depend: Vec::new(),
        final_task: flags & crate::tasks::FLAG_FINAL != 0,
    };
    let mut done = 0u64;
    let data = Shared(data);
    for t in 0..tasks {
        let len = if flags & FLAG_STRICT != 0 && flags & FLAG_GRAINSIZE != 0 {
            each.min(n - done)
        } else {
            each + u64::from(t < extra)
        };
        // The iteration values of numbers done..done+len (the last task's end clamped to
        // the loop's end, so it cannot wrap).
        let (lo, hi) = bounds.values(done as usize, (done + len) as usize, n as usize);
        done += len;
        // SAFETY: the compiler's data block; each task gets its own copy.
        let block = unsafe { ArgBlock::copy(data.0, cpyfn, arg_size, arg_align) };
        // SAFETY: the block starts with the two bound words (GCC's taskloop layout).
        unsafe {
            let b = block.ptr.cast::<u64>();
            b.write(lo);
            b.add(1).write(hi);
        }
        if flags & FLAG_IF == 0 {
            // SAFETY: the outlined task body on its own block.
            team::run_task_now(options.clone(), || unsafe { f(block.ptr.cast()) });
        } else {
            team::spawn_task(options.clone(), move || {
                let block = block;
                // SAFETY: as above.
                unsafe { f(block.ptr.cast()) };
            });
        }
    }
    if group {
        team::taskgroup_end();
    }
}

/// A taskloop entry point, `$name`, whose loop bounds (`$start`, `$end`, `$step`, of type
/// `$t`) and `$flags` make the loop's [`Bounds`] `$bounds`; the rest is [`taskloop`].
macro_rules! taskloop_entry {
    ($(#[$doc:meta])* $name:ident($start:ident, $end:ident, $step:ident: $t:ty, $flags:ident)
        => $bounds:expr) => {
        $(#[$doc])*
        ///
        /// # Safety
        /// The compiler's arguments.
        #[no_mangle]
        #[allow(clippy::too_many_arguments)]
        pub unsafe extern "C" fn $name(
            f: OutlinedFn,
            data: *mut c_void,
            cpyfn: Option<CopyFn>,
            arg_size: i64,
            arg_align: i64,
            $flags: u32,
            num_tasks: u64,
            priority: i32,
            $start: $t,
            $end: $t,
            $step: $t,
        ) {
            crate::ffi(stringify!($name), || {
                let b = $bounds;
                // SAFETY: forwarded.
                unsafe {
                    taskloop(
                        f, data, cpyfn, arg_size, arg_align, $flags, num_tasks, priority, b,
                    )
                }
            })
        }
    };
}

taskloop_entry!(
    /// ABI: `void GOMP_taskloop (void (*fn) (void *), void *data, void (*cpyfn) (void *, void
    /// *), long arg_size, long arg_align, unsigned flags, unsigned long num_tasks, int
    /// priority, long start, long end, long step)`: splits the loop into tasks (by
    /// `grainsize` or `num_tasks`, else one per team member), each running `fn` on a copy of
    /// `data` whose first two `long`s are its bounds; a taskgroup around them unless
    /// `nogroup`.
    GOMP_taskloop(start, end, step: i64, flags) => Bounds::Long {
        start,
        end,
        incr: step,
    }
);

taskloop_entry!(
    /// ABI: `void GOMP_taskloop_ull (..., unsigned long long start, unsigned long long end,
    /// unsigned long long step)`: as [`GOMP_taskloop`] for `unsigned long long` iteration
    /// variables; the `GOMP_TASK_FLAG_UP` bit says which way they go.
    GOMP_taskloop_ull(start, end, step: u64, flags) => Bounds::Ull {
        start,
        end,
        incr: step,
        up: flags & FLAG_UP != 0,
    }
);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn taskloop_splits_cover_the_loop() {
        // num_tasks(3) of 10: 4, 3, 3.
        assert_eq!(taskloop_split(10, 0, 3, 2), (3, 3, 1));
        // Default: one per member.
        assert_eq!(taskloop_split(10, 0, 0, 4), (4, 2, 2));
        // grainsize(4) of 10: two tasks of 5.
        assert_eq!(taskloop_split(10, FLAG_GRAINSIZE, 4, 2), (2, 5, 0));
        // More tasks than iterations: one each.
        assert_eq!(taskloop_split(3, 0, 8, 2), (3, 1, 0));
        // strict grainsize(4) of 10: 4, 4, 2.
        assert_eq!(
            taskloop_split(10, FLAG_GRAINSIZE | FLAG_STRICT, 4, 2),
            (3, 4, 0)
        );
    }
}
