//! Every kind of picture, drawn from small inputs written here, decoded and checked: its
//! size and the colours it must (and must not) hold. With `MAGPIE_PLOT_KEEP=DIR` the
//! pictures are also copied into DIR, to look at.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use magpie_measure::plot::{
    self, Data, Kind, RGBColor, Runs, Size, IDLE, INCUMBENT, PARKED, STEALING, WORKING,
};

mod samples {
    include!("data/samples.rs");
}

fn out_dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("magpie-plot-test-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn keep(path: &Path) {
    if let Ok(dir) = std::env::var("MAGPIE_PLOT_KEEP") {
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::copy(path, Path::new(&dir).join(path.file_name().unwrap())).unwrap();
    }
}

/// Decodes a PNG: (width, height, pixel count per colour).
fn decode(path: &Path) -> (u32, u32, HashMap<(u8, u8, u8), usize>) {
    let decoder = png::Decoder::new(std::fs::File::open(path).unwrap());
    let mut reader = decoder.read_info().unwrap();
    let mut buf = vec![0; reader.output_buffer_size()];
    let info = reader.next_frame(&mut buf).unwrap();
    assert_eq!(info.color_type, png::ColorType::Rgb);
    let mut counts = HashMap::new();
    for p in buf[..info.buffer_size()].chunks(3) {
        *counts.entry((p[0], p[1], p[2])).or_insert(0) += 1;
    }
    (info.width, info.height, counts)
}

fn count(counts: &HashMap<(u8, u8, u8), usize>, c: RGBColor) -> usize {
    counts.get(&(c.0, c.1, c.2)).copied().unwrap_or(0)
}

fn draw(
    text: &str,
    kind: Kind,
    name: &str,
    size: Size,
) -> (u32, u32, HashMap<(u8, u8, u8), usize>) {
    let data = Data::parse(text).unwrap();
    let path = out_dir(name).join(name);
    plot::draw(&data, kind, &path, size).unwrap();
    keep(&path);
    decode(&path)
}

/// [`draw`] at the picture's default size.
fn draw_default(text: &str, kind: Kind, name: &str) -> (u32, u32, HashMap<(u8, u8, u8), usize>) {
    draw(text, kind, name, Size::default())
}

const FIXED: Size = Size {
    width: Some(900),
    height: Some(500),
};

#[test]
fn a_trace_of_working_spans_only_is_green_without_orange() {
    let (w, h, c) = draw(
        &samples::working_only(),
        Kind::Timeline,
        "working-only.png",
        FIXED,
    );
    assert_eq!((w, h), (900, 500));
    assert!(
        count(&c, WORKING) > 10_000,
        "green pixels: {}",
        count(&c, WORKING)
    );
    assert_eq!(count(&c, STEALING), 0);
    assert_eq!(count(&c, PARKED), 0);
}

#[test]
fn an_empty_trace_draws_empty_rows() {
    // No event at all: no row, one empty band. Workers named by otherData: their rows.
    let (w, h, c) = draw_default("{\"traceEvents\":[]}", Kind::Timeline, "empty.png");
    assert_eq!((w, h), (1200, 300));
    assert_eq!(count(&c, WORKING), 0);
    let named = "{\"traceEvents\":[],\"otherData\":{\"workers\":12,\"ranks\":1}}";
    let Data::Trace(t) = Data::parse(named).unwrap() else {
        panic!("a trace")
    };
    assert_eq!(t.rows.len(), 12);
    let (_, h, c) = draw_default(named, Kind::Utilisation, "empty-u.png");
    assert_eq!(h, 500);
    assert_eq!(count(&c, WORKING) + count(&c, PARKED), 0);
    // 130 + 26 × 12 pixels high.
    let (_, h, _) = draw_default(named, Kind::Timeline, "empty12.png");
    assert_eq!(h, 442);
}

#[test]
fn the_timeline_has_every_state_colour_of_the_trace() {
    let (w, h, c) = draw_default(&samples::search_trace(), Kind::Timeline, "timeline.png");
    // The default: 1200 wide, 130 + 26 per row (4 workers) but at least 300 high.
    assert_eq!((w, h), (1200, 300));
    for (name, colour) in [
        ("working", WORKING),
        ("stealing", STEALING),
        ("idle", IDLE),
        ("parked", PARKED),
    ] {
        assert!(
            count(&c, colour) > 200,
            "{name}: {} pixels",
            count(&c, colour)
        );
    }
}

#[test]
fn utilisation_stacks_the_states() {
    let (w, h, c) = draw_default(
        &samples::search_trace(),
        Kind::Utilisation,
        "utilisation.png",
    );
    assert_eq!((w, h), (1200, 500));
    for colour in [WORKING, STEALING, IDLE, PARKED] {
        assert!(count(&c, colour) > 200);
    }
    // Two workers, one working throughout and one parked throughout: half green, half blue.
    let (_, _, c) = draw(
        &samples::half_parked(),
        Kind::Utilisation,
        "half.png",
        FIXED,
    );
    let (g, b) = (count(&c, WORKING) as f64, count(&c, PARKED) as f64);
    assert!(
        g > 10_000.0 && (g / b - 1.0).abs() < 0.05,
        "green {g}, blue {b}"
    );
    assert_eq!(count(&c, STEALING), 0);
}

#[test]
fn the_gantt_chart_colours_chunks_by_size() {
    let (w, h, c) = draw_default(&samples::loop_trace(), Kind::Gantt, "gantt.png");
    assert_eq!((w, h), (1200, 300));
    // The largest chunk is yellow, the smallest dark purple (viridis' ends).
    assert!(count(&c, RGBColor(253, 231, 37)) > 100);
    assert!(count(&c, RGBColor(68, 1, 84)) > 20);
    // A trace without chunks has no Gantt chart.
    let data = Data::parse(&samples::search_trace()).unwrap();
    let e = plot::draw(&data, Kind::Gantt, &out_dir("g").join("x.png"), FIXED).unwrap_err();
    assert!(e.contains("no `chunk` spans"), "{e}");
}

#[test]
fn the_incumbent_curve_is_red() {
    let (w, h, c) = draw_default(&samples::incumbents(), Kind::Incumbent, "incumbent.png");
    assert_eq!((w, h), (1000, 600));
    assert!(count(&c, INCUMBENT) > 500, "red: {}", count(&c, INCUMBENT));
    // An empty log draws empty axes.
    let (_, _, c) = draw("", Kind::Incumbent, "incumbent-empty.png", FIXED);
    assert_eq!(count(&c, INCUMBENT), 0);
}

#[test]
fn box_plots_and_speedup_of_a_benchmark_report() {
    let text = samples::forkjoin_json();
    let (w, h, c) = draw_default(&text, Kind::Runtimes, "runtimes.png");
    // Two kernels of 5 rows: 2 × (96 + 5 × 26).
    assert_eq!((w, h), (1100, 452));
    // The first configuration's colour (the palette's first).
    assert!(count(&c, RGBColor(0x94, 0x67, 0xbd)) > 100);
    let (w, h, c) = draw_default(&text, Kind::Speedup, "speedup.png");
    assert_eq!((w, h), (1200, 480));
    assert!(count(&c, RGBColor(0xe3, 0x77, 0xc2)) > 100);
}

#[test]
fn an_experiment_report_draws_through_write_run_pictures() {
    let v: serde_json::Value = serde_json::from_str(&samples::experiment_json()).unwrap();
    let runs = Runs::from_value(&v).unwrap();
    let dir = out_dir("exp");
    let written = plot::write_run_pictures(&runs, &dir).unwrap();
    assert_eq!(written, [dir.join("runtimes.png"), dir.join("speedup.png")]);
    for p in &written {
        keep(p);
        let (w, _, _) = decode(p);
        assert!(w >= 800);
    }
    // One worker count: no speedup picture.
    let one: Runs = Runs {
        samples: runs
            .samples
            .iter()
            .filter(|s| s.workers == 1)
            .cloned()
            .collect(),
        ..runs
    };
    let dir = out_dir("exp1");
    assert_eq!(
        plot::write_run_pictures(&one, &dir).unwrap(),
        [dir.join("runtimes.png")]
    );
}

/// The runs of a report sample, parsed as `magpie plot` parses its file.
fn runs_of(text: &str) -> Runs {
    match Data::parse(text).unwrap() {
        Data::Runs(r) => r,
        other => panic!("not a run-time report: {}", other.what()),
    }
}

#[test]
fn a_search_report_draws_its_contenders_and_the_speedup_against_the_hand_written_solver() {
    let text = samples::search_json();
    let r = runs_of(&text);
    assert_eq!(r.source, "magpie-bench search");
    // The ratio and ERROR rows have no run times: left out.
    assert_eq!(r.samples.len(), 8);
    assert_eq!(
        r.panels(),
        ["overhead nqueens n = 11", "speedup uts T1 at depth 7"]
    );
    let curves = r.speedups();
    assert_eq!(curves.len(), 1);
    assert_eq!(curves[0].config, "budget:10000");
    assert_eq!(curves[0].points, [(1, 0.155 / 0.170), (2, 0.155 / 0.091)]);
    let data = Data::parse(&text).unwrap();
    assert_eq!(data.kinds(), [Kind::Runtimes, Kind::Speedup]);
    let (w, h, c) = draw_default(&text, Kind::Runtimes, "search-runtimes.png");
    // 96 + 3 × 26 and 96 + 5 × 26 pixels high.
    assert_eq!((w, h), (1100, 400));
    // plain's colour (the palette's first) and uts::count's (the seventh).
    assert!(count(&c, RGBColor(0x94, 0x67, 0xbd)) > 100);
    assert!(count(&c, RGBColor(0xff, 0x7f, 0x0e)) > 100);
    let (w, h, c) = draw_default(&text, Kind::Speedup, "search-speedup.png");
    assert_eq!((w, h), (800, 480));
    // budget:10000's curve (the palette's sixth colour).
    assert!(count(&c, RGBColor(0x1f, 0x77, 0xb4)) > 100);
}

#[test]
fn a_distributed_report_draws_its_time_rows_and_the_loops_over_ranks() {
    let text = samples::distributed_json();
    let r = runs_of(&text);
    assert_eq!(r.source, "magpie-bench distributed");
    assert_eq!(
        r.panels(),
        [
            "overhead uts-d7",
            "policies ns-20 (isolated)",
            "loops exponential"
        ]
    );
    let labels: Vec<String> = r.samples.iter().map(|s| s.label()).collect();
    assert_eq!(
        labels,
        [
            "2×1",
            "1×2",
            "random 4×1",
            "sticky 4×1",
            "perf 4×1",
            "steal 2×1",
            "share 2×1",
            "steal 4×1",
            "share 4×1"
        ]
    );
    // No 1-rank run: each loop contender against itself at 2 ranks.
    let curves = r.speedups();
    let points: Vec<_> = curves.iter().map(|c| (c.base, c.points.clone())).collect();
    assert_eq!(
        points,
        [
            (2, vec![(2, 1.0), (4, 0.80 / 0.46)]),
            (2, vec![(2, 1.0), (4, 0.86 / 0.55)])
        ]
    );
    let (w, h, c) = draw_default(&text, Kind::Runtimes, "dist-runtimes.png");
    // 3 × 96 + 9 × 26 pixels high.
    assert_eq!((w, h), (1100, 522));
    assert!(count(&c, RGBColor(0x94, 0x67, 0xbd)) > 100);
    let (w, h, c) = draw_default(&text, Kind::Speedup, "dist-speedup.png");
    assert_eq!((w, h), (800, 480));
    // steal and share: the palette's sixth and seventh colours.
    assert!(count(&c, RGBColor(0x1f, 0x77, 0xb4)) > 100);
    assert!(count(&c, RGBColor(0xff, 0x7f, 0x0e)) > 100);
}

/// `data/distributed-quick.json` is the output of a real `magpie-bench distributed --quick
/// --json` (debug builds, Open MPI, 2 cores; 22 time rows, 5 ratios, 8 comparisons).
#[test]
fn a_captured_distributed_report_draws() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/distributed-quick.json");
    let text = std::fs::read_to_string(path).unwrap();
    let r = runs_of(&text);
    assert_eq!(r.samples.len(), 22);
    assert_eq!(r.panels().len(), 8);
    assert!(r.samples.iter().all(|s| s.times.len() == 2));
    // The loops ran at 2 and 4 ranks: steal and share, relative to 2.
    let curves = r.speedups();
    let what: Vec<(&str, &str, usize)> = curves
        .iter()
        .map(|c| (c.panel.as_str(), c.config.as_str(), c.base))
        .collect();
    assert_eq!(
        what,
        [
            ("loops exponential", "steal", 2),
            ("loops exponential", "share", 2)
        ]
    );
    // 8 × 96 + 22 × 26 pixels high.
    let (w, h, _) = draw_default(&text, Kind::Runtimes, "dist-quick-runtimes.png");
    assert_eq!((w, h), (1100, 1340));
    let (w, h, _) = draw_default(&text, Kind::Speedup, "dist-quick-speedup.png");
    assert_eq!((w, h), (800, 480));
}

#[test]
fn svg_pictures_name_their_size_and_colours() {
    let data = Data::parse(&samples::search_trace()).unwrap();
    let path = out_dir("svg").join("timeline.svg");
    plot::draw(&data, Kind::Timeline, &path, FIXED).unwrap();
    let svg = std::fs::read_to_string(&path).unwrap().to_ascii_lowercase();
    assert!(
        svg.starts_with("<svg width=\"900\" height=\"500\""),
        "{}",
        &svg[..80]
    );
    assert!(svg.trim_end().ends_with("</svg>"));
    for c in ["#2ca02c", "#ff7f0e", "#c7c7c7", "#1f77b4"] {
        assert!(svg.contains(c), "{c}");
    }
    assert!(svg.contains(">\nw3\n</text>"), "the row label w3");
}

#[test]
fn bad_outputs_and_sizes_are_one_line_errors() {
    let data = Data::parse(&samples::search_trace()).unwrap();
    let dir = out_dir("bad");
    let e = plot::draw(&data, Kind::Timeline, &dir.join("x.jpg"), FIXED).unwrap_err();
    assert!(
        e.ends_with("x.jpg: the picture's name must end in .png or .svg"),
        "{e}"
    );
    let small = Size {
        width: Some(50),
        height: None,
    };
    let e = plot::draw(&data, Kind::Timeline, &dir.join("x.png"), small).unwrap_err();
    assert_eq!(e, "--width 50: expected 100 to 20000 pixels");
    let e = plot::draw(&data, Kind::Incumbent, &dir.join("x.png"), FIXED).unwrap_err();
    assert_eq!(
        e,
        "--kind incumbent: the input is a trace, which draws as timeline, utilisation"
    );
}

/// The sample files of `crates/magpie-measure/tests/data/` (the inputs of the pictures in
/// `docs/pictures/`, for `magpie plot`) are the samples above, byte for byte. After a change
/// to `data/samples.rs`, rewrite them with `MAGPIE_WRITE_SAMPLES=1 cargo test -p
/// magpie-measure --test plot sample_files`.
#[test]
fn sample_files_are_the_samples() {
    let data = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data");
    for (name, content) in [
        ("search-trace.json", samples::search_trace()),
        ("loop-trace.json", samples::loop_trace()),
        ("incumbents.jsonl", samples::incumbents()),
        ("forkjoin.json", samples::forkjoin_json()),
        ("experiment.json", samples::experiment_json()),
        ("search.json", samples::search_json()),
        ("distributed.json", samples::distributed_json()),
    ] {
        let path = data.join(name);
        if std::env::var_os("MAGPIE_WRITE_SAMPLES").is_some() {
            std::fs::write(&path, &content).unwrap();
        }
        let file = std::fs::read_to_string(&path).unwrap_or_default();
        assert!(
            file == content,
            "{} differs from its sample: rewrite it (see this test's comment)",
            path.display()
        );
        // And it parses as what it is.
        Data::parse(&file).unwrap();
    }
}
