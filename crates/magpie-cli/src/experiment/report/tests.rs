use std::path::PathBuf;

use serde_json::Value;

use super::*;
use crate::config::Flags;
use crate::experiment::apps::App;
use crate::experiment::matrix::{self, Matrix, Peer};
use crate::experiment::runner::LeftOut;

fn app(tokens: &[&str]) -> App {
    App::parse(&tokens.iter().map(|t| t.to_string()).collect::<Vec<_>>()).unwrap()
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() < 1e-9
}

/// fib (no schedule) and dist (a loop) under idle park,yield × schedules static,gss on
/// one worker, with the rayon peer (which has fib only). Two runs per pair, of mean
/// times chosen so that every relative and aggregated value is known.
fn experiment_of(fib: [f64; 3], dist: [f64; 4], check: impl FnOnce(&Experiment)) {
    let flags = Flags {
        workers: Some("1".into()),
        idle: Some("park,yield".into()),
        ..Flags::default()
    };
    let schedules = matrix::split_schedules("--schedule", "static,gss").unwrap();
    let m = Matrix::resolve(&flags, &[Peer::Rayon], &schedules, &|_| None).unwrap();
    let plan = Plan {
        exe: PathBuf::new(),
        apps: vec![app(&["fib", "--n", "10"]), app(&["dist"])],
        setups: m.setups,
        runs: 2,
        instances: 1,
        background: None,
        left_out: vec![LeftOut {
            app: 1,
            peer: "rayon",
            reason: "no rayon dist".into(),
        }],
    };
    // Setups: park static, park gss, yield static, yield gss, rayon.
    let runs_on: Vec<Vec<bool>> = (0..2)
        .map(|a| (0..5).map(|s| plan.runs_on(a, s)).collect())
        .collect();
    assert_eq!(runs_on[0], [true, false, true, false, true]);
    assert_eq!(runs_on[1], [true, true, true, true, false]);
    assert_eq!(
        (0..5).map(|s| plan.row_setup(0, s)).collect::<Vec<_>>(),
        [0, 0, 2, 2, 4]
    );
    let runs = |mean: f64| -> Vec<Vec<Measurement>> {
        [mean - 0.1, mean + 0.1]
            .iter()
            .map(|&seconds| {
                vec![Measurement {
                    seconds,
                    answer: "a".into(),
                    check: "c".into(),
                    counters: None,
                    loop_stats: None,
                }]
            })
            .collect()
    };
    let mut measured = vec![vec![Vec::new(); 5]; 2];
    for (s, t) in [0, 2, 4].into_iter().zip(fib) {
        measured[0][s] = runs(t);
    }
    for (s, t) in (0..4).zip(dist) {
        measured[1][s] = runs(t);
    }
    let results = Results {
        measured,
        background_ran_throughout: None,
        status: Status::Complete,
        runs_done: 0,
    };
    check(&Experiment::new(&plan, &m.lists, &results));
}

#[test]
fn an_app_without_a_schedule_has_one_row_per_other_configuration() {
    experiment_of([1.0, 2.0, 3.0], [1.0, 3.0, 2.0, 2.0], |e| {
        let rows: Vec<(usize, usize, bool)> = e
            .rows
            .iter()
            .map(|r| (r.app, r.setup, r.baseline))
            .collect();
        assert_eq!(
            rows,
            [
                (0, 0, true),
                (0, 2, false),
                (0, 4, false),
                (1, 0, true),
                (1, 1, false),
                (1, 2, false),
                (1, 3, false),
            ]
        );
        let rel: Vec<f64> = e.rows.iter().map(|r| r.relative).collect();
        // fib's rows against each other (mean 2), dist's against each other (mean 2).
        for (got, want) in rel.iter().zip([0.5, 1.0, 1.5, 0.5, 1.5, 1.0, 1.0]) {
            assert!(close(*got, want), "{rel:?}");
        }
        assert!(e.rows.iter().all(|r| r.baseline || r.welch.is_some()));
        // Per setup: fib's row of the same idle policy counts in both schedules.
        for (got, want) in e.aggregated.iter().zip([0.5, 1.0, 1.0, 1.0, 1.5]) {
            assert!(close(*got, want), "{:?}", e.aggregated);
        }
        let agg: Vec<f64> = e.rows.iter().map(|r| r.aggregated).collect();
        for (got, want) in agg.iter().zip([0.75, 1.0, 1.5, 0.5, 1.0, 1.0, 1.0]) {
            assert!(close(*got, want), "{agg:?}");
        }
        let json = serde_json::to_value(e.json()).unwrap();
        assert_eq!(json["schedules"], serde_json::json!(["static", "gss"]));
        assert_eq!(json["schedule_apps"], serde_json::json!(["dist"]));
        let schedules: Vec<&Value> = json["rows"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r.get("schedule").unwrap_or(&Value::Null))
            .collect();
        assert_eq!(
            schedules,
            [
                &Value::Null,
                &Value::Null,
                &Value::Null,
                &"static".into(),
                &"gss".into(),
                &"static".into(),
                &"gss".into()
            ]
        );
        let mut table = Vec::new();
        e.table(&mut table).unwrap();
        let table = String::from_utf8(table).unwrap();
        assert!(
            table.contains("(takes no schedule: one row per configuration of the other settings, run once for all 2 schedules)"),
            "{table}"
        );
        assert_eq!(table.matches("takes no schedule").count(), 1, "{table}");
        let mut csv = Vec::new();
        e.csv(&mut csv).unwrap();
        let csv = String::from_utf8(csv).unwrap();
        assert_eq!(csv.lines().count(), 1 + 7, "{csv}");
    });
}
