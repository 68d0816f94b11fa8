import { beforeAll, describe, expect, it } from '@jest/globals';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { PackageDirectoryLoader } from 'n8n-core';
import { loadedCredential, loadPackage, nodeDescription, NODES_DOCS, NODES_PACKAGE as root } from '../helpers/n8n';

/** The package as n8n loads a community package: package.json's n8n block, pointing at the built nodes in dist/. */
describe('the built package as n8n loads it', () => {
	let loader: PackageDirectoryLoader;
	beforeAll(async () => {
		({ loader } = await loadPackage(root));
	});

	const description = (name: string) => nodeDescription(loader, name);

	it('finds both nodes and the credential under the package name', () => {
		expect(loader.packageName).toBe('n8n-nodes-mailroom');
		expect(loader.loadedNodes).toEqual([
			{ name: 'mailroom', version: 1.2 },
			{ name: 'mailroomTrigger', version: 1.2 },
		]);
		expect(Object.keys(loader.credentialTypes)).toEqual(['mailroomApi']);
		expect(loader.types.nodes.map((n) => n.displayName)).toEqual(['Mailroom', 'Mailroom Trigger']);
		expect(loader.types.credentials.map((c) => c.displayName)).toEqual(['Mailroom API']);
	});

	it('links the credential to both nodes', () => {
		expect(loader.known.credentials.mailroomApi.supportedNodes).toEqual(['mailroom', 'mailroomTrigger']);
		for (const name of ['mailroom', 'mailroomTrigger']) {
			expect(description(name).credentials).toEqual([{ name: 'mailroomApi', required: true }]);
		}
	});

	it.each(['mailroom', 'mailroomTrigger'])('gives %s light and dark icons that exist in dist', (name) => {
		const { iconUrl, icon } = description(name);
		expect(icon).toBeUndefined(); // rewritten by the loader into iconUrl
		const folder = name === 'mailroom' ? 'Mailroom' : 'MailroomTrigger';
		expect(iconUrl).toEqual({
			light: `icons/n8n-nodes-mailroom/dist/nodes/${folder}/mailroom.svg`,
			dark: `icons/n8n-nodes-mailroom/dist/nodes/${folder}/mailroom.dark.svg`,
		});
		for (const url of Object.values(iconUrl as Record<string, string>)) {
			expect(existsSync(path.join(root, url.replace('icons/n8n-nodes-mailroom/', '')))).toBe(true);
		}
	});

	it('gives the credential light and dark icons that exist in dist', () => {
		expect(loadedCredential(loader).iconUrl).toEqual({
			light: 'icons/n8n-nodes-mailroom/dist/credentials/mailroom.svg',
			dark: 'icons/n8n-nodes-mailroom/dist/credentials/mailroom.dark.svg',
		});
		expect(existsSync(path.join(root, 'dist/credentials/mailroom.dark.svg'))).toBe(true);
	});

	it.each([
		// The action node is in n8n's "Human in the Loop" section too, as n8n's nodes with Send and Wait for Response are.
		['mailroom', { categories: ['Communication', 'Development', 'HILT'], subcategories: { HILT: ['Human in the Loop'] } }],
		['mailroomTrigger', { categories: ['Communication', 'Development'] }],
	])('reads the codex of %s: categories, search aliases and README documentation', (name, categories) => {
		expect(description(name).codex).toEqual({
			...categories,
			// Searching "email" in n8n's node panel finds Mailroom.
			alias: ['email', 'mail', 'smtp', 'inbox'],
			resources: {
				primaryDocumentation: [{ url: NODES_DOCS }],
				credentialDocumentation: [{ url: NODES_DOCS }],
			},
		});
	});

	it('stamps the package version on the nodes, as for any community package', () => {
		const { version } = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as { version: string };
		expect(description('mailroom').communityNodePackageVersion).toBe(version);
	});
});
