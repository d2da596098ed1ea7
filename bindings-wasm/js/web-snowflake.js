// The web flavour of the snowflake entry: the entry and the loader every web-flavour entry has.
export * from './snowflake.js'
export { default, initSync } from './loader.js'
