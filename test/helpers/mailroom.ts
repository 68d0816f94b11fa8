import { afterAll } from '@jest/globals';
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import nodemailer from 'nodemailer';
import type Mail from 'nodemailer/lib/mailer';
import { startMailroom, type Mailroom } from 'mailroom-server/dist/app';
import { resolveConfig, type MailroomConfig } from 'mailroom-server/dist/config/settings';
import type { Logger } from 'mailroom-server/dist/log';
import { SQLITE_TEMPLATE_ENV, startPostgres } from './postgres';

/**
 * The engine the servers of the tests store on: SQLite, or with MAILROOM_TEST_ENGINE=postgres a new database of the run's
 * throwaway PostgreSQL for each server (`npm test` runs the server suites both ways).
 */
export const TEST_ENGINE = process.env.MAILROOM_TEST_ENGINE === 'postgres' ? 'postgres' : 'sqlite';

export interface TestMailroom extends Mailroom {
	/** Clear-text key of the admin account created on first start. */
	adminKey: string;
	/** Sends a message over real SMTP to this server. */
	send(mail: Mail.Options): Promise<{ response: string; accepted: (string | { address: string })[] }>;
	/** A real HTTP request to the API; the body is parsed as JSON when the response is JSON. */
	api<Body = unknown>(
		path: string,
		options?: { key?: string; method?: string; body?: unknown; headers?: Record<string, string> },
	): Promise<ApiResponse<Body>>;
	/** Creates an account with one key. */
	createAccount(name: string, credits?: number): Promise<{ id: string; key: string }>;
	/** Stops the server; the data folder is kept unless `removeData`. */
	stop(options?: { removeData?: boolean }): Promise<void>;
}

/** An answer of the API: `Body` is what the test expects its body to be (the shapes are in server/schemas). */
export interface ApiResponse<Body = unknown> {
	status: number;
	headers: Headers;
	/** Parsed when the answer is JSON, else the text. */
	body: Body;
	text: string;
}

export function tempDataDir(): string {
	return mkdtempSync(join(tmpdir(), 'mailroom-test-'));
}

/** A new data folder holding a copy of the migrated template, when the run has one (else empty, migrated on first open). */
function migratedDataDir(): string {
	const dir = tempDataDir();
	const template = process.env[SQLITE_TEMPLATE_ENV];
	if (template) copyFileSync(template, join(dir, 'mailroom.sqlite'));
	return dir;
}

/** Makes new data folders (tempDataDir), each removed after the tests of the block that calls this (at the top level: the file). */
export function dataDirs(): () => string {
	const made: string[] = [];
	afterAll(() => made.forEach((dir) => rmSync(dir, { recursive: true, force: true })));
	return () => {
		const dir = tempDataDir();
		made.push(dir);
		return dir;
	};
}

/**
 * The settings of a test server. The tests' webhook receivers listen on this machine and are reached by the webhooks of
 * ordinary accounts, so their hosts are allowed as an operator would allow n8n's (test/server/webhooks/target-policy.test.ts
 * tests the policy without them).
 */
export function testConfig(overrides: Partial<MailroomConfig> = {}): MailroomConfig {
	return {
		...resolveConfig({}, {}),
		smtpPort: 0,
		httpPort: 0,
		logLevel: 'silent',
		parseWorkers: 1,
		dataDir: tempDataDir(),
		webhookAllowHosts: ['127.0.0.1', 'localhost'],
		// Verification changes the stored source (an Authentication-Results header in front): the tests of sender
		// authentication turn it on, with a DNS server of their own (test/helpers/dns-server.ts).
		verifySenders: false,
		...overrides,
	};
}

/** What locates a server's store (its data folder, and its PostgreSQL database if any): to start another on the same one. */
export const sameStore = (server: { config: MailroomConfig }) => ({
	dataDir: server.config.dataDir,
	databaseUrl: server.config.databaseUrl,
});

/** Starts the real server on ephemeral ports and a temporary data folder (or the one given); `log` to read what it logs. */
export async function startTestMailroom(overrides: Partial<MailroomConfig> = {}, log?: Logger): Promise<TestMailroom> {
	const postgres = TEST_ENGINE === 'postgres' && !('databaseUrl' in overrides) ? await startPostgres() : undefined;
	const databaseUrl = await postgres?.newDatabase({ migrated: true });
	// A server on a data folder of its own, with its store in SQLite, starts on a copy of the migrated template.
	const dataDir = overrides.dataDir ?? ((databaseUrl ?? overrides.databaseUrl) ? tempDataDir() : migratedDataDir());
	const config = testConfig({ databaseUrl, dataDir, ...overrides });
	const mailroom = await startMailroom(config, log);
	const transport = nodemailer.createTransport({ host: '127.0.0.1', port: mailroom.smtpPort, secure: false, ignoreTLS: true, pool: false });
	return {
		...mailroom,
		adminKey: mailroom.bootstrap?.key ?? '',
		send: (mail) => transport.sendMail(mail),
		api: async <Body>(path: string, options: { key?: string; method?: string; body?: unknown; headers?: Record<string, string> } = {}) => {
			const headers: Record<string, string> = { ...options.headers };
			if (options.key !== undefined) headers['Service-Key'] = options.key;
			if (options.body !== undefined) headers['Content-Type'] ??= 'application/json';
			const response = await fetch(`${mailroom.httpUrl}${path}`, {
				method: options.method ?? 'GET',
				headers,
				body: options.body === undefined ? undefined : typeof options.body === 'string' ? options.body : JSON.stringify(options.body),
			});
			const text = await response.text();
			const isJson = response.headers.get('content-type')?.includes('application/json');
			return { status: response.status, headers: response.headers, text, body: (isJson ? JSON.parse(text) : text) as Body };
		},
		createAccount: async (name, credits = 0) => {
			const account = await mailroom.accounts.create(name, { credits });
			return { id: account.id, key: (await mailroom.accounts.createKey(account.id)).key };
		},
		stop: async ({ removeData = true } = {}) => {
			transport.close();
			await mailroom.close();
			if (!removeData) return;
			rmSync(config.dataDir, { recursive: true, force: true });
			await postgres?.stop();
		},
	};
}
