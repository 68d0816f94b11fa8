/** `npm run test:container` (test/container/run.sh): the image built from the Dockerfile, run by podman. Not part of `npm test`. */
const separateSuite = require('../separate-suite');

// A container starts in seconds; a stop with a transaction in progress waits 8 s.
module.exports = separateSuite('test/container', '**/*.e2e.ts', 120_000);
