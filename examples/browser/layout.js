// The layout for IDs minted by many independent browsers: 41 bits of milliseconds (until
// 2094), 14 node bits (random or leased), 8 sequence bits (256 IDs per ms per generator; with
// random sequence starts at least 128). 63 bits, so IDs fit a signed 64-bit database column.
// See bindings-wasm/README.md ("Nodes for many anonymous clients") for the collision odds.
export const LAYOUT = 'time=41@1ms,node=14,seq=8,epoch=2025-01-01'
