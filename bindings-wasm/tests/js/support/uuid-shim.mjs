// TEST-ONLY, FOR THE LEAD TO DELETE once js/uuid.js (helper "uuid") exports the sans-IO UUID
// cores: `Uuid1Core`, `Uuid6Core`, `Uuid7Core` on top of the ORACLE's generators, so named.js
// can be tested before they exist. named-loader.mjs resolves named.js's `./uuid.js` here only
// while js/uuid.js does not exist. The interface named.js expects of the real cores:
//   new Uuid7Core(method)    .nextAtPrecise(nowMs: bigint, subMsNanos: number, random: Uint8Array(10)) -> Uint8Array(16)
//   new Uuid1Core(), new Uuid6Core()   .nextAt(nowMs: bigint, fill: (n) => Uint8Array(n)) -> Uint8Array(16)
//                            (fill called once, on the first call, before any state changes; what it throws passes on)
//   .lastUnixMs -> bigint | null
import { createRequire } from 'node:module'

const oracle = createRequire(import.meta.url)('../../../pkg/node/idmint.js')
const bytesOf = (t) => Uint8Array.from(t.replace(/-/g, '').match(/../g), (h) => parseInt(h, 16))

export class Uuid7Core {
  constructor(method = 'counter') {
    this.g = new oracle.Uuid7Generator(method)
  }
  nextAtPrecise(nowMs, nanos, random) {
    return bytesOf(this.g.nextAt(nowMs, random, nanos))
  }
  get lastUnixMs() {
    return this.g.lastUnixMs
  }
}

class ClockSeqCore {
  constructor(version) {
    this.g = new oracle.UuidGenerator(version)
  }
  // The oracle draws outside its generator: `fill` runs only where the core asks for bytes.
  nextAt(nowMs, fill) {
    return bytesOf(this.g.nextAt(nowMs, (n) => fill(n)))
  }
  get lastUnixMs() {
    return this.g.lastUnixMs
  }
}

export class Uuid1Core extends ClockSeqCore {
  constructor() {
    super(1)
  }
}

export class Uuid6Core extends ClockSeqCore {
  constructor() {
    super(6)
  }
}
