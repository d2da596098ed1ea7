// TEST-ONLY stand-in for js/layout.js (helper "layout" writes the real one): a Layout carrying
// the contract's internal state, computed from the oracle's (the wasm build's) Layout, and the
// contract's functions generator.js and options-shim.mjs use. See generator-loader.mjs.
import { createRequire } from 'node:module'
import { coreError, typeError } from '../../../js/error.js'
import { wrong } from '../../../js/convert.js'

const oracle = createRequire(import.meta.url)('../../../pkg/node/idmint.js')

export class Layout {
  constructor(spec) {
    const o = spec instanceof oracle.Layout ? spec : new oracle.Layout(spec)
    this._o = o
    this._fields = o.fields.map(({ kind, name, bits, shift }) => ({ kind, name, bits, shift }))
    this._epochMs = o.epochMs
    this._tickMs = o.tickMs
    this._width = o.width
    this._nodeBits = o.nodeBits
    this._preset = o.presetName
    this._time = this._fields.find((f) => f.kind === 'time')
    this._seq = this._fields.find((f) => f.kind === 'sequence')
    this._rollback = this._fields.find((f) => f.kind === 'rollback') ?? null
  }
  get spec() {
    return live(this)._o.spec
  }
  free() {
    this._closed = true
  }
  get presetName() {
    return this._o.presetName
  }
  get width() {
    return this._o.width
  }
  get isJsSafe() {
    return this._o.isJsSafe
  }
  get nodeNames() {
    return this._o.nodeNames
  }
  decompose(id) {
    return live(this)._o.decompose(id)
  }
  joinNode(values) {
    return this._o.joinNode(values)
  }
}

function live(l) {
  if (l._closed) throw coreError('Closed', { what: 'Layout' })
  return l
}

/** A live copy of `l` sharing its state (layout.js's `copyLayout`). */
export const copyLayout = (l) => new Layout(l._o)

export const parseLayout = (text) => new Layout(text)

export function layoutArg(v, what) {
  const must = 'a Layout or a layout spec string'
  if (typeof v === 'string') return parseLayout(v)
  if (typeof v === 'object' && v !== null) {
    if (v instanceof Layout) return v
    throw typeError(`${what} must be ${must}; received an object that is not a Layout`)
  }
  throw wrong(v, what, must)
}

// The oracle's compose places the node value under the layout and checks its range.
export const nodeToBits = (layout, node) => layout._o.compose({ node })

export const lifetimeEndMs = (layout) => layout._o.lifetimeEndMs
