//! `monitor --prometheus`: the exporter serves a recorded H200 session's samples over loopback;
//! the scrape is parsed as Prometheus text exposition and the values are the recording's.

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
        let labels = labels
            .split("\",")
            .filter(|p| !p.is_empty())
            .map(|p| {
                let (k, v) = p.split_once("=\"").unwrap_or_else(|| panic!("label {p} in {line}"));
                (k.to_owned(), v.trim_end_matches('"').to_owned())
            })
            .collect();
        out.push((name.to_owned(), labels, value));
    }
    out
}

#[test]
fn scrape_over_loopback_parses_with_the_recorded_values() {
    let rec = Recording::load(&Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/h200-2gpu-30s.kwrec.json"))
        .expect("recording");
    let snap = rec
        .snapshots
        .iter()
        .find(|s| s.gpus.iter().all(|g| g.utilization_gpu_pct >= Some(50)))
        .expect("a loaded snapshot");
    let exporter =
        Exporter::serve("127.0.0.1:0".parse().expect("addr"), rec.gpus.clone(), "h200-test".into()).expect("serve");
    exporter.update(snap);
    let mut stream = TcpStream::connect(exporter.local_addr()).expect("connect");
    stream.write_all(b"GET /metrics HTTP/1.1\r\nHost: localhost\r\n\r\n").expect("request");
    let mut response = String::new();
    stream.read_to_string(&mut response).expect("response");
    let (head, body) = response.split_once("\r\n\r\n").expect("http");
    assert!(head.starts_with("HTTP/1.1 200 OK"), "{head}");
    assert!(body.trim_end().ends_with("# EOF"), "{body}");
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
    assert_eq!(labels.get("modelName").map(String::as_str), Some("NVIDIA H200"));
    assert_eq!(labels.get("Hostname").map(String::as_str), Some("h200-test"));
    assert!(labels.contains_key("gpu") && labels.contains_key("device"));
    // Unknown figures are left out, never exported as 0: the recording has no XID data.
    assert!(!samples.iter().any(|(n, _, _)| n == "DCGM_FI_DEV_XID_ERRORS"));
    exporter.stop();
}

#[test]
fn nothing_sampled_yet_exports_no_values() {
    let text = render(&[], "h", None).expect("render");
    assert!(parse(&text).is_empty(), "{text}");
    assert_eq!(text.trim(), "# EOF", "no sample, no value (never a 0 for unknown)");
}
