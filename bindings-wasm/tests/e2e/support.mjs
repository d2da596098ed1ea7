// What the browser tests share: a static file server on 127.0.0.1 (random free port) and
// Debian's Chromium driven by playwright-core (never `npx playwright install`).
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { createServer } from 'node:http'
import { tmpdir } from 'node:os'
import { extname, join, normalize, sep } from 'node:path'
import { fileURLToPath } from 'node:url'

import { chromium } from 'playwright-core'

/** The repository root. */
export const root = fileURLToPath(new URL('../../../', import.meta.url))

const TYPES = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.wasm': 'application/wasm',
}

/**
 * Serves the files of `root` below the URL prefixes `allowed` (e.g. `/examples/browser/`) on
 * 127.0.0.1 at a free port. Resolves to `{ url, close }`.
 */
export async function serve(allowed, listenOn = Number(process.env.IDMINT_TEST_PAGE_PORT ?? 0)) {
  const server = createServer(async (req, res) => {
    try {
      let path = decodeURIComponent(new URL(req.url, 'http://x').pathname)
      if (path.endsWith('/')) path += 'index.html'
      const file = normalize(join(root, path))
      const ok = req.method === 'GET' && file.startsWith(root) && allowed.some((p) => path.startsWith(p))
      if (!ok || file.split(sep).includes('..')) {
        res.writeHead(404).end()
        return
      }
      const body = await readFile(file)
      res.writeHead(200, { 'content-type': TYPES[extname(file)] ?? 'application/octet-stream', 'cache-control': 'no-store' })
      res.end(body)
    } catch {
      res.writeHead(404).end()
    }
  })
  await new Promise((resolve, reject) => {
    server.once('error', reject)
    server.listen(listenOn, '127.0.0.1', resolve)
  })
  const { port } = server.address()
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}

const CHROMIUM = process.env.CHROMIUM ?? '/usr/bin/chromium'
const ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
]

/**
 * Launches Chromium with a fresh, empty profile. Resolves to `{ context, close }`.
 * `EXTRA_CHROMIUM_ARGS` (space-separated) adds flags, e.g. `--js-flags=--no-liftoff` when profiling.
 */
export async function launch() {
  const profile = await mkdtemp(join(tmpdir(), 'idmint-chromium-'))
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: [...ARGS, ...(process.env.EXTRA_CHROMIUM_ARGS ? process.env.EXTRA_CHROMIUM_ARGS.split(' ') : [])],
    timeout: 30_000,
  })
  context.setDefaultTimeout(15_000)
  return {
    context,
    close: async () => {
      await context.close().catch(() => {})
      await rm(profile, { recursive: true, force: true })
    },
  }
}
