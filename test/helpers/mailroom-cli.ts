import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import nodemailer from 'nodemailer';
import type Mail from 'nodemailer/lib/mailer';
import type { MessageRecord } from 'mailroom-server/dist/schemas/message';
import { enc } from './messages';
import { accepts, freePort } from './ports';
import { RawSmtp } from './raw-smtp';
import { waitFor } from './webhook-receiver';

/** The `mailroom` command of the built server, run as its own process the way an operator runs it. */
const CLI = require.resolve('mailroom-server/dist/cli.js');

/** The environment without MAILROOM_* settings, so only what a test passes (`extra`) counts. */
export function cleanEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
	const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('MAILROOM_')));
	return { ...env, ...extra };
}

export interface CliResult {
	code: number | null;
	stdout: string;
	stderr: string;
}

/** Runs `mailroom <args>` to completion, with `env` as its only MAILROOM_* variables. */
export function runCli(args: string[], env: Record<string, string> = {}): Promise<CliResult> {
	return new Promise((done, fail) => {
		const child = spawn(process.execPath, [CLI, ...args], { env: cleanEnv(env) });
		let stdout = '';
		let stderr = '';
		child.stdout.on('data', (chunk) => (stdout += chunk));
		child.stderr.on('data', (chunk) => (stderr += chunk));
		child.on('error', fail);
		child.on('close', (code) => done({ code, stdout, stderr }));
	});
}

/** An API key as the CLI prints it. No \b at the end: a key may end in '-', after which \b would cut the match short. */
export const KEY = /\bmr_[A-Za-z0-9_-]{20,}/;

/** Where the server's "Mailroom is running" log line says it listens, once `output` has that line. */
export function runningAt(output: string): { smtp: string; http: string } | undefined {
	const line = output.split('\n').find((text) => text.includes('"Mailroom is running"'));
	return line ? (JSON.parse(line) as { smtp: string; http: string }) : undefined;
}

/** Opens the database of a data folder as an operator would (read-only unless `write`) and hands it to `use`. */
export function withDatabase<T>(dataDir: string, use: (db: Database.Database) => T, { write = false } = {}): T {
	const db = new Database(join(dataDir, 'mailroom.sqlite'), { readonly: !write });
	try {
		return use(db);
	} finally {
		db.close();
	}
}

/** What a server was started with, and where it listens. */
export interface Where {
	dataDir: string;
	smtpHost: string;
	smtpPort: number;
	httpHost: string;
	httpPort: number;
}

/** A data folder and free ports on 127.0.0.1. */
export async function freeWhere(dataDir: string): Promise<Where> {
	return { dataDir, smtpHost: '127.0.0.1', smtpPort: await freePort(), httpHost: '127.0.0.1', httpPort: await freePort() };
}

/** The settings that put a server where `where` says (flag names without the dashes), with one parse worker (fewer threads). */
export function whereSettings(where: Where): Record<string, string> {
	return { 'data-dir': where.dataDir, 'smtp-port': String(where.smtpPort), 'http-port': String(where.httpPort), 'parse-workers': '1' };
}

/** Settings as flags. */
export const asFlags = (settings: Record<string, string>) => Object.entries(settings).flatMap(([flag, value]) => [`--${flag}`, value]);

/** `mailroom serve` as its own process. */
export class ServeProcess {
	private printed = '';
	readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;

	private constructor(
		readonly child: ChildProcess,
		readonly where: Where,
	) {
		child.stdout!.on('data', (chunk: Buffer) => (this.printed += chunk.toString()));
		child.stderr!.on('data', (chunk: Buffer) => (this.printed += chunk.toString()));
		this.exited = new Promise((resolve) => child.on('exit', (code, signal) => resolve({ code, signal })));
	}

	/**
	 * Runs `mailroom serve <args>` with `env` as its only MAILROOM_* variables; the two must put it where `where` says.
	 * Resolves once it is running: it logged so, or (when it logs nothing) its HTTP port, opened after the SMTP one, accepts.
	 */
	static async start(where: Where, args: string[], env: Record<string, string> = {}): Promise<ServeProcess> {
		const served = new ServeProcess(spawn(process.execPath, [CLI, 'serve', ...args], { env: cleanEnv(env) }), where);
		let exited: number | null | undefined;
		void served.exited.then(({ code }) => (exited = code));
		try {
			// A start takes a second or two, longer on a busy machine.
			await waitFor(
				async () => {
					if (exited !== undefined) throw new Error(`mailroom serve exited (${exited}) before it was running:\n${served.output}`);
					return runningAt(served.output) !== undefined || (await accepts(where.httpHost, where.httpPort));
				},
				'mailroom serve to run',
				30_000,
			);
		} catch (err) {
			// Not left running behind the failed test.
			served.child.kill('SIGKILL');
			throw err;
		}
		return served;
	}

	/** The base URL of its HTTP API. */
	get httpUrl(): string {
		return `http://${this.where.httpHost}:${this.where.httpPort}`;
	}

	/** Everything printed so far, on stdout and stderr. */
	get output(): string {
		return this.printed;
	}

	/** The admin key printed at the first start of a data folder. */
	key(): Promise<string> {
		return waitFor(() => KEY.exec(this.printed)?.[0], 'the admin key');
	}

	/** A request to the API; the body is parsed when the answer is JSON. */
	async api<Body>(path: string, options: { key?: string; method?: string; body?: unknown } = {}): Promise<{ status: number; body: Body }> {
		const headers: Record<string, string> = {};
		if (options.key) headers['Service-Key'] = options.key;
		if (options.body !== undefined) headers['Content-Type'] = 'application/json';
		const response = await fetch(`http://${this.where.httpHost}:${this.where.httpPort}${path}`, {
			method: options.method ?? 'GET',
			headers,
			body: options.body === undefined ? undefined : JSON.stringify(options.body),
		});
		const text = await response.text();
		return { status: response.status, body: (response.headers.get('content-type')?.includes('json') ? JSON.parse(text) : text) as Body };
	}

	/** Sends one message over SMTP; resolves with the server's reply to DATA. */
	async send(mail: Mail.Options): Promise<string> {
		const transport = nodemailer.createTransport({ host: this.where.smtpHost, port: this.where.smtpPort, ignoreTLS: true });
		try {
			return ((await transport.sendMail({ from: 'a@sender.test', subject: 'hello', text: 'hello', ...mail })) as { response: string })
				.response;
		} finally {
			transport.close();
		}
	}

	/** A raw SMTP session (for the replies nodemailer does not show). */
	smtp(): Promise<{ client: RawSmtp; greeting: string }> {
		return RawSmtp.connect(this.where.smtpPort);
	}

	inbox(address: string, key?: string): Promise<MessageRecord[]> {
		return this.api<MessageRecord[]>(`/api/addresses/${enc(address)}/messages`, { key }).then(({ body }) => body);
	}

	/** Reads the server's database beside it, as an operator would. */
	query<Row>(sql: string, ...params: unknown[]): Row[] {
		return withDatabase(this.where.dataDir, (db) => db.prepare(sql).all(...params) as Row[]);
	}

	/** The names of the process's threads (Node's worker threads are "WorkerThread"). */
	threads(): string[] {
		const tasks = `/proc/${this.child.pid}/task`;
		return readdirSync(tasks).map((task) => readFileSync(join(tasks, task, 'comm'), 'utf8').trim());
	}

	/** How many files the process has open on the database's write-ahead log. */
	walHandles(): number {
		const fds = `/proc/${this.child.pid}/fd`;
		return readdirSync(fds).filter((fd) => {
			try {
				return readlinkSync(join(fds, fd)).endsWith('mailroom.sqlite-wal');
			} catch {
				return false; // closed meanwhile
			}
		}).length;
	}

	/** Stops the process with SIGTERM (unless it has stopped already); resolves once it has exited. */
	async stop(): Promise<void> {
		if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill('SIGTERM');
		await this.exited;
	}
}

/** `mailroom serve` on `dataDir` and free ports, with one parse worker and the `extra` flags. */
export async function serve(dataDir: string, extra: string[] = []): Promise<ServeProcess> {
	const where = await freeWhere(dataDir);
	return ServeProcess.start(where, [...asFlags(whereSettings(where)), ...extra]);
}
