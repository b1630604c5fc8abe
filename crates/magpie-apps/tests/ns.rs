//! Numerical semigroups by genus: oracle counts (OEIS A007323 / spec section 7), tree
//! structure and parameter checks. Everything here runs in a few seconds in `--release`.

use magpie_apps::ns::{
    count_by_genus, count_by_genus_shortcut, validate_genus, Semigroup, DECOMP_LEN,
    EXPECTED_COUNTS, MAX_GENUS,
};

/// Largest genus counted by the default tests: 30 in release (≈ 14.4 M nodes); debug builds
/// are ~20× slower, so they stop at 24.
const ORACLE_GENUS: usize = if cfg!(debug_assertions) { 24 } else { 30 };

#[test]
fn counts_match_oracle_table() {
    assert_eq!(
        count_by_genus(ORACLE_GENUS),
        &EXPECTED_COUNTS[..=ORACLE_GENUS]
    );
}

#[test]
fn shortcut_matches_full_expansion_and_oracle() {
    assert_eq!(
        count_by_genus_shortcut(ORACLE_GENUS),
        &EXPECTED_COUNTS[..=ORACLE_GENUS]
    );
    for g in 0..=12 {
        assert_eq!(count_by_genus_shortcut(g), count_by_genus(g), "genus {g}");
    }
}

#[test]
fn every_prefix_is_exact() {
    for g in 0..=16 {
        assert_eq!(count_by_genus(g), &EXPECTED_COUNTS[..=g], "genus {g}");
    }
}

#[test]
fn oracle_table_spot_values() {
    assert_eq!(EXPECTED_COUNTS[..8], [1, 1, 2, 4, 7, 12, 23, 39]);
    assert_eq!(EXPECTED_COUNTS[36], 109_032_500);
    assert_eq!(EXPECTED_COUNTS[40], 774_614_284);
    assert_eq!(EXPECTED_COUNTS[50], 101_090_300_128);
}

#[test]
fn root_and_first_levels() {
    let root = Semigroup::root();
    assert_eq!(root.genus(), 0);
    assert_eq!(root.multiplicity(), 1);
    assert_eq!(root.conductor(), 0);
    assert_eq!(root.frobenius(), -1);
    assert!(root.gaps().is_empty());
    assert_eq!(root.generators(), [1]);
    let d: Vec<usize> = (0..10).map(|p| root.decomposition(p)).collect();
    assert_eq!(d, [1, 1, 2, 2, 3, 3, 4, 4, 5, 5]);

    let kids: Vec<Semigroup> = root.children().collect();
    assert_eq!(kids.len(), 1);
    let s = &kids[0]; // <2, 3>
    assert_eq!(s, &root.child(1).unwrap());
    assert_eq!(
        (s.genus(), s.multiplicity(), s.conductor(), s.frobenius()),
        (1, 2, 2, 1)
    );
    let d: Vec<usize> = (0..10).map(|p| s.decomposition(p)).collect();
    assert_eq!(d, [1, 0, 1, 1, 2, 2, 3, 3, 4, 4]);
    assert_eq!(s.generators(), [2, 3]);

    // Genus 2: <3,4,5> (x = 2), <2,5> (x = 3), in that order.
    let g2: Vec<Semigroup> = s.children().collect();
    let gens: Vec<Vec<usize>> = g2.iter().map(|c| c.generators()).collect();
    assert_eq!(gens, [vec![3, 4, 5], vec![2, 5]]);
    assert_eq!(g2[0].frobenius(), 2);
    assert_eq!(g2[1].frobenius(), 3);
    assert_eq!(g2[0].multiplicity(), 3);
    assert_eq!(g2[1].multiplicity(), 2);

    // Genus 3, depth-first order: <4,5,6,7>, <3,5,7>, <3,4>, <2,7>.
    let g3: Vec<Vec<usize>> = g2
        .iter()
        .flat_map(|c| c.children().map(|k| k.generators()).collect::<Vec<_>>())
        .collect();
    assert_eq!(
        g3,
        [vec![4, 5, 6, 7], vec![3, 5, 7], vec![3, 4], vec![2, 7]]
    );
}

#[test]
fn paper_example_s_e() {
    // S_E = <3, 7> = {0, 3, 6, 7, 9, 10} ∪ [12, ∞).
    let mut s = Semigroup::root();
    for x in [1, 2, 4, 5, 8, 11] {
        assert!(s.children().any(|c| c.frobenius() == x as i64));
        s = s.child(x).unwrap();
    }
    assert_eq!(s.genus(), 6);
    assert_eq!(s.gaps(), [1, 2, 4, 5, 8, 11]);
    assert_eq!(s.conductor(), 12);
    assert_eq!(s.frobenius(), 11);
    assert_eq!(s.multiplicity(), 3);
    assert_eq!(s.decomposition(14), 2);
    assert_eq!(s.generators(), [3, 7]);
    let members: Vec<usize> = (0..14).filter(|&p| s.contains(p)).collect();
    assert_eq!(members, [0, 3, 6, 7, 9, 10, 12, 13]);
    // Its children: the generators ≥ 12 — none (3 and 7 are below the conductor).
    assert_eq!(s.num_children(), 0);
    assert_eq!(s.children().count(), 0);
    // Not children: a non-generator, a gap, a generator below the conductor.
    assert!(s.child(12).is_none());
    assert!(s.child(11).is_none());
    assert!(s.child(7).is_none());
}

#[test]
fn children_are_lazy_ordered_and_consistent() {
    // <3, 4, 5>: generators ≥ c = 3 are 3, 4, 5.
    let s = Semigroup::root().child(1).unwrap().child(2).unwrap();
    let mut it = s.children();
    assert_eq!(it.len(), 3);
    let first = it.next().unwrap();
    assert_eq!(it.len(), 2);
    assert_eq!(first.generators(), [4, 5, 6, 7]);
    let rest: Vec<i64> = it.map(|c| c.frobenius()).collect();
    assert_eq!(rest, [4, 5]);

    let mut nodes = 0u64;
    Semigroup::root().each_up_to_genus(12, &mut |s| {
        nodes += 1;
        let h = s.genus();
        let kids: Vec<Semigroup> = s.children().collect();
        assert_eq!(kids.len(), s.num_children());
        let mut last = s.frobenius();
        for k in &kids {
            assert_eq!(k.genus(), h + 1);
            let x = k.frobenius();
            assert!(x > last, "children in increasing x");
            last = x;
            // Generator bound: x ≤ 2h + 1; and the child is S \ {x}.
            assert!(x as usize <= 2 * h + 1);
            assert!(s.contains(x as usize) && !k.contains(x as usize));
            assert_eq!(s.child(x as usize).as_ref(), Some(k));
            // Parent of a child is S ∪ {F}: same set except x.
            for p in 0..3 * (h + 2) {
                assert_eq!(k.contains(p), s.contains(p) && p != x as usize);
            }
            assert_eq!(k.gaps().len(), h + 1);
        }
    });
    assert_eq!(nodes, EXPECTED_COUNTS[..=12].iter().sum::<u64>());
}

#[test]
fn multiplicity_table_a199711() {
    let want: [&[u64]; 10] = [
        &[],
        &[1],
        &[1, 1],
        &[1, 2, 1],
        &[1, 2, 3, 1],
        &[1, 2, 4, 4, 1],
        &[1, 3, 6, 7, 5, 1],
        &[1, 3, 7, 10, 11, 6, 1],
        &[1, 3, 9, 13, 17, 16, 7, 1],
        &[1, 4, 11, 16, 27, 28, 22, 8, 1],
    ];
    let mut table = vec![vec![0u64; 11]; 10];
    Semigroup::root().each_up_to_genus(9, &mut |s| {
        table[s.genus()][s.multiplicity()] += 1;
    });
    for g in 1..=9 {
        // Row g lists m = 2..=g+1.
        assert_eq!(&table[g][2..=g + 1], want[g], "genus {g}");
    }
    assert_eq!(table[0][1], 1);
}

#[test]
fn deepest_nodes_of_the_representation() {
    // The ordinary semigroup {0} ∪ [g+1, ∞) attains the generator bound 2g + 1; walk it to
    // the maximum genus.
    let mut s = Semigroup::root();
    for g in 0..MAX_GENUS {
        let kids: Vec<Semigroup> = s.children().collect();
        assert_eq!(kids.len(), g + 1, "genus {g}");
        assert_eq!(kids.last().unwrap().frobenius(), 2 * g as i64 + 1);
        s = kids.into_iter().next().unwrap();
    }
    assert_eq!(s.genus(), MAX_GENUS);
    assert_eq!(s.multiplicity(), MAX_GENUS + 1);
    assert_eq!(
        s.generators(),
        ((MAX_GENUS + 1)..=(2 * MAX_GENUS + 1)).collect::<Vec<_>>()
    );
    assert_eq!(s.decomposition(DECOMP_LEN - 1), 1); // only 0 + 127
    assert_eq!(s.decomposition(2 * MAX_GENUS + 2), 2); // 0 + 130, 65 + 65
}

#[test]
#[should_panic(expected = "has no children in the representation (maximum genus 64)")]
fn children_beyond_max_genus_panics() {
    let mut s = Semigroup::root();
    for x in 1..=MAX_GENUS {
        s = s.child(x).unwrap();
    }
    let _ = s.children();
}

#[test]
fn genus_parameter_errors() {
    assert_eq!(validate_genus(0), Ok(0));
    assert_eq!(validate_genus(30), Ok(30));
    assert_eq!(validate_genus(MAX_GENUS as u64), Ok(MAX_GENUS));
    for bad in [65, 1000, u64::MAX] {
        let e = validate_genus(bad).unwrap_err();
        assert_eq!(e.path.to_str(), Some("--genus"));
        assert_eq!(e.line, None);
        assert_eq!(
            e.message,
            format!(
                "genus {bad} is out of range 0..=64 (the maximum genus of the 128-byte \
                 decomposition-number representation)"
            )
        );
    }
}

#[test]
#[should_panic(expected = "count_by_genus(65): the maximum genus is 64")]
fn count_beyond_max_genus_panics() {
    count_by_genus(MAX_GENUS + 1);
}
