//! `magpie-bench reproduce` (issue 17 item 3): every claim of a `--quick --json` run parses,
//! has a verdict from the allowed set, its seed, document, statement, source and the
//! command that re-runs it; the claims are the expected ones; without MPI or the `magpie`
//! binary the claims that need them are "out of reach here" with the reason. No timing is
//! asserted (the verdicts of a quick run depend on the machine's load).

use serde_json::Value;
use std::process::{Command, Output};

const VERDICTS: [&str; 3] = ["reproduced", "refuted", "out of reach here"];

fn bench(args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_magpie-bench"));
    for var in magpie::ThreadPoolBuilder::ENV_VARS {
        cmd.env_remove(var);
    }
    cmd.env_remove("MAGPIE_BIN");
    cmd.envs(env.iter().copied());
    cmd.args(args);
    cmd.output().expect("runs magpie-bench")
}

/// The claims of `reproduce SEED --quick --json`, each checked for the common fields.
fn claims(seed: &str, env: &[(&str, &str)]) -> Vec<Value> {
    let out = bench(&["reproduce", seed, "--quick", "--json"], env);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "reproduce {seed}: {stderr}");
    let v: Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("reproduce {seed}: stdout is not JSON ({e}): {stderr}"));
    let claims = v.as_array().expect("a JSON array").clone();
    assert!(!claims.is_empty());
    for c in &claims {
        let s = |k: &str| {
            c.get(k)
                .and_then(Value::as_str)
                .unwrap_or_else(|| panic!("{k} missing in {c}"))
        };
        assert_eq!(s("seed"), seed, "{c}");
        assert!(s("claim").starts_with(&format!("{seed}.")), "{c}");
        assert!(s("document").ends_with(".txt"), "{c}");
        for k in [
            "statement",
            "source",
            "seed_value",
            "test",
            "reason",
            "unit",
        ] {
            assert!(!s(k).is_empty(), "{k} empty in {c}");
        }
        assert!(VERDICTS.contains(&s("verdict")), "{c}");
        assert_eq!(
            s("command"),
            format!("magpie-bench reproduce {seed} --quick"),
            "{c}"
        );
        assert_eq!(c["quick"], true, "{c}");
        assert!(s("reason").contains("--quick: tiny sizes"), "{c}");
        for k in ["magpie_value", "spread", "p", "ci", "measured_by"] {
            assert!(c.get(k).is_some(), "{k} missing in {c}");
        }
        // A measured value comes with its spread; an out-of-reach claim may have neither.
        if s("verdict") != "out of reach here" {
            assert!(c["magpie_value"].is_number(), "{c}");
            let spread = &c["spread"];
            assert!(spread["n"].as_u64().unwrap() >= 1, "{c}");
            assert!(spread["min"].as_f64().unwrap() <= spread["max"].as_f64().unwrap());
        }
        if let Some([lo, hi]) = c["ci"]
            .as_array()
            .map(|a| [a[0].as_f64().unwrap(), a[1].as_f64().unwrap()])
        {
            assert!(lo <= hi, "{c}");
        }
    }
    claims
}

fn ids(claims: &[Value]) -> Vec<String> {
    claims
        .iter()
        .map(|c| c["claim"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn lcws_quick_json_has_every_claim_with_a_verdict() {
    let claims = claims("lcws", &[]);
    let mut want = Vec::new();
    for d in ["lcws-signal", "lcws-user", "lcws-conservative", "lcws-half"] {
        want.push(format!("lcws.share-faster.{d}"));
        if d == "lcws-signal" || d == "lcws-user" {
            want.push(format!("lcws.fences.{d}"));
            want.push(format!("lcws.cas.{d}"));
            want.push(format!("lcws.owner-fences.{d}"));
        }
    }
    for c in ["owner-fences", "cas", "unstolen"] {
        want.push(format!("lcws.signal-vs-user.{c}"));
    }
    assert_eq!(ids(&claims), want);
    for c in &claims {
        assert!(
            c["measured_by"]
                .as_str()
                .unwrap()
                .contains("forkjoin --json --quiet --runtimes magpie"),
            "{c}"
        );
        if c["claim"]
            .as_str()
            .unwrap()
            .starts_with("lcws.share-faster")
        {
            // The share is over (kernel × workers) configurations: the spread's n is their
            // number, a multiple of the worker counts (1..=min(cores, 2)) and at least the
            // registry's 6 kernels.
            let n = c["spread"]["n"].as_u64().unwrap();
            let workers = std::thread::available_parallelism().unwrap().get().min(2) as u64;
            assert!(n >= 6 * workers && n % workers == 0, "{c}");
            let v = c["magpie_value"].as_f64().unwrap();
            assert!((0.0..=100.0).contains(&v), "{c}");
        }
    }
}

#[test]
fn pheet_quick_json_has_every_claim_and_says_why_lu_is_missing() {
    let claims = claims("pheet", &[]);
    assert_eq!(
        ids(&claims),
        [
            "pheet.linear-vs-original.2-instances",
            "pheet.linear-vs-yield.2-instances",
            "pheet.dynquanta-vs-original.2-instances",
            "pheet.dynquanta-sleeps",
            "pheet.lu-original-vs-linear.4-instances",
        ]
    );
    // LU ran (the build has it): a number and a verdict from the allowed set.
    let lu = &claims[4];
    assert_ne!(lu["measured_by"], "", "{lu}");
    assert!(
        lu["measured_by"].as_str().unwrap().contains("--app lu"),
        "{lu}"
    );
}

#[test]
fn without_the_magpie_binary_the_mpi_claims_are_out_of_reach() {
    let env = [("MAGPIE_BIN", "/nonexistent/magpie")];
    let yewpar = claims("yewpar", &env);
    assert_eq!(yewpar.len(), 10, "{yewpar:?}");
    assert!(ids(&yewpar).contains(&"yewpar.ns.contended.perf-vs-sticky".to_string()));
    assert!(ids(&yewpar).contains(&"yewpar.maxclique.variability".to_string()));
    let lb4omp = claims("lb4omp", &env);
    assert_eq!(
        ids(&lb4omp),
        [
            "lb4omp.exponential.ws-vs-static",
            "lb4omp.exponential.ws-vs-gss",
            "lb4omp.exponential.best-steal-ratio",
        ]
    );
    for c in yewpar.iter().chain(&lb4omp) {
        assert_eq!(c["verdict"], "out of reach here", "{c}");
        assert!(c["magpie_value"].is_null(), "{c}");
        assert!(
            c["reason"]
                .as_str()
                .unwrap()
                .contains("/nonexistent/magpie"),
            "{c}"
        );
    }
}

#[test]
fn bad_arguments_are_one_error_line() {
    for args in [
        &["reproduce", "nosuch"][..],
        &["reproduce", "lcws", "--runs", "0"],
        &["reproduce"],
    ] {
        let out = bench(args, &[]);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.starts_with("error:"), "{args:?}: {stderr}");
        assert!(!stderr.contains("panicked"), "{stderr}");
        assert!(out.stdout.is_empty());
    }
}
