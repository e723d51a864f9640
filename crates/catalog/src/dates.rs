//! Calendar dates from the system clock and from Unix time, in UTC (proleptic Gregorian,
//! Howard Hinnant's `civil_from_days`, <https://howardhinnant.github.io/date_algorithms.html>).
//! The one home of date arithmetic: price ages, "today" in reports, recording times in the window.

/// `(year, month, day)` of a day count since 1970-01-01.
pub fn civil_from_days(days: i64) -> (i32, u32, u32) {
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
/// before the epoch).
pub fn today_utc() -> (i32, u32, u32) {
    let secs = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs());
    civil_from_days(i64::try_from(secs / 86_400).unwrap_or(0))
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
    }
}
