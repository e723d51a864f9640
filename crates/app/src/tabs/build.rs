//! The Build tab: the motherboard drawn to scale in side view (as in a tower: rear I/O on the
//! left, slot 1 nearest the CPU at the top), each `PCIe` slot at its expansion position with its
//! connector drawn by length (x16 89 mm, x8 56 mm, x4 39 mm, x1 25 mm; `PCIe` CEM), its lanes
//! after the board's sharing rules and the effective link; each GPU drawn across the slot
//! positions it covers and as long as the card; `NVLink` bridges; the case's expansion openings.
//! Colours come from the checker's findings. Drag a card to move it to another slot.

use crate::command::{Action, EditAction, FileAction, ViewAction};
use crate::state::AppState;
use crate::theme;
use crate::view_state::ViewState;
use eframe::egui::{self, Align2, Color32, FontId, Pos2, Rect, Sense, Stroke, StrokeKind, pos2, vec2};
use eframe::epaint;
use kraftwerk_catalog::{FormFactor, Gpu, GpuFormFactor, LaneSource, Motherboard};
use kraftwerk_core::check::{self, PartRef, Severity};
use kraftwerk_core::rig::Resolved;

/// Expansion-slot pitch, mm (0.8 in, ATX specification).
pub const SLOT_PITCH_MM: f32 = 20.32;
/// Where the connector starts, measured from the rear bracket, mm (schematic).
const CONNECTOR_X_MM: f32 = 42.0;
/// Distance from the board's bottom edge to the centre of its last standard position, mm.
const BOTTOM_MARGIN_MM: f32 = 16.0;
/// Card length drawn when the vendor publishes none, mm (a typical full-length card).
const DEFAULT_CARD_MM: f32 = 267.0;
/// Width of the slot-label column left of the board, points.
const LABEL_COL: f32 = 176.0;

/// Connector length of a physical slot size, mm (`PCIe` CEM).
pub fn connector_mm(physical_lanes: u8) -> f32 {
    match physical_lanes {
        0..=1 => 25.0,
        2..=4 => 39.0,
        5..=8 => 56.0,
        _ => 89.0,
    }
}

/// Board size by form factor: (depth, height) in mm as seen from the side of a tower.
pub fn board_mm(ff: FormFactor) -> (f32, f32) {
    match ff {
        FormFactor::MiniItx => (170.0, 170.0),
        FormFactor::MicroAtx => (244.0, 244.0),
        FormFactor::Atx => (244.0, 305.0),
        FormFactor::EAtx => (277.0, 305.0),
        FormFactor::Ceb => (267.0, 305.0),
        FormFactor::Eeb | FormFactor::Proprietary => (330.0, 305.0),
    }
}

/// Standard expansion positions of a form factor.
fn standard_positions(ff: FormFactor) -> u8 {
    match ff {
        FormFactor::MiniItx => 1,
        FormFactor::MicroAtx => 4,
        _ => 7,
    }
}

/// Geometry of one drawing: mm → screen.
struct Geo {
    origin: Pos2,
    scale: f32,
    board_h: f32,
    positions: u8,
}

impl Geo {
    fn p(&self, x_mm: f32, y_mm: f32) -> Pos2 {
        self.origin + vec2(x_mm * self.scale, y_mm * self.scale)
    }
    fn rect(&self, x0: f32, y0: f32, x1: f32, y1: f32) -> Rect {
        Rect::from_min_max(self.p(x0, y0), self.p(x1, y1))
    }
    /// Centre of expansion position `pos`, mm from the board's top.
    fn row(&self, pos: u8) -> f32 {
        self.board_h - BOTTOM_MARGIN_MM - (f32::from(self.positions) - f32::from(pos)) * SLOT_PITCH_MM
    }
}

/// Worst severity among these parts.
fn worst(state: &AppState, parts: &[PartRef]) -> Option<Severity> {
    parts.iter().filter_map(|p| state.severity_of(*p)).max()
}

fn sev_color(s: Option<Severity>) -> Color32 {
    s.map_or(theme::OK, theme::severity)
}

/// Where a card is drawn, mm.
#[derive(Debug, Clone, Copy)]
struct CardPos {
    gpu: usize,
    x0: f32,
    y0: f32,
    x1: f32,
    y1: f32,
    /// The slot its riser plugs into, for cards on risers.
    riser_slot: Option<u8>,
}

/// Card length, mm: the published one when it is a sane number, else a typical full length.
fn card_len(g: &Gpu) -> f32 {
    g.length_mm.filter(|l| l.is_finite() && (50.0..=600.0).contains(l)).map_or(DEFAULT_CARD_MM, |l| l as f32)
}

/// Cards in slots sit across the positions they cover; cards on risers stack in a column right
/// of everything else, `riser_x` mm from the rear edge.
fn layout(geo: &Geo, state: &AppState, res: &Resolved<'_>, board: &Motherboard, riser_x: f32) -> Vec<CardPos> {
    let mut v = Vec::new();
    let mut riser_y = 0.0;
    for (i, (p, g)) in state.build.gpus.iter().zip(&res.gpus).enumerate() {
        // Only slots whose position is known are drawn on the board; the others are listed.
        let (Some(g), Some(pos)) = (g, p.position_on(Some(board))) else { continue };
        if g.form_factor == GpuFormFactor::Sxm || board.slot_at(pos).is_none() {
            continue;
        }
        if p.riser.is_some() {
            let h = f32::from(g.width_slots.max(1)) * SLOT_PITCH_MM - 3.0;
            v.push(CardPos {
                gpu: i,
                x0: riser_x,
                y0: riser_y,
                x1: riser_x + card_len(g),
                y1: riser_y + h,
                riser_slot: Some(pos),
            });
            riser_y += h + 6.0;
        } else {
            let (x0, y0, x1, y1) = card_mm(geo, g, pos);
            v.push(CardPos { gpu: i, x0, y0, x1, y1, riser_slot: None });
        }
    }
    v
}

/// Draws the tab.
pub fn show(ui: &mut egui::Ui, state: &AppState, view: &mut ViewState, out: &mut Vec<Action>) {
    let res = state.build.resolve(&state.catalog);
    let Some(board) = res.board else {
        ui.add_space(theme::SECTION_GAP);
        ui.heading("No motherboard yet");
        ui.label("Plan a rig from the panel on the left: choose a CPU, then a motherboard (boards that fit the CPU are listed first), add GPUs and a PSU, and set your site's mains. Every change is checked at once: see the status bar and the Checks tab.");
        let keys = crate::shortcuts::text(&Action::File(FileAction::OpenDialog)).unwrap_or_default();
        ui.label(format!("Or open a build with File > Open… ({keys}), or drop a *.rig.ron file on the window."));
        off_board(ui, state, view, out, &res, None);
        return;
    };
    header(ui, state, &res, board);
    if !board.slot_positions_known() {
        ui.horizontal_wrapped(|ui| {
            let what = if board.slot_layout_known() { "where its slots sit is" } else { "its slot layout is" };
            ui.weak(format!("This board: {what} not in the catalog."));
            if ui
                .button("Enter the slot layout…")
                .on_hover_text("From the board's manual: slots top to bottom, lanes, CPU or chipset, sharing, positions if given. Saved as your own part; the checks run again.")
                .clicked()
            {
                out.push(Action::View(ViewAction::OpenSlotEditor));
            }
        });
    }
    let legend_h = 70.0;
    let avail = ui.available_size();
    let (board_w, form_h) = board_mm(board.form_factor);
    let positions = standard_positions(board.form_factor).max(board.last_position());
    // Boards with more positions than their form factor's (server boards) are drawn taller, so
    // slot 1 stays below the socket and DIMMs.
    let board_h = form_h.max(176.0 + f32::from(positions.saturating_sub(1)) * SLOT_PITCH_MM);
    let probe = Geo { origin: Pos2::ZERO, scale: 1.0, board_h, positions };
    // Everything in slots first, then the riser column right of it.
    let in_slots = layout(&probe, state, &res, board, 0.0);
    let slot_right = in_slots.iter().filter(|c| c.riser_slot.is_none()).map(|c| c.x1).fold(board_w, f32::max);
    let riser_x = slot_right + 36.0;
    let cards = layout(&probe, state, &res, board, riser_x);
    // Lowest row anything reaches: cards hanging below the board, the case's openings.
    let mut last_row = positions;
    if let Some(case) = res.case {
        last_row = last_row.max(case.expansion_slots);
    }
    let bottom = cards.iter().map(|c| c.y1).fold(probe.row(last_row) + SLOT_PITCH_MM * 0.5, f32::max);
    let total_w = cards.iter().map(|c| c.x1).fold(board_w, f32::max) + 8.0;
    let total_h = bottom.max(board_h) + 8.0;
    let scale = ((avail.x - LABEL_COL - 12.0) / total_w).min((avail.y - legend_h) / total_h).clamp(0.6, 4.0);
    egui::ScrollArea::both().id_salt("board-scroll").auto_shrink([false, false]).show(ui, |ui| {
        let size = vec2(LABEL_COL + total_w * scale + 8.0, total_h * scale + 4.0);
        let (resp, painter) = ui.allocate_painter(size, Sense::hover());
        let geo = Geo { origin: resp.rect.min + vec2(LABEL_COL, 4.0), scale, board_h, positions };
        let last_row = last_row.max(probe_last_row(&geo, bottom));
        draw_board(ui, &painter, &geo, state, view, &res, board, board_w, last_row);
        draw_cards(ui, &painter, &geo, state, view, out, &res, board, &cards);
        unplaced_slots(ui, state, view, &res, board);
        legend(ui);
        off_board(ui, state, view, out, &res, Some(board));
    });
}

/// The last slot row a drawing of `bottom_mm` reaches.
fn probe_last_row(geo: &Geo, bottom_mm: f32) -> u8 {
    let mut row = geo.positions;
    while row < 30 && geo.row(row) + SLOT_PITCH_MM * 0.5 < bottom_mm - 1.0 {
        row += 1;
    }
    row
}

fn header(ui: &mut egui::Ui, state: &AppState, r: &Resolved<'_>, board: &Motherboard) {
    ui.horizontal_wrapped(|ui| {
        ui.label(egui::RichText::new(format!("{} {}", board.vendor, board.name)).strong().size(16.0));
        ui.weak(format!(
            "{} · socket {} · {} · {} · {}",
            board.form_factor,
            board.socket,
            board.chipset,
            board.slots_text(),
            board.m2_text()
        ));
        // Lanes in use are only known where the slots' wiring is.
        if let Some(cpu) = r.cpu.filter(|_| board.slot_layout_known()) {
            let used: u16 = state
                .report
                .links
                .iter()
                .filter(|l| !l.via_chipset && l.slot_name.is_some())
                .map(|l| u16::from(l.lanes))
                .sum();
            ui.weak(format!("· GPUs use {used} of {}'s {} CPU lanes", cpu.name, cpu.pcie_lanes.total()));
        }
    });
}

#[allow(clippy::too_many_arguments, reason = "drawing helpers take the whole drawing context")]
fn draw_board(
    ui: &egui::Ui,
    painter: &egui::Painter,
    geo: &Geo,
    state: &AppState,
    view: &ViewState,
    r: &Resolved<'_>,
    board: &Motherboard,
    board_w: f32,
    last_row: u8,
) {
    let sev = state.severity_of(PartRef::Motherboard);
    let hl = view.is_highlighted(PartRef::Motherboard);
    let outline =
        if hl { theme::highlight_stroke(3.0) } else { Stroke::new(1.5, sev.map_or(theme::PCB_EDGE, theme::severity)) };
    painter.rect(geo.rect(0.0, 0.0, board_w, geo.board_h), 6.0, theme::PCB, outline, StrokeKind::Inside);
    // Rear I/O and the CPU socket with its DIMMs.
    painter.rect_filled(geo.rect(0.0, 12.0, 14.0, 150.0), 2.0, theme::SOCKET.gamma_multiply(0.5));
    let sock = geo.rect(board_w * 0.42, 42.0, board_w * 0.42 + 62.0, 122.0);
    let cpu_sev = state.severity_of(PartRef::Cpu);
    let cpu_stroke = if view.is_highlighted(PartRef::Cpu) {
        theme::highlight_stroke(3.0)
    } else {
        Stroke::new(1.5, sev_color(cpu_sev))
    };
    painter.rect(sock, 3.0, theme::SOCKET, cpu_stroke, StrokeKind::Inside);
    let cpu_text = r.cpu.map_or_else(|| "no CPU".to_owned(), |c| c.name.replace("Ryzen Threadripper", "Threadripper"));
    let galley = painter.layout(cpu_text, FontId::proportional(11.0), Color32::BLACK, sock.width() - 6.0);
    let at = sock.center() - galley.size() * 0.5;
    painter.with_clip_rect(sock).galley(at, galley, Color32::BLACK);
    let dimms = usize::from(board.memory_slots.min(16));
    let (left, right) = if dimms >= 8 { (dimms / 2, dimms - dimms / 2) } else { (0, dimms) };
    let mem_stroke = if view.is_highlighted(PartRef::Memory) {
        theme::highlight_stroke(2.0)
    } else {
        Stroke::new(1.0, sev_color(state.severity_of(PartRef::Memory)))
    };
    for k in 0..left {
        let x = board_w * 0.42 - 8.0 - k as f32 * 7.0;
        painter.rect(geo.rect(x - 4.0, 18.0, x, 146.0), 1.0, theme::SLOT, mem_stroke, StrokeKind::Inside);
    }
    for k in 0..right {
        let x = board_w * 0.42 + 70.0 + k as f32 * 7.0;
        painter.rect(geo.rect(x, 18.0, x + 4.0, 146.0), 1.0, theme::SLOT, mem_stroke, StrokeKind::Inside);
    }
    // Case openings along the rear edge.
    if let Some(case) = r.case {
        for k in 1..=last_row {
            let y = geo.row(k);
            let inside = k <= case.expansion_slots;
            let color = if inside { theme::SOCKET } else { theme::ERROR };
            painter.rect_filled(geo.rect(-7.0, y - SLOT_PITCH_MM * 0.42, -2.5, y + SLOT_PITCH_MM * 0.42), 1.0, color);
        }
        let y = geo.row(1) - SLOT_PITCH_MM * 0.5;
        painter.text(
            geo.p(-9.0, y),
            Align2::RIGHT_BOTTOM,
            format!("case: {} openings", case.expansion_slots),
            FontId::proportional(10.0),
            ui.visuals().weak_text_color(),
        );
    }
    // Slots: connector by length; label column with lanes after sharing and the link.
    let lanes = check::slot_lanes(r, board);
    for (k, s) in board.pcie_slots.iter().enumerate() {
        // A slot whose position no source gives is listed below the board, never drawn at an
        // invented place.
        let Some(pos) = s.position else { continue };
        let now = lanes.get(k).copied().unwrap_or(s.electrical_lanes);
        draw_slot(ui, painter, geo, state, view, s, pos, now);
    }
}

/// The slots whose position is unknown (a board wired from a source that gives no layout), as
/// a list: name, connector, lanes now, generation, CPU or chipset, and the GPU placed there
/// with its link.
fn unplaced_slots(ui: &mut egui::Ui, state: &AppState, view: &ViewState, r: &Resolved<'_>, board: &Motherboard) {
    if board.pcie_slots.iter().all(|s| s.position.is_some()) {
        return;
    }
    let lanes = check::slot_lanes(r, board);
    ui.add_space(theme::SMALL_GAP);
    ui.label(egui::RichText::new("Slots, position unknown").strong()).on_hover_text(
        "The board's wiring is known from its manual or spec page, but not where each slot sits: card thickness over the next slot, air gaps and where each card meets the case's openings are not checked.",
    );
    for (k, s) in board.pcie_slots.iter().enumerate().filter(|(_, s)| s.position.is_none()) {
        let now = lanes.get(k).copied().unwrap_or(s.electrical_lanes);
        let gpu = state.build.gpus.iter().position(|p| p.slot_in(board).is_some_and(|x| x.name == s.name));
        let link = gpu.and_then(|i| state.report.links.iter().find(|l| l.gpu == i));
        let held = match (gpu, link) {
            (Some(i), Some(l)) => format!(" — GPU {} here, linked at PCIe {}.0 x{}", i + 1, l.pcie_gen, l.lanes),
            (Some(i), None) => format!(" — GPU {} here", i + 1),
            (None, _) => String::new(),
        };
        let text = format!(
            "{} · position unknown · x{} connector · x{now} now (x{} wired) · PCIe {}.0 · {}{held}",
            s.name,
            s.physical_lanes,
            s.electrical_lanes,
            s.pcie_gen,
            if s.lane_source == LaneSource::Chipset { "chipset lanes" } else { "CPU lanes" },
        );
        let hl = gpu.is_some_and(|i| view.is_highlighted(PartRef::Gpu(i)));
        let rich = egui::RichText::new(text);
        ui.label(if hl { rich.strong() } else { rich });
    }
}

/// One expansion slot at `position`: its connector (electrical lanes as a brighter stripe), its
/// label with the lanes it has `now` after sharing, and its hover text.
#[allow(clippy::too_many_arguments, reason = "drawing helpers take the whole drawing context")]
fn draw_slot(
    ui: &egui::Ui,
    painter: &egui::Painter,
    geo: &Geo,
    state: &AppState,
    view: &ViewState,
    s: &kraftwerk_catalog::PcieSlot,
    position: u8,
    now: u8,
) {
    let y = geo.row(position);
    let part = PartRef::Slot(position);
    let slot_sev = state.severity_of(part);
    let stroke = if view.is_highlighted(part) {
        theme::highlight_stroke(2.5)
    } else {
        Stroke::new(1.0, slot_sev.map_or(theme::SLOT_EDGE, theme::severity))
    };
    let len = connector_mm(s.physical_lanes);
    painter.rect(
        geo.rect(CONNECTOR_X_MM, y - 3.2, CONNECTOR_X_MM + len, y + 3.2),
        1.0,
        theme::SLOT,
        stroke,
        StrokeKind::Inside,
    );
    let elec = s.electrical_lanes;
    // Wiring inside the connector: the electrical lanes as a brighter stripe.
    let wired = len * f32::from(elec.min(s.physical_lanes)) / f32::from(s.physical_lanes.max(1));
    painter.rect_filled(
        geo.rect(CONNECTOR_X_MM, y - 1.0, CONNECTOR_X_MM + wired, y + 1.0),
        0.0,
        theme::SLOT_EDGE.gamma_multiply(0.7),
    );
    let src = if s.lane_source == LaneSource::Cpu { "CPU" } else { "chipset" };
    let lanes_text = if now == elec {
        format!("x{elec} Gen{} · {src}", s.pcie_gen)
    } else if now == 0 {
        format!("x{elec}, shared: off · {src}")
    } else {
        format!("x{elec}, shared: x{now} · {src}")
    };
    let label_color = if now < elec { theme::WARNING } else { ui.visuals().text_color() };
    let lx = geo.origin.x - LABEL_COL + 4.0;
    let sy = geo.p(0.0, y).y;
    let name_color = slot_sev.map_or(ui.visuals().strong_text_color(), theme::severity);
    let clip = painter.with_clip_rect(Rect::from_min_max(pos2(lx, sy - 40.0), pos2(geo.origin.x - 10.0, sy + 40.0)));
    if SLOT_PITCH_MM * geo.scale >= 24.0 {
        clip.text(
            pos2(lx, sy),
            Align2::LEFT_BOTTOM,
            format!("{}  {}", position, s.name),
            FontId::proportional(11.0),
            name_color,
        );
        clip.text(pos2(lx + 14.0, sy), Align2::LEFT_TOP, lanes_text.clone(), FontId::proportional(10.0), label_color);
    } else {
        // Rows too close for two lines: the position and the lanes, the name on hover.
        let r =
            clip.text(pos2(lx, sy), Align2::LEFT_CENTER, format!("{position}"), FontId::proportional(11.5), name_color);
        clip.text(pos2(lx + 16.0, sy), Align2::LEFT_CENTER, lanes_text, FontId::proportional(10.5), label_color);
        let _ = r;
    }
    let hover = Rect::from_min_max(
        pos2(lx, sy - SLOT_PITCH_MM * geo.scale * 0.5),
        pos2(geo.origin.x + (CONNECTOR_X_MM + len) * geo.scale, sy + SLOT_PITCH_MM * geo.scale * 0.5),
    );
    ui.interact(hover, ui.scope_id().with(("slot", position)), Sense::hover()).on_hover_text(format!(
        "{}: x{} connector, x{} electrical, PCIe Gen{}, {src} lanes{}",
        s.name,
        s.physical_lanes,
        elec,
        s.pcie_gen,
        if s.shares.is_empty() {
            String::new()
        } else {
            format!(
                "; shares lanes with {}",
                s.shares.iter().map(|x| x.when_used.as_str()).collect::<Vec<_>>().join(", ")
            )
        }
    ));
}

/// Card geometry in mm: (x0, y0, x1, y1).
fn card_mm(geo: &Geo, g: &Gpu, pos: u8) -> (f32, f32, f32, f32) {
    let w = g.width_slots.max(1);
    let y0 = geo.row(pos) - SLOT_PITCH_MM * 0.5 + 1.5;
    let y1 = geo.row(pos.saturating_add(w - 1)) + SLOT_PITCH_MM * 0.5 - 1.5;
    (2.0, y0, card_len(g), y1)
}

#[allow(clippy::too_many_arguments, reason = "drawing helpers take the whole drawing context")]
fn draw_cards(
    ui: &mut egui::Ui,
    painter: &egui::Painter,
    geo: &Geo,
    state: &AppState,
    view: &ViewState,
    out: &mut Vec<Action>,
    res: &Resolved<'_>,
    board: &Motherboard,
    cards: &[CardPos],
) {
    let bld = &state.build;
    let mut card_rects: Vec<(usize, Rect)> = Vec::new();
    for cp in cards {
        let i = cp.gpu;
        let (Some(p), Some(Some(g))) = (bld.gpus.get(i), res.gpus.get(i)) else { continue };
        let rect = geo.rect(cp.x0, cp.y0, cp.x1, cp.y1);
        let sev = worst(state, &[PartRef::Gpu(i)]);
        let color = sev_color(sev);
        let hl = view.is_highlighted(PartRef::Gpu(i));
        // A riser: its plug in the slot and the cable to the card.
        if let Some(pos) = cp.riser_slot {
            let slot_len = board.slot_at(pos).map_or(89.0, |s| connector_mm(s.physical_lanes));
            let y = geo.row(pos);
            let plug = geo.rect(CONNECTOR_X_MM - 2.0, y - 4.5, CONNECTOR_X_MM + slot_len + 2.0, y + 4.5);
            painter.rect(plug, 2.0, theme::CARD, Stroke::new(1.5, color), StrokeKind::Inside);
            let from = geo.p(CONNECTOR_X_MM + slot_len + 2.0, y);
            let to = pos2(rect.left(), rect.center().y);
            let dx = (to.x - from.x) * 0.5;
            painter.add(epaint::CubicBezierShape::from_points_stroke(
                [from, from + vec2(dx, 0.0), to - vec2(dx, 0.0), to],
                false,
                Color32::TRANSPARENT,
                Stroke::new(3.0, theme::SOCKET.gamma_multiply(0.8)),
            ));
        }
        let fill = blend(theme::CARD, color, 0.22);
        let stroke = if hl { theme::highlight_stroke(3.0) } else { Stroke::new(2.0, color) };
        painter.rect(rect, 5.0, fill, stroke, StrokeKind::Inside);
        // Bracket at the rear.
        painter.rect_filled(
            Rect::from_min_max(rect.min, pos2(rect.left() + 3.0 * geo.scale, rect.bottom())),
            0.0,
            theme::SOCKET,
        );
        let clip = painter.with_clip_rect(rect.shrink(3.0));
        let link = state.report.links.iter().find(|l| l.gpu == i);
        let limit = kraftwerk_core::estimate::power::gpu_limit_w(g, p.power_limit_w);
        let mut lines: Vec<(String, Color32)> = vec![(format!("GPU {} · {}", i + 1, g.name), theme::ON_BOARD_TEXT)];
        let degraded = link.is_some_and(|l| l.pcie_gen < l.gpu_gen || l.lanes < l.gpu_lanes);
        lines.push((
            format!(
                "{limit:.0} W · {:.0} GiB{}",
                g.memory_gib,
                link.map_or_else(
                    || if g.form_factor == GpuFormFactor::Sxm { String::new() } else { " · link unknown".to_owned() },
                    |l| format!(" · Gen{} x{} {:.1} GB/s", l.pcie_gen, l.lanes, l.bandwidth_gb_s)
                )
            ),
            if degraded { theme::WARNING } else { theme::ON_BOARD_WEAK },
        ));
        if let (Some(pos), Some(r)) = (cp.riser_slot, p.riser) {
            lines.push((format!("Gen{} riser from slot {pos}", r.pcie_gen), theme::ON_BOARD_WEAK));
        }
        if let Some(t) = state.report.power.gpu_thermal.iter().find(|t| t.gpu == i) {
            lines.push((format!("thermal risk {:?}", t.risk).to_lowercase(), theme::thermal(t.risk)));
        }
        let tl = rect.left_top() + vec2(6.0 + 3.0 * geo.scale, 3.0);
        let line_h = 15.0;
        let fit = ((rect.height() - 4.0) / line_h).floor().max(1.0) as usize;
        for (k, (text, color)) in lines.into_iter().take(fit).enumerate() {
            let size = if k == 0 { 13.0 } else { 11.5 };
            clip.text(tl + vec2(0.0, k as f32 * line_h), Align2::LEFT_TOP, text, FontId::proportional(size), color);
        }
        // Interaction: hover details, click to outline, drag a slot card to another slot.
        let id = ui.scope_id().with(("card", i));
        let sense = if cp.riser_slot.is_some() { Sense::click() } else { Sense::click_and_drag() };
        let resp = ui.interact(rect, id, sense).on_hover_ui(|ui| card_tooltip(ui, state, i, g));
        if resp.clicked() {
            out.push(Action::View(ViewAction::Highlight(vec![PartRef::Gpu(i)])));
        }
        if let (None, Some(pos)) = (cp.riser_slot, p.position_on(Some(board))) {
            drag_to_slot(ui, geo, out, &resp, board, g, i, pos);
        }
        card_rects.push((i, rect));
    }
    // NVLink bridges across the cards' top edges.
    for (k, br) in bld.nvlink.iter().enumerate() {
        let (Some(a), Some(c)) =
            (card_rects.iter().find(|(i, _)| *i == br.gpus.0), card_rects.iter().find(|(i, _)| *i == br.gpus.1))
        else {
            continue;
        };
        let sev = state.severity_of(PartRef::Bridge(k));
        let color = sev.map_or(theme::BRIDGE, theme::severity);
        let x = a.1.left() + a.1.width() * 0.62;
        let top = a.1.center().y.min(c.1.center().y);
        let bottom = a.1.center().y.max(c.1.center().y);
        let bar = Rect::from_min_max(pos2(x, top), pos2(x + 16.0 * geo.scale.min(1.6), bottom));
        painter.rect(bar, 3.0, color.gamma_multiply(0.85), Stroke::new(1.5, Color32::BLACK), StrokeKind::Inside);
        painter.text(
            bar.right_center() + vec2(4.0, 0.0),
            Align2::LEFT_CENTER,
            format!("NVLink {}-slot", br.spacing_slots),
            FontId::proportional(11.0),
            color,
        );
    }
}

/// Dragging a card in a slot: a ghost at the slot under the pointer; dropping it there moves it.
#[allow(clippy::too_many_arguments, reason = "drawing helpers take the whole drawing context")]
fn drag_to_slot(
    ui: &egui::Ui,
    geo: &Geo,
    out: &mut Vec<Action>,
    resp: &egui::Response,
    board: &Motherboard,
    g: &Gpu,
    i: usize,
    pos: u8,
) {
    if resp.dragged()
        && let Some(ptr) = resp.interact_pointer_pos()
    {
        let target = i32::from(pos) + slot_shift(ui, geo, ptr);
        let ghost_pos = u8::try_from(target.clamp(1, 30)).unwrap_or(pos);
        let (gx0, gy0, gx1, gy1) = card_mm(geo, g, ghost_pos);
        let top = ui.ctx().layer_painter(egui::LayerId::new(egui::Order::Tooltip, resp.id.with("ghost")));
        let valid = board.slot_at(ghost_pos).is_some();
        let c = if valid { theme::HIGHLIGHT } else { theme::ERROR };
        let r = geo.rect(gx0, gy0, gx1, gy1);
        top.rect(r, 5.0, c.gamma_multiply(0.25), Stroke::new(2.0, c), StrokeKind::Inside);
        let text = if valid { format!("slot position {ghost_pos}") } else { format!("position {ghost_pos}: no slot") };
        top.text(r.center(), Align2::CENTER_CENTER, text, FontId::proportional(14.0), Color32::WHITE);
    }
    if resp.drag_stopped()
        && let Some(ptr) = resp.interact_pointer_pos().or_else(|| ui.ctx().pointer_latest_pos())
        && let Ok(t) = u8::try_from(i32::from(pos) + slot_shift(ui, geo, ptr))
        && t != pos
        && board.slot_at(t).is_some()
    {
        out.push(Action::Edit(EditAction::SetGpuSlot(i, Some(t))));
    }
}

/// Slot positions the pointer moved since the drag began.
fn slot_shift(ui: &egui::Ui, geo: &Geo, ptr: Pos2) -> i32 {
    let origin = ui.input(|i| i.pointer.press_origin()).unwrap_or(ptr);
    ((ptr.y - origin.y) / (SLOT_PITCH_MM * geo.scale)).round() as i32
}

/// Blend of `a` toward `b` by `t` (0..1).
fn blend(a: Color32, b: Color32, t: f32) -> Color32 {
    let m = |x: u8, y: u8| (f32::from(x) * (1.0 - t) + f32::from(y) * t).round() as u8;
    Color32::from_rgb(m(a.r(), b.r()), m(a.g(), b.g()), m(a.b(), b.b()))
}

fn card_tooltip(ui: &mut egui::Ui, state: &AppState, i: usize, g: &Gpu) {
    let p = &state.build.gpus[i];
    ui.label(egui::RichText::new(format!("GPU {}: {} {}", i + 1, g.vendor, g.name)).strong());
    ui.label(format!(
        "{:.0} GiB {} · {:.0} GB/s · {}-slot {:?} · {}",
        g.memory_gib,
        g.memory_type,
        g.memory_bandwidth_gb_s,
        g.width_slots,
        g.cooler,
        g.length_mm.map_or_else(|| "length unpublished (drawn 267 mm)".to_owned(), |l| format!("{l:.0} mm long"))
    ));
    let limit = kraftwerk_core::estimate::power::gpu_limit_w(g, p.power_limit_w);
    ui.label(format!("power limit {limit:.0} W (default {:.0} W) · PSU {}", g.board_power_w, p.psu + 1));
    if let Some(l) = state.report.links.iter().find(|l| l.gpu == i) {
        ui.label(format!(
            "link PCIe {}.0 x{} = {:.1} GB/s per direction (card: {}.0 x{}){}",
            l.pcie_gen,
            l.lanes,
            l.bandwidth_gb_s,
            l.gpu_gen,
            l.gpu_lanes,
            if l.via_chipset { " · via chipset" } else { "" }
        ));
    } else if g.form_factor != GpuFormFactor::Sxm {
        ui.label(format!(
            "link {} (card: {}.0 x{})",
            kraftwerk_core::rig::links::LINK_UNKNOWN,
            g.pcie_gen,
            g.pcie_lanes
        ));
    }
    if let Some(t) = state.report.power.gpu_thermal.iter().find(|t| t.gpu == i) {
        ui.colored_label(theme::thermal(t.risk), format!("thermal risk {:?}: {}", t.risk, t.reason));
    }
    for f in state.report.findings.iter().filter(|f| f.parts.contains(&PartRef::Gpu(i))) {
        ui.label(theme::finding_text(ui, f.severity, f.rule, &f.message));
    }
    ui.weak("Click to outline · drag to another slot");
}

fn legend(ui: &mut egui::Ui) {
    ui.horizontal_wrapped(|ui| {
        for (c, t) in [
            (theme::OK, "no findings"),
            (theme::WARNING, "warning"),
            (theme::ERROR, "error"),
            (theme::HIGHLIGHT, "outlined by a finding"),
            (theme::BRIDGE, "NVLink bridge"),
        ] {
            theme::swatch(ui, c);
            ui.label(t);
        }
        ui.weak("· slots to scale: 20.32 mm pitch; connectors x16 89 mm, x8 56 mm, x4 39 mm, x1 25 mm · drag a card to move it");
    });
}

/// GPUs not drawn on the board: on risers, unplaced, SXM modules, unknown ids.
fn off_board(
    ui: &mut egui::Ui,
    state: &AppState,
    view: &ViewState,
    out: &mut Vec<Action>,
    r: &Resolved<'_>,
    board: Option<&Motherboard>,
) {
    let b = &state.build;
    let items: Vec<(usize, String)> = b
        .gpus
        .iter()
        .zip(&r.gpus)
        .enumerate()
        .filter_map(|(i, (p, g))| {
            let Some(g) = g else { return Some((i, format!("GPU {}: unknown part `{}`", i + 1, p.gpu))) };
            if g.form_factor == GpuFormFactor::Sxm {
                return Some((i, format!("GPU {}: {} (SXM module on its baseboard)", i + 1, g.name)));
            }
            if let (Some(riser), false) = (p.riser, p.is_placed()) {
                return Some((
                    i,
                    format!("GPU {}: {} on a Gen{} riser, not plugged into a slot", i + 1, g.name, riser.pcie_gen),
                ));
            }
            match (p.is_placed(), board) {
                (false, _) => Some((i, format!("GPU {}: {} not in a slot", i + 1, g.name))),
                (true, Some(bd)) if !bd.slot_layout_known() => Some((
                    i,
                    format!(
                        "GPU {}: {} in {}: the board's slot layout is unknown, link {}",
                        i + 1,
                        g.name,
                        p.slot_text(),
                        kraftwerk_core::rig::links::LINK_UNKNOWN
                    ),
                )),
                (true, Some(bd)) if p.slot_in(bd).is_none() => {
                    Some((i, format!("GPU {}: {} in {}, where the board has no slot", i + 1, g.name, p.slot_text())))
                }
                _ => None,
            }
        })
        .collect();
    if items.is_empty() {
        return;
    }
    ui.add_space(theme::SMALL_GAP);
    ui.label(egui::RichText::new("Off the board").strong());
    ui.horizontal_wrapped(|ui| {
        for (i, text) in items {
            let sev = state.severity_of(PartRef::Gpu(i));
            let stroke = if view.is_highlighted(PartRef::Gpu(i)) {
                theme::highlight_stroke(2.0)
            } else {
                Stroke::new(1.5, sev_color(sev))
            };
            let resp = egui::Frame::new()
                .stroke(stroke)
                .fill(theme::CARD)
                .corner_radius(theme::radius())
                .inner_margin(egui::Margin::symmetric(8, 4))
                .show(ui, |ui| ui.add(egui::Label::new(egui::RichText::new(text).color(theme::ON_BOARD_TEXT)).extend()))
                .response
                .interact(Sense::click());
            if resp.clicked() {
                out.push(Action::View(ViewAction::Highlight(vec![PartRef::Gpu(i)])));
            }
        }
    });
}
