// A module Web Worker with its own idmint generator. Workers do not share memory with the page,
// so this generator needs a node of its own (here a random one).
import init, { Snowflake, Layout, randomNode } from '../../bindings-wasm/pkg/web/idmint.js'
import { LAYOUT } from './layout.js'

const ready = init().then(() => {
  const layout = new Layout(LAYOUT)
  const node = randomNode(layout)
  return { node, gen: new Snowflake({ layout, node, sequenceStart: 'random' }) }
})

self.addEventListener('message', async ({ data }) => {
  try {
    const { node, gen } = await ready
    const ids = gen.nextIds(data.count)
    self.postMessage({ node, ids })
  } catch (e) {
    self.postMessage({ error: { code: e.code, name: e.name, message: e.message } })
  }
})
