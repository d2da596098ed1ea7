// TEST-ONLY module hook (node:module register) for generator.test.mjs: generator.js's import of
// ./clock.js resolves to clock-shim.mjs here, a clock the test moves by hand.
const SHIMS = { './clock.js': 'clock-shim.mjs' }

export async function resolve(specifier, context, next) {
  if (specifier in SHIMS && context.parentURL?.endsWith('/js/generator.js')) {
    return { url: new URL(SHIMS[specifier], import.meta.url).href, shortCircuit: true }
  }
  return next(specifier, context)
}
