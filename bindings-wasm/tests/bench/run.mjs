// Runs the benchmark page (bench.mjs) in headless Chromium and prints a table with ratios.
//
//   node tests/bench/run.mjs [--rounds N] [--round-ms MS] [--json]
//
// Needs the web build (scripts/build.sh) and `npm ci` (esbuild, peers, playwright-core).
import { execFileSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'

import { launch, serve } from '../e2e/support.mjs'

const { values: opts } = parseArgs({
  options: {
    rounds: { type: 'string', default: '15' },
    'round-ms': { type: 'string', default: '40' },
    json: { type: 'boolean', default: false },
  },
})

const here = fileURLToPath(new URL('.', import.meta.url))
const esbuild = fileURLToPath(new URL('../../node_modules/.bin/esbuild', import.meta.url))
execFileSync(esbuild, [`${here}peers.mjs`, '--bundle', '--format=esm', '--platform=browser', '--minify', `--outfile=${here}.build/peers.js`, '--log-level=warning'], { stdio: 'inherit' })

const server = await serve(['/bindings-wasm/tests/bench/', '/bindings-wasm/pkg/web/'])
const browser = await launch()
try {
  const page = await browser.context.newPage()
  const failed = new Promise((_, reject) => page.on('pageerror', (e) => reject(new Error(`page error: ${e.message}`))))
  await page.goto(`${server.url}/bindings-wasm/tests/bench/?rounds=${opts.rounds}&roundMs=${opts['round-ms']}`)
  await Promise.race([page.waitForFunction(() => window.results || null, null, { timeout: 600_000, polling: 500 }), failed])
  const r = await page.evaluate(() => window.results)
  if (opts.json) {
    console.log(JSON.stringify(r, null, 2))
  } else {
    const ns = Object.fromEntries(r.cases.map((c) => [c.name, c.ns]))
    const floor = r.cases[1].ns // floor + one Date.now() read
    const sapphire = ns['@sapphire/snowflake generate()']
    console.log(`${r.userAgent}\n${r.rounds} rounds of >= ${r.roundMs} ms per case, median ns per call (min-max over rounds)\n`)
    console.log('| case | ns/call | min-max | × floor + Date.now() | × @sapphire/snowflake |')
    console.log('|---|---:|---:|---:|---:|')
    for (const c of r.cases) {
      console.log(`| ${c.name} | ${c.ns.toFixed(1)} | ${c.min.toFixed(0)}-${c.max.toFixed(0)} | ${(c.ns / floor).toFixed(2)} | ${(c.ns / sapphire).toFixed(3)} |`)
    }
  }
} finally {
  await browser.close()
  await server.close()
}
