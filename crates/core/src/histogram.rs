//! The one histogram shape used everywhere, and its text form in result.json: HdrHistogram V2
//! with DEFLATE, base64-encoded, readable by other HdrHistogram tools.

use base64::Engine as _;
use hdrhistogram::Histogram;
use hdrhistogram::serialization::{Deserializer, Serializer, V2DeflateSerializer};

pub const LOWEST_US: u64 = 1;
pub const HIGHEST_US: u64 = 3_600_000_000;
pub const SIGFIG: u8 = 3;

pub fn new_histogram() -> Histogram<u64> {
    // Constant, valid bounds: construction cannot fail.
    Histogram::new_with_bounds(LOWEST_US, HIGHEST_US, SIGFIG)
        .unwrap_or_else(|e| panic!("histogram bounds: {e}"))
}

pub fn encode(h: &Histogram<u64>) -> String {
    let mut bytes = Vec::new();
    let mut ser = V2DeflateSerializer::new();
    if ser.serialize(h, &mut bytes).is_err() {
        return String::new();
    }
    base64::engine::general_purpose::STANDARD.encode(bytes)
}

/// Why a histogram's text form could not be read back.
#[derive(Debug, thiserror::Error)]
pub enum DecodeError {
    #[error("histogram: invalid base64: {0}")]
    Base64(#[from] base64::DecodeError),
    #[error("histogram: {0:?}")]
    Deserialize(hdrhistogram::serialization::DeserializeError),
    #[error("histogram: values outside the recorded range: {0:?}")]
    Range(hdrhistogram::errors::AdditionError),
}

/// A histogram from its text form (`encode`), with the bounds every histogram here has.
pub fn decode(text: &str) -> Result<Histogram<u64>, DecodeError> {
    let bytes = base64::engine::general_purpose::STANDARD.decode(text)?;
    let h: Histogram<u64> = Deserializer::new()
        .deserialize(&mut bytes.as_slice())
        .map_err(DecodeError::Deserialize)?;
    let mut out = new_histogram();
    out.add(&h).map_err(DecodeError::Range)?;
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn histograms_survive_their_text_form() {
        let mut h = new_histogram();
        for v in [1u64, 17, 250, 999, 12_345, 3_000_000] {
            h.record(v).unwrap();
        }
        let back = decode(&encode(&h)).unwrap();
        assert_eq!(back.len(), h.len());
        assert_eq!(back.value_at_quantile(0.5), h.value_at_quantile(0.5));
        assert_eq!(back.max(), h.max());
        assert!(decode("not base64!").is_err());
    }
}
