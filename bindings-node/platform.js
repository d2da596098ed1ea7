'use strict'
// The file names the native addon may have on this platform, most likely first:
// idmint.<platform>-<arch>[-<abi>].node, as `napi build --platform` names them.
// Shared by index.js (which loads the first that exists) and scripts/install.js (which builds
// the first when none exists).

function candidates() {
  const { platform, arch } = process
  const base = `${platform}-${arch}`
  if (platform === 'linux') {
    const report = typeof process.report?.getReport === 'function' ? process.report.getReport() : null
    const glibc = report?.header?.glibcVersionRuntime !== undefined
    return (glibc ? [`${base}-gnu`, `${base}-musl`] : [`${base}-musl`, `${base}-gnu`]).map(file)
  }
  if (platform === 'win32') return [`${base}-msvc`, `${base}-gnu`].map(file)
  return [file(base)]
}

function file(triple) {
  return `idmint.${triple}.node`
}

module.exports = { candidates }
