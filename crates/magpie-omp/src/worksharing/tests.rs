//! Unit tests of the worksharing layer: bounds, schedules and their monotonic versions.

use super::*;

fn covered(b: Bounds) -> Vec<i128> {
    let n = b.trips();
    let (s, e) = b.values(0, n, n);
    let mut out = Vec::new();
    match b {
        Bounds::Long { incr, .. } => {
            let (mut i, e) = (s as i64, e as i64);
            while (incr > 0 && i < e) || (incr < 0 && i > e) {
                out.push(i as i128);
                i += incr;
            }
        }
        Bounds::Ull { incr, up, .. } => {
            let mut i = s;
            while (up && i < e) || (!up && i > e) {
                out.push(i as i128);
                i = i.wrapping_add(incr);
            }
        }
    }
    out
}

#[test]
fn trip_counts_and_values() {
    let l = |start, end, incr| Bounds::Long { start, end, incr };
    assert_eq!(l(0, 10, 3).trips(), 4);
    assert_eq!(covered(l(0, 10, 3)), [0, 3, 6, 9]);
    assert_eq!(l(10, -5, -7).trips(), 3);
    assert_eq!(covered(l(10, -5, -7)), [10, 3, -4]);
    assert_eq!(l(5, 5, 1).trips(), 0);
    assert_eq!(l(i64::MAX - 2, i64::MAX, 1).trips(), 2);
    let u = Bounds::Ull {
        start: (1 << 63) + 5,
        end: (1 << 63) + 1,
        incr: 2u64.wrapping_neg(),
        up: false,
    };
    assert_eq!(u.trips(), 2);
    assert_eq!(covered(u), [(1i128 << 63) + 5, (1i128 << 63) + 3]);
    // A chunk in the middle maps by its numbers; the last ends exactly at `end`.
    assert_eq!(l(0, 10, 3).values(1, 2, 4), (3, 6));
    assert_eq!(l(0, 10, 3).values(2, 4, 4), (6, 10));
}

#[test]
fn monotonic_loops_do_not_steal() {
    let (s, mono) = schedule_of(Kind::Static, 0, true);
    assert!(mono);
    assert_eq!(monotonic_version(s, 0).to_string(), "static");
    assert_eq!(
        monotonic_version("rws".parse().unwrap(), 4).to_string(),
        "static,4"
    );
    assert_eq!(
        monotonic_version("fac2".parse().unwrap(), 0).to_string(),
        "fac2"
    );
}
