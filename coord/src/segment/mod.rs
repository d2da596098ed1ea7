//! Segment stores and allocators.
