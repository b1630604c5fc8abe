//! UTS oracles from `shared/specs/uts.md` (sections 2.6, 6, 8): RNG vectors, the published
//! sample trees T1–T5 and the spec's self-computed trees for the uncovered code paths, plus
//! parameter parsing and validation. In `--release` the whole file takes a few seconds; the
//! The ~100M-node trees (T1L, T2L, T3L) and BOTS tiny take 5-20 s each in release (the
//! suite runs in release: `scripts/test-all.sh`).

use magpie_apps::uts::{
    count, count_from, rng_init, rng_rand, rng_spawn, rng_to_prob, Counts, NamedTree, Params,
    Shape, TreeType, NAMED_TREES,
};
use std::time::Instant;

fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

fn counts(nodes: u64, max_depth: u32, leaves: u64) -> Counts {
    Counts {
        nodes,
        leaves,
        max_depth,
    }
}

/// The values of `-t -a -b -d -q -m -r`.
fn flags(p: &Params) -> (TreeType, Shape, f64, i32, f64, i32, i32) {
    (
        p.tree_type(),
        p.shape(),
        p.b0(),
        p.gen_mx(),
        p.q(),
        p.m(),
        p.seed(),
    )
}

/// Counts `params` and prints the time and rate (visible with `--nocapture`).
fn timed(label: &str, params: &Params) -> Counts {
    let start = Instant::now();
    let c = count(params);
    let s = start.elapsed().as_secs_f64();
    println!(
        "{label}: {} nodes in {s:.3} s = {:.2} M nodes/s",
        c.nodes,
        c.nodes as f64 / s / 1e6
    );
    c
}

// ---- RNG (section 2.6) ----

#[test]
fn rng_vectors() {
    let root0 = rng_init(0);
    let c0 = rng_spawn(&root0, 0);
    let (s19, s42) = (rng_init(19), rng_init(42));
    let states = [
        root0,
        c0,
        rng_spawn(&root0, 1),
        rng_spawn(&c0, 2),
        s19,
        rng_spawn(&s19, 0),
        rng_spawn(&s19, 1),
        s42,
        rng_spawn(&s42, 0),
        rng_spawn(&s42, 1),
    ];
    let want: [(&str, u32); 10] = [
        ("6768033e216468247bd031a0a2d9876d79818f8f", 2038534031),
        ("f6b4e21a6db7135e161960a04c6bd6cab35bd8d3", 861657299),
        ("5f9ce39723964a09decdaecdd937b9f50107e514", 17294612),
        ("50e68f4221805b201a9985d2ed062305829b2bf9", 43723769),
        ("c6988ab70cc9559ae4d6cba254e29a845a85f86b", 1518729323),
        ("2fb3131030280c1617a81d6a49c1e29effb19645", 2142344773),
        ("4a8304c7c88f903ac06b01b07c7b2590e9397b5b", 1765374811),
        ("a11dabbcec7aab309c890ab3dbc256eaeb582782", 1800939394),
        ("7407806c9e18f6e1d4d944809de9c0c94b892757", 1267279703),
        ("c77bf3c481adf653ab30ed7cd2064af420d42274", 550773364),
    ];
    for (i, (state, (want_hex, want_rand))) in states.iter().zip(&want).enumerate() {
        assert_eq!(hex(state), *want_hex, "vector {i}");
        assert_eq!(rng_rand(state), *want_rand, "vector {i}");
    }
    assert_eq!(rng_to_prob(2038534031), 0.9492663810960948);
}

#[test]
fn root_and_first_children_through_params() {
    let p = Params::named("default").unwrap();
    let root = p.root();
    assert_eq!(root.height, 0);
    assert_eq!(hex(&root.state), "6768033e216468247bd031a0a2d9876d79818f8f");
    // u = 0.9492663810960948, b0 = 4: floor(ln(1 - u) / ln(0.8)) = 13.
    assert_eq!(p.num_children(&root), 13);
    let kids: Vec<_> = p.children(&root).collect();
    assert_eq!(kids.len(), 13);
    assert_eq!(
        hex(&kids[0].state),
        "f6b4e21a6db7135e161960a04c6bd6cab35bd8d3"
    );
    assert_eq!(
        hex(&kids[1].state),
        "5f9ce39723964a09decdaecdd937b9f50107e514"
    );
    assert!(kids.iter().all(|k| k.height == 1));
    // Child 0 (rng_rand 861657299, u ~ 0.401, b_1 = 4 * 5/6) has floor(ln(0.599) / ln(10/13)) = 1
    // child; the spec's vector "child 0 -> child 2" is a plain spawn.
    assert_eq!(p.num_children(&kids[0]), 1);
    assert_eq!(
        hex(&rng_spawn(&kids[0].state, 2)),
        "50e68f4221805b201a9985d2ed062305829b2bf9"
    );
}

// ---- Trees (sections 6 and 8) ----

#[test]
fn default_tree() {
    assert_eq!(
        count(&Params::named("default").unwrap()),
        counts(1_732, 6, 1_050)
    );
}

/// One test per named tree: `test: "NAME" => (nodes, max_depth, leaves)` counts the tree
/// [`Params::named`] gives (timed) and checks the published statistics.
macro_rules! named_trees {
    ($($test:ident: $name:literal => ($nodes:expr, $depth:expr, $leaves:expr);)*) => {
        $(
            #[test]
            fn $test() {
                let c = timed($name, &Params::named($name).unwrap());
                assert_eq!(c, counts($nodes, $depth, $leaves));
            }
        )*
    };
}

named_trees! {
    t1_geometric_fixed: "T1" => (4_130_071, 10, 3_305_118);
    t2_geometric_cyclic: "T2" => (4_117_769, 81, 2_342_762);
    t3_binomial: "T3" => (4_112_897, 1572, 3_599_034);
    t4_hybrid: "T4" => (4_132_453, 134, 3_108_986);
    t5_geometric_linear: "T5" => (4_147_582, 20, 2_181_318);
    t1l: "T1L" => (102_181_082, 13, 81_746_377);
    t2l: "T2L" => (96_793_510, 67, 53_791_152);
    t3l: "T3L" => (111_345_631, 17844, 89_076_904);
    bots_tiny: "bots-tiny" => (30_399_117, 6974, 20_266_744);
}

#[test]
fn t1_granularity_3_same_tree() {
    let p = Params::from_flags("-t 1 -a 3 -d 10 -b 4 -r 19 -g 3").unwrap();
    assert_eq!(p.granularity(), 3);
    let c = timed("T1 -g 3", &p);
    assert_eq!(c, counts(4_130_071, 10, 3_305_118));
}

/// The spec's self-computed values for code paths no published tree covers.
#[test]
fn uncovered_code_paths() {
    let cases: [(&str, Counts); 7] = [
        ("-t 1 -a 1 -d 6 -b 4 -r 0", counts(4_509, 17, 2_319)),
        ("-t 1 -a 1 -d 10 -b 4 -r 19", counts(11_260, 26, 5_712)),
        ("-t 1 -a 2 -d 6 -b 4 -r 0", counts(5_675, 31, 3_345)),
        ("-t 3 -b 4 -d 6 -r 0", counts(5_461, 6, 4_096)),
        ("-t 2 -a 0 -d 6 -b 4 -r 0", counts(2_274, 34, 1_720)),
        ("-t 0 -b 4 -r 0", counts(25, 4, 19)),
        ("-t 1 -a 3 -d 2 -b 60 -r 0", counts(5_225, 2, 5_126)),
    ];
    for (flags, want) in cases {
        assert_eq!(count(&Params::from_flags(flags).unwrap()), want, "{flags}");
    }
}

#[test]
fn subtrees_add_up() {
    let p = Params::named("T3").unwrap();
    let root = p.root();
    let total = p
        .children(&root)
        .take(500)
        .map(|c| count_from(&p, &c))
        .fold(Counts::default(), Counts::merge);
    let rest = p
        .children(&root)
        .skip(500)
        .map(|c| count_from(&p, &c))
        .fold(Counts::node(0, 2000), Counts::merge);
    assert_eq!(total.merge(rest), counts(4_112_897, 1572, 3_599_034));
}

// ---- Parameters ----

#[test]
fn every_named_tree_parses() {
    let names: Vec<&str> = NAMED_TREES.iter().map(|t| t.name).collect();
    assert_eq!(
        names,
        [
            "default",
            "T1",
            "T5",
            "T2",
            "T3",
            "T4",
            "T1L",
            "T2L",
            "T3L",
            "T1XL",
            "T1XXL",
            "T3XXL",
            "T2XXL",
            "T1WL",
            "T2WL",
            "T3WL",
            "bots-test",
            "bots-tiny",
            "bots-small",
            "bots-medium",
            "bots-large",
            "bots-huge"
        ]
    );
    for t in NAMED_TREES {
        let p = Params::named(t.name).unwrap();
        assert_eq!(p, t.params(), "{}", t.name);
        assert_eq!(Params::named(&t.name.to_lowercase()).unwrap(), p);
    }
}

#[test]
fn named_tree_parameters() {
    type Row = (&'static str, TreeType, Shape, f64, i32, f64, i32, i32);
    use Shape::{Cyclic, Fixed, Linear};
    use TreeType::{Binomial, Geometric, Hybrid};
    // name, type, shape, b0, gen_mx, q, m, seed (unlisted ones are the defaults).
    let rows: [Row; 16] = [
        ("default", Geometric, Linear, 4.0, 6, 0.234375, 4, 0),
        ("T1", Geometric, Fixed, 4.0, 10, 0.234375, 4, 19),
        ("T5", Geometric, Linear, 4.0, 20, 0.234375, 4, 34),
        ("T2", Geometric, Cyclic, 6.0, 16, 0.234375, 4, 502),
        ("T3", Binomial, Linear, 2000.0, 6, 0.124875, 8, 42),
        ("T4", Hybrid, Linear, 6.0, 16, 0.234375, 4, 1),
        ("T1L", Geometric, Fixed, 4.0, 13, 0.234375, 4, 29),
        ("T2L", Geometric, Cyclic, 7.0, 23, 0.234375, 4, 220),
        ("T3L", Binomial, Linear, 2000.0, 6, 0.200014, 5, 7),
        ("T1XL", Geometric, Fixed, 4.0, 15, 0.234375, 4, 29),
        ("T1XXL", Geometric, Fixed, 4.0, 15, 0.234375, 4, 19),
        ("T3XXL", Binomial, Linear, 2000.0, 6, 0.499995, 2, 316),
        ("T2XXL", Binomial, Linear, 2000.0, 6, 0.499999995, 2, 0),
        ("T1WL", Geometric, Fixed, 4.0, 18, 0.234375, 4, 19),
        ("T2WL", Binomial, Linear, 2000.0, 6, 0.4999999995, 2, 559),
        ("T3WL", Binomial, Linear, 2000.0, 6, 0.4999995, 2, 559),
    ];
    for (name, t, a, b0, d, q, m, r) in rows {
        let p = Params::named(name).unwrap();
        assert_eq!(flags(&p), (t, a, b0, d, q, m, r), "{name}");
        assert_eq!((p.shift_depth(), p.granularity()), (0.5, 1), "{name}");
    }
    // The BOTS inputs that are sample trees have the same parameters.
    for (bots, sample) in [
        ("bots-test", "T3"),
        ("bots-small", "T3L"),
        ("bots-large", "T3WL"),
        ("bots-huge", "T3WL"),
    ] {
        assert_eq!(Params::named(bots).unwrap(), Params::named(sample).unwrap());
        let (a, b) = (
            NamedTree::find(bots).unwrap(),
            NamedTree::find(sample).unwrap(),
        );
        assert_eq!(
            (a.nodes, a.max_depth, a.leaves),
            (b.nodes, b.max_depth, b.leaves)
        );
    }
    let tiny = Params::named("bots-tiny").unwrap();
    assert_eq!(
        (tiny.b0(), tiny.q(), tiny.m(), tiny.seed()),
        (2000.0, 0.333332, 3, 8)
    );
    let medium = NamedTree::find("bots-medium").unwrap();
    assert_eq!(
        (medium.nodes, medium.max_depth, medium.leaves),
        (1_606_963_542, Some(79868), Some(1_071_309_694))
    );
}

#[test]
fn named_expectations_match_spec_for_small_trees() {
    for name in ["default", "T1", "T2", "T3", "T4", "T5"] {
        let t = NamedTree::find(name).unwrap();
        assert!(t.max_depth.is_some() && t.leaves.is_some(), "{name}");
    }
    assert_eq!(NamedTree::find("T1XXL").unwrap().leaves, None);
    assert_eq!(NamedTree::find("T1").unwrap().nodes, 4_130_071);
}

#[test]
fn unknown_name_lists_known_names() {
    let err = Params::named("T6").unwrap_err();
    assert_eq!(
        err.to_string(),
        "uts tree name: unknown tree \"T6\"; known: default, T1, T5, T2, T3, T4, T1L, T2L, \
         T3L, T1XL, T1XXL, T3XXL, T2XXL, T1WL, T2WL, T3WL, bots-test, bots-tiny, bots-small, \
         bots-medium, bots-large, bots-huge"
    );
}

#[test]
fn builder_defaults_are_the_reference_defaults() {
    let p = Params::builder().build().unwrap();
    let defaults = (TreeType::Geometric, Shape::Linear, 4.0, 6, 0.234375, 4, 0);
    assert_eq!(
        (flags(&p), p.shift_depth(), p.granularity()),
        (defaults, 0.5, 1)
    );
    assert_eq!(p, Params::from_flags("").unwrap());
    assert_eq!(p, Params::named("default").unwrap());
}

#[test]
fn builder_matches_flags() {
    let built = Params::builder()
        .tree_type(TreeType::Hybrid)
        .shape(Shape::Linear)
        .gen_mx(16)
        .b0(6.0)
        .seed(1)
        .q(0.234375)
        .m(4)
        .shift_depth(0.5)
        .granularity(1)
        .build()
        .unwrap();
    assert_eq!(built, Params::named("T4").unwrap());
}

#[test]
fn validation_errors_name_the_parameter() {
    let b = Params::builder;
    let cases: Vec<(Result<Params, _>, &str)> = vec![
        (
            b().b0(-1.0).build(),
            "b0 (-b): -1 is out of range: must be finite and in [0, 2^31)",
        ),
        (
            b().b0(f64::NAN).build(),
            "b0 (-b): NaN is out of range: must be finite and in [0, 2^31)",
        ),
        (
            b().b0(3e9).build(),
            "b0 (-b): 3000000000 is out of range: must be finite and in [0, 2^31)",
        ),
        (
            b().gen_mx(0).build(),
            "gen_mx (-d): 0 is out of range: must be at least 1",
        ),
        (
            b().q(-0.5).build(),
            "q (-q): -0.5 is out of range: must be in [0, 1]",
        ),
        (
            b().q(f64::NAN).build(),
            "q (-q): NaN is out of range: must be in [0, 1]",
        ),
        (
            b().m(-2).build(),
            "m (-m): -2 is out of range: must be at least 0",
        ),
        (
            b().shift_depth(1.5).build(),
            "shift_depth (-f): 1.5 is out of range: must be in [0, 1]",
        ),
    ];
    for (result, want) in cases {
        assert_eq!(result.unwrap_err().to_string(), want);
    }
}

#[test]
fn flag_errors_name_the_flag() {
    let cases = [
        (
            "-t 4",
            "tree type (-t): 4 is not a tree type (0 BIN, 1 GEO, 2 HYBRID, 3 BALANCED)",
        ),
        (
            "-a 9",
            "shape (-a): 9 is not a shape (0 LINEAR, 1 EXPDEC, 2 CYCLIC, 3 FIXED)",
        ),
        ("-b", "b0 (-b): missing value"),
        ("-b four", "b0 (-b): \"four\" is not a number"),
        ("-r 1.5", "seed (-r): \"1.5\" is not an integer"),
        (
            "-d -3",
            "gen_mx (-d): -3 is out of range: must be at least 1",
        ),
        ("-q 2", "q (-q): 2 is out of range: must be in [0, 1]"),
        ("-m x", "m (-m): \"x\" is not an integer"),
        (
            "-x 1",
            "uts flags: unknown flag \"-x\" (known: -t -b -r -a -d -q -m -f -g)",
        ),
    ];
    for (flags, want) in cases {
        assert_eq!(
            Params::from_flags(flags).unwrap_err().to_string(),
            want,
            "{flags}"
        );
    }
}

#[test]
fn negative_seed_is_twos_complement() {
    let p = Params::from_flags("-r -1").unwrap();
    assert_eq!(p.seed(), -1);
    assert_eq!(
        hex(&p.root().state),
        "3d5a12e598fbe21084820e15173b38e2fe809ef7"
    );
}
