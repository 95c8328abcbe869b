//! The few dates brief handles (recency, stored timestamps, Tana times), through jiff's
//! calendar: a day that does not exist (`2026-02-31`) is no date.

use jiff::civil::Date;
use jiff::tz::TimeZone;
use jiff::Timestamp;

const EPOCH: Date = Date::constant(1970, 1, 1);

/// Why a text is not a `YYYY-MM-DD` date.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum DateError {
    #[error("`{0}` is not a YYYY-MM-DD date")]
    /// Not of the form `YYYY-MM-DD`; holds the text as written.
    Shape(String),
    /// Of the form but not a day of the calendar (`2026-02-31`).
    #[error("`{text}` is no calendar date: {reason}")]
    Calendar {
        /// The text as written.
        text: String,
        /// What the calendar says is wrong with it (jiff's words).
        reason: String,
    },
}

/// The date a `YYYY-MM-DD…` text starts with (a time may follow), checked against the
/// calendar.
pub(crate) fn date(text: &str) -> Result<Date, DateError> {
    let shape = || DateError::Shape(text.chars().take(10).collect());
    let ymd = text.get(0..10).ok_or_else(shape)?.as_bytes();
    let digits = |range: std::ops::Range<usize>| {
        ymd[range].iter().try_fold(0i16, |n, &b| {
            b.is_ascii_digit().then(|| n * 10 + i16::from(b - b'0'))
        })
    };
    if ymd[4] != b'-' || ymd[7] != b'-' {
        return Err(shape());
    }
    let (Some(y), Some(m), Some(d)) = (digits(0..4), digits(5..7), digits(8..10)) else {
        return Err(shape());
    };
    Date::new(y, m as i8, d as i8).map_err(|e| DateError::Calendar {
        text: text[..10].to_string(),
        reason: e.to_string(),
    })
}

/// Days since 1970-01-01 of a `YYYY-MM-DD…` date; `None` when it is not one.
pub fn epoch_days(text: &str) -> Option<i64> {
    let date = date(text).ok()?;
    EPOCH
        .until(date)
        .ok()
        .map(|span| i64::from(span.get_days()))
}

/// `YYYY-MM-DDTHH:MM:SSZ` for Unix seconds (UTC); seconds beyond the years 9999 BC–9999
/// are clamped to them.
pub fn iso_utc(secs: i64) -> String {
    let at = Timestamp::from_second(secs).unwrap_or(if secs < 0 {
        Timestamp::MIN
    } else {
        Timestamp::MAX
    });
    let t = TimeZone::UTC.to_datetime(at);
    format!(
        "{:04}-{:02}-{:02}T{:02}:{:02}:{:02}Z",
        t.year(),
        t.month(),
        t.day(),
        t.hour(),
        t.minute(),
        t.second()
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn days_are_exact() {
        assert_eq!(epoch_days("1970-01-01"), Some(0));
        assert_eq!(
            epoch_days("2026-03-02").unwrap() - epoch_days("2026-02-28").unwrap(),
            2
        );
        assert_eq!(
            epoch_days("2024-02-29T10:00:00Z").unwrap() - epoch_days("2024-02-28").unwrap(),
            1
        );
        assert_eq!(epoch_days("1969-12-31"), Some(-1));
        assert_eq!(epoch_days("nope"), None);
    }

    #[test]
    fn impossible_days_are_errors() {
        assert!(matches!(
            date("2026-02-31"),
            Err(DateError::Calendar { .. })
        ));
        assert_eq!(epoch_days("2026-02-31"), None);
        assert_eq!(epoch_days("2025-02-29"), None);
        assert_eq!(epoch_days("2026-04-31"), None);
        assert_eq!(epoch_days("2026-13-01"), None);
        assert_eq!(
            date("2026x02x12"),
            Err(DateError::Shape("2026x02x12".into()))
        );
        assert_eq!(date("2026-2-1"), Err(DateError::Shape("2026-2-1".into())));
    }

    #[test]
    fn times_are_exact() {
        assert_eq!(iso_utc(0), "1970-01-01T00:00:00Z");
        assert_eq!(iso_utc(1_739_371_530), "2025-02-12T14:45:30Z");
        assert_eq!(iso_utc(951_782_400), "2000-02-29T00:00:00Z");
        assert_eq!(iso_utc(-1), "1969-12-31T23:59:59Z");
        assert_eq!(
            epoch_days(&iso_utc(1_772_409_600)),
            Some(1_772_409_600 / 86_400)
        );
    }
}
