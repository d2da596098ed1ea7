//! Open connections counted per client address, so one address cannot take every connection
//! slot (`--max-connections-per-ip`) from the others.

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::{Arc, Mutex, PoisonError};

/// The open connections of every address.
#[derive(Debug)]
pub struct PerIp {
    max: usize,
    open: Mutex<HashMap<IpAddr, usize>>,
}

/// One open connection of an address; dropping it closes the slot.
#[derive(Debug)]
pub struct Slot {
    table: Arc<PerIp>,
    ip: IpAddr,
}

impl PerIp {
    /// At most `max` connections per address.
    pub fn new(max: usize) -> Arc<PerIp> {
        Arc::new(PerIp {
            max,
            open: Mutex::new(HashMap::new()),
        })
    }

    /// A slot for a connection from `ip`, or `None` when it already has `max` open
    /// (an IPv4 address counts the same whether it came over IPv4 or IPv6).
    pub fn admit(self: &Arc<Self>, ip: IpAddr) -> Option<Slot> {
        let ip = ip.to_canonical();
        let mut open = self.open.lock().unwrap_or_else(PoisonError::into_inner);
        let n = open.entry(ip).or_insert(0);
        if *n >= self.max {
            return None;
        }
        *n += 1;
        Some(Slot {
            table: self.clone(),
            ip,
        })
    }

    /// Connections open from `ip`.
    pub fn open(&self, ip: IpAddr) -> usize {
        let open = self.open.lock().unwrap_or_else(PoisonError::into_inner);
        open.get(&ip.to_canonical()).copied().unwrap_or(0)
    }
}

impl Drop for Slot {
    fn drop(&mut self) {
        let mut open = self
            .table
            .open
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        if let Some(n) = open.get_mut(&self.ip) {
            *n -= 1;
            if *n == 0 {
                open.remove(&self.ip);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_address_gets_at_most_max_and_a_closed_slot_frees_one() {
        let t = PerIp::new(2);
        let a: IpAddr = "10.0.0.1".parse().unwrap();
        let a6: IpAddr = "::ffff:10.0.0.1".parse().unwrap();
        let b: IpAddr = "10.0.0.2".parse().unwrap();
        let s1 = t.admit(a).unwrap();
        let _s2 = t.admit(a6).unwrap();
        assert!(
            t.admit(a).is_none(),
            "the mapped address is the same client"
        );
        let _other = t.admit(b).unwrap();
        drop(s1);
        assert_eq!(t.open(a), 1);
        assert!(t.admit(a).is_some());
        drop(_other);
        assert_eq!(t.open(b), 0);
        assert!(
            t.open.lock().unwrap().get(&b).is_none(),
            "no entry left behind"
        );
    }
}
