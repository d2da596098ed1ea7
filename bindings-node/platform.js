'use strict'
// Where the native addon may be on this platform, most likely first: a file in this package,
// idmint.<platform>-<arch>[-<abi>].node as `napi build --platform` names them (a source build),
// or the prebuilt package idmint-<platform>-<arch>[-<abi>] that npm installs through
// optionalDependencies. Shared by index.js (which loads the first that exists) and
// scripts/install.js (which builds only when none exists), and copied into the store add-on
// `idmint-stores`, whose addon and packages are named with its own base (`idmint-stores`).

function triples() {
  const { platform, arch } = process
  const base = `${platform}-${arch}`
  if (platform === 'linux') {
    const report = typeof process.report?.getReport === 'function' ? process.report.getReport() : null
    const glibc = report?.header?.glibcVersionRuntime !== undefined
    return glibc ? [`${base}-gnu`, `${base}-musl`] : [`${base}-musl`, `${base}-gnu`]
  }
  if (platform === 'win32') return [`${base}-msvc`, `${base}-gnu`]
  return [base]
}

/** The addon's file names in this package. */
function candidates(base = 'idmint') {
  return triples().map((t) => `${base}.${t}.node`)
}

/** The prebuilt packages that may hold the addon. */
function packages(base = 'idmint') {
  return triples().map((t) => `${base}-${t}`)
}

/** The first prebuilt package that is installed, resolved from `dir`, or undefined. */
function installedPackage(dir, base = 'idmint') {
  for (const name of packages(base)) {
    try {
      return { name, path: require.resolve(name, { paths: [dir] }) }
    } catch {
      // not installed (other platforms' packages never are)
    }
  }
  return undefined
}

module.exports = { candidates, packages, installedPackage }
