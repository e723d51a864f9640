//! `monitor --prometheus`: the exporter serves a recorded H200 session's samples over loopback;
//! the scrape is parsed as Prometheus text exposition and the values are the recording's. Each
//! scraped body is also kept in `target/tmp/prometheus/` for `promtool check metrics`
//! (`scripts/promtool-check.sh`, run by `.ci/run`).

use kraftwerk::live::prometheus::{Exporter, render};
use kraftwerk::live::record::Recording;
use std::collections::BTreeMap;
use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::Path;

/// `name{labels} value` lines: (name, labels, value); `#` lines are checked for HELP/TYPE.
fn parse(text: &str) -> Vec<(String, BTreeMap<String, String>, f64)> {
    let mut out = Vec::new();
    for line in text.lines() {
        if let Some(rest) = line.strip_prefix('#') {
            let word = rest.split_whitespace().next().unwrap_or("");
            assert!(["HELP", "TYPE", "EOF", "UNIT"].contains(&word), "comment line: {line}");
            continue;
        }
        let (head, value) = line.rsplit_once(' ').unwrap_or_else(|| panic!("no value: {line}"));
        let value: f64 = value.parse().unwrap_or_else(|e| panic!("{line}: {e}"));
        let (name, labels) = match head.split_once('{') {
            Some((n, l)) => (n, l.strip_suffix('}').unwrap_or_else(|| panic!("labels: {line}"))),
            None => (head, ""),
        };
        assert!(name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_'), "metric name {name}");
        // promtool's lint: a metric name does not hold a type.
        let lower = name.to_ascii_lowercase();
        assert!(!["_counter", "_gauge", "_histogram", "_summary"].iter().any(|t| lower.contains(t)), "{name}");
        let labels = labels
            .split("\",")
            .filter(|p| !p.is_empty())
            .map(|p| {
                let (k, v) = p.split_once("=\"").unwrap_or_else(|| panic!("label {p} in {line}"));
                // promtool's lint (Prometheus' promlint): no camelCase label names.
                let camel = k.as_bytes().windows(2).any(|w| w[0].is_ascii_lowercase() && w[1].is_ascii_uppercase());
                assert!(!camel, "label name {k} is camelCase in {line}");
                (k.to_owned(), v.trim_end_matches('"').to_owned())
            })
            .collect();
        out.push((name.to_owned(), labels, value));
    }
    out
}

/// GETs `/metrics` from `exporter` over loopback; returns the body (asserting a 200 and `# EOF`).
fn scrape(exporter: &Exporter) -> String {
    let mut stream = TcpStream::connect(exporter.local_addr()).expect("connect");
    stream.write_all(b"GET /metrics HTTP/1.1\r\nHost: localhost\r\n\r\n").expect("request");
    let mut response = String::new();
    stream.read_to_string(&mut response).expect("response");
    let (head, body) = response.split_once("\r\n\r\n").expect("http");
    assert!(head.starts_with("HTTP/1.1 200 OK"), "{head}");
    assert!(body.trim_end().ends_with("# EOF"), "{body}");
    body.to_owned()
}

/// Serves `snap` of `rec` over loopback, scrapes it and keeps the body as
/// `target/tmp/prometheus/NAME.prom`, the file `scripts/promtool-check.sh` (run by `.ci/run`)
/// gives to `promtool check metrics`.
fn serve_and_scrape(rec: &Recording, snap: &kraftwerk::live::nvml::Snapshot, name: &str) -> String {
    let exporter =
        Exporter::serve("127.0.0.1:0".parse().expect("addr"), rec.gpus.clone(), "h200-test".into()).expect("serve");
    exporter.update(snap);
    let body = scrape(&exporter);
    exporter.stop();
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("prometheus");
    std::fs::create_dir_all(&dir).expect("dir");
    std::fs::write(dir.join(format!("{name}.prom")), &body).expect("write the exposition");
    body
}

fn recording(name: &str) -> Recording {
    Recording::load(&Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures").join(name)).expect("recording")
}

#[test]
fn scrape_over_loopback_parses_with_the_recorded_values() {
    let rec = recording("h200-2gpu-30s.kwrec.json");
    let snap = rec
        .snapshots
        .iter()
        .find(|s| s.gpus.iter().all(|g| g.utilization_gpu_pct >= Some(50)))
        .expect("a loaded snapshot");
    let text = serve_and_scrape(&rec, snap, "h200-2gpu-30s");
    let body = text.as_str();
    let samples = parse(body);
    let value = |name: &str, gpu: usize| {
        let uuid = rec.gpus[gpu].uuid.clone().expect("uuid");
        samples
            .iter()
            .find(|(n, l, _)| n == name && l.get("UUID") == Some(&uuid))
            .map_or_else(|| panic!("{name} for GPU {gpu} in {body}"), |s| s.2)
    };
    for (gpu, s) in snap.gpus.iter().enumerate() {
        assert_eq!(Some(value("DCGM_FI_DEV_POWER_USAGE", gpu)), s.power_avg_w);
        assert_eq!(Some(value("DCGM_FI_DEV_GPU_TEMP", gpu)), s.temperature_c.map(f64::from));
        assert_eq!(Some(value("DCGM_FI_DEV_SM_CLOCK", gpu)), s.clock_sm_mhz.map(f64::from));
        assert_eq!(Some(value("DCGM_FI_DEV_PCIE_LINK_GEN", gpu)), s.pcie_gen.map(f64::from));
        assert_eq!(Some(value("DCGM_FI_DEV_GPU_UTIL", gpu)), s.utilization_gpu_pct.map(f64::from));
    }
    let labels = &samples.iter().find(|(n, _, _)| n == "DCGM_FI_DEV_POWER_USAGE").expect("power").1;
    assert_eq!(labels.get("model_name").map(String::as_str), Some("NVIDIA H200"));
    assert_eq!(labels.get("hostname").map(String::as_str), Some("h200-test"));
    assert!(labels.contains_key("gpu") && labels.contains_key("device"));
    // Unknown figures are left out, never exported as 0: the recording has no XID data.
    assert!(!samples.iter().any(|(n, _, _)| n == "DCGM_FI_DEV_XID_ERRORS"));
}

/// The planted XID 79 recording (`tests/fixtures/faults/xid-79.kwrec.json`): the snapshot with
/// the XID exports it, and every metric of the table then has a value.
#[test]
fn an_xid_is_exported_with_every_other_metric() {
    let rec = recording("faults/xid-79.kwrec.json");
    let snap = rec
        .snapshots
        .iter()
        .find(|s| s.gpus.iter().any(|g| g.xid_errors.as_ref().is_some_and(|x| !x.is_empty())))
        .expect("a snapshot with an XID");
    let text = serve_and_scrape(&rec, snap, "xid-79");
    let samples = parse(&text);
    assert!(samples.iter().any(|(n, _, v)| n == "DCGM_FI_DEV_XID_ERRORS" && v.to_bits() == 79f64.to_bits()), "{text}");
    let families: std::collections::BTreeSet<&str> = samples.iter().map(|(n, _, _)| n.as_str()).collect();
    assert!(families.len() >= 17, "{families:?}");
}

/// Issue 27: the encoder adds the full stop, so the texts must not end in one ("..").
#[test]
fn help_texts_are_sentences_with_one_full_stop() {
    let rec = recording("faults/xid-79.kwrec.json");
    let text = render(&rec.gpus, "h", rec.snapshots.last()).expect("render");
    let helps: Vec<&str> = text.lines().filter_map(|l| l.strip_prefix("# HELP ")).collect();
    assert!(helps.len() >= 17, "{text}");
    for h in helps {
        let (name, help) = h.split_once(' ').unwrap_or_else(|| panic!("HELP without text: {h}"));
        assert!(help.ends_with('.') && !help.ends_with(".."), "{name}: {help:?}");
        assert!(help.starts_with(|c: char| c.is_uppercase()), "{name}: {help:?}");
    }
}

#[test]
fn nothing_sampled_yet_exports_no_values() {
    let text = render(&[], "h", None).expect("render");
    assert!(parse(&text).is_empty(), "{text}");
    assert_eq!(text.trim(), "# EOF", "no sample, no value (never a 0 for unknown)");
}
