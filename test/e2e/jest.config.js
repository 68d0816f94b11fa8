/** `npm run test:e2e`: a real n8n (installed by install-n8n.sh) with our package, against a real Mailroom. Not part of `npm test`. */
const separateSuite = require('../separate-suite');

// n8n takes 10 to 30 s to start; a workflow waits for mail.
module.exports = separateSuite('test/e2e', '**/*.e2e.ts', 180_000);
