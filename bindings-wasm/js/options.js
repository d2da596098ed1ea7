// Everything between what a user passes and the generator's Config: the options object of
// `new Snowflake(options)` (core snowflake::options + bindings-js options.rs), the policy texts
// (core snowflake::policy), the named config text of `Snowflake.fromConfig` and the `config`
// getter (core named::NamedConfig::parse_snowflake and its Display), and setNode's argument.
// Checks that only the generator makes (core Packing::new: ring size, vibrate offset, rollback
// field, state bits, node required) are generator.js's.

import { coreError } from './error.js'
import { expectObject, isNullish, stringArg, u64Arg } from './convert.js'
import { layoutArg, nodeArg, nodeFromParts, nodeNumber, nodeParts, nodeToBits, parseLayout } from './layout.js'
import { U64_MAX, decodeUtf8, isDigits as digits, isObject, lossy, trim, trimEnd, trimStart, utf8, wellFormed } from './text.js'

const text = decodeUtf8

const invalidArgument = (argument, reason) =>
  coreError('InvalidArgument', { argument: lossy(argument), reason })

// ---- policies (core snowflake::policy) ----


// The policy's number: its default when absent, else decimal digits of at most `max`.
function number(arg, dflt, reason, max = U64_MAX) {
  if (arg === null) return dflt
  const n = digits(arg) ? BigInt(arg) : -1n
  if (n < 0n || n > max) throw coreError('InvalidConfig', { reason })
  return n
}

// `name[:arg]` of a trimmed policy text.
function split(s) {
  s = trim(s)
  const i = s.indexOf(':')
  return i < 0 ? [s, null] : [s.slice(0, i), s.slice(i + 1)]
}

const BACKWARDS =
  'on_backwards is fail, wait[:MS], logical[:MS], rollback_counter or ring[:TICKS]'
const EXHAUSTED = 'on_exhausted is wait, borrow[:TICKS] or fail'
const START = 'sequence_start is zero, random or vibrate[:MAX_OFFSET] (1..=255)'

export function parseOnBackwards(s) {
  const [name, a] = split(s)
  if (name === 'fail' && a === null) return { kind: 'fail' }
  if (name === 'wait' || name === 'logical') {
    return { kind: name, maxMs: number(a, 1000n, BACKWARDS) }
  }
  if (name === 'rollback_counter' && a === null) return { kind: 'rollback_counter' }
  if (name === 'ring') return { kind: 'ring', ticks: Number(number(a, 256n, BACKWARDS, 0xffffffffn)) }
  throw coreError('InvalidConfig', { reason: BACKWARDS })
}

export function parseOnExhausted(s) {
  const [name, a] = split(s)
  if ((name === 'wait' || name === 'fail') && a === null) return { kind: name }
  if (name === 'borrow') return { kind: 'borrow', maxTicks: number(a, 16n, EXHAUSTED) }
  throw coreError('InvalidConfig', { reason: EXHAUSTED })
}

export function parseSequenceStart(s) {
  const [name, a] = split(s)
  if ((name === 'zero' || name === 'random') && a === null) return { kind: name }
  if (name === 'vibrate') return { kind: 'vibrate', maxOffset: Number(number(a, 1n, START, 255n)) }
  throw coreError('InvalidConfig', { reason: START })
}

// The canonical text of a policy (core Display).
export function policyText(p) {
  const arg = p.maxMs ?? p.ticks ?? p.maxTicks ?? p.maxOffset
  return arg === undefined ? p.kind : p.kind + ':' + arg
}

// A Config with the default policies and no node (core Config::new).
function newConfig(layout) {
  return {
    layout,
    node: null,
    onBackwards: { kind: 'wait', maxMs: 1000n },
    onExhausted: { kind: 'wait' },
    sequenceStart: { kind: 'zero' },
    seed: 0n,
    fenceMs: null,
  }
}

// ---- options objects (core SnowflakeOptions, bindings-js options::read) ----

// camelCase -> the Config field and what the key takes; snake_case spellings alias them.
const KEYS = {
  layout: 'layout',
  node: 'node',
  onBackwards: 'text',
  onExhausted: 'text',
  sequenceStart: 'text',
  seed: 'int',
  fenceMs: 'int',
}
const SNAKE = { on_backwards: 'onBackwards', on_exhausted: 'onExhausted', sequence_start: 'sequenceStart', fence_ms: 'fenceMs' }
const POLICY = { onBackwards: parseOnBackwards, onExhausted: parseOnExhausted, sequenceStart: parseSequenceStart }
const MAX_NODE_PARTS = 8
const own = (o, k) => Object.prototype.hasOwnProperty.call(o, k)

/** `new Snowflake(options)` / `new AtomicSnowflake(options)`: the options object -> Config. */
export function readOptions(value, what = 'options') {
  let layout = null
  let node = null
  const parts = []
  const set = {}
  if (!isNullish(value)) {
    expectObject(value, what)
    for (let key of Object.keys(value)) {
      key = wellFormed(key)
      const x = value[key]
      if (isNullish(x)) continue
      const name = own(KEYS, key) ? key : own(SNAKE, key) ? SNAKE[key] : null
      const at = `${what}.${key}`
      const takes = KEYS[name]
      if (!takes) {
        throw invalidArgument(key, `is not an option (${Object.keys(KEYS).join(', ')})`)
      }
      if (takes === 'layout') layout = layoutArg(x, at)
      else if (takes === 'text') set[name] = POLICY[name](stringArg(x, at))
      else if (takes === 'int') set[name] = u64Arg(x, at)
      else if (isObject(x)) {
        // (An object has one `node` key: a whole value and sub-fields never both arrive.)
        for (const [part, n] of nodeParts(x, at)) {
          if (parts.length === MAX_NODE_PARTS) throw invalidArgument(part, 'is one node sub-field too many')
          // The core keeps each name as Name::lossy keeps it (its first 15 bytes).
          parts.push([lossy(part), n])
        }
      } else node = nodeNumber(x, at)
    }
  }
  // The layout first, then the node under it, whatever order the keys came in.
  const cfg = newConfig(layout ?? parseLayout('twitter'))
  if (node !== null) {
    nodeToBits(cfg.layout, node)
    cfg.node = node
  } else if (parts.length) {
    cfg.node = nodeFromParts(cfg.layout, parts)
  }
  return Object.assign(cfg, set)
}

/** setNode's argument under `layout`: a whole value, or sub-field values by name. */
export { nodeArg }

// ---- named config text (core named::{parse, compact, json, entry, config}) ----

export const specErr = (at, reason) => coreError('InvalidSpec', { at, reason })
export const UUID7_ONLY = 'this key applies to type uuid7 only'
const isWs = (c) => c === 32 || c === 9 || c === 10 || c === 13
function skipWs(b, i) {
  while (i < b.length && isWs(b[i])) i++
  return i
}

// An entry: { key, keyAt, val, valAt, bare }; val is { str, rawAt } (rawAt null when the
// text had JSON escapes), { num: bigint } or { bool: true }.
function entry(key, keyAt, val, valAt, bare) {
  return { key, keyAt, val, valAt, bare }
}

export function entryText(e) {
  if (e.val.str === undefined) throw specErr(e.valAt, 'expected a string value')
  return e.val.str
}

function entryU64(e) {
  const v = e.val
  if (v.num !== undefined) return v.num
  if (v.str === undefined || !digits(v.str)) throw specErr(e.valAt, 'expected a non-negative integer')
  const n = BigInt(v.str)
  if (n > U64_MAX) throw specErr(e.valAt, 'number does not fit 64 bits')
  return n
}

const EQ = 61
const COMMA = 44
const OPEN = 40
const CLOSE = 41
const QUOTE = 34
const BACKSLASH = 92

// `key=value,key=(value),...`
function parseCompact(s, b) {
  if (trim(s) === '') {
    throw specErr(0, 'empty config; give type=... or a JSON object such as {"type":"uuid7"}')
  }
  const out = []
  let i = 0
  for (;;) {
    const keyAt = skipWs(b, i)
    let j = keyAt
    while (j < b.length && b[j] !== EQ && b[j] !== COMMA) j++
    if (j === b.length || b[j] === COMMA) throw specErr(keyAt, 'expected key=value')
    const key = trimEnd(text(b, keyAt, j))
    if (key === '') throw specErr(keyAt, "missing key before '='")
    const valAt = skipWs(b, j + 1)
    let val, bare, next
    if (b[valAt] === OPEN) {
      const close = b.indexOf(CLOSE, valAt + 1)
      if (close < 0) throw specErr(valAt, "unclosed '(': expected ')'")
      const nested = b.subarray(valAt + 1, close).indexOf(OPEN)
      if (nested >= 0) throw specErr(valAt + 1 + nested, "nested '(' in a value")
      const inner = text(b, valAt + 1, close)
      const lead = utf8(inner).length - utf8(trimStart(inner)).length
      val = { str: trim(inner), rawAt: valAt + 1 + lead }
      bare = false
      const after = skipWs(b, close + 1)
      if (after < b.length && b[after] !== COMMA) throw specErr(after, "expected ',' after ')'")
      next = after
    } else {
      let k = valAt
      for (; k < b.length && b[k] !== COMMA; k++) {
        if (b[k] === OPEN || b[k] === CLOSE) {
          throw specErr(k, 'parentheses must wrap a whole value: key=(value)')
        }
      }
      val = { str: trimEnd(text(b, valAt, k)), rawAt: valAt }
      bare = true
      next = k
    }
    if (val.str === '') throw specErr(valAt, "missing value after '='")
    out.push(entry(key, keyAt, val, valAt, bare))
    if (next >= b.length) return out
    i = next + 1
    if (skipWs(b, i) === b.length) throw specErr(next, "trailing ',' without a key=value after it")
  }
}

const HEX = /^[0-9a-fA-F]{4}$/
function hex4(b, at) {
  const h = at + 4 <= b.length ? text(b, at, at + 4) : ''
  return HEX.test(h) ? parseInt(h, 16) : null
}

const ESCAPES = { 34: '"', 92: '\\', 47: '/', 98: '\b', 102: '\f', 110: '\n', 114: '\r', 116: '\t' }

// A JSON string at the quote at byte `at`: [text, verbatim, byte after the closing quote].
function jsonString(b, at) {
  let out = ''
  let verbatim = true
  let run = at + 1
  for (let i = at + 1; i < b.length; ) {
    const c = b[i]
    if (c === QUOTE) return [out + text(b, run, i), verbatim, i + 1]
    if (c === BACKSLASH) {
      verbatim = false
      out += text(b, run, i)
      if (i + 1 >= b.length) break
      const e = b[i + 1]
      if (own(ESCAPES, e)) {
        out += ESCAPES[e]
        i += 2
      } else if (e === 117) {
        const hi = hex4(b, i + 2)
        if (hi === null) throw specErr(i, '\\u needs four hexadecimal digits')
        let code = hi
        let len = 6
        if (hi >= 0xd800 && hi < 0xdc00) {
          const lo = b[i + 6] === BACKSLASH && b[i + 7] === 117 ? hex4(b, i + 8) : null
          if (lo === null || lo < 0xdc00 || lo >= 0xe000) {
            throw specErr(i, 'unpaired UTF-16 surrogate in a \\u escape')
          }
          code = 0x10000 + ((hi - 0xd800) << 10) + (lo - 0xdc00)
          len = 12
        } else if (hi >= 0xdc00 && hi < 0xe000) {
          throw specErr(i, 'unpaired UTF-16 surrogate in a \\u escape')
        }
        out += String.fromCodePoint(code)
        i += len
      } else {
        throw specErr(i, 'invalid escape in a string')
      }
      run = i
    } else if (c < 0x20) {
      throw specErr(i, 'control character in a string (escape it)')
    } else {
      i++
    }
  }
  throw specErr(b.length, 'unterminated string: expected \'"\'')
}

const isDigit = (c) => c >= 48 && c <= 57

// A non-negative JSON integer at byte `at` (a digit): [value, byte after it].
function jsonNumber(b, at) {
  let i = at
  let v = 0n
  for (; isDigit(b[i]); i++) {
    if (i > at && b[at] === 48) throw specErr(at, 'leading zeros are not allowed in JSON numbers')
    v = v * 10n + BigInt(b[i] - 48)
    if (v > U64_MAX) throw specErr(at, 'number does not fit 64 bits')
  }
  if (b[i] === 46 || b[i] === 101 || b[i] === 69) {
    throw specErr(i, 'expected an integer (no fraction or exponent)')
  }
  return [v, i]
}

const startsWith = (b, i, word) => word.split('').every((ch, k) => b[i + k] === ch.charCodeAt(0))

// One flat JSON object.
function parseJson(b) {
  // The caller checked the '{'.
  let i = skipWs(b, 0) + 1
  const out = []
  i = skipWs(b, i)
  if (b[i] === 125) {
    i++
  } else {
    for (;;) {
      i = skipWs(b, i)
      if (b[i] !== QUOTE) throw specErr(i, 'expected a string key in double quotes')
      const keyAt = i
      const [key, , end] = jsonString(b, i)
      i = skipWs(b, end)
      if (b[i] !== 58) throw specErr(i, "expected ':' after the key")
      i = skipWs(b, i + 1)
      const valAt = i
      const c = b[i]
      let val, stop
      if (c === QUOTE) {
        const [str, verbatim, e] = jsonString(b, i)
        val = { str, rawAt: verbatim ? i + 1 : null }
        stop = e
      } else if (isDigit(c)) {
        const [num, e] = jsonNumber(b, i)
        val = { num }
        stop = e
      } else if (c === 45) {
        throw specErr(i, 'negative numbers are not allowed; expected a non-negative integer')
      } else if (startsWith(b, i, 'true')) {
        val = { bool: true }
        stop = i + 4
      } else if (startsWith(b, i, 'false')) {
        val = { bool: true }
        stop = i + 5
      } else if (startsWith(b, i, 'null')) {
        throw specErr(i, 'null is not allowed; leave the key out instead')
      } else if (c === 123 || c === 91) {
        throw specErr(
          i,
          'nested objects and arrays are not supported; values are strings, integers or booleans',
        )
      } else if (c === undefined) {
        throw specErr(i, 'unexpected end: expected a value')
      } else {
        throw specErr(i, 'expected a string, integer or boolean value')
      }
      out.push(entry(key, keyAt, val, valAt, false))
      i = skipWs(b, stop)
      if (b[i] === COMMA) {
        i++
      } else if (b[i] === 125) {
        i++
        break
      } else if (i < b.length) {
        throw specErr(i, "expected ',' or '}'")
      } else {
        throw specErr(i, "unexpected end: expected ',' or '}'")
      }
    }
  }
  i = skipWs(b, i)
  if (i !== b.length) throw specErr(i, "unexpected text after the closing '}'")
  return out
}

const CONFIG_KEYS = ['type', 'layout', 'node', 'on_backwards', 'on_exhausted', 'sequence_start', 'seed', 'fence_ms', 'method']
const TYPES = ['snowflake', 'uuid4', 'uuid7', 'uuid6', 'uuid1']

// Known keys, each once, and a known type (which it returns): core named::config::checked_kind.
function checkedKind(b, entries) {
  entries.forEach((e, i) => {
    if (e.key === 'layout' && e.bare && e.val.str?.includes('=')) {
      // Before the unknown-key check: the rest of an unwrapped spec reads as keys.
      throw specErr(
        e.valAt,
        'a layout spec contains commas: wrap it in parentheses, layout=(time=...,seq=...,epoch=...)',
      )
    }
    if (!CONFIG_KEYS.includes(e.key)) throw specErr(e.keyAt, `unknown key (${CONFIG_KEYS.join(', ')})`)
    if (entries.slice(0, i).some((p) => p.key === e.key)) throw specErr(e.keyAt, 'key given twice')
  })
  const t = entries.find((e) => e.key === 'type')
  const types = `(${TYPES.join(', ')})`
  if (!t) throw specErr(b.length, 'missing type ' + types)
  const name = entryText(t)
  if (TYPES.includes(name)) return name
  if (name === 'segment') {
    throw specErr(t.valAt, 'type segment takes its IDs from a store: build it with idmint-coord')
  }
  throw specErr(t.valAt, 'unknown type ' + types)
}

// The layout of a `layout` entry, its spec errors re-based to the whole config text.
function entryLayout(e) {
  const spec = entryText(e)
  try {
    return parseLayout(spec)
  } catch (err) {
    if (err.code !== 'ERR_INVALID_LAYOUT' || err.at === undefined) throw err
    const rawAt = e.val.rawAt
    throw specErr(rawAt == null ? e.valAt : rawAt + err.at, err.reason)
  }
}

/** Core `parse_entries` + `checked_kind`: the config text's UTF-8 bytes, its entries and its
 * type, the checks every front door makes before it reads a type's keys. */
export function namedEntries(config) {
  const b = utf8(stringArg(config, 'config'))
  const s = decodeUtf8(b)
  const entries = trimStart(s).startsWith('{') ? parseJson(b) : parseCompact(s, b)
  return { b, entries, kind: checkedKind(b, entries) }
}

/** `Snowflake.fromConfig(text)`: core NamedConfig::parse_snowflake, up to (not including) the
 * generator's own checks (Packing::new), which are the last it makes. */
export function parseConfig(config) {
  const { b, entries, kind } = namedEntries(config)
  if (kind !== 'snowflake') {
    throw coreError('InvalidConfig', {
      reason:
        'not a snowflake config (type=snowflake,...); a UUID type builds with the UUID generator or the named generator',
    })
  }
  return snowflakeEntries(b, entries)
}

/** Core `snowflake_config` (node given) of checked entries, short of Packing::new. */
export function snowflakeEntries(b, entries) {
  const l = entries.find((e) => e.key === 'layout')
  if (!l) {
    throw specErr(
      b.length,
      'type snowflake needs a layout: a preset name or a spec (in parentheses in the compact form)',
    )
  }
  // Every value in the order written, so the first problem is the one reported.
  const cfg = newConfig(entryLayout(l))
  for (const e of entries) {
    const k = e.key
    if (k === 'node') cfg.node = entryU64(e)
    else if (k === 'seed') cfg.seed = entryU64(e)
    else if (k === 'fence_ms') cfg.fenceMs = entryU64(e)
    else if (k === 'method') throw specErr(e.keyAt, UUID7_ONLY)
    else if (k !== 'type' && k !== 'layout') {
      const name = k.replace(/_(.)/g, (_, c) => c.toUpperCase())
      cfg[name] = POLICY[name](entryText(e))
    }
  }
  return cfg
}

/** The `config` getter: the canonical compact named config (core NamedConfig's Display). */
export function configText(c) {
  const l = c.layout
  let t = 'type=snowflake,layout=' + (l._preset ?? `(${l.spec})`)
  if (c.node !== null) t += ',node=' + c.node
  t += `,on_backwards=${policyText(c.onBackwards)},on_exhausted=${policyText(c.onExhausted)},sequence_start=${policyText(c.sequenceStart)}`
  if (c.seed !== 0n) t += ',seed=' + c.seed
  if (c.fenceMs !== null) t += ',fence_ms=' + c.fenceMs
  return t
}
