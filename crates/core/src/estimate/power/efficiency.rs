//! PSU efficiency: the 80 PLUS minimum curve of each level at 115 V or 230 V internal, a
//! unit's own published curve where it has one, and the efficiency at a load read off a curve.

use kraftwerk_catalog::{EightyPlus, HIGH_LINE_MIN_V, Psu};

/// 80 PLUS minimum efficiency curve for a level: `(load %, efficiency %)` at 115 V internal
/// (`high_line` false) or 230 V EU internal (true). From the 80 PLUS program table
/// (CLEAResult, <https://www.clearesult.com/80plus/program-details>).
#[allow(clippy::match_same_arms, reason = "one row per level and line voltage, as in the 80 PLUS table")]
pub fn eighty_plus_curve(level: EightyPlus, high_line: bool) -> Vec<(f64, f64)> {
    let (ten, pts): (Option<f64>, [f64; 3]) = match (level, high_line) {
        (EightyPlus::None, _) => (None, [75.0, 78.0, 75.0]),
        (EightyPlus::Standard, false) => (None, [80.0, 80.0, 80.0]),
        (EightyPlus::Standard, true) => (None, [82.0, 85.0, 82.0]),
        (EightyPlus::Bronze, false) => (None, [82.0, 85.0, 82.0]),
        (EightyPlus::Bronze, true) => (None, [85.0, 88.0, 85.0]),
        (EightyPlus::Silver, false) => (None, [85.0, 88.0, 85.0]),
        (EightyPlus::Silver, true) => (None, [87.0, 90.0, 87.0]),
        (EightyPlus::Gold, false) => (None, [87.0, 90.0, 87.0]),
        (EightyPlus::Gold, true) => (None, [90.0, 92.0, 89.0]),
        (EightyPlus::Platinum, false) => (None, [90.0, 92.0, 89.0]),
        (EightyPlus::Platinum, true) => (None, [92.0, 94.0, 90.0]),
        (EightyPlus::Titanium, false) => (Some(90.0), [92.0, 94.0, 90.0]),
        (EightyPlus::Titanium, true) => (Some(90.0), [94.0, 96.0, 94.0]),
    };
    let mut v = Vec::new();
    if let Some(t) = ten {
        v.push((10.0, t));
    }
    v.extend([(20.0, pts[0]), (50.0, pts[1]), (100.0, pts[2])]);
    v
}

/// The PSU's efficiency curve: its published points if any, else its 80 PLUS level's minimums
/// at the site's line voltage.
pub fn efficiency_curve(psu: &Psu, mains_v: f64) -> Vec<(f64, f64)> {
    if psu.efficiency.is_empty() {
        eighty_plus_curve(psu.eighty_plus, mains_v >= HIGH_LINE_MIN_V)
    } else {
        let mut v: Vec<(f64, f64)> = psu.efficiency.iter().map(|p| (p.load_pct, p.efficiency_pct)).collect();
        v.sort_by(|a, b| a.0.total_cmp(&b.0));
        v
    }
}

/// Efficiency (0..1) at `load_pct` of rating, linearly interpolated; flat beyond the first and
/// last points (an overloaded PSU is taken at its 100 % efficiency).
pub fn efficiency_at(curve: &[(f64, f64)], load_pct: f64) -> f64 {
    let Some(first) = curve.first() else { return 0.85 };
    if load_pct <= first.0 {
        return first.1 / 100.0;
    }
    for w in curve.windows(2) {
        let (a, b) = (w[0], w[1]);
        if load_pct <= b.0 {
            let t = (load_pct - a.0) / (b.0 - a.0);
            return (a.1 + t * (b.1 - a.1)) / 100.0;
        }
    }
    curve.last().map_or(0.85, |l| l.1 / 100.0)
}
