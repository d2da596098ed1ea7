// `idmint-web/snowflake`: Layout, Snowflake, AtomicSnowflake, randomNode and version. Like every
// entry of the package, JavaScript: a port of the core's rules, held to the core's test vectors,
// to the package's shared JavaScript suite and to a differential test against the WebAssembly
// build of the core (tests/js/; why a port: js/full.js).
import { PageClock, benchFloors } from './clock.js'
import { Snowflake } from './generator.js'

export { Layout, randomNode } from './layout.js'
export { AtomicSnowflake } from './generator.js'
export { Snowflake }
export { version } from './version.js'

// The benchmark page's floors, off the exports, under the symbol the WebAssembly entry uses.
Object.defineProperty(Snowflake, Symbol.for('idmint.bench'), { value: benchFloors(new PageClock()) })
