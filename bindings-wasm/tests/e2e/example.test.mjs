// End-to-end tests of examples/browser/ in headless Chromium: the page leases its node from a
// lease service on another origin (the fake of tests/lease/service.mjs, which answers CORS as a
// real one must), or says what to run and falls back to a random node when none answers. A
// click mints an ID on the page and shows its decoded fields; a second button mints in a Web
// Worker, which leases a node of its own. The decoded fields are checked against the Node
// flavour of the same package. A screenshot of the page is written to $IDMINT_SCREENSHOT_DIR
// (default: the OS temp directory).
import assert from 'node:assert/strict'
import { mkdirSync } from 'node:fs'
import { createServer } from 'node:http'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, test } from 'node:test'

import { launch, serve } from './support.mjs'
import { leaseService } from '../lease/service.mjs'
import { LAYOUT } from '../../../examples/browser/layout.js'

const idmint = createRequire(import.meta.url)('../../pkg/node/wasm/idmint.js')
const layout = new idmint.Layout(LAYOUT)

/** A URL on 127.0.0.1 where nothing listens (a port just freed). */
async function nobody() {
  const s = createServer()
  await new Promise((resolve) => s.listen(0, '127.0.0.1', resolve))
  const { port } = s.address()
  await new Promise((resolve) => s.close(resolve))
  return `http://127.0.0.1:${port}`
}

/** A browser's log line about a request that found nothing listening (expected without a service). */
const refused = (text) => /ERR_CONNECTION_REFUSED|Failed to load resource/.test(text)

describe('examples/browser', { timeout: 120_000 }, () => {
  let server
  let browser
  let page
  let nowhere
  const errors = []

  before(async () => {
    server = await serve(['/examples/browser/', '/bindings-wasm/pkg/web/'])
    browser = await launch()
    page = await browser.context.newPage()
    page.on('pageerror', (e) => errors.push(e.message))
    page.on('console', (m) => m.type() === 'error' && !refused(m.text()) && errors.push(m.text()))
    nowhere = await nobody()
    await page.goto(`${server.url}/examples/browser/?service=${encodeURIComponent(nowhere)}`)
    await page.waitForSelector('body[data-ready="true"]')
  })

  after(async () => {
    await browser?.close()
    await server?.close()
  })

  test('without a lease service the page says what to run and mints with a random node', async () => {
    assert.equal(await page.getAttribute('body', 'data-node'), 'random')
    assert.equal(await page.isVisible('#no-service'), true)
    assert.equal(await page.isVisible('#lease'), false)
    const note = await page.textContent('#no-service')
    assert.match(note, /idmint serve/)
    assert.ok(note.includes(nowhere), note)
    assert.match(note, /unreachable/)
    assert.equal(await page.inputValue('#service'), nowhere)
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
    await page.screenshot({ path: join(dir, 'idmint-example-browser-random.png'), fullPage: true })
  })

  test('with a lease service on another origin, the page and its worker lease nodes of their own', async () => {
    const svc = await leaseService({ nodes: 1 << 14 })
    const leased = await browser.context.newPage()
    leased.on('pageerror', (e) => errors.push(e.message))
    leased.on('console', (m) => m.type() === 'error' && errors.push(m.text()))
    try {
      const fence = Date.now() - 60_000
      svc.records.set(0, fence) // node 0 was used a minute ago
      await leased.goto(`${server.url}/examples/browser/?service=${encodeURIComponent(svc.url)}`)
      await leased.waitForSelector('body[data-ready="true"]')
      assert.equal(await leased.getAttribute('body', 'data-node'), 'leased')
      assert.equal(await leased.isVisible('#no-service'), false)
      assert.equal(await leased.textContent('#lease-node'), '0')
      assert.equal(await leased.textContent('#lease-namespace'), 'example')
      assert.equal(await leased.textContent('#lease-fence'), new Date(fence).toISOString())
      assert.match(await leased.textContent('#lease-expires'), /^\d+\.\d s unless renewed$/)
      assert.match(await leased.textContent('#setup'), /node 0 \(leased\)/)

      // The grant request came from the page's origin, after a CORS preflight.
      const [grant] = svc.requests('/v1/leases')
      assert.equal(grant.headers.origin, server.url)
      const preflight = svc.log.find((e) => e.method === 'OPTIONS' && e.path === '/v1/leases')
      assert.equal(preflight?.headers['access-control-request-method'], 'POST')
      assert.match(preflight.headers['access-control-request-headers'], /content-type/)
      assert.deepEqual({ namespace: grant.body.namespace, layout: grant.body.layout }, { namespace: 'example', layout: layout.spec })

      await leased.click('#mint')
      await leased.waitForSelector('body[data-minted="1"]')
      const id = BigInt(await leased.textContent('#id'))
      assert.equal(layout.decompose(id).node, 0n)

      await leased.click('#mint-worker')
      await leased.waitForSelector('body[data-worker="1000"]')
      assert.equal(await leased.textContent('#worker-node'), '1 (leased, by the worker)')
      const first = BigInt(await leased.textContent('#worker-first'))
      assert.equal(layout.decompose(first).node, 1n)
      assert.equal(svc.requests('/v1/leases').length, 2)
      await leased.screenshot({ path: join(process.env.IDMINT_SCREENSHOT_DIR ?? tmpdir(), 'idmint-example-browser.png'), fullPage: true })

      // Leaving the page gives the node back.
      await leased.goto('about:blank')
      const deadline = Date.now() + 5000
      while (svc.requests('/v1/leases/release').length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20))
      const [release] = svc.requests('/v1/leases/release')
      assert.deepEqual(release?.body, { lease: 'lease-1', issued_up_to_ms: Number(layout.timestampMs(id)) })
      assert.deepEqual(errors, [])
    } finally {
      await leased.close()
      await svc.close()
    }
  })

  test("with idmint serve, the page leases from it and the service's monitor shows the lease", async () => {
    const url = process.env.IDMINT_TEST_SERVICE_URL
    assert.ok(url, 'IDMINT_TEST_SERVICE_URL names a running idmint serve (test.sh starts one)')
    const leased = await browser.context.newPage()
    leased.on('pageerror', (e) => errors.push(e.message))
    leased.on('console', (m) => m.type() === 'error' && errors.push(m.text()))
    try {
      await leased.goto(`${server.url}/examples/browser/?service=${encodeURIComponent(url)}`)
      await leased.waitForSelector('body[data-ready="true"]')
      assert.equal(await leased.getAttribute('body', 'data-node'), 'leased')
      const node = BigInt(await leased.textContent('#lease-node'))
      await leased.click('#mint')
      await leased.waitForSelector('body[data-minted="1"]')
      const id = BigInt(await leased.textContent('#id'))
      assert.equal(layout.decompose(id).node, node)
      // The service's monitor lists the page's lease, and its page shows it.
      const monitor = await (await fetch(`${url}/v1/monitor`)).json()
      const mine = monitor.client_leases.filter((l) => l.namespace === 'example' && BigInt(l.node) === node)
      assert.equal(mine.length, 1, JSON.stringify(monitor.client_leases))
      assert.ok(mine[0].bound_ms >= Number(layout.timestampMs(id)), 'the recorded bound covers the ID')
      const page = await (await fetch(`${url}/cache`)).text()
      assert.match(page, /<td>example<\/td>/)
      assert.deepEqual(errors, [])
    } finally {
      await leased.close()
    }
  })
})
