// The child of "a SegmentAllocator open at exit is journaled" (tests/coord.native.mjs), run
// with the arguments URL JOURNAL HOW: opens a SegmentAllocator (step 1000, the journal),
// prints one ID of key `k` and leaves the allocator open as it ends the way HOW says:
// `exit` (process.exit()), `exit1` (process.exit(1)) or `throw` (an uncaught exception).
import m from './impl.mjs'

const [url, journal, how] = process.argv.slice(2)
globalThis.kept = new m.SegmentAllocator(url, { step: 1000, maxStep: 1000, journal })
process.stdout.write(`${globalThis.kept.nextId('k')}\n`)
if (how === 'exit') process.exit()
else if (how === 'exit1') process.exit(1)
else throw new Error('left open on purpose')
