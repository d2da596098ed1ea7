//! `idmint uuid --version 6|8`, `idmint typeid`, `idmint ulid`, `idmint ksuid`, and `idmint
//! decode` of the 128-bit formats and KSUIDs.

use std::process::{Command, Output};

const BIN: &str = env!("CARGO_BIN_EXE_idmint");

fn idmint(args: &[&str]) -> Output {
    Command::new(BIN).args(args).output().expect("run idmint")
}

fn lines(o: &Output) -> Vec<String> {
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    String::from_utf8_lossy(&o.stdout)
        .lines()
        .map(str::to_owned)
        .collect()
}

#[test]
fn uuid_v6_and_v8() {
    let v6 = lines(&idmint(&["uuid", "--version", "6", "-n", "100"]));
    assert!(v6.windows(2).all(|w| w[0] < w[1]), "v6 sorts by creation");
    assert!(v6.iter().all(|u| u.as_bytes()[14] == b'6'));
    // RFC 9562 appendix B.2.
    let b2 = lines(&idmint(&[
        "uuid",
        "--version",
        "8",
        "--name",
        "www.example.com",
    ]));
    assert_eq!(b2, ["5c146b14-3c52-8afd-938a-375d0df1fbf6"]);
    let bytes = lines(&idmint(&[
        "uuid",
        "--version",
        "8",
        "--bytes",
        "00112233445566778899aabbccddeeff",
    ]));
    assert_eq!(bytes, ["00112233-4455-8677-8899-aabbccddeeff"]);
    for method in ["counter", "random_increment", "sub_millisecond"] {
        let v7 = lines(&idmint(&["uuid", "--method", method, "-n", "500"]));
        assert!(v7.windows(2).all(|w| w[0] < w[1]), "{method}");
    }
    for bad in [
        &["uuid", "--version", "8"][..],
        &["uuid", "--version", "8", "--bytes", "00"],
        &[
            "uuid",
            "--version",
            "4",
            "--bytes",
            "00112233445566778899aabbccddeeff",
        ],
        &["uuid", "--method", "fastest"],
        &["uuid", "--version", "4", "--method", "sub_millisecond"],
        &["uuid", "--version", "2"],
    ] {
        assert_eq!(idmint(bad).status.code(), Some(2), "{bad:?}");
    }
}

#[test]
fn ksuids_increase_and_decode() {
    let k = lines(&idmint(&["ksuid", "-n", "200"]));
    assert!(k.iter().all(|x| x.len() == 27));
    assert!(k.windows(2).all(|w| w[0] < w[1]));
    // segmentio/ksuid's README example, ours, and 27 digits (a KSUID, not a decimal).
    let v = decode_json(&[
        "0ujtsYcgvSTl8PAuAdqWYSMnLOv",
        &k[0],
        "000000000000000000000000042",
    ]);
    assert_eq!(v[0]["kind"], "ksuid");
    assert_eq!(v[0]["timestamp"], 107_608_047u64);
    assert_eq!(v[0]["payload"], "b5a1cd34b5f99d1154fb6853345c9735");
    assert_eq!(v[0]["time"], "2017-10-10T04:00:47.000Z");
    assert_eq!(v[1]["id"], k[0].as_str());
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis() as u64;
    assert!(v[1]["timestamp_ms"].as_u64().unwrap().abs_diff(now) < 60_000);
    assert_eq!(v[2]["kind"], "ksuid");
    assert_eq!(v[2]["timestamp"], 0);
    let human = lines(&idmint(&["decode", "0ujtsYcgvSTl8PAuAdqWYSMnLOv"]));
    assert!(human.contains(&"timestamp     107608047 (s since 2014-05-13T16:53:20Z)".to_owned()));
    // Above the largest KSUID: refused, naming the format.
    let out = idmint(&["decode", "aWgEPTl1tmebfsQzFP4bxwgy80W"]);
    assert_ne!(out.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&out.stderr).contains("ksuid"));
}

#[test]
fn typeids_and_ulids_increase_and_decode() {
    let t = lines(&idmint(&["typeid", "user", "-n", "200"]));
    assert!(t.iter().all(|x| x.starts_with("user_") && x.len() == 31));
    assert!(t.windows(2).all(|w| w[0] < w[1]));
    let bare = lines(&idmint(&["typeid", ""]));
    assert_eq!(bare[0].len(), 26);
    let u = lines(&idmint(&["ulid", "-n", "200"]));
    assert!(u.iter().all(|x| x.len() == 26));
    assert!(u.windows(2).all(|w| w[0] < w[1]));
    for bad in ["User", "a_", "_a", "a1"] {
        assert_eq!(idmint(&["typeid", bad]).status.code(), Some(2), "{bad}");
    }

    let out = idmint(&[
        "decode",
        "--json",
        &t[0],
        &u[0],
        "1ec9414c-232a-6b00-b3c8-9f6bdeced846",
        "1541815603606036480",
    ]);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert_eq!(v[0]["kind"], "typeid");
    assert_eq!(v[0]["prefix"], "user");
    assert_eq!(v[0]["version"], 7);
    assert_eq!(v[1]["kind"], "ulid");
    assert_eq!(v[2]["kind"], "uuid");
    assert_eq!(v[2]["timestamp_ms"], 1_645_557_742_000u64);
    assert!(
        v[3].get("sequence").is_some(),
        "a Snowflake ID still decodes by its layout"
    );
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis() as u64;
    for i in 0..2 {
        assert!(v[i]["timestamp_ms"].as_u64().unwrap().abs_diff(now) < 60_000);
    }
    // 26 characters: a ULID in either case (with its time), or a bare TypeID when lowercase
    // and holding a version 7 UUID.
    let v = decode_json(&[
        "01ARZ3NDEKTSV4RRFFQ69G5FAV",
        "01arz3ndektsv4rrffq69g5fav",
        "01h455vb4pex5vsknk084sn02q",
    ]);
    for i in 0..2 {
        assert_eq!(v[i]["kind"], "ulid", "{}", v[i]);
        assert_eq!(v[i]["id"], "01ARZ3NDEKTSV4RRFFQ69G5FAV");
        assert_eq!(v[i]["timestamp_ms"], 1_469_922_850_259u64);
    }
    assert_eq!(v[2]["kind"], "typeid");
    assert_eq!(v[2]["prefix"], "");
    assert_eq!(v[2]["timestamp_ms"], 1_688_096_058_518u64);
    // RFC 9562's two special UUIDs are named as such.
    let out = idmint(&[
        "decode",
        "00000000-0000-0000-0000-000000000000",
        "FFFFFFFF-FFFF-FFFF-FFFF-FFFFFFFFFFFF",
    ]);
    let human = String::from_utf8(out.stdout).unwrap();
    assert!(human.contains("version       0 (nil UUID)"), "{human}");
    assert!(human.contains("version       15 (max UUID)"), "{human}");
    for bad in [
        "user_01H455VB4PEX5VSKNK084SN02Q",
        "8ZZZZZZZZZZZZZZZZZZZZZZZZZ",
        "1ec9414c-232a-6b00-b3c8-9f6bdeced84g",
    ] {
        assert_eq!(idmint(&["decode", bad]).status.code(), Some(2), "{bad}");
    }
}

/// `idmint decode --json IDS...`, parsed.
fn decode_json(ids: &[&str]) -> serde_json::Value {
    let mut args = vec!["decode", "--json"];
    args.extend_from_slice(ids);
    let out = idmint(&args);
    assert!(out.status.success(), "{out:?}");
    serde_json::from_slice(&out.stdout).expect("JSON")
}
