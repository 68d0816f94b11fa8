// Lint rules for the n8n community nodes (nodes/, credentials/) and package.json, following
// the configuration of n8n's own node CLI (@n8n/node-cli) with n8n's community-node rules.
// The server (server/) is not linted here.
import js from '@eslint/js';
import { n8nCommunityNodesPlugin } from '@n8n/eslint-plugin-community-nodes';
import tseslint from 'typescript-eslint';

const communityNodes = n8nCommunityNodesPlugin.configs.recommended;

export default tseslint.config(
	{ ignores: ['dist/**', 'node_modules/**'] },
	{
		files: ['nodes/**/*.ts', 'credentials/**/*.ts'],
		extends: [js.configs.recommended, tseslint.configs.recommended, communityNodes],
		rules: {
			'prefer-spread': 'off',
			'no-console': 'error',
		},
	},
	{
		files: ['package.json'],
		extends: [communityNodes],
		languageOptions: {
			parser: tseslint.parser,
			parserOptions: { extraFileExtensions: ['.json'] },
		},
	},
);
