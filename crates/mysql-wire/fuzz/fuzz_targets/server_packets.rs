//! Every parser of a packet the server sends (greeting, OK, ERR, column definition, the
//! length-encoded fields) on arbitrary bytes: none may panic, loop or read out of bounds.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    drivebench_mysql_wire::response::parse_all(data);
});
