// Post-processes wasm-bindgen's JavaScript glue in place (the file that holds the classes), where
// Rust declarations cannot say what the package needs:
//
// 1. Receiver check. wasm-bindgen passes `this.__wbg_ptr` to Rust (after `retptr`, the address
//    of the result, for methods that return a `Result` or a string) without checking that `this`
//    is an instance of the method's class, so `Snowflake.prototype.nextId.call(layout)` would
//    hand a Layout's memory to the Snowflake code (type confusion inside the module's memory),
//    and `.call({})` fails with a bare "null pointer passed to rust". Every read of the pointer
//    for a call (and for `free`) goes through `__idmintThis(this, Class)` instead, which throws
//    a `TypeError` with code `ERR_INVALID_ARG_TYPE` for anything that is not an instance. A call
//    on an instance already freed (`free()`, or the end of a `using` block) throws an `Error`
//    with code `ERR_CLOSED` and `what` (the core's `Closed`: "Layout is closed"), where
//    wasm-bindgen's glue threw a codeless "null pointer passed to rust"; a second `free()` does
//    nothing.
//
// 2. Own per-ID methods. The Node package gives each `Snowflake` (not subclass instances) its
//    own `nextId`, `nextIdString`, `nextIdNumber` and `tryNextId`, so a detached
//    `const next = gen.nextId; next()` still mints from its generator. Here they are copies of
//    the prototype methods' bodies closed over the object (`__idmintOwn`), defined
//    (non-enumerable) when it is created: their receiver is known, so they skip the check of
//    item 1, about 8 of the 39 ns of a `nextId()` in Chromium.
//
// 3. Errors of the per-ID methods. `nextId`, `tryNextId`, `nextIdNumber` and `nextIdString`
//    return plain values from Rust, because a `Result` crosses as a multi-value array (an
//    allocation per call). When one fails, Rust parks the exception and returns a sentinel
//    (0n, -1, undefined; see src/errors.rs `stash`); the glue then takes the exception with
//    `_idmintTakeError()` and throws it. A valid ID 0 finds nothing parked and is returned.
//
// 4. `__idmintUuidText(a, b, c, d)`, which src/convert.rs imports by that global name: spells a
//    UUID out from four 32-bit words with a table, as the `uuid` npm package does. A string made
//    in Rust would cross through a TextDecoder (about half a microsecond in Chromium).
//
// 5. `LeasedSnowflake`, a class written in JavaScript (src/leased.js) on the internal exports
//    `__idmintLeaseRequest`, `__idmintLeaseGrant` and `__idmintLeaseWindow` (src/leased.rs):
//    appended without its comment lines (they are for this repository; the bundler and Node
//    flavours ship the glue as it is), with the export its flavour needs (the bundler flavour's
//    entry module lists its exports: it gets one more).
//
// 6. The constants `NIL_UUID` and `MAX_UUID` (wasm-bindgen exports no constants), with the export
//    its flavour needs, as for `LeasedSnowflake`.
//
// 7. Internal names stay out of the package's exports: the benchmark floors (`_benchFloor`,
//    `_benchFloorClock`, `_benchFloorDate`, `_benchFloorPrecise`), `_idmintTakeError`,
//    `__idmintLeaseRequest`, `__idmintLeaseGrant` and the class `__idmintLeaseWindow`.
//    wasm-bindgen exports every Rust export under its name; here they become local to the glue
//    (the code that uses them is in the same file), and the floors are reachable for the
//    benchmark page only as `Snowflake[Symbol.for('idmint.bench')]` (as the Node package keeps
//    its floor under a symbol).
//
// The script fails when the glue does not have the expected shape (a newer wasm-bindgen), rather
// than emit a file with unchecked methods.
//
//   node scripts/glue.mjs GLUE
//
// The module is the package's WebAssembly entry (`idmint-web/wasm`, scripts/build.sh); the other
// entries are JavaScript (js/) and have no glue.
import { readFileSync, writeFileSync } from 'node:fs'
import { basename } from 'node:path'

const file = process.argv[2]
/** The fewest receiver reads a glue of the whole API has. */
const MIN_CHECKED = 50
const lines = readFileSync(file, 'utf8').split('\n')

const RECEIVER = `
/** The wasm pointer of \`obj\` if it is a live-or-freed instance of \`cls\`; a TypeError otherwise. */
function __idmintThis(obj, cls) {
    if (obj instanceof cls && typeof obj.__wbg_ptr === 'number') return obj.__wbg_ptr;
    return __idmintNotInstance(cls);
}

/** Throws the TypeError of a method of \`cls\` called on an object that is not one. */
function __idmintNotInstance(cls) {
    const e = new TypeError(\`\${cls.name} method called on an object that is not a \${cls.name}\`);
    e.code = 'ERR_INVALID_ARG_TYPE';
    throw e;
}

/** \`__idmintThis\` for a call: the pointer of a live instance; ERR_CLOSED once it was freed. */
function __idmintLive(obj, cls) {
    const ptr = __idmintThis(obj, cls);
    return ptr === 0 ? __idmintClosed(cls) : ptr;
}

/** Throws the core's \`Closed\` error for a freed instance of \`cls\`. */
function __idmintClosed(cls) {
    const e = new Error(\`\${cls.name} is closed\`);
    e.code = 'ERR_CLOSED';
    e.what = cls.name;
    throw e;
}
`
const UUID_TEXT = `
const __idmintHex = Array.from({ length: 256 }, (_, i) => (i + 0x100).toString(16).slice(1));

/** The lower-case hyphenated UUID whose bytes are the big-endian words a, b, c, d. */
function __idmintUuidText(a, b, c, d) {
    const h = __idmintHex;
    return h[a >>> 24] + h[(a >>> 16) & 255] + h[(a >>> 8) & 255] + h[a & 255] + '-' +
        h[b >>> 24] + h[(b >>> 16) & 255] + '-' + h[(b >>> 8) & 255] + h[b & 255] + '-' +
        h[c >>> 24] + h[(c >>> 16) & 255] + '-' + h[(c >>> 8) & 255] + h[c & 255] +
        h[d >>> 24] + h[(d >>> 16) & 255] + h[(d >>> 8) & 255] + h[d & 255];
}
`
const SNOWFLAKE = `
/** Throws the exception a per-ID method parked, if it returned its sentinel for a failure. */
function __idmintRethrow() {
    const e = _idmintTakeError();
    if (e !== undefined) throw e;
}

/** Gives a Snowflake (not a subclass instance) its own per-ID methods. */
function __idmintAdopt(obj) {
    if (Object.getPrototypeOf(obj) !== Snowflake.prototype) return;
    const own = __idmintOwn(obj);
    for (const name of ['nextId', 'nextIdString', 'nextIdNumber', 'tryNextId']) {
        Object.defineProperty(obj, name, { value: own[name], writable: true, configurable: true });
    }
}
`

/** Exports of the module that are not the package's (item 7 above). */
const INTERNAL = [
  ...['_benchFloor', '_benchFloorClock', '_benchFloorDate', '_benchFloorPrecise', '_idmintTakeError'],
  ...['__idmintLeaseRequest', '__idmintLeaseGrant', '__idmintLeaseWindow'],
]
const HELPERS = RECEIVER + UUID_TEXT + SNOWFLAKE
const BENCH = `
Object.defineProperty(Snowflake, Symbol.for('idmint.bench'), {
    value: Object.freeze({ floor: _benchFloor, floorClock: _benchFloorClock, floorDate: _benchFloorDate, floorPrecise: _benchFloorPrecise }),
});
`

/** Sentinels of the per-ID methods of Snowflake (what Rust returns for a parked error). */
const SENTINELS = { nextId: '0n', tryNextId: '0n', nextIdNumber: '-1', nextIdString: 'undefined' }

let cls = null
let method = null
const unexported = new Set()
let checked = 0
let freed = 0
let adopted = 0
let rethrown = 0
const out = []
for (let line of lines) {
  const internal = /^export (?:function|class) (\w+)\b/.exec(line)
  if (internal && INTERNAL.includes(internal[1])) {
    line = line.slice('export '.length)
    unexported.add(internal[1])
  }
  const assigned = /^exports\.(\w+) = (\w+);$/.exec(line)
  if (assigned && assigned[1] === assigned[2] && INTERNAL.includes(assigned[1])) {
    unexported.add(assigned[1])
    continue
  }
  const open = /^(?:export )?class (\w+) \{$/.exec(line)
  if (open) cls = open[1]
  else if (line === '}') cls = null
  const m = /^    (\w+)\(\) \{$/.exec(line)
  if (m) method = cls === 'Snowflake' && m[1] in SENTINELS ? m[1] : null
  else if (line === '    }') method = null
  let l = line
  if (method && /^\s+return ret;$|^\s+return BigInt\.asUintN\(64, ret\);$/.test(line)) {
    out.push(`        if (ret === ${SENTINELS[method]}) __idmintRethrow();`)
    rethrown++
    method = null
  } else if (method && /^\s+return takeObject\(ret\);$/.test(line)) {
    // A JavaScript value held in the glue's heap (no reference types): taken out first.
    out.push('        const value = takeObject(ret);')
    out.push(`        if (value === ${SENTINELS[method]}) __idmintRethrow();`)
    l = '        return value;'
    rethrown++
    method = null
  }
  if (cls) {
    if (/wasm\.\w+\((?:retptr, )?this\.__wbg_ptr\b/.test(l)) {
      l = l.replace(/(wasm\.\w+\((?:retptr, )?)this\.__wbg_ptr\b/, `$1__idmintLive(this, ${cls})`)
      checked++
    } else if (/^\s*const ptr = this\.__wbg_ptr;$/.test(l)) {
      l = l.replace('this.__wbg_ptr', `__idmintThis(this, ${cls})`)
      checked++
    }
  }
  out.push(l)
  if (cls && /^\s*const ptr = this\.__destroy_into_raw\(\);$/.test(l)) {
    // free() of an instance already freed: nothing to release.
    out.push('        if (ptr === 0) return;')
    freed++
  }
  if (cls === 'Snowflake') {
    const reg = /^(\s*)SnowflakeFinalization\.register\((this|obj), /.exec(l)
    if (reg) {
      out.push(`${reg[1]}__idmintAdopt(${reg[2]});`)
      adopted++
    }
  }
}

/**
 * `__idmintOwn(obj)`: the per-ID methods of the Snowflake class as patched above, with the
 * receiver check replaced by `obj`'s pointer (item 2).
 */
function ownMethods(text) {
  const start = text.search(/^(?:export )?class Snowflake \{$/m)
  const end = text.indexOf('\n}\n', start)
  if (start < 0 || end < 0) throw new Error(`${file}: class Snowflake not found`)
  const body = text.slice(start, end)
  const methods = Object.keys(SENTINELS).map((name) => {
    const m = new RegExp(`^    ${name}\\(\\) \\{\\n([\\s\\S]*?)\\n    \\}$`, 'm').exec(body)
    if (!m) throw new Error(`${file}: Snowflake.${name} not found`)
    const own = m[1].split('__idmintLive(this, Snowflake)').join('(obj.__wbg_ptr || __idmintClosed(Snowflake))')
    if (own === m[1] || /\bthis\b/.test(own)) throw new Error(`${file}: Snowflake.${name} reads its receiver in another way`)
    return `        ${name}() {\n${own.replace(/^/gm, '    ')}\n        },`
  })
  return `
/** The per-ID methods of one Snowflake: the prototype's, with the receiver known (see __idmintAdopt). */
function __idmintOwn(obj) {
    return {
${methods.join('\n')}
    };
}
`
}

if (unexported.size !== INTERNAL.length) {
  throw new Error(`${file}: internal exports found: ${[...unexported].join(', ') || 'none'}; expected ${INTERNAL.join(', ')}`)
}
const text = out.join('\n')
const unchecked = text.match(/wasm\.\w+\((?:retptr, )?this\.__wbg_ptr\b/g)
if (unchecked) throw new Error(`${file}: ${unchecked.length} method calls outside a recognised class`)
if (checked < MIN_CHECKED) throw new Error(`${file}: only ${checked} receiver reads found; the glue changed shape`)
const classes = (text.match(/^(?:export )?class \w+ \{$/gm) ?? []).length
if (freed !== classes) throw new Error(`${file}: ${freed} free() methods patched for ${classes} classes`)
const expected = { adopted: 2, rethrown: Object.keys(SENTINELS).length }
if (adopted !== expected.adopted) throw new Error(`${file}: Snowflake objects are created in ${adopted} places, expected ${expected.adopted}`)
if (rethrown !== expected.rethrown) throw new Error(`${file}: ${rethrown} per-ID methods patched, expected ${expected.rethrown}`)
if (!/^(?:export )?function _idmintTakeError\(/m.test(text)) throw new Error(`${file}: _idmintTakeError is missing`)
if (!/[^\w]__idmintUuidText\(/.test(text)) throw new Error(`${file}: __idmintUuidText is not called; the import changed shape`)
const esm = /^export (?:class|function) \w+/m.test(text)
if (!esm && !/^exports\.(\w+) = \1;$/m.test(text)) throw new Error(`${file}: neither an ES module nor CommonJS`)
if (!/^(?:export )?class __idmintLeaseWindow \{$/m.test(text)) throw new Error(`${file}: class __idmintLeaseWindow is missing`)
const leased = readFileSync(new URL('../src/leased.js', import.meta.url), 'utf8')
  .replace(/^\s*\/\*\*[\s\S]*?\*\/\n/gm, '')
  .replace(/^\s*\/\/.*\n/gm, '')
const CONSTANTS = [
  ['NIL_UUID', '00000000-0000-0000-0000-000000000000'],
  ['MAX_UUID', 'ffffffff-ffff-ffff-ffff-ffffffffffff'],
]
const constants = CONSTANTS.map(([k, v]) => (esm ? `export const ${k} = '${v}';\n` : `exports.${k} = '${v}';\n`)).join('')
const exported = esm ? 'export { LeasedSnowflake };\n' : 'exports.LeasedSnowflake = LeasedSnowflake;\n'
writeFileSync(file, text.replace(/\n*$/, '\n') + HELPERS + ownMethods(text) + BENCH + '\n' + leased + exported + constants)
if (file.endsWith('_bg.js')) {
  const entry = file.replace(/_bg\.js$/, '.js')
  const from = `"./${basename(file)}"`
  const js = readFileSync(entry, 'utf8')
  if (!js.includes(`} from ${from};`)) throw new Error(`${entry}: no export list from ${from}`)
  const names = ['LeasedSnowflake', ...CONSTANTS.map(([k]) => k)].join(', ')
  // The entry lists the glue's exports by name: the internal ones leave the list.
  let listed = 0
  const kept = js.replace(/^export \{\n([^}]*)\n\} from /m, (all, list) => {
    const keep = list.split(',').map((n) => n.trim()).filter((n) => n && !INTERNAL.includes(n))
    listed = list.split(',').length - keep.length
    return `export {\n    ${keep.join(', ')}\n} from `
  })
  if (listed !== INTERNAL.length) throw new Error(`${entry}: ${listed} internal names in the export list, expected ${INTERNAL.length}`)
  writeFileSync(entry, kept.replace(/\n*$/, '\n') + (names ? `export { ${names} } from ${from};\n` : ''))
}
