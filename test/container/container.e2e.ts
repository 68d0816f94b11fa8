/**
 * The image a user builds from the Dockerfile, run as Docker runs it (here by podman): test/container/run.sh sets up podman
 * and the base images, builds the image and names it in MAILROOM_TEST_IMAGE. Each container publishes the image's own ports
 * (2525 and 3000 inside) on free ports of 127.0.0.1, with every setting at the image's defaults.
 */
import { execFile } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from '@jest/globals';
import nodemailer from 'nodemailer';
import type { Me } from 'mailroom-server/dist/schemas/account';
import type { MessageRecord } from 'mailroom-server/dist/schemas/message';
import { KEY } from '../helpers/mailroom-cli';
import { freePort } from '../helpers/ports';
import { RawSmtp } from '../helpers/raw-smtp';
import { waitFor } from '../helpers/webhook-receiver';

const IMAGE = process.env.MAILROOM_TEST_IMAGE ?? 'localhost/mailroom:test';
/** The image's base, which has Node: it stands in for n8n's image. */
const BASE = 'docker.io/library/node:24-bookworm-slim';
const REPOSITORY = resolve(__dirname, '../..');
const run = promisify(execFile);

/** `podman <args>`; its standard output, trimmed. */
async function podman(...args: string[]): Promise<string> {
	return (await run('podman', args, { maxBuffer: 16 * 1024 * 1024 })).stdout.trim();
}

/** What the test made, removed after it whatever happened. */
const made = { containers: [] as string[], volumes: [] as string[], networks: [] as string[], folders: [] as string[] };
const unique = (what: string) => `mailroom-test-${what}-${process.pid}-${made.containers.length + made.volumes.length}`;

async function newVolume(): Promise<string> {
	const volume = unique('data');
	made.volumes.push(volume);
	await podman('volume', 'create', volume);
	return volume;
}

/** A container of the image on `volume` at /data, its ports published on free ports of 127.0.0.1. */
async function startContainer(volume: string, options: string[] = []) {
	const name = unique('mailroom');
	made.containers.push(name);
	const smtpPort = await freePort();
	const httpPort = await freePort();
	const started = Date.now();
	await podman(
		'run',
		'--detach',
		'--name',
		name,
		'--volume',
		`${volume}:/data`,
		'--publish',
		`127.0.0.1:${smtpPort}:2525`,
		'--publish',
		`127.0.0.1:${httpPort}:3000`,
		'--env',
		'MAILROOM_PARSE_WORKERS=1',
		...options,
		IMAGE,
	);
	const api = async <Body>(path: string, key?: string) => {
		const response = await fetch(`http://127.0.0.1:${httpPort}${path}`, { headers: key ? { 'Service-Key': key } : {} });
		return { status: response.status, body: (await response.json()) as Body };
	};
	// Ready: it listens, its store and disk answer, the first start's admin account is made.
	await waitFor(
		() =>
			api('/readyz').then(
				({ status }) => status === 200,
				() => false,
			),
		`${name} to be ready`,
		60_000,
	);
	const readyAfter = Date.now() - started;
	return {
		name,
		smtpPort,
		httpPort,
		readyAfter,
		api,
		logs: () => podman('logs', name),
		inbox: (address: string) => api<MessageRecord[]>(`/api/addresses/${address}/messages`).then(({ body }) => body),
		async send(to: string, subject: string) {
			const transport = nodemailer.createTransport({ host: '127.0.0.1', port: smtpPort, ignoreTLS: true });
			try {
				await transport.sendMail({ from: 'sender@elsewhere.test', to, subject, text: `${subject}, through the container` });
			} finally {
				transport.close();
			}
		},
		/**
		 * SIGTERM, as `docker stop` sends it (podman stop waits 10 s, Docker's default, then kills): the exit code (137 when it
		 * was killed), and the seconds from "Mailroom is stopping" to "Mailroom stopped" in its log (podman's own time aside).
		 */
		async stop() {
			await podman('stop', '--time', '10', name);
			const exitCode = Number(await podman('inspect', '--format', '{{.State.ExitCode}}', name));
			const lines = (await podman('logs', name)).split('\n');
			const loggedAt = (message: string) =>
				(JSON.parse(lines.filter((line) => line.includes(`"msg":"${message}"`)).at(-1)!) as { time: number }).time;
			return { exitCode, seconds: (loggedAt('Mailroom stopped') - loggedAt('Mailroom is stopping')) / 1000 };
		},
	};
}

afterAll(async () => {
	for (const container of made.containers) await podman('rm', '--force', '--time', '0', container).catch(() => undefined);
	for (const volume of made.volumes) await podman('volume', 'rm', '--force', volume).catch(() => undefined);
	for (const network of made.networks) await podman('network', 'rm', '--force', network).catch(() => undefined);
	for (const folder of made.folders) rmSync(folder, { recursive: true, force: true });
});

describe('the Mailroom image', () => {
	it('serves mail on its volume as a non-root user, keeps it across containers, and stops in time on SIGTERM', async () => {
		const volume = await newVolume();
		const first = await startContainer(volume);
		console.log(`${first.name} was ready ${first.readyAfter} ms after podman run`);

		// The first start printed the admin key once.
		const key = KEY.exec(await first.logs())![0];
		expect(await first.api<Me>('/api/me', key)).toMatchObject({ status: 200, body: { name: 'admin', admin: true } });

		// Not root: the image's user, uid 1000, owns the server (PID 1) and what it wrote on the volume.
		expect(await podman('inspect', '--format', '{{.Config.User}}', first.name)).toBe('node');
		const status = await podman('exec', first.name, 'cat', '/proc/1/status');
		expect(/^Uid:\s+(\d+)/m.exec(status)![1]).toBe('1000');
		expect(await podman('exec', first.name, 'stat', '--format', '%u %n', '/data/mailroom.sqlite')).toBe('1000 /data/mailroom.sqlite');
		// The image's health check asks /readyz.
		await podman('healthcheck', 'run', first.name);

		// Mail sent over SMTP to the container is listed through its API.
		await first.send('someone@container.test', 'first');
		expect((await first.inbox('someone@container.test')).map((message) => message.subject)).toEqual(['first']);

		// SIGTERM with an SMTP transaction in progress: it waits for it (the image's --shutdown-timeout, 8 s) and still exits
		// 0 within Docker's default grace of 10 s, before a SIGKILL would come.
		const { client } = await RawSmtp.connect(first.smtpPort);
		await client.envelope('slow@elsewhere.test', ['someone@container.test']);
		const stopped = await first.stop();
		client.close();
		console.log(`${first.name} stopped in ${stopped.seconds} s with a transaction in progress`);
		expect(stopped.exitCode).toBe(0); // not killed
		expect(stopped.seconds).toBeGreaterThanOrEqual(7.5); // it waited for the transaction...
		expect(stopped.seconds).toBeLessThan(10); // ...no longer than its shutdown timeout allows

		// A new container on the same volume has the mail and the key, and makes no second admin.
		const second = await startContainer(volume);
		expect((await second.inbox('someone@container.test')).map((message) => message.subject)).toEqual(['first']);
		expect((await second.api('/api/me', key)).status).toBe(200);
		expect(await second.logs()).not.toContain('Created the admin account');
		await second.send('someone@container.test', 'second');
		expect((await second.inbox('someone@container.test')).map((message) => message.subject)).toEqual(['second', 'first']);
		const idle = await second.stop();
		console.log(`${second.name} stopped in ${idle.seconds} s, idle`);
		expect(idle.exitCode).toBe(0);
	});

	it('takes the admin key from a file (a Docker secret) and never prints it', async () => {
		const folder = mkdtempSync(join(tmpdir(), 'mailroom-secret-'));
		made.folders.push(folder);
		const keyFile = join(folder, 'admin-key');
		const given = 'mr_given_to_the_container_0123456789abcdef';
		writeFileSync(keyFile, `${given}\n`);
		chmodSync(keyFile, 0o644); // readable by the image's user
		const container = await startContainer(await newVolume(), [
			'--volume',
			`${keyFile}:/run/secrets/mailroom-admin-key:ro`,
			'--env',
			'MAILROOM_ADMIN_KEY_FILE=/run/secrets/mailroom-admin-key',
		]);
		expect(await container.api<Me>('/api/me', given)).toMatchObject({ status: 200, body: { name: 'admin', admin: true } });
		const logs = await container.logs();
		expect(logs).toContain('Created the admin account "admin" on this new database.');
		expect(logs).not.toContain(given);
		expect(logs).not.toMatch(KEY);
	});
});

describe('examples/compose/compose.yaml, as podman-compose loads it', () => {
	interface Service {
		image: string | null;
		build: string | null;
		dependsOn: string[];
		ports: string[];
		volumes: string[];
		environment: Record<string, string>;
		profiles: string[];
	}
	const load = async () =>
		JSON.parse(
			(await run('/usr/bin/python3', [join(__dirname, 'load-compose.py'), join(REPOSITORY, 'examples/compose/compose.yaml')])).stdout,
		) as { services: Record<string, Service>; volumes: string[] };

	it('runs n8n beside Mailroom built from this repository, each on a volume; the profile postgres adds two nodes on one database', async () => {
		const { services, volumes } = await load();
		expect(Object.keys(services).sort()).toEqual(['mailroom', 'mailroom-node-1', 'mailroom-node-2', 'n8n', 'postgres']);
		for (const name of ['mailroom', 'mailroom-node-1', 'mailroom-node-2']) {
			expect(services[name].build).toBe(REPOSITORY); // where the Dockerfile is
			expect(services[name].environment.MAILROOM_WEBHOOK_ALLOW_HOSTS).toBe('n8n');
			expect(services[name].volumes).toEqual([expect.stringMatching(/^[a-z0-9-]+-data:\/data$/)]);
			expect(services[name].ports).toEqual([expect.stringMatching(/:2525$/), expect.stringMatching(/:3000$/)]);
		}
		expect(services.mailroom.profiles).toEqual([]);
		expect(services.n8n).toMatchObject({ profiles: [], dependsOn: ['mailroom'], volumes: ['n8n-data:/home/node/.n8n'] });
		expect(new URL(services.n8n.environment.WEBHOOK_URL).hostname).toBe('n8n');
		for (const node of ['mailroom-node-1', 'mailroom-node-2']) {
			expect(services[node]).toMatchObject({ profiles: ['postgres'], dependsOn: ['postgres'] });
			expect(new URL(services[node].environment.MAILROOM_DATABASE_URL).hostname).toBe('postgres');
		}
		expect(services['mailroom-node-1'].environment.MAILROOM_DATABASE_URL).toBe(
			services['mailroom-node-2'].environment.MAILROOM_DATABASE_URL,
		);
		expect(services.postgres.profiles).toEqual(['postgres']);
		// Every named volume a service mounts is declared.
		const mounted = Object.values(services).flatMap((service) => service.volumes.map((volume) => volume.split(':')[0]));
		expect([...new Set(mounted)].sort()).toEqual(volumes);
		// Its .env leaves the admin key unset (a random one is printed), not a literal "${...}".
		expect(services.mailroom.environment.MAILROOM_ADMIN_KEY).toBe('');
	});

	it("wires n8n and Mailroom on one network: n8n reaches http://mailroom:3000, an ordinary account's webhook reaches n8n", async () => {
		const { services } = await load();
		// The compose network, its two services under their names; n8n (whose image is out of reach here) stood in for by a
		// web server on its port that logs each request.
		const network = unique('network');
		made.networks.push(network);
		await podman('network', 'create', network);
		const n8n = unique('n8n');
		made.containers.push(n8n);
		const logRequests = "require('node:http').createServer((q, r) => { console.log(q.method, q.url); r.end('ok'); }).listen(5678)";
		await podman('run', '--detach', '--name', n8n, '--network', network, '--network-alias', 'n8n', BASE, 'node', '-e', logRequests);
		const environment = Object.entries(services.mailroom.environment).flatMap(([name, value]) => ['--env', `${name}=${value}`]);
		const mailroom = await startContainer(await newVolume(), ['--network', network, '--network-alias', 'mailroom', ...environment]);

		// The credential's Base URL, from inside n8n's container.
		const fromN8n = "fetch('http://mailroom:3000/readyz').then(async (r) => console.log(r.status, (await r.json()).ready))";
		expect(await podman('exec', n8n, 'node', '-e', fromN8n)).toBe('200 true');

		// An account that is not admin: only the allowed host n8n makes its private-address webhook deliverable.
		const created = await podman('exec', mailroom.name, 'mailroom', 'accounts', 'create', 'workflows');
		const key = KEY.exec(created)![0];
		const address = 'orders%40shop.test';
		const call = (method: string, path: string, body?: unknown) =>
			fetch(`http://127.0.0.1:${mailroom.httpPort}${path}`, {
				method,
				headers: { 'Service-Key': key, ...(body ? { 'Content-Type': 'application/json' } : {}) },
				body: body ? JSON.stringify(body) : undefined,
			});
		expect((await call('POST', `/api/addresses/${address}`)).status).toBe(200);
		const webhook = new URL('webhook/mailroom-orders', services.n8n.environment.WEBHOOK_URL).href; // as n8n's trigger registers it
		expect((await call('PUT', `/api/private-address-forwarding/${address}`, { webhook })).status).toBe(200);
		await mailroom.send('orders@shop.test', 'an order');
		await waitFor(async () => (await podman('logs', n8n)).includes('POST /webhook/mailroom-orders'), 'the webhook to reach n8n', 30_000);
	});
});
