//! `codecs.json`: IDs in every codec, lenient decodes, automatic detection and invalid text.

use serde_json::Value;

use idmint::codec::{parse_id, Codec};

use crate::{case, extend, obj, outcome, s};

const COMMENT: &str = "Text codecs for 64-bit IDs. `encode`: for each `id`, Codec::format(id) \
in every codec (decimal, hex, base32, base62) must equal the string given, and decoding that \
string with the same codec must give `id` back. `decode`: `text` decoded with `decoder` (a \
codec name, or `auto` for parse_id, which guesses the codec from the text's shape) gives \
`expect.id`, or fails with the error shown (code ERR_INVALID_ENCODING, `codec` as reported, `at` = \
0-based character index of the problem, or the length for length errors). Every u64 is a \
decimal string.";

const IDS: [u64; 20] = [
    0,
    1,
    9,
    10,
    31,
    32,
    61,
    62,
    255,
    1 << 32,
    (1 << 53) - 1,
    1 << 53,
    (1 << 63) - 1,
    1 << 63,
    u64::MAX - 1,
    u64::MAX,
    1_234_567_890_123_456_789,
    0x0123_4567_89ab_cdef,
    1_859_302_512_841_945_088,
    7_138_260_457_734_701_056,
];

/// (codec name or `auto`, text)
const DECODE: [(&str, &str); 68] = [
    ("decimal", "0"),
    ("decimal", "00000000000000000000000042"),
    ("decimal", "18446744073709551615"),
    ("decimal", "018446744073709551615"),
    ("decimal", "18446744073709551616"),
    ("decimal", "99999999999999999999"),
    ("decimal", "100000000000000000000"),
    ("decimal", ""),
    ("decimal", "-1"),
    ("decimal", "+1"),
    ("decimal", " 1"),
    ("decimal", "12a"),
    ("decimal", "1_000"),
    ("decimal", "١٢"),
    ("hex", "ff"),
    ("hex", "FF"),
    ("hex", "0xFf"),
    ("hex", "0X2a"),
    ("hex", "0x"),
    ("hex", "0x0x1"),
    ("hex", ""),
    ("hex", "g"),
    ("hex", "ffffffffffffffff"),
    ("hex", "0000ffffffffffffffff"),
    ("hex", "10000000000000000"),
    ("hex", "0x10000000000000000"),
    ("hex", "é1"),
    ("base32", "0000000000000"),
    ("base32", "FZZZZZZZZZZZZ"),
    ("base32", "fzzzzzzzzzzzz"),
    ("base32", "G000000000000"),
    ("base32", "00000000000IO"),
    ("base32", "00000000000lo"),
    ("base32", "000000000000U"),
    ("base32", "000000000000!"),
    ("base32", "000000000000"),
    ("base32", "00000000000000"),
    ("base32", ""),
    ("base32", "é000000000000"),
    ("base62", "00000000000"),
    ("base62", "LygHa16AHYF"),
    ("base62", "LygHa16AHYG"),
    ("base62", "LygHa16AHZ0"),
    ("base62", "zzzzzzzzzzz"),
    ("base62", "0000000000g"),
    ("base62", "0000000000G"),
    ("base62", "000000000-0"),
    ("base62", "0000000000"),
    ("base62", "000000000000"),
    ("base62", ""),
    ("auto", "42"),
    ("auto", "0000000000042"),
    ("auto", "00000000042"),
    ("auto", "0x2A"),
    ("auto", "000000000001A"),
    ("auto", "0000000000g"),
    ("auto", "128GGYHYYK08N"),
    ("auto", "ff"),
    ("auto", "xyz"),
    ("auto", ""),
    ("auto", "0x"),
    ("auto", "18446744073709551616"),
    ("auto", "G000000000000"),
    ("auto", "ééééééééééé"),
    ("auto", "1d83a82428800000"),
    ("auto", "0X00000000000"),
    ("auto", "0x000000000"),
    ("auto", "0x00000000g"),
];

pub(crate) fn generate() -> Value {
    let encode: Vec<Value> = IDS
        .iter()
        .map(|&id| {
            let mut v = obj([("id", s(id))]);
            for c in Codec::ALL {
                v = extend(v, [(c.name(), c.format(id).as_str().into())]);
            }
            v
        })
        .collect();
    let decode: Vec<Value> = DECODE
        .iter()
        .map(|&(codec, text)| {
            let r = match codec {
                "auto" => parse_id(text),
                name => Codec::parse(name).and_then(|c| c.decode(text)),
            };
            case(
                [("decoder", codec.into()), ("text", text.into())],
                outcome(r, |id| obj([("id", s(id))])),
            )
        })
        .collect();
    obj([
        ("_comment", COMMENT.into()),
        ("encode", encode.into()),
        ("decode", decode.into()),
    ])
}
