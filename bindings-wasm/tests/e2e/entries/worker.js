// The worker half of index.html: the same entry, node 2, 10,000 IDs back as decimal strings.
const entry = new URL(self.location.href).searchParams.get('entry')
const path = entry === 'full' ? '../../../pkg/web/idmint.js' : `../../../pkg/web/${entry}/idmint.js`
const { default: init, Snowflake } = await import(path)
await init()
const gen = new Snowflake({ layout: 'twitter', node: 2 })
self.postMessage(Array.from({ length: 10_000 }, () => gen.nextIdString()))
