//! The Markdown report of a build (the window's File → Export report): the parts and where they
//! sit, the priced parts list ([`crate::rig::parts_list`]), the findings, and the same text
//! report `kraftwerk check` prints ([`report_text`]).

use super::report_text;
use crate::check::Report;
use crate::rig::Build;
use kraftwerk_catalog::{Catalog, HasId};
use std::fmt::Write as _;

/// Escapes `|` so a value stays in its Markdown table cell.
fn cell(s: &str) -> String {
    s.replace('|', "\\|")
}

/// The Markdown report of `build` checked as `report` (a [`crate::check::run`] of it):
/// headings `# NAME`, `## Parts`, `## Parts list and prices`, `## Findings`, `## Full report`.
pub fn markdown(build: &Build, catalog: &Catalog, report: &Report) -> String {
    let r = build.resolve(catalog);
    let mut s = String::new();
    let _ = writeln!(s, "# {}\n", build.name);
    let _ = writeln!(
        s,
        "Checked by Kraftwerk {}: **{}** ({} errors, {} warnings, {} notes).\n",
        env!("CARGO_PKG_VERSION"),
        report.verdict,
        report.errors,
        report.warnings,
        report.infos
    );
    if let Some(reference) = &build.reference {
        let _ = writeln!(s, "Reference: {reference}\n");
    }
    let _ = writeln!(s, "## Parts\n\n| Part | Choice |\n|---|---|");
    let name = |p: Option<String>, id: Option<&String>| {
        p.or_else(|| id.map(|i| format!("{i} (unknown)"))).unwrap_or_else(|| "—".into())
    };
    let _ = writeln!(s, "| CPU | {} |", cell(&name(r.cpu.map(HasId::display_name), build.cpu.as_ref())));
    let _ =
        writeln!(s, "| Motherboard | {} |", cell(&name(r.board.map(HasId::display_name), build.motherboard.as_ref())));
    let _ = writeln!(s, "| CPU cooler | {} |", cell(&name(r.cooler.map(HasId::display_name), build.cooler.as_ref())));
    let _ = writeln!(s, "| Case | {} |", cell(&name(r.case.map(HasId::display_name), build.case.as_ref())));
    if let Some((kit, n)) = r.memory {
        let _ = writeln!(s, "| Memory | {} × {n} ({} GB) |", cell(&kit.display_name()), kit.total_gb() * u32::from(n));
    }
    for (d, u) in &r.storage {
        let _ = writeln!(
            s,
            "| Drive | {}{} |",
            cell(&d.display_name()),
            u.m2_slot.as_ref().map_or_else(String::new, |m| format!(" in {m}"))
        );
    }
    for (i, (p, g)) in build.gpus.iter().zip(&r.gpus).enumerate() {
        let gname = g.map_or_else(|| format!("{} (unknown)", p.gpu), HasId::display_name);
        let slot = p.slot_text();
        let limit = p.power_limit_w.map_or_else(|| "default power".to_owned(), |w| format!("limit {w:.0} W"));
        let _ = writeln!(s, "| GPU {} | {} · {slot} · {limit} · PSU {} |", i + 1, cell(&gname), p.psu + 1);
    }
    for (i, (u, p)) in build.psus.iter().zip(&r.psus).enumerate() {
        let pname = p.map_or_else(|| format!("{} (unknown)", u.psu), HasId::display_name);
        let _ = writeln!(s, "| PSU {} | {} · circuit {} |", i + 1, cell(&pname), u.circuit + 1);
    }
    for b in &build.nvlink {
        let _ = writeln!(
            s,
            "| NVLink bridge | GPU {} to GPU {}, {}-slot spacing |",
            b.gpus.0 + 1,
            b.gpus.1 + 1,
            b.spacing_slots
        );
    }
    let site = &build.site;
    let _ = writeln!(
        s,
        "| Site | {:.0} V, {:.0} A × {} circuit(s), {:.0} °C, {}/kWh, {:.0} % duty |\n",
        site.mains_v,
        site.circuit_a,
        site.circuits,
        site.ambient_c,
        crate::fmt::usd_rate(site.price_per_kwh),
        site.duty_cycle * 100.0
    );
    let list = crate::rig::parts_list::PartsList::of(build, catalog);
    let _ = writeln!(s, "## Parts list and prices\n\n{}", list.markdown());
    let _ = writeln!(s, "## Findings\n");
    if report.findings.is_empty() {
        let _ = writeln!(s, "None.\n");
    }
    for f in &report.findings {
        let _ = writeln!(s, "- **{}** `{}`: {}. *Fix:* {}", f.severity, f.rule, f.message, f.fix);
    }
    let _ = writeln!(s, "\n## Full report\n\n```text\n{}```", report_text(report));
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markdown_has_verdict_parts_and_findings() {
        let cat = kraftwerk_catalog::builtin().expect("catalog");
        let b = Build {
            name: "Test rig".into(),
            cpu: Some("amd-threadripper-pro-7985wx".into()),
            motherboard: Some("asus-proart-x870e-creator-wifi".into()),
            ..Build::default()
        };
        let r = crate::check::run(&b, &cat);
        let md = markdown(&b, &cat, &r);
        assert!(md.starts_with("# Test rig\n"));
        assert!(md.contains(&format!("**{}**", r.verdict)));
        assert!(md.contains("| CPU | AMD Ryzen Threadripper PRO 7985WX |"));
        assert!(md.contains("`cpu-socket`"), "the socket mismatch is listed");
        assert!(md.contains("```text"));
    }

    #[test]
    fn markdown_has_prices_and_the_nvlink_bridge() {
        let cat = kraftwerk_catalog::builtin().expect("catalog");
        let p =
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../catalog/builds/2x-rtx-a6000-nvlink.rig.ron");
        let b = crate::rig::load(&p, Some(&cat)).expect("reference build");
        let md = markdown(&b, &cat, &crate::check::run(&b, &cat));
        assert!(md.contains("| NVLink bridge | GPU 1 to GPU 2"), "{md}");
        assert!(md.contains("## Parts list and prices") && md.contains("**Total**"));
        let gpu = cat.gpu(&b.gpus[0].gpu).expect("gpu");
        if let Some(p) = gpu.price_usd {
            assert!(md.contains(&crate::fmt::usd(p)), "the GPU's price is listed");
        }
    }
}
