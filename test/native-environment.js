const { TestEnvironment } = require('jest-environment-node');

/** The node environment, with Node's own require for the server's compiled modules (see native-server-transform.js). */
class NativeServerEnvironment extends TestEnvironment {
	constructor(config, context) {
		super(config, context);
		this.global.__nativeRequire = require;
	}
}
module.exports = NativeServerEnvironment;
