//! The binary protocol of prepared statements: parameters of COM_STMT_EXECUTE, and the values of
//! binary result rows read into our `Value`s.

use crate::engines::Value;
use drivebench_mysql_wire::packet::{Cursor, Malformed, put_lenenc_bytes};
use drivebench_mysql_wire::response::Column;

const TINY: u8 = 0x01;
const SHORT: u8 = 0x02;
const LONG: u8 = 0x03;
const FLOAT: u8 = 0x04;
const DOUBLE: u8 = 0x05;
const NULL: u8 = 0x06;
const TIMESTAMP: u8 = 0x07;
const LONGLONG: u8 = 0x08;
const INT24: u8 = 0x09;
const DATE: u8 = 0x0a;
const TIME: u8 = 0x0b;
const DATETIME: u8 = 0x0c;
const YEAR: u8 = 0x0d;
const VAR_STRING: u8 = 0xfd;
const UNSIGNED: u16 = 0x20;

/// COM_STMT_EXECUTE's payload after the command byte: statement id, no cursor, one iteration,
/// then the NULL bitmap, the types (sent with every call) and the values.
pub fn put_execute(out: &mut Vec<u8>, stmt: u32, params: &[Value]) {
    out.extend_from_slice(&stmt.to_le_bytes());
    out.push(0);
    out.extend_from_slice(&1u32.to_le_bytes());
    if params.is_empty() {
        return;
    }
    let bitmap = out.len();
    out.resize(bitmap + params.len().div_ceil(8), 0);
    for (i, p) in params.iter().enumerate() {
        if *p == Value::Null {
            out[bitmap + i / 8] |= 1 << (i % 8);
        }
    }
    out.push(1);
    for p in params {
        out.extend_from_slice(&[kind(p), 0]);
    }
    for p in params {
        put_value(out, p);
    }
}

/// The binary protocol's type for a value.
fn kind(v: &Value) -> u8 {
    match v {
        Value::Null => NULL,
        Value::Int(_) => LONGLONG,
        Value::Float(_) => DOUBLE,
        Value::Text(_) => VAR_STRING,
    }
}

fn put_value(out: &mut Vec<u8>, v: &Value) {
    match v {
        Value::Null => {}
        Value::Int(i) => out.extend_from_slice(&i.to_le_bytes()),
        Value::Float(f) => out.extend_from_slice(&f.to_le_bytes()),
        Value::Text(s) => put_lenenc_bytes(out, s.as_bytes()),
    }
}

/// COM_STMT_BULK_EXECUTE (MariaDB) flag: the parameters' types follow the flags.
const SEND_TYPES_TO_SERVER: u16 = 128;
/// A bulk row's parameter indicators: a value follows, or the parameter is NULL.
const INDICATOR_VALUE: u8 = 0;
const INDICATOR_NULL: u8 = 1;

/// COM_STMT_BULK_EXECUTE's payload after the command byte, for the leading rows of `rows`
/// (row-major, `width` values each): statement id, flags, one type per column, then for each
/// row and value an indicator and the value. A column's type is that of its first non-NULL
/// value; the rows stop before one whose value has another type, or once the payload has
/// reached `max_bytes`. Gives the rows written, at least one when there are rows.
pub fn put_bulk(
    out: &mut Vec<u8>,
    stmt: u32,
    rows: &[Value],
    width: usize,
    max_bytes: usize,
) -> usize {
    let types: Vec<u8> = (0..width)
        .map(|col| {
            rows.iter()
                .skip(col)
                .step_by(width)
                .find(|v| **v != Value::Null)
                .map_or(NULL, kind)
        })
        .collect();
    out.extend_from_slice(&stmt.to_le_bytes());
    out.extend_from_slice(&SEND_TYPES_TO_SERVER.to_le_bytes());
    for t in &types {
        out.extend_from_slice(&[*t, 0]);
    }
    let start = out.len();
    let mut written = 0;
    for row in rows.chunks_exact(width) {
        let fits = row
            .iter()
            .zip(&types)
            .all(|(v, t)| *v == Value::Null || kind(v) == *t);
        if written > 0 && (!fits || out.len() - start >= max_bytes) {
            break;
        }
        for v in row {
            if *v == Value::Null {
                out.push(INDICATOR_NULL);
            } else {
                out.push(INDICATOR_VALUE);
                put_value(out, v);
            }
        }
        written += 1;
    }
    written
}

/// One binary row's values, appended to `out`.
pub fn read_row(p: &[u8], columns: &[Column], out: &mut Vec<Value>) -> Result<(), Malformed> {
    let mut c = Cursor::new(p);
    c.u8()?; // the row header, 0x00
    let bitmap = c.bytes((columns.len() + 9) / 8)?;
    for (i, col) in columns.iter().enumerate() {
        let bit = i + 2;
        if bitmap[bit / 8] & (1 << (bit % 8)) != 0 {
            out.push(Value::Null);
            continue;
        }
        let unsigned = col.flags & UNSIGNED != 0;
        let int = |n: u64, bytes: usize| {
            if unsigned || bytes == 8 {
                n as i64
            } else {
                let shift = 64 - 8 * bytes as u32;
                ((n << shift) as i64) >> shift
            }
        };
        out.push(match col.kind {
            TINY => Value::Int(int(c.uint(1)?, 1)),
            SHORT | YEAR => Value::Int(int(c.uint(2)?, 2)),
            LONG | INT24 => Value::Int(int(c.uint(4)?, 4)),
            LONGLONG => Value::Int(int(c.uint(8)?, 8)),
            FLOAT => Value::Float(f64::from(f32::from_bits(c.u32()?))),
            DOUBLE => Value::Float(f64::from_bits(c.uint(8)?)),
            NULL => Value::Null,
            DATE | DATETIME | TIMESTAMP => Value::Text(datetime(&mut c, col.kind == DATE)?),
            TIME => Value::Text(time(&mut c)?),
            _ => Value::Text(String::from_utf8_lossy(c.lenenc_bytes()?).into_owned()),
        });
    }
    Ok(())
}

fn datetime(c: &mut Cursor, date_only: bool) -> Result<String, Malformed> {
    let len = usize::from(c.u8()?);
    let mut f = Cursor::new(c.bytes(len)?);
    // Shorter encodings leave the trailing parts out: they are zero.
    let mut part = |n| f.uint(n).unwrap_or(0);
    let (y, mo, d) = (part(2), part(1), part(1));
    let (h, mi, s, us) = (part(1), part(1), part(1), part(4));
    let mut out = format!("{y:04}-{mo:02}-{d:02}");
    if !date_only {
        out += &format!(" {h:02}:{mi:02}:{s:02}");
        if us > 0 {
            out += &format!(".{us:06}");
        }
    }
    Ok(out)
}

fn time(c: &mut Cursor) -> Result<String, Malformed> {
    let len = usize::from(c.u8()?);
    let mut f = Cursor::new(c.bytes(len)?);
    let mut part = |n| f.uint(n).unwrap_or(0);
    let (neg, days) = (part(1), part(4));
    let (h, mi, s, us) = (part(1), part(1), part(1), part(4));
    let mut out = format!(
        "{}{:02}:{mi:02}:{s:02}",
        if neg == 1 { "-" } else { "" },
        days * 24 + h
    );
    if us > 0 {
        out += &format!(".{us:06}");
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn col(kind: u8, flags: u16) -> Column {
        Column { kind, flags }
    }

    #[test]
    fn bulk_payload_types_columns_once_and_marks_nulls() {
        let rows = [
            Value::Int(1),
            Value::Null,
            Value::Int(2),
            Value::Text("ab".into()),
        ];
        let mut out = Vec::new();
        assert_eq!(put_bulk(&mut out, 9, &rows, 2, 1 << 20), 2);
        let mut want = vec![9, 0, 0, 0, 128, 0, LONGLONG, 0, VAR_STRING, 0];
        want.extend_from_slice(&[0, 1, 0, 0, 0, 0, 0, 0, 0, 1]);
        want.extend_from_slice(&[0, 2, 0, 0, 0, 0, 0, 0, 0, 0, 2, b'a', b'b']);
        assert_eq!(out, want);
    }

    #[test]
    fn bulk_payload_stops_at_a_new_type_or_the_size_cap() {
        let rows = [Value::Int(1), Value::Int(2), Value::Text("3".into())];
        let mut out = Vec::new();
        assert_eq!(put_bulk(&mut out, 1, &rows, 1, 1 << 20), 2);
        out.clear();
        assert_eq!(put_bulk(&mut out, 1, &rows[2..], 1, 1 << 20), 1);
        out.clear();
        // One row always goes, whatever its size.
        assert_eq!(put_bulk(&mut out, 1, &rows, 1, 1), 1);
        let all_null = [Value::Null, Value::Null];
        out.clear();
        assert_eq!(put_bulk(&mut out, 1, &all_null, 1, 1 << 20), 2);
        assert_eq!(out[6], NULL);
    }

    #[test]
    fn execute_payload_carries_bitmap_types_and_values() {
        let mut out = Vec::new();
        let params = [
            Value::Int(-2),
            Value::Null,
            Value::Text("ab".into()),
            Value::Float(1.5),
        ];
        put_execute(&mut out, 9, &params);
        let mut want = vec![9, 0, 0, 0, 0, 1, 0, 0, 0, 0b10, 1];
        want.extend_from_slice(&[LONGLONG, 0, NULL, 0, VAR_STRING, 0, DOUBLE, 0]);
        want.extend_from_slice(&(-2i64).to_le_bytes());
        want.extend_from_slice(&[2, b'a', b'b']);
        want.extend_from_slice(&1.5f64.to_le_bytes());
        assert_eq!(out, want);
    }

    #[test]
    fn binary_rows_decode_signed_unsigned_null_text_and_dates() {
        let columns = [
            col(LONG, 0),
            col(TINY, UNSIGNED),
            col(VAR_STRING, 0),
            col(LONGLONG, 0),
            col(DATETIME, 0),
            col(DOUBLE, 0),
            col(DATE, 0),
        ];
        // header, bitmap (9 bits: 2 reserved + 7 columns), column 3 NULL
        let mut p = vec![0, 0b0010_0000, 0];
        p.extend_from_slice(&(-5i32).to_le_bytes());
        p.push(200);
        p.extend_from_slice(&[3, b'x', b'y', b'z']);
        p.extend_from_slice(&[7, 0xe8, 0x07, 12, 31, 23, 59, 58]);
        p.extend_from_slice(&0.25f64.to_le_bytes());
        p.extend_from_slice(&[0]);
        let mut out = Vec::new();
        read_row(&p, &columns, &mut out).unwrap();
        assert_eq!(
            out,
            [
                Value::Int(-5),
                Value::Int(200),
                Value::Text("xyz".into()),
                Value::Null,
                Value::Text("2024-12-31 23:59:58".into()),
                Value::Float(0.25),
                Value::Text("0000-00-00".into()),
            ]
        );
        assert!(read_row(&p[..6], &columns, &mut out).is_err());
    }

    #[test]
    fn times_carry_days_into_hours_and_sign() {
        let mut p = vec![0, 0];
        p.extend_from_slice(&[8, 1, 1, 0, 0, 0, 2, 3, 4]);
        let mut out = Vec::new();
        read_row(&p, &[col(TIME, 0)], &mut out).unwrap();
        assert_eq!(out, [Value::Text("-26:03:04".into())]);
    }
}
