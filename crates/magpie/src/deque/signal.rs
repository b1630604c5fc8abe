//! The signal path of the signal-based LCWS deques ([`Exposure::Signal`],
//! [`Exposure::Conservative`], [`Exposure::Half`]).
//!
//! A thief that finds a victim's public part empty while the victim still holds private work
//! sends the victim's worker thread a POSIX signal (`pthread_kill`). The handler installed
//! here runs on that thread, between two instructions of whatever it was doing, and moves
//! private tasks of the thread's own split deque to the public part, where thieves can take
//! them. Work-exposure requests are thereby served in constant time (up to the time the OS
//! takes to deliver the signal), which is what gives LCWS its bounds.
//!
//! What a user of a pool with a signal-based deque must know:
//!
//! - **The signal number is configurable**; the default is [`DEFAULT_SIGNAL`] (`SIGUSR1`).
//!   Choose another one if the application uses `SIGUSR1` itself.
//! - **A foreign handler makes the pool refuse to start**: if a handler that magpie did not
//!   install already owns the signal, [`install`] fails with [`SignalError::ForeignHandler`]
//!   instead of silently replacing it. (A disposition of `SIG_DFL` or `SIG_IGN` is replaced.)
//! - **Signals are delivered only to pool worker threads**: a thread receives exposure signals
//!   only while it is bound to a split deque (`split::Worker::bind_current_thread`); threads
//!   that are not pool workers never receive them from magpie.
//! - **Interrupted system calls**: the handler is installed with `SA_RESTART`, so most system
//!   calls interrupted by it are restarted transparently. Some are not, whatever the flag
//!   says: on Linux, `nanosleep`/`clock_nanosleep`, `sleep`/`usleep`, `poll`, `select`,
//!   `epoll_wait` and similar calls with timeouts, `sigtimedwait`, and socket calls with a
//!   receive/send timeout return `EINTR` when a signal arrives. Code run inside pool tasks
//!   must retry on `EINTR` (Rust's `std` does for most calls; `std::thread::sleep` resumes).
//! - **The handler is never uninstalled**: a signal that a thief sent just before a pool shut
//!   down may still be pending; under the default disposition of `SIGUSR1` (terminate) it
//!   would kill the process. The handler therefore stays installed for the life of the
//!   process; a signal that arrives on a thread with no bound deque is ignored.
//!
//! The handler is async-signal-safe: it saves and restores `errno`, reads one `thread_local!`
//! with `const` initialisation and no destructor (so the access neither allocates nor can
//! fail), and if the thread is bound calls `update_public_bottom` on its deque, which only
//! performs atomic loads and stores. It allocates nothing, takes no lock and cannot panic.
//!
//! [`Exposure::Signal`]: super::Exposure::Signal
//! [`Exposure::Conservative`]: super::Exposure::Conservative
//! [`Exposure::Half`]: super::Exposure::Half

use crate::stats::WorkerCounters;
use std::os::raw::c_int;
use std::ptr;
// The signal path is process-wide OS state that loom cannot model (loom models the handler as
// an interleaving point inside the owner's code instead), so it uses `std` directly.
use std::sync::atomic::{compiler_fence, AtomicPtr, Ordering};
use std::sync::Mutex;

/// The default exposure signal.
pub const DEFAULT_SIGNAL: c_int = libc::SIGUSR1;

/// Why the signal-based exposure could not start.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SignalError {
    /// Another handler already owns the signal.
    #[error("signal {signal} already has a handler that magpie did not install; choose another signal with `signal(..)` / MAGPIE_SIGNAL")]
    ForeignHandler {
        /// The signal number.
        signal: c_int,
    },
    /// The signal number cannot be used.
    #[error("signal {signal} cannot be used for work exposure: {reason}")]
    Invalid {
        /// The signal number.
        signal: c_int,
        /// Why.
        reason: &'static str,
    },
}

/// Serialises installations, so that the check for a foreign handler and the installation of
/// ours are one step.
static INSTALL_LOCK: Mutex<()> = Mutex::new(());

/// Checks that `signal` can carry exposure requests: in range, catchable, not reserved by the
/// C library, and not a synchronous fault signal (those report program errors).
pub fn validate(signal: c_int) -> Result<(), SignalError> {
    let invalid = |reason| Err(SignalError::Invalid { signal, reason });
    if signal <= 0 || signal > max_signal() {
        return invalid("out of range");
    }
    if signal == libc::SIGKILL || signal == libc::SIGSTOP {
        return invalid("it cannot be caught");
    }
    if [libc::SIGSEGV, libc::SIGBUS, libc::SIGFPE, libc::SIGILL].contains(&signal) {
        return invalid("it is a synchronous fault signal");
    }
    #[cfg(any(target_os = "linux", target_os = "android"))]
    if signal > 31 && signal < libc::SIGRTMIN() {
        return invalid("it is reserved by the C library");
    }
    Ok(())
}

#[cfg(any(target_os = "linux", target_os = "android"))]
fn max_signal() -> c_int {
    libc::SIGRTMAX()
}

#[cfg(not(any(target_os = "linux", target_os = "android")))]
fn max_signal() -> c_int {
    31
}

/// Unblocks `signal` on the calling thread (its mask was inherited from its creator).
pub fn unblock_on_this_thread(signal: c_int) {
    // SAFETY: `sigset_t` is plain data; `sigemptyset`/`sigaddset` initialise it, and
    // `pthread_sigmask` only changes this thread's mask. Failure (an invalid signal, already
    // refused by `install`) leaves the mask as it was.
    unsafe {
        let mut set: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut set);
        libc::sigaddset(&mut set, signal);
        libc::pthread_sigmask(libc::SIG_UNBLOCK, &set, std::ptr::null_mut());
    }
}

/// Installs magpie's exposure handler for `signal` (idempotent; never uninstalled).
///
/// Fails with [`SignalError::Invalid`] for signals that cannot be used (see [`validate`]) and
/// with [`SignalError::ForeignHandler`] if a handler that magpie did not install owns the
/// signal. The handler stays installed for the rest of the process: a signal sent just before
/// a pool shut down may still be pending, and under the default disposition of `SIGUSR1`
/// (terminate the process) its late delivery would kill the process.
pub fn install(signal: c_int) -> Result<(), SignalError> {
    validate(signal)?;
    let _lock = INSTALL_LOCK.lock().unwrap_or_else(|e| e.into_inner());
    let ours = on_signal as extern "C" fn(c_int) as libc::sighandler_t;
    // SAFETY: an all-zero `sigaction` is a valid value of this plain C struct.
    let mut old: libc::sigaction = unsafe { std::mem::zeroed() };
    // SAFETY: `signal` was validated; a null new action only queries, into a valid `old`.
    if unsafe { libc::sigaction(signal, ptr::null(), &mut old) } != 0 {
        return Err(SignalError::Invalid {
            signal,
            reason: "sigaction refused to report its disposition",
        });
    }
    if old.sa_sigaction == ours {
        return Ok(());
    }
    if old.sa_sigaction != libc::SIG_DFL && old.sa_sigaction != libc::SIG_IGN {
        return Err(SignalError::ForeignHandler { signal });
    }
    // SAFETY: as above, all-zero is a valid `sigaction`.
    let mut new: libc::sigaction = unsafe { std::mem::zeroed() };
    new.sa_sigaction = ours;
    new.sa_flags = libc::SA_RESTART;
    // SAFETY: `new.sa_mask` is a valid, writable `sigset_t`.
    unsafe { libc::sigemptyset(&mut new.sa_mask) };
    // SAFETY: `new` is fully initialised and `on_signal` is async-signal-safe (module docs).
    if unsafe { libc::sigaction(signal, &new, ptr::null_mut()) } != 0 {
        return Err(SignalError::Invalid {
            signal,
            reason: "sigaction refused to install the handler",
        });
    }
    Ok(())
}

/// Whether magpie's handler currently owns `signal`.
#[cfg(test)]
pub fn is_installed(signal: c_int) -> bool {
    if validate(signal).is_err() {
        return false;
    }
    // SAFETY: as in `install`.
    let mut old: libc::sigaction = unsafe { std::mem::zeroed() };
    // SAFETY: a query with a valid out-pointer.
    let rc = unsafe { libc::sigaction(signal, ptr::null(), &mut old) };
    rc == 0 && old.sa_sigaction == on_signal as extern "C" fn(c_int) as libc::sighandler_t
}

/// What the handler acts on for one bound thread: a split deque erased to a data pointer and
/// a function monomorphised for its task type, plus the owner's counters.
pub(crate) struct Target {
    /// The deque (`*const split::Inner<T>`).
    pub(crate) data: *const (),
    /// `split::Inner::<T>::update_public_bottom` on `data`, type-erased.
    pub(crate) expose: unsafe fn(*const (), &WorkerCounters),
    /// The owner's counters (`exposures_served`, `tasks_exposed` are written by the handler).
    pub(crate) counters: *const WorkerCounters,
}

std::thread_local! {
    /// This thread's handler target, null when unbound. `const`-initialised and without a
    /// destructor, so the handler's access never allocates, registers or fails. An
    /// `AtomicPtr` rather than a `Cell<Option<Target>>`: a multi-word `Cell` store could be
    /// torn by a handler that interrupts it, a single atomic store cannot.
    static TARGET: AtomicPtr<Target> = const { AtomicPtr::new(ptr::null_mut()) };
}

/// Replaces this thread's handler target, returning the previous one.
pub(crate) fn swap_target(new: *const Target) -> *const Target {
    let old = TARGET.with(|t| t.swap(new.cast_mut(), Ordering::Relaxed));
    // Keep the owner's later steps (publishing the thread handle) after the switch as seen
    // from a handler on this thread.
    compiler_fence(Ordering::SeqCst);
    old
}

/// This thread's handler target (null when unbound).
pub(crate) fn current_target() -> *const Target {
    TARGET
        .try_with(|t| t.load(Ordering::Relaxed))
        .unwrap_or(ptr::null_mut())
}

/// The exposure handler. Async-signal-safe: see the module docs.
extern "C" fn on_signal(_signal: c_int) {
    let saved = errno::get();
    let target = current_target();
    compiler_fence(Ordering::SeqCst);
    if !target.is_null() {
        // SAFETY: a non-null target was set by `bind_current_thread` on this thread and is
        // cleared (by `BindGuard::drop`, on this thread) before the box it points to, the
        // deque and the counters it refers to are released; the handler runs on this thread
        // and completes before the interrupted code resumes, so they are alive throughout.
        unsafe {
            let target = &*target;
            (target.expose)(target.data, &*target.counters);
        }
    }
    compiler_fence(Ordering::SeqCst);
    errno::set(saved);
}

mod errno {
    use std::os::raw::c_int;

    #[cfg(any(target_os = "linux", target_os = "android", target_os = "emscripten"))]
    fn location() -> *mut c_int {
        // SAFETY: returns the calling thread's errno slot; always valid.
        unsafe { libc::__errno_location() }
    }

    #[cfg(any(
        target_os = "macos",
        target_os = "ios",
        target_os = "freebsd",
        target_os = "dragonfly"
    ))]
    fn location() -> *mut c_int {
        // SAFETY: returns the calling thread's errno slot; always valid.
        unsafe { libc::__error() }
    }

    /// The calling thread's `errno`.
    pub(super) fn get() -> c_int {
        // SAFETY: `location` points at this thread's errno.
        unsafe { *location() }
    }

    /// Sets the calling thread's `errno`.
    pub(super) fn set(value: c_int) {
        // SAFETY: `location` points at this thread's errno.
        unsafe { *location() = value }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refuses_unusable_signals() {
        for s in [
            0,
            -1,
            1000,
            libc::SIGKILL,
            libc::SIGSTOP,
            libc::SIGSEGV,
            libc::SIGBUS,
            libc::SIGFPE,
            libc::SIGILL,
        ] {
            assert!(
                matches!(install(s), Err(SignalError::Invalid { .. })),
                "signal {s}"
            );
        }
    }

    #[test]
    fn refuses_a_foreign_handler_and_is_idempotent() {
        extern "C" fn foreign(_: c_int) {}
        let sig = libc::SIGUSR2;
        // SAFETY: all-zero is a valid sigaction; installing a no-op handler on SIGUSR2, which
        // no other test of this crate uses.
        unsafe {
            let mut sa: libc::sigaction = std::mem::zeroed();
            sa.sa_sigaction = foreign as extern "C" fn(c_int) as libc::sighandler_t;
            libc::sigemptyset(&mut sa.sa_mask);
            assert_eq!(libc::sigaction(sig, &sa, ptr::null_mut()), 0);
        }
        assert_eq!(
            install(sig),
            Err(SignalError::ForeignHandler { signal: sig })
        );
        assert!(!is_installed(sig));
        install(DEFAULT_SIGNAL).unwrap();
        install(DEFAULT_SIGNAL).unwrap();
        assert!(is_installed(DEFAULT_SIGNAL));
    }

    #[test]
    fn unbound_thread_ignores_the_signal_and_keeps_errno() {
        install(DEFAULT_SIGNAL).unwrap();
        errno::set(42);
        // SAFETY: signalling the calling thread, which runs our handler (installed above).
        unsafe { libc::pthread_kill(libc::pthread_self(), DEFAULT_SIGNAL) };
        assert_eq!(errno::get(), 42);
    }
}
