// The layers of server/, bottom first: a folder imports only from the layers below it (and from itself), so data flows
// smtp -> ingest -> parse/store -> what stored mail sets off, with nothing climbing back. Folders of one layer do not
// import each other. `npm run lint` checks it (type-only imports count too); docs/development.md explains each layer.
const LAYERS = [
	['bytes', 'schemas', 'config', 'log.ts'],
	['mail', 'work'],
	['store', 'parse', 'payload'],
	['ingest'],
	['metrics'],
	['smtp', 'webhooks', 'outbound', 'websocket', 'retention', 'waiting'],
	['dashboard'],
	['http'],
	['app.ts'],
	['cli.ts', 'index.ts'],
];

const pathOf = (name) => `^server/${name.replace('.', '\\.')}(/|$)`;

/** For each folder: never import a folder of its own layer or of a layer above it. */
const layerRules = LAYERS.flatMap((layer, level) =>
	layer.map((name) => {
		const notBelow = LAYERS.slice(level)
			.flat()
			.filter((other) => other !== name);
		return {
			name: `layer:${name}`,
			comment: `server/${name} may import only from the layers below it: ${LAYERS.slice(0, level).flat().join(', ') || 'none'}`,
			severity: 'error',
			from: { path: pathOf(name) },
			to: { path: notBelow.map(pathOf) },
		};
	}),
);

module.exports = {
	forbidden: [
		...layerRules,
		{
			name: 'no-circular',
			comment: 'Modules that import each other, directly or around a loop',
			severity: 'error',
			from: {},
			to: { circular: true },
		},
		{
			name: 'nodes-stand-alone',
			comment: 'The n8n nodes and credential run inside n8n: they import nothing of the server, the tests or the benchmarks',
			severity: 'error',
			from: { path: '^(nodes|credentials)/' },
			to: { path: '^(server|test|bench)/' },
		},
		{
			name: 'server-without-nodes',
			comment: 'The server package does not carry the n8n nodes',
			severity: 'error',
			from: { path: '^server/' },
			to: { path: '^(nodes|credentials|test|bench)/' },
		},
	],
	options: {
		// Type-only imports count: they tie the layers together as much as any other.
		tsPreCompilationDeps: true,
		tsConfig: { fileName: 'tsconfig.json' },
		doNotFollow: { path: 'node_modules' },
	},
};
