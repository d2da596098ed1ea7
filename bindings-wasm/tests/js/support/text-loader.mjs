// TEST-ONLY module hook (node:module register) for text.test.mjs: while js/uuid.js does not
// exist yet (helper "uuid" writes it), the text modules' import of ./uuid.js resolves to
// uuid-shim.mjs. Once js/uuid.js exists, the real module is used.
import { existsSync } from 'node:fs'
import { fileURLToPath } from 'node:url'

const REAL = new URL('../../../js/uuid.js', import.meta.url)

export async function resolve(specifier, context, next) {
  if (specifier === './uuid.js' && context.parentURL?.includes('/js/') && !existsSync(fileURLToPath(REAL))) {
    return { url: new URL('uuid-shim.mjs', import.meta.url).href, shortCircuit: true }
  }
  return next(specifier, context)
}
