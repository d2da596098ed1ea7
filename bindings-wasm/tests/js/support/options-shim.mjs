// TEST-ONLY stand-in for js/options.js (helper "options" writes the real one): the contract's
// functions generator.js imports, for the well-formed options and canonical config texts the
// generator tests use (option and config-text errors are options.js's own tests' concern).
// The canonical config text comes from the oracle. See generator-loader.mjs.
import { createRequire } from 'node:module'
import { u64Arg, wrong } from '../../../js/convert.js'
import { layoutArg, nodeToBits, parseLayout } from './layout-shim.mjs'

const oracle = createRequire(import.meta.url)('../../../pkg/node/idmint.js')

function onBackwards(s) {
  const [k, v] = s.split(':')
  if (k === 'wait' || k === 'logical') return { kind: k, maxMs: BigInt(v) }
  if (k === 'ring') return { kind: k, ticks: Number(v) }
  return { kind: k }
}

function onExhausted(s) {
  const [k, v] = s.split(':')
  return k === 'borrow' ? { kind: k, maxTicks: BigInt(v) } : { kind: k }
}

function sequenceStart(s) {
  const [k, v] = s.split(':')
  return k === 'vibrate' ? { kind: k, maxOffset: Number(v) } : { kind: k }
}

const policyText = (p) =>
  p.kind + (p.maxMs !== undefined ? `:${p.maxMs}` : p.ticks !== undefined ? `:${p.ticks}` : p.maxTicks !== undefined ? `:${p.maxTicks}` : p.maxOffset !== undefined ? `:${p.maxOffset}` : '')

export function nodeArg(layout, v, what) {
  if (typeof v === 'object' && v !== null) return layout.joinNode(v)
  if (typeof v !== 'number' && typeof v !== 'bigint') throw wrong(v, what, 'a bigint, an integer number or an object of node sub-field values')
  return u64Arg(v, what)
}

export function readOptions(o = {}, what = 'options') {
  o ??= {}
  const layout = layoutArg(o.layout ?? 'twitter', `${what}.layout`)
  const node = o.node === undefined || o.node === null ? null : nodeArg(layout, o.node, `${what}.node`)
  // Core SnowflakeOptions::config checks the node's range before the policies are looked at.
  if (node !== null) nodeToBits(layout, node)
  return {
    layout,
    node,
    onBackwards: onBackwards(o.onBackwards ?? 'wait:1000'),
    onExhausted: onExhausted(o.onExhausted ?? 'wait'),
    sequenceStart: sequenceStart(o.sequenceStart ?? 'zero'),
    seed: o.seed === undefined ? 0n : u64Arg(o.seed, `${what}.seed`),
    fenceMs: o.fenceMs === undefined || o.fenceMs === null ? null : u64Arg(o.fenceMs, `${what}.fenceMs`),
  }
}

/** The top-level `key=value` pairs of a canonical config text (a spec layout is in parentheses). */
export function parseConfig(text) {
  const keys = {}
  let depth = 0
  let start = 0
  for (let i = 0; i <= text.length; i++) {
    const c = text[i]
    if (c === '(') depth++
    else if (c === ')') depth--
    else if ((c === ',' && depth === 0) || i === text.length) {
      const item = text.slice(start, i)
      const eq = item.indexOf('=')
      keys[item.slice(0, eq)] = item.slice(eq + 1).replace(/^\((.*)\)$/, '$1')
      start = i + 1
    }
  }
  return {
    layout: parseLayout(keys.layout),
    node: keys.node === undefined ? null : BigInt(keys.node),
    onBackwards: onBackwards(keys.on_backwards),
    onExhausted: onExhausted(keys.on_exhausted),
    sequenceStart: sequenceStart(keys.sequence_start),
    seed: keys.seed === undefined ? 0n : BigInt(keys.seed),
    fenceMs: keys.fence_ms === undefined ? null : BigInt(keys.fence_ms),
  }
}

export function configText(c) {
  return new oracle.AtomicSnowflake({
    layout: c.layout._preset ?? c.layout.spec,
    node: c.node,
    onBackwards: policyText(c.onBackwards),
    onExhausted: policyText(c.onExhausted),
    sequenceStart: policyText(c.sequenceStart),
    seed: c.seed,
    fenceMs: c.fenceMs ?? undefined,
  }).config
}
