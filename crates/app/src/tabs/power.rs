//! The Power & thermal tab: sustained power per component as stacked bars (idle, inference,
//! full load), each PSU's load on its efficiency curve, transient peaks against the PSU's
//! ATX 3.x excursion limits, wall draw against the circuit, heat, electricity cost, per-GPU
//! thermal risk and the power-limit advice. Every number comes from
//! [`kraftwerk_core::estimate::power`] through the report, as `kraftwerk power` prints it.

use crate::command::{Action, EditAction};
use crate::judged;
use crate::state::AppState;
use crate::theme;
use crate::view_state::ViewState;
use crate::widgets::{self, Stat};
use eframe::egui::{self, Color32, RichText};
use egui_plot::{Bar, BarChart, GridMark, HLine, Line, LineStyle, Plot, PlotPoints, Points, VLine};
use kraftwerk_core::check::PartRef;
use kraftwerk_core::estimate::power::{Component, PSU_SUSTAINED_GUIDELINE, PowerEstimate};
use kraftwerk_core::fmt::{usd, usd_rate};

/// Height of each plot, points.
const PLOT_H: f32 = 260.0;

/// Draws the tab.
pub fn show(ui: &mut egui::Ui, state: &AppState, _view: &mut ViewState, out: &mut Vec<Action>) {
    egui::ScrollArea::vertical().id_salt("power-scroll").auto_shrink([false, false]).show(ui, |ui| {
        summary(ui, state);
        ui.add_space(theme::SECTION_GAP);
        verdict(ui, state);
        ui.add_space(theme::SECTION_GAP);
        advice(ui, state, out);
        ui.add_space(theme::SECTION_GAP);
        // Each column left-aligned: `columns` justifies, which spreads a wrapped line's words.
        ui.columns(2, |c| {
            let [left, right] = c else { return };
            left.vertical(|ui| components_plot(ui, state));
            right.vertical(|ui| efficiency_plot(ui, state));
        });
        ui.add_space(theme::SECTION_GAP);
        ui.columns(2, |c| {
            let [left, right] = c else { return };
            left.vertical(|ui| transient_plot(ui, state));
            right.vertical(|ui| wall(ui, state));
        });
        ui.add_space(theme::SECTION_GAP);
        thermal(ui, state);
        ui.add_space(theme::SECTION_GAP);
        ui.weak(
            "Full load = GPUs at their power limits, CPU at its package power (training, GEMM; each PSU is judged at it in every mode). Inference = GPUs at 65 % of their limit \
             (decode is memory-bound). The peak factors and their sources: `kraftwerk check --explain psu-transient`; the source of every factor: docs/sources.md.",
        );
    });
}

fn summary(ui: &mut egui::Ui, state: &AppState) {
    let e = &state.training;
    let site = &state.build.site;
    let mut cards: Vec<Stat> = Vec::new();
    {
        // Coloured only by a finding that names a circuit (`check`'s severity for the build's
        // workload), never by a threshold of the window's own.
        let color = e
            .circuits
            .iter()
            .filter_map(|c| judged::circuit(&state.report, c.index).severity)
            .max()
            .map(theme::severity);
        // A wall draw through a PSU of unknown efficiency (or with no PSU) is unknown: the cards
        // say so rather than show a figure.
        let unknown = "unknown (a PSU's efficiency is unknown, or no PSU is chosen)";
        let w = kraftwerk_core::report::watts_or_unknown;
        cards.push(Stat::new(
            "Full load",
            format!("{} at the wall", w(e.total_wall_w)),
            e.total_wall_w.map_or_else(
                || format!("{:.0} W DC · wall draw {unknown}", e.total_dc_w),
                |wall| {
                    format!("{:.0} W DC · {:.1} A at {:.0} V", e.total_dc_w, wall / site.mains_v.max(1.0), site.mains_v)
                },
            ),
            color,
        ));
        cards.push(Stat::new(
            "Inference · idle",
            format!("{} · {}", w(state.inference.total_wall_w), w(state.idle.total_wall_w)),
            "at the wall".into(),
            None,
        ));
        cards.push(Stat::new(
            "Heat into the room",
            e.heat_btu_h.map_or_else(|| "unknown".to_owned(), |h| format!("{h:.0} BTU/h")),
            format!("{}; {:.0} W inside the case", w(e.heat_w), e.case_heat_w),
            None,
        ));
        // At the workload's load (`check`'s and the fit's cost basis), not full load: the
        // working hours of the duty cycle at that load, the others idle.
        match &state.report.power.cost {
            Some(c) => cards.push(Stat::new(
                "Electricity",
                format!("{} / month", usd(c.per_month_usd)),
                format!(
                    "{:.0} % of hours at {:.0} W ({}), idle {:.0} W · {:.0} kWh/month at {}/kWh",
                    c.duty * 100.0,
                    c.working_wall_w,
                    state.report.power.state.name(),
                    c.idle_wall_w,
                    c.kwh_per_month,
                    usd_rate(site.price_per_kwh),
                ),
                None,
            )),
            None => cards.push(Stat::new("Electricity", "unknown".into(), format!("the wall draw is {unknown}"), None)),
        }
    }
    widgets::stat_cards(ui, &cards);
}

/// The power rules' findings as `check` reports them ([`kraftwerk_core::check::power_findings`]
/// of the same report the Checks tab and the status bar read), so the tab never disagrees with
/// them on severity.
fn verdict(ui: &mut egui::Ui, state: &AppState) {
    let findings = kraftwerk_core::check::power_findings(&state.report);
    ui.label(RichText::new("Power verdict").heading());
    ui.weak(format!("As `kraftwerk check` reports it: {}.", state.report.power_basis));
    // The power rules that could not check a part: "no power finding" alone would read as a
    // pass over them (as `kraftwerk power` lists them).
    let not_checked = kraftwerk_core::check::power_not_checked(&state.report);
    if findings.is_empty() && !state.build.psus.is_empty() {
        if not_checked.is_empty() {
            ui.colored_label(theme::OK, "No power finding.");
        } else {
            ui.colored_label(theme::WARNING, "No power finding in what was checked; not checked:");
        }
    }
    for f in &not_checked {
        ui.horizontal_wrapped(|ui| {
            ui.colored_label(theme::WARNING, "not checked");
            ui.label(RichText::new(format!("[{}]", f.rule)).monospace());
            ui.add(egui::Label::new(&f.message).wrap());
        });
    }
    for f in findings {
        ui.horizontal_wrapped(|ui| {
            theme::dot(ui, theme::severity(f.severity), true);
            ui.colored_label(theme::severity(f.severity), theme::severity_word(f.severity));
            ui.label(RichText::new(format!("[{}]", f.rule)).monospace());
            ui.add(egui::Label::new(&f.message).wrap());
        });
        ui.horizontal_wrapped(|ui| {
            ui.add_space(18.0);
            ui.weak(format!("fix: {}", f.fix));
        });
    }
}

fn advice(ui: &mut egui::Ui, state: &AppState, out: &mut Vec<Action>) {
    let Some(a) = &state.report.advice else {
        if !state.build.gpus.is_empty() && !state.build.psus.is_empty() {
            if state.report.power.circuits.iter().any(|c| c.amps.is_none()) {
                ui.colored_label(
                    theme::WARNING,
                    format!(
                        "At full load every PSU stays within its {:.0} % guideline; a circuit's wall draw is unknown (a PSU's efficiency is unknown), so no circuit is shown to be within its continuous limit (only the least it can draw is).",
                        PSU_SUSTAINED_GUIDELINE * 100.0
                    ),
                );
            } else {
                ui.colored_label(
                    theme::OK,
                    format!(
                        "Within limits: at full load every PSU stays within its {:.0} % guideline and every circuit within its continuous limit.",
                        PSU_SUSTAINED_GUIDELINE * 100.0
                    ),
                );
            }
        }
        return;
    };
    theme::full_width(
        ui,
        egui::Frame::new()
            .stroke(egui::Stroke::new(1.5, theme::WARNING))
            .corner_radius(theme::radius())
            .inner_margin(egui::Margin::same(10)),
        |ui| {
            ui.label(RichText::new("Power-limit advice").heading().color(theme::WARNING));
            ui.add(egui::Label::new(format!("At full load (every GPU at its power limit): {}", a.problem)).wrap());
            match (a.common_limit_w, a.throughput_kept) {
                (Some(l), Some(k)) => {
                    ui.horizontal_wrapped(|ui| {
                        ui.label(format!(
                            "Cap every GPU at {l:.0} W (nvidia-smi -pl {l:.0}): keeps about {:.0} % of full-load throughput, with {}",
                            k * 100.0,
                            a.basis
                        ));
                        if let Some(e) = &a.at_limit {
                            ui.label(format!("— {}.", kraftwerk_core::report::capped_full_load(a, e)));
                        }
                        if ui.button(format!("Apply {l:.0} W to every GPU")).clicked() {
                            out.push(Action::Edit(EditAction::SetAllPowerLimits(Some(l))));
                        }
                    });
                }
                _ => {
                    ui.colored_label(
                        theme::ERROR,
                        format!("No common power limit within the cards' range brings {}.", a.basis),
                    );
                }
            }
            for alt in &a.alternatives {
                ui.label(format!("• or {alt}"));
            }
        },
    );
}

fn static_plot(id: &str) -> Plot<'_> {
    crate::widgets::static_plot(id, PLOT_H)
}

fn component_color(c: &Component) -> Color32 {
    match c {
        Component::Gpu(i) => theme::gpu_series(*i),
        Component::Cpu => theme::SERIES_CPU,
        _ => theme::SERIES_REST,
    }
}

fn components_plot(ui: &mut egui::Ui, state: &AppState) {
    ui.label(RichText::new("Sustained DC power per component").strong());
    let states: [&PowerEstimate; 3] = [&state.idle, &state.inference, &state.training];
    let full = &state.training;
    let mut charts: Vec<BarChart> = Vec::new();
    for comp in &full.components {
        let bars: Vec<Bar> = states
            .iter()
            .enumerate()
            .map(|(x, e)| {
                let w = e.components.iter().find(|c| c.component == comp.component).map_or(0.0, |c| c.power_w);
                Bar::new(x as f64, w).name(format!("{}: {w:.0} W", comp.label))
            })
            .collect();
        let refs: Vec<&BarChart> = charts.iter().collect();
        let chart =
            BarChart::new(comp.label.clone(), bars).color(component_color(&comp.component)).width(0.55).stack_on(&refs);
        charts.push(chart);
    }
    let totals: Vec<f64> = states.iter().map(|e| e.total_dc_w).collect();
    let rated_total: f64 = full.psus.iter().map(|ps| ps.rated_w).sum();
    let ymax = totals.iter().copied().fold(rated_total, f64::max) * 1.15 + 50.0;
    let plot = static_plot("power-components")
        .include_y(0.0)
        .include_y(ymax)
        .include_x(-0.6)
        .include_x(2.6)
        .x_grid_spacer(|_| (0..3).map(|v| GridMark { value: f64::from(v), step_size: 1.0 }).collect())
        .x_axis_formatter(|m, _| match m.value.round() as i64 {
            0 => "idle".into(),
            1 => "inference".into(),
            2 => "full load".into(),
            _ => String::new(),
        })
        .y_axis_formatter(|m, _| format!("{:.0} W", m.value))
        .y_axis_min_width(theme::y_axis_width(ui, "00000 W"));
    plot.show(ui, |p| {
        for c in charts {
            p.bar_chart(c);
        }
        for (x, t) in totals.iter().enumerate() {
            p.text(
                egui_plot::Text::new(
                    "",
                    egui_plot::PlotPoint::new(x as f64, t + ymax * 0.03),
                    RichText::new(format!("{t:.0} W")).strong(),
                )
                .anchor(egui::Align2::CENTER_BOTTOM),
            );
        }
        let rated: f64 = full.psus.iter().map(|ps| ps.rated_w).sum();
        if rated > 0.0 {
            let what = if full.psus.len() == 1 { "PSU" } else { "all PSUs" };
            p.hline(
                HLine::new(format!("{what}: {rated:.0} W rated"), rated)
                    .style(LineStyle::dashed_loose())
                    .color(theme::ERROR),
            );
            p.hline(
                HLine::new(
                    format!("{what}: {:.0} W = 80 % guideline", rated * PSU_SUSTAINED_GUIDELINE),
                    rated * PSU_SUSTAINED_GUIDELINE,
                )
                .style(LineStyle::dashed_loose())
                .color(theme::WARNING),
            );
        }
    });
    let mut items: Vec<(Color32, String)> = full
        .components
        .iter()
        .map(|c| (component_color(&c.component), format!("{}: {:.0} W", c.label, c.power_w)))
        .collect();
    if rated_total > 0.0 {
        items.push((theme::ERROR, format!("rated {rated_total:.0} W (dashed)")));
        items.push((theme::WARNING, format!("80 % guideline {:.0} W (dashed)", rated_total * PSU_SUSTAINED_GUIDELINE)));
    }
    theme::legend(ui, &items);
}

fn efficiency_plot(ui: &mut egui::Ui, state: &AppState) {
    ui.label(RichText::new("PSU load on its efficiency curve (full load)").strong());
    let e = &state.training;
    if e.psus.is_empty() {
        ui.weak("Add a PSU to see its load.");
        return;
    }
    let xmax = e.psus.iter().map(|p| p.load_fraction * 100.0).fold(110.0, f64::max) + 5.0;
    let ymin = e.psus.iter().flat_map(|p| p.curve.iter().map(|c| c.1)).fold(100.0, f64::min) - 26.0;
    let mut items: Vec<(Color32, String)> = Vec::new();
    for ps in &e.psus {
        items.push((theme::SERIES[(ps.index + 2) % theme::SERIES.len()], format!("PSU {} curve", ps.index + 1)));
        items
            .push((judged::judge(&state.report, PartRef::Psu(ps.index), judged::PSU_LOAD_RULES).color(), now_text(ps)));
    }
    items.push((theme::WARNING, "80 % guideline (dashed)".to_owned()));
    items.push((theme::ERROR, "rated (dashed)".to_owned()));
    static_plot("power-efficiency")
        .include_x(0.0)
        .include_x(xmax)
        .include_y(ymin)
        .include_y(100.0)
        .x_axis_formatter(|m, _| format!("{:.0} %", m.value))
        .y_axis_formatter(|m, _| format!("{:.0} %", m.value))
        .y_axis_min_width(theme::y_axis_width(ui, "100 %"))
        .show(ui, |p| {
            for ps in &e.psus {
                let c = theme::SERIES[(ps.index + 2) % theme::SERIES.len()];
                let pts: Vec<[f64; 2]> = ps.curve.iter().map(|&(x, y)| [x, y]).collect();
                p.line(Line::new(format!("PSU {} curve", ps.index + 1), PlotPoints::new(pts)).color(c).width(2.0));
                // A PSU of unknown efficiency has no curve and no point: nothing is drawn for it.
                let Some(eff) = ps.efficiency else { continue };
                let load_color = judged::judge(&state.report, PartRef::Psu(ps.index), judged::PSU_LOAD_RULES).color();
                p.points(
                    Points::new(now_text(ps), vec![[ps.load_fraction * 100.0, eff * 100.0]])
                        .radius(7.0)
                        .color(load_color),
                );
            }
            p.vline(
                VLine::new("80 % guideline", PSU_SUSTAINED_GUIDELINE * 100.0)
                    .color(theme::WARNING)
                    .style(LineStyle::dashed_loose()),
            );
            p.vline(VLine::new("rated", 100.0).color(theme::ERROR).style(LineStyle::dashed_loose()));
        });
    theme::legend(ui, &items);
}

fn duration_label(log10_s: f64) -> String {
    let s = 10f64.powf(log10_s);
    if s < 1e-3 - 1e-9 { format!("{:.0} µs", s * 1e6) } else { format!("{:.0} ms", s * 1e3) }
}

fn transient_plot(ui: &mut egui::Ui, state: &AppState) {
    ui.label(RichText::new("Transient peaks vs the PSU's excursion limits").strong());
    let e = &state.training;
    if e.psus.is_empty() {
        ui.weak("Add a PSU to compare its excursion limits.");
        return;
    }
    let ymax = e
        .psus
        .iter()
        .flat_map(|p| p.transients.iter().map(|t| t.peak_w.max(t.limit_w.unwrap_or(0.0))))
        .fold(0.0, f64::max)
        * 1.1;
    let mut items: Vec<(Color32, String)> = Vec::new();
    for ps in &e.psus {
        items.push((
            theme::SERIES[(ps.index + 2) % theme::SERIES.len()],
            format!("PSU {} estimated peak", ps.index + 1),
        ));
        let spec = ps.transients.iter().any(|t| t.limit_w.is_some());
        let limit = if spec { "ATX 3.x limit (dashed)" } else { "rating (no ATX 3.x excursion spec)" };
        items.push((theme::ERROR, format!("PSU {} {limit}", ps.index + 1)));
    }
    static_plot("power-transients")
        .include_x(-4.2)
        .include_x(-0.8)
        .include_y(0.0)
        .include_y(ymax)
        .x_grid_spacer(|_| (1..=4).map(|k| GridMark { value: -f64::from(k), step_size: 1.0 }).collect())
        .x_axis_formatter(|m, _| duration_label(m.value))
        .y_axis_formatter(|m, _| format!("{:.0} W", m.value))
        .y_axis_min_width(theme::y_axis_width(ui, "00000 W"))
        .show(ui, |p| {
            for ps in &e.psus {
                let c = theme::SERIES[(ps.index + 2) % theme::SERIES.len()];
                let peaks: Vec<[f64; 2]> = ps.transients.iter().map(|t| [t.duration_s.log10(), t.peak_w]).collect();
                p.line(
                    Line::new(format!("PSU {} estimated peak", ps.index + 1), PlotPoints::new(peaks.clone()))
                        .color(c)
                        .width(2.5),
                );
                p.points(Points::new(format!("PSU {} estimated peak", ps.index + 1), peaks).color(c).radius(4.0));
                let limits: Vec<[f64; 2]> =
                    ps.transients.iter().filter_map(|t| t.limit_w.map(|l| [t.duration_s.log10(), l])).collect();
                if limits.is_empty() {
                    p.hline(
                        HLine::new(format!("PSU {} rating (no ATX 3.x excursion spec)", ps.index + 1), ps.rated_w)
                            .color(theme::ERROR),
                    );
                } else {
                    p.line(
                        Line::new(format!("PSU {} ATX 3.x limit", ps.index + 1), PlotPoints::new(limits))
                            .color(theme::ERROR)
                            .style(LineStyle::dashed_loose())
                            .width(2.0),
                    );
                }
            }
        });
    theme::legend(ui, &items);
    ui.weak("GPU peaks: 2.2× the power limit for 100 µs, 1.57× for 1 ms, 1.28× for 10 ms, 1.09× for 100 ms, plus the rest of the system.");
}

/// `PSU 1 now: 45 % load, 90.2 % efficient (80 PLUS certification minimum), 88 W lost`, or
/// `efficiency unknown` for a PSU with no 80 PLUS rating known and no published curve.
fn now_text(ps: &kraftwerk_core::estimate::power::PsuLoad) -> String {
    match (ps.efficiency, ps.loss_w) {
        (Some(eff), Some(loss)) => format!(
            "PSU {} now: {:.0} % load, {:.1} % efficient{}, {loss:.0} W lost",
            ps.index + 1,
            ps.load_fraction * 100.0,
            eff * 100.0,
            if ps.efficiency_basis == kraftwerk_core::estimate::power::EfficiencyBasis::CertificationMinimum {
                " (80 PLUS certification minimum)"
            } else {
                ""
            }
        ),
        _ => format!(
            "PSU {} now: {:.0} % load, efficiency unknown (no 80 PLUS rating known, no published curve)",
            ps.index + 1,
            ps.load_fraction * 100.0
        ),
    }
}

/// Wall draw per circuit at the load `check` judged for the workload and at full load, and
/// each PSU's load and inlet current at full load. Every gauge's colour is the severity of the
/// findings that name its circuit or PSU ([`judged`]).
fn wall(ui: &mut egui::Ui, state: &AppState) {
    let e = &state.training;
    let checked = &state.report.power;
    ui.label(RichText::new("Wall draw vs the circuit").strong());
    let w = ui.available_width().min(520.0);
    for c in &e.circuits {
        let j = judged::circuit(&state.report, c.index);
        ui.label(format!("Circuit {}: {:.0} A breaker at {:.0} V", c.index + 1, c.breaker_a, state.build.site.mains_v));
        let marks = [(c.continuous_w, "continuous"), (c.breaker_w, "breaker")];
        if checked.state != e.state
            && let Some(at) = checked.circuits.iter().find(|x| x.index == c.index)
        {
            if let (Some(wall), Some(amps)) = (at.wall_w, at.amps) {
                let text = format!("{} load: {wall:.0} W · {amps:.1} A (checked)", checked.state.name());
                widgets::gauge(ui, wall, &marks, j.color(), &text, w).on_hover_text(j.explanation());
            } else {
                ui.colored_label(j.color(), format!("{} load: wall draw unknown", checked.state.name()))
                    .on_hover_text(j.explanation());
            }
        }
        // A circuit through a PSU of unknown efficiency: no gauge, the draw is unknown.
        let (Some(wall), Some(amps)) = (c.wall_w, c.amps) else {
            ui.colored_label(
                j.color(),
                format!(
                    "full load: wall draw unknown (a PSU's efficiency is unknown); at least the {:.0} W DC load of its PSUs, of {:.1} A continuous",
                    c.dc_w, c.continuous_a
                ),
            )
            .on_hover_text(j.explanation());
            ui.add_space(theme::SMALL_GAP);
            continue;
        };
        // Full load: judged by the same findings (`wall-circuit` names a circuit over its
        // continuous limit or its breaker at full load, as the power-limit advice does).
        let text = format!("full load: {wall:.0} W · {amps:.1} A of {:.1} A continuous", c.continuous_a);
        widgets::gauge(ui, wall, &marks, j.color(), &text, w).on_hover_text(j.explanation());
        ui.add_space(theme::SMALL_GAP);
    }
    ui.add_space(theme::SMALL_GAP);
    ui.label(RichText::new("PSU load and inlet (full load)").strong());
    for ps in &e.psus {
        ui.label(format!("PSU {}: {}", ps.index + 1, ps.name));
        let load = judged::judge(&state.report, PartRef::Psu(ps.index), judged::PSU_LOAD_RULES);
        widgets::gauge(
            ui,
            ps.dc_w,
            &[(ps.rated_w * PSU_SUSTAINED_GUIDELINE, "80 %"), (ps.rated_w, "rated")],
            load.color(),
            &format!(
                "{:.0} W DC ({:.0} %) · {} from the wall",
                ps.dc_w,
                ps.load_fraction * 100.0,
                kraftwerk_core::report::watts_or_unknown(ps.wall_w)
            ),
            w,
        )
        .on_hover_text(load.explanation());
        let inlet = judged::judge(&state.report, PartRef::Psu(ps.index), judged::PSU_INLET_RULES);
        if let Some(amps) = ps.amps {
            widgets::gauge(
                ui,
                amps,
                &[(ps.outlet_a, "outlet"), (ps.inlet_a, "inlet")],
                inlet.color(),
                &format!("{amps:.1} A through the inlet"),
                w,
            )
            .on_hover_text(inlet.explanation());
        } else {
            ui.colored_label(
                inlet.color(),
                format!("current through the inlet unknown (efficiency unknown; inlet {:.0} A)", ps.inlet_a),
            )
            .on_hover_text(inlet.explanation());
        }
        ui.add_space(theme::SMALL_GAP);
    }
}

fn thermal(ui: &mut egui::Ui, state: &AppState) {
    let e = &state.training;
    ui.label(RichText::new("Thermal").strong());
    let r = state.build.resolve(&state.catalog);
    if let Some(case) = r.case {
        match case.max_heat_w {
            Some(max) => {
                let color = judged::judge(&state.report, PartRef::Case, judged::CASE_HEAT_RULES).color();
                ui.colored_label(
                    color,
                    format!(
                        "{:.0} W inside {} (moves about {max:.0} W; {:?} airflow)",
                        e.case_heat_w, case.name, case.airflow
                    ),
                );
            }
            None => {
                ui.label(format!("{:.0} W inside {} ({:?} airflow)", e.case_heat_w, case.name, case.airflow));
            }
        }
    }
    egui::Grid::new("thermal-grid").num_columns(3).spacing([12.0, 4.0]).show(ui, |ui| {
        for t in &e.gpu_thermal {
            ui.label(format!("GPU {}", t.gpu + 1));
            ui.colored_label(theme::thermal(t.risk), format!("{:?}", t.risk));
            ui.label(&t.reason);
            ui.end_row();
        }
    });
}
