//! Issues 35 and 39: `kraftwerk fit` on a build that runs its MoE model only with the experts in
//! system RAM prints, per GPU, what the split's llama.cpp arguments put there (llama.cpp's own
//! table), and labels the every-expert-on-the-GPU figure as such; never an unlabelled "does not
//! fit" line under the "fits with experts in system RAM" headline.

use crate::support::{fixture, kw};

#[test]
fn the_per_gpu_lines_of_an_experts_in_ram_fit_are_the_splits() {
    let path = fixture("hybrid-1x-rtx-3090-gpt-oss-120b.rig.ron").display().to_string();
    let o = kw(&["fit", &path, "--format", "json"]);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("fit json");
    let args = v["fits_with_experts_in_ram"]["args"].as_str().expect("the split's arguments").to_owned();
    let table = &v["fit"]["llama_cpp"];
    assert_eq!(table["args"], args.as_str(), "the table is the split's");
    let self_mib = {
        let r = &table["rows"][0];
        r["model_mib"].as_f64().expect("model")
            + r["context_mib"].as_f64().expect("context")
            + r["compute_mib"].as_f64().expect("compute")
    };

    let o = kw(&["fit", &path]);
    assert_eq!(o.status.code(), Some(0));
    let text = String::from_utf8_lossy(&o.stdout);
    let lines: Vec<&str> = text.lines().collect();
    assert!(lines[0].contains("fits with experts in system RAM"), "{}", lines[0]);
    let gpu: Vec<&str> = lines.iter().copied().filter(|l| l.contains("GPU 1 nvidia-geforce-rtx-3090")).collect();
    // The first GPU line is the split's placement, with its figure from llama.cpp's table.
    let first = gpu.first().expect("a GPU line");
    assert!(first.trim_start().starts_with("GPU 1"), "{first}");
    assert!(first.contains(&args) && first.contains("(fits)"), "{first}");
    assert!(first.contains(&format!("{:.1} of", self_mib / 1024.0)), "{first}: {self_mib} MiB");
    // Any all-on-GPU "does not fit" line says it is not the split's placement.
    for l in gpu.iter().filter(|l| l.contains("does not fit")) {
        assert!(l.contains("every expert on the GPU") && l.contains("not the split's placement"), "{l}");
    }
}
