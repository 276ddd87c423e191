//! PostgreSQL's binary forms of NUMERIC and TIMESTAMP, to and from our `Value`: money and
//! rates travel as `Float` (NUMERIC on the server, rounded there to the column's scale), times
//! as `Text` "YYYY-MM-DD HH:MM:SS[.ffffff]" (TIMESTAMP, or TIMESTAMPTZ taken as UTC).

use bytes::{BufMut, BytesMut};

const NUMERIC_NEG: u16 = 0x4000;
const NUMERIC_NAN: u16 = 0xC000;
/// Days from 1970-01-01 to PostgreSQL's epoch, 2000-01-01.
const PG_EPOCH_DAYS: i64 = 10_957;
const MICROS_PER_DAY: i64 = 86_400_000_000;

/// A value that has no binary form of the type asked, or bytes that are not one.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum BinaryError {
    #[error("{0} has no NUMERIC form")]
    NotFinite(f64),
    #[error("{0:?} is not a decimal number")]
    NotDecimal(String),
    #[error("truncated NUMERIC")]
    TruncatedNumeric,
    #[error("NUMERIC: {0}")]
    Numeric(#[from] std::num::ParseFloatError),
    #[error("{0:?} is not a timestamp (YYYY-MM-DD HH:MM:SS[.ffffff])")]
    NotTimestamp(String),
    #[error("TIMESTAMP is 8 bytes")]
    TimestampSize,
}

/// NUMERIC for a finite `f`, with as many decimals as its shortest exact display.
pub fn put_numeric(f: f64, out: &mut BytesMut) -> Result<(), BinaryError> {
    if !f.is_finite() {
        return Err(BinaryError::NotFinite(f));
    }
    put_numeric_text(&f.to_string(), out)
}

/// NUMERIC from decimal text such as "-123.4500".
pub fn put_numeric_text(text: &str, out: &mut BytesMut) -> Result<(), BinaryError> {
    let (negative, body) = match text.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, text),
    };
    let (int, frac) = body.split_once('.').unwrap_or((body, ""));
    if !(int.bytes().chain(frac.bytes())).all(|b| b.is_ascii_digit()) {
        return Err(BinaryError::NotDecimal(text.to_string()));
    }
    let int = int.trim_start_matches('0');
    let group = |s: &str| -> Vec<u16> {
        s.as_bytes()
            .chunks(4)
            .map(|c| c.iter().fold(0u16, |n, d| n * 10 + u16::from(d - b'0')))
            .collect()
    };
    let int_pad = "0".repeat((4 - int.len() % 4) % 4) + int;
    let frac_pad = frac.to_string() + &"0".repeat((4 - frac.len() % 4) % 4);
    let int_groups = group(&int_pad);
    let mut weight = int_groups.len() as i16 - 1;
    let mut digits: Vec<u16> = int_groups.into_iter().chain(group(&frac_pad)).collect();
    while digits.first() == Some(&0) {
        digits.remove(0);
        weight -= 1;
    }
    while digits.last() == Some(&0) {
        digits.pop();
    }
    if digits.is_empty() {
        weight = 0;
    }
    out.put_i16(digits.len() as i16);
    out.put_i16(weight);
    out.put_u16(if negative && !digits.is_empty() {
        NUMERIC_NEG
    } else {
        0
    });
    out.put_u16(frac.len() as u16);
    for d in digits {
        out.put_u16(d);
    }
    Ok(())
}

/// A NUMERIC's value as f64.
pub fn numeric_to_f64(raw: &[u8]) -> Result<f64, BinaryError> {
    let word = |i: usize| -> Result<u16, BinaryError> {
        raw.get(i * 2..i * 2 + 2)
            .map(|b| u16::from_be_bytes([b[0], b[1]]))
            .ok_or(BinaryError::TruncatedNumeric)
    };
    let (ndigits, weight, sign) = (word(0)? as usize, word(1)? as i16, word(2)?);
    if sign == NUMERIC_NAN {
        return Ok(f64::NAN);
    }
    // Digits then a decimal exponent, parsed once: correctly rounded (0.0832 stays 0.0832).
    let mut text = String::with_capacity(ndigits * 4 + 8);
    for i in 0..ndigits {
        text.push_str(&format!("{:04}", word(4 + i)?));
    }
    if text.is_empty() {
        return Ok(0.0);
    }
    let exp = 4 * (i64::from(weight) + 1) - 4 * ndigits as i64;
    let value: f64 = format!("{text}e{exp}").parse()?;
    Ok(if sign == NUMERIC_NEG { -value } else { value })
}

fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = if y >= 0 { y } else { y - 399 } / 400;
    let yoe = y - era * 400;
    let doy = (153 * (m + if m > 2 { -3 } else { 9 }) + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

fn civil_from_days(z: i64) -> (i64, i64, i64) {
    let z = z + 719_468;
    let era = if z >= 0 { z } else { z - 146_096 } / 146_097;
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    (yoe + era * 400 + i64::from(m <= 2), m, d)
}

/// TIMESTAMP (microseconds since 2000-01-01) from "YYYY-MM-DD HH:MM:SS[.ffffff]".
pub fn put_timestamp(text: &str, out: &mut BytesMut) -> Result<(), BinaryError> {
    let bad = || BinaryError::NotTimestamp(text.to_string());
    let (date, time) = text.split_once([' ', 'T']).ok_or_else(bad)?;
    let num = |s: &str| s.parse::<i64>().map_err(|_| bad());
    let mut d = date.splitn(3, '-');
    let (y, m, day) = (
        num(d.next().ok_or_else(bad)?)?,
        num(d.next().ok_or_else(bad)?)?,
        num(d.next().ok_or_else(bad)?)?,
    );
    let (hms, frac) = time.split_once('.').unwrap_or((time, ""));
    let mut t = hms.splitn(3, ':');
    let (hh, mm, ss) = (
        num(t.next().ok_or_else(bad)?)?,
        num(t.next().ok_or_else(bad)?)?,
        num(t.next().ok_or_else(bad)?)?,
    );
    if !(1..=12).contains(&m) || !(1..=31).contains(&day) || hh > 23 || mm > 59 || ss > 60 {
        return Err(bad());
    }
    let micros_frac = if frac.is_empty() {
        0
    } else if frac.len() <= 6 {
        num(frac)? * 10i64.pow(6 - frac.len() as u32)
    } else {
        return Err(bad());
    };
    let days = days_from_civil(y, m, day) - PG_EPOCH_DAYS;
    out.put_i64(days * MICROS_PER_DAY + ((hh * 60 + mm) * 60 + ss) * 1_000_000 + micros_frac);
    Ok(())
}

/// "YYYY-MM-DD HH:MM:SS[.ffffff]" of a TIMESTAMP's binary form.
pub fn timestamp_to_text(raw: &[u8]) -> Result<String, BinaryError> {
    let bytes: [u8; 8] = raw.try_into().map_err(|_| BinaryError::TimestampSize)?;
    let micros = i64::from_be_bytes(bytes);
    let (days, rest) = (
        micros.div_euclid(MICROS_PER_DAY),
        micros.rem_euclid(MICROS_PER_DAY),
    );
    let (y, m, d) = civil_from_days(days + PG_EPOCH_DAYS);
    let secs = rest / 1_000_000;
    let frac = rest % 1_000_000;
    let mut s = format!(
        "{y:04}-{m:02}-{d:02} {:02}:{:02}:{:02}",
        secs / 3600,
        secs / 60 % 60,
        secs % 60
    );
    if frac != 0 {
        s.push_str(&format!(".{frac:06}"));
    }
    Ok(s)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn numeric(text: &str) -> Vec<u8> {
        let mut out = BytesMut::new();
        put_numeric_text(text, &mut out).unwrap();
        out.to_vec()
    }

    fn words(w: &[i16]) -> Vec<u8> {
        w.iter().flat_map(|v| v.to_be_bytes()).collect()
    }

    #[test]
    fn numerics_take_postgres_base_10000_form() {
        // ndigits, weight, sign, dscale, digits
        assert_eq!(numeric("123.45"), words(&[2, 0, 0, 2, 123, 4500]));
        assert_eq!(numeric("0.05"), words(&[1, -1, 0, 2, 500]));
        assert_eq!(numeric("-50000.00"), words(&[1, 1, 0x4000, 2, 5]));
        assert_eq!(numeric("0"), words(&[0, 0, 0, 0]));
        assert_eq!(
            numeric("12345678.9"),
            words(&[3, 1, 0, 1, 1234, 5678, 9000])
        );
        assert!(put_numeric_text("1e5", &mut BytesMut::new()).is_err());
        assert!(put_numeric(f64::NAN, &mut BytesMut::new()).is_err());
    }

    #[test]
    fn numerics_read_back_as_the_float_written() {
        for f in [
            0.0,
            0.05,
            0.0832,
            123.45,
            -50_000.0,
            4999.99,
            0.1234,
            12_345_678.9,
        ] {
            let mut out = BytesMut::new();
            put_numeric(f, &mut out).unwrap();
            assert_eq!(numeric_to_f64(&out).unwrap(), f, "{f}");
        }
        assert!(
            numeric_to_f64(&words(&[0, 0, 0xC000u16 as i16, 0]))
                .unwrap()
                .is_nan()
        );
        assert!(numeric_to_f64(&[0, 1]).is_err());
    }

    #[test]
    fn timestamps_count_microseconds_from_2000() {
        let mut out = BytesMut::new();
        put_timestamp("2000-01-01 00:00:00", &mut out).unwrap();
        assert_eq!(out.to_vec(), 0i64.to_be_bytes());
        let mut out = BytesMut::new();
        put_timestamp("2000-01-02 00:00:01.5", &mut out).unwrap();
        assert_eq!(out.to_vec(), (86_400_000_000i64 + 1_500_000).to_be_bytes());
        for t in [
            "2026-11-30 03:25:30",
            "1999-12-31 23:59:59.000001",
            "2024-02-29 12:00:00",
        ] {
            let mut out = BytesMut::new();
            put_timestamp(t, &mut out).unwrap();
            assert_eq!(timestamp_to_text(&out).unwrap(), t);
        }
        for bad in [
            "2026-13-01 00:00:00",
            "yesterday",
            "2026-01-01",
            "2026-01-01 25:00:00",
        ] {
            assert!(put_timestamp(bad, &mut BytesMut::new()).is_err(), "{bad}");
        }
    }
}
