//! The layouts of well-known ID schemes, by name. The names are part of the public API on
//! every surface (Rust, Python, Node, browser, C, CLI).
//!
//! Epochs given as dates are midnight UTC. Several originals compute their epoch in the JVM's
//! default time zone; we fix UTC so a layout means the same thing on every machine.

use crate::snowflake::layout::Layout;

/// Every preset name, in the order `idmint layouts` lists them.
pub const NAMES: [&str; 8] = [
    "twitter",
    "discord",
    "instagram",
    "sonyflake",
    "baidu",
    "shardingsphere",
    "leaf",
    "js53",
];

/// Looks a preset up by name.
pub fn by_name(name: &str) -> Option<Layout> {
    let l = match name {
        "twitter" => twitter(),
        "discord" => discord(),
        "instagram" => instagram(),
        "sonyflake" => sonyflake(),
        "baidu" => baidu(),
        "shardingsphere" => shardingsphere(),
        "leaf" => leaf(),
        "js53" => js53(),
        _ => return None,
    };
    Some(l)
}

fn build(b: crate::snowflake::layout::LayoutBuilder, name: &'static str) -> Layout {
    match b.build() {
        Ok(l) => l.named(name),
        // Presets are fixed data covered by tests; an error here is a bug in this file.
        Err(_) => unreachable!("preset {name} is invalid"),
    }
}

/// Twitter Snowflake: 41 bits of ms, 5 datacenter, 5 worker, 12 sequence; epoch
/// 1288834974657 (2010-11-04T01:42:54.657Z). Source: twitter-archive/snowflake,
/// `IdWorker.scala` (`twepoch`, `datacenterIdBits`, `workerIdBits`, `sequenceBits`).
pub fn twitter() -> Layout {
    build(
        Layout::builder()
            .epoch_ms(1_288_834_974_657)
            .time(41, 1)
            .node("datacenter", 5)
            .node("worker", 5)
            .sequence(12),
        "twitter",
    )
}

/// Discord: 42 bits of ms, 5 internal worker, 5 internal process, 12 increment (64 bits, so
/// IDs above 2^63 appear from 2084 on); epoch 1420070400000 (2015-01-01). Source: Discord
/// developer docs, "Snowflakes" in the API reference.
pub fn discord() -> Layout {
    build(
        Layout::builder()
            .epoch_ms(1_420_070_400_000)
            .time(42, 1)
            .node("worker", 5)
            .node("process", 5)
            .sequence(12),
        "discord",
    )
}

/// Instagram: 41 bits of ms, 13 shard, 10 sequence (64 bits); epoch 1314220021721
/// (2011-08-24T21:07:01.721Z). Source: Instagram Engineering, "Sharding & IDs at Instagram"
/// (the PL/pgSQL `next_id` function's `our_epoch`).
pub fn instagram() -> Layout {
    build(
        Layout::builder()
            .epoch_ms(1_314_220_021_721)
            .time(41, 1)
            .node("shard", 13)
            .sequence(10),
        "instagram",
    )
}

/// Sonyflake: 39 bits of 10 ms units, then 8 sequence, then 16 machine (the sequence sits
/// above the machine id); start time 2014-09-01 UTC. Source: sony/sonyflake README and
/// `sonyflake.go` (`BitLenTime`, `BitLenSequence`, `BitLenMachineID`, default `StartTime`).
pub fn sonyflake() -> Layout {
    build(
        Layout::builder()
            .epoch_ms(1_409_529_600_000)
            .time(39, 10)
            .sequence(8)
            .node("machine", 16),
        "sonyflake",
    )
}

/// Baidu UidGenerator defaults: 28 bits of seconds, 22 worker, 13 sequence; epoch 2016-05-20.
/// Source: baidu/uid-generator README and `DefaultUidGenerator` (`timeBits = 28`,
/// `workerBits = 22`, `seqBits = 13`, `epochStr = "2016-05-20"`).
/// Its time field overflowed on 2024-11-20T21:24:16Z: generators refuse to mint with it.
pub fn baidu() -> Layout {
    build(
        Layout::builder()
            .epoch_ms(1_463_702_400_000)
            .time(28, 1000)
            .node("worker", 22)
            .sequence(13),
        "baidu",
    )
}

/// Apache ShardingSphere `SNOWFLAKE` key generator: 41 bits of ms, 10 worker, 12 sequence;
/// epoch 2016-11-01. Source: `SnowflakeKeyGenerateAlgorithm.java` (`EPOCH`,
/// `WORKER_ID_BITS`, `SEQUENCE_BITS`).
pub fn shardingsphere() -> Layout {
    build(
        Layout::builder()
            .epoch_ms(1_477_958_400_000)
            .time(41, 1)
            .node("worker", 10)
            .sequence(12),
        "shardingsphere",
    )
}

/// Meituan Leaf-snowflake: 41 bits of ms, 10 worker, 12 sequence, on Twitter's epoch
/// 1288834974657. Source: Meituan-Dianping/Leaf `SnowflakeIDGenImpl.java` (`twepoch`,
/// `workerIdBits`, `sequenceBits`).
pub fn leaf() -> Layout {
    build(
        Layout::builder()
            .epoch_ms(1_288_834_974_657)
            .time(41, 1)
            .node("worker", 10)
            .sequence(12),
        "leaf",
    )
}

/// JavaScript-safe: 33 bits of seconds, 4 node, 15 sequence (52 bits, so with the sign bit the
/// 53-bit ID the seed article draws); every ID is a safe `number`. Epoch 2025-01-01 UTC, chosen
/// recent so the 272-year range is not wasted on the past. 32,768 IDs per second per node.
pub fn js53() -> Layout {
    build(
        Layout::builder()
            .epoch_ms(1_735_689_600_000)
            .time(33, 1000)
            .node("node", 4)
            .sequence(15),
        "js53",
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_name_resolves_and_carries_it() {
        for n in NAMES {
            let l = by_name(n).unwrap();
            assert_eq!(l.preset_name(), Some(n));
        }
        assert!(by_name("nope").is_none());
    }

    #[test]
    fn widths_and_lifetimes() {
        assert_eq!(twitter().width(), 63);
        assert_eq!(discord().width(), 64);
        assert_eq!(instagram().width(), 64);
        assert_eq!(sonyflake().width(), 63);
        assert_eq!(baidu().width(), 63);
        assert_eq!(js53().width(), 52);
        assert!(js53().is_js_safe());
        // Baidu's default layout ran out on 2024-11-20.
        assert_eq!(baidu().lifetime_end_ms(), 1_732_137_856_000);
        assert_eq!(twitter().capacity_per_second(), 4_096_000);
        assert_eq!(sonyflake().capacity_per_second(), 25_600);
    }
}
