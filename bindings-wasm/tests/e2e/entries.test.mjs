// Each entry with Snowflake of the web flavour in headless Chromium, in a page and in a module Web
// Worker (tests/e2e/entries/): both mint with their own node and their own clock (the worker has
// its own `performance` and microtask queue). The IDs are checked with the Node flavour of the
// WebAssembly entry: all distinct, each on its minter's node, each timestamp at most a second
// from the page's clock. The JavaScript entries run here as they run in a browser.
import assert from 'node:assert/strict'
import { createRequire } from 'node:module'
import { after, before, describe, test } from 'node:test'

import { launch, serve } from './support.mjs'

const idmint = createRequire(import.meta.url)('../../pkg/node/wasm/idmint.js')
const layout = new idmint.Layout('twitter')

describe('Snowflake entries in a page and a module worker', { timeout: 120_000 }, () => {
  let server
  let browser

  before(async () => {
    // Its own port: the example's tests take IDMINT_TEST_PAGE_PORT (the origin CORS allows).
    server = await serve(['/bindings-wasm/tests/e2e/entries/', '/bindings-wasm/pkg/web/'], 0)
    browser = await launch()
  })

  after(async () => {
    await browser?.close()
    await server?.close()
  })

  for (const entry of ['snowflake', 'full', 'wasm']) {
    test(`${entry}: distinct IDs on each minter's node, at the page's time`, async () => {
      const page = await browser.context.newPage()
      const errors = []
      page.on('pageerror', (e) => errors.push(e.message))
      await page.goto(`${server.url}/bindings-wasm/tests/e2e/entries/?entry=${entry}`)
      const result = await (await page.waitForFunction(() => window.result, null, { timeout: 60_000 })).jsonValue()
      await page.close()
      assert.deepEqual(errors, [])
      const all = [...result.page, ...result.worker]
      assert.equal(new Set(all).size, 20_000, 'every ID distinct across the page and the worker')
      for (const [ids, node] of [[result.page, 1n], [result.worker, 2n]]) {
        for (const id of ids) {
          const p = layout.decompose(id)
          assert.equal(p.node, node, id)
          const skew = Number(p.timestampMs) - result.pageNowMs
          assert.ok(skew <= 1000 && skew >= -60_000, `${id}: ${skew} ms from the page's clock`)
        }
      }
    })
  }
})
