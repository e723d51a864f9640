//! Small text helpers every part of the core writes with: plurals, counts, watts, durations,
//! dollars and digit groups. The bottom of the core's module order (it uses no other core
//! module), so the rules, the estimates, the planner, the renderers, the CLI and the window
//! share one spelling.

/// `"s"` unless `n` is 1, for plurals in messages (`1 adapter`, `2 adapters`, `0 notes`).
pub fn plural(n: impl Into<u64>) -> &'static str {
    if n.into() == 1 { "" } else { "s" }
}

/// [`plural`] for a `usize` count (lengths of lists).
pub(crate) fn plural_len(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}

/// A count and its noun: `"1 note"`, `"2 notes"`, `"0 errors"`.
pub fn count(n: usize, word: &str) -> String {
    format!("{n} {word}{}", plural_len(n))
}

/// A power figure, W, with no small figure rounded to 0 (`0.4 W`, `12 W`).
pub fn watts(w: f64) -> String {
    if w != 0.0 && w.abs() < 10.0 { format!("{w:.1} W") } else { format!("{w:.0} W") }
}

/// `1.23 kW` (two decimals) for a wall draw, or `unknown` when nobody can know it (a PSU
/// without a published efficiency).
pub fn kilowatts_or_unknown(w: Option<f64>) -> String {
    w.map_or_else(|| "unknown".to_owned(), |w| format!("{:.2} kW", w / 1000.0))
}

/// A short duration for people, from seconds: `100 µs` below a millisecond, else `10 ms`.
pub fn duration(seconds: f64) -> String {
    if seconds < 1e-3 { format!("{:.0} µs", seconds * 1e6) } else { format!("{:.0} ms", seconds * 1e3) }
}

/// `1234567` → `1,234,567` (the grouping vLLM prints token counts with, and [`usd`] uses).
pub fn thousands(n: u64) -> String {
    let s = n.to_string();
    let mut out = String::with_capacity(s.len() + s.len() / 3);
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// US dollars: `$1,234` (whole dollars with thousands separators; cents below $100: `$42.50`).
pub fn usd(v: f64) -> String {
    // An empty f64 sum is -0.0, which would print "$-0.00".
    let v = v + 0.0;
    if v.abs() < 100.0 {
        return format!("${v:.2}");
    }
    // Whole dollars: the cast is exact for any price a part list can hold.
    #[allow(clippy::cast_possible_truncation)]
    let whole = v.round() as i64;
    format!("{}${}", if whole < 0 { "-" } else { "" }, thousands(whole.unsigned_abs()))
}

/// A rate in dollars in one unambiguous form: [`usd`] from $100 up, two decimals from $1
/// (`$6.75`), three below (`$0.412`): never `$6.748`, which reads as thousands where a period
/// separates them.
pub fn usd_rate(v: f64) -> String {
    let v = v + 0.0;
    if v.abs() >= 100.0 {
        usd(v)
    } else if v.abs() >= 1.0 {
        format!("${v:.2}")
    } else {
        format!("${v:.3}")
    }
}

/// [`usd`] of a price that may be unknown: `"unknown"` when `None` (never `$0`).
pub fn usd_or_unknown(v: Option<f64>) -> String {
    v.map_or_else(|| "unknown".to_owned(), usd)
}

/// Serializes a value as its [`std::fmt::Display`] text (serde `serialize_with`): typed report
/// fields (an optimizer, a training runtime) keep the names the CLI prints and reads back.
///
/// # Errors
/// The serializer's own errors only.
pub fn serialize_display<T: std::fmt::Display, S: serde::Serializer>(v: &T, s: S) -> Result<S::Ok, S::Error> {
    s.collect_str(v)
}

/// [`serialize_display`] for an optional value: `None` is `null`.
///
/// # Errors
/// The serializer's own errors only.
pub fn serialize_display_opt<T: std::fmt::Display, S: serde::Serializer>(
    v: &Option<T>,
    s: S,
) -> Result<S::Ok, S::Error> {
    match v {
        Some(v) => s.collect_str(v),
        None => s.serialize_none(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_is_singular_everything_else_plural() {
        assert_eq!(plural(1u32), "");
        assert_eq!(plural(0u32), "s");
        assert_eq!(plural(2u64), "s");
        assert_eq!(plural_len(1), "");
        assert_eq!(plural_len(7), "s");
        assert_eq!(count(1, "note"), "1 note");
        assert_eq!(count(0, "error"), "0 errors");
    }

    #[test]
    fn money_watts_and_durations() {
        assert_eq!(usd(8500.0), "$8,500");
        assert_eq!(usd(1_234_567.4), "$1,234,567");
        assert_eq!(usd(42.5), "$42.50");
        assert_eq!(usd(-0.0), "$0.00");
        assert_eq!(usd(-1500.0), "-$1,500");
        assert_eq!(usd_rate(6.748), "$6.75");
        assert_eq!(usd_rate(0.4123), "$0.412");
        assert_eq!(usd_or_unknown(None), "unknown");
        assert_eq!(watts(0.4), "0.4 W");
        assert_eq!(watts(1200.4), "1200 W");
        assert_eq!(kilowatts_or_unknown(Some(1234.0)), "1.23 kW");
        assert_eq!(kilowatts_or_unknown(None), "unknown");
        assert_eq!(duration(1e-4), "100 µs");
        assert_eq!(duration(0.01), "10 ms");
        assert_eq!(thousands(131_072), "131,072");
    }
}
