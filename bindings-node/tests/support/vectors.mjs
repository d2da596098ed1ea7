// The shared JSON test vectors (../../../vectors, or IDMINT_VECTORS).
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

export const vectorsDir =
  process.env.IDMINT_VECTORS ?? fileURLToPath(new URL('../../../vectors/', import.meta.url))

/** The parsed vector file `name` (e.g. `layouts.json`). */
export function vector(name) {
  return JSON.parse(readFileSync(join(vectorsDir, name), 'utf8'))
}

/** Every vector file's name. */
export function vectorFiles() {
  return readdirSync(vectorsDir)
    .filter((f) => f.endsWith('.json'))
    .sort()
}
