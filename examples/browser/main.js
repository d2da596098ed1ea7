// Mints IDs on the page and in a Web Worker with idmint-web (the `--target web` build).
//
// Node assignment, the part every client-side ID scheme has to get right: two generators with
// the same node can mint the same ID. Here each context draws a random node (probabilistic
// uniqueness; see bindings-wasm/README.md for the odds); a real app that needs guaranteed
// uniqueness passes a node leased from its server instead, e.g. `?node=123` below stands in for
// `await fetch('/api/id-lease')`.
import init, { Snowflake, Layout, randomNode, encode } from '../../bindings-wasm/pkg/web/idmint.js'
import { LAYOUT } from './layout.js'

const $ = (id) => document.getElementById(id)

function fail(e) {
  $('error').hidden = false
  $('error').textContent = `${e.code ?? e.name}: ${e.message}`
}

try {
  await init()
  const layout = new Layout(LAYOUT)
  const leased = new URLSearchParams(location.search).get('node')
  const node = leased === null ? randomNode(layout) : BigInt(leased)
  const gen = new Snowflake({ layout, node, sequenceStart: 'random' })
  $('setup').textContent =
    `Layout ${layout.spec} — node ${node} (${leased === null ? 'random' : 'leased'}), ` +
    `${layout.capacityPerSecond.toLocaleString('en')} IDs/s per node until ${layout.lifetimeEnd.toISOString().slice(0, 10)}.`

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
    $('worker-node').textContent = `${data.node} (random, drawn in the worker)`
    $('worker-first').textContent = ids[0].toString()
    $('worker-last').textContent = ids[ids.length - 1].toString()
    $('worker-distinct').textContent = clash ? 'no' : 'yes'
    $('worker-result').hidden = false
    document.body.dataset.worker = String(ids.length)
  })
  worker.addEventListener('error', (e) => fail({ name: 'WorkerError', message: e.message }))
  $('mint-worker').addEventListener('click', () => worker.postMessage({ count: 1000 }))

  $('mint').disabled = false
  $('mint-worker').disabled = false
  document.body.dataset.ready = 'true'
} catch (e) {
  fail(e)
}
