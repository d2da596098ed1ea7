// `idmint-web`: the whole API. Every entry of the package is JavaScript, a port of the core's
// rules from Rust: the WebAssembly build of the core weighs 90 KB gzipped for this entry (its
// code is a long flat tail of conversions, formatting and checks, no part of it worth cutting)
// and 52 KB for Snowflake IDs alone, where the port weighs a fraction of that and runs faster
// (no call crosses into a module; BENCHMARKS-wasm.md). The port is held to the core's test
// vectors, to the package's shared JavaScript suite, and to a differential test against the
// WebAssembly build (tests/js/): the same values, IDs, random draws and errors, call by call, on
// generated inputs. That build ships too, as `idmint-web/wasm`.
export * from './snowflake.js'
export * from './formats.js'
export { encode, parseId } from './codec.js'
export { ksuid } from './ksuid.js'
export { Obfuscator, SortableObfuscator } from './obfuscate.js'
export { NamedGenerator, fromConfig } from './named.js'
export { LeasedSnowflake } from './leased.js'
