use super::*;

fn parse(tokens: &[&str]) -> Result<App, Failure> {
    App::parse(&tokens.iter().map(|t| t.to_string()).collect::<Vec<_>>())
}

fn usage_of(r: Result<App, Failure>) -> String {
    match r {
        Err(Failure::Usage(e)) => e,
        other => panic!("expected a usage error, got {other:?}"),
    }
}

#[test]
fn kernels_and_their_options() {
    let a = parse(&["quicksort"]).unwrap();
    assert_eq!(
        a.kind,
        Kind::Quicksort {
            size: DEFAULT_SIZE,
            data: Data::Uniform
        }
    );
    let a = parse(&["quicksort", "--data", "gaussian", "--size", "5"]).unwrap();
    assert_eq!(
        a.kind,
        Kind::Quicksort {
            size: 5,
            data: Data::Gaussian
        }
    );
    let e = usage_of(parse(&["quicksort", "--data", "ones"]));
    assert!(e.contains("expected uniform or gaussian"), "{e}");
    assert_eq!(
        parse(&["prefix-sum", "--data", "uniform"]).unwrap().kind,
        Kind::PrefixSum {
            size: DEFAULT_SIZE,
            data: Data::Uniform
        }
    );
    assert_eq!(
        parse(&["lu"]).unwrap().kind,
        Kind::Lu {
            n: 1024,
            block: 64,
            seed: SEED
        }
    );
    assert_eq!(
        parse(&["lu", "--n", "40", "--block", "8", "--seed", "3"])
            .unwrap()
            .kind,
        Kind::Lu {
            n: 40,
            block: 8,
            seed: 3
        }
    );
    assert_eq!(
        parse(&["lu", "--n", "40"]).unwrap().kind,
        Kind::Lu {
            n: 40,
            block: 40,
            seed: SEED
        }
    );
    let e = usage_of(parse(&["lu", "--n", "40", "--block", "41"]));
    assert!(e.contains("--block \"41\"") && e.contains("1 to 40"), "{e}");
    let e = usage_of(parse(&["lu", "--size", "4"]));
    assert!(e.contains("--size does not apply to lu"), "{e}");
    assert_eq!(
        parse(&["fib", "--n", "20"]).unwrap().kind,
        Kind::Fib { n: 20 }
    );
    let a = parse(&["prefix-sum", "--size", "100"]).unwrap();
    assert_eq!(
        a.kind,
        Kind::PrefixSum {
            size: 100,
            data: Data::Ones
        }
    );
    assert_eq!(a.label, "prefix-sum --size 100");
    let e = usage_of(parse(&["fib", "--size", "3"]));
    assert!(e.contains("--size does not apply to fib"), "{e}");
    let e = usage_of(parse(&["fib", "--n", "94"]));
    assert!(e.contains("--n \"94\"") && e.contains("93"), "{e}");
    let e = usage_of(parse(&["quicksort", "--size", "0"]));
    assert!(e.contains("--size \"0\""), "{e}");
    let e = usage_of(parse(&["quicksort", "data.bin"]));
    assert!(e.contains("no input file"), "{e}");
    let e = usage_of(parse(&["sort"]));
    assert!(e.contains("\"sort\"") && e.contains("prefix-sum"), "{e}");
}

#[test]
fn searches_are_parsed_as_magpie_search_does() {
    let a = parse(&["uts", "--flags", "-t 1 -a 0 -d 6 -b 4 -r 0"]).unwrap();
    assert_eq!(a.label, "uts --flags \"-t 1 -a 0 -d 6 -b 4 -r 0\"");
    let e = usage_of(parse(&["uts", "--tree", "T1", "--size", "3"]));
    assert!(e.contains("--size applies to quicksort"), "{e}");
    let e = usage_of(parse(&["nqueens", "--n", "8", "--bogus"]));
    assert!(e.contains("--bogus") && !e.contains('\n'), "{e}");
    assert!(parse(&["nqueens", "--n", "8", "--skeleton", "budget"]).is_ok());
    assert!(parse(&["uts", "--tree", "T1"])
        .unwrap()
        .check_peer(Peer::Rayon)
        .is_ok());
    let knapsack = App {
        label: "knapsack f".into(),
        name: "knapsack".into(),
        tokens: vec!["knapsack".into(), "f".into()],
        schedule: None,
        kind: Kind::Search,
    };
    let Err(Failure::Usage(e)) = knapsack.check_peer(Peer::Rayon) else {
        panic!("rayon knapsack accepted")
    };
    assert!(e.contains("no rayon version of knapsack"), "{e}");
}

#[test]
fn fibonacci_by_iteration() {
    assert_eq!(fib_exact(0), 0);
    assert_eq!(fib_exact(1), 1);
    assert_eq!(fib_exact(20), 6765);
    assert_eq!(fib_exact(93), 12_200_160_415_121_876_738);
}
