//! The machine's topology; its documentation is on [`Topology`].

use super::params::{PolicySpec, SpecError};
use std::collections::HashMap;
use std::fmt;
use std::fs;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Where Linux exposes the CPU and NUMA topology.
pub const SYSFS_ROOT: &str = "/sys/devices/system";

/// CPU numbers above this are refused as corrupt input (Linux allows at most 8192 CPUs).
const MAX_CPU: usize = 1 << 16;

/// What a level of the hierarchy stands for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum LevelKind {
    /// The hardware threads of one core (SMT siblings).
    Core,
    /// The CPUs sharing a level-2 cache.
    L2,
    /// The CPUs sharing a level-3 cache.
    L3,
    /// A physical package (socket).
    Package,
    /// A NUMA node.
    Node,
    /// The whole machine.
    Machine,
}

impl LevelKind {
    /// The kind's short name (`core`, `L2`, `L3`, `package`, `node`, `machine`).
    pub fn name(self) -> &'static str {
        match self {
            LevelKind::Core => "core",
            LevelKind::L2 => "L2",
            LevelKind::L3 => "L3",
            LevelKind::Package => "package",
            LevelKind::Node => "node",
            LevelKind::Machine => "machine",
        }
    }
}

impl fmt::Display for LevelKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// One level of the hierarchy: a partition of the CPUs into groups.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Level {
    kinds: Vec<LevelKind>,
    /// The group of each CPU, by the CPU's position in [`Topology::cpus`].
    ids: Vec<usize>,
    /// The CPUs of each group, ascending; groups are numbered by their lowest CPU.
    groups: Vec<Vec<usize>>,
}

impl Level {
    fn new(kinds: Vec<LevelKind>, ids: Vec<usize>, cpus: &[usize]) -> Level {
        let mut groups = vec![Vec::new(); ids.iter().map(|&g| g + 1).max().unwrap_or(0)];
        for (pos, &g) in ids.iter().enumerate() {
            groups[g].push(cpus[pos]);
        }
        Level { kinds, ids, groups }
    }

    /// What this level stands for, lowest first: several kinds when they group the CPUs
    /// alike (on a one-socket machine, `[L3, Package, Node, Machine]`).
    pub fn kinds(&self) -> &[LevelKind] {
        &self.kinds
    }

    /// The groups, numbered from 0 in the order of their lowest CPU; each lists its CPUs in
    /// ascending order.
    pub fn groups(&self) -> &[Vec<usize>] {
        &self.groups
    }

    /// The number of groups.
    pub fn num_groups(&self) -> usize {
        self.groups.len()
    }
}

/// Why sysfs could not be read: each error names the file (or directory) and the problem.
#[derive(Debug, thiserror::Error)]
pub enum TopologyError {
    /// A file or directory could not be read.
    #[error("cannot read {}: {source}", path.display())]
    Read {
        /// What could not be read.
        path: PathBuf,
        /// Why.
        #[source]
        source: io::Error,
    },
    /// A file's contents are not what Linux writes there.
    #[error("{}: {problem}", path.display())]
    Parse {
        /// The malformed file (or the directory missing an expected entry).
        path: PathBuf,
        /// What is wrong with it.
        problem: String,
    },
}

impl TopologyError {
    /// The file or directory the error is about.
    pub fn path(&self) -> &Path {
        match self {
            TopologyError::Read { path, .. } | TopologyError::Parse { path, .. } => path,
        }
    }

    fn parse(path: &Path, problem: impl Into<String>) -> TopologyError {
        TopologyError::Parse {
            path: path.to_path_buf(),
            problem: problem.into(),
        }
    }
}

/// The CPUs of a machine, their hierarchy of shared resources and the distances it implies.
///
///
/// The machine's topology, read from Linux sysfs, as a hierarchy of nested CPU groups with a
/// distance between any two CPUs: what the topology-aware victim policies (`hierarchical`,
/// `locality`) steer by.
///
/// [`Topology::from_sysfs`] reads a directory laid out like `/sys/devices/system`:
///
/// - `cpu/online`: the online CPUs (a cpulist such as `0-3,8-11`); when it is missing, every
///   `cpu/cpuN` directory counts as online;
/// - per online CPU, `cpu/cpuN/topology/physical_package_id`, and the CPU's core from
///   `core_cpus_list`, else `thread_siblings_list`, else `core_id` (taken within the package);
/// - per online CPU, `cpu/cpuN/cache/index*/{level,type,shared_cpu_list}` for the level-2 and
///   level-3 data or unified caches (a CPU without a `cache` directory shares no cache);
/// - `node/nodeN/cpulist` for the NUMA nodes (without a `node` directory, one node holds every
///   CPU).
///
/// Offline CPUs are left out everywhere, including from the lists of CPUs sharing a cache.
///
/// From these it builds the hierarchy from the leaf upward — SMT core, L2 group, L3 group,
/// package (socket), NUMA node, machine — and keeps only the levels that split the CPUs in a
/// way no lower level already does, so that each level is one distance:
/// [`Topology::distance`]`(a, b)` is the number (from 1) of the lowest level at which `a` and `b`
/// share a group. Levels with the same grouping are merged into one [`Level`] whose
/// [`kinds`](Level::kinds) names them all. Where the sysfs levels do not nest (a NUMA node
/// smaller than its package, say), the levels are ordered from the one with the most groups to
/// the one with the fewest and each level's groups are merged with the groups below, so the
/// result is always a tree.
///
/// ```
/// use magpie::policy::{LevelKind, Topology};
/// use std::path::Path;
///
/// let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/sysfs/two-socket-numa");
/// let t = Topology::from_sysfs(&root).unwrap();
/// assert_eq!(t.cpus().len(), 16);
/// assert_eq!(t.max_distance(), 3);
/// assert_eq!(t.levels()[1].kinds(), &[LevelKind::L3, LevelKind::Package, LevelKind::Node]);
/// assert_eq!(t.distance(0, 8), 1); // SMT siblings
/// assert_eq!(t.distance(0, 1), 2); // same socket
/// assert_eq!(t.distance(0, 4), 3); // other socket
/// // Compact placement: SMT siblings first, then the rest of the socket.
/// assert_eq!(t.worker_cpus_within(4, t.cpus()), vec![0, 8, 1, 9]);
/// ```
///
/// ```
/// use magpie::policy::{LevelKind, Topology};
///
/// let flat = Topology::flat(4);
/// assert_eq!(flat.cpus(), &[0, 1, 2, 3]);
/// assert_eq!(flat.max_distance(), 1);
/// let kinds = [LevelKind::Package, LevelKind::Node, LevelKind::Machine];
/// assert_eq!(flat.levels()[0].kinds(), &kinds);
/// assert_eq!(flat.distance(2, 2), 0);
/// assert_eq!(flat.distance(0, 3), 1);
/// // Placement wraps around when there are more workers than CPUs.
/// assert_eq!(flat.worker_cpus_within(6, &[1, 2]), vec![1, 2, 1, 2, 1, 2]);
///
/// // The machine this runs on (a flat one, with a note, if sysfs cannot be read).
/// let here = Topology::detect();
/// assert!(here.max_distance() >= 1);
/// assert_eq!(here.worker_cpus(3).len(), 3);
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Topology {
    /// The online CPUs, ascending.
    cpus: Vec<usize>,
    /// The position in `cpus` of each CPU number (`usize::MAX` where offline or absent).
    pos: Vec<usize>,
    /// The levels, nearest first: `levels[d - 1]` is the level at distance `d`.
    levels: Vec<Level>,
    /// Each CPU's `physical_package_id`, by position.
    package: Vec<i64>,
    /// Each CPU's NUMA node, by position (`None`: listed in no node).
    node: Vec<Option<usize>>,
    /// The CPUs in compact order: neighbours first.
    order: Vec<usize>,
    note: Option<String>,
}

/// What names a CPU's group at one raw (sysfs) level.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
enum Key {
    /// A list of CPUs (sharing a core or a cache).
    Cpus(Vec<usize>),
    /// A number, within a package where it matters (`core_id`).
    Id(i64, i64),
}

/// What sysfs says about one online CPU.
#[derive(Debug, Clone)]
struct CpuInfo {
    package: i64,
    core: Key,
    l2: Option<Key>,
    l3: Option<Key>,
    node: Option<usize>,
}

impl Topology {
    /// Reads the topology from `root`, a directory laid out like `/sys/devices/system` (see
    /// [`Topology`] for the files read).
    pub fn from_sysfs(root: &Path) -> Result<Topology, TopologyError> {
        let cpu_dir = root.join("cpu");
        let online_path = cpu_dir.join("online");
        let mut cpus = match read_optional(&online_path)? {
            Some(text) => {
                parse_cpulist(&text).map_err(|p| TopologyError::parse(&online_path, p))?
            }
            None => list_numbered(&cpu_dir, "cpu")?,
        };
        cpus.sort_unstable();
        cpus.dedup();
        if cpus.is_empty() {
            return Err(TopologyError::parse(&online_path, "lists no online CPU"));
        }
        let online = |list: Vec<usize>| -> Vec<usize> {
            list.into_iter()
                .filter(|c| cpus.binary_search(c).is_ok())
                .collect()
        };

        let mut infos = Vec::with_capacity(cpus.len());
        for &cpu in &cpus {
            let dir = cpu_dir.join(format!("cpu{cpu}"));
            let topo = dir.join("topology");
            let package = read_int(&topo.join("physical_package_id"))?;
            let core = match read_cpulist_optional(&topo.join("core_cpus_list"))? {
                Some(list) => Key::Cpus(online(list)),
                None => match read_cpulist_optional(&topo.join("thread_siblings_list"))? {
                    Some(list) => Key::Cpus(online(list)),
                    None => Key::Id(package, read_int(&topo.join("core_id"))?),
                },
            };
            let (l2, l3) = read_caches(&dir.join("cache"))?;
            infos.push(CpuInfo {
                package,
                core,
                l2: l2.map(|l| Key::Cpus(online(l))),
                l3: l3.map(|l| Key::Cpus(online(l))),
                node: None,
            });
        }

        let node_dir = root.join("node");
        match list_numbered(&node_dir, "node") {
            Ok(nodes) => {
                for node in nodes {
                    let path = node_dir.join(format!("node{node}/cpulist"));
                    let text = read_required(&path)?;
                    let list = parse_cpulist(&text).map_err(|p| TopologyError::parse(&path, p))?;
                    for cpu in list {
                        if let Ok(pos) = cpus.binary_search(&cpu) {
                            infos[pos].node.get_or_insert(node);
                        }
                    }
                }
            }
            // No NUMA information: one node holds every CPU.
            Err(TopologyError::Read { source, .. }) if source.kind() == io::ErrorKind::NotFound => {
                infos.iter_mut().for_each(|i| i.node = Some(0));
            }
            Err(e) => return Err(e),
        }
        Ok(Topology::build(cpus, infos))
    }

    /// Reads the topology of this machine from `/sys/devices/system`; if that fails, a flat machine
    /// of [`std::thread::available_parallelism`] CPUs, with a [`note`](Topology::note) saying
    /// why.
    pub fn detect() -> Topology {
        match Topology::from_sysfs(Path::new(SYSFS_ROOT)) {
            Ok(t) => t,
            Err(e) => {
                let n = std::thread::available_parallelism().map_or(1, |n| n.get());
                let mut t = Topology::flat(n);
                t.note = Some(format!("{e}; assuming a flat machine of {n} CPUs"));
                t
            }
        }
    }

    /// A machine of CPUs `0..n` (at least one) sharing nothing but the machine: one level, one
    /// package, one NUMA node.
    pub fn flat(n: usize) -> Topology {
        let infos = (0..n.max(1))
            .map(|cpu| CpuInfo {
                package: 0,
                core: Key::Id(0, cpu as i64),
                l2: None,
                l3: None,
                node: Some(0),
            })
            .collect();
        Topology::build((0..n.max(1)).collect(), infos)
    }

    fn build(cpus: Vec<usize>, infos: Vec<CpuInfo>) -> Topology {
        let n = cpus.len();
        let mut pos = vec![usize::MAX; cpus.last().map_or(0, |&c| c + 1)];
        for (i, &cpu) in cpus.iter().enumerate() {
            pos[cpu] = i;
        }
        let package: Vec<i64> = infos.iter().map(|i| i.package).collect();
        let node: Vec<Option<usize>> = infos.iter().map(|i| i.node).collect();
        let mut raw: Vec<(LevelKind, Vec<usize>)> = vec![
            (
                LevelKind::Core,
                partition(infos.iter().map(|i| Some(i.core.clone()))),
            ),
            (LevelKind::L2, partition(infos.iter().map(|i| i.l2.clone()))),
            (LevelKind::L3, partition(infos.iter().map(|i| i.l3.clone()))),
            (
                LevelKind::Package,
                partition(infos.iter().map(|i| Some(Key::Id(i.package, 0)))),
            ),
            (
                LevelKind::Node,
                partition(infos.iter().map(|i| i.node.map(|nd| Key::Id(nd as i64, 0)))),
            ),
            (LevelKind::Machine, vec![0; n]),
        ];
        // Finest first (stable: the nominal order breaks ties), so that merging each level with
        // the ones below always yields a tree even where sysfs levels do not nest.
        raw.sort_by_key(|(_, ids)| std::cmp::Reverse(count_groups(ids)));

        let mut levels: Vec<Level> = Vec::new();
        let mut prev: Vec<usize> = (0..n).collect();
        for (kind, ids) in raw {
            let ids = join(&prev, &ids);
            if ids == prev {
                match levels.last_mut() {
                    Some(level) => level.kinds.push(kind),
                    // Splits nothing below the single CPUs; but a one-CPU machine keeps its
                    // machine level so that every topology has one.
                    None if kind == LevelKind::Machine => {
                        levels.push(Level::new(vec![kind], ids, &cpus))
                    }
                    None => {}
                }
                continue;
            }
            levels.push(Level::new(vec![kind], ids.clone(), &cpus));
            prev = ids;
        }

        // Compact order: by group from the top level down, then by CPU number.
        let mut order: Vec<usize> = (0..n).collect();
        order.sort_by(|&a, &b| {
            levels
                .iter()
                .rev()
                .map(|l| l.ids[a].cmp(&l.ids[b]))
                .find(|o| o.is_ne())
                .unwrap_or(a.cmp(&b))
        });
        let order = order.into_iter().map(|p| cpus[p]).collect();
        Topology {
            cpus,
            pos,
            levels,
            package,
            node,
            order,
            note: None,
        }
    }

    /// The online CPUs, ascending.
    pub fn cpus(&self) -> &[usize] {
        &self.cpus
    }

    /// Whether `cpu` is one of the topology's (online) CPUs.
    pub fn contains(&self, cpu: usize) -> bool {
        self.position(cpu).is_some()
    }

    fn position(&self, cpu: usize) -> Option<usize> {
        self.pos.get(cpu).copied().filter(|&p| p != usize::MAX)
    }

    /// The levels, nearest first: `levels()[d - 1]` is the level at distance `d`. The last is
    /// always the whole machine (one group).
    pub fn levels(&self) -> &[Level] {
        &self.levels
    }

    /// The largest distance between two CPUs: the number of levels (at least 1).
    pub fn max_distance(&self) -> usize {
        self.levels.len()
    }

    /// The distance between two CPUs: 0 for a CPU and itself, otherwise the number (from 1) of
    /// the lowest level at which they share a group. A CPU that is not in the topology is at
    /// [`max_distance`](Topology::max_distance) from every other CPU.
    pub fn distance(&self, cpu_a: usize, cpu_b: usize) -> usize {
        if cpu_a == cpu_b {
            return 0;
        }
        match (self.position(cpu_a), self.position(cpu_b)) {
            (Some(a), Some(b)) => self
                .levels
                .iter()
                .position(|l| l.ids[a] == l.ids[b])
                .map_or(self.max_distance(), |i| i + 1),
            _ => self.max_distance(),
        }
    }

    /// The group of `cpu` at the level at distance `distance` (`1..=max_distance()`), as an
    /// index into that level's [`groups`](Level::groups); `None` for a CPU not in the topology
    /// or a distance out of range.
    pub fn group(&self, distance: usize, cpu: usize) -> Option<usize> {
        let level = self.levels.get(distance.checked_sub(1)?)?;
        Some(level.ids[self.position(cpu)?])
    }

    /// The `physical_package_id` of `cpu` (`None` if it is not in the topology; Linux writes
    /// -1 where the package is unknown).
    pub fn package(&self, cpu: usize) -> Option<i64> {
        Some(self.package[self.position(cpu)?])
    }

    /// The NUMA node of `cpu` (`None` if it is not in the topology or in no node).
    pub fn node(&self, cpu: usize) -> Option<usize> {
        self.node[self.position(cpu)?]
    }

    /// All CPUs in compact order: sorted by their group at each level from the top down, so
    /// that neighbours (SMT siblings, then the CPUs sharing an L2, an L3, …) come together.
    pub fn compact_order(&self) -> &[usize] {
        &self.order
    }

    /// The CPU for each of `n` workers: the process's allowed CPUs (its affinity mask) in
    /// [compact order](Topology::compact_order), wrapping around when there are more workers
    /// than CPUs.
    pub fn worker_cpus(&self, n: usize) -> Vec<usize> {
        match allowed_cpus() {
            Some(allowed) => self.worker_cpus_within(n, &allowed),
            None => self.worker_cpus_within(n, &self.cpus),
        }
    }

    /// The CPU for each of `n` workers: the CPUs of `allowed` in
    /// [compact order](Topology::compact_order), wrapping around when there are more workers
    /// than CPUs. When none of `allowed` is in the topology, all of its CPUs are used.
    pub fn worker_cpus_within(&self, n: usize, allowed: &[usize]) -> Vec<usize> {
        let mut usable: Vec<usize> = self
            .order
            .iter()
            .copied()
            .filter(|c| allowed.contains(c))
            .collect();
        if usable.is_empty() {
            usable = self.order.clone();
        }
        (0..n).map(|i| usable[i % usable.len()]).collect()
    }

    /// Why this is not the machine's real topology (set by [`Topology::detect`] when it fell
    /// back to a flat machine).
    pub fn note(&self) -> Option<&str> {
        self.note.as_deref()
    }
}

impl fmt::Display for Topology {
    /// One line: `16 CPUs; distance 1: core (8 groups), 2: L3=package=node (2 groups), …`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} CPUs", self.cpus.len())?;
        for (i, level) in self.levels.iter().enumerate() {
            let kinds: Vec<&str> = level.kinds.iter().map(|k| k.name()).collect();
            let n = level.num_groups();
            write!(
                f,
                "{} {}: {} ({n} group{})",
                if i == 0 { "; distance" } else { "," },
                i + 1,
                kinds.join("="),
                if n == 1 { "" } else { "s" }
            )?;
        }
        if let Some(note) = &self.note {
            write!(f, " ({note})")?;
        }
        Ok(())
    }
}

/// The CPUs the calling process may run on (its main thread's affinity mask, so that a pool
/// built from a pinned worker thread still spreads over the whole set); `None` if it cannot be
/// read.
pub fn allowed_cpus() -> Option<Vec<usize>> {
    #[cfg(any(target_os = "linux", target_os = "android"))]
    {
        // Grow the mask until the kernel accepts its size (it refuses masks smaller than its
        // number of possible CPUs).
        let mut words = std::mem::size_of::<libc::cpu_set_t>() / 8;
        while words * 64 <= MAX_CPU {
            let mut mask = vec![0u64; words];
            // SAFETY: `getpid` has no preconditions.
            let pid = unsafe { libc::getpid() };
            // SAFETY: `mask` is a writable, 8-byte aligned buffer of `words * 8` bytes, the size
            // passed; the kernel writes at most that many bytes. `cpu_set_t` is itself an
            // array of 64-bit words, so the pointer cast matches its layout for this size.
            let rc = unsafe {
                libc::sched_getaffinity(pid, words * 8, mask.as_mut_ptr().cast::<libc::cpu_set_t>())
            };
            if rc == 0 {
                let cpus: Vec<usize> = (0..words * 64)
                    .filter(|&c| mask[c / 64] & (1u64 << (c % 64)) != 0)
                    .collect();
                return (!cpus.is_empty()).then_some(cpus);
            }
            if io::Error::last_os_error().raw_os_error() != Some(libc::EINVAL) {
                return None;
            }
            words *= 2;
        }
        None
    }
    #[cfg(not(any(target_os = "linux", target_os = "android")))]
    {
        None
    }
}

/// Parses a Linux cpulist such as `0-3,8-11` (or an empty list) into ascending CPU numbers.
pub fn parse_cpulist(text: &str) -> Result<Vec<usize>, String> {
    let text = text.trim();
    let mut cpus = Vec::new();
    if text.is_empty() {
        return Ok(cpus);
    }
    let number = |s: &str| -> Result<usize, String> {
        match s.trim().parse::<usize>() {
            Ok(c) if c <= MAX_CPU => Ok(c),
            Ok(c) => Err(format!("CPU number {c} is implausibly large")),
            Err(_) => Err(format!("{s:?} is not a CPU number")),
        }
    };
    for item in text.split(',') {
        let (lo, hi) = match item.split_once('-') {
            Some((lo, hi)) => (number(lo)?, number(hi)?),
            None => {
                let c = number(item)?;
                (c, c)
            }
        };
        if lo > hi {
            return Err(format!("range {item:?} runs backwards"));
        }
        cpus.extend(lo..=hi);
    }
    cpus.sort_unstable();
    cpus.dedup();
    Ok(cpus)
}

/// A file's contents, or `None` if it does not exist.
fn read_optional(path: &Path) -> Result<Option<String>, TopologyError> {
    match fs::read_to_string(path) {
        Ok(s) => Ok(Some(s)),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
        Err(source) => Err(TopologyError::Read {
            path: path.to_path_buf(),
            source,
        }),
    }
}

fn read_required(path: &Path) -> Result<String, TopologyError> {
    fs::read_to_string(path).map_err(|source| TopologyError::Read {
        path: path.to_path_buf(),
        source,
    })
}

fn read_int(path: &Path) -> Result<i64, TopologyError> {
    let text = read_required(path)?;
    text.trim()
        .parse()
        .map_err(|_| TopologyError::parse(path, format!("{:?} is not an integer", text.trim())))
}

fn read_cpulist_optional(path: &Path) -> Result<Option<Vec<usize>>, TopologyError> {
    match read_optional(path)? {
        None => Ok(None),
        Some(text) => parse_cpulist(&text)
            .map(Some)
            .map_err(|p| TopologyError::parse(path, p)),
    }
}

/// The numbers `N` of the entries named `{prefix}N` in `dir`, ascending.
fn list_numbered(dir: &Path, prefix: &str) -> Result<Vec<usize>, TopologyError> {
    let read_err = |source| TopologyError::Read {
        path: dir.to_path_buf(),
        source,
    };
    let mut found = Vec::new();
    for entry in fs::read_dir(dir).map_err(read_err)? {
        let name = entry.map_err(read_err)?.file_name();
        let Some(rest) = name.to_str().and_then(|n| n.strip_prefix(prefix)) else {
            continue;
        };
        if !rest.is_empty() && rest.bytes().all(|b| b.is_ascii_digit()) {
            if let Ok(n) = rest.parse::<usize>() {
                if n <= MAX_CPU {
                    found.push(n);
                }
            }
        }
    }
    found.sort_unstable();
    Ok(found)
}

/// The CPUs sharing one cache, if there is such a cache.
type SharedCpus = Option<Vec<usize>>;

/// The CPUs sharing the level-2 and level-3 data or unified caches of a CPU, from its `cache`
/// directory (`None` where there is no such cache).
fn read_caches(dir: &Path) -> Result<(SharedCpus, SharedCpus), TopologyError> {
    let indices = match list_numbered(dir, "index") {
        Ok(i) => i,
        Err(TopologyError::Read { source, .. }) if source.kind() == io::ErrorKind::NotFound => {
            return Ok((None, None))
        }
        Err(e) => return Err(e),
    };
    let (mut l2, mut l3) = (None, None);
    for index in indices {
        let idx = dir.join(format!("index{index}"));
        let level = read_int(&idx.join("level"))?;
        let type_path = idx.join("type");
        let kind = read_required(&type_path)?;
        match kind.trim() {
            "Data" | "Unified" => {}
            "Instruction" => continue,
            other => {
                return Err(TopologyError::parse(
                    &type_path,
                    format!("{other:?} is not a cache type (Data, Instruction or Unified)"),
                ))
            }
        }
        let slot = match level {
            2 => &mut l2,
            3 => &mut l3,
            _ => continue,
        };
        if slot.is_none() {
            let path = idx.join("shared_cpu_list");
            let text = read_required(&path)?;
            *slot = Some(parse_cpulist(&text).map_err(|p| TopologyError::parse(&path, p))?);
        }
    }
    Ok((l2, l3))
}

/// Group numbers (by first appearance) for the CPUs' keys; a CPU without a key is alone.
fn partition(keys: impl Iterator<Item = Option<Key>>) -> Vec<usize> {
    let mut seen: HashMap<Key, usize> = HashMap::new();
    let mut next = 0;
    keys.map(|key| {
        let known = key.as_ref().and_then(|k| seen.get(k).copied());
        known.unwrap_or_else(|| {
            if let Some(k) = key {
                seen.insert(k, next);
            }
            next += 1;
            next - 1
        })
    })
    .collect()
}

fn count_groups(ids: &[usize]) -> usize {
    ids.iter().map(|&g| g + 1).max().unwrap_or(0)
}

/// The finest partition coarser than both `a` and `b` (CPUs together in either are together),
/// with groups numbered by first appearance.
fn join(a: &[usize], b: &[usize]) -> Vec<usize> {
    fn find(parent: &mut [usize], mut x: usize) -> usize {
        while parent[x] != x {
            parent[x] = parent[parent[x]];
            x = parent[x];
        }
        x
    }
    let n = a.len();
    let mut parent: Vec<usize> = (0..n).collect();
    for ids in [a, b] {
        let mut first: HashMap<usize, usize> = HashMap::new();
        for (pos, &g) in ids.iter().enumerate() {
            let root = *first.entry(g).or_insert(pos);
            let (x, y) = (find(&mut parent, root), find(&mut parent, pos));
            parent[x.max(y)] = x.min(y);
        }
    }
    let roots: Vec<usize> = (0..n).map(|p| find(&mut parent, p)).collect();
    partition(roots.into_iter().map(|r| Some(Key::Id(r as i64, 0))))
}

/// The topology and CPU set a topology-aware victim policy places its workers over, with the
/// parameters they share: `sysfs=PATH` (read another sysfs root instead of detecting this
/// machine) and `pin=BOOL` (pin the workers, default true).
#[derive(Debug, Clone)]
pub(crate) struct Placement {
    pub(crate) topology: Arc<Topology>,
    /// The CPUs to place over (`None`: all of the topology's).
    allowed: Option<Arc<[usize]>>,
    pub(crate) pin: bool,
}

impl Placement {
    /// Places over all of `topology`'s CPUs, pinning.
    pub(crate) fn new(topology: Topology) -> Placement {
        Placement {
            topology: Arc::new(topology),
            allowed: None,
            pin: true,
        }
    }

    /// Reads `sysfs` and `pin` from `spec`; places over the process's allowed CPUs.
    pub(crate) fn from_spec(spec: &mut PolicySpec) -> Result<Placement, SpecError> {
        let root = spec.string("sysfs", "");
        let pin = spec.flag("pin", true)?;
        let topology = if root.is_empty() {
            Topology::detect()
        } else {
            Topology::from_sysfs(Path::new(&root)).map_err(|e| {
                SpecError::new(format!("{}: parameter sysfs={root:?}: {e}", spec.name()))
            })?
        };
        let mut placement = Placement::new(topology);
        placement.allowed = allowed_cpus().map(Arc::from);
        placement.pin = pin;
        Ok(placement)
    }

    pub(crate) fn restrict_to(&mut self, cpus: &[usize]) {
        self.allowed = Some(Arc::from(cpus));
    }

    /// The CPU of each of `n` workers.
    pub(crate) fn worker_cpus(&self, n: usize) -> Vec<usize> {
        match &self.allowed {
            Some(allowed) => self.topology.worker_cpus_within(n, allowed),
            None => self.topology.worker_cpus_within(n, self.topology.cpus()),
        }
    }

    /// What [`VictimPolicy::placement`](super::victim::VictimPolicy::placement) returns.
    pub(crate) fn placement(&self, n: usize) -> Option<Vec<usize>> {
        self.pin.then(|| self.worker_cpus(n))
    }
}

/// Helpers for tests: the recorded fixtures and temporary sysfs trees.
#[cfg(test)]
pub(crate) mod test_support {
    use super::Topology;
    use std::path::{Path, PathBuf};
    use std::sync::atomic::{AtomicUsize, Ordering};

    /// The root of a recorded fixture under `tests/data/sysfs`.
    pub(crate) fn fixture_root(name: &str) -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/data/sysfs")
            .join(name)
    }

    /// The topology of a recorded fixture.
    pub(crate) fn fixture(name: &str) -> Topology {
        Topology::from_sysfs(&fixture_root(name)).unwrap()
    }

    /// A sysfs tree in a temporary directory, removed on drop.
    pub(crate) struct TempSysfs {
        pub(crate) root: PathBuf,
    }

    impl TempSysfs {
        pub(crate) fn new() -> TempSysfs {
            static NEXT: AtomicUsize = AtomicUsize::new(0);
            let root = std::env::temp_dir().join(format!(
                "magpie-sysfs-{}-{}",
                std::process::id(),
                NEXT.fetch_add(1, Ordering::Relaxed)
            ));
            let _ = std::fs::remove_dir_all(&root);
            std::fs::create_dir_all(&root).unwrap();
            TempSysfs { root }
        }

        /// Writes `contents` (and a newline, as sysfs does) to `rel`.
        pub(crate) fn write(&self, rel: &str, contents: &str) -> &Self {
            let path = self.root.join(rel);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, format!("{contents}\n")).unwrap();
            self
        }

        /// Writes a CPU's package, core (as `core_id`) and L2/L3 sharing lists.
        pub(crate) fn cpu(
            &self,
            cpu: usize,
            package: i64,
            core_id: usize,
            l2: Option<&str>,
            l3: Option<&str>,
        ) -> &Self {
            let d = format!("cpu/cpu{cpu}");
            self.write(
                &format!("{d}/topology/physical_package_id"),
                &package.to_string(),
            );
            self.write(&format!("{d}/topology/core_id"), &core_id.to_string());
            for (i, (level, list)) in [(2, l2), (3, l3)].into_iter().enumerate() {
                if let Some(list) = list {
                    let idx = format!("{d}/cache/index{i}");
                    self.write(&format!("{idx}/level"), &level.to_string());
                    self.write(&format!("{idx}/type"), "Unified");
                    self.write(&format!("{idx}/shared_cpu_list"), list);
                }
            }
            self
        }

        pub(crate) fn topology(&self) -> Topology {
            Topology::from_sysfs(&self.root).unwrap()
        }
    }

    impl Drop for TempSysfs {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.root);
        }
    }
}

#[cfg(test)]
mod tests;
