//! Calendar dates from the system clock and from Unix time, in UTC (proleptic Gregorian,
//! Howard Hinnant's `civil_from_days`, <https://howardhinnant.github.io/date_algorithms.html>).
//! The one home of date arithmetic: price ages, "today" in reports, recording times in the window.

/// `(year, month, day)` of a day count since 1970-01-01.
pub(crate) fn civil_from_days(days: i64) -> (i32, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    (i32::try_from(y).unwrap_or(i32::MAX), m as u32, d as u32)
}

/// Today's date in UTC, `(year, month, day)`, from the system clock (1970-01-01 if the clock is
/// before the epoch), or from the environment variable `KRAFTWERK_TODAY` (`YYYY-MM-DD`) when it
/// is set to a valid date: price ages and "today" in reports then repeat exactly (the golden
/// outputs in `tests/golden/` are made that way). An invalid `KRAFTWERK_TODAY` is ignored.
pub fn today_utc() -> (i32, u32, u32) {
    if let Some(d) = std::env::var("KRAFTWERK_TODAY").ok().as_deref().and_then(parse_ymd) {
        return d;
    }
    let secs = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs());
    civil_from_days(i64::try_from(secs / 86_400).unwrap_or(0))
}

/// `(year, month, day)` of a `YYYY-MM-DD` text, `None` unless it is a real calendar date.
pub fn parse_ymd(text: &str) -> Option<(i32, u32, u32)> {
    let mut it = text.trim().splitn(3, '-');
    let (y, m, d) = (it.next()?, it.next()?, it.next()?);
    if y.len() != 4 || m.len() != 2 || d.len() != 2 {
        return None;
    }
    let (y, m, d) = (y.parse::<i32>().ok()?, m.parse::<u32>().ok()?, d.parse::<u32>().ok()?);
    let leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
    let days_in_month = match m {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if leap => 29,
        2 => 28,
        _ => return None,
    };
    (1..=days_in_month).contains(&d).then_some((y, m, d))
}

/// `YYYY-MM-DD` of a `(year, month, day)`.
pub fn ymd_text((y, m, d): (i32, u32, u32)) -> String {
    format!("{y:04}-{m:02}-{d:02}")
}

/// `2026-11-29 14:21 UTC` for milliseconds since the Unix epoch.
pub fn utc_date_time(unix_ms: u64) -> String {
    let secs = unix_ms / 1000;
    let rem = secs % 86_400;
    let date = civil_from_days(i64::try_from(secs / 86_400).unwrap_or(0));
    format!("{} {:02}:{:02} UTC", ymd_text(date), rem / 3600, (rem % 3600) / 60)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_dates() {
        assert_eq!(civil_from_days(0), (1970, 1, 1));
        assert_eq!(utc_date_time(0), "1970-01-01 00:00 UTC");
        assert_eq!(utc_date_time(951_782_400_000), "2000-02-29 00:00 UTC");
        assert_eq!(utc_date_time(1_795_993_267_528), "2026-11-29 23:01 UTC");
        assert_eq!(ymd_text((2026, 3, 7)), "2026-03-07");
        assert_eq!(civil_from_days(-1), (1969, 12, 31));
        assert_eq!(parse_ymd("2026-12-05"), Some((2026, 12, 5)));
        assert_eq!(parse_ymd("2024-02-29"), Some((2024, 2, 29)));
        assert_eq!(parse_ymd("2026-02-29"), None);
        assert_eq!(parse_ymd("2026-13-01"), None);
        assert_eq!(parse_ymd("26-1-1"), None);
    }
}
