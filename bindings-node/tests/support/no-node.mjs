// Every way of building a generator without a node, tried in the current thread. Imported by
// tests/defaults.test.mjs, and run as a worker thread (workerData "report") or a child process
// (argv "report"), where it sends back what each attempt threw.
import { parentPort, workerData } from 'node:worker_threads'

import m from './impl.mjs'

/**
 * `[how, code or "built", message]` for each way; `fromConfig` only where the implementation
 * exports it (tests/defaults.test.mjs counts it, or skips a test that names it).
 */
export function attempts() {
  const ways = [
    ['new Snowflake()', () => new m.Snowflake()],
    ['new Snowflake(null)', () => new m.Snowflake(null)],
    ['new Snowflake({})', () => new m.Snowflake({})],
    ['new Snowflake({ layout })', () => new m.Snowflake({ layout: 'discord' })],
    ['new Snowflake({ node: undefined })', () => new m.Snowflake({ node: undefined })],
    ['new AtomicSnowflake()', () => new m.AtomicSnowflake()],
    ['new AtomicSnowflake({ layout })', () => new m.AtomicSnowflake({ layout: new m.Layout('js53') })],
    ['Snowflake.fromConfig', () => m.Snowflake.fromConfig('type=snowflake,layout=twitter')],
    ['AtomicSnowflake.fromConfig', () => m.AtomicSnowflake.fromConfig('{"type":"snowflake","layout":"leaf"}')],
    ...('fromConfig' in m ? [['fromConfig', () => m.fromConfig('type=snowflake,layout=sonyflake')]] : []),
  ]
  return ways.map(([how, build]) => {
    try {
      build()
      return [how, 'built', '']
    } catch (e) {
      return [how, e.code ?? String(e), e.message]
    }
  })
}

if (parentPort && workerData === 'report') {
  parentPort.postMessage(attempts())
} else if (!parentPort && process.argv[2] === 'report' && process.send) {
  process.send(attempts(), () => process.exit(0))
}
