//! Loop schedule strings: never a panic; an error quotes the schedule; a valid schedule's
//! chunk rule hands out chunks that add up to the loop.
#![no_main]

use libfuzzer_sys::fuzz_target;
use magpie::loops::{chunk_sequence, LoopShape};
use magpie::loops::Schedule;

fuzz_target!(|data: &[u8]| {
    let Ok(s) = std::str::from_utf8(data) else {
        return;
    };
    match s.parse::<Schedule>() {
        Ok(schedule) => {
            let shape = LoopShape {
                iterations: 1 + (data.len() as u64 * 37) % 5000,
                workers: 1 + data.len() % 8,
            };
            if let Some(chunks) = chunk_sequence(&schedule, shape) {
                assert_eq!(chunks.iter().sum::<u64>(), shape.iterations);
                assert!(chunks.iter().all(|&c| c >= 1));
            }
        }
        Err(e) => {
            let e = e.to_string();
            assert!(
                e.starts_with("schedule \""),
                "error does not quote the schedule: {e}"
            );
        }
    }
});
