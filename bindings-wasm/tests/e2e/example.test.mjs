// End-to-end tests of examples/browser/ in headless Chromium: a click mints an ID on the page
// and shows its decoded fields; a second button mints in a Web Worker. The decoded fields are
// checked against the Node flavour of the same package. A screenshot of the page is written to
// $IDMINT_SCREENSHOT_DIR (default: the OS temp directory).
import assert from 'node:assert/strict'
import { mkdirSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, test } from 'node:test'

import { launch, serve } from './support.mjs'
import { LAYOUT } from '../../../examples/browser/layout.js'

const idmint = createRequire(import.meta.url)('../../pkg/node/idmint.js')
const layout = new idmint.Layout(LAYOUT)

describe('examples/browser', { timeout: 120_000 }, () => {
  let server
  let browser
  let page
  const errors = []

  before(async () => {
    server = await serve(['/examples/browser/', '/bindings-wasm/pkg/web/'])
    browser = await launch()
    page = await browser.context.newPage()
    page.on('pageerror', (e) => errors.push(e.message))
    page.on('console', (m) => m.type() === 'error' && errors.push(m.text()))
    await page.goto(`${server.url}/examples/browser/`)
    await page.waitForSelector('body[data-ready="true"]')
  })

  after(async () => {
    await browser?.close()
    await server?.close()
  })

  test('a click mints an ID and shows its decoded fields', async () => {
    const before = Date.now()
    await page.click('#mint')
    await page.waitForSelector('body[data-minted="1"]')
    const after = Date.now()
    const id = BigInt(await page.textContent('#id'))
    const shown = Object.fromEntries(
      await page.$$eval('#fields tr', (rows) => rows.map((r) => [r.dataset.field, r.children[2].textContent]))
    )
    const parts = layout.decompose(id)
    assert.deepEqual(shown, { time: String(parts.time), node: String(parts.node), seq: String(parts.sequence) })
    // The page's clock (performance.timeOrigin + performance.now()) agrees with this process's.
    assert.ok(parts.timestampMs >= BigInt(before - 1000) && parts.timestampMs <= BigInt(after + 1000), `${parts.timestampMs}`)
    assert.equal(await page.textContent('#base62'), idmint.encode(id, 'base62'))
    assert.equal(await page.textContent('#when'), new Date(Number(parts.timestampMs)).toISOString())
    assert.match(await page.textContent('#setup'), /node \d+ \(random\)/)

    await page.click('#mint')
    await page.waitForSelector('body[data-minted="2"]')
    const second = BigInt(await page.textContent('#id'))
    assert.ok(second > id, 'IDs of one generator increase')
    assert.equal(layout.decompose(second).node, parts.node)

    assert.deepEqual(errors, [])
  })

  test('a Web Worker mints with its own generator', async () => {
    await page.click('#mint-worker')
    await page.waitForSelector('body[data-worker="1000"]')
    assert.equal(await page.textContent('#worker-count'), '1,000')
    const first = BigInt(await page.textContent('#worker-first'))
    const last = BigInt(await page.textContent('#worker-last'))
    assert.ok(first < last)
    const node = BigInt((await page.textContent('#worker-node')).split(' ')[0])
    assert.equal(layout.decompose(first).node, node)
    assert.equal(await page.textContent('#worker-distinct'), 'yes')
    assert.deepEqual(errors, [])

    const dir = process.env.IDMINT_SCREENSHOT_DIR ?? tmpdir()
    mkdirSync(dir, { recursive: true })
    const shot = join(dir, 'idmint-example-browser.png')
    await page.screenshot({ path: shot, fullPage: true })
    console.log(`screenshot: ${shot}`)
  })

  test('a leased node is used as given', async () => {
    const leased = await browser.context.newPage()
    try {
      await leased.goto(`${server.url}/examples/browser/?node=4242`)
      await leased.waitForSelector('body[data-ready="true"]')
      await leased.click('#mint')
      await leased.waitForSelector('body[data-minted="1"]')
      const id = BigInt(await leased.textContent('#id'))
      assert.equal(layout.decompose(id).node, 4242n)
      assert.match(await leased.textContent('#setup'), /node 4242 \(leased\)/)
    } finally {
      await leased.close()
    }
  })
})
