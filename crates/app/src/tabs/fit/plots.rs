//! The Fit tab's charts: memory against context length, memory per GPU by part, and cost over
//! time against the cloud (break-even). They draw figures of the [`BuildFit`]; nothing here
//! estimates.

use kraftwerk_core::estimate::cost::{BreakEven, CloudBasis};
use kraftwerk_core::estimate::llm::placement::PlacementEstimate;

use super::{
    Bar, BarChart, Color32, ContextPoint, CostReport, FitReport, GridMark, Line, LineStyle, PlotPoints, RichText,
    VLine, egui, llm, theme, usd, usd_rate, verdict_color,
};

/// Memory of the fullest GPU against context, with its capacity and the chosen context.
/// `every_weight_on_gpus`: the fit's placement keeps weights in system RAM (the user's flags or
/// the experts-in-RAM split), so this curve (every weight on the GPUs) is not that placement's
/// and the title says so (a trial read a curve far above the card as the verdict's).
pub(super) fn context_plot(ui: &mut egui::Ui, curve: &[ContextPoint], context: u32, every_weight_on_gpus: bool) {
    if curve.is_empty() {
        return;
    }
    ui.add(
        egui::Label::new(
            RichText::new(if every_weight_on_gpus {
                "Memory vs context with every weight on the GPUs (fullest GPU, this batch; not this placement)"
            } else {
                "Memory vs context (fullest GPU, this batch)"
            })
            .strong(),
        )
        .wrap(),
    );
    let need: Vec<[f64; 2]> = curve.iter().map(|p| [f64::from(p.context_tokens), p.required_gib]).collect();
    let total: Vec<[f64; 2]> = curve.iter().map(|p| [f64::from(p.context_tokens), p.total_gib]).collect();
    let cap = curve[0].capacity_gib;
    let (x0, x1) = (need[0][0], need[need.len() - 1][0]);
    crate::widgets::static_plot("fit-context", 220.0)
        .include_y(0.0)
        // The ticks fall on decimal steps of tokens (10,000, 20,000, ...): thousands, not 1024s,
        // or a tick at 30,000 tokens read "29k".
        .x_axis_formatter(|m, _| format!("{:.0}k", m.value / 1000.0))
        .y_axis_formatter(|m, _| format!("{:.0} GiB", m.value))
        .y_axis_min_width(theme::y_axis_width(ui, "000 GiB"))
        .show(ui, |p| {
            p.line(Line::new("needed with headroom", PlotPoints::new(need)).color(theme::SERIES[0]).width(2.5));
            p.line(Line::new("needed without headroom", PlotPoints::new(total)).color(theme::SERIES[4]).width(1.5));
            p.line(Line::new("GPU memory", PlotPoints::new(vec![[x0, cap], [x1, cap]])).color(theme::ERROR).width(2.0));
            p.vline(VLine::new("this context", f64::from(context)).color(theme::OK).style(LineStyle::dashed_loose()));
        });
    // Below the plot, not over it: a legend inside would cover the curves.
    theme::legend(
        ui,
        &[
            (theme::SERIES[0], "needed with headroom".to_owned()),
            (theme::SERIES[4], "needed without headroom".to_owned()),
            (theme::ERROR, "GPU memory".to_owned()),
            (theme::OK, "this context (dashed)".to_owned()),
        ],
    );
}

/// Reads one component of a memory breakdown.
type Get = fn(&llm::MemoryBreakdown) -> f64;

/// `all_on_gpu`: the build runs the model only with its experts in system RAM, so these bars
/// (every weight on the GPUs) are not the split's placement and the title says so.
pub(super) fn memory_plot(ui: &mut egui::Ui, f: &FitReport, all_on_gpu: bool) {
    ui.label(
        RichText::new(if all_on_gpu {
            "Memory per GPU with every expert on the GPU (not the split's placement)"
        } else {
            "Memory per GPU"
        })
        .strong(),
    );
    let parts: [(&str, Get, Color32); 7] = [
        ("weights", |m| m.weights_gib, theme::SERIES[0]),
        ("KV cache", |m| m.kv_cache_gib, theme::SERIES[4]),
        ("activations", |m| m.activations_gib, theme::SERIES[2]),
        ("gradients", |m| m.gradients_gib, theme::SERIES[3]),
        ("optimizer", |m| m.optimizer_gib, theme::SERIES[5]),
        ("CUDA context, buffers", |m| m.runtime_gib, theme::SERIES_REST),
        ("headroom kept free", |m| m.headroom_gib, Color32::from_gray(70)),
    ];
    let mut charts: Vec<BarChart> = Vec::new();
    let mut legend: Vec<(Color32, String)> = Vec::new();
    for (name, get, color) in parts {
        if f.gpus.iter().all(|g| get(&g.memory) <= 0.0) {
            continue;
        }
        legend.push((color, name.to_owned()));
        let bars = f
            .gpus
            .iter()
            .map(|g| {
                Bar::new(g.index as f64, get(&g.memory)).name(format!(
                    "GPU {} {name}: {:.1} GiB",
                    g.index + 1,
                    get(&g.memory)
                ))
            })
            .collect();
        let refs: Vec<&BarChart> = charts.iter().collect();
        charts.push(BarChart::new(name, bars).color(color).width(0.6).stack_on(&refs));
    }
    let top = f.gpus.iter().map(|g| g.memory.required_gib.max(g.capacity_gib)).fold(0.0, f64::max) * 1.12;
    let n = f.gpus.len();
    per_gpu_plot(ui, "fit-memory", n, top).show(ui, |p| {
        for c in charts {
            p.bar_chart(c);
        }
        for g in &f.gpus {
            let x = g.index as f64;
            let color = verdict_color(g.verdict);
            p.line(
                Line::new("GPU memory", PlotPoints::new(vec![[x - 0.38, g.capacity_gib], [x + 0.38, g.capacity_gib]]))
                    .color(color)
                    .width(3.0),
            );
        }
    });
    // Below the plot, not over it: a legend inside covered the last GPU's bar and capacity.
    legend.push((verdict_color(f.verdict), "GPU memory (line; its colour is the fit verdict)".to_owned()));
    theme::legend(ui, &legend);
}

/// The axes both memory-per-GPU charts share: `n` GPUs on x ("GPU 1", ...), GiB on y from 0 to
/// `top`.
fn per_gpu_plot<'a>(ui: &egui::Ui, id: &'a str, n: usize, top: f64) -> egui_plot::Plot<'a> {
    crate::widgets::static_plot(id, 280.0)
        .include_y(0.0)
        .include_y(top)
        .include_x(-0.6)
        .include_x(n as f64 - 0.4)
        .x_grid_spacer(move |_| (0..n).map(|v| GridMark { value: v as f64, step_size: 1.0 }).collect())
        .x_axis_formatter(|m, _| format!("GPU {}", m.value.round() as i64 + 1))
        .y_axis_formatter(|m, _| format!("{:.0} GiB", m.value))
        .y_axis_min_width(theme::y_axis_width(ui, "000 GiB"))
}

/// Reads one column of llama.cpp's memory table (MiB).
type RowGet = fn(&llm::runtime_memory::DeviceRow) -> f64;

/// Memory per GPU of a llama.cpp-family placement ([`PlacementEstimate`]: the user's own
/// flags, or the experts-in-RAM split the verdict names): each device's weights, KV cache and
/// compute buffer as llama.cpp's `llama_memory_breakdown` lists them (MiB there, GiB here), against
/// its free memory, the line coloured by that device's own verdict
/// ([`llm::runtime_memory::DeviceRow::verdict`]). The same figures as the per-GPU lines above the
/// chart ([`kraftwerk_core::report::placement_gpu_lines`]) and `kraftwerk fit`'s.
pub(super) fn placement_memory_plot(ui: &mut egui::Ui, p: &PlacementEstimate) {
    const MIB_PER_GIB: f64 = 1024.0;
    // The arguments say the placement whole (`-ngl`, `--n-cpu-moe`, `-ot`, `-ub`, `-ts`).
    // Monospace: the proportional font draws `--n-cpu-moe` as one long dash.
    ui.add(
        egui::Label::new(RichText::new(format!("Memory per GPU with {}", p.table.args)).strong().monospace()).wrap(),
    );
    let rows: Vec<&llm::runtime_memory::DeviceRow> = p.table.rows.iter().filter(|r| r.free_mib.is_some()).collect();
    let parts: [(&str, RowGet, Color32); 3] = [
        ("weights", |r| r.model_mib, theme::SERIES[0]),
        ("KV cache", |r| r.context_mib, theme::SERIES[4]),
        ("compute buffer", |r| r.compute_mib, theme::SERIES_REST),
    ];
    let mut charts: Vec<BarChart> = Vec::new();
    let mut legend: Vec<(Color32, String)> = Vec::new();
    for (name, get, color) in parts {
        if rows.iter().all(|r| get(r) <= 0.0) {
            continue;
        }
        legend.push((color, name.to_owned()));
        let bars = rows
            .iter()
            .enumerate()
            .map(|(i, r)| {
                let gib = get(r) / MIB_PER_GIB;
                Bar::new(i as f64, gib).name(format!("GPU {} {name}: {gib:.1} GiB", i + 1))
            })
            .collect();
        let refs: Vec<&BarChart> = charts.iter().collect();
        charts.push(BarChart::new(name, bars).color(color).width(0.6).stack_on(&refs));
    }
    let top = rows.iter().map(|r| r.self_mib().max(r.free_mib.unwrap_or(0.0))).fold(0.0, f64::max) / MIB_PER_GIB * 1.12;
    let n = rows.len();
    let lines: Vec<(f64, f64, Color32)> = rows
        .iter()
        .enumerate()
        .map(|(i, r)| {
            let color = r.verdict().map_or(theme::WARNING, verdict_color);
            (i as f64, r.free_mib.unwrap_or(0.0) / MIB_PER_GIB, color)
        })
        .collect();
    per_gpu_plot(ui, "fit-memory-placement", n, top).show(ui, |plot| {
        for c in charts {
            plot.bar_chart(c);
        }
        for (x, free, color) in lines {
            plot.line(
                Line::new("free memory", PlotPoints::new(vec![[x - 0.38, free], [x + 0.38, free]]))
                    .color(color)
                    .width(3.0),
            );
        }
    });
    legend.push((theme::OK, "free memory at start (line; its colour is that GPU's verdict)".to_owned()));
    theme::legend(ui, &legend);
}

pub(super) fn break_even_plot(ui: &mut egui::Ui, c: &CostReport) {
    ui.label(RichText::new(format!("Owning vs renting {} (cumulative)", c.cloud.name)).strong());
    // Renting the rig's work, on the break-even's basis: the same tokens where both throughputs
    // are known (the offer's $/h scaled by the rig's speed over the offer's), else the same
    // hours; so the chart, the break-even and the two $ per million tokens agree.
    let cloud_month = c.cloud.usd_per_rig_working_hour * c.working_hours_per_month;
    let rent_name = match c.cloud.basis {
        CloudBasis::SameTokens => {
            format!("rent the same tokens: {} per working hour", usd_rate(c.cloud.usd_per_rig_working_hour))
        }
        CloudBasis::SameHours => format!("rent at {}/h", usd_rate(c.cloud.usd_per_hour)),
    };
    // A payback past the write-off, or against an offer that does not run the workload, is no
    // break-even: the core's words say why (the same as `fit`'s). Owned parts at $0 beside
    // unpriced ones pay back at no known time: the words say so too.
    let paid_back = match c.cloud.break_even {
        BreakEven::After { months } => Some(months),
        BreakEven::AtLeast { months, .. } if months > 0.0 => Some(months),
        _ => None,
    };
    let horizon = paid_back.map_or(36.0, |m| (m * 1.6).clamp(12.0, 120.0));
    let steps = 60;
    let own: Vec<[f64; 2]> = (0..=steps)
        .map(|k| {
            let m = horizon * f64::from(k) / f64::from(steps);
            [m, c.hardware_usd + c.energy_usd_per_month * m]
        })
        .collect();
    let rent: Vec<[f64; 2]> = (0..=steps)
        .map(|k| {
            let m = horizon * f64::from(k) / f64::from(steps);
            [m, cloud_month * m]
        })
        .collect();
    // Unpriced parts make the owning line a lower bound, and so the break-even (issue 26): the
    // line's name and the marker say "at least" as the legend and the sentence below do.
    let bound = if c.hardware_complete { "" } else { "at least " };
    let own_name = if c.hardware_complete {
        "own: hardware + electricity".to_owned()
    } else {
        format!("own: hardware + electricity, at least (without {} unpriced)", c.missing_prices.len())
    };
    crate::widgets::static_plot("fit-break-even", 280.0)
        .include_y(0.0)
        .x_axis_formatter(|m, _| format!("{:.0} mo", m.value))
        .y_axis_formatter(|m, _| format!("${:.0}k", m.value / 1000.0))
        .y_axis_min_width(theme::y_axis_width(ui, "$000k"))
        .show(ui, |p| {
            p.line(Line::new(own_name.clone(), PlotPoints::new(own)).color(theme::SERIES[0]).width(2.5));
            p.line(Line::new(rent_name.clone(), PlotPoints::new(rent)).color(theme::SERIES[2]).width(2.5));
            if let Some(m) = paid_back {
                p.vline(
                    VLine::new(format!("break-even after {bound}{m:.1} months"), m)
                        .color(theme::OK)
                        .style(LineStyle::dashed_loose()),
                );
            }
        });
    let mut legend = vec![(theme::SERIES[0], own_name), (theme::SERIES[2], rent_name)];
    if let Some(m) = paid_back {
        legend.push((theme::OK, format!("break-even after {bound}{m:.1} months (dashed)")));
    }
    theme::legend(ui, &legend);
    match paid_back {
        // Unpriced parts: the hardware sum and so the payback time are lower bounds (issue 26).
        Some(m) if !c.hardware_complete => ui.add(
            egui::Label::new(format!(
                "At {:.0} working hours a month, owning pays off after at least {m:.1} months: the {} of hardware leaves out {} unpriced part{} ({}){}.",
                c.working_hours_per_month,
                usd(c.hardware_usd),
                c.missing_prices.len(),
                if c.missing_prices.len() == 1 { "" } else { "s" },
                c.missing_prices.join(", "),
                match c.cloud.break_even {
                    BreakEven::AtLeast { unpriced_at_most_usd, .. } => format!(
                        "; it pays off within the write-off only if they cost at most {} in all",
                        usd(unpriced_at_most_usd)
                    ),
                    _ => String::new(),
                }
            ))
            .wrap(),
        ),
        Some(m) => ui.add(
            egui::Label::new(format!(
                "At {:.0} working hours a month, owning pays off after {m:.1} months ({} of hardware).",
                c.working_hours_per_month,
                usd(c.hardware_usd)
            ))
            .wrap(),
        ),
        None => ui.colored_label(theme::WARNING, c.cloud.break_even.words(c)),
    };
}
