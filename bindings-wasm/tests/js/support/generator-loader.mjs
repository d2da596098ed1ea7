// TEST-ONLY module hook (node:module register) for generator.test.mjs. generator.js imports
// ./clock.js, which always resolves to clock-shim.mjs here (a clock the test moves by hand), and
// ./layout.js and ./options.js, which resolve to layout-shim.mjs and options-shim.mjs (on top of
// the oracle) while either real module is missing from js/. The lead deletes the layout and
// options redirections once the real modules are in.
import { existsSync } from 'node:fs'

const js = new URL('../../../js/', import.meta.url)
const real = existsSync(new URL('layout.js', js)) && existsSync(new URL('options.js', js))
const SHIMS = { './clock.js': 'clock-shim.mjs', ...(real ? {} : { './layout.js': 'layout-shim.mjs', './options.js': 'options-shim.mjs' }) }

export async function resolve(specifier, context, next) {
  if (specifier in SHIMS && context.parentURL?.endsWith('/js/generator.js')) {
    return { url: new URL(SHIMS[specifier], import.meta.url).href, shortCircuit: true }
  }
  return next(specifier, context)
}
