//! UTS `--flags`: never a panic; an error names the flag (`b0 (-b)`, …, or `uts flags` for an
//! unknown one); valid parameters give a root whose first children can be generated.
#![no_main]

use libfuzzer_sys::fuzz_target;
use magpie_apps::uts::Params;

fuzz_target!(|data: &[u8]| {
    let Ok(flags) = std::str::from_utf8(data) else {
        return;
    };
    match Params::from_flags(flags) {
        // `-g G` asks for G hash rounds per child on purpose (work per node): walk only
        // trees whose children cost little, the flags themselves are checked either way.
        Ok(p) if p.granularity() > 64 => {}
        Ok(p) => {
            let root = p.root();
            // A bounded walk: at most 64 children of the root and 64 of the first child.
            let mut kids = p.children(&root).take(64);
            if let Some(first) = kids.next() {
                p.children(&first).take(64).for_each(drop);
            }
            kids.for_each(drop);
        }
        Err(e) => {
            let flag = e.path.to_string_lossy();
            assert!(
                flag == "uts flags" || (flag.contains("(-") && flag.ends_with(')')),
                "error does not name the flag: {e}"
            );
            assert!(e.line.is_none() && !e.message.trim().is_empty(), "{e}");
        }
    }
});
