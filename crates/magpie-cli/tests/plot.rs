//! Runs the built `magpie plot` on small inputs of every kind (the samples that
//! magpie-measure's picture tests draw too): the picture it writes (decoded: size and
//! colours), `--kind`, `--width`/`--height`, SVG, and bad inputs (one line `magpie: error:
//! FILE: line N: problem`, exit 2, no panic); and `magpie experiment policies --plot DIR`.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

mod common;
use common::{assert_one_line_error, magpie, text, words};

mod samples {
    include!("../../magpie-measure/tests/data/samples.rs");
}

fn dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("magpie-cli-plot-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn write(d: &Path, name: &str, content: &str) -> String {
    let p = d.join(name);
    std::fs::write(&p, content).unwrap();
    p.to_str().unwrap().to_string()
}

/// (width, height, the colours present).
fn decode(path: &Path) -> (u32, u32, HashSet<(u8, u8, u8)>) {
    let mut reader = png::Decoder::new(std::fs::File::open(path).unwrap())
        .read_info()
        .unwrap();
    let mut buf = vec![0; reader.output_buffer_size()];
    let info = reader.next_frame(&mut buf).unwrap();
    assert_eq!(info.color_type, png::ColorType::Rgb);
    let colours = buf[..info.buffer_size()]
        .chunks(3)
        .map(|p| (p[0], p[1], p[2]))
        .collect();
    (info.width, info.height, colours)
}

/// `magpie plot ARGS`: exit 0, stdout one line naming the picture; returns that line.
fn plot(args: &[&str]) -> String {
    let mut all = vec!["plot"];
    all.extend_from_slice(args);
    let out = magpie(&all, &[]);
    let stdout = text(&out.stdout);
    assert!(
        out.status.success(),
        "{all:?}: {:?}\n{}",
        out.status,
        text(&out.stderr)
    );
    assert_eq!(stdout.lines().count(), 1, "{stdout}");
    stdout
}

/// `magpie plot INPUT OPTIONS --out OUT` (see [`plot`]); returns the line naming the picture.
fn plot_to(input: &str, options: &[&str], out: &Path) -> String {
    let out = out.to_str().expect("a UTF-8 temporary path");
    plot(&[&[input], options, &["--out", out]].concat())
}

/// [`plot_to`], checking that the line names the picture `what` (`timeline of a trace`).
fn plot_as(input: &str, options: &[&str], out: &Path, what: &str) {
    let line = plot_to(input, options, out);
    assert!(line.ends_with(&format!(": {what}\n")), "{line}");
}

const GREEN: (u8, u8, u8) = (0x2c, 0xa0, 0x2c);
const ORANGE: (u8, u8, u8) = (0xff, 0x7f, 0x0e);
const BLUE: (u8, u8, u8) = (0x1f, 0x77, 0xb4);
const RED: (u8, u8, u8) = (0xd6, 0x27, 0x28);

#[test]
fn a_trace_draws_its_timeline_by_default() {
    let d = dir("trace");
    let trace = write(&d, "t.json", &samples::search_trace());
    let out = d.join("timeline.png");
    let line = plot_to(&trace, &[], &out);
    assert_eq!(line, format!("{}: timeline of a trace\n", out.display()));
    let (w, h, c) = decode(&out);
    assert_eq!((w, h), (1200, 300));
    assert!(c.contains(&GREEN) && c.contains(&ORANGE) && c.contains(&BLUE));

    let only = write(&d, "w.json", &samples::working_only());
    let out = d.join("only.png");
    plot_to(&only, &["--width", "640", "--height", "360"], &out);
    let (w, h, c) = decode(&out);
    assert_eq!((w, h), (640, 360));
    assert!(c.contains(&GREEN));
    assert!(!c.contains(&ORANGE) && !c.contains(&BLUE));

    let out = d.join("u.png");
    plot_as(
        &trace,
        &["--kind", "utilisation"],
        &out,
        "utilisation of a trace",
    );
    assert_eq!(decode(&out).0, 1200);
}

#[test]
fn a_loop_trace_draws_a_gantt_chart_and_svg() {
    let d = dir("loop");
    let trace = write(&d, "loop.json", &samples::loop_trace());
    let out = d.join("gantt.png");
    plot_to(&trace, &["--kind", "gantt"], &out);
    let (_, _, c) = decode(&out);
    assert!(c.contains(&(253, 231, 37)), "the largest chunk's yellow");
    let svg = d.join("gantt.svg");
    plot_to(&trace, &["--kind", "gantt", "--width", "800"], &svg);
    let s = std::fs::read_to_string(&svg).unwrap();
    assert!(s.starts_with("<svg width=\"800\""), "{}", &s[..60]);
    assert!(s.contains("#FDE725") || s.contains("#fde725"));
}

#[test]
fn an_incumbent_log_draws_a_red_curve() {
    let d = dir("inc");
    let log = write(&d, "inc.jsonl", &samples::incumbents());
    let out = d.join("inc.png");
    plot_as(&log, &[], &out, "incumbent of an incumbent log");
    let (w, h, c) = decode(&out);
    assert_eq!((w, h), (1000, 600));
    assert!(c.contains(&RED));
    // An empty log (no improvement) is empty axes, not an error.
    let empty = write(&d, "empty.jsonl", "");
    let out = d.join("empty.png");
    plot_to(&empty, &[], &out);
    assert!(!decode(&out).2.contains(&RED));
}

#[test]
fn reports_draw_box_plots_and_speedup() {
    let d = dir("reports");
    let fj = write(&d, "fj.json", &samples::forkjoin_json());
    let out = d.join("rt.png");
    plot_as(&fj, &[], &out, "runtimes of a run-time report");
    assert_eq!(decode(&out).0, 1100);
    let exp = write(&d, "exp.json", &samples::experiment_json());
    let out = d.join("sp.svg");
    plot_to(&exp, &["--kind", "speedup"], &out);
    assert!(std::fs::read_to_string(&out).unwrap().contains("speedup"));
}

#[test]
fn search_and_distributed_reports_draw_too() {
    let d = dir("suites");
    let search = write(&d, "search.json", &samples::search_json());
    let out = d.join("search-sp.png");
    plot_as(
        &search,
        &["--kind", "speedup"],
        &out,
        "speedup of a run-time report",
    );
    // One panel; budget:10000's curve is the palette's sixth colour.
    let (w, h, colours) = decode(&out);
    assert_eq!((w, h), (800, 480));
    assert!(colours.contains(&(0x1f, 0x77, 0xb4)));
    let dist = write(&d, "distributed.json", &samples::distributed_json());
    let out = d.join("dist-rt.png");
    plot_to(&dist, &[], &out);
    // Three panels of 2, 3 and 4 boxes.
    let (w, h, _) = decode(&out);
    assert_eq!((w, h), (1100, 522));
}

#[test]
fn bad_inputs_are_one_line_errors() {
    let d = dir("bad");
    let png = d.join("x.png");
    let png = png.to_str().unwrap();
    let run = |args: &[&str]| {
        let mut all = vec!["plot"];
        all.extend_from_slice(args);
        magpie(&all, &[])
    };
    let span = write(
        &d,
        "span.json",
        "{\"traceEvents\":[\n{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":0,\"tid\":0},\n\
         {\"ph\":\"X\",\"cat\":\"task\",\"name\":\"task\",\"pid\":0,\"tid\":0,\"ts\":5}\n]}\n",
    );
    assert_one_line_error(
        "a span without dur",
        &run(&[&span, "--out", png]),
        &[&format!(
            "{span}: line 3: a `task` span without a non-negative number \"dur\""
        )],
    );
    let log = write(
        &d,
        "log.jsonl",
        "{\"time_s\":1,\"value\":2}\n{\"time_s\":2,\"value\":\n",
    );
    assert_one_line_error(
        "a cut incumbent line",
        &run(&[&log, "--out", png]),
        &[&format!("{log}: line 2: EOF while parsing")],
    );
    let syntax = write(&d, "syntax.json", "{\"traceEvents\":[\n{\"ph\":\"X\",}\n]}");
    assert_one_line_error(
        "bad JSON",
        &run(&[&syntax, "--out", png]),
        &[&format!("{syntax}: line 2: ")],
    );
    let other = write(&d, "other.json", "{\"hello\":1}\n");
    assert_one_line_error(
        "not an input",
        &run(&[&other, "--out", png]),
        &[&format!("{other}: line 1: not a magpie trace")],
    );
    let binary = d.join("bin.dat");
    std::fs::write(&binary, [0xff, 0xfe, 0x00]).unwrap();
    assert_one_line_error(
        "binary",
        &run(&[binary.to_str().unwrap(), "--out", png]),
        &["not a text file"],
    );
    assert_one_line_error(
        "missing file",
        &run(&[d.join("none.json").to_str().unwrap(), "--out", png]),
        &["none.json: cannot read"],
    );
    let trace = write(&d, "t.json", &samples::search_trace());
    assert_one_line_error(
        "gif",
        &run(&[&trace, "--out", d.join("x.gif").to_str().unwrap()]),
        &["x.gif: the picture's name must end in .png or .svg"],
    );
    assert_one_line_error(
        "gantt of a search",
        &run(&[&trace, "--kind", "gantt", "--out", png]),
        &["--kind gantt: the trace has no `chunk` spans"],
    );
    assert_one_line_error(
        "unknown kind",
        &run(&[&trace, "--kind", "pie", "--out", png]),
        &["--kind: unknown kind \"pie\""],
    );
    assert_one_line_error(
        "tiny",
        &run(&[&trace, "--width", "20", "--out", png]),
        &["--width 20: expected 100 to 20000 pixels"],
    );
    assert_one_line_error(
        "no number",
        &run(&[&trace, "--height", "tall", "--out", png]),
        &["--height"],
    );
    assert!(!Path::new(png).exists(), "no picture from a failed command");
}

#[test]
fn experiment_plot_dir_writes_box_plots_and_speedup() {
    let d = dir("experiment");
    let pictures = d.join("pictures");
    let experiment = "experiment policies --app fib --n 12 --idle park,yield --workers 1,2 \
                      --runs 2 --format json --plot";
    let args = [&words(experiment)[..], &[pictures.to_str().unwrap()]].concat();
    let out = magpie(&args, &[]);
    let stderr = text(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    let runtimes = pictures.join("runtimes.png");
    let speedup = pictures.join("speedup.png");
    assert_eq!(
        stderr,
        format!(
            "magpie: picture {}\nmagpie: picture {}\n",
            runtimes.display(),
            speedup.display()
        )
    );
    // The report on stdout is unchanged: one JSON line.
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["rows"].as_array().unwrap().len(), 4);
    // One panel of four boxes: 96 + 4 × 26 pixels high; park's boxes in the first colour.
    let (w, h, c) = decode(&runtimes);
    assert_eq!((w, h), (1100, 300));
    assert!(c.contains(&(0x94, 0x67, 0xbd)) && c.contains(&(0x8c, 0x56, 0x4b)));
    assert_eq!(decode(&speedup).0, 800);
}
