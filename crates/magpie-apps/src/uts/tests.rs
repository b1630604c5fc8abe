use super::*;

#[test]
fn sha1_fips_vector() {
    assert_eq!(
        hex(&Sha1::digest(b"abc")),
        "a9993e364706816aba3e25717850c26c9cd0d89d"
    );
}

/// Message layout (big-endian, two's complement), vectors from Python's `hashlib.sha1`.
#[test]
fn init_and_spawn_layout() {
    assert_eq!(
        hex(&rng_init(-1)),
        "3d5a12e598fbe21084820e15173b38e2fe809ef7"
    );
    assert_eq!(
        hex(&rng_init(i32::MIN)),
        "ec5e2eb7f9cca9a0f6bc7b39cbb4cad701c90c1d"
    );
    let root0 = rng_init(0);
    assert_eq!(
        hex(&rng_spawn(&root0, -5)),
        "64ad78ad876761df10d6ce77723b58299b6351d6"
    );
    assert_eq!(
        hex(&rng_spawn(&root0, 99)),
        "13daf7296b1d8e3ac5f46a6a31fa744b0509f255"
    );
}

fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

#[test]
fn geo_table_equals_on_the_fly_values() {
    for flags in [
        "-t 1 -a 0 -d 20 -b 4",
        "-t 1 -a 1 -d 10 -b 4",
        "-t 1 -a 2 -d 16 -b 6",
        "-t 1 -a 3 -d 10 -b 4",
    ] {
        let p = Params::from_flags(flags).unwrap();
        assert!(!p.geo_ln_1mp.is_empty());
        for (h, &v) in p.geo_ln_1mp.iter().enumerate() {
            assert_eq!(
                v.to_bits(),
                p.geo_ln_1mp_at(h as u32).to_bits(),
                "{flags} h {h}"
            );
        }
    }
}

#[test]
fn edge_cases_give_leaves() {
    // LINEAR at h == gen_mx: b_h is exactly 0, so every u gives 0 children.
    let p = Params::from_flags("-t 1 -a 0 -d 6 -b 4").unwrap();
    for r in [0, 1, 0x7fff_ffff, 123_456_789] {
        assert_eq!(p.geo_count(6, rng_to_prob(r)), 0);
    }
    // u == 0 gives 0 children at every height.
    assert_eq!(p.geo_count(0, 0.0), 0);
    assert_eq!(p.geo_count(3, 0.0), 0);
    // Largest u at the root with b0 = 4: floor(ln(2^-31) / ln(0.8)) = 96.
    assert_eq!(p.geo_count(0, rng_to_prob(0x7fff_ffff)), 96);
}

#[test]
fn cap_limits_geometric_counts() {
    let p = Params::from_flags("-t 1 -a 3 -d 2 -b 60").unwrap();
    let mut node = p.root();
    node.state[16..].copy_from_slice(&[0x7f, 0xff, 0xff, 0xff]);
    // Uncapped: floor(ln(2^-31) / ln(60/61)) = 1299.
    assert_eq!(p.geo_count(0, rng_to_prob(node.rand())), 1299);
    assert_eq!(p.num_children(&node), MAX_NUM_CHILDREN);
    assert_eq!(p.children(&node).len(), 100);
    // A BIN root is exempt.
    let bin = Params::from_flags("-t 0 -b 2000").unwrap();
    assert_eq!(bin.num_children(&bin.root()), 2000);
    // BIN with m above the cap is capped below the root.
    let big_m = Params::from_flags("-t 0 -b 1 -q 1 -m 250").unwrap();
    let child = big_m.children(&big_m.root()).next().unwrap();
    assert_eq!(big_m.num_children(&child), 100);
}

/// The spec's cap example: the cap is hit (uncapped count above 100) by 22 nodes.
#[test]
fn cap_hit_by_22_nodes() {
    let p = Params::from_flags("-t 1 -a 3 -d 2 -b 60 -r 0").unwrap();
    let (mut hits, mut exactly_100) = (0, 0);
    let mut stack = vec![p.root()];
    while let Some(v) = stack.pop() {
        let raw = p.geo_count(v.height, rng_to_prob(v.rand()));
        hits += u32::from(raw > 100);
        exactly_100 += u32::from(raw == 100);
        assert_eq!(p.num_children(&v) as i64, raw.min(100));
        stack.extend(p.children(&v));
    }
    assert_eq!((hits, exactly_100), (22, 1));
}

#[test]
fn degenerate_counts_clamp_to_zero() {
    // EXPDEC with gen_mx = 1 and b0 < 1: b_h = +inf below the root, p = 0, ln(1-p) = 0.
    let p = Params::from_flags("-t 1 -a 1 -d 1 -b 0.5").unwrap();
    let mut node = p.root();
    node.height = 2;
    assert_eq!(p.num_children(&node), 0);
}

#[test]
fn hybrid_switch_height() {
    // T4: heights 0..=7 geometric, from 8 binomial (m = 4 or 0).
    let p = Params::named("T4").unwrap();
    let mut node = p.root();
    node.state[16..].copy_from_slice(&[0, 0, 0, 0]); // u = 0 < q
    node.height = 7;
    assert_eq!(p.num_children(&node), 0); // geometric, u = 0
    node.height = 8;
    assert_eq!(p.num_children(&node), 4); // binomial, u < q
}

#[test]
fn granularity_does_not_change_children() {
    let p1 = Params::named("T1").unwrap();
    let p3 = Params::from_flags("-t 1 -a 3 -d 10 -b 4 -r 19 -g 3").unwrap();
    let root = p1.root();
    let a: Vec<Node> = p1.children(&root).collect();
    let b: Vec<Node> = p3.children(&root).collect();
    assert_eq!(a, b);
    assert_eq!(Params::from_flags("-g -4").unwrap().granularity(), 1);
}

#[test]
fn children_are_lazy_and_exact_size() {
    let p = Params::named("T3").unwrap();
    let root = p.root();
    let mut it = p.children(&root);
    assert_eq!(it.len(), 2000);
    let third = it.nth(2).unwrap();
    assert_eq!(third.state, rng_spawn(&root.state, 2));
    assert_eq!(it.len(), 1997);
    assert_eq!(it.by_ref().count(), 1997);
    assert_eq!(it.next(), None);
}
