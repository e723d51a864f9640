//! Live tab: the topology matrix and the GPU↔GPU links section (P2P bandwidth and latency
//! matrices, all-reduce table, the report's details).

use crate::command::LiveAction;
use crate::live_state::{LinksOrigin, LiveView};
use crate::theme;
use crate::widgets::{grade_badge, plain, section_heading, wrapped};
use eframe::egui::{self, RichText};
use kraftwerk_catalog::dates::utc_date_time;
use kraftwerk_live::links::{LinksReport, Section};
use kraftwerk_live::topology::Topology;

pub(super) fn topology_matrix(ui: &mut egui::Ui, id: &str, topology: &Topology, n: usize) {
    let m = topology.matrix(n);
    egui::Grid::new(id).striped(true).spacing([14.0, 4.0]).show(ui, |ui| {
        ui.label("");
        for b in 0..n {
            ui.label(RichText::new(format!("GPU{b}")).strong());
        }
        ui.end_row();
        for (a, row) in m.iter().enumerate() {
            ui.label(RichText::new(format!("GPU{a}")).strong());
            for cell in row {
                let color = if cell.starts_with("NV") {
                    theme::OK
                } else if cell == "SYS" || cell == "?" {
                    theme::WARNING
                } else {
                    ui.visuals().text_color()
                };
                ui.label(RichText::new(cell).monospace().color(color));
            }
            ui.end_row();
        }
    });
    if n > 1 {
        ui.add(
            egui::Label::new(
                RichText::new("NV# = # bonded NVLinks · PIX = one PCIe switch · PXB = several switches · PHB = PCIe host bridge · NODE = within a NUMA node · SYS = across NUMA nodes")
                    .weak()
                    .small(),
            )
            .wrap(),
        );
    }
}

pub(super) fn value_matrix(ui: &mut egui::Ui, id: &str, title: &str, cells: &[Vec<Option<f64>>], decimals: usize) {
    ui.vertical(|ui| {
        ui.label(RichText::new(title).strong());
        egui::Grid::new(id).striped(true).spacing([12.0, 4.0]).show(ui, |ui| {
            ui.label(RichText::new("from \\ to").weak());
            for b in 0..cells.len() {
                ui.label(RichText::new(format!("GPU{b}")).strong());
            }
            ui.end_row();
            for (a, row) in cells.iter().enumerate() {
                ui.label(RichText::new(format!("GPU{a}")).strong());
                for (b, v) in row.iter().enumerate() {
                    let text = match v {
                        _ if a == b => "X".to_owned(),
                        Some(v) => format!("{v:.decimals$}"),
                        None => "n/a".to_owned(),
                    };
                    ui.label(RichText::new(text).monospace());
                }
                ui.end_row();
            }
        });
    });
}

pub(super) fn links_section(ui: &mut egui::Ui, live: &LiveView, out: &mut Vec<LiveAction>) {
    section_heading(ui, "Topology and links");
    ui.horizontal_wrapped(|ui| {
        if live.links.is_some() {
            ui.add(egui::Spinner::new());
            ui.label(live.links_progress.as_deref().map_or_else(|| "measuring links…".to_owned(), plain));
            if ui.button("Cancel").clicked() {
                out.push(LiveAction::CancelLinks);
            }
        } else if ui
            .add_enabled(live.probe.is_none(), egui::Button::new("Measure links"))
            .on_hover_text("P2P copy bandwidth and latency for every pair of GPUs, then the NCCL all-reduce")
            .clicked()
        {
            out.push(LiveAction::MeasureLinks);
        }
        if ui.add(egui::Button::new("Open links report…")).clicked() {
            out.push(LiveAction::OpenLinksDialog);
        }
        if !live.has_live_gpus() && ui.button("Show demo links report (2× H200)").clicked() {
            out.push(LiveAction::ShowDemoLinks);
        }
    });
    if let Some(reason) = LiveView::nccl_blocked() {
        ui.add(
            egui::Label::new(
                RichText::new(format!(
                    "NCCL all-reduce will not run from the window: {}. P2P is measured without it; for the all-reduce run `kraftwerk links` from a shell.",
                    plain(&reason)
                ))
                .color(theme::WARNING),
            )
            .wrap(),
        );
    }
    ui.add_space(theme::SMALL_GAP);
    let n = live.gpus().len();
    ui.horizontal_top(|ui| {
        ui.spacing_mut().item_spacing.x = 28.0;
        ui.vertical(|ui| {
            ui.set_max_width(360.0);
            ui.label(RichText::new("Topology (nvidia-smi topo -m)").strong());
            if n == 0 {
                ui.weak("No GPU.");
            } else {
                topology_matrix(ui, "live-topology", live.topology(), n);
            }
        });
        if let Some((report, _)) = &live.links_report {
            p2p_matrices(ui, report);
        }
    });
    if let Some((report, _)) = &live.links_report {
        ui.add_space(theme::SMALL_GAP);
        all_reduce_table(ui, report);
    }
    if let Some((report, origin)) = &live.links_report {
        links_details(ui, report, origin);
    }
}

pub(super) fn p2p_matrices(ui: &mut egui::Ui, r: &LinksReport) {
    let n = r.gpus.len();
    match &r.p2p {
        Section::Measured(p) => {
            value_matrix(
                ui,
                "live-p2p-one",
                "P2P one-way (GB/s)",
                &p.matrix(n, |l| l.one_way_gb_s.map(|s| s.median)),
                1,
            );
            value_matrix(
                ui,
                "live-p2p-two",
                "P2P two-way (GB/s)",
                &p.matrix(n, |l| l.two_way_gb_s.map(|s| s.median)),
                1,
            );
            value_matrix(ui, "live-p2p-lat", "Latency (µs)", &p.matrix(n, |l| l.latency_us.map(|s| s.median)), 2);
        }
        Section::NotAvailable { reason } => {
            ui.vertical(|ui| {
                ui.set_max_width(360.0);
                ui.label(RichText::new("P2P").strong());
                ui.add(egui::Label::new(RichText::new(format!("not available: {}", plain(reason))).weak()).wrap());
            });
        }
    }
}

pub(super) fn all_reduce_table(ui: &mut egui::Ui, r: &LinksReport) {
    ui.vertical(|ui| {
        ui.label(RichText::new("All-reduce (NCCL, busbw)").strong());
        match &r.all_reduce {
            Section::Measured(t) => {
                egui::Grid::new("live-allreduce").striped(true).spacing([12.0, 2.0]).show(ui, |ui| {
                    for h in ["size", "time µs", "algbw GB/s", "busbw GB/s", "#wrong"] {
                        ui.label(RichText::new(h).strong());
                    }
                    ui.end_row();
                    for row in &t.rows {
                        ui.label(RichText::new(bytes_text(row.bytes)).monospace());
                        ui.label(RichText::new(format!("{:.1}", row.time_us)).monospace());
                        ui.label(RichText::new(format!("{:.1}", row.algbw_gb_s)).monospace());
                        ui.label(RichText::new(format!("{:.1}", row.busbw_gb_s)).monospace().strong());
                        let c = if row.wrong > 0 { theme::ERROR } else { ui.visuals().text_color() };
                        ui.label(RichText::new(row.wrong.to_string()).monospace().color(c));
                        ui.end_row();
                    }
                });
            }
            Section::NotAvailable { reason } => {
                ui.set_max_width(360.0);
                ui.add(egui::Label::new(RichText::new(format!("not available: {}", plain(reason))).weak()).wrap());
            }
        }
    });
}

pub(super) fn bytes_text(b: u64) -> String {
    if b >= 1 << 30 {
        format!("{} GiB", b >> 30)
    } else if b >= 1 << 20 {
        format!("{} MiB", b >> 20)
    } else if b >= 1 << 10 {
        format!("{} KiB", b >> 10)
    } else {
        format!("{b} B")
    }
}

pub(super) fn links_details(ui: &mut egui::Ui, r: &LinksReport, origin: &LinksOrigin) {
    ui.add_space(theme::SMALL_GAP);
    ui.horizontal_wrapped(|ui| {
        grade_badge(ui, r.grade);
        let whence = match origin {
            LinksOrigin::Measured => "measured on this machine".to_owned(),
            LinksOrigin::File(f) => format!("links report {f}"),
        };
        let date = r.created_unix_ms.map_or_else(String::new, |ms| format!(", {}", utc_date_time(ms)));
        ui.label(format!("Links: {whence}{date} · {} GPU(s) · {:.1} s", r.gpus.len(), r.wall_seconds));
        if r.cancelled {
            ui.colored_label(theme::WARNING, "cancelled");
        }
    });
    if matches!(origin, LinksOrigin::File(_)) {
        ui.colored_label(theme::WARNING, "A file: its GPUs are not necessarily this machine's.");
    }
    for e in &r.errors {
        ui.colored_label(theme::ERROR, plain(e));
    }
    if !r.checks.is_empty() {
        egui::CollapsingHeader::new(format!("Link checks ({})", r.checks.len()))
            .id_salt("live-link-checks")
            .default_open(false)
            .show(ui, |ui| {
                egui::Grid::new("live-link-checks-grid").striped(true).spacing([10.0, 3.0]).show(ui, |ui| {
                    for c in &r.checks {
                        grade_badge(ui, c.grade);
                        ui.label(RichText::new(&c.check).monospace());
                        ui.label(c.gpus.iter().map(|g| format!("GPU{g}")).collect::<Vec<_>>().join(" to "));
                        wrapped(ui, &plain(&c.message), 620.0);
                        ui.end_row();
                    }
                });
            });
    }
}
