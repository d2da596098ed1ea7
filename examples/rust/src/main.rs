//! Mint, decode and bulk-reserve IDs with idmint. Run: `cargo run -p idmint-example-rust`.

use idmint::codec::Codec;
use idmint::{Config, Error, Layout, OnBackwards, OnExhausted, Snowflake};

fn main() -> Result<(), Error> {
    // A layout by preset name, or any custom layout in the shared text form.
    let layout = Layout::parse("time=41@1ms,datacenter=5,worker=5,seq=12,epoch=2020-01-01")?;
    let node = layout.join_node(&[2, 7])?; // datacenter 2, worker 7
    let gen = Snowflake::new(
        Config::new(layout)
            .node(node)
            .on_backwards(OnBackwards::Wait { max_ms: 1000 })
            .on_exhausted(OnExhausted::Wait),
    )?;

    // Mint and decode.
    let id = gen.next_id()?;
    let parts = layout.decompose(id)?;
    println!("id          {id}");
    println!("base32      {}", Codec::Base32.format(id));
    println!("time        {}", idmint::Rfc3339(layout.timestamp_ms(id)));
    for (name, value) in layout.split_node(parts.node) {
        println!("{name:<11} {value}");
    }
    println!("sequence    {}", parts.sequence);

    // 100,000 IDs for a bulk insert: one compare-and-swap per tick, not per ID.
    let mut batch = vec![0u64; 100_000];
    gen.next_ids(&mut batch)?;
    assert!(batch.windows(2).all(|w| w[0] < w[1]));
    assert!(batch[0] > id);
    println!(
        "bulk        {} IDs, {} .. {}",
        batch.len(),
        batch[0],
        batch[batch.len() - 1]
    );

    // Or take runs yourself: (first, count, stride) describes every ID of one tick.
    let run = gen.reserve(5_000)?;
    println!(
        "run         first {} count {} stride {}",
        run.first, run.count, run.stride
    );

    // The expired Baidu default refuses to mint, naming the date.
    match Snowflake::new(Config::new(Layout::preset("baidu")?).node(1)) {
        Err(e @ Error::LayoutExpired { .. }) => println!("baidu       {e}"),
        other => panic!("expected the baidu layout to be expired, got {other:?}"),
    }
    Ok(())
}
