//! A prepared CALL of a stored procedure that answers one row: the server sends the procedure's
//! result set (binary rows) with SERVER_MORE_RESULTS_EXISTS in its closing status, then the OK
//! of the CALL itself. A fake server on a real socket sends exactly that, with and without
//! DEPRECATE_EOF; the row must be read back, and the next command on the same connection must
//! get its own answer (nothing of the CALL left on the wire).

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

use super::{COM_STMT_EXECUTE, Conn, MORE_RESULTS, Stmt};
use crate::engines::{Rows, Value};
use drivebench_mysql_wire::packet::{Framed, Stream, put_lenenc_bytes};

const AUTOCOMMIT: u16 = 0x0002;
const LONGLONG: u8 = 0x08;

fn packet(seq: u8, payload: &[u8]) -> Vec<u8> {
    let n = payload.len();
    let mut p = vec![n as u8, (n >> 8) as u8, (n >> 16) as u8, seq];
    p.extend_from_slice(payload);
    p
}

/// The end of a result set: an EOF packet, or with DEPRECATE_EOF an OK packet marked 0xfe.
fn end_of_rows(deprecate_eof: bool, status: u16) -> Vec<u8> {
    let mut p = vec![0xfe];
    if deprecate_eof {
        p.extend_from_slice(&[0, 0]); // affected rows, last insert id
        p.extend_from_slice(&status.to_le_bytes());
        p.extend_from_slice(&[0, 0]); // warnings
    } else {
        p.extend_from_slice(&[0, 0]); // warnings
        p.extend_from_slice(&status.to_le_bytes());
    }
    p
}

fn ok(affected: u8, status: u16) -> Vec<u8> {
    let mut p = vec![0, affected, 0];
    p.extend_from_slice(&status.to_le_bytes());
    p.extend_from_slice(&[0, 0]);
    p
}

/// The answer to a CALL whose procedure ends with `SELECT 1 AS rolled_back`.
fn call_answer(deprecate_eof: bool) -> Vec<u8> {
    let mut column = Vec::new();
    for name in ["def", "", "", "", "rolled_back", ""] {
        put_lenenc_bytes(&mut column, name.as_bytes());
    }
    column.push(0x0c);
    column.extend_from_slice(&63u16.to_le_bytes());
    column.extend_from_slice(&20u32.to_le_bytes());
    column.extend_from_slice(&[LONGLONG, 0, 0, 0, 0, 0]);
    let mut row = vec![0, 0];
    row.extend_from_slice(&1i64.to_le_bytes());
    let mut packets = vec![vec![1], column];
    if !deprecate_eof {
        packets.push(end_of_rows(false, AUTOCOMMIT));
    }
    packets.push(row);
    packets.push(end_of_rows(deprecate_eof, AUTOCOMMIT | MORE_RESULTS));
    packets.push(ok(0, AUTOCOMMIT));
    let mut out = Vec::new();
    for (seq, p) in packets.iter().enumerate() {
        out.extend(packet(seq as u8 + 1, p));
    }
    out
}

async fn call_then_statement(deprecate_eof: bool) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let server = tokio::spawn(async move {
        let (mut s, _) = listener.accept().await.unwrap();
        let mut answers = [call_answer(deprecate_eof), packet(1, &ok(3, AUTOCOMMIT))].into_iter();
        let mut h = [0; 4];
        while s.read_exact(&mut h).await.is_ok() {
            let mut p = vec![0; usize::from(h[0]) | usize::from(h[1]) << 8];
            s.read_exact(&mut p).await.unwrap();
            assert_eq!(p[0], COM_STMT_EXECUTE);
            s.write_all(&answers.next().unwrap()).await.unwrap();
        }
    });
    let stream = Stream::Tcp(TcpStream::connect(addr).await.unwrap());
    let mut conn = Conn {
        io: Framed::new(stream),
        deprecate_eof,
        bulk: false,
        columns: Vec::new(),
        pending: false,
    };
    let call = Stmt { id: 1, params: 1 };
    let mut rows = Rows::default();
    conn.execute(call, &[Value::Int(5)], &mut rows)
        .await
        .unwrap();
    assert_eq!((rows.len(), rows.get(0, 0)), (1, Some(&Value::Int(1))));
    let next = Stmt { id: 2, params: 0 };
    let affected = conn.execute(next, &[], &mut rows).await.unwrap();
    // Its own answer (3 rows affected), not the CALL's closing OK.
    assert_eq!((affected, rows.len()), (3, 0));
    drop(conn);
    server.await.unwrap();
}

#[tokio::test]
async fn a_call_answering_a_row_then_ok_is_read_to_its_end() {
    call_then_statement(true).await;
    call_then_statement(false).await;
}
