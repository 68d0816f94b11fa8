/**
 * A real n8n (the one `install-n8n.sh` put in the cache) as the end-to-end test and the editor screenshots run it: its
 * settings, its start and stop, and a client of its REST API signed in as the owner.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, openSync, readFileSync, symlinkSync } from 'node:fs';
import { homedir } from 'node:os';
import path from 'node:path';
import { freePort } from '../helpers/ports';
import { waitFor } from '../helpers/webhook-receiver';

export const ROOT = path.resolve(__dirname, '../..');
export const CACHE = process.env.MAILROOM_E2E_CACHE ?? path.join(homedir(), '.cache/mailroom-e2e');
const N8N_BIN = path.join(CACHE, 'n8n/node_modules/n8n/bin/n8n');

/** Where n8n looks for community packages in `userFolder` (as it installs them: <user folder>/.n8n/nodes/node_modules). */
export function communityPackages(userFolder: string): string {
	const nodesDir = path.join(userFolder, '.n8n/nodes/node_modules');
	mkdirSync(nodesDir, { recursive: true });
	return nodesDir;
}

/** The repository linked in as the community package n8n-nodes-mailroom: its built nodes as they are now. */
export function linkPackage(userFolder: string): void {
	symlinkSync(ROOT, path.join(communityPackages(userFolder), 'n8n-nodes-mailroom'));
}

/** n8n's settings for a run on 127.0.0.1 with its files in `userFolder`; `extra` adds or overrides variables. */
export async function n8nSettings(
	userFolder: string,
	extra: Record<string, string> = {},
): Promise<{ url: string; env: NodeJS.ProcessEnv }> {
	const port = await freePort();
	const url = `http://127.0.0.1:${port}`;
	const env = {
		PATH: process.env.PATH,
		HOME: process.env.HOME,
		N8N_USER_FOLDER: userFolder,
		N8N_PORT: String(port),
		N8N_LISTEN_ADDRESS: '127.0.0.1',
		N8N_HOST: '127.0.0.1',
		N8N_PROTOCOL: 'http',
		WEBHOOK_URL: `${url}/`,
		N8N_ENCRYPTION_KEY: 'mailroom-e2e-encryption-key',
		N8N_RUNNERS_BROKER_PORT: String(await freePort()),
		N8N_DIAGNOSTICS_ENABLED: 'false',
		N8N_VERSION_NOTIFICATIONS_ENABLED: 'false',
		N8N_TEMPLATES_ENABLED: 'false',
		N8N_PERSONALIZATION_ENABLED: 'false',
		N8N_SECURE_COOKIE: 'false',
		N8N_ENFORCE_SETTINGS_FILE_PERMISSIONS: 'false',
		...extra,
	};
	return { url, env };
}

/** Starts n8n with `env`, its output appended to n8n.log and n8n.err in `work`, and resolves once its REST API answers. */
export async function startN8n(url: string, env: NodeJS.ProcessEnv, work: string): Promise<ChildProcess> {
	const n8n = spawn(process.execPath, [N8N_BIN, 'start'], {
		env,
		stdio: ['ignore', openSync(path.join(work, 'n8n.log'), 'a'), openSync(path.join(work, 'n8n.err'), 'a')],
	});
	// /healthz answers before the migrations have run; /rest/settings once n8n is ready.
	await waitFor(
		async () => {
			if (n8n.exitCode !== null)
				throw new Error(`n8n exited with ${n8n.exitCode}:\n${readFileSync(path.join(work, 'n8n.err'), 'utf8').slice(-3000)}`);
			const response = await fetch(`${url}/rest/settings`).catch(() => undefined);
			return response?.status === 200 && ((await response.json().catch(() => ({}))) as { data?: unknown }).data !== undefined;
		},
		'n8n to start',
		150_000,
	);
	return n8n;
}

/** n8n's REST API as its editor calls it, keeping the session cookie it is given (once the owner is set up or signed in). */
export class N8nRest {
	cookie = '';

	constructor(private readonly url: () => string) {}

	async call<T = unknown>(method: string, route: string, body?: unknown): Promise<T> {
		const response = await fetch(`${this.url()}/rest${route}`, {
			method,
			headers: { 'content-type': 'application/json', 'browser-id': 'mailroom-e2e', cookie: this.cookie },
			body: body === undefined ? undefined : JSON.stringify(body),
		});
		this.cookie = response.headers.get('set-cookie')?.split(';')[0] ?? this.cookie;
		const text = await response.text();
		if (response.status >= 400) throw new Error(`${method} ${route}: ${response.status} ${text.slice(0, 500)}`);
		const json = JSON.parse(text) as { data?: T };
		return json.data ?? (json as T);
	}

	/** Makes the owner account of a new n8n (which signs the client in). */
	setUpOwner(): Promise<unknown> {
		return this.call('POST', '/owner/setup', {
			email: 'e2e@example.com',
			firstName: 'E2E',
			lastName: 'Test',
			password: 'E2e-password-123',
		});
	}
}
