//! PSU efficiency: a unit's own published curve where it has one, else the 80 PLUS
//! certification minimums of its level at 115 V or 230 V internal, and the efficiency at a
//! load read off a curve. A unit with neither (no 80 PLUS rating known, no published points)
//! has no efficiency: nothing here guesses one, and its wall draw is unknown.

use kraftwerk_catalog::{EightyPlus, HIGH_LINE_MIN_V, Psu};
use serde::Serialize;

/// Where a PSU's efficiency curve comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum EfficiencyBasis {
    /// The unit's own published points (`Psu::efficiency`, from its datasheet or a review,
    /// cited in the entry).
    Published,
    /// The minimums its 80 PLUS level must meet ([`eighty_plus_curve`]): the unit is at least
    /// this efficient at 20 / 50 / 100 % load (and 10 % for Titanium) when it meets its
    /// certification; its real efficiency may be higher.
    CertificationMinimum,
    /// No 80 PLUS level known and no published points: the efficiency, and so the wall draw,
    /// is unknown.
    Unknown,
}

impl EfficiencyBasis {
    /// Where the figure comes from, for people: `published curve`, `80 PLUS Gold minimum
    /// (115 V internal)`, `unknown (no 80 PLUS rating known or published curve)`.
    pub fn describe(self, psu: &Psu, mains_v: f64) -> String {
        match self {
            EfficiencyBasis::Published => "the unit's published curve".to_owned(),
            EfficiencyBasis::CertificationMinimum => format!(
                "80 PLUS {:?} certification minimum, {}",
                psu.eighty_plus,
                if mains_v >= HIGH_LINE_MIN_V { "230 V EU internal" } else { "115 V internal" }
            ),
            EfficiencyBasis::Unknown => "unknown: no 80 PLUS rating known and no published curve".to_owned(),
        }
    }
}

/// 80 PLUS minimum efficiency curve for a certified level: `(load %, efficiency %)` at 115 V
/// internal non-redundant (`high_line` false) or 230 V EU internal non-redundant (true);
/// `None` for [`EightyPlus::None`] (no certification known: no minimum to read). The figures
/// are the 80 PLUS program's published requirement table, run by CLEAResult
/// (<https://www.clearesult.com/80plus/program-details>, "80 PLUS Certification" table; the same
/// table reproduced by Tom's Hardware, <https://www.tomshardware.com/uk/reviews/80-plus-psu-efficiency,4848-2.html>):
/// 115 V internal: 80 PLUS 80/80/80, Bronze 82/85/82, Silver 85/88/85, Gold 87/90/87,
/// Platinum 90/92/89, Titanium 90/92/94/90 % at (10 /) 20 / 50 / 100 % load; 230 V EU internal:
/// 82/85/82, 85/88/85, 87/90/87, 90/92/89, 92/94/90, 90/94/96/94 %. They are floors a certified
/// unit meets, not the unit's own measurement.
#[allow(clippy::match_same_arms, reason = "one row per level and line voltage, as in the 80 PLUS table")]
pub fn eighty_plus_curve(level: EightyPlus, high_line: bool) -> Option<Vec<(f64, f64)>> {
    let (ten, pts): (Option<f64>, [f64; 3]) = match (level, high_line) {
        (EightyPlus::None, _) => return None,
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
    Some(v)
}

/// The PSU's efficiency curve and where it comes from: its published points if any, else its
/// 80 PLUS level's certification minimums at the site's line voltage; `None` when it has
/// neither (the wall draw through it is then unknown).
pub fn efficiency_curve(psu: &Psu, mains_v: f64) -> Option<(Vec<(f64, f64)>, EfficiencyBasis)> {
    if psu.efficiency.is_empty() {
        eighty_plus_curve(psu.eighty_plus, mains_v >= HIGH_LINE_MIN_V)
            .map(|c| (c, EfficiencyBasis::CertificationMinimum))
    } else {
        let mut v: Vec<(f64, f64)> = psu.efficiency.iter().map(|p| (p.load_pct, p.efficiency_pct)).collect();
        v.sort_by(|a, b| a.0.total_cmp(&b.0));
        Some((v, EfficiencyBasis::Published))
    }
}

/// Efficiency (0..1) at `load_pct` of rating, linearly interpolated; flat beyond the first and
/// last points (an overloaded PSU is taken at its 100 % efficiency). `None` for an empty curve:
/// no figure is made up.
pub fn efficiency_at(curve: &[(f64, f64)], load_pct: f64) -> Option<f64> {
    let first = curve.first()?;
    if load_pct <= first.0 {
        return Some(first.1 / 100.0);
    }
    for w in curve.windows(2) {
        let (a, b) = (w[0], w[1]);
        if load_pct <= b.0 {
            let t = (load_pct - a.0) / (b.0 - a.0);
            return Some((a.1 + t * (b.1 - a.1)) / 100.0);
        }
    }
    curve.last().map(|l| l.1 / 100.0)
}
