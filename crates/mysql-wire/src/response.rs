//! The server's answers to a command, parsed from a payload whose first byte says which it
//! is: 0x00 an OK packet, 0xFF an ERR packet; a result set starts with its column count and
//! a column definition per column.

use crate::packet::{Cursor, Malformed};

/// An OK packet (or the OK that ends rows when the EOF packet is deprecated).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OkPacket {
    pub affected_rows: u64,
    /// The server status flags (`SERVER_MORE_RESULTS_EXISTS` is 0x0008).
    pub status: u16,
}

impl OkPacket {
    /// `p` is the whole payload, its header byte included.
    pub fn parse(p: &[u8]) -> Result<OkPacket, Malformed> {
        let mut c = Cursor::new(p.get(1..).ok_or(Malformed)?);
        let affected_rows = c.lenenc()?.unwrap_or(0);
        c.lenenc()?; // last insert id
        Ok(OkPacket {
            affected_rows,
            status: c.u16()?,
        })
    }
}

/// An ERR packet: the server's error code and message (the SQL state marker, when present,
/// is dropped). Never fails: a cut-short packet gives code 0 and what message there is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ErrPacket<'a> {
    pub code: u16,
    pub message: &'a [u8],
}

impl<'a> ErrPacket<'a> {
    /// `p` is the whole payload, its header byte included.
    pub fn parse(p: &'a [u8]) -> ErrPacket<'a> {
        let mut c = Cursor::new(p.get(1..).unwrap_or_default());
        let code = c.u16().unwrap_or(0);
        let mut message = c.rest();
        if message.first() == Some(&b'#') && message.len() >= 6 {
            message = &message[6..];
        }
        ErrPacket { code, message }
    }
}

/// A result column's type and flags, from its column definition packet.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Column {
    pub kind: u8,
    pub flags: u16,
}

impl Column {
    pub fn parse(p: &[u8]) -> Result<Column, Malformed> {
        let mut c = Cursor::new(p);
        for _ in 0..6 {
            c.lenenc_bytes()?; // catalog, schema, table, org_table, name, org_name
        }
        c.lenenc()?; // length of the fixed fields
        c.u16()?; // character set
        c.u32()?; // column length
        let kind = c.u8()?;
        let flags = c.u16()?;
        Ok(Column { kind, flags })
    }
}

/// Every parser of a server packet, run on `data`: what the fuzz target and the property
/// tests below call; none may panic, whatever the bytes.
pub fn parse_all(data: &[u8]) {
    let _ = crate::auth::Greeting::parse(data);
    let _ = OkPacket::parse(data);
    let _ = Column::parse(data);
    let _ = ErrPacket::parse(data);
    let mut c = Cursor::new(data);
    while c.lenenc().is_ok() && c.lenenc_bytes().is_ok() {}
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::packet::put_lenenc_bytes;
    use proptest::prelude::*;

    #[test]
    fn an_ok_packet_gives_affected_rows_and_status() {
        let p = [0x00, 0xfc, 0x2c, 0x01, 0x00, 0x08, 0x00, 0x00, 0x00];
        let ok = OkPacket::parse(&p).unwrap();
        assert_eq!(ok.affected_rows, 300);
        assert_eq!(ok.status, 0x0008);
        assert!(OkPacket::parse(&[0x00, 0x01]).is_err());
        assert!(OkPacket::parse(&[]).is_err());
    }

    #[test]
    fn an_err_packet_drops_the_sql_state() {
        let mut p = vec![0xff, 0xbd, 0x04];
        p.extend_from_slice(b"#40001Deadlock found");
        let e = ErrPacket::parse(&p);
        assert_eq!(e.code, 1213);
        assert_eq!(e.message, b"Deadlock found");
        assert_eq!(ErrPacket::parse(&[0xff]).code, 0);
        assert_eq!(ErrPacket::parse(&[]).message, b"");
    }

    #[test]
    fn a_column_definition_gives_type_and_flags() {
        let mut p = Vec::new();
        for field in ["def", "sbtest", "sbtest1", "sbtest1", "k", "k"] {
            put_lenenc_bytes(&mut p, field.as_bytes());
        }
        p.extend_from_slice(&[0x0c, 0x3f, 0x00, 11, 0, 0, 0, 0x03, 0x20, 0x00, 0, 0, 0]);
        let col = Column::parse(&p).unwrap();
        assert_eq!(
            col,
            Column {
                kind: 0x03,
                flags: 0x20
            }
        );
        assert!(Column::parse(&p[..p.len() - 6]).is_err());
    }

    proptest! {
        #[test]
        fn no_parser_panics_on_any_bytes(data in proptest::collection::vec(any::<u8>(), 0..512)) {
            parse_all(&data);
        }

        #[test]
        fn no_parser_panics_on_a_valid_header_with_any_tail(
            head in prop_oneof![Just(0x00u8), Just(0x0a), Just(0xff), Just(0xfe)],
            tail in proptest::collection::vec(any::<u8>(), 0..256),
        ) {
            let mut data = vec![head];
            data.extend_from_slice(&tail);
            parse_all(&data);
        }
    }
}
