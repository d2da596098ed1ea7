// The web flavour of the full entry: the entry and the loader every web-flavour entry has.
export * from './full.js'
export { default, initSync } from './loader.js'
