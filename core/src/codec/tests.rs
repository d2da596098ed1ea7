use super::*;
extern crate std;
use proptest::prelude::*;
use std::string::String;

fn enc(c: Codec, id: u64) -> String {
    String::from(c.format(id).as_str())
}

#[test]
fn known_values() {
    assert_eq!(enc(Codec::Decimal, 0), "0");
    assert_eq!(enc(Codec::Decimal, u64::MAX), "18446744073709551615");
    assert_eq!(enc(Codec::Hex, 0), "0x0");
    assert_eq!(enc(Codec::Hex, 0xDEAD_BEEF), "0xdeadbeef");
    assert_eq!(enc(Codec::Hex, u64::MAX), "0xffffffffffffffff");
    assert_eq!(enc(Codec::Base32, 0), "0000000000000");
    assert_eq!(enc(Codec::Base32, 31), "000000000000Z");
    assert_eq!(enc(Codec::Base32, u64::MAX), "FZZZZZZZZZZZZ");
    assert_eq!(enc(Codec::Base62, 0), "00000000000");
    assert_eq!(enc(Codec::Base62, 61), "0000000000z");
    assert_eq!(enc(Codec::Base62, 62), "00000000010");
    assert_eq!(enc(Codec::Base62, u64::MAX), "LygHa16AHYF");
    for c in Codec::ALL {
        assert_eq!(c.format(u64::MAX).as_str().len(), c.max_len());
        assert_eq!(c.decode(c.format(u64::MAX).as_str()), Ok(u64::MAX));
    }
}

#[test]
fn names_round_trip() {
    for c in Codec::ALL {
        assert_eq!(Codec::parse(c.name()), Ok(c));
        assert_eq!(c.name().parse::<Codec>(), Ok(c));
    }
    assert_eq!(Codec::parse("DEC"), Ok(Codec::Decimal));
    assert_eq!(
        Codec::parse("nope").unwrap_err().kind(),
        crate::error::ErrorKind::InvalidConfig
    );
}

#[test]
fn lenient_inputs() {
    assert_eq!(Codec::Hex.decode("DeadBeef"), Ok(0xDEAD_BEEF));
    assert_eq!(Codec::Hex.decode("0XFF"), Ok(255));
    assert_eq!(Codec::Hex.decode("0x00000000000000000001"), Ok(1));
    assert_eq!(Codec::Decimal.decode("000000000000000000000000042"), Ok(42));
    assert_eq!(Codec::Base32.decode("000000000000l"), Ok(1));
    assert_eq!(Codec::Base32.decode("000000000000I"), Ok(1));
    assert_eq!(Codec::Base32.decode("00000000000o0"), Ok(0));
    assert_eq!(Codec::Base32.decode("fzzzzzzzzzzzz"), Ok(u64::MAX));
}

fn bad(c: Codec, s: &str) -> (usize, &'static str) {
    match c.decode(s) {
        Err(Error::InvalidEncoding { codec, at, reason }) => {
            assert_eq!(codec, c.name());
            (at, reason)
        }
        other => panic!("{c} {s:?}: {other:?}"),
    }
}

#[test]
fn errors_point_at_the_problem() {
    assert_eq!(
        bad(Codec::Base32, "0000000000U00"),
        (10, "not a Crockford base32 character")
    );
    assert_eq!(
        bad(Codec::Base32, "00000"),
        (5, "base32 IDs are exactly 13 characters")
    );
    assert_eq!(bad(Codec::Base32, "G000000000000").0, 0);
    assert_eq!(bad(Codec::Base32, "").1, "empty input");
    assert_eq!(
        bad(Codec::Base32, "ééééééééééééé"),
        (0, "not a Crockford base32 character")
    );
    assert_eq!(
        bad(Codec::Base62, "LygHa16AHYG"),
        (10, "value exceeds 64 bits (largest is LygHa16AHYF)")
    );
    assert_eq!(bad(Codec::Base62, "Lz000000000").0, 1);
    assert_eq!(bad(Codec::Base62, "zzzzzzzzzzz").0, 0);
    assert_eq!(
        bad(Codec::Base62, "0000000000-"),
        (10, "not a base62 character")
    );
    assert_eq!(
        bad(Codec::Base62, "000"),
        (3, "base62 IDs are exactly 11 characters")
    );
    assert_eq!(bad(Codec::Decimal, "18446744073709551616").0, 19);
    assert_eq!(bad(Codec::Decimal, "0018446744073709551616").0, 21);
    assert_eq!(bad(Codec::Decimal, "100000000000000000000").0, 0);
    assert_eq!(bad(Codec::Decimal, "12a"), (2, "not a decimal digit"));
    assert_eq!(bad(Codec::Decimal, "-1"), (0, "not a decimal digit"));
    assert_eq!(bad(Codec::Decimal, "+1").0, 0);
    assert_eq!(bad(Codec::Hex, "0x"), (2, "no digits after the 0x prefix"));
    assert_eq!(bad(Codec::Hex, "0xg"), (2, "not a hexadecimal digit"));
    assert_eq!(bad(Codec::Hex, "1ffffffffffffffff").0, 0);
    assert_eq!(bad(Codec::Hex, "0x1ffffffffffffffff").0, 2);
}

#[test]
fn decode_any_rules() {
    assert_eq!(parse_id("18446744073709551615"), Ok(u64::MAX));
    assert_eq!(parse_id("12345678901"), Ok(12_345_678_901)); // 11 digits: decimal
    assert_eq!(parse_id("1234567890123"), Ok(1_234_567_890_123)); // 13 digits: decimal
    assert_eq!(parse_id("0xff"), Ok(255));
    assert_eq!(parse_id("FZZZZZZZZZZZZ"), Ok(u64::MAX));
    assert_eq!(parse_id("LygHa16AHYF"), Ok(u64::MAX));
    assert!(matches!(
        parse_id(""),
        Err(Error::InvalidEncoding {
            codec: "auto",
            at: 0,
            ..
        })
    ));
    assert!(matches!(
        parse_id("ff"),
        Err(Error::InvalidEncoding {
            codec: "auto",
            at: 0,
            ..
        })
    ));
    // What the service wrote before hex carried its prefix: the error is at the start (not
    // past the end) and says how to read it.
    match parse_id("1d83a82428800000") {
        Err(Error::InvalidEncoding {
            codec: "auto",
            at: 0,
            reason,
        }) => assert!(reason.contains("0x prefix"), "{reason}"),
        other => panic!("{other:?}"),
    }
    assert_eq!(parse_id("0x1d83a82428800000"), Ok(0x1d83_a824_2880_0000));
    // Base32 may begin with 0X: 13 characters with an upper-case X stay base32.
    let b32 = Codec::Base32.format(1_044_835_113_549_955_072);
    assert!(b32.as_str().starts_with("0X"), "{b32}");
    assert_eq!(parse_id(b32.as_str()), Ok(1_044_835_113_549_955_072));
    assert_eq!(parse_id("0X2A"), Ok(42));
    assert!(matches!(
        parse_id("zzzzzzzzzzzzz"),
        Err(Error::InvalidEncoding {
            codec: "base32",
            ..
        })
    ));
}

#[test]
fn encode_into_checks_the_buffer() {
    let mut buf = [0u8; 12];
    assert_eq!(
        Codec::Base32.encode_into(1, &mut buf),
        Err(Error::BufferTooSmall { needed: 13 })
    );
    assert_eq!(buf, [0u8; 12]);
    assert_eq!(Codec::Base62.encode_into(1, &mut buf), Ok(11));
    assert_eq!(&buf[..11], b"00000000001");
    assert_eq!(
        Codec::Hex.encode_into(0, &mut []),
        Err(Error::BufferTooSmall { needed: 3 })
    );
}

#[test]
fn slice_writer() {
    use core::fmt::Write;
    let mut buf = [0u8; 4];
    let mut w = SliceWriter::new(&mut buf);
    assert!(w.is_empty());
    w.write_str("ab").unwrap();
    assert!(w.write_str("é!!").is_err());
    assert_eq!(w.as_str(), "ab");
    assert_eq!(w.needed(), 6);
    w.write_str("é").unwrap();
    assert_eq!(w.len(), 4);
    assert_eq!(w.into_str(), "abé");
}

#[cfg(feature = "alloc")]
#[test]
fn encode_string() {
    assert_eq!(Codec::Decimal.encode(7), "7");
}

#[test]
fn eleven_characters_after_0x_that_read_as_hex_and_base62_are_refused() {
    // Base62 for 798,688,106,229,549,568, and hex for 0: no guess.
    assert_eq!(
        Codec::Base62.format(798_688_106_229_549_568).as_str(),
        "0x000000000"
    );
    let ambiguous = parse_id("0x000000000").unwrap_err();
    assert!(ambiguous.to_string().contains("ambiguous"), "{ambiguous}");
    assert_eq!(parse_id("0X123456789"), Err(ambiguous));
    // Not hex: base62 only.
    assert_eq!(parse_id("0x00000000g"), Codec::Base62.decode("0x00000000g"));
    assert!(parse_id("0x00000000g").is_ok());
    // Other lengths with 0x stay hex.
    assert_eq!(parse_id("0x2a"), Ok(42));
}

proptest! {
    #[test]
    fn round_trip(id in any::<u64>()) {
        for c in Codec::ALL {
            let e = c.format(id);
            prop_assert_eq!(c.decode(e.as_str()), Ok(id));
            if let Some(w) = c.fixed_width() {
                prop_assert_eq!(e.as_str().len(), w);
            }
            let lower = e.as_str().to_ascii_lowercase();
            let upper = e.as_str().to_ascii_uppercase();
            if c != Codec::Base62 {
                prop_assert_eq!(c.decode(&lower), Ok(id));
                prop_assert_eq!(c.decode(&upper), Ok(id));
            }
        }
        // Every codec's output reads back without naming the codec, except base32/base62
        // text made only of digits (read as decimal, as documented).
        for c in Codec::ALL {
            let e = c.format(id);
            let text = e.as_str();
            let both = text.len() == 11
                && (text.starts_with("0x") || text.starts_with("0X"))
                && Codec::Hex.decode(text).is_ok()
                && Codec::Base62.decode(text).is_ok();
            if both {
                // Hex and base62 at once: refused, never a wrong value.
                prop_assert!(parse_id(text).is_err(), "{}", c);
            } else if !e.as_bytes().iter().all(u8::is_ascii_digit) {
                prop_assert_eq!(parse_id(text), Ok(id), "{}", c);
            }
        }
        let bare = std::format!("{id:x}");
        prop_assert_eq!(Codec::Hex.decode(&bare), Ok(id));
        prop_assert_eq!(parse_id(Codec::Decimal.format(id).as_str()), Ok(id));
    }

    #[test]
    fn fixed_width_order_is_numeric_order(a in any::<u64>(), b in any::<u64>()) {
        for c in [Codec::Base32, Codec::Base62] {
            let (ea, eb) = (c.format(a), c.format(b));
            prop_assert_eq!(ea.as_bytes().cmp(eb.as_bytes()), a.cmp(&b));
        }
    }

    #[test]
    fn small_and_large_order(a in 0u64..1000, b in (u64::MAX - 1000)..=u64::MAX) {
        for c in [Codec::Base32, Codec::Base62] {
            prop_assert!(c.format(a).as_str() < c.format(b).as_str());
        }
    }

    #[test]
    fn decode_never_panics(s in ".*") {
        for c in Codec::ALL {
            let _ = c.decode(&s);
        }
        let _ = parse_id(&s);
    }

    #[test]
    fn decode_never_panics_on_bytes(bytes in proptest::collection::vec(any::<u8>(), 0..40)) {
        let s = String::from_utf8_lossy(&bytes);
        for c in Codec::ALL {
            let _ = c.decode(&s);
        }
        let _ = parse_id(&s);
    }

    #[test]
    fn near_alphabet_strings(s in "[0-9A-Za-z]{11,13}|0x[0-9a-fA-F]{0,20}|[0-9]{18,22}") {
        let _ = parse_id(&s);
        for c in Codec::ALL {
            if let Ok(v) = c.decode(&s) {
                // What decodes must re-encode to the same value.
                prop_assert_eq!(c.decode(c.format(v).as_str()), Ok(v));
            }
        }
    }

    #[test]
    fn decode_agrees_with_u128(digits in proptest::collection::vec(0u8..62, 11)) {
        let s: String = digits.iter().map(|&d| char::from(BASE62[usize::from(d)])).collect();
        let wide = digits.iter().fold(0u128, |a, &d| a * 62 + u128::from(d));
        let got = Codec::Base62.decode(&s);
        match u64::try_from(wide) {
            Ok(v) => prop_assert_eq!(got, Ok(v)),
            Err(_) => prop_assert!(got.is_err()),
        }
    }
}
