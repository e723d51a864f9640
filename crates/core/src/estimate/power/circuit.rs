//! The wall side: what a circuit's breaker and an outlet may carry continuously, how long a
//! breaker tolerates an overload under the trip-time points of its standard (UL 489 below high
//! line, IEC 60898-1 above), and the current a PSU's inlet is rated for.

use crate::rig::Build;
use kraftwerk_catalog::{HIGH_LINE_MIN_V, Inlet};

/// Share of a breaker's rating usable by a continuous (3 h+) load: 80 % (US NEC 210.19(A)/
/// 210.20(A); 15 A at 120 V = 1440 W).
pub const CONTINUOUS_FRACTION: f64 = 0.8;

/// Load, as a multiple of a breaker's rating, that a UL 489 breaker (North American branch
/// circuits) must trip within one hour (breakers up to 50 A); at 100 % it must hold. UL 489
/// calibration tests, as summarised by OptiFuse, "UL Circuit Breakers: UL 489 vs. UL 1077"
/// (<https://optifuse.com/blog/ul-circuit-breakers>): "100% of rating – hold | 135% of rating –
/// trip in one hour | 200% of rating – trip in 2 min. max." Below 135 % the standard sets no
/// trip time: between 100 % and 135 % the time is the breaker's own curve, not known here.
pub const UL489_TRIP_1H_FRACTION: f64 = 1.35;
/// Load, as a multiple of a UL 489 breaker's rating, that it must trip within two minutes
/// (breakers up to 30 A; same source as [`UL489_TRIP_1H_FRACTION`]).
pub const UL489_TRIP_2MIN_FRACTION: f64 = 2.0;
/// IEC 60898-1 conventional non-tripping current, multiple of the rating: a household
/// miniature circuit breaker (B, C or D curve) does not trip within the conventional time of one
/// hour at 1.13 In (Schneider Electric FAQ FA369327, "Characteristics of the inverse time-delay
/// over-current opening releases ... based on IEC 60898-1": conventional non-tripping current
/// 1.13 x In, conventional tripping current 1.45 x In, conventional time 1 h,
/// <https://www.se.com/in/en/faqs/FA369327/>).
pub const IEC60898_NO_TRIP_1H_FRACTION: f64 = 1.13;
/// IEC 60898-1 conventional tripping current, multiple of the rating: the breaker trips within
/// one hour at 1.45 In (same source as [`IEC60898_NO_TRIP_1H_FRACTION`]).
pub const IEC60898_TRIP_1H_FRACTION: f64 = 1.45;

/// How long a wall circuit's breaker tolerates a load of `load_fraction` times its rating, in
/// words, from the standard trip-time points its breaker is built to: UL 489 for sites below
/// [`HIGH_LINE_MIN_V`] (North American branch circuits), IEC 60898-1 miniature circuit
/// breakers for high-line sites. A US 240 V circuit also has a UL 489 breaker; the site's
/// voltage is all the build states, so it reads as IEC here. Only the standards' points are
/// stated: between them the trip time is the breaker's own time-current curve, which the build
/// does not name, and the words say it is unknown rather than guess it.
pub fn breaker_tolerance(load_fraction: f64, mains_v: f64) -> String {
    let pct = load_fraction * 100.0;
    if mains_v < HIGH_LINE_MIN_V {
        if load_fraction <= 1.0 {
            format!("{pct:.0} % of the breaker's rating: a UL 489 breaker holds its rating")
        } else if load_fraction < UL489_TRIP_1H_FRACTION {
            format!(
                "{pct:.0} % of the breaker's rating: UL 489 sets no trip time below {:.0} % (it must trip within 1 h at {:.0} %, within 2 min at {:.0} %); how long this breaker holds {pct:.0} % is its own trip curve, unknown here",
                UL489_TRIP_1H_FRACTION * 100.0,
                UL489_TRIP_1H_FRACTION * 100.0,
                UL489_TRIP_2MIN_FRACTION * 100.0
            )
        } else if load_fraction < UL489_TRIP_2MIN_FRACTION {
            format!(
                "{pct:.0} % of the breaker's rating: a UL 489 breaker must trip within 1 h at {:.0} % and within 2 min at {:.0} %; the exact time is its own trip curve, unknown here",
                UL489_TRIP_1H_FRACTION * 100.0,
                UL489_TRIP_2MIN_FRACTION * 100.0
            )
        } else {
            format!(
                "{pct:.0} % of the breaker's rating: a UL 489 breaker must trip within 2 min at {:.0} %",
                UL489_TRIP_2MIN_FRACTION * 100.0
            )
        }
    } else if load_fraction <= 1.0 {
        format!("{pct:.0} % of the breaker's rating: an IEC 60898-1 breaker carries its rating")
    } else if load_fraction <= IEC60898_NO_TRIP_1H_FRACTION {
        format!(
            "{pct:.0} % of the breaker's rating: an IEC 60898-1 breaker does not trip within 1 h up to {:.0} %",
            IEC60898_NO_TRIP_1H_FRACTION * 100.0
        )
    } else if load_fraction < IEC60898_TRIP_1H_FRACTION {
        format!(
            "{pct:.0} % of the breaker's rating: IEC 60898-1 guarantees no trip for 1 h only up to {:.0} % and a trip within 1 h from {:.0} %; how long this breaker holds {pct:.0} % is its own curve, unknown here",
            IEC60898_NO_TRIP_1H_FRACTION * 100.0,
            IEC60898_TRIP_1H_FRACTION * 100.0
        )
    } else {
        format!(
            "{pct:.0} % of the breaker's rating: an IEC 60898-1 breaker trips within 1 h from {:.0} %; the exact time is its own curve, unknown here",
            IEC60898_TRIP_1H_FRACTION * 100.0
        )
    }
}

/// [`breaker_tolerance`] for a load known only from below (`load_fraction` is the least it can
/// be: a PSU's efficiency is unknown): "at least N %", and only the standard's trip points the
/// load is certainly past; no "holds" or "does not trip", which the real load may exceed.
pub fn breaker_tolerance_at_least(load_fraction: f64, mains_v: f64) -> String {
    let pct = load_fraction * 100.0;
    let trips = if mains_v < HIGH_LINE_MIN_V {
        if load_fraction >= UL489_TRIP_2MIN_FRACTION {
            format!("a UL 489 breaker must trip within 2 min at {:.0} %", UL489_TRIP_2MIN_FRACTION * 100.0)
        } else if load_fraction >= UL489_TRIP_1H_FRACTION {
            format!(
                "a UL 489 breaker must trip within 1 h at {:.0} % and within 2 min at {:.0} %",
                UL489_TRIP_1H_FRACTION * 100.0,
                UL489_TRIP_2MIN_FRACTION * 100.0
            )
        } else {
            format!(
                "UL 489 sets trip times only from {:.0} % (within 1 h) and {:.0} % (within 2 min)",
                UL489_TRIP_1H_FRACTION * 100.0,
                UL489_TRIP_2MIN_FRACTION * 100.0
            )
        }
    } else if load_fraction >= IEC60898_TRIP_1H_FRACTION {
        format!("an IEC 60898-1 breaker trips within 1 h from {:.0} %", IEC60898_TRIP_1H_FRACTION * 100.0)
    } else {
        format!(
            "IEC 60898-1 guarantees no trip for 1 h only up to {:.0} % and a trip within 1 h from {:.0} %",
            IEC60898_NO_TRIP_1H_FRACTION * 100.0,
            IEC60898_TRIP_1H_FRACTION * 100.0
        )
    };
    format!(
        "at least {pct:.0} % of the breaker's rating (a PSU's efficiency is unknown, so the real draw is higher): {trips}; how long this breaker holds it is its own trip curve, unknown here"
    )
}

/// Continuous planning current of one Schuko (CEE 7/4) socket, A: rated 16 A but not for
/// continuous full load; planners use about 10 A (elektrofachkraft.de, "Der Schukostecker und
/// seine Besonderheiten").
pub const SCHUKO_CONTINUOUS_A: f64 = 10.0;

/// US split-phase high-line voltage, V, for the "use a 240 V circuit" advice (NEMA 6-xx).
pub const US_HIGH_LINE_V: f64 = 240.0;

pub(super) fn inlet_a(inlet: Inlet, mains_v: f64) -> f64 {
    let na = mains_v < HIGH_LINE_MIN_V;
    match (inlet, na) {
        (Inlet::C14, true) => 15.0,
        (Inlet::C14, false) => 10.0,
        (Inlet::C20, true) => 20.0,
        (Inlet::C20, false) => 16.0,
    }
}

/// Continuous current limit of a circuit at this site, A: 80 % of its breaker.
pub fn continuous_a(build: &Build) -> f64 {
    build.site.circuit_a * CONTINUOUS_FRACTION
}

/// Continuous current one outlet may carry, A: the site's `outlet_continuous_a`, else 80 % of
/// the circuit below 180 V (a US receptacle on its own breaker) and a Schuko socket's 10 A
/// planning figure at 230 V.
pub fn outlet_continuous_a(build: &Build) -> f64 {
    build.site.outlet_continuous_a.unwrap_or(if build.site.mains_v >= HIGH_LINE_MIN_V {
        SCHUKO_CONTINUOUS_A.min(continuous_a(build))
    } else {
        continuous_a(build)
    })
}
