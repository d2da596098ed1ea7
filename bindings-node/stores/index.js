'use strict'
// The store add-on of idmint: `load()` gives idmint's native addon built with every store client
// (Redis, PostgreSQL, MySQL/MariaDB, SQLite, etcd, ZooKeeper, the idmint service). Nothing to
// call yourself: `require('idmint')` uses it when this package is installed
// (`npm install idmint-stores`). The addon is in the prebuilt package
// idmint-stores-<platform>-<arch>[-<abi>] (an optional dependency), or a file
// idmint-stores.<platform>-<arch>[-<abi>].node here.

const { existsSync } = require('node:fs')
const { join } = require('node:path')
const { candidates, installedPackage, packages } = require('./platform.js')

function load() {
  for (const name of candidates('idmint-stores')) {
    const path = join(__dirname, name)
    if (existsSync(path)) return require(path)
  }
  const prebuilt = installedPackage(__dirname, 'idmint-stores')
  if (prebuilt) return require(prebuilt.path)
  throw new Error(
    `idmint-stores: no prebuilt addon for ${process.platform}-${process.arch} ` +
      `(looked for the packages ${packages('idmint-stores').join(', ')}); uninstall idmint-stores ` +
      'to use idmint without the store clients'
  )
}

module.exports = { load }
