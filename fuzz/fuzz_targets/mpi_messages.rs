//! Every message magpie-mpi exchanges, decoded from garbage (MPI is never initialised): never
//! a panic or an out-of-bounds read, no allocation beyond the message's size, an error naming
//! the kind of message, and a decoded message's encoding decodes to the same encoding.
#![no_main]

use libfuzzer_sys::fuzz_target;
use magpie_mpi::{loops, search};

fuzz_target!(|data: &[u8]| {
    for r in search::decode_each_message(data)
        .into_iter()
        .chain(loops::decode_each_message(data))
    {
        if let Err(e) = r {
            assert_eq!(e.len, data.len());
            let text = e.to_string();
            assert!(
                text.starts_with(&format!("a corrupt {} message (", e.what)),
                "the error does not name the message: {text}"
            );
        }
    }
});
