// A module Web Worker with its own idmint generator. Workers do not share memory with the page,
// so this generator needs a node of its own: leased from the page's lease service when the page
// got one, else random.
import init, { LeasedSnowflake, Snowflake, Layout, randomNode } from '../../bindings-wasm/pkg/web/idmint.js'
import { LAYOUT } from './layout.js'

let ready = null

async function generator(service) {
  await init()
  const layout = new Layout(LAYOUT)
  if (service !== null) return { gen: await LeasedSnowflake.lease(service, { layout, namespace: 'example' }), leased: true }
  return { gen: new Snowflake({ layout, node: randomNode(layout), sequenceStart: 'random' }), leased: false }
}

self.addEventListener('message', async ({ data }) => {
  try {
    ready ??= generator(data.service)
    const { gen, leased } = await ready
    const ids = gen.nextIds(data.count)
    self.postMessage({ node: gen.node, leased, ids })
  } catch (e) {
    self.postMessage({ error: { code: e.code, name: e.name, message: e.message } })
  }
})
