// The TypeScript declarations of both JavaScript packages come from one file, idmint.d.ts
// (see its header). This script writes a package's declarations from it and checks that they
// name what the binding really exports.
//
//   node dts.mjs node FILE        write the Node package's declarations to FILE
//   node dts.mjs wasm FILE        write the browser package's (bundler and nodejs flavours)
//   node dts.mjs web FILE         write the --target web flavour's: FILE is wasm-bindgen's own
//                                 declarations, whose loader part (init, initSync) is kept
//   node dts.mjs webjs FILE       write the web flavour's of an entry written in JavaScript
//                                 (bindings-wasm/js/): the API and a loader with nothing to load
//   node dts.mjs names PKG FILE   fail unless the classes, members and functions FILE declares
//                                 (napi-rs's or wasm-bindgen's output, made from the Rust
//                                 declarations) are those PKG's declarations name; a FILE that
//                                 is a module (.js) is imported and its exports read instead
//
// `wasm`, `web`, `webjs` and `names web` take an ENTRY after FILE, one of the browser package's entries
// (ENTRIES below): its declarations are those of the names it exports and of the interfaces
// they use; `full` (the default) is the whole API.
import { readFileSync, writeFileSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'

const source = readFileSync(join(dirname(fileURLToPath(import.meta.url)), 'idmint.d.ts'), 'utf8')
const HEADER = '/* Generated from bindings-js/idmint.d.ts by bindings-js/dts.mjs; do not edit. */\n'
// Exported by hand-registered Node-API callbacks (bindings-node/src/fast.rs) or by index.js,
// which napi-rs does not see.
const NODE_BY_HAND = ['Snowflake.nextId', 'Snowflake.nextIdString', 'Snowflake.nextIdNumber', 'Snowflake.tryNextId', 'uuid7', 'uuid7s', 'ulid', 'typeid']
// Native halves index.js wraps and keeps off the exports (`uuid7s` slices `_uuid7sText`'s string).
const NODE_HIDDEN = ['_uuid7sText', '_closeOpenAllocators']
// The browser package's class written in JavaScript (bindings-wasm/src/leased.js, appended to
// the glue), which wasm-bindgen does not see.
const WEB_BY_GLUE = ['constructor', 'lease', 'nextId', 'nextIdString', 'tryNextId', 'nextIds', 'decode', 'node', 'layout', 'fenceMs', 'closed', 'close']
  .map((m) => `LeasedSnowflake.${m}`)

/** The names each entry of the browser package exports (`full`: everything declared). */
const ENTRIES = {
  full: null,
  snowflake: ['Layout', 'Snowflake', 'AtomicSnowflake', 'randomNode', 'version'],
  formats: [
    'uuid1', 'uuid1At', 'uuid1RandomNode', 'uuid3', 'uuid4', 'uuid5', 'uuid6', 'uuid6At', 'uuid7', 'uuid7At', 'uuid7s',
    'uuid8', 'uuid8FromFields', 'uuid8Fields', 'uuid8Sha256', 'uuid1ToUuid6', 'uuid6ToUuid1', 'parseUuid', 'uuidInfo', 'NIL_UUID', 'MAX_UUID',
    'UuidGenerator', 'Uuid7Generator', 'typeid', 'typeidFromUuid', 'parseTypeId', 'ulid', 'ulidAt', 'ulidFromUuid',
    'parseUlid', 'UlidGenerator', 'parseAny', 'version',
  ],
}

/**
 * `text` (a declaration file's body) cut to the top-level declarations of `keep` and of the
 * interfaces and types those use (each with its doc comment). Fails if a kept declaration uses a
 * class or function the entry does not export.
 */
function only(text, keep) {
  const blocks = []
  let lead = []
  let open = null
  for (const line of text.split('\n')) {
    if (open) {
      open.lines.push(line)
      if (line === '}') open = null
      continue
    }
    const m = /^export (?:declare )?(class|function|interface|type|const) (\w+)/.exec(line)
    if (m) {
      const block = { kind: m[1], name: m[2], lines: [...lead, line] }
      blocks.push(block)
      lead = []
      if (line.endsWith('{')) open = block
    } else if (line === '') {
      if (lead.length) blocks.push({ kind: 'text', lines: lead })
      blocks.push({ kind: 'text', lines: [''] })
      lead = []
    } else lead.push(line)
  }
  if (lead.length) blocks.push({ kind: 'text', lines: lead })
  const byName = new Map()
  for (const b of blocks) if (b.name) byName.set(b.name, [...(byName.get(b.name) ?? []), b])
  for (const n of keep) if (!byName.has(n)) throw new Error(`dts.mjs: ${n} is not declared`)
  const kept = new Set(keep)
  for (let grew = true; grew; ) {
    grew = false
    for (const n of [...kept]) {
      for (const b of byName.get(n)) {
        const body = b.lines.filter((l) => !/^\s*(\/\*\*|\*|\/\/)/.test(l)).join('\n')
        for (const word of new Set(body.match(/\b[A-Z]\w*\b/g) ?? [])) {
          const used = byName.get(word)
          if (!used || kept.has(word)) continue
          if (!used.every((u) => u.kind === 'interface' || u.kind === 'type')) {
            throw new Error(`dts.mjs: ${n} uses ${word}, which the entry does not export`)
          }
          kept.add(word)
          grew = true
        }
      }
    }
  }
  // Doc comments of dropped declarations go with them; so do free comments (section notes).
  const out = blocks.filter((b) => (b.kind === 'text' ? b.lines[0] === '' : kept.has(b.name))).flatMap((b) => b.lines)
  return out.join('\n').replace(/\n{3,}/g, '\n\n').replace(/^\n+/, '')
}

/** The declarations of package `pkg` ('node' or 'web'), of one entry of the browser package. */
function declarations(pkg, entry = 'full') {
  let mode = 'both'
  const out = []
  for (const line of source.split('\n')) {
    const m = /^\/\/ @(node|web|end)$/.exec(line)
    if (m) mode = m[1] === 'end' ? 'both' : m[1]
    else if (mode === 'both' || mode === pkg) out.push(line)
  }
  let body = out.join('\n').replace(/^(\/\/.*\n)+\n*/, '')
  if (!(entry in ENTRIES)) throw new Error(`dts.mjs: unknown entry ${entry} (${Object.keys(ENTRIES).join(', ')})`)
  if (ENTRIES[entry]) body = only(body, ENTRIES[entry])
  return HEADER + '/* eslint-disable */\n\n' + body.replace(/\n{3,}/g, '\n\n')
}

/** `Class.member` and `function` names a declaration file exports. */
function names(text) {
  const found = new Set()
  let cls = null
  // The web flavour's loader (init, initSync) is wasm-bindgen's, not the API.
  const api = text.split('export type InitInput')[0]
  for (const line of api.split('\n')) {
    let m
    if ((m = /^export (?:declare )?class (\w+)/.exec(line))) cls = m[1]
    else if (/^}/.test(line)) cls = null
    else if ((m = /^export (?:declare )?function (\w+)/.exec(line))) found.add(m[1])
    else if (cls && (m = /^\s+(?:private |static |readonly )?(?:get |set )?(\w+)\s*[(:]/.exec(line)) && m[1] !== 'free') found.add(`${cls}.${m[1]}`)
  }
  return found
}

/** The loader of a web-flavour entry written in JavaScript: the contract of the others, nothing to load. */
const JS_LOADER = `export type InitInput = RequestInfo | URL | Response | BufferSource | WebAssembly.Module;

/** Nothing: this entry is JavaScript and loads no WebAssembly. */
export interface InitOutput {}

export type SyncInitInput = BufferSource | WebAssembly.Module;

/** Does nothing (this entry holds no WebAssembly); kept so code written for the other entries works. */
export function initSync(module: { module: SyncInitInput } | SyncInitInput): InitOutput;

/** Does nothing (this entry holds no WebAssembly); kept so code written for the other entries works. */
export default function __wbg_init (module_or_path?: { module_or_path: InitInput | Promise<InitInput> } | InitInput | Promise<InitInput>): Promise<InitOutput>;
`

/** `Class.member` and `function` names module `mod` exports (members starting with `_` are internal). */
function moduleNames(mod) {
  const found = new Set()
  const internal = (n) => n.startsWith('_') || ['length', 'name', 'prototype', 'free'].includes(n)
  // A CommonJS module imports as { default: module.exports, ...what Node's lexer found }.
  const api = { ...(typeof mod.default === 'object' ? mod.default : {}), ...mod }
  for (const [name, value] of Object.entries(api)) {
    if (name === 'default' || name === 'initSync' || typeof value !== 'function') continue
    if (!/^class\b/.test(Function.prototype.toString.call(value))) {
      found.add(name)
      continue
    }
    for (const n of [...Object.getOwnPropertyNames(value), ...Object.getOwnPropertyNames(value.prototype)]) {
      if (!internal(n)) found.add(`${name}.${n}`)
    }
  }
  return found
}

const [mode, pkg, file, entryArg] = process.argv.slice(2)
if (mode === 'node' || mode === 'wasm') {
  writeFileSync(pkg, declarations(mode === 'node' ? 'node' : 'web', file))
} else if (mode === 'web') {
  const generated = readFileSync(pkg, 'utf8')
  const loader = generated.indexOf('export type InitInput')
  if (loader < 0) throw new Error(`${pkg}: no loader declarations (InitInput) found`)
  writeFileSync(pkg, declarations('web', file) + '\n' + generated.slice(loader))
} else if (mode === 'webjs') {
  writeFileSync(pkg, declarations('web', file) + '\n' + JS_LOADER)
} else if (mode === 'names') {
  const entry = entryArg ?? 'full'
  const declared = names(declarations(pkg, entry))
  const exported = file.endsWith('.js') ? moduleNames(await import(pathToFileURL(resolve(file)).href)) : names(readFileSync(file, 'utf8'))
  if (pkg === 'node') NODE_BY_HAND.forEach((n) => exported.add(n))
  if (pkg === 'node') NODE_HIDDEN.forEach((n) => exported.delete(n))
  if (pkg === 'web' && entry === 'full') WEB_BY_GLUE.forEach((n) => exported.add(n))
  const missing = [...declared].filter((n) => !exported.has(n))
  const undeclared = [...exported].filter((n) => !declared.has(n))
  if (missing.length || undeclared.length) {
    console.error(`dts.mjs: bindings-js/idmint.d.ts and the ${pkg} binding disagree`)
    if (missing.length) console.error(`  declared, not exported: ${missing.join(', ')}`)
    if (undeclared.length) console.error(`  exported, not declared: ${undeclared.join(', ')}`)
    process.exit(1)
  }
} else {
  console.error('usage: node dts.mjs node FILE, node dts.mjs wasm|web|webjs FILE [ENTRY], or node dts.mjs names node|web FILE [ENTRY]')
  process.exit(2)
}
