//! Allocators in other processes share the service instead of a database: coord's
//! `idmint+http://` segment store against a running service, next to the service's own IDs.

mod common;

use std::collections::HashSet;
use std::thread;

use common::{config, get, start, temp_dir};
use idmint::segment::SegmentConfig;
use idmint_coord::segment::{open_store, SegmentAllocator};

#[test]
fn allocators_on_the_service_never_overlap_its_own_ids() {
    let dir = temp_dir("shared");
    let svc = start(config(&dir));
    let url = format!("idmint+http://{}/", svc.addr());
    let a = svc.addr();
    let clients: Vec<_> = (0..4)
        .map(|_| {
            let url = url.clone();
            thread::spawn(move || {
                let store = open_store(&url).unwrap();
                let alloc = SegmentAllocator::new(store, SegmentConfig::new().step(200)).unwrap();
                let mut got = Vec::new();
                for _ in 0..50 {
                    let mut batch = vec![0u64; 97];
                    alloc.next_ids("orders", &mut batch).unwrap();
                    got.extend(batch);
                    got.push(alloc.next_id("orders").unwrap());
                }
                alloc.close().unwrap();
                got
            })
        })
        .collect();
    let own = thread::spawn(move || {
        let mut got = Vec::new();
        for _ in 0..100 {
            got.extend(get(a, "/v1/segments/orders?count=50").ids());
        }
        got
    });
    let mut all = HashSet::new();
    let mut total = 0;
    for h in clients.into_iter().chain(std::iter::once(own)) {
        let v = h.join().unwrap();
        total += v.len();
        all.extend(v);
    }
    assert_eq!(all.len(), total, "a value was handed out twice");
    // The client store reports the service's backing store identity.
    let store = open_store(&url).unwrap();
    let id = store.identity().unwrap();
    assert_eq!(get(a, "/v1/store").json()["identity"], id.to_string());
    svc.stop().unwrap();
}
