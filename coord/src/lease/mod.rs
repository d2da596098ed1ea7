//! Worker-node leases.
