//! MySQL packet framing over one TCP or unix-socket stream, and the integer and string encodings
//! inside packets. Packets are read as slices of one reusable buffer: a row the caller skips costs
//! a header check and no copy, allocation or wakeup of its own.

use std::io;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpStream, UnixStream};
use tokio_rustls::client::TlsStream;

/// The largest payload one packet carries; a payload of exactly this size continues in the
/// next packet.
pub const MAX_PAYLOAD: usize = 0xFF_FFFF;

/// The connection to the server: TCP, TCP with TLS, or the server's unix socket on the same
/// host (no TCP/IP stack on either side).
pub enum Stream {
    Tcp(TcpStream),
    Tls(Box<TlsStream<TcpStream>>),
    Unix(UnixStream),
}

impl Stream {
    async fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        match self {
            Stream::Tcp(s) => s.read(buf).await,
            Stream::Tls(s) => s.read(buf).await,
            Stream::Unix(s) => s.read(buf).await,
        }
    }

    async fn write_all(&mut self, buf: &[u8]) -> io::Result<()> {
        match self {
            Stream::Tcp(s) => s.write_all(buf).await,
            // Each packet goes out whole: rustls holds what it encrypts until flushed.
            Stream::Tls(s) => {
                s.write_all(buf).await?;
                s.flush().await
            }
            Stream::Unix(s) => s.write_all(buf).await,
        }
    }

    async fn shutdown(&mut self) -> io::Result<()> {
        match self {
            Stream::Tcp(s) => s.shutdown().await,
            Stream::Tls(s) => s.shutdown().await,
            Stream::Unix(s) => s.shutdown().await,
        }
    }
}

pub struct Framed {
    stream: Stream,
    buf: Vec<u8>,
    start: usize,
    end: usize,
    /// A payload split over several packets, joined.
    joined: Vec<u8>,
    /// Sequence id of the next packet written.
    seq: u8,
    out: Vec<u8>,
}

impl Framed {
    pub fn new(stream: Stream) -> Self {
        Framed {
            stream,
            buf: vec![0; 64 * 1024],
            start: 0,
            end: 0,
            joined: Vec::new(),
            seq: 0,
            out: Vec::with_capacity(1024),
        }
    }

    /// Make `need` bytes available from `start`, reading as much as the socket has.
    async fn fill(&mut self, need: usize) -> io::Result<()> {
        while self.end - self.start < need {
            if self.buf.len() - self.start < need {
                self.buf.copy_within(self.start..self.end, 0);
                self.end -= self.start;
                self.start = 0;
                if self.buf.len() < need {
                    self.buf.resize(need.next_power_of_two(), 0);
                }
            }
            let n = self.stream.read(&mut self.buf[self.end..]).await?;
            if n == 0 {
                return Err(io::Error::new(
                    io::ErrorKind::UnexpectedEof,
                    "the server closed the connection",
                ));
            }
            self.end += n;
        }
        Ok(())
    }

    /// The next packet's payload, joined when it spans several packets.
    pub async fn read(&mut self) -> io::Result<&[u8]> {
        let mut split = false;
        loop {
            self.fill(4).await?;
            let h = &self.buf[self.start..self.start + 4];
            let len = usize::from(h[0]) | usize::from(h[1]) << 8 | usize::from(h[2]) << 16;
            self.seq = h[3].wrapping_add(1);
            self.fill(4 + len).await?;
            let at = self.start + 4;
            self.start = at + len;
            if self.start == self.end {
                // All read: the next fill starts at the front. The payload stays in place until
                // then, and the slice returned below is gone before any fill.
                (self.start, self.end) = (0, 0);
            }
            if !split && len < MAX_PAYLOAD {
                return Ok(&self.buf[at..at + len]);
            }
            if !split {
                self.joined.clear();
                split = true;
            }
            self.joined.extend_from_slice(&self.buf[at..at + len]);
            if len < MAX_PAYLOAD {
                return Ok(&self.joined);
            }
        }
    }

    /// Start a command: the sequence restarts at 0.
    pub fn command(&mut self, code: u8) -> &mut Vec<u8> {
        self.seq = 0;
        self.payload().push(code);
        &mut self.out
    }

    /// Start a packet that continues the current exchange (handshake, auth, LOCAL INFILE).
    pub fn payload(&mut self) -> &mut Vec<u8> {
        self.out.clear();
        self.out.extend_from_slice(&[0; 4]);
        &mut self.out
    }

    /// Send the packet built since `command` or `payload`, split as the protocol wants.
    pub async fn send(&mut self) -> io::Result<()> {
        let len = self.out.len() - 4;
        if len < MAX_PAYLOAD {
            self.out[..4].copy_from_slice(&header(len, self.seq));
            self.seq = self.seq.wrapping_add(1);
            return self.stream.write_all(&self.out).await;
        }
        let body = std::mem::take(&mut self.out);
        let mut chunks = body[4..].chunks(MAX_PAYLOAD);
        let mut last = 0;
        for chunk in chunks.by_ref() {
            self.stream
                .write_all(&header(chunk.len(), self.seq))
                .await?;
            self.stream.write_all(chunk).await?;
            self.seq = self.seq.wrapping_add(1);
            last = chunk.len();
        }
        if last == MAX_PAYLOAD {
            self.stream.write_all(&header(0, self.seq)).await?;
            self.seq = self.seq.wrapping_add(1);
        }
        self.out = body;
        Ok(())
    }

    /// Go on over TLS (after an SSLRequest): the handshake on the TCP stream, with `config`,
    /// checking the certificate against `name`. Nothing may be buffered from before.
    pub async fn start_tls(
        self,
        config: std::sync::Arc<rustls::ClientConfig>,
        name: rustls::pki_types::ServerName<'static>,
    ) -> io::Result<Framed> {
        let Stream::Tcp(tcp) = self.stream else {
            return Err(io::Error::other("TLS goes over TCP only"));
        };
        let tls = tokio_rustls::TlsConnector::from(config)
            .connect(name, tcp)
            .await?;
        Ok(Framed {
            stream: Stream::Tls(Box::new(tls)),
            ..self
        })
    }

    /// The connection is encrypted.
    pub fn is_tls(&self) -> bool {
        matches!(self.stream, Stream::Tls(_))
    }

    /// Nobody between us and the server can read it: TLS, or a unix socket (local), where
    /// the server accepts a password in clear.
    pub fn is_secure(&self) -> bool {
        matches!(self.stream, Stream::Tls(_) | Stream::Unix(_))
    }

    /// Close the connection mid-exchange (the server abandons the statement).
    pub async fn abort(&mut self) {
        let _ = self.stream.shutdown().await;
    }
}

fn header(len: usize, seq: u8) -> [u8; 4] {
    [len as u8, (len >> 8) as u8, (len >> 16) as u8, seq]
}

/// A payload that ended early or holds what the protocol does not allow.
#[derive(Debug)]
pub struct Malformed;

/// Reads the fields of one payload in order.
pub struct Cursor<'a> {
    b: &'a [u8],
}

impl<'a> Cursor<'a> {
    pub fn new(b: &'a [u8]) -> Self {
        Cursor { b }
    }
    pub fn bytes(&mut self, n: usize) -> Result<&'a [u8], Malformed> {
        if self.b.len() < n {
            return Err(Malformed);
        }
        let (head, tail) = self.b.split_at(n);
        self.b = tail;
        Ok(head)
    }
    pub fn u8(&mut self) -> Result<u8, Malformed> {
        Ok(self.bytes(1)?[0])
    }
    pub fn uint(&mut self, n: usize) -> Result<u64, Malformed> {
        let b = self.bytes(n)?;
        Ok(b.iter().rev().fold(0, |v, &x| v << 8 | u64::from(x)))
    }
    pub fn u16(&mut self) -> Result<u16, Malformed> {
        Ok(self.uint(2)? as u16)
    }
    pub fn u32(&mut self) -> Result<u32, Malformed> {
        Ok(self.uint(4)? as u32)
    }
    /// A length-encoded integer; None for the NULL marker of text rows.
    pub fn lenenc(&mut self) -> Result<Option<u64>, Malformed> {
        match self.u8()? {
            n @ 0..0xfb => Ok(Some(u64::from(n))),
            0xfb => Ok(None),
            0xfc => self.uint(2).map(Some),
            0xfd => self.uint(3).map(Some),
            0xfe => self.uint(8).map(Some),
            0xff => Err(Malformed),
        }
    }
    pub fn lenenc_bytes(&mut self) -> Result<&'a [u8], Malformed> {
        let n = self.lenenc()?.ok_or(Malformed)?;
        self.bytes(usize::try_from(n).map_err(|_| Malformed)?)
    }
    /// Bytes up to a NUL, which is consumed; the rest when there is no NUL.
    pub fn nul_terminated(&mut self) -> &'a [u8] {
        match memchr::memchr(0, self.b) {
            Some(i) => {
                let s = &self.b[..i];
                self.b = &self.b[i + 1..];
                s
            }
            None => std::mem::take(&mut self.b),
        }
    }
    pub fn rest(&mut self) -> &'a [u8] {
        std::mem::take(&mut self.b)
    }
}

pub fn put_lenenc(out: &mut Vec<u8>, n: u64) {
    match n {
        0..0xfb => out.push(n as u8),
        0xfb..0x1_0000 => {
            out.push(0xfc);
            out.extend_from_slice(&(n as u16).to_le_bytes());
        }
        0x1_0000..0x100_0000 => {
            out.push(0xfd);
            out.extend_from_slice(&(n as u32).to_le_bytes()[..3]);
        }
        _ => {
            out.push(0xfe);
            out.extend_from_slice(&n.to_le_bytes());
        }
    }
}

pub fn put_lenenc_bytes(out: &mut Vec<u8>, b: &[u8]) {
    put_lenenc(out, b.len() as u64);
    out.extend_from_slice(b);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn length_encoded_integers_round_trip_at_every_width() {
        for n in [
            0,
            250,
            251,
            0xffff,
            0x1_0000,
            0xff_ffff,
            0x100_0000,
            u64::MAX,
        ] {
            let mut out = Vec::new();
            put_lenenc(&mut out, n);
            let mut c = Cursor::new(&out);
            assert_eq!(c.lenenc().unwrap(), Some(n), "{n}");
            assert!(c.rest().is_empty());
        }
        assert_eq!(Cursor::new(&[0xfb]).lenenc().unwrap(), None);
        assert!(Cursor::new(&[0xfc, 1]).lenenc().is_err());
    }

    #[test]
    fn strings_and_fixed_integers_are_read_in_order() {
        let mut out = vec![1, 2, 3, 4];
        out.extend_from_slice(b"abc\0");
        put_lenenc_bytes(&mut out, b"xyz");
        let mut c = Cursor::new(&out);
        assert_eq!(c.u16().unwrap(), 0x0201);
        assert_eq!(c.u8().unwrap(), 3);
        assert_eq!(c.u8().unwrap(), 4);
        assert_eq!(c.nul_terminated(), b"abc");
        assert_eq!(c.lenenc_bytes().unwrap(), b"xyz");
        assert!(c.u8().is_err());
    }

    #[tokio::test]
    async fn packets_over_the_size_limit_are_split_and_joined() {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let big: Vec<u8> = (0..MAX_PAYLOAD + 10).map(|i| i as u8).collect();
        let exact = vec![7u8; MAX_PAYLOAD];
        let sent = (big.clone(), exact.clone());
        let writer = tokio::spawn(async move {
            let mut f = Framed::new(Stream::Tcp(TcpStream::connect(addr).await.unwrap()));
            for p in [&sent.0[..], &sent.1[..], b"tail"] {
                f.payload().extend_from_slice(p);
                f.send().await.unwrap();
            }
        });
        let (s, _) = listener.accept().await.unwrap();
        let mut f = Framed::new(Stream::Tcp(s));
        assert_eq!(f.read().await.unwrap(), &big[..]);
        assert_eq!(f.read().await.unwrap(), &exact[..]);
        assert_eq!(f.read().await.unwrap(), b"tail");
        writer.await.unwrap();
    }
}
