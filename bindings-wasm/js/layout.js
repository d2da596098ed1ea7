// ID bit layouts: the core's `Layout` (core/src/snowflake/layout.rs), its text grammar
// (spec.rs), presets (preset.rs) and date parsing (time.rs), with the `Layout` class the
// browser package exports (bindings-js/src/api.rs `layout_api!`, bindings-wasm/src/layout.rs).
// Every u64 is a bigint. The differential tests hold it to the WebAssembly build of the core.
import { coreError, notInstance, rfc3339, typeError } from './error.js'
import { expectObject, idArg, isNullish, stringArg, u64Arg, wrong } from './convert.js'
import { U64_MAX, byteLen, isDigits, isObject, trim, trimStart, utf8 as bytes, wellFormed } from './text.js'
import { randomU64 } from './random.js'

const DAY = 86400000n
const mask = (bits) => (1n << BigInt(bits)) - 1n

/** Every preset name (core `preset::NAMES`), and its layout as a spec. */
const NAMES = ['twitter', 'discord', 'instagram', 'sonyflake', 'baidu', 'shardingsphere', 'leaf', 'js53']
const PRESETS = [
  'time=41@1ms,datacenter=5,worker=5,seq=12,epoch=1288834974657',
  'time=42@1ms,worker=5,process=5,seq=12,epoch=1420070400000',
  'time=41@1ms,shard=13,seq=10,epoch=1314220021721',
  'time=39@10ms,seq=8,machine=16,epoch=1409529600000',
  'time=28@1s,worker=22,seq=13,epoch=1463702400000',
  'time=41@1ms,worker=10,seq=12,epoch=1477958400000',
  'time=41@1ms,worker=10,seq=12,epoch=1288834974657',
  'time=33@1s,node=4,seq=15,epoch=1735689600000',
]
const UNKNOWN_PRESET = `unknown preset; presets are ${NAMES.join(', ')}, or give a spec such as time=41@1ms,worker=10,seq=12,epoch=2020-01-01`
const NAME_RULE = 'field names are 1-15 characters of [a-z0-9_] starting with a letter'

/** Core `Name::new`: 1..=15 bytes of [a-z0-9_] starting with a letter. */
const isName = (s) => /^[a-z][a-z0-9_]{0,14}$/.test(s)

/** Rust `str::parse::<u64>()`: an optional `+`, then ASCII digits, at most 2^64-1; else null. */
function parseU64(s) {
  const d = s[0] === '+' ? s.slice(1) : s
  if (!isDigits(d)) return null
  const n = BigInt(d)
  return n > U64_MAX ? null : n
}

// ---- dates (core time.rs) ----

/** Days since 1970-01-01 of a proleptic Gregorian date (years >= 1970 here). */
function daysFromCivil(y, m, d) {
  if (m <= 2) y--
  const era = Math.floor(y / 400)
  const yoe = y - era * 400
  const doy = Math.floor((153 * ((m + 9) % 12) + 2) / 5) + d - 1
  return era * 146097 + yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy - 719468
}

const DATE_SHORT = 'date ended early; expected YYYY-MM-DD[THH:MM:SS[.mmm]Z]'

/** Core `parse_date_ms` on UTF-8 bytes `b`: Unix ms, or throws [byte offset, reason]. */
function parseDateMs(b) {
  const num = (from, len) => {
    if (b.length < from + len) throw [b.length, DATE_SHORT]
    let v = 0
    for (let i = from; i < from + len; i++) {
      if (b[i] < 48 || b[i] > 57) throw [i, 'expected a digit']
      v = v * 10 + b[i] - 48
    }
    return v
  }
  const sep = (at, c, what) => {
    if (b[at] !== c.charCodeAt(0)) throw [at, what]
  }
  const y = num(0, 4)
  sep(4, '-', "expected '-' after the year")
  const m = num(5, 2)
  sep(7, '-', "expected '-' after the month")
  const d = num(8, 2)
  if (y < 1970) throw [0, 'year before 1970']
  if (m < 1 || m > 12) throw [5, 'month out of range 01..12']
  const leap = (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0
  const days = m === 2 ? (leap ? 29 : 28) : [4, 6, 9, 11].includes(m) ? 30 : 31
  if (d < 1 || d > days) throw [8, 'day out of range for the month']
  let ms = daysFromCivil(y, m, d) * 86400000
  if (b.length === 10) return BigInt(ms)
  sep(10, 'T', "expected 'T' before the time of day")
  const hh = num(11, 2)
  sep(13, ':', "expected ':' after the hour")
  const mm = num(14, 2)
  sep(16, ':', "expected ':' after the minutes")
  const ss = num(17, 2)
  if (hh > 23) throw [11, 'hour out of range 00..23']
  if (mm > 59) throw [14, 'minutes out of range 00..59']
  if (ss > 59) throw [17, 'seconds out of range 00..59']
  ms += ((hh * 60 + mm) * 60 + ss) * 1000
  let at = 19
  if (b[at] === 46) {
    ms += num(20, 3)
    at = 23
  }
  sep(at, 'Z', "expected 'Z' (times are UTC)")
  if (b.length !== at + 1) throw [at + 1, 'unexpected text after the date']
  return BigInt(ms)
}

// ---- building (core LayoutBuilder::build) ----

const invalid = (reason) => coreError('InvalidLayout', { reason })

/**
 * Validates fields given most significant first ([kind, name, bits] with bits a number) and
 * sets the state of `l` (a Layout under construction). Throws the core's InvalidLayout.
 */
function build(l, b) {
  if (b.overflow) throw invalid('too many fields (at most 8 in all: time, seq, optional rollback, node sub-fields)')
  const fields = []
  let total = 0
  let nodeBits = 0
  let time, seq, rollback
  const once = (have, what, bits, max) => {
    if (have) throw invalid(`more than one ${what} field`)
    if (bits === 0 || bits > max) throw invalid(`${what} field must be 1..=${max} bits`)
  }
  for (const [kind, name, bits] of b.fields) {
    if (bits > 64) throw invalid('a field is wider than 64 bits')
    total += bits
    const f = { kind, name, bits, shift: 0 }
    if (kind === 'time') {
      once(time, 'time', bits, 63)
      time = f
    } else if (kind === 'sequence') {
      once(seq, 'sequence', bits, 32)
      seq = f
    } else if (kind === 'rollback') {
      once(rollback, 'rollback', bits, 8)
      rollback = f
    } else {
      if (bits === 0) throw invalid('a node field has 0 bits')
      nodeBits += bits
    }
    if (fields.some((g) => g.name === f.name)) throw invalid('two fields have the same name')
    fields.push(f)
  }
  if (!time || !seq) throw invalid('a layout needs a time field and a sequence field')
  if (total > 64) throw invalid('fields add up to more than 64 bits')
  if (b.width !== undefined && b.width !== total) throw invalid('fields do not add up to the declared width')
  let shift = total
  for (const f of fields) f.shift = shift -= f.bits
  l._fields = fields
  l._epochMs = b.epochMs
  l._tickMs = b.tickMs
  l._width = total
  l._nodeBits = nodeBits
  l._time = time
  l._seq = seq
  l._rollback = rollback || null
  l._closed = false
  if (lifetimeEndMs(l) === U64_MAX) throw invalid("epoch plus the time field's range overflows 64-bit milliseconds")
}

// ---- the text form (core spec.rs) ----

/** Core `parse_tick`: the tick in ms, or throws its reason. */
function parseTick(s) {
  const digits = /^[0-9]*/.exec(s)[0]
  if (!digits || BigInt(digits) > U64_MAX) throw 'expected a tick such as 1ms, 10ms or 1s'
  const unit = s.slice(digits.length)
  const mul = unit === 'ms' ? 1n : unit === 's' ? 1000n : unit === 'm' ? 60000n : unit === 'h' ? 3600000n : 0n
  if (!mul) throw 'tick unit must be ms, s, m or h'
  const t = BigInt(digits) * mul
  if (t > U64_MAX) throw 'tick too long'
  if (t === 0n) throw 'tick must be at least 1 ms'
  return t
}

/** Core `parse_spec` into `l`. */
function parseSpec(l, spec) {
  const err = (at, reason) => coreError('InvalidSpec', { at, reason })
  if (!trim(spec)) throw err(0, 'empty spec; give a preset name or fields like time=41@1ms,worker=10,seq=12')
  const b = { epochMs: 0n, tickMs: 1n, width: undefined, fields: [], overflow: false }
  const push = (kind, name, bits) => {
    if (b.fields.length === 8) b.overflow = true
    else b.fields.push([kind, name, bits])
  }
  let haveEpoch = false
  let pos = 0
  for (const raw of spec.split(',')) {
    const start = pos
    pos += byteLen(raw) + 1
    const rest = trimStart(raw)
    const at = start + byteLen(raw) - byteLen(rest)
    const item = trim(rest)
    const eq = item.indexOf('=')
    if (eq < 0) throw err(at, 'expected name=value')
    const key = item.slice(0, eq)
    const val = item.slice(eq + 1)
    const vat = at + byteLen(key) + 1
    const bits = (v, at) => {
      if (!isDigits(v) || v.length > 3) throw err(at, 'expected a number of bits')
      return +v
    }
    if (key === 'time') {
      const atpos = val.indexOf('@')
      if (atpos < 0) throw err(vat, 'time needs a tick: time=BITS@TICK, e.g. time=41@1ms')
      const n = bits(val.slice(0, atpos), vat)
      let tick
      try {
        tick = parseTick(val.slice(atpos + 1))
      } catch (reason) {
        throw err(vat + byteLen(val.slice(0, atpos)) + 1, reason)
      }
      if (b.fields.some((f) => f[0] === 'time')) throw err(at, 'time given twice')
      b.tickMs = tick
      push('time', 'time', n)
    } else if (key === 'seq' || key === 'sequence') push('sequence', 'seq', bits(val, vat))
    else if (key === 'rollback') push('rollback', 'rollback', bits(val, vat))
    else if (key === 'width') {
      const w = bits(val, vat)
      if (w > 64) throw err(vat, 'width is at most 64')
      b.width = w
    } else if (key === 'epoch') {
      if (haveEpoch) throw err(at, 'epoch given twice')
      haveEpoch = true
      if (isDigits(val)) {
        b.epochMs = BigInt(val)
        if (b.epochMs > U64_MAX) throw err(vat, 'epoch in ms does not fit 64 bits')
      } else {
        try {
          b.epochMs = parseDateMs(bytes(val))
        } catch ([o, reason]) {
          throw err(vat + o, reason)
        }
      }
    } else {
      if (!isName(key)) throw err(at, NAME_RULE)
      push('node', key, bits(val, vat))
    }
  }
  if (!haveEpoch) throw err(byteLen(spec), 'missing epoch=DATE (e.g. epoch=2020-01-01)')
  build(l, b)
}

/** Core `Layout::parse` into `l`: a preset name or a text spec. */
function parseInto(l, spec) {
  const word = trim(spec)
  if (NAMES.includes(word)) return presetInto(l, word)
  if (word && !/[=,]/.test(word)) {
    throw coreError('InvalidSpec', { at: byteLen(spec) - byteLen(trimStart(spec)), reason: UNKNOWN_PRESET })
  }
  parseSpec(l, spec)
  l._preset = null
}

function presetInto(l, name) {
  parseSpec(l, PRESETS[NAMES.indexOf(name)])
  l._preset = name
}

/** A Layout object with no state yet, to be filled by `parseInto` or `presetInto`. */
const blank = () => Object.create(Layout.prototype)

/** Core `Layout::parse` (a preset name or a spec) -> Layout. */
export function parseLayout(text) {
  const l = blank()
  parseInto(l, text)
  return l
}

/**
 * A live copy of `l` (a Layout, even a freed one), sharing its immutable state: what a holder of
 * a layout hands out, as the wasm build hands out a new `Layout` each time.
 */
export const copyLayout = (l) => Object.assign(blank(), l, { _closed: false })

/** Core `Display for Layout`: the canonical spec. */
function specText(l) {
  const t = l._tickMs
  const tick =
    t % 3600000n === 0n ? `${t / 3600000n}h` : t % 60000n === 0n ? `${t / 60000n}m` : t % 1000n === 0n ? `${t / 1000n}s` : `${t}ms`
  const fields = l._fields.map((f) => (f.kind === 'time' ? `time=${f.bits}@${tick}` : `${f.name}=${f.bits}`))
  const e = l._epochMs
  // Year 10000 and later: RFC 3339 has no form for it, so the raw ms.
  const epoch = e >= 253402300800000n ? e : e % DAY === 0n ? rfc3339(e).slice(0, 10) : rfc3339(e)
  return `${fields.join(',')},epoch=${epoch}`
}

// ---- values (core Layout methods) ----

const nodeFields = (l) => l._fields.filter((f) => f.kind === 'node')
const fieldGet = (f, id) => (id >> BigInt(f.shift)) & mask(f.bits)
const maxTime = (l) => mask(l._time.bits)
const maxNode = (l) => mask(l._nodeBits)
const maxId = (l) => mask(l._width)

/** Core `check`: `v` if it fits field `f`, else OutOfRange. */
function check(f, v) {
  const max = mask(f.bits)
  if (v > max) throw coreError('OutOfRange', { field: f.name, value: v, max })
  return v
}

/** The first instant (Unix ms) the time field cannot represent, saturating at 2^64-1. */
export function lifetimeEndMs(l) {
  const end = l._epochMs + (maxTime(l) + 1n) * l._tickMs
  return end >= U64_MAX ? U64_MAX : end
}

const tickStartMs = (l, tick) => {
  const s = l._epochMs + tick * l._tickMs
  return s > U64_MAX ? U64_MAX : s
}
const timestampMs = (l, id) => tickStartMs(l, fieldGet(l._time, id))

/** Core `Layout::node_to_bits`: a whole node value placed at its sub-fields' bit positions. */
export function nodeToBits(l, node) {
  const max = maxNode(l)
  if (node > max) throw coreError('OutOfRange', { field: 'node', value: node, max })
  let rest = BigInt(l._nodeBits)
  let out = 0n
  for (const f of nodeFields(l)) {
    rest -= BigInt(f.bits)
    out |= ((node >> rest) & mask(f.bits)) << BigInt(f.shift)
  }
  return out
}

/** Core `Layout::try_split_node` as `[name, value]` pairs, most significant first. */
function splitNode(l, node) {
  nodeToBits(l, node)
  let rest = BigInt(l._nodeBits)
  return nodeFields(l).map((f) => [f.name, (node >> (rest -= BigInt(f.bits))) & mask(f.bits)])
}

/** Core `Layout::node_from_parts`: pairs [name, bigint], each node sub-field exactly once. */
export function nodeFromParts(l, pairs) {
  const fields = nodeFields(l)
  const values = []
  const bad = (argument, reason) => coreError('InvalidArgument', { argument, reason })
  for (const [name, v] of pairs) {
    const i = fields.findIndex((f) => f.name === name)
    if (i < 0) throw bad(name, 'is not a node sub-field of the layout')
    if (values[i] !== undefined) throw bad(name, 'is given twice')
    values[i] = v
  }
  let node = 0n
  fields.forEach((f, i) => {
    if (values[i] === undefined) throw bad(f.name, 'is a node sub-field of the layout and missing')
    node = (node << BigInt(f.bits)) | check(f, values[i])
  })
  return node
}

/** Core `Layout::parse_node`: a whole value (`37`) or sub-fields by name (`datacenter=1,worker=5`). */
export function parseNode(l, text) {
  text = trim(text)
  if (!text.includes('=')) {
    const node = parseU64(text)
    if (node === null) throw coreError('InvalidArgument', { argument: 'node', reason: 'expected a number or name=value pairs' })
    nodeToBits(l, node)
    return node
  }
  const pairs = []
  for (const pair of text.split(',')) {
    const eq = pair.indexOf('=')
    const name = trim(eq < 0 ? pair : pair.slice(0, eq))
    const value = parseU64(eq < 0 ? '' : trim(pair.slice(eq + 1)))
    if (value === null) throw coreError('InvalidArgument', { argument: name, reason: 'expected name=number' })
    if (pairs.length === 8) throw coreError('InvalidArgument', { argument: name, reason: 'is one node sub-field too many' })
    pairs.push([name, value])
  }
  return nodeFromParts(l, pairs)
}

/** A whole node value given as a number or bigint (bindings-js options.rs `node_number`). */
export function nodeNumber(v, what) {
  if (typeof v === 'number' || typeof v === 'bigint') return u64Arg(v, what)
  throw wrong(v, what, 'a bigint, an integer number or an object of node sub-field values')
}

/**
 * The sub-field values of a node object as [name, bigint] pairs, nullish values left out; each
 * key as Rust receives it (lone surrogates become U+FFFD, and such a key then reads nothing).
 */
export function nodeParts(v, what) {
  const parts = []
  for (let name of Object.keys(v)) {
    name = wellFormed(name)
    const x = v[name]
    if (!isNullish(x)) parts.push([name, u64Arg(x, `${what}.${name}`)])
  }
  return parts
}

/**
 * A node argument under layout `l` (bindings-js options.rs `node_arg`): a whole value (number or
 * bigint, not range-checked here), or an object of sub-field values joined by `nodeFromParts`.
 */
export function nodeArg(l, v, what) {
  return isObject(v) ? nodeFromParts(l, nodeParts(v, what)) : nodeNumber(v, what)
}

const PARTS = ['time', 'node', 'sequence', 'rollback']

/** `Layout.compose`'s parts (bindings-js options.rs `compose_parts`) composed (core `Layout::compose`). */
function compose(l, v) {
  expectObject(v, 'parts')
  const p = { time: 0n, node: 0n, sequence: 0n, rollback: 0n }
  for (const key of Object.keys(v)) {
    const x = v[key]
    if (key === 'nodeFields' || key === 'timestampMs') continue
    if (!PARTS.includes(key)) {
      throw coreError('InvalidArgument', { argument: key, reason: 'is not a part (time, node, sequence, rollback)' })
    }
    if (isNullish(x)) continue
    p[key] = key === 'node' ? nodeArg(l, x, 'parts.node') : u64Arg(x, `parts.${key}`)
  }
  let id = check(l._time, p.time) << BigInt(l._time.shift)
  id |= check(l._seq, p.sequence) << BigInt(l._seq.shift)
  const r = l._rollback
  if (r) id |= check(r, p.rollback) << BigInt(r.shift)
  else if (p.rollback !== 0n) throw coreError('OutOfRange', { field: 'rollback', value: p.rollback, max: 0n })
  return id | nodeToBits(l, p.node)
}

/** `{name: bigint}` of a node value's sub-fields, in layout order (bindings-js `node_record`). */
const nodeRecord = (l, node) => Object.fromEntries(splitNode(l, node))

/** A `Date` for `ms` (bigint): an Invalid Date past JavaScript's range (bindings-js `date_ms`). */
const date = (ms) => new Date(ms > 8640000000000000n ? NaN : Number(ms))

const MUST = 'a Layout or a layout spec string'

/** A layout argument (bindings-js convert.rs `layout_arg`): a live `Layout`, a preset name or a spec. */
export function layoutArg(v, what) {
  if (typeof v === 'string') return parseLayout(v)
  if (!isObject(v)) throw wrong(v, what, MUST)
  if (!(v instanceof Layout) || !v._fields || v._closed) {
    throw typeError(`${what} must be ${MUST}; received an object that is not a Layout`)
  }
  return v
}

/** `this` of a Layout method: a live Layout, else the errors of the wasm glue (scripts/glue.mjs item 1). */
function self(l, live = true) {
  if (!(l instanceof Layout) || !l._fields) throw notInstance('Layout')
  if (live && l._closed) throw coreError('Closed', { what: 'Layout' })
  return l
}

/** The bit layout of an ID: which fields, how wide, in which order, and from when time counts. */
export class Layout {
  constructor(spec) {
    parseInto(this, stringArg(spec, 'spec'))
  }
  static parse(spec) {
    return new Layout(spec)
  }
  static preset(name) {
    name = stringArg(name, 'name')
    if (!NAMES.includes(name)) throw invalid(UNKNOWN_PRESET)
    const l = blank()
    presetInto(l, name)
    return l
  }
  static presets() {
    return NAMES.slice()
  }
  /** Releases nothing (there is no wasm memory): later calls throw ERR_CLOSED, as the wasm build's do. */
  free() {
    self(this, false)._closed = true
  }
  get spec() {
    return specText(self(this))
  }
  toString() {
    return specText(self(this))
  }
  toJSON() {
    return specText(self(this))
  }
  get presetName() {
    return self(this)._preset
  }
  get width() {
    return self(this)._width
  }
  get epochMs() {
    return self(this)._epochMs
  }
  get epoch() {
    return date(self(this)._epochMs)
  }
  get tickMs() {
    return self(this)._tickMs
  }
  get maxId() {
    return maxId(self(this))
  }
  get maxNode() {
    return maxNode(self(this))
  }
  get maxSequence() {
    return Number(mask(self(this)._seq.bits))
  }
  get maxTime() {
    return maxTime(self(this))
  }
  get nodeBits() {
    return self(this)._nodeBits
  }
  get nodeNames() {
    return nodeFields(self(this)).map((f) => f.name)
  }
  get isJsSafe() {
    return self(this)._width <= 53
  }
  get capacityPerSecond() {
    const l = self(this)
    return Number(((mask(l._seq.bits) + 1n) * 1000n) / l._tickMs)
  }
  get lifetimeEndMs() {
    return lifetimeEndMs(self(this))
  }
  get lifetimeEnd() {
    return date(lifetimeEndMs(self(this)))
  }
  get fields() {
    return self(this)._fields.map(({ name, kind, bits, shift }) => ({ name, kind, bits, shift, max: mask(bits) }))
  }
  compose(parts) {
    return compose(self(this), parts)
  }
  decompose(id) {
    const l = self(this)
    id = idArg(id, 'id')
    const max = maxId(l)
    if (id > max) throw coreError('OutOfRange', { field: 'id', value: id, max })
    let node = 0n
    for (const f of nodeFields(l)) node = (node << BigInt(f.bits)) | fieldGet(f, id)
    return {
      time: fieldGet(l._time, id),
      node,
      // The layout caps the sequence at 32 bits and rollback at 8: exact as numbers.
      sequence: Number(fieldGet(l._seq, id)),
      rollback: l._rollback ? Number(fieldGet(l._rollback, id)) : 0,
      nodeFields: nodeRecord(l, node),
      timestampMs: timestampMs(l, id),
    }
  }
  timestampMs(id) {
    const l = self(this)
    return timestampMs(l, idArg(id, 'id'))
  }
  timestamp(id) {
    const l = self(this)
    return date(timestampMs(l, idArg(id, 'id')))
  }
  tickAt(nowMs) {
    const l = self(this)
    const now = u64Arg(nowMs, 'nowMs')
    if (now < l._epochMs) throw coreError('BeforeEpoch', { now_ms: now, epoch_ms: l._epochMs })
    const t = (now - l._epochMs) / l._tickMs
    if (t > maxTime(l)) throw coreError('LayoutExpired', { end_ms: lifetimeEndMs(l) })
    return t
  }
  tickStartMs(tick) {
    const l = self(this)
    return tickStartMs(l, u64Arg(tick, 'tick'))
  }
  isExpiredAt(nowMs) {
    const l = self(this)
    return u64Arg(nowMs, 'nowMs') >= lifetimeEndMs(l)
  }
  splitNode(node) {
    const l = self(this)
    return nodeRecord(l, u64Arg(node, 'node'))
  }
  joinNode(values) {
    const l = self(this)
    expectObject(values, 'values')
    return nodeArg(l, values, 'values')
  }
  equals(other) {
    const l = self(this)
    const o = layoutArg(other, 'other')
    return (
      l._epochMs === o._epochMs &&
      l._tickMs === o._tickMs &&
      l._width === o._width &&
      l._fields.length === o._fields.length &&
      l._fields.every((f, i) => {
        const g = o._fields[i]
        return f.kind === g.kind && f.name === g.name && f.bits === g.bits && f.shift === g.shift
      })
    )
  }
}
if (Symbol.dispose) Layout.prototype[Symbol.dispose] = Layout.prototype.free

/** A node value drawn uniformly from `0..=layout.maxNode` with `crypto.getRandomValues`. */
export function randomNode(layout) {
  const l = layoutArg(layout, 'layout')
  return randomU64() & maxNode(l)
}
