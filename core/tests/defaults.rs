//! No configuration shares a node silently: a config without a node builds no generator, in
//! any of the three forms, and the error says how to choose one.

use idmint::{AtomicSnowflake, Config, Error, ErrorKind, Layout, LocalSnowflake, Snowflake};

#[test]
fn a_config_without_a_node_builds_no_generator() {
    for preset in idmint::snowflake::preset::NAMES {
        let layout = Layout::preset(preset).unwrap();
        let cfg = Config::new(layout);
        assert_eq!(cfg.node_value(), None);
        assert_eq!(LocalSnowflake::new(cfg).err(), Some(Error::NodeRequired));
        assert_eq!(AtomicSnowflake::new(cfg).err(), Some(Error::NodeRequired));
        if !layout.is_expired_at(1_800_000_000_000) {
            assert_eq!(
                Snowflake::new(cfg).err(),
                Some(Error::NodeRequired),
                "{preset}"
            );
        }
        // Node 0 chosen on purpose is fine.
        assert!(AtomicSnowflake::new(cfg.node(0)).is_ok());
    }
}

#[test]
fn the_error_says_how_to_choose() {
    let e = Error::NodeRequired;
    assert_eq!(e.kind(), ErrorKind::NodeRequired);
    assert_eq!(e.code(), "ERR_NODE_REQUIRED");
    let text = e.to_string();
    for hint in ["explicit node", "lease", "random"] {
        assert!(text.contains(hint), "{text}");
    }
}

#[test]
fn config_mistakes_are_reported_before_the_missing_node() {
    let cfg = Config::new(Layout::preset("twitter").unwrap())
        .on_backwards(idmint::OnBackwards::RollbackCounter);
    assert!(matches!(
        AtomicSnowflake::new(cfg),
        Err(Error::InvalidConfig { .. })
    ));
}
