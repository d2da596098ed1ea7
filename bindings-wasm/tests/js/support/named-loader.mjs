// TEST-ONLY module hook (node:module register) for named.test.mjs: while js/uuid.js does not
// exist yet (helper "uuid" writes it), named.js's import of ./uuid.js resolves to uuid-shim.mjs,
// the UUID cores on top of the oracle. Once js/uuid.js exists this hook changes nothing.
import { existsSync } from 'node:fs'

const REAL = new URL('../../../js/uuid.js', import.meta.url)

export async function resolve(specifier, context, next) {
  if (specifier === './uuid.js' && context.parentURL?.endsWith('/js/named.js') && !existsSync(REAL)) {
    return { url: new URL('uuid-shim.mjs', import.meta.url).href, shortCircuit: true }
  }
  return next(specifier, context)
}
