// The peers benchmarked in the page, bundled by esbuild (pinned in package.json) into
// .build/peers.js for the browser: they are plain JavaScript, as an app would bundle them.
export { Snowflake as SapphireSnowflake } from '@sapphire/snowflake'
export { v4 as uuidV4, v7 as uuidV7 } from 'uuid'
