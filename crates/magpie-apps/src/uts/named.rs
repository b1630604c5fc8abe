//! The spec's named trees (section 6): their reference flags and expected statistics.

use super::Params;

/// A named tree of the spec (section 6): the reference's flags and the expected statistics.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NamedTree {
    /// The name [`Params::named`] takes (`T1`, `T3L`, `bots-tiny`, …).
    pub name: &'static str,
    /// The reference flags, as [`Params::from_flags`] takes them.
    pub flags: &'static str,
    /// Expected number of nodes.
    pub nodes: u64,
    /// Expected maximum height, if known.
    pub max_depth: Option<u32>,
    /// Expected number of leaves, if known.
    pub leaves: Option<u64>,
}

const fn tree(
    name: &'static str,
    flags: &'static str,
    nodes: u64,
    max_depth: Option<u32>,
    leaves: Option<u64>,
) -> NamedTree {
    NamedTree {
        name,
        flags,
        nodes,
        max_depth,
        leaves,
    }
}

/// The spec's named trees (section 6) with their expected statistics: the UTS sample trees
/// (published values; where the spec marks a depth or leaf count as computed by its own check
/// implementations, that value is given) and the BOTS binomial inputs as `bots-*`
/// (`bots-tiny` with the spec's 30,399,117, not the BOTS file's 30,399,116).
pub const NAMED_TREES: &[NamedTree] = &[
    tree(
        "default",
        "-t 1 -a 0 -d 6 -b 4 -r 0",
        1_732,
        Some(6),
        Some(1_050),
    ),
    tree(
        "T1",
        "-t 1 -a 3 -d 10 -b 4 -r 19",
        4_130_071,
        Some(10),
        Some(3_305_118),
    ),
    tree(
        "T5",
        "-t 1 -a 0 -d 20 -b 4 -r 34",
        4_147_582,
        Some(20),
        Some(2_181_318),
    ),
    tree(
        "T2",
        "-t 1 -a 2 -d 16 -b 6 -r 502",
        4_117_769,
        Some(81),
        Some(2_342_762),
    ),
    tree(
        "T3",
        "-t 0 -b 2000 -q 0.124875 -m 8 -r 42",
        4_112_897,
        Some(1572),
        Some(3_599_034),
    ),
    tree(
        "T4",
        "-t 2 -a 0 -d 16 -b 6 -r 1 -q 0.234375 -m 4 -r 1",
        4_132_453,
        Some(134),
        Some(3_108_986),
    ),
    tree(
        "T1L",
        "-t 1 -a 3 -d 13 -b 4 -r 29",
        102_181_082,
        Some(13),
        Some(81_746_377),
    ),
    tree(
        "T2L",
        "-t 1 -a 2 -d 23 -b 7 -r 220",
        96_793_510,
        Some(67),
        Some(53_791_152),
    ),
    tree(
        "T3L",
        "-t 0 -b 2000 -q 0.200014 -m 5 -r 7",
        111_345_631,
        Some(17844),
        Some(89_076_904),
    ),
    tree(
        "T1XL",
        "-t 1 -a 3 -d 15 -b 4 -r 29",
        1_635_119_272,
        Some(15),
        Some(1_308_100_063),
    ),
    tree(
        "T1XXL",
        "-t 1 -a 3 -d 15 -b 4 -r 19",
        4_230_646_601,
        Some(15),
        None,
    ),
    tree(
        "T3XXL",
        "-t 0 -b 2000 -q 0.499995 -m 2 -r 316",
        2_793_220_501,
        Some(99049),
        Some(1_396_611_250),
    ),
    tree(
        "T2XXL",
        "-t 0 -b 2000 -q 0.499999995 -m 2 -r 0",
        10_612_052_303,
        Some(216_370),
        Some(5_306_027_151),
    ),
    tree(
        "T1WL",
        "-t 1 -a 3 -d 18 -b 4 -r 19",
        270_751_679_750,
        Some(18),
        Some(216_601_257_283),
    ),
    tree(
        "T2WL",
        "-t 0 -b 2000 -q 0.4999999995 -m 2 -r 559",
        295_393_891_003,
        Some(1_021_239),
        Some(147_696_946_501),
    ),
    tree(
        "T3WL",
        "-t 0 -b 2000 -q 0.4999995 -m 2 -r 559",
        157_063_495_159,
        Some(758_577),
        Some(78_531_748_579),
    ),
    tree(
        "bots-test",
        "-t 0 -b 2000 -q 0.124875 -m 8 -r 42",
        4_112_897,
        Some(1572),
        Some(3_599_034),
    ),
    tree(
        "bots-tiny",
        "-t 0 -b 2000 -q 0.333332 -m 3 -r 8",
        30_399_117,
        Some(6974),
        Some(20_266_744),
    ),
    tree(
        "bots-small",
        "-t 0 -b 2000 -q 0.200014 -m 5 -r 7",
        111_345_631,
        Some(17844),
        Some(89_076_904),
    ),
    tree(
        "bots-medium",
        "-t 0 -b 2000 -q 0.333344 -m 3 -r 23",
        1_606_963_542,
        Some(79868),
        Some(1_071_309_694),
    ),
    tree(
        "bots-large",
        "-t 0 -b 2000 -q 0.4999995 -m 2 -r 559",
        157_063_495_159,
        Some(758_577),
        Some(78_531_748_579),
    ),
    tree(
        "bots-huge",
        "-t 0 -b 2000 -q 0.4999995 -m 2 -r 559",
        157_063_495_159,
        Some(758_577),
        Some(78_531_748_579),
    ),
];

impl NamedTree {
    /// The named tree called `name` (ASCII case-insensitive), if any.
    ///
    /// ```
    /// use magpie_apps::uts::NamedTree;
    /// let t3 = NamedTree::find("t3").unwrap();
    /// assert_eq!((t3.name, t3.nodes, t3.max_depth), ("T3", 4_112_897, Some(1572)));
    /// ```
    pub fn find(name: &str) -> Option<&'static NamedTree> {
        NAMED_TREES
            .iter()
            .find(|t| t.name.eq_ignore_ascii_case(name))
    }

    /// Its parameters ([`Params::from_flags`] of [`flags`](NamedTree::flags)).
    ///
    /// # Panics
    ///
    /// Never for the entries of [`NAMED_TREES`] (a test parses them all).
    pub fn params(&self) -> Params {
        Params::from_flags(self.flags).expect("NAMED_TREES flags parse")
    }
}
