//! Loop schedule strings: never a panic; an error quotes the schedule; a valid schedule's
//! chunk rule hands out chunks that add up to the loop.
#![no_main]

use libfuzzer_sys::fuzz_target;
use magpie::loops::{central_rule, LoopHistory, LoopShape, Schedule};

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
            // One worker drains the loop: every chunk is at least 1 and at most what is
            // left, so the chunks add up to the loop.
            if let Some(mut rule) = central_rule(&schedule, shape, &LoopHistory::default()) {
                let mut remaining = shape.iterations;
                while remaining > 0 {
                    let chunk = rule.next_chunk(0, remaining);
                    assert!((1..=remaining).contains(&chunk));
                    remaining -= chunk;
                }
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
