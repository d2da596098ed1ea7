// `idmint-web/snowflake`: Layout, Snowflake, AtomicSnowflake, randomNode and version, in
// JavaScript. The core's Snowflake rules are ported here from Rust because their WebAssembly
// build alone weighs as much as the whole budget of a page that only mints Snowflake IDs; the
// port is held to the core's test vectors, to the package's shared JavaScript suite and to a
// differential test against the WebAssembly build of the core (tests/js/).
import { PageClock, benchFloors } from './clock.js'
import { Snowflake } from './generator.js'

export { Layout, randomNode } from './layout.js'
export { AtomicSnowflake } from './generator.js'
export { Snowflake }

/* global IDMINT_VERSION */
/** The package version (scripts/build.sh writes package.json's, which test.sh checks). */
export const version = () => IDMINT_VERSION

// The benchmark page's floors, off the exports, under the symbol the WebAssembly entries use.
Object.defineProperty(Snowflake, Symbol.for('idmint.bench'), { value: benchFloors(new PageClock()) })
