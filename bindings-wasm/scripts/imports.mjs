// Shortens the names of the functions the .wasm imports from wasm-bindgen's glue, in the .wasm
// and in every .js file of its flavour alike:
//
//   node scripts/imports.mjs pkg/web/idmint_bg.wasm
//
// wasm-bindgen names each import `__wbg_<name>_<16 hex digits of a hash>` (and its generic
// adapters `__wbindgen_generic_<16 digits>`), which gzip cannot compress: about 1.1 KB of the
// gzipped module. They become `__w0`, `__w1`, ... Only the import section changes (names are
// plain strings there; nothing else in the module refers to them), and each old name is a whole
// token of the glue, so a token replacement renames the function that implements it. Fails
// rather than write a module and glue that disagree.
import { readFileSync, readdirSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'

const wasmFile = process.argv[2]
const bytes = readFileSync(wasmFile)

function leb(buf, at) {
  let value = 0
  let shift = 0
  for (;;) {
    const b = buf[at++]
    value += (b & 0x7f) * 2 ** shift
    shift += 7
    if (b < 0x80) return [value, at]
  }
}

function uleb(n) {
  const out = []
  do {
    let b = n & 0x7f
    n = Math.floor(n / 128)
    if (n) b |= 0x80
    out.push(b)
  } while (n)
  return Buffer.from(out)
}

const LONG = /^(?:__wbg_\w+_[0-9a-f]{16}|__wbindgen_generic_[0-9a-f]{16})$/
const renamed = new Map()
const parts = [bytes.subarray(0, 8)]
let at = 8
while (at < bytes.length) {
  const id = bytes[at]
  const [size, start] = leb(bytes, at + 1)
  let body = bytes.subarray(start, start + size)
  if (id === 2) {
    let [count, p] = leb(body, 0)
    const out = [uleb(count)]
    for (let i = 0; i < count; i++) {
      let len
      ;[len, p] = leb(body, p)
      const module = body.subarray(p - uleb(len).length, p + len)
      p += len
      ;[len, p] = leb(body, p)
      let name = body.subarray(p, p + len).toString('utf8')
      p += len
      const kind = body[p]
      if (kind !== 0) throw new Error(`${wasmFile}: import ${name} is not a function`)
      const descStart = p
      ;[, p] = leb(body, p + 1)
      if (LONG.test(name)) {
        const short = `__w${renamed.size}`
        renamed.set(name, short)
        name = short
      }
      const n = Buffer.from(name, 'utf8')
      out.push(module, uleb(n.length), n, body.subarray(descStart, p))
    }
    body = Buffer.concat(out)
  }
  parts.push(Buffer.from([id]), uleb(body.length), body)
  at = start + size
}
if (renamed.size < 10) throw new Error(`${wasmFile}: only ${renamed.size} hashed import names; wasm-bindgen changed its naming`)

const dir = dirname(wasmFile)
const found = new Set()
for (const f of readdirSync(dir).filter((f) => f.endsWith('.js'))) {
  const file = join(dir, f)
  let text = readFileSync(file, 'utf8')
  if (/\b__w\d+\b/.test(text)) throw new Error(`${file}: already uses a name of the __wN form`)
  let changed = false
  for (const [long, short] of renamed) {
    const next = text.replace(new RegExp(`\\b${long}\\b`, 'g'), short)
    if (next !== text) {
      changed = true
      found.add(long)
    }
    text = next
  }
  if (changed) writeFileSync(file, text)
}
if (found.size !== renamed.size) throw new Error(`${dir}: ${renamed.size - found.size} renamed imports not found in the glue`)
writeFileSync(wasmFile, Buffer.concat(parts))
