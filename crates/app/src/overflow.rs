//! Layout overflow: where a panel's content came out larger than the space the window gave it
//! (a widget too wide for a 1280 px screen, a table with no scroll bar), recorded every frame
//! by the view and read by the tests (`tests/all/gui_layout.rs`), so a tab whose content leaves
//! the window fails a test rather than being cut off on a user's screen (issue 39).
//!
//! Content inside a scroll area that scrolls that way is not an overflow: the scroll area stays
//! within its panel and shows a bar. Content in a direction that does not scroll grows the
//! scroll area, and so its panel, past the panel's space: that is what is recorded.

use eframe::egui::{self, Rect};

/// One panel whose content exceeded its space.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Overflow {
    /// The panel (`"central"`, `"build panel"`, `"menu"`, `"status bar"`).
    pub area: &'static str,
    /// The space it was given, points.
    pub allowed: Rect,
    /// The space its content took, points.
    pub used: Rect,
}

/// Tolerance for rounding, points.
const SLACK: f32 = 1.0;

fn id() -> egui::Id {
    egui::Id::unique("kraftwerk-layout-overflow")
}

/// Forgets the last frame's record (called once at the start of each frame).
pub fn clear(ctx: &egui::Context) {
    ctx.data_mut(|d| d.insert_temp(id(), Vec::<Overflow>::new()));
}

/// Records `area` when `used` reaches past `allowed` on any side.
pub fn record(ctx: &egui::Context, area: &'static str, allowed: Rect, used: Rect) {
    let over = used.min.x < allowed.min.x - SLACK
        || used.min.y < allowed.min.y - SLACK
        || used.max.x > allowed.max.x + SLACK
        || used.max.y > allowed.max.y + SLACK;
    if over {
        ctx.data_mut(|d| d.get_temp_mut_or_default::<Vec<Overflow>>(id()).push(Overflow { area, allowed, used }));
    }
}

/// The overflows of the last frame drawn (empty when everything fit).
pub fn found(ctx: &egui::Context) -> Vec<Overflow> {
    ctx.data(|d| d.get_temp::<Vec<Overflow>>(id())).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_content_past_its_space_is_recorded() {
        let ctx = egui::Context::default();
        clear(&ctx);
        let allowed = Rect::from_min_max(egui::pos2(0.0, 0.0), egui::pos2(100.0, 100.0));
        record(&ctx, "fits", allowed, Rect::from_min_max(egui::pos2(0.0, 0.0), egui::pos2(100.5, 100.0)));
        assert!(found(&ctx).is_empty());
        record(&ctx, "wide", allowed, Rect::from_min_max(egui::pos2(0.0, 0.0), egui::pos2(140.0, 90.0)));
        assert_eq!(found(&ctx).len(), 1);
        assert_eq!(found(&ctx)[0].area, "wide");
        clear(&ctx);
        assert!(found(&ctx).is_empty());
    }
}
