//! Unit tests of the topology: the recorded sysfs fixtures, temporary sysfs trees, the levels
//! and the workers' CPUs.

use super::test_support::{fixture, fixture_root, TempSysfs};
use super::*;
use LevelKind::*;

fn kinds(t: &Topology) -> Vec<Vec<LevelKind>> {
    t.levels().iter().map(|l| l.kinds().to_vec()).collect()
}

#[test]
fn cpulists() {
    assert_eq!(
        parse_cpulist("0-3,8-11\n").unwrap(),
        vec![0, 1, 2, 3, 8, 9, 10, 11]
    );
    assert_eq!(parse_cpulist("5").unwrap(), vec![5]);
    assert_eq!(parse_cpulist("3,1,1-2").unwrap(), vec![1, 2, 3]);
    assert_eq!(parse_cpulist("\n").unwrap(), Vec::<usize>::new());
    for bad in ["a", "1-", "3-1", "1,,2", "0-99999999", "-1"] {
        assert!(parse_cpulist(bad).is_err(), "{bad:?} parsed");
    }
}

#[test]
fn two_socket_numa() {
    let t = fixture("two-socket-numa");
    assert_eq!(t.cpus(), (0..16).collect::<Vec<_>>());
    assert_eq!(
        kinds(&t),
        vec![vec![Core, L2], vec![L3, Package, Node], vec![Machine]]
    );
    assert_eq!(t.max_distance(), 3);
    assert_eq!(
        t.levels().iter().map(Level::num_groups).collect::<Vec<_>>(),
        vec![8, 2, 1]
    );
    assert_eq!(t.levels()[0].groups()[1], vec![1, 9]);
    assert_eq!(t.levels()[0].groups()[7], vec![7, 15]);
    assert_eq!(t.levels()[1].groups()[0], vec![0, 1, 2, 3, 8, 9, 10, 11]);
    assert_eq!(t.levels()[1].groups()[1], vec![4, 5, 6, 7, 12, 13, 14, 15]);
    assert_eq!(t.group(1, 9), Some(1));
    assert_eq!(t.group(1, 12), Some(4));
    assert_eq!(t.group(2, 12), Some(1));
    assert_eq!(t.group(3, 12), Some(0));
    assert_eq!(t.group(4, 12), None);
    assert_eq!(t.group(0, 12), None);
    assert_eq!(t.group(1, 16), None);

    assert_eq!(t.distance(3, 3), 0);
    assert_eq!(t.distance(0, 8), 1);
    assert_eq!(t.distance(13, 5), 1);
    assert_eq!(t.distance(0, 1), 2);
    assert_eq!(t.distance(8, 11), 2);
    assert_eq!(t.distance(0, 4), 3);
    assert_eq!(t.distance(11, 12), 3);
    assert_eq!(t.distance(0, 99), 3);

    assert_eq!(t.package(12), Some(1));
    assert_eq!(t.package(8), Some(0));
    assert_eq!(t.node(12), Some(1));
    assert_eq!(t.node(3), Some(0));
    assert_eq!(t.node(16), None);

    let compact = vec![0, 8, 1, 9, 2, 10, 3, 11, 4, 12, 5, 13, 6, 14, 7, 15];
    assert_eq!(t.compact_order(), compact.as_slice());
    assert_eq!(t.worker_cpus_within(16, t.cpus()), compact);
    assert_eq!(t.worker_cpus_within(3, t.cpus()), vec![0, 8, 1]);
    // Restricted to some CPUs: still in topology order, whatever the order given.
    assert_eq!(t.worker_cpus_within(4, &[12, 4, 1, 0]), vec![0, 1, 4, 12]);
    // Wrapping around.
    assert_eq!(t.worker_cpus_within(5, &[5, 13]), vec![5, 13, 5, 13, 5]);
    // Nothing of `allowed` is in the topology: all of its CPUs.
    assert_eq!(t.worker_cpus_within(2, &[40]), vec![0, 8]);
    assert_eq!(t.worker_cpus_within(0, t.cpus()), Vec::<usize>::new());

    assert_eq!(
        t.to_string(),
        "16 CPUs; distance 1: core=L2 (8 groups), 2: L3=package=node (2 groups), \
         3: machine (1 group)"
    );
    assert_eq!(t.note(), None);
}

#[test]
fn single_socket() {
    let t = fixture("single-socket");
    assert_eq!(t.cpus(), &[0, 1, 2, 3]);
    // No SMT: the core level splits nothing and is dropped.
    assert_eq!(kinds(&t), vec![vec![L2], vec![L3, Package, Node, Machine]]);
    assert_eq!(t.levels()[0].groups(), &[vec![0, 1], vec![2, 3]]);
    assert_eq!(t.distance(0, 1), 1);
    assert_eq!(t.distance(3, 2), 1);
    assert_eq!(t.distance(1, 2), 2);
    assert_eq!(t.max_distance(), 2);
    assert_eq!(t.group(1, 3), Some(1));
    assert_eq!(t.node(2), Some(0));
    assert_eq!(t.compact_order(), &[0, 1, 2, 3]);
    assert_eq!(t.worker_cpus_within(6, t.cpus()), vec![0, 1, 2, 3, 0, 1]);
}

#[test]
fn flat() {
    let t = Topology::flat(2);
    assert_eq!(kinds(&t), vec![vec![Package, Node, Machine]]);
    assert_eq!(t.distance(0, 1), 1);
    assert_eq!(t.node(1), Some(0));
    assert_eq!(t.package(1), Some(0));
    let one = Topology::flat(0);
    assert_eq!(one.cpus(), &[0]);
    // One CPU: no level splits anything, but the machine level stays.
    assert_eq!(kinds(&one), vec![vec![Machine]]);
    assert_eq!(one.max_distance(), 1);
    assert_eq!(one.worker_cpus_within(2, &[0]), vec![0, 0]);
}

#[test]
fn malformed_files_are_named() {
    let fs = TempSysfs::new();
    fs.write("cpu/online", "0-1")
        .cpu(0, 0, 0, None, None)
        .cpu(1, 0, 1, None, None);
    fs.topology();

    // `bad` written into `file` makes the reading fail at that file; `good` mends it.
    let fails_at = |file: &str, bad: &str, good: &str| {
        fs.write(file, bad);
        let e = Topology::from_sysfs(&fs.root).unwrap_err();
        assert_eq!(e.path(), fs.root.join(file));
        fs.write(file, good);
        e
    };
    let e = fails_at("cpu/cpu1/topology/physical_package_id", "zero", "0");
    let path = fs.root.join("cpu/cpu1/topology/physical_package_id");
    assert_eq!(
        e.to_string(),
        format!("{}: \"zero\" is not an integer", path.display())
    );

    fs.write("cpu/cpu0/cache/index0/level", "2")
        .write("cpu/cpu0/cache/index0/type", "Unified");
    let e = fails_at("cpu/cpu0/cache/index0/shared_cpu_list", "0-x", "0");
    assert!(e.to_string().contains("\"x\" is not a CPU number"), "{e}");

    fails_at("cpu/cpu0/cache/index0/type", "Victim", "Data");

    let e = fails_at("cpu/online", "1-0", "0-1");
    assert!(
        e.to_string().ends_with("range \"1-0\" runs backwards"),
        "{e}"
    );
    fails_at("cpu/online", "", "0-1");

    fails_at("node/node3/cpulist", "0-1,", "0-1");
    assert_eq!(fs.topology().node(1), Some(3));

    // A missing required file is named too.
    std::fs::remove_file(fs.root.join("cpu/cpu1/topology/core_id")).unwrap();
    let e = Topology::from_sysfs(&fs.root).unwrap_err();
    assert_eq!(e.path(), fs.root.join("cpu/cpu1/topology/core_id"));
    assert!(e.to_string().starts_with("cannot read "), "{e}");

    let e = Topology::from_sysfs(&fixture_root("no-such-fixture")).unwrap_err();
    assert_eq!(e.path(), fixture_root("no-such-fixture").join("cpu"));
}

#[test]
fn honours_online_and_core_lists() {
    let fs = TempSysfs::new();
    // CPU 2 is offline (its files are absent); cores named by thread_siblings_list.
    fs.write("cpu/online", "0-1,3");
    for (cpu, siblings) in [(0, "0-1"), (1, "0-1"), (3, "2-3")] {
        fs.cpu(cpu, 0, 0, None, Some("0-3"));
        fs.write(
            &format!("cpu/cpu{cpu}/topology/thread_siblings_list"),
            siblings,
        );
    }
    let t = fs.topology();
    assert_eq!(t.cpus(), &[0, 1, 3]);
    assert!(!t.contains(2));
    // core_id is 0 everywhere, but the sibling lists tell the cores apart.
    assert_eq!(
        kinds(&t),
        vec![vec![Core], vec![L3, Package, Node, Machine]]
    );
    assert_eq!(t.levels()[0].groups(), &[vec![0, 1], vec![3]]);
    assert_eq!(t.levels()[1].groups(), &[vec![0, 1, 3]]);
    assert_eq!(t.distance(1, 3), 2);
    assert_eq!(t.worker_cpus_within(4, &[0, 1, 2, 3]), vec![0, 1, 3, 0]);

    // Without `online`, every cpuN directory counts (and cpufreq etc. do not).
    std::fs::remove_file(fs.root.join("cpu/online")).unwrap();
    fs.write("cpu/cpufreq/boost", "1");
    assert_eq!(fs.topology().cpus(), &[0, 1, 3]);
}

#[test]
fn levels_that_do_not_nest_still_form_a_tree() {
    // Sub-NUMA clustering: 2 nodes per package, L3 per package, cores without SMT.
    let fs = TempSysfs::new();
    fs.write("cpu/online", "0-7")
        .write("node/node0/cpulist", "0-1")
        .write("node/node1/cpulist", "2-3")
        .write("node/node2/cpulist", "4-5")
        .write("node/node3/cpulist", "6-7");
    for cpu in 0..8 {
        let l3 = if cpu < 4 { "0-3" } else { "4-7" };
        fs.cpu(cpu, (cpu / 4) as i64, cpu % 4, None, Some(l3));
    }
    let t = fs.topology();
    // Nodes (4 groups) sort below the L3 and packages (2 groups).
    assert_eq!(
        kinds(&t),
        vec![vec![Node], vec![L3, Package], vec![Machine]]
    );
    assert_eq!(t.distance(0, 1), 1);
    assert_eq!(t.distance(1, 2), 2);
    assert_eq!(t.distance(3, 4), 3);

    // An L2 that straddles two nodes merges them.
    let fs = TempSysfs::new();
    fs.write("cpu/online", "0-3")
        .write("node/node0/cpulist", "0-1")
        .write("node/node1/cpulist", "2-3");
    for (cpu, l2) in [(0, "0"), (1, "1-2"), (2, "1-2"), (3, "3")] {
        fs.cpu(cpu, 0, cpu, Some(l2), None);
    }
    let t = fs.topology();
    assert_eq!(kinds(&t), vec![vec![L2], vec![Node, Package, Machine]]);
    assert_eq!(t.levels()[0].groups(), &[vec![0], vec![1, 2], vec![3]]);
    assert_eq!(t.distance(0, 3), 2);
}

#[test]
fn this_machine() {
    let t = Topology::detect();
    assert!(!t.cpus().is_empty());
    assert_eq!(t.levels().last().unwrap().num_groups(), 1);
    let placed = t.worker_cpus(2 * t.cpus().len());
    assert_eq!(placed.len(), 2 * t.cpus().len());
    assert!(placed.iter().all(|&c| t.contains(c)));
    let allowed = allowed_cpus().expect("sched_getaffinity works here");
    if t.cpus().iter().any(|c| allowed.contains(c)) {
        assert!(placed.iter().all(|c| allowed.contains(c)));
    }
}
