// Page weight of each entry of the web flavour: what headless Chromium fetches for a page that
// imports the entry without a bundler (`import init, { ... } from ...; await init()`) and
// mints 100,000 IDs (Snowflake IDs; UUID v7 for the formats entry). Every response the page
// requested below /bindings-wasm/pkg/ is gzipped (level 9, as a server would send it) and summed.
//
//   node tests/size/weight.mjs                          a table: each file and each entry's sum
//   node tests/size/weight.mjs --max full=90 ...        also fail when an entry weighs more (KB = 1000 B)
//   node tests/size/weight.mjs --json
//
// Needs the web build (scripts/build.sh) and `npm ci` (playwright-core); Debian's Chromium.
import { gzipSync } from 'node:zlib'
import { parseArgs } from 'node:util'

import { launch, serve } from '../e2e/support.mjs'

const { values: opts } = parseArgs({ options: { max: { type: 'string', multiple: true, default: [] }, json: { type: 'boolean', default: false } } })
const ENTRIES = ['full', 'snowflake', 'formats', 'wasm']
const PKG = '/bindings-wasm/pkg/web/'

const server = await serve(['/bindings-wasm/tests/size/', PKG])
const browser = await launch()
const results = []
try {
  for (const entry of ENTRIES) {
    const page = await browser.context.newPage()
    const files = []
    const bodies = []
    page.on('response', (r) => {
      const path = new URL(r.url()).pathname
      if (path.startsWith(PKG)) bodies.push(r.body().then((b) => files.push({ path: path.slice(PKG.length), raw: b.length, gzip: gzipSync(b, { level: 9 }).length })))
    })
    const failed = new Promise((_, reject) => page.on('pageerror', (e) => reject(new Error(`${entry}: page error: ${e.message}`))))
    await page.goto(`${server.url}/bindings-wasm/tests/size/?entry=${entry}`)
    const minted = await Promise.race([page.waitForFunction(() => window.minted, null, { timeout: 60_000 }).then((h) => h.jsonValue()), failed])
    await Promise.all(bodies)
    await page.close()
    if (minted.unique !== 100_000) throw new Error(`${entry}: ${minted.unique} unique IDs of 100,000`)
    files.sort((a, b) => a.path.localeCompare(b.path))
    const sum = (k) => files.reduce((s, f) => s + f[k], 0)
    results.push({ entry, files, raw: sum('raw'), gzip: sum('gzip'), exports: minted.exports.length })
  }
} finally {
  await browser.close()
  await server.close()
}

if (opts.json) console.log(JSON.stringify(results, null, 2))
else {
  console.log('| entry | file | raw B | gzip -9 B |')
  console.log('|---|---|---:|---:|')
  for (const r of results) {
    for (const f of r.files) console.log(`| ${r.entry} | ${f.path} | ${f.raw} | ${f.gzip} |`)
    console.log(`| **${r.entry}** (${r.exports} exports) | **page total** | **${r.raw}** | **${r.gzip}** |`)
  }
}
let over = 0
for (const m of opts.max) {
  const [entry, kb] = m.split('=')
  const r = results.find((x) => x.entry === entry)
  if (!r || !(Number(kb) > 0)) throw new Error(`--max ${m}: want ENTRY=KB with ENTRY one of ${ENTRIES.join(', ')}`)
  if (r.gzip > Number(kb) * 1000) {
    console.error(`${entry}: ${r.gzip} B gzipped, over the budget of ${kb} KB`)
    over++
  }
}
process.exit(over ? 1 : 0)
