// TEST-ONLY module hook (node:module register): while helper "layout" writes js/layout.js,
// options.js's `import ... from './layout.js'` resolves to layout-shim.mjs. The lead deletes
// this file and its register() call in options.test.mjs once the real layout.js is in.
export async function resolve(specifier, context, next) {
  if (specifier === './layout.js' && context.parentURL?.endsWith('/js/options.js')) {
    return { url: new URL('./layout-shim.mjs', import.meta.url).href, shortCircuit: true }
  }
  return next(specifier, context)
}
