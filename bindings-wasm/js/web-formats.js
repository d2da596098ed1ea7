// The web flavour of the formats entry: the entry and the loader every web-flavour entry has.
export * from './formats.js'
export { default, initSync } from './loader.js'
