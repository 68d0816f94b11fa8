/** `npm run test:install`: the packages installed from their `npm pack` tarballs, as users install them. Not part of `npm test`. */
const separateSuite = require('../separate-suite');

// npm install fetches the dependencies (from npm's cache when they are in it): 40 s warm, minutes cold.
module.exports = separateSuite('test/install', '**/*.install.ts', 600_000);
