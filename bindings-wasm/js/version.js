/* global IDMINT_VERSION */
/** The package version (scripts/build.sh writes package.json's, which test.sh checks). */
export const version = () => IDMINT_VERSION
