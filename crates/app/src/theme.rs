//! Colours and spacing of the app: every colour the widgets use is a token here, never a literal
//! at the call site. Severity colours follow the checker's [`Severity`]; the verdict colour
//! follows [`Verdict`].

use eframe::egui::{self, Color32, CornerRadius, Stroke};
use kraftwerk_core::check::{Severity, Verdict};
use kraftwerk_core::estimate::power::ThermalRisk;

/// Error findings, overloads, failing verdicts.
pub const ERROR: Color32 = Color32::from_rgb(0xe5, 0x48, 0x4d);
/// Warnings, margins eaten into.
pub const WARNING: Color32 = Color32::from_rgb(0xf0, 0xa0, 0x30);
/// Informational findings.
pub const INFO: Color32 = Color32::from_rgb(0x4c, 0x9a, 0xe6);
/// A figure no rule judged (its rule did not run): neither red nor green.
pub const UNJUDGED: Color32 = Color32::from_rgb(0x9a, 0x9a, 0xa4);
/// Passing checks, parts with nothing to report.
pub const OK: Color32 = Color32::from_rgb(0x3f, 0xb9, 0x6a);
/// Outline of parts a clicked finding concerns.
pub const HIGHLIGHT: Color32 = Color32::from_rgb(0xff, 0x4f, 0xd8);
/// Motherboard PCB.
pub const PCB: Color32 = Color32::from_rgb(0x1f, 0x3a, 0x2e);
/// PCB outline.
pub const PCB_EDGE: Color32 = Color32::from_rgb(0x5c, 0x8a, 0x70);
/// An empty slot connector.
pub const SLOT: Color32 = Color32::from_rgb(0x2c, 0x2c, 0x30);
/// Slot connector outline.
pub const SLOT_EDGE: Color32 = Color32::from_rgb(0xb0, 0xb0, 0xb8);
/// A GPU card body (tinted by its worst finding).
pub const CARD: Color32 = Color32::from_rgb(0x33, 0x39, 0x42);
/// An `NVLink` bridge.
pub const BRIDGE: Color32 = Color32::from_rgb(0x76, 0xb9, 0x00);
/// CPU socket and DIMMs on the drawn board.
pub const SOCKET: Color32 = Color32::from_rgb(0x8a, 0x8f, 0x98);
/// Text drawn on the board and cards.
pub const ON_BOARD_TEXT: Color32 = Color32::from_rgb(0xf2, 0xf2, 0xf2);
/// Dimmed text on the board.
pub const ON_BOARD_WEAK: Color32 = Color32::from_rgb(0xb8, 0xc4, 0xbc);

/// Palette for per-component series in plots (GPUs cycle through it).
pub const SERIES: [Color32; 8] = [
    Color32::from_rgb(0x4c, 0x9a, 0xe6),
    Color32::from_rgb(0x6c, 0xc4, 0x8c),
    Color32::from_rgb(0xe6, 0x9f, 0x4c),
    Color32::from_rgb(0xb0, 0x7c, 0xe0),
    Color32::from_rgb(0x4c, 0xc8, 0xc8),
    Color32::from_rgb(0xe0, 0x70, 0x9a),
    Color32::from_rgb(0xa8, 0xb8, 0x4c),
    Color32::from_rgb(0x8c, 0x9c, 0xe8),
];
/// The CPU's series colour.
pub const SERIES_CPU: Color32 = Color32::from_rgb(0xd0, 0x5c, 0x4c);
/// The rest of the system (board, memory, drives, fans).
pub const SERIES_REST: Color32 = Color32::from_rgb(0x90, 0x90, 0x98);

/// Gap between sections, points.
pub const SECTION_GAP: f32 = 10.0;
/// Small gap, points.
pub const SMALL_GAP: f32 = 4.0;
/// Default width of the left build panel, points.
pub const BUILD_PANEL_WIDTH: f32 = 360.0;
/// Corner radius of badges and cards.
pub const RADIUS: u8 = 4;

/// Colour of a severity.
pub fn severity(s: Severity) -> Color32 {
    match s {
        Severity::Error => ERROR,
        Severity::Warning => WARNING,
        Severity::Info => INFO,
    }
}

/// Colour of a verdict.
pub fn verdict(v: Verdict) -> Color32 {
    match v {
        Verdict::Pass => OK,
        Verdict::Warnings | Verdict::Incomplete | Verdict::Unverified | Verdict::Empty => WARNING,
        Verdict::Fail => ERROR,
    }
}

/// Colour of a thermal risk.
pub fn thermal(r: ThermalRisk) -> Color32 {
    match r {
        ThermalRisk::Low => OK,
        ThermalRisk::Medium | ThermalRisk::Unknown => WARNING,
        ThermalRisk::High => ERROR,
    }
}

/// Colour of a load fraction against a guideline (≤ guideline ok, ≤ 1 warning, above error).
pub fn load(fraction: f64, guideline: f64) -> Color32 {
    if fraction > 1.0 {
        ERROR
    } else if fraction > guideline {
        WARNING
    } else {
        OK
    }
}

/// Series colour of GPU `i`.
pub fn gpu_series(i: usize) -> Color32 {
    SERIES[i % SERIES.len()]
}

/// Short word for a severity, for text. (Only glyphs of egui's built-in font are used in the
/// app, so it reads the same on every machine; symbols are painted.)
pub fn severity_word(s: Severity) -> &'static str {
    match s {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Info => "note",
    }
}

/// A painted dot, filled or as a ring, the size of a small glyph.
pub fn dot(ui: &mut egui::Ui, color: Color32, filled: bool) -> egui::Response {
    let (rect, resp) = ui.allocate_exact_size(egui::vec2(12.0, 12.0), egui::Sense::hover());
    if filled {
        ui.painter().circle_filled(rect.center(), 4.5, color);
    } else {
        ui.painter().circle_stroke(rect.center(), 4.0, Stroke::new(1.2, color));
    }
    resp
}

/// A painted colour swatch (legends).
pub fn swatch(ui: &mut egui::Ui, color: Color32) -> egui::Response {
    let (rect, resp) = ui.allocate_exact_size(egui::vec2(12.0, 12.0), egui::Sense::hover());
    ui.painter().rect_filled(rect.shrink(1.0), 2.0, color);
    resp
}

/// A legend drawn under a plot (never over its data): a swatch and a label per series.
pub fn legend(ui: &mut egui::Ui, items: &[(Color32, String)]) {
    ui.horizontal_wrapped(|ui| {
        ui.spacing_mut().item_spacing.x = 6.0;
        let row_w = ui.max_rect().width();
        for (c, text) in items {
            // Swatch and label as one block, so an item is never split over two rows: the
            // block goes to the next row when it does not fit (and is cut, with the whole text
            // on hover, only when wider than a whole row).
            let rich = egui::RichText::new(text).small();
            let galley = egui::WidgetText::from(rich.clone()).into_galley(
                ui,
                Some(egui::TextWrapMode::Extend),
                f32::INFINITY,
                egui::TextStyle::Small,
            );
            let w = (galley.size().x + 12.0 + 2.0 * ui.spacing().item_spacing.x).min(row_w);
            let h = galley.size().y.max(12.0);
            ui.allocate_ui_with_layout(egui::vec2(w, h), egui::Layout::left_to_right(egui::Align::Center), |ui| {
                swatch(ui, *c);
                ui.add(egui::Label::new(rich).truncate());
            });
            ui.add_space(6.0);
        }
    });
}

/// A finding's one-line text: the severity word in its colour, then `[rule] message`.
pub fn finding_text(ui: &egui::Ui, s: Severity, rule: &str, message: &str) -> egui::text::LayoutJob {
    tagged_text(ui, severity_word(s), severity(s), rule, message)
}

/// `word [rule] message` laid out as [`finding_text`] does, the word in `color` (a "not
/// checked" note: `skip`, as `kraftwerk check` tags it, in [`UNJUDGED`]).
pub fn tagged_text(ui: &egui::Ui, word: &str, color: Color32, rule: &str, message: &str) -> egui::text::LayoutJob {
    let mut job = egui::text::LayoutJob::default();
    let style = ui.style();
    egui::RichText::new(word).color(color).strong().append_to(
        &mut job,
        style,
        egui::FontSelection::Default,
        egui::Align::Center,
    );
    egui::RichText::new(format!("  [{rule}]  ")).monospace().append_to(
        &mut job,
        style,
        egui::FontSelection::Default,
        egui::Align::Center,
    );
    egui::RichText::new(message).append_to(&mut job, style, egui::FontSelection::Default, egui::Align::Center);
    job
}

/// The highlight stroke, `width` points wide.
pub fn highlight_stroke(width: f32) -> Stroke {
    Stroke::new(width, HIGHLIGHT)
}

/// Corner radius of badges and cards.
pub fn radius() -> CornerRadius {
    CornerRadius::same(RADIUS)
}

/// Whether a colour is light enough for black text on it.
pub fn is_light(c: Color32) -> bool {
    u32::from(c.r()) + u32::from(c.g()) + u32::from(c.b()) > 420
}

/// A filled badge with `text` on `fill` (white or black text for contrast).
pub fn badge(ui: &mut egui::Ui, text: &str, fill: Color32) -> egui::Response {
    let text_color = if is_light(fill) { Color32::BLACK } else { Color32::WHITE };
    egui::Frame::new()
        .fill(fill)
        .corner_radius(radius())
        .inner_margin(egui::Margin::symmetric(6, 2))
        .show(ui, |ui| ui.label(egui::RichText::new(text).color(text_color).strong()))
        .inner
}

/// Shows `frame` spanning the available width exactly (its margins and stroke inside that
/// width, so a panel never grows to fit it).
pub fn full_width<R>(
    ui: &mut egui::Ui,
    frame: egui::Frame,
    add: impl FnOnce(&mut egui::Ui) -> R,
) -> egui::InnerResponse<R> {
    let inner = (ui.available_width() - frame.total_margin().sum().x).max(0.0);
    frame.show(ui, |ui| {
        ui.set_width(inner);
        add(ui)
    })
}

/// Key of the flag "scroll the build panel to the outlined part" (set when a finding is
/// clicked, cleared after the next frame).
pub fn scroll_flag_id() -> egui::Id {
    egui::Id::unique("kraftwerk-scroll-to-highlight")
}

/// Scrolls the enclosing scroll area to `rect` if it is outlined and a finding was just clicked.
pub fn scroll_if_highlighted(ui: &egui::Ui, rect: egui::Rect, highlighted: bool) {
    if highlighted && ui.ctx().data(|d| d.get_temp::<bool>(scroll_flag_id())).unwrap_or(false) {
        ui.scroll_to_rect(rect, Some(egui::Align::Center));
    }
}

/// Applies the app's look: dark or light theme, spacing, link colour.
pub fn apply(ctx: &egui::Context, dark: bool) {
    ctx.set_theme(if dark { egui::Theme::Dark } else { egui::Theme::Light });
    ctx.all_styles_mut(|style| {
        style.spacing.item_spacing = egui::vec2(8.0, 5.0);
        style.spacing.button_padding = egui::vec2(6.0, 3.0);
        style.visuals.hyperlink_color = INFO;
        // Scroll bars that are always drawn where there is more to see: egui's default floating
        // bars appear only on hover, so wide tables looked cut off rather than scrollable.
        style.spacing.scroll = egui::style::ScrollStyle::solid();
    });
}

/// The width, points, a plot's y axis needs for its widest tick label (`widest`: `"000 GiB"`),
/// for `Plot::y_axis_min_width`. egui_plot sizes the axis from the labels it drew the frame
/// before (`PlotMemory`'s axis thickness), so on the first frame a plot is drawn (a tab opened,
/// a chart scrolled into view) the axis is 14 points wide and its labels were cut to "GiB" until
/// something repainted the window (issue 39's 1920x1080 Fit screenshot). The label font is the
/// body font egui_plot uses, with its 4-point margin on each side.
pub fn y_axis_width(ui: &egui::Ui, widest: &str) -> f32 {
    let font = egui::TextStyle::Body.resolve(ui.style());
    ui.painter().layout_no_wrap(widest.to_owned(), font, Color32::WHITE).size().x + 2.0 * 4.0 + 1.0
}
