// TEST-ONLY stand-in for js/layout.js (helper "layout" writes the real one): the contract's
// functions that options.js imports, on top of the oracle (the wasm build). Only what
// options.test.mjs needs; the lead swaps in the real module (see options-loader.mjs).
import { createRequire } from 'node:module'
import { typeError, coreError } from '../../../js/error.js'
import { wrong } from '../../../js/convert.js'

const oracle = createRequire(import.meta.url)('../../../pkg/node/idmint.js')

export class Layout {
  constructor(spec) {
    this._o = spec instanceof oracle.Layout ? spec : oracle.Layout.parse(spec)
    this._preset = this._o.presetName
  }
  get spec() {
    return this._o.spec
  }
  get nodeNames() {
    return this._o.nodeNames
  }
}

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

export function nodeFromParts(layout, pairs) {
  // Unknown and repeated names in the order given (the oracle's joinNode takes an object,
  // which cannot repeat a name), then the oracle for missing sub-fields and ranges.
  const names = layout.nodeNames
  const seen = new Set()
  for (const [name] of pairs) {
    if (!names.includes(name)) {
      throw coreError('InvalidArgument', { argument: name, reason: 'is not a node sub-field of the layout' })
    }
    if (seen.has(name)) throw coreError('InvalidArgument', { argument: name, reason: 'is given twice' })
    seen.add(name)
  }
  return layout._o.joinNode(Object.fromEntries(pairs))
}
