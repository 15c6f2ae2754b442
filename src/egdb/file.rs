//! The file of one signature.
//!
//! Little-endian, in this order:
//!
//! | offset | size | field |
//! |-------:|-----:|-------|
//! | 0  | 8  | magic `KDVEGDB\0` |
//! | 8  | 4  | format version ([`VERSION`]) |
//! | 12 | 16 | variant name, zero padded |
//! | 28 | 4  | signature: white men, white kings, black men, black kings |
//! | 32 | 8  | number of positions |
//! | 40 | 1  | payload encoding: 0 raw bytes, 1 run lengths ([`rle_encode`]), 2 Zstandard |
//! | 41 | 7  | zero |
//! | 48 | 8  | payload length in bytes |
//! | 56 | n  | payload |
//! | 56 + n | 8 | [`checksum`] of every byte before it |
//!
//! The values, once decoded, are one [`super::Value`] per position in the
//! order of [`super::Layout`].

use std::path::Path;

use super::index::Signature;

/// The first eight bytes of every file.
pub const MAGIC: &[u8; 8] = b"KDVEGDB\0";
/// The format version this code writes and reads.
pub const VERSION: u32 = 1;
const HEADER: usize = 56;

/// Payload encodings.
const RAW: u8 = 0;
const RLE: u8 = 1;
const ZSTD: u8 = 2;

/// Zstandard level of the files: about 40 MB a second to compress, far
/// below the solver's time, for most of the ratio of the slow levels.
const ZSTD_LEVEL: i32 = 9;

/// A 64-bit hash of `data`: eight bytes at a time, each word mixed with
/// a multiply-xorshift finaliser (as in SplitMix64) into a running state,
/// the length folded in at the end.
pub fn checksum(data: &[u8]) -> u64 {
    #[inline(always)]
    fn mix(mut x: u64) -> u64 {
        x = (x ^ (x >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        x = (x ^ (x >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        x ^ (x >> 31)
    }
    let mut h: u64 = 0x6B6F_6E64_6176_6F45;
    let mut chunks = data.chunks_exact(8);
    for c in &mut chunks {
        let w = u64::from_le_bytes([c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]]);
        h = mix(h ^ w)
            .rotate_left(23)
            .wrapping_add(0x9E37_79B9_7F4A_7C15);
    }
    let mut tail = [0u8; 8];
    tail[..chunks.remainder().len()].copy_from_slice(chunks.remainder());
    h = mix(h ^ u64::from_le_bytes(tail)).wrapping_add(0x9E37_79B9_7F4A_7C15);
    mix(h ^ data.len() as u64)
}

/// Run lengths (PackBits): a control byte `c < 128` is followed by `c + 1`
/// literal bytes; `c >= 128` by one byte repeated `c - 125` times (3 to
/// 130).
pub fn rle_encode(data: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(data.len() / 4 + 16);
    let run_at = |i: usize| {
        let v = data[i];
        let mut n = 1;
        while i + n < data.len() && n < 130 && data[i + n] == v {
            n += 1;
        }
        n
    };
    let mut i = 0;
    while i < data.len() {
        let n = run_at(i);
        if n >= 3 {
            out.push((n + 125) as u8);
            out.push(data[i]);
            i += n;
            continue;
        }
        let start = i;
        while i < data.len() && i - start < 128 && run_at(i) < 3 {
            i += 1;
        }
        out.push((i - start - 1) as u8);
        out.extend_from_slice(&data[start..i]);
    }
    out
}

/// Decodes [`rle_encode`]'s output, which must give exactly `len` bytes.
pub fn rle_decode(data: &[u8], len: usize) -> Result<Vec<u8>, String> {
    let mut out = Vec::with_capacity(len);
    let mut i = 0;
    while i < data.len() {
        let c = data[i] as usize;
        i += 1;
        if c < 128 {
            let lit = data
                .get(i..i + c + 1)
                .ok_or("run-length payload ends inside a literal run")?;
            out.extend_from_slice(lit);
            i += c + 1;
        } else {
            let v = *data.get(i).ok_or("run-length payload ends inside a run")?;
            out.resize(out.len() + c - 125, v);
            i += 1;
        }
        if out.len() > len {
            return Err(format!("run-length payload decodes past {len} values"));
        }
    }
    if out.len() != len {
        return Err(format!(
            "run-length payload decodes to {} values, the header says {len}",
            out.len()
        ));
    }
    Ok(out)
}

/// The values compressed with Zstandard.
pub fn zstd_encode(values: &[u8]) -> Vec<u8> {
    zstd::bulk::compress(values, ZSTD_LEVEL).expect("compressing to memory cannot fail")
}

/// Decodes [`zstd_encode`]'s output, which must give exactly `len` bytes.
pub fn zstd_decode(data: &[u8], len: usize) -> Result<Vec<u8>, String> {
    let out = zstd::bulk::decompress(data, len)
        .map_err(|e| format!("Zstandard payload does not decode: {e}"))?;
    if out.len() != len {
        return Err(format!(
            "Zstandard payload decodes to {} values, the header says {len}",
            out.len()
        ));
    }
    Ok(out)
}

/// The whole file for `values`, its payload in the smallest encoding:
/// Zstandard, run lengths or raw.
pub fn encode_file(variant: &str, sig: Signature, values: &[u8]) -> Vec<u8> {
    encode_file_as(variant, sig, values, None)
}

/// [`encode_file`], or with the payload in `encoding` (0 raw, 1 run
/// lengths, 2 Zstandard) when given.
pub fn encode_file_as(
    variant: &str,
    sig: Signature,
    values: &[u8],
    encoding: Option<u8>,
) -> Vec<u8> {
    let z;
    let rle;
    let (enc, payload) = match encoding {
        Some(RAW) => (RAW, values),
        Some(RLE) => {
            rle = rle_encode(values);
            (RLE, &rle[..])
        }
        Some(_) => {
            z = zstd_encode(values);
            (ZSTD, &z[..])
        }
        None => {
            z = zstd_encode(values);
            rle = rle_encode(values);
            if z.len() <= rle.len() && z.len() < values.len() {
                (ZSTD, &z[..])
            } else if rle.len() < values.len() {
                (RLE, &rle[..])
            } else {
                (RAW, values)
            }
        }
    };
    let mut out = Vec::with_capacity(HEADER + payload.len() + 8);
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&VERSION.to_le_bytes());
    let mut name = [0u8; 16];
    let n = variant.len().min(16);
    name[..n].copy_from_slice(&variant.as_bytes()[..n]);
    out.extend_from_slice(&name);
    out.extend_from_slice(&[sig.wm, sig.wk, sig.bm, sig.bk]);
    out.extend_from_slice(&(values.len() as u64).to_le_bytes());
    out.push(enc);
    out.extend_from_slice(&[0u8; 7]);
    out.extend_from_slice(&(payload.len() as u64).to_le_bytes());
    out.extend_from_slice(payload);
    let sum = checksum(&out);
    out.extend_from_slice(&sum.to_le_bytes());
    out
}

/// Reads a whole file's bytes back into its values, checking everything
/// the header promises: magic, version, variant, signature, count,
/// payload and checksum. `what` names the file in errors.
pub fn decode_file(
    bytes: &[u8],
    what: &str,
    variant: &str,
    sig: Signature,
    count: u64,
) -> Result<Vec<u8>, String> {
    let bad = |m: String| Err(format!("{what}: {m}"));
    if bytes.len() < HEADER + 8 {
        return bad(format!(
            "{} bytes is too short for a database file",
            bytes.len()
        ));
    }
    if &bytes[..8] != MAGIC {
        return bad("not an endgame database file (bad magic)".into());
    }
    let u32_at =
        |o: usize| u32::from_le_bytes([bytes[o], bytes[o + 1], bytes[o + 2], bytes[o + 3]]);
    let u64_at = |o: usize| {
        let mut a = [0u8; 8];
        a.copy_from_slice(&bytes[o..o + 8]);
        u64::from_le_bytes(a)
    };
    let version = u32_at(8);
    if version != VERSION {
        return bad(format!(
            "format version {version}, this build reads {VERSION}"
        ));
    }
    let body = bytes.len() - 8;
    let stored = u64_at(body);
    let actual = checksum(&bytes[..body]);
    if stored != actual {
        return bad(format!(
            "checksum mismatch (stored {stored:016x}, computed {actual:016x}): the file is damaged"
        ));
    }
    let name_end = bytes[12..28].iter().position(|&b| b == 0).unwrap_or(16);
    let name = String::from_utf8_lossy(&bytes[12..12 + name_end]);
    if name != variant {
        return bad(format!("holds {name} positions, not {variant}"));
    }
    let fsig = Signature {
        wm: bytes[28],
        wk: bytes[29],
        bm: bytes[30],
        bk: bytes[31],
    };
    if fsig != sig {
        return bad(format!("holds signature {fsig}, not {sig}"));
    }
    let n = u64_at(32);
    if n != count {
        return bad(format!("holds {n} positions, the index has {count}"));
    }
    let plen = u64_at(48);
    if plen != (body - HEADER) as u64 {
        return bad(format!(
            "payload length {plen} disagrees with the file size ({} bytes of payload)",
            body - HEADER
        ));
    }
    let payload = &bytes[HEADER..body];
    match bytes[40] {
        RAW if plen == n => Ok(payload.to_vec()),
        RAW => bad(format!("raw payload of {plen} bytes for {n} positions")),
        RLE => rle_decode(payload, n as usize).or_else(&bad),
        ZSTD => zstd_decode(payload, n as usize).or_else(&bad),
        e => bad(format!("unknown payload encoding {e}")),
    }
}

/// Writes a file atomically (a temporary name, then a rename). Returns its
/// size in bytes.
pub fn write_file(
    path: &Path,
    variant: &str,
    sig: Signature,
    values: &[u8],
) -> Result<u64, String> {
    let bytes = encode_file(variant, sig, values);
    crate::files::write_whole(path, &bytes)?;
    Ok(bytes.len() as u64)
}

/// Reads and checks one file (see [`decode_file`]).
pub fn read_file(
    path: &Path,
    variant: &str,
    sig: Signature,
    count: u64,
) -> Result<Vec<u8>, String> {
    let bytes = std::fs::read(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    decode_file(&bytes, &path.display().to_string(), variant, sig, count)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn run_lengths_round_trip() {
        let mut data = vec![0u8; 1000];
        data.extend((0..300).map(|i| (i * 7 % 5) as u8));
        data.extend([3, 3, 4, 4, 4, 5]);
        data.extend(vec![9u8; 131]);
        for cut in [0, 1, 2, 3, 130, 131, 500, data.len()] {
            let part = &data[..cut];
            let enc = rle_encode(part);
            assert_eq!(rle_decode(&enc, part.len()).unwrap(), part, "cut {cut}");
        }
        assert!(rle_encode(&data).len() < data.len() / 2);
        assert!(rle_decode(&[5, 1], 6).is_err());
        assert!(rle_decode(&[200], 75).is_err());
    }

    #[test]
    fn every_encoding_round_trips_and_zstandard_is_smallest() {
        let sig = Signature {
            wm: 1,
            wk: 1,
            bm: 0,
            bk: 1,
        };
        // Distances that repeat in patterns but rarely in runs, as in a
        // real table.
        let values: Vec<u8> = (0..20_000u32)
            .map(|i| [0, 3, 3, 5, 2, 4, 7, 0][(i * i / 7 % 8) as usize])
            .collect();
        let mut sizes = Vec::new();
        for enc in [RAW, RLE, ZSTD] {
            let bytes = encode_file_as("russian", sig, &values, Some(enc));
            assert_eq!(bytes[40], enc);
            assert_eq!(
                decode_file(&bytes, "f", "russian", sig, 20_000).unwrap(),
                values
            );
            sizes.push(bytes.len());
        }
        assert!(sizes[2] < sizes[1] && sizes[2] < sizes[0] / 2, "{sizes:?}");
        assert_eq!(encode_file("russian", sig, &values).len(), sizes[2]);
        assert!(zstd_decode(&zstd_encode(&values), 19_999).is_err());
        assert!(zstd_decode(&[1, 2, 3, 4], 10).is_err());
    }

    #[test]
    fn files_round_trip_and_damage_is_caught() {
        let sig = Signature {
            wm: 1,
            wk: 0,
            bm: 0,
            bk: 1,
        };
        let values: Vec<u8> = (0..5000u32).map(|i| (i / 37 % 4) as u8).collect();
        let bytes = encode_file("english", sig, &values);
        assert_eq!(
            decode_file(&bytes, "f", "english", sig, 5000).unwrap(),
            values
        );
        assert!(decode_file(&bytes, "f", "italian", sig, 5000)
            .unwrap_err()
            .contains("english"));
        assert!(decode_file(&bytes, "f", "english", sig, 4999).is_err());
        for at in [0, 9, 30, 60, bytes.len() / 2, bytes.len() - 1] {
            let mut bad = bytes.clone();
            bad[at] ^= 0x10;
            assert!(
                decode_file(&bad, "f", "english", sig, 5000).is_err(),
                "byte {at}"
            );
        }
    }
}
