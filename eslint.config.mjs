// Lint rules for the whole tree: typescript-eslint's recommended type-checked rules everywhere (the server, the
// dashboard's browser code, the n8n nodes, benchmarks and tests), n8n's community-node rules for the nodes, the
// credential and package.json (following n8n's own node CLI), and Prettier's formatting (eslint-config-prettier turns
// off the rules that would argue with it; `prettier --check` in npm run lint holds the format).
import js from '@eslint/js';
import { n8nCommunityNodesPlugin } from '@n8n/eslint-plugin-community-nodes';
import prettier from 'eslint-config-prettier';
import tseslint from 'typescript-eslint';

export default tseslint.config(
	{ ignores: ['dist/**', 'build/**', 'packages/*/dist/**', 'node_modules/**'] },
	{
		files: ['**/*.ts'],
		extends: [js.configs.recommended, tseslint.configs.recommendedTypeChecked],
		languageOptions: {
			// Each file is checked with the tsconfig.json nearest to it: the dashboard's own, else the root one.
			parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
		},
	},
	{
		// The SQLite engine implements the store's asynchronous contract with better-sqlite3's synchronous calls: its methods
		// are async so that what they throw reaches callers as a rejection, as the PostgreSQL engine's failures do.
		files: ['server/store/sqlite/**/*.ts'],
		rules: { '@typescript-eslint/require-await': 'off' },
	},
	{
		files: ['nodes/**/*.ts', 'credentials/**/*.ts'],
		extends: [n8nCommunityNodesPlugin.configs.recommended],
		rules: { 'no-console': 'error' },
	},
	{
		files: ['package.json'],
		extends: [n8nCommunityNodesPlugin.configs.recommended],
		languageOptions: { parser: tseslint.parser, parserOptions: { extraFileExtensions: ['.json'] } },
	},
	{
		files: ['**/*.js'],
		extends: [js.configs.recommended],
		languageOptions: { sourceType: 'commonjs', globals: { __dirname: 'readonly', process: 'readonly' } },
	},
	{ files: ['**/*.mjs'], extends: [js.configs.recommended] },
	prettier,
);
