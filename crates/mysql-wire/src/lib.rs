//! The MySQL client/server protocol below drivebench's MySQL session: what travels on the
//! wire, with no notion of a benchmark, an engine error or a value type. Every parser here
//! takes bytes the server sent and returns `Malformed` on anything the protocol does not
//! allow; none panics on any input (the fuzz target in `fuzz/` and the property tests in
//! `response` hold them to it).
//!
//! # Layout
//!
//! - [`packet`]: packet framing over one TCP, TLS or unix-socket stream (payloads split at
//!   16 MiB and joined again), the `Cursor` that reads a payload's fields in order, and the
//!   length-encoded integers and strings.
//! - [`auth`]: the connection phase's packets: the server's greeting, the SSLRequest and
//!   handshake response, the `mysql_native_password` and `caching_sha2_password` proofs, and
//!   the RSA-encrypted password of the latter's full authentication.
//! - [`response`]: the server's answers to a command: the OK packet, the ERR packet and a
//!   result column's definition.

pub mod auth;
pub mod packet;
pub mod response;
