//! The signal path of the signal-based deques, end to end through a pool.
#![cfg(not(loom))]

mod common;

use common::fib;

use magpie::ThreadPoolBuilder;
use std::time::{Duration, Instant};

/// Worker threads inherit the signal mask of the thread that builds the pool. An application
/// that blocks the exposure signal (for `sigwait`/`signalfd`) must still get exposures: the
/// workers unblock it for themselves. Without that, every request stays pending and
/// `exposures_served` stays 0 forever.
#[test]
fn exposure_works_when_the_builder_blocks_the_signal() {
    let signal = libc::SIGUSR2;
    // SAFETY: plain-data signal set; changes only this (test) thread's mask, restored below.
    let old = unsafe {
        let mut set: libc::sigset_t = std::mem::zeroed();
        let mut old: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut set);
        libc::sigaddset(&mut set, signal);
        assert_eq!(libc::pthread_sigmask(libc::SIG_BLOCK, &set, &mut old), 0);
        old
    };
    for deque in ["lcws-signal", "lcws-half", "lcws-conservative"] {
        let pool = ThreadPoolBuilder::new()
            .num_workers(2)
            .deque(deque)
            .signal(signal)
            .join_push_limit(usize::MAX)
            .build()
            .unwrap();
        let deadline = Instant::now() + Duration::from_secs(20);
        loop {
            assert_eq!(pool.install(|| fib(24)), 46368);
            if pool.stats().total().exposures_served > 0 {
                break;
            }
            assert!(
                Instant::now() < deadline,
                "{deque}: no exposure request was ever served with {signal} blocked in the builder"
            );
        }
        let t = pool.stats().total();
        assert!(
            t.signals_sent >= t.exposures_served.min(1),
            "{deque}: {t:?}"
        );
    }
    // SAFETY: restores this thread's previous mask.
    unsafe { libc::pthread_sigmask(libc::SIG_SETMASK, &old, std::ptr::null_mut()) };
}

/// A handler magpie did not install owns the signal: the pool refuses to start, naming it.
#[test]
fn a_foreign_handler_makes_the_build_fail() {
    extern "C" fn foreign(_: libc::c_int) {}
    let signal = libc::SIGRTMIN() + 3;
    // SAFETY: installs a do-nothing handler for a real-time signal nobody else uses here.
    unsafe {
        let mut sa: libc::sigaction = std::mem::zeroed();
        sa.sa_sigaction = foreign as extern "C" fn(libc::c_int) as usize;
        libc::sigemptyset(&mut sa.sa_mask);
        assert_eq!(libc::sigaction(signal, &sa, std::ptr::null_mut()), 0);
    }
    let err = ThreadPoolBuilder::new()
        .num_workers(2)
        .deque("lcws-signal")
        .signal(signal)
        .build()
        .unwrap_err();
    let msg = err.to_string();
    assert!(msg.contains(&signal.to_string()), "{msg}");
    assert!(msg.contains("lcws-signal"), "{msg}");
    // The user-space variant needs no signal and still builds.
    let pool = ThreadPoolBuilder::new()
        .num_workers(2)
        .deque("lcws-user")
        .signal(signal)
        .build()
        .unwrap();
    assert_eq!(pool.install(|| fib(15)), 610);
}
