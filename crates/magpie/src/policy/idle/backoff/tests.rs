//! Unit tests of the backoff idle policies: sleep sequences of failed rounds, spec parsing.

use super::*;
use crate::policy::idle::by_name;

/// The first `n` actions of failed rounds of `state`, in nanoseconds of sleep.
fn sleeps(state: &mut dyn IdleState, n: usize) -> Vec<u64> {
    (0..n)
        .map(|_| match state.on_failed_round() {
            IdleAction::Sleep(d) => d.as_nanos() as u64,
            other => panic!("expected a sleep, got {other:?}"),
        })
        .collect()
}

fn us(v: &[u64]) -> Vec<u64> {
    v.iter().map(|x| x * 1000).collect()
}

fn state_of(spec: &str) -> Box<dyn IdleState> {
    by_name(spec).unwrap().state(0)
}

fn spec_error(spec: &str) -> String {
    by_name(spec).unwrap_err().to_string()
}

#[test]
fn non_sleeping_policies() {
    for (name, steal, round) in [
        ("spin", None, IdleAction::Spin),
        ("yield", None, IdleAction::Yield),
        ("yield-abp", Some(IdleAction::Yield), IdleAction::Yield),
    ] {
        let p = by_name(name).unwrap();
        assert_eq!(p.name(), name);
        let mut s = p.state(3);
        for _ in 0..5 {
            assert_eq!(s.on_failed_steal(), steal, "{name}");
            assert_eq!(s.on_failed_round(), round, "{name}");
        }
        s.on_work_found();
        assert_eq!(s.on_failed_round(), round, "{name}");
        assert!(by_name(&format!("{name}:min=1us")).is_err());
    }
}

#[test]
fn every_name_builds_with_its_own_name() {
    // Every accepted name but `park` and the quanta policies (built elsewhere) is a
    // policy of this module, built under its own name: the ten of the thesis.
    let elsewhere = ["park", "dynamic-quanta", "long-short-quanta"];
    let mut built = 0;
    for &name in crate::policy::idle::NAMES {
        match build(&mut name.parse().unwrap()) {
            Some(p) => {
                assert_eq!(p.unwrap().name(), name);
                built += 1;
            }
            None => assert!(elsewhere.contains(&name), "{name}"),
        }
    }
    assert_eq!(built, 10);
}

#[test]
fn linear_sequence_caps_and_hard_resets() {
    let mut s = state_of("linear");
    let expected = us(&[
        10, 60, 110, 160, 210, 260, 310, 360, 410, 460, 500, 500, 500,
    ]);
    assert_eq!(sleeps(&mut *s, expected.len()), expected);
    // Timed backoffs never act per steal.
    assert_eq!(s.on_failed_steal(), None);
    s.on_work_found();
    assert_eq!(sleeps(&mut *s, 3), us(&[10, 60, 110]));
}

#[test]
fn linear_parameters() {
    let mut s = state_of("linear:min=0ns,step=25us,max=60us");
    assert_eq!(sleeps(&mut *s, 5), us(&[0, 25, 50, 60, 60]));
    let mut s = state_of("linear:step=0ns");
    assert_eq!(sleeps(&mut *s, 3), us(&[10, 10, 10]));
}

#[test]
fn exponential_sequence() {
    let mut s = state_of("exponential");
    // 10 µs · 1.3^k, rounded to the nanosecond, capped at 500 µs.
    let expected = [
        10_000, 13_000, 16_900, 21_970, 28_561, 37_129, 48_268, 62_749, 81_573, 106_045, 137_858,
        179_216, 232_981, 302_875, 393_738, 500_000, 500_000,
    ];
    assert_eq!(sleeps(&mut *s, expected.len()), expected);
    s.on_work_found();
    assert_eq!(sleeps(&mut *s, 2), [10_000, 13_000]);
}

#[test]
fn yewpar_sequence() {
    let mut s = state_of("yewpar");
    let expected: Vec<u64> = (0..13)
        .map(|k| (100_000u64 << k).min(500_000_000))
        .collect();
    assert_eq!(expected[12], 409_600_000);
    assert_eq!(sleeps(&mut *s, 13), expected);
    assert_eq!(sleeps(&mut *s, 2), [500_000_000, 500_000_000]);
    let mut s = state_of("yewpar:min=1ms,r=3,max=5ms");
    assert_eq!(sleeps(&mut *s, 4), us(&[1_000, 3_000, 5_000, 5_000]));
}

#[test]
fn pheet_backoff_time_doubles_to_its_cap() {
    let bts = [
        100, 200, 400, 800, 1_600, 3_200, 6_400, 12_800, 25_600, 51_200, 100_000, 100_000,
    ];
    // Not random: the sleeps are the backoff times themselves.
    let mut s = state_of("pheet:random=false");
    assert_eq!(sleeps(&mut *s, bts.len()), bts);
    // Random (the default): each sleep lies in [0, bt] for the bt before that round.
    let mut s = BackoffState::new(PheetBackoff::default(), 5);
    let mut below_half = 0;
    for _ in 0..50 {
        s.on_work_found();
        for &bt in &bts {
            assert_eq!(s.backoff_time(), Duration::from_nanos(bt));
            let IdleAction::Sleep(d) = s.on_failed_round() else {
                panic!()
            };
            assert!(d <= Duration::from_nanos(bt), "{d:?} > {bt} ns");
            below_half += usize::from(d < Duration::from_nanos(bt / 2));
        }
    }
    // Really random: neither always bt nor always tiny (600 draws, expect ~300).
    assert!((200..400).contains(&below_half), "{below_half} of 600");
}

#[test]
fn random_draws_differ_between_workers() {
    let draw = |index| {
        let mut s = BackoffState::new(
            LinearBackoff {
                random: true,
                ..LinearBackoff::default()
            },
            index,
        );
        sleeps(&mut s, 8)
    };
    assert_ne!(draw(0), draw(1));
    assert_eq!(draw(2), draw(2));
    assert!(draw(0)
        .iter()
        .zip(us(&[10, 60, 110, 160, 210, 260, 310, 360]))
        .all(|(d, bt)| *d <= bt));
}

/// `exp-linear` and `linear-exp` ([`TwoPhaseBackoff`]): the first phase up to the
/// threshold, the second up to `max`, and back to `min` when work is found.
#[test]
fn two_phase_backoffs_switch_at_their_threshold() {
    let linear_exp = [
        10_000, 35_000, 60_000, 85_000, 100_000, 130_000, 169_000, 219_700, 285_610, 371_293,
        482_681, 500_000, 500_000,
    ];
    for (spec, expected) in [
        (
            "exp-linear",
            us(&[10, 20, 40, 80, 160, 200, 250, 300, 350, 400, 450, 500, 500]),
        ),
        // A threshold off the doubling grid is slept once, exactly, then the steps start.
        (
            "exp-linear:threshold=100us,step=100us",
            us(&[10, 20, 40, 80, 100, 200, 300, 400]),
        ),
        ("linear-exp", linear_exp.to_vec()),
    ] {
        let mut s = state_of(spec);
        assert_eq!(sleeps(&mut *s, expected.len()), expected, "{spec}");
        s.on_work_found();
        assert_eq!(sleeps(&mut *s, 2), expected[..2], "{spec}");
    }
}

#[test]
fn linear_combination_weights_both_parts() {
    let mut s = state_of("linear-combination");
    // 0.75 · min(10 + 50k, 500) + 0.25 · min(10 · 1.3^k, 500) µs, to the nanosecond.
    let expected = [
        10_000, 48_250, 86_725, 125_493, 164_640, 204_282, 244_567, 285_687, 327_893, 371_511,
        409_465, 419_804, 433_245, 450_719, 473_434, 500_000, 500_000,
    ];
    assert_eq!(sleeps(&mut *s, expected.len()), expected);
    s.on_work_found();
    assert_eq!(sleeps(&mut *s, 2), [10_000, 48_250]);
    // t = 1 is the linear backoff, t = 0 the exponential one.
    let mut s = state_of("linear-combination:t=1");
    assert_eq!(sleeps(&mut *s, 3), us(&[10, 60, 110]));
    let mut s = state_of("linear-combination:t=0,r=2");
    assert_eq!(sleeps(&mut *s, 3), us(&[10, 20, 40]));
    let mut s = state_of("linear-combination:t=0.5,min=20us,max=100us,step=20us,r=1.5");
    // lin 20, 40, 60, 80, 100 ; exp 20, 30, 45, 67.5, 100 (capped)
    assert_eq!(
        sleeps(&mut *s, 6),
        [20_000, 35_000, 52_500, 73_750, 100_000, 100_000]
    );
}

#[test]
fn parameters_are_read_from_the_spec() {
    let p = LinearBackoff::from_spec(&mut "linear:step=25us".parse().unwrap()).unwrap();
    assert_eq!(
        p,
        LinearBackoff {
            step: Duration::from_micros(25),
            ..LinearBackoff::default()
        }
    );
    let p = ExpLinearBackoff::from_spec(
        &mut "exp-linear:r=3,step=1us,min=2us,threshold=3us,max=4us,random=yes"
            .parse()
            .unwrap(),
    )
    .unwrap();
    assert_eq!(
        p,
        ExpLinearBackoff {
            r: 3.0,
            step: Duration::from_micros(1),
            min: Duration::from_micros(2),
            threshold: Duration::from_micros(3),
            max: Duration::from_micros(4),
            random: true,
        }
    );
    let p = LinearCombinationBackoff::from_spec(
        &mut "linear-combination:min=1us,max=2ms".parse().unwrap(),
    )
    .unwrap();
    assert_eq!(p.linear.min, Duration::from_micros(1));
    assert_eq!(p.exponential.min, Duration::from_micros(1));
    assert_eq!(p.linear.max, Duration::from_millis(2));
    assert_eq!(p.exponential.max, Duration::from_millis(2));
    assert_eq!(p.exponential.r, 1.3);
    assert!(
        PheetBackoff::from_spec(&mut "pheet".parse().unwrap())
            .unwrap()
            .random
    );
}

#[test]
fn bad_parameters_name_policy_and_key() {
    let cases = [
        (
            "linear:min=ten",
            "linear: parameter min=\"ten\": expected a duration",
        ),
        (
            "linear:step=5",
            "linear: parameter step=\"5\": expected a duration",
        ),
        (
            "linear:min=600us",
            "linear: min=600µs must not be greater than max=500µs",
        ),
        (
            "pheet:min=1ms",
            "pheet: min=1ms must not be greater than max=100µs",
        ),
        (
            "yewpar:max=10us",
            "yewpar: min=100µs must not be greater than max=10µs",
        ),
        ("exponential:r=1", "exponential: r=1 must be greater than 1"),
        (
            "exponential:r=x",
            "exponential: parameter r=\"x\": expected a number",
        ),
        (
            "exponential:min=0us",
            "exponential: min must be greater than 0",
        ),
        (
            "pheet:random=maybe",
            "pheet: parameter random=\"maybe\": expected true or false",
        ),
        (
            "exp-linear:threshold=600us",
            "exp-linear: threshold=600µs must not be greater than max=500µs",
        ),
        (
            "exp-linear:threshold=5us",
            "exp-linear: min=10µs must not be greater than threshold=5µs",
        ),
        (
            "linear-exp:r=0.5",
            "linear-exp: r=0.5 must be greater than 1",
        ),
        (
            "linear-exp:min=0ns,threshold=0ns",
            "linear-exp: threshold must be greater than 0",
        ),
        (
            "linear-combination:t=1.5",
            "linear-combination: t=1.5 must lie in [0, 1]",
        ),
        (
            "linear-combination:t=-0.1",
            "linear-combination: t=-0.1 must lie in [0, 1]",
        ),
        (
            "linear-combination:max=1us",
            "linear-combination: min=10µs must not be greater than max=1µs",
        ),
        (
            "linear:threshold=1us",
            "linear: unknown parameter \"threshold\"",
        ),
        ("yield:r=2", "yield: unknown parameter \"r\""),
    ];
    for (spec, message) in cases {
        let e = spec_error(spec);
        assert!(e.contains(message), "{spec}: {e:?} lacks {message:?}");
    }
    // Equal bounds are fine: a constant backoff.
    let mut s = state_of("linear:min=30us,max=30us");
    assert_eq!(sleeps(&mut *s, 3), us(&[30, 30, 30]));
}

#[test]
fn unknown_names_are_left_to_others() {
    assert!(build(&mut "dynamic-quanta".parse().unwrap()).is_none());
    assert!(build(&mut "park".parse().unwrap()).is_none());
}
