//! The left build panel: the build's name, a searchable picker per part (compatible parts
//! first), drives, GPU model and count, each GPU's slot, PSU, riser and power limit, `NVLink`
//! bridges, PSUs, and the site (mains, circuit, electricity price).

use super::command::{Action, EditAction};
use super::state::AppState;
use super::theme;
use super::view_state::ViewState;
use super::widgets::{PickTarget, Picked, Picker};
use eframe::egui::{self, RichText};
use kraftwerk_catalog::{GpuFormFactor, HasId, LaneSource, NvLink};
use kraftwerk_core::check::{PartRef, Severity};
use kraftwerk_core::estimate::power::{decode_kept, throughput_kept};
use kraftwerk_core::rig::{Riser, Site};

mod power;
use power::{psus, site};

/// Width of the label column, points.
const LABEL_W: f32 = 100.0;

/// Draws the panel.
pub fn show(ui: &mut egui::Ui, state: &AppState, view: &mut ViewState, out: &mut Vec<Action>) {
    ui.add_space(theme::SMALL_GAP);
    ui.horizontal(|ui| {
        let l = ui.label(RichText::new("Build").strong());
        let mut name = state.build.name.clone();
        let full = name.clone();
        let edit = ui.add(egui::TextEdit::singleline(&mut name).desired_width(f32::INFINITY)).labelled_by(l.id);
        if edit.on_hover_text(full).changed() {
            out.push(Action::Edit(EditAction::SetName(name)));
        }
    });
    if let Some(r) = &state.build.reference {
        ui.add(egui::Label::new(RichText::new(format!("Reference: {r}")).weak().small()).wrap());
    }
    ui.add_space(theme::SMALL_GAP);
    egui::CollapsingHeader::new(RichText::new("Platform").heading().size(16.0)).default_open(true).show(ui, |ui| {
        platform(ui, state, view, out);
    });
    egui::CollapsingHeader::new(RichText::new(format!("GPUs ({})", state.build.gpus.len())).heading().size(16.0))
        .id_salt("gpus-section")
        .default_open(true)
        .show(ui, |ui| gpus(ui, state, view, out));
    egui::CollapsingHeader::new(
        RichText::new(format!("Power supplies ({})", state.build.psus.len())).heading().size(16.0),
    )
    .id_salt("psus-section")
    .default_open(true)
    .show(ui, |ui| psus(ui, state, view, out));
    egui::CollapsingHeader::new(RichText::new("Site").heading().size(16.0))
        .default_open(true)
        .show(ui, |ui| site(ui, state, view, out));
}

/// A row label with the worst severity of the part's findings as a coloured dot, outlined when
/// a clicked finding names the part.
fn part_label(ui: &mut egui::Ui, text: &str, sev: Option<Severity>, highlighted: bool) -> egui::Response {
    let (filled, color) = match sev {
        Some(s) => (true, theme::severity(s)),
        None => (false, ui.visuals().weak_text_color()),
    };
    let resp = ui
        .allocate_ui_with_layout(egui::vec2(LABEL_W, 20.0), egui::Layout::left_to_right(egui::Align::Center), |ui| {
            ui.set_min_width(LABEL_W);
            theme::dot(ui, color, filled);
            let mut t = RichText::new(text);
            if highlighted {
                t = t.color(theme::HIGHLIGHT).strong();
            }
            ui.label(t)
        })
        .inner;
    theme::scroll_if_highlighted(ui, resp.rect, highlighted);
    resp
}

/// Picker width from the space left after the label column.
/// One removable part row (a drive, a PSU): its label, its picker, and a "×" button.
struct PickRow {
    part: PartRef,
    label: String,
    remove_hover: String,
    target: PickTarget,
}

/// Draws a [`PickRow`]; returns the part picked, if any, and whether "×" was clicked.
#[allow(clippy::ptr_arg, reason = "`Picker::current` borrows the build's `String` id")]
fn removable_pick_row(
    ui: &mut egui::Ui,
    state: &AppState,
    view: &mut ViewState,
    row: &PickRow,
    current: &String,
    text: &str,
    pw: f32,
) -> (Option<String>, bool) {
    ui.horizontal(|ui| {
        let hl = view.is_highlighted(row.part);
        let l = part_label(ui, &row.label, state.severity_of(row.part), hl);
        let picked = Picker {
            target: row.target,
            current: Some(current),
            current_text: text,
            allow_none: false,
            width: (pw - 30.0).max(120.0),
            label_id: l.id,
            highlighted: hl,
        }
        .show(ui, &mut view.picks, state);
        let removed = ui.small_button("×").on_hover_text(&row.remove_hover).clicked();
        let id = match picked {
            Some(Picked::Part(id)) => Some(id),
            _ => None,
        };
        (id, removed)
    })
    .inner
}

fn picker_width(ui: &egui::Ui) -> f32 {
    (ui.available_width() - LABEL_W - 16.0).max(150.0)
}

fn name_of<T: HasId>(part: Option<&T>, id: Option<&String>) -> String {
    match (part, id) {
        (Some(p), _) => p.display_name(),
        (None, Some(id)) => format!("{id} (unknown)"),
        (None, None) => String::new(),
    }
}

// Over 120 lines: the platform pickers (CPU, board, memory, cooler, case, drives) in the
// panel's reading order, each a few lines over the same state, view and action list.
fn platform(ui: &mut egui::Ui, state: &AppState, view: &mut ViewState, out: &mut Vec<Action>) {
    let b = &state.build;
    let res = b.resolve(&state.catalog);
    let pw = picker_width(ui);
    let rows: [(&str, PartRef, PickTarget, Option<&String>, String); 4] = [
        ("CPU", PartRef::Cpu, PickTarget::Cpu, b.cpu.as_ref(), name_of(res.cpu, b.cpu.as_ref())),
        (
            "Motherboard",
            PartRef::Motherboard,
            PickTarget::Motherboard,
            b.motherboard.as_ref(),
            name_of(res.board, b.motherboard.as_ref()),
        ),
        ("CPU cooler", PartRef::Cooler, PickTarget::Cooler, b.cooler.as_ref(), name_of(res.cooler, b.cooler.as_ref())),
        ("Case", PartRef::Case, PickTarget::Case, b.case.as_ref(), name_of(res.case, b.case.as_ref())),
    ];
    for (label, part, target, current, text) in rows {
        ui.horizontal(|ui| {
            let hl = view.is_highlighted(part);
            let l = part_label(ui, label, state.severity_of(part), hl);
            let picked = Picker {
                target,
                current: current.map(String::as_str),
                current_text: &text,
                allow_none: true,
                width: pw,
                label_id: l.id,
                highlighted: hl,
            }
            .show(ui, &mut view.picks, state);
            if let Some(p) = picked {
                let id = match p {
                    Picked::Part(id) => Some(id),
                    Picked::Cleared => None,
                };
                out.push(match target {
                    PickTarget::Cpu => Action::Edit(EditAction::SetCpu(id)),
                    PickTarget::Motherboard => Action::Edit(EditAction::SetMotherboard(id)),
                    PickTarget::Cooler => Action::Edit(EditAction::SetCooler(id)),
                    _ => Action::Edit(EditAction::SetCase(id)),
                });
            }
        });
    }
    // Memory: kit and count.
    ui.horizontal(|ui| {
        let hl = view.is_highlighted(PartRef::Memory);
        let l = part_label(ui, "Memory", state.severity_of(PartRef::Memory), hl);
        let kit_id = b.memory.as_ref().map(|m| &m.kit);
        let text = name_of(res.memory.map(|m| m.0), kit_id);
        let picked = Picker {
            target: PickTarget::Memory,
            current: kit_id.map(String::as_str),
            current_text: &text,
            allow_none: true,
            width: (pw - 70.0).max(120.0),
            label_id: l.id,
            highlighted: hl,
        }
        .show(ui, &mut view.picks, state);
        match picked {
            Some(Picked::Part(id)) => out.push(Action::Edit(EditAction::SetMemoryKit(Some(id)))),
            Some(Picked::Cleared) => out.push(Action::Edit(EditAction::SetMemoryKit(None))),
            None => {}
        }
        if let Some(m) = &b.memory {
            let mut kits = m.kits;
            let resp = ui
                .add(egui::DragValue::new(&mut kits).range(1..=64).clamp_existing_to_range(false).prefix("× "))
                .on_hover_text("Number of kits");
            if resp.labelled_by(l.id).changed() {
                out.push(Action::Edit(EditAction::SetMemoryKits(kits)));
            }
        }
    });
    if let Some((kit, n)) = res.memory {
        ui.horizontal(|ui| {
            ui.add_space(LABEL_W + 8.0);
            ui.weak(format!(
                "{} modules, {} GB total",
                u32::from(kit.modules) * u32::from(n),
                kit.total_gb() * u32::from(n)
            ));
        });
    }
    // Drives.
    for (i, s) in b.storage.iter().enumerate() {
        ui.push_id(("drive", i), |ui| {
            let drive = state.build.parts.storage.iter().chain(&state.catalog.storage).find(|d| d.id == s.drive);
            let text = name_of(drive, Some(&s.drive));
            let row = PickRow {
                part: PartRef::Storage(i),
                label: format!("Drive {}", i + 1),
                remove_hover: format!("Remove drive {}", i + 1),
                target: PickTarget::Storage(i),
            };
            let (picked, removed) = removable_pick_row(ui, state, view, &row, &s.drive, &text, pw);
            if let Some(id) = picked {
                out.push(Action::Edit(EditAction::SetStorageDrive(i, id)));
            }
            if removed {
                out.push(Action::Edit(EditAction::RemoveStorage(i)));
            }
            if let Some(board) = res.board {
                ui.horizontal(|ui| {
                    ui.add_space(LABEL_W + 8.0);
                    let l = ui.weak("in");
                    // A board whose M.2 sockets the catalog lists by interface only (an import):
                    // the drive sits in one of them, unnamed, not off the board.
                    let unnamed = board.m2_slots.is_empty() && !board.m2_interfaces.is_empty();
                    let none = if unnamed { "an unnamed M.2 socket" } else { "not on the board" };
                    let current = s.m2_slot.clone().unwrap_or_else(|| none.into());
                    egui::ComboBox::from_id_salt(("m2", i))
                        .selected_text(current)
                        .show_ui(ui, |ui| {
                            if ui.selectable_label(s.m2_slot.is_none(), none).clicked() {
                                out.push(Action::Edit(EditAction::SetStorageSlot(i, None)));
                            }
                            for m in &board.m2_slots {
                                let src = if m.lane_source == LaneSource::Cpu { "CPU" } else { "chipset" };
                                let t = format!("{} · Gen{} x{} · {src}", m.name, m.pcie_gen, m.lanes);
                                if ui.selectable_label(s.m2_slot.as_deref() == Some(m.name.as_str()), t).clicked() {
                                    out.push(Action::Edit(EditAction::SetStorageSlot(i, Some(m.name.clone()))));
                                }
                            }
                        })
                        .response
                        .labelled_by(l.id);
                });
            }
        });
    }
    ui.horizontal(|ui| {
        let l = part_label(ui, "Add drive", None, false);
        let picked = Picker {
            target: PickTarget::NewStorage,
            current: None,
            current_text: "Add an NVMe drive…",
            allow_none: false,
            width: pw,
            label_id: l.id,
            highlighted: false,
        }
        .show(ui, &mut view.picks, state);
        if let Some(Picked::Part(id)) = picked {
            out.push(Action::Edit(EditAction::AddStorage(id)));
        }
    });
}

fn gpus(ui: &mut egui::Ui, state: &AppState, view: &mut ViewState, out: &mut Vec<Action>) {
    let b = &state.build;
    let res = b.resolve(&state.catalog);
    let pw = picker_width(ui);
    if b.gpus.is_empty() {
        ui.horizontal(|ui| {
            let l = part_label(ui, "Add GPU", None, false);
            let picked = Picker {
                target: PickTarget::NewGpu,
                current: None,
                current_text: "Choose a GPU model…",
                allow_none: false,
                width: pw,
                label_id: l.id,
                highlighted: false,
            }
            .show(ui, &mut view.picks, state);
            if let Some(Picked::Part(id)) = picked {
                out.push(Action::Edit(EditAction::AddGpu(id)));
            }
        });
        return;
    }
    let first = &b.gpus[0].gpu;
    let same = b.gpus.iter().all(|g| &g.gpu == first);
    let model_text = if same {
        name_of(res.gpus[0], Some(first))
    } else {
        let mut ids: Vec<&str> = b.gpus.iter().map(|g| g.gpu.as_str()).collect();
        ids.sort_unstable();
        ids.dedup();
        format!("mixed: {} models", ids.len())
    };
    ui.horizontal(|ui| {
        let any_hl = (0..b.gpus.len()).any(|i| view.is_highlighted(PartRef::Gpu(i)));
        let sev = (0..b.gpus.len()).filter_map(|i| state.severity_of(PartRef::Gpu(i))).max();
        let l = part_label(ui, "Model", sev, any_hl);
        let picked = Picker {
            target: PickTarget::AllGpus,
            current: if same { Some(first.as_str()) } else { None },
            current_text: &model_text,
            allow_none: false,
            width: pw,
            label_id: l.id,
            highlighted: any_hl,
        }
        .show(ui, &mut view.picks, state);
        if let Some(Picked::Part(id)) = picked {
            out.push(Action::Edit(EditAction::SetGpuModel(None, id)));
        }
    });
    let last_model = b.gpus.last().map_or_else(|| first.clone(), |g| g.gpu.clone());
    ui.horizontal(|ui| {
        let l = part_label(ui, "Count", None, false);
        if ui.button("Remove GPU").on_hover_text("Remove the last GPU").clicked() {
            out.push(Action::Edit(EditAction::RemoveGpu(b.gpus.len() - 1)));
        }
        let mut n = b.gpus.len();
        if ui.add(egui::DragValue::new(&mut n).range(0..=64).clamp_existing_to_range(false)).labelled_by(l.id).changed()
        {
            out.push(Action::Edit(EditAction::SetGpuCount(n, last_model.clone())));
        }
        if ui.button("Add GPU").on_hover_text("Add another GPU of the last model in the next free slot").clicked() {
            out.push(Action::Edit(EditAction::AddGpu(last_model.clone())));
        }
    });
    ui.horizontal(|ui| {
        ui.add_space(LABEL_W + 8.0);
        if ui.button("Auto-place").on_hover_text("Place every GPU again in the first free slots that fit it").clicked()
        {
            out.push(Action::Edit(EditAction::AutoPlaceGpus));
        }
        ui.checkbox(&mut view.link_limits, "One power limit for all");
    });
    ui.add_space(theme::SMALL_GAP);
    for i in 0..b.gpus.len() {
        ui.push_id(("gpu", i), |ui| gpu_row(ui, state, view, out, i));
    }
    bridges(ui, state, out);
}

// Over 120 lines: one GPU's row (model picker, slot, riser, power limit, PSU and cable
// choices) in the order the panel shows them, over the same state, view and action list.
fn gpu_row(ui: &mut egui::Ui, state: &AppState, view: &ViewState, out: &mut Vec<Action>, i: usize) {
    let bld = &state.build;
    let res = bld.resolve(&state.catalog);
    let place = &bld.gpus[i];
    let gpu = res.gpus.get(i).copied().flatten();
    let part = PartRef::Gpu(i);
    let hl = view.is_highlighted(part);
    let sev = state.severity_of(part);
    let stroke = if hl {
        theme::highlight_stroke(2.0)
    } else {
        egui::Stroke::new(1.0, sev.map_or(ui.visuals().widgets.noninteractive.bg_stroke.color, theme::severity))
    };
    let frame = egui::Frame::group(ui.style()).stroke(stroke);
    let framed = theme::full_width(ui, frame, |ui| {
        ui.horizontal(|ui| {
            ui.label(RichText::new(format!("GPU {}", i + 1)).strong());
            if let Some(s) = sev {
                theme::dot(ui, theme::severity(s), true);
            }
            ui.label(gpu.map_or_else(|| format!("{} (unknown)", place.gpu), |card| card.name.clone()));
            ui.with_layout(egui::Layout::right_to_left(egui::Align::Center), |ui| {
                if ui.small_button("×").on_hover_text(format!("Remove GPU {}", i + 1)).clicked() {
                    out.push(Action::Edit(EditAction::RemoveGpu(i)));
                }
                let mut b_model = None;
                ui.menu_button("…", |ui| {
                    ui.label("Change this GPU's model:");
                    for m in kraftwerk_core::rig::edit::merged(&bld.parts.gpus, &state.catalog.gpus) {
                        if ui.selectable_label(m.id == place.gpu, m.display_name()).clicked() {
                            b_model = Some(m.id.clone());
                        }
                    }
                })
                .response
                .on_hover_text("Change this GPU's model");
                if let Some(id) = b_model {
                    out.push(Action::Edit(EditAction::SetGpuModel(Some(i), id)));
                }
            });
        });
        // Owned or bought used, as every cost of the build counts it (`Build::owned_units`, the
        // one split: with `1x id` owned, the first card of that id is the owned one).
        let owned = bld.owned_units(bld.gpus.iter().map(|g| (g.gpu.as_str(), 1))).get(i).copied().unwrap_or(0) > 0;
        let how = if owned {
            Some("owned: not bought, $0 in the cost")
        } else if bld.is_used(&place.gpu) {
            Some("bought used: priced at its cited used price")
        } else {
            None
        };
        if let Some(how) = how {
            ui.colored_label(theme::INFO, RichText::new(how).small().strong());
        }
        let Some(gpu) = gpu else { return };
        if gpu.form_factor == GpuFormFactor::Sxm {
            ui.weak("SXM module on its baseboard: no slot, no cables.");
        } else if let Some(board) = res.board {
            ui.horizontal(|ui| {
                let l = ui.label("Slot");
                let current = match (place.slot_in(board), place.is_placed()) {
                    (Some(s), _) => s
                        .position
                        .map_or_else(|| format!("{} (position unknown)", s.name), |p| format!("{p} · {}", s.name)),
                    (None, false) => "not in a slot".to_owned(),
                    (None, true) if board.slot_layout_known() => format!("{} (none there)", place.slot_text()),
                    (None, true) => format!("{} (slot layout unknown)", place.slot_text()),
                };
                egui::ComboBox::from_id_salt("slot")
                    .selected_text(current)
                    .width(150.0)
                    .show_ui(ui, |ui| {
                        if ui.selectable_label(!place.is_placed(), "not in a slot").clicked() {
                            out.push(Action::Edit(EditAction::SetGpuSlot(i, None)));
                        }
                        for s in &board.pcie_slots {
                            let src = if s.lane_source == LaneSource::Cpu { "CPU" } else { "chipset" };
                            let here = |o: &kraftwerk_core::rig::GpuPlacement| {
                                o.slot_in(board).is_some_and(|x| x.name == s.name)
                            };
                            let taken = bld.gpus.iter().enumerate().any(|(j, o)| j != i && here(o));
                            let t = format!(
                                "{} · {} · x{} slot, x{} Gen{} {src}{}",
                                s.position.map_or_else(|| "?".to_owned(), |p| p.to_string()),
                                s.name,
                                s.physical_lanes,
                                s.electrical_lanes,
                                s.pcie_gen,
                                if taken { " (taken)" } else { "" }
                            );
                            if ui.selectable_label(here(place), t).clicked() {
                                out.push(match s.position {
                                    Some(p) => Action::Edit(EditAction::SetGpuSlot(i, Some(p))),
                                    None => Action::Edit(EditAction::SetGpuSlotNamed(i, s.name.clone())),
                                });
                            }
                        }
                    })
                    .response
                    .labelled_by(l.id);
                let mut on_riser = place.riser.is_some();
                if ui
                    .checkbox(&mut on_riser, "riser")
                    .on_hover_text("Card on a riser cable: covers no slots of the board")
                    .changed()
                {
                    out.push(Action::Edit(EditAction::SetGpuRiser(
                        i,
                        if on_riser { Some(Riser { pcie_gen: 4, length_mm: None }) } else { None },
                    )));
                }
                if let Some(riser) = place.riser {
                    let l = ui.weak("Gen");
                    egui::ComboBox::from_id_salt("riser-gen")
                        .selected_text(riser.pcie_gen.to_string())
                        .width(40.0)
                        .show_ui(ui, |ui| {
                            for gen_ in [3u8, 4, 5] {
                                if ui.selectable_label(riser.pcie_gen == gen_, gen_.to_string()).clicked() {
                                    out.push(Action::Edit(EditAction::SetGpuRiser(
                                        i,
                                        Some(Riser { pcie_gen: gen_, ..riser }),
                                    )));
                                }
                            }
                        })
                        .response
                        .labelled_by(l.id);
                }
            });
        } else {
            ui.weak("Choose a motherboard to place this card.");
        }
        if bld.psus.len() > 1 {
            ui.horizontal(|ui| {
                let l = ui.label("Fed by");
                let psu_name = |k: usize| {
                    res.psus
                        .get(k)
                        .copied()
                        .flatten()
                        .map_or_else(|| format!("PSU {} (missing)", k + 1), |ps| format!("PSU {}: {}", k + 1, ps.name))
                };
                let w = ui.available_width() - 4.0;
                super::widgets::sized(ui, w, |ui| {
                    egui::ComboBox::from_id_salt("psu")
                        .selected_text(psu_name(place.psu))
                        .width(w - 8.0)
                        .truncate()
                        .show_ui(ui, |ui| {
                            for k in 0..bld.psus.len() {
                                if ui.selectable_label(place.psu == k, psu_name(k)).clicked() {
                                    out.push(Action::Edit(EditAction::SetGpuPsu(i, k)));
                                }
                            }
                        })
                        .response
                        .labelled_by(l.id);
                });
            });
        }
        // Power limit, bounded by the card's range (half the board power where no minimum is
        // published, as the checker's advice does).
        let max = gpu.max_limit_w();
        let min = gpu.min_power_limit_w.unwrap_or(gpu.board_power_w * 0.5).min(max);
        if !(min.is_finite() && max.is_finite() && min > 0.0 && min <= max) {
            ui.colored_label(
                theme::WARNING,
                "This card's power figures are not usable numbers; no power-limit slider.",
            );
            return;
        }
        let current = place.power_limit_w.filter(|w| w.is_finite()).unwrap_or(gpu.board_power_w).clamp(min, max);
        ui.horizontal(|ui| {
            let mut v = current;
            let resp =
                ui.add(egui::Slider::new(&mut v, min..=max).step_by(5.0).fixed_decimals(0).suffix(" W").text("limit"));
            let resp = if gpu.min_power_limit_w.is_none() {
                resp.on_hover_text(format!(
                    "{} publishes no minimum; the slider stops at half the board power.",
                    gpu.name
                ))
            } else {
                resp.on_hover_text(format!("nvidia-smi -pl; range {min:.0}–{max:.0} W"))
            };
            if resp.changed() {
                out.push(if view.link_limits {
                    Action::Edit(EditAction::SetAllPowerLimits(Some(v)))
                } else {
                    Action::Edit(EditAction::SetGpuPowerLimit(i, Some(v)))
                });
            }
            if place.power_limit_w.is_some()
                && ui
                    .small_button("default")
                    .on_hover_text(format!("Back to the default {:.0} W", gpu.board_power_w))
                    .clicked()
            {
                out.push(if view.link_limits {
                    Action::Edit(EditAction::SetAllPowerLimits(None))
                } else {
                    Action::Edit(EditAction::SetGpuPowerLimit(i, None))
                });
            }
        });
        let kept = throughput_kept(gpu, current.min(gpu.board_power_w));
        let decode = decode_kept(gpu, current.min(gpu.board_power_w));
        let link = state.report.links.iter().find(|l| l.gpu == i);
        ui.horizontal_wrapped(|ui| {
            if kept < 0.999 {
                ui.weak(format!("≈{:.0} % compute, {:.0} % decode speed", kept * 100.0, decode * 100.0))
                    .on_hover_text("The power-limit curves the speed estimates use at this limit: compute-bound work (prefill, training) and memory-bound decode");
            }
            if link.is_none() && gpu.form_factor != GpuFormFactor::Sxm {
                ui.weak(format!("link {}", kraftwerk_core::rig::links::LINK_UNKNOWN));
            }
            if let Some(l) = link {
                let degraded = l.pcie_gen < l.gpu_gen || l.lanes < l.gpu_lanes;
                let t = format!("link Gen{} x{} · {:.1} GB/s", l.pcie_gen, l.lanes, l.bandwidth_gb_s);
                if degraded {
                    ui.colored_label(theme::WARNING, t);
                } else {
                    ui.weak(t);
                }
            }
        });
    });
    theme::scroll_if_highlighted(ui, framed.response.rect, hl);
}

fn bridges(ui: &mut egui::Ui, state: &AppState, out: &mut Vec<Action>) {
    let b = &state.build;
    let res = b.resolve(&state.catalog);
    let capable: Vec<(usize, &kraftwerk_catalog::Gpu)> = res
        .gpus
        .iter()
        .enumerate()
        .filter_map(|(i, g)| g.filter(|g| matches!(g.nvlink, NvLink::Bridge { .. })).map(|g| (i, g)))
        .collect();
    if capable.len() < 2 && b.nvlink.is_empty() {
        return;
    }
    ui.add_space(theme::SMALL_GAP);
    ui.label(RichText::new("NVLink bridges").strong());
    for (k, br) in b.nvlink.iter().enumerate() {
        ui.horizontal(|ui| {
            let sev = state.severity_of(PartRef::Bridge(k));
            let color = sev.map_or(theme::BRIDGE, theme::severity);
            ui.colored_label(
                color,
                format!("GPU {} – GPU {} · {}-slot bridge", br.gpus.0 + 1, br.gpus.1 + 1, br.spacing_slots),
            );
            if ui.small_button("×").on_hover_text(format!("Remove bridge {}", k + 1)).clicked() {
                out.push(Action::Edit(EditAction::RemoveBridge(k)));
            }
        });
    }
    let bridged = |i: usize| b.nvlink.iter().any(|br| br.gpus.0 == i || br.gpus.1 == i);
    let free: Vec<&(usize, &kraftwerk_catalog::Gpu)> = capable.iter().filter(|(i, _)| !bridged(*i)).collect();
    if free.len() >= 2 {
        ui.menu_button("Add NVLink bridge…", |ui| {
            for (x, (i, gi)) in free.iter().enumerate() {
                for (j, gj) in free.iter().skip(x + 1) {
                    if gi.id != gj.id {
                        continue;
                    }
                    let spacing = match (b.gpus[*i].slot, b.gpus[*j].slot) {
                        (Some(a), Some(c)) => a.abs_diff(c),
                        _ => match &gi.nvlink {
                            NvLink::Bridge { bridge_slot_spacings, .. } => {
                                bridge_slot_spacings.as_ref().and_then(|s| s.first().copied()).unwrap_or(3)
                            }
                            _ => 3,
                        },
                    };
                    if ui.button(format!("GPU {} – GPU {} ({spacing}-slot)", i + 1, j + 1)).clicked() {
                        out.push(Action::Edit(EditAction::AddBridge(*i, *j, spacing)));
                    }
                }
            }
        });
    }
}
