//! Our `Value` to and from the driver's column data.
//!
//! Parameters are typed by the value, never by the value's size, so the `sp_executesql`
//! declaration of a statement is the same on every call and SQL Server's plan cache (keyed by
//! the text and the declaration) is reused: integers are `bigint`, text `nvarchar(4000)`, and
//! numbers with a fraction (money, rates) their exact decimal text as `nvarchar(4000)`, which
//! the statements `CAST` to the column's NUMERIC: 123.45 arrives as 123.45, never as the binary
//! float nearest to it, and the declaration holds no `float(53)` or `numeric(p,s)`.
//! Results are widened: every integer width (TINYINT, SMALLINT, INT, BIGINT, BIT) becomes an
//! `i64`, whatever width the server chose for an expression (SUM of INT is INT on SQL Server,
//! BIGINT on some servers); DECIMAL and MONEY become floats; dates and times text.

use std::borrow::Cow;

use tiberius::{ColumnData, FromSql, ToSql};

use crate::engines::Value;

/// A parameter bound from our value.
pub struct Param<'a>(pub &'a Value);

impl ToSql for Param<'_> {
    fn to_sql(&self) -> ColumnData<'_> {
        match self.0 {
            Value::Null => ColumnData::String(None),
            Value::Int(i) => ColumnData::I64(Some(*i)),
            Value::Float(f) => ColumnData::String(Some(Cow::Owned(f.to_string()))),
            Value::Text(t) => ColumnData::String(Some(Cow::Borrowed(t.as_str()))),
        }
    }
}

/// The declared SQL Server type of a parameter (as the driver declares it for `sp_executesql`),
/// for error messages.
pub fn declared_type(v: &Value) -> &'static str {
    match v {
        Value::Null => "nvarchar(4000) NULL",
        Value::Int(_) => "bigint",
        Value::Float(_) => "nvarchar(4000)",
        Value::Text(t) if t.len() <= 4000 => "nvarchar(4000)",
        Value::Text(_) => "nvarchar(max)",
    }
}

/// One result cell as our value, widened.
pub fn decode(data: &ColumnData<'static>) -> Value {
    fn opt<T>(v: Option<T>, f: impl FnOnce(T) -> Value) -> Value {
        v.map_or(Value::Null, f)
    }
    match data {
        ColumnData::U8(v) => opt(*v, |x| Value::Int(x.into())),
        ColumnData::I16(v) => opt(*v, |x| Value::Int(x.into())),
        ColumnData::I32(v) => opt(*v, |x| Value::Int(x.into())),
        ColumnData::I64(v) => opt(*v, Value::Int),
        ColumnData::Bit(v) => opt(*v, |x| Value::Int(x.into())),
        ColumnData::F32(v) => opt(*v, |x| Value::Float(x.into())),
        ColumnData::F64(v) => opt(*v, Value::Float),
        ColumnData::Numeric(v) => opt(*v, |n| {
            Value::Float(n.value() as f64 / 10f64.powi(i32::from(n.scale())))
        }),
        ColumnData::String(v) => opt(v.as_ref(), |s| Value::Text(s.to_string())),
        ColumnData::Guid(v) => opt(*v, |g| Value::Text(g.to_string())),
        ColumnData::DateTime(_)
        | ColumnData::SmallDateTime(_)
        | ColumnData::DateTime2(_)
        | ColumnData::Date(_)
        | ColumnData::Time(_)
        | ColumnData::DateTimeOffset(_) => temporal(data),
        ColumnData::Binary(v) => opt(v.as_ref(), |b| {
            Value::Text(String::from_utf8_lossy(b).into_owned())
        }),
        ColumnData::Xml(v) => opt(v.as_ref(), |x| Value::Text(x.to_string())),
    }
}

/// Dates and times as ISO text ("2026-11-30 06:44:05.123"), the form the workloads bind.
fn temporal(data: &ColumnData<'static>) -> Value {
    use tiberius::time::chrono::{DateTime, NaiveDate, NaiveDateTime, NaiveTime, Utc};
    let text = match data {
        ColumnData::Date(_) => NaiveDate::from_sql(data)
            .ok()
            .flatten()
            .map(|d| d.to_string()),
        ColumnData::Time(_) => NaiveTime::from_sql(data)
            .ok()
            .flatten()
            .map(|t| t.to_string()),
        ColumnData::DateTimeOffset(_) => DateTime::<Utc>::from_sql(data)
            .ok()
            .flatten()
            .map(|t| t.naive_utc().to_string()),
        _ => NaiveDateTime::from_sql(data)
            .ok()
            .flatten()
            .map(|t| t.to_string()),
    };
    text.map_or(Value::Null, Value::Text)
}

/// Number bare `@P` placeholders: "(@P, @P)" -> "(@P1, @P2)"; numbered ones are kept. The
/// loaders build multi-row INSERTs from one row's template, the way the other dialects do with
/// `?` and `$`.
pub fn number_placeholders(sql: &str) -> String {
    let bytes = sql.as_bytes();
    let is_bare = |i: usize| {
        bytes[i] == b'@'
            && bytes.get(i + 1) == Some(&b'P')
            && !bytes
                .get(i + 2)
                .is_some_and(|c| c.is_ascii_alphanumeric() || *c == b'_')
    };
    if !(0..bytes.len()).any(is_bare) {
        return sql.to_string();
    }
    let mut out = String::with_capacity(sql.len() + 16);
    let mut n = 0;
    let mut last = 0;
    for i in (0..bytes.len()).filter(|&i| is_bare(i)) {
        n += 1;
        out.push_str(&sql[last..i + 2]);
        out.push_str(&n.to_string());
        last = i + 2;
    }
    out.push_str(&sql[last..]);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use tiberius::numeric::Numeric;

    #[test]
    fn parameters_are_typed_by_kind_never_by_size() {
        let cases = [
            (Value::Int(1), "bigint"),
            (Value::Int(i64::MAX), "bigint"),
            (Value::Float(12.5), "nvarchar(4000)"),
            (Value::Float(0.1), "nvarchar(4000)"),
            (Value::Text("BARBARBAR".into()), "nvarchar(4000)"),
            (Value::Null, "nvarchar(4000) NULL"),
        ];
        for (v, want) in cases {
            assert_eq!(declared_type(&v), want, "{v:?}");
            let param = Param(&v);
            let bound = param.to_sql();
            let same = match (&v, &bound) {
                (Value::Int(i), ColumnData::I64(Some(b))) => i == b,
                (Value::Float(f), ColumnData::String(Some(b))) => b.parse::<f64>() == Ok(*f),
                (Value::Text(t), ColumnData::String(Some(b))) => t == b,
                (Value::Null, ColumnData::String(None)) => true,
                _ => false,
            };
            assert!(same, "{v:?} bound as {bound:?}");
        }
    }

    #[test]
    fn fractions_travel_as_their_exact_decimal_text() {
        for (f, text) in [
            (123.45, "123.45"),
            (0.1, "0.1"),
            (-10.0, "-10"),
            (1e-7, "0.0000001"),
        ] {
            let v = Value::Float(f);
            let param = Param(&v);
            assert!(
                matches!(param.to_sql(), ColumnData::String(Some(ref t)) if t == text),
                "{f}"
            );
        }
    }

    #[test]
    fn every_integer_width_is_widened() {
        // SQL Server returns SUM(INT) as INT, the TDS emulator as BIGINT; COUNT(*) is INT.
        let cases = [
            (ColumnData::U8(Some(255)), Value::Int(255)),
            (ColumnData::I16(Some(-7)), Value::Int(-7)),
            (ColumnData::I32(Some(3001)), Value::Int(3001)),
            (ColumnData::I64(Some(1 << 40)), Value::Int(1 << 40)),
            (ColumnData::Bit(Some(true)), Value::Int(1)),
            (ColumnData::I32(None), Value::Null),
            (ColumnData::F32(Some(0.5)), Value::Float(0.5)),
            (
                ColumnData::Numeric(Some(Numeric::new_with_scale(-123_456, 2))),
                Value::Float(-1234.56),
            ),
            (
                ColumnData::String(Some("GOOD".into())),
                Value::Text("GOOD".into()),
            ),
        ];
        for (data, want) in cases {
            assert_eq!(decode(&data), want, "{data:?}");
        }
    }

    #[test]
    fn datetimes_decode_as_the_text_the_workloads_bind() {
        use tiberius::time::chrono::NaiveDate;
        let t = NaiveDate::from_ymd_opt(2026, 11, 30)
            .unwrap()
            .and_hms_opt(6, 44, 5)
            .unwrap();
        let data: ColumnData<'static> = tiberius::IntoSql::into_sql(t);
        assert_eq!(decode(&data), Value::Text("2026-11-30 06:44:05".into()));
    }

    #[test]
    fn legacy_datetime_counts_days_from_1900() {
        // DATETIME: days since 1900-01-01 and 1/300 s ticks since midnight (TDS 2.2.5.5.1.8).
        let ticks = (3 * 3600 + 40 * 60) * 300;
        let data = ColumnData::DateTime(Some(tiberius::time::DateTime::new(46_354, ticks)));
        assert_eq!(decode(&data), Value::Text("2026-11-30 03:40:00".into()));
    }

    #[test]
    fn bare_placeholders_are_numbered() {
        assert_eq!(
            number_placeholders("INSERT INTO t VALUES (@P, @P), (@P, @P)"),
            "INSERT INTO t VALUES (@P1, @P2), (@P3, @P4)"
        );
        assert_eq!(
            number_placeholders("SELECT c FROM t WHERE id = @P1"),
            "SELECT c FROM t WHERE id = @P1"
        );
        assert_eq!(
            number_placeholders("SELECT 1 WHERE a = @P AND @PARAM = @P"),
            "SELECT 1 WHERE a = @P1 AND @PARAM = @P2"
        );
    }
}
