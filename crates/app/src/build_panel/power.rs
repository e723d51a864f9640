//! The build panel's power rows: the PSUs (model, count, which GPUs each feeds) and the site
//! (mains voltage, breaker, circuits, outlet, electricity price, duty cycle), edited in place
//! and sent as [`EditAction`]s.

use super::{
    Action, AppState, EditAction, LABEL_W, PartRef, PickRow, PickTarget, Picked, Picker, Site, ViewState, egui,
    name_of, part_label, picker_width, removable_pick_row,
};

pub(super) fn psus(ui: &mut egui::Ui, state: &AppState, view: &mut ViewState, out: &mut Vec<Action>) {
    let b = &state.build;
    let res = b.resolve(&state.catalog);
    let pw = picker_width(ui);
    let sys = b.system_psu();
    for (i, u) in b.psus.iter().enumerate() {
        ui.push_id(("psu", i), |ui| {
            let text = name_of(res.psus.get(i).copied().flatten(), Some(&u.psu));
            let row = PickRow {
                part: PartRef::Psu(i),
                label: format!("PSU {}", i + 1),
                remove_hover: format!("Remove PSU {}", i + 1),
                target: PickTarget::Psu(i),
            };
            let (picked, removed) = removable_pick_row(ui, state, view, &row, &u.psu, &text, pw);
            if let Some(id) = picked {
                out.push(Action::Edit(EditAction::SetPsuModel(i, id)));
            }
            if removed {
                out.push(Action::Edit(EditAction::RemovePsu(i)));
            }
            if let Some(load) = state.report.power.psus.iter().find(|pl| pl.index == i) {
                ui.horizontal(|ui| {
                    ui.add_space(LABEL_W + 8.0);
                    // The psu-capacity finding's colour, not a threshold of the window's own.
                    let color = crate::judged::judge(
                        &state.report,
                        kraftwerk_core::check::PartRef::Psu(i),
                        crate::judged::PSU_LOAD_RULES,
                    )
                    .color();
                    ui.colored_label(
                        color,
                        format!("{:.0} W of {:.0} W ({:.0} %)", load.dc_w, load.rated_w, load.load_fraction * 100.0),
                    );
                });
            }
            if b.psus.len() > 1 || b.site.circuits > 1 {
                ui.horizontal(|ui| {
                    ui.add_space(LABEL_W + 8.0);
                    if b.psus.len() > 1 && ui.radio(sys == Some(i), "feeds board & CPU").clicked() {
                        out.push(Action::Edit(EditAction::SetSystemPsu(i)));
                    }
                    let l = ui.weak("circuit");
                    let n = b.site.circuits.max(b.psus.len());
                    egui::ComboBox::from_id_salt("circuit")
                        .selected_text((u.circuit + 1).to_string())
                        .width(44.0)
                        .show_ui(ui, |ui| {
                            for c in 0..n {
                                if ui.selectable_label(u.circuit == c, (c + 1).to_string()).clicked() {
                                    out.push(Action::Edit(EditAction::SetPsuCircuit(i, c)));
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
        let l = part_label(ui, "Add PSU", None, false);
        let picked = Picker {
            target: PickTarget::NewPsu,
            current: None,
            current_text: if b.psus.is_empty() { "Choose a PSU…" } else { "Add another PSU…" },
            allow_none: false,
            width: pw,
            label_id: l.id,
            highlighted: false,
        }
        .show(ui, &mut view.picks, state);
        if let Some(Picked::Part(id)) = picked {
            out.push(Action::Edit(EditAction::AddPsu(id)));
        }
    });
}

pub(super) fn site(ui: &mut egui::Ui, state: &AppState, view: &ViewState, out: &mut Vec<Action>) {
    let s = &state.build.site;
    let mut new = s.clone();
    egui::Grid::new("site-grid").num_columns(2).spacing([8.0, 6.0]).show(ui, |ui| {
        let hl_circuit = (0..s.circuits.max(1)).any(|c| view.is_highlighted(PartRef::Circuit(c)));
        let l = ui.label("Mains");
        ui.horizontal(|ui| {
            ui.add(
                egui::DragValue::new(&mut new.mains_v)
                    .range(90.0..=480.0)
                    .clamp_existing_to_range(false)
                    .speed(1.0)
                    .suffix(" V"),
            )
            .labelled_by(l.id);
            if ui.small_button("120 V · 15 A").on_hover_text("US residential circuit").clicked() {
                new.mains_v = 120.0;
                new.circuit_a = 15.0;
            }
            if ui.small_button("230 V · 16 A").on_hover_text("EU circuit (Schuko outlet)").clicked() {
                new.mains_v = 230.0;
                new.circuit_a = 16.0;
            }
        });
        ui.end_row();
        let sev = (0..s.circuits.max(1)).filter_map(|c| state.severity_of(PartRef::Circuit(c))).max();
        let l = part_label(ui, "Circuit", sev, hl_circuit);
        ui.horizontal(|ui| {
            ui.add(
                egui::DragValue::new(&mut new.circuit_a)
                    .range(1.0..=1000.0)
                    .clamp_existing_to_range(false)
                    .speed(0.5)
                    .suffix(" A breaker"),
            )
            .labelled_by(l.id);
            let l2 = ui.weak("×");
            ui.add(
                egui::DragValue::new(&mut new.circuits)
                    .range(1..=64)
                    .clamp_existing_to_range(false)
                    .suffix(" circuits"),
            )
            .labelled_by(l2.id);
        });
        ui.end_row();
        let l = ui.label("Ambient");
        ui.add(
            egui::DragValue::new(&mut new.ambient_c)
                .range(-20.0..=60.0)
                .clamp_existing_to_range(false)
                .speed(0.5)
                .suffix(" °C"),
        )
        .labelled_by(l.id);
        ui.end_row();
        let l = ui.label("Electricity");
        ui.add(
            egui::DragValue::new(&mut new.price_per_kwh)
                .range(0.0..=10.0)
                .clamp_existing_to_range(false)
                .speed(0.005)
                .max_decimals(3)
                .prefix("$")
                .suffix(" per kWh"),
        )
        .labelled_by(l.id);
        ui.end_row();
        let l = ui.label("Duty cycle");
        let mut pct = new.duty_cycle * 100.0;
        if ui.add(egui::Slider::new(&mut pct, 0.0..=100.0).suffix(" %").text("of the time")).labelled_by(l.id).changed()
        {
            new.duty_cycle = pct / 100.0;
        }
        ui.end_row();
    });
    if new != *s {
        out.push(Action::Edit(EditAction::SetSite(sanitize_site(new))));
    }
}

/// Keeps typed site values finite and in range.
fn sanitize_site(mut s: Site) -> Site {
    let fix = |v: f64, lo: f64, hi: f64, default: f64| if v.is_finite() { v.clamp(lo, hi) } else { default };
    s.mains_v = fix(s.mains_v, 90.0, 480.0, 120.0);
    s.circuit_a = fix(s.circuit_a, 1.0, 1000.0, 15.0);
    s.ambient_c = fix(s.ambient_c, -20.0, 60.0, 25.0);
    s.price_per_kwh = fix(s.price_per_kwh, 0.0, 10.0, 0.17);
    s.duty_cycle = fix(s.duty_cycle, 0.0, 1.0, 0.5);
    s.circuits = s.circuits.clamp(1, 64);
    s
}
