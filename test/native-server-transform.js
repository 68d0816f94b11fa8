/**
 * Each compiled server module becomes a stub that hands out the one Node loaded itself (see jest.config.js), where the
 * test environment offers Node's require; elsewhere (the global setup) it is the module as compiled.
 */
module.exports = {
	process(source, filename) {
		return {
			code: `if (typeof __nativeRequire === 'function') module.exports = __nativeRequire(${JSON.stringify(filename)});\nelse (function () {\n${source}\n})();`,
		};
	},
	getCacheKey(source, filename) {
		return `native-server-v2:${filename}:${require('node:crypto').createHash('sha256').update(source).digest('hex')}`;
	},
};
