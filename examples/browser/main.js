// Mints IDs on the page and in a Web Worker with idmint-web (the `--target web` build).
//
// Node assignment, the part every client-side ID scheme has to get right: two generators with
// the same node can mint the same ID. The page leases its node from an idmint lease service
// (`idmint serve`, http://127.0.0.1:7600 unless `?service=URL` says otherwise) with
// LeasedSnowflake, which renews the lease in the background and stops minting before it could
// run out; the worker leases a node of its own. When no service answers, the page says what to
// run and falls back to a random node (probabilistic uniqueness; see bindings-wasm/README.md).
import init, { LeasedSnowflake, Snowflake, Layout, randomNode, encode } from '../../bindings-wasm/pkg/web/idmint.js'
import { LAYOUT } from './layout.js'

const $ = (id) => document.getElementById(id)

function fail(e) {
  $('error').hidden = false
  $('error').textContent = `${e.code ?? e.name}: ${e.message}`
}

/** A generator on a node leased from `service`, or on a random node (with why) if that fails. */
async function generator(layout, service) {
  try {
    return { gen: await LeasedSnowflake.lease(service, { layout, namespace: 'example' }) }
  } catch (e) {
    const gen = new Snowflake({ layout, node: randomNode(layout), sequenceStart: 'random' })
    return { gen, why: e.code === 'ERR_STORE_UNAVAILABLE' ? e.reason : `${e.code}: ${e.message}` }
  }
}

/** Shows the lease's state; called every second, so renewals show as the deadline moves on. */
function showLease(gen) {
  const lease = gen.lease
  const at = (ms) => (ms === null ? 'none (a node never used)' : new Date(Number(ms)).toISOString())
  $('lease-node').textContent = String(lease.node)
  $('lease-namespace').textContent = lease.namespace
  $('lease-fence').textContent = at(lease.fenceMs)
  $('lease-bound').textContent = at(lease.boundMs)
  $('lease-expires').textContent =
    lease.expiresInMs === null ? 'stopped: the service says the lease is gone' : `${(lease.expiresInMs / 1000).toFixed(1)} s unless renewed`
  $('lease').hidden = false
}

try {
  await init()
  const layout = new Layout(LAYOUT)
  const service = new URLSearchParams(location.search).get('service') ?? $('service').value
  $('service').value = service
  const { gen, why } = await generator(layout, service)
  const leased = why === undefined
  if (leased) {
    showLease(gen)
    setInterval(() => gen.closed || showLease(gen), 1000)
    // Gives the node back with its last issued time; if the page goes before the request
    // does, the service frees the node when the lease runs out.
    addEventListener('pagehide', () => gen.close().catch(() => {}))
  } else {
    $('no-service-url').textContent = service
    $('no-service-why').textContent = why
    $('no-service').hidden = false
  }
  $('setup').textContent =
    `Layout ${layout.spec} — node ${gen.node} (${leased ? 'leased' : 'random'}), ` +
    `${layout.capacityPerSecond.toLocaleString('en')} IDs/s per node until ${layout.lifetimeEnd.toISOString().slice(0, 10)}.`
  document.body.dataset.node = leased ? 'leased' : 'random'

  const minted = new Set()
  $('mint').addEventListener('click', () => {
    try {
      const id = gen.nextId()
      minted.add(id)
      const parts = gen.decode(id)
      $('id').textContent = id.toString()
      $('base62').textContent = encode(id, 'base62')
      $('when').textContent = new Date(Number(parts.timestampMs)).toISOString()
      const values = { time: parts.time, seq: parts.sequence, ...parts.nodeFields }
      $('fields').replaceChildren(
        ...layout.fields.map((f) => {
          const tr = document.createElement('tr')
          for (const text of [f.name, String(f.bits), String(values[f.name] ?? parts.rollback)]) {
            const td = document.createElement('td')
            td.textContent = text
            tr.append(td)
          }
          tr.dataset.field = f.name
          return tr
        })
      )
      $('result').hidden = false
      document.body.dataset.minted = String(minted.size)
    } catch (e) {
      fail(e)
    }
  })

  const worker = new Worker(new URL('./worker.js', import.meta.url), { type: 'module' })
  worker.addEventListener('message', ({ data }) => {
    if (data.error) return fail(data.error)
    const ids = data.ids // a BigUint64Array, structured-cloned from the worker
    const clash = Array.from(ids).some((id) => minted.has(id))
    $('worker-count').textContent = ids.length.toLocaleString('en')
    $('worker-node').textContent = `${data.node} (${data.leased ? 'leased' : 'random'}, by the worker)`
    $('worker-first').textContent = ids[0].toString()
    $('worker-last').textContent = ids[ids.length - 1].toString()
    $('worker-distinct').textContent = clash ? 'no' : 'yes'
    $('worker-result').hidden = false
    document.body.dataset.worker = String(ids.length)
  })
  worker.addEventListener('error', (e) => fail({ name: 'WorkerError', message: e.message }))
  // The worker leases from the same service, if the page could.
  $('mint-worker').addEventListener('click', () => worker.postMessage({ count: 1000, service: leased ? service : null }))

  $('mint').disabled = false
  $('mint-worker').disabled = false
  document.body.dataset.ready = 'true'
} catch (e) {
  fail(e)
}
