//! UUID v7, TypeID and ULID per call, idmint against the Rust crates people use for each, in
//! one binary so the ratios between rows are meaningful on a noisy machine (BENCHMARKS.md,
//! "Formats").
//!
//! Run: `cargo bench -p idmint-bench --bench formats`

use std::hint::black_box;

use divan::Bencher;

fn main() {
    divan::main();
}

// Fixed sample sizes, as in `ids.rs`: divan's calibration picks 1 call per sample for
// functions whose first calls are slow, and timer overhead then dominates.

/// idmint's process-wide, fork-aware front doors (`idmint::named::clocked`).
mod ours {
    use super::*;

    /// `clocked::uuid7()`: monotonic across threads (RFC 9562 method 1, 42-bit counter).
    #[divan::bench(sample_count = 2000, sample_size = 1024)]
    fn uuid7() -> idmint::Uuid {
        idmint::named::clocked::uuid7().unwrap()
    }

    /// `uuid7()` and its hyphenated text.
    #[divan::bench(sample_count = 2000, sample_size = 1024)]
    fn uuid7_string() -> String {
        idmint::named::clocked::uuid7()
            .unwrap()
            .hyphenated()
            .to_string()
    }

    /// `clocked::typeid("user")`: the prefix checked, a process-wide v7 UUID under it.
    #[divan::bench(sample_count = 2000, sample_size = 1024)]
    fn typeid() -> idmint::TypeId {
        idmint::named::clocked::typeid(black_box("user")).unwrap()
    }

    /// `clocked::typeid("user")` and its text (`user_01h455vb4pex5vsknk084sn02q`).
    #[divan::bench(sample_count = 2000, sample_size = 1024)]
    fn typeid_string() -> String {
        idmint::named::clocked::typeid(black_box("user"))
            .unwrap()
            .to_string()
    }

    /// `clocked::ulid()`: monotonic within a millisecond, across threads.
    #[divan::bench(sample_count = 2000, sample_size = 1024)]
    fn ulid() -> idmint::formats::ulid::Ulid {
        idmint::named::clocked::ulid().unwrap()
    }

    /// `ulid()` and its 26-character text.
    #[divan::bench(sample_count = 2000, sample_size = 1024)]
    fn ulid_string() -> String {
        idmint::named::clocked::ulid().unwrap().to_string()
    }
}

/// The crates, each called the way its docs show.
mod peers {
    use super::*;

    /// `uuid::Uuid::now_v7()` (`fast-rng`: thread-local rand, a mutex-guarded counter context).
    #[divan::bench(sample_count = 2000, sample_size = 1024)]
    fn uuid_now_v7() -> uuid::Uuid {
        uuid::Uuid::now_v7()
    }

    /// `Uuid::now_v7()` and its hyphenated text.
    #[divan::bench(sample_count = 2000, sample_size = 1024)]
    fn uuid_now_v7_string() -> String {
        uuid::Uuid::now_v7().hyphenated().to_string()
    }

    #[derive(Default)]
    struct User;

    impl type_safe_id::StaticType for User {
        const TYPE: &'static str = "user";
    }

    /// `type_safe_id::TypeSafeId::<User>::new()` (prefix fixed at compile time).
    #[divan::bench(sample_count = 2000, sample_size = 1024)]
    fn type_safe_id() -> type_safe_id::TypeSafeId<User> {
        type_safe_id::TypeSafeId::<User>::new()
    }

    /// `type_safe_id::TypeSafeId::<User>::new()` and its text (uuid's v7 inside).
    #[divan::bench(sample_count = 2000, sample_size = 1024)]
    fn type_safe_id_string() -> String {
        type_safe_id::TypeSafeId::<User>::new().to_string()
    }

    /// `ulid::Generator::generate()` (`&mut`, monotonic within a millisecond).
    #[divan::bench(sample_count = 2000, sample_size = 1024)]
    fn ulid_generator(bencher: Bencher) {
        let mut g = ulid::Generator::new();
        bencher.bench_local(|| black_box(&mut g).generate().unwrap());
    }

    /// `ulid::Generator::generate()` and its text.
    #[divan::bench(sample_count = 2000, sample_size = 1024)]
    fn ulid_generator_string(bencher: Bencher) {
        let mut g = ulid::Generator::new();
        bencher.bench_local(|| black_box(&mut g).generate().unwrap().to_string());
    }
}
