import { expect } from '@jest/globals';
import { asFlags, freeWhere, runCli, runningAt, ServeProcess, whereSettings, type CliResult } from './mailroom-cli';
import { enc } from './messages';
import { waitFor } from './webhook-receiver';

/**
 * Nodes of one service: `mailroom serve` processes on one PostgreSQL database, each with a data folder of its own (where
 * it spools the large messages it receives), as an operator runs several behind a load balancer.
 */

/**
 * `mailroom serve --database-url <databaseUrl>` on `dataDir` and free ports, with one parse worker, senders not verified,
 * and the `extra` flags.
 */
export async function startNode(databaseUrl: string, dataDir: string, extra: string[] = []): Promise<ServeProcess> {
	const where = await freeWhere(dataDir);
	// Sender verification off, as in testConfig: these tests compare stored sources with what was sent, byte for byte.
	return ServeProcess.start(where, [
		...asFlags(whereSettings(where)),
		'--database-url',
		databaseUrl,
		'--verify-senders',
		'false',
		...extra,
	]);
}

/** `count` nodes started at once; should one fail to start, the others are killed (none is left behind) and it throws. */
export async function startNodes(count: number, databaseUrl: string, dataDir: () => string, extra: string[] = []): Promise<ServeProcess[]> {
	const started = await Promise.allSettled(Array.from({ length: count }, () => startNode(databaseUrl, dataDir(), extra)));
	const nodes = started.flatMap((result) => (result.status === 'fulfilled' ? [result.value] : []));
	const failed = started.find((result) => result.status === 'rejected');
	if (!failed) return nodes;
	await Promise.all(nodes.map(killNode));
	throw failed.reason;
}

/** The id a node gave itself, as its "Mailroom is running" line says (leases and announcements name it). */
export const nodeIdOf = (node: ServeProcess) => (runningAt(node.output) as { node?: string } | undefined)?.node;

/** Stops a node (SIGTERM), or kills it when it has not stopped within `timeoutMs`: no test leaves a process behind. */
export async function stopNode(node: ServeProcess, timeoutMs = 15_000): Promise<void> {
	const stopping = node.stop();
	const timer = setTimeout(() => node.child.kill('SIGKILL'), timeoutMs);
	try {
		await stopping;
	} finally {
		clearTimeout(timer);
	}
}

/** Kills a node as a crash would (SIGKILL: no shutdown, its leases stay); resolves once it is gone. */
export async function killNode(node: ServeProcess): Promise<void> {
	node.child.kill('SIGKILL');
	await node.exited;
}

/** The log lines of level error or fatal a node printed (its log is JSON lines). */
export function loggedErrors(node: ServeProcess): string[] {
	return node.output.split('\n').filter((line) => {
		try {
			return (JSON.parse(line) as { level?: number }).level! >= 50;
		} catch {
			return false;
		}
	});
}

/** Sends one message over SMTP to a node; the ids of its records, one per recipient (from the 250 reply). */
export async function sendTo(node: ServeProcess, mail: Parameters<ServeProcess['send']>[0]): Promise<string[]> {
	const reply = await node.send(mail);
	return /stored as (.+)$/.exec(reply)![1].split(' ');
}

/** `mailroom <args> --database-url <databaseUrl>`, which must succeed. */
export async function admin(databaseUrl: string, ...args: string[]): Promise<CliResult> {
	const result = await runCli([...args, '--database-url', databaseUrl]);
	expect({ code: result.code, stderr: result.stderr }).toEqual({ code: 0, stderr: '' });
	return result;
}

/** Reserves `address` for the key's account through `node`, with the settings given. */
export async function reserve(node: ServeProcess, key: string, address: string, settings: Record<string, unknown> = {}): Promise<void> {
	expect((await node.api(`/api/addresses/${enc(address)}`, { method: 'POST', key, body: settings })).status).toBe(200);
}

/** Waits until the inbox, read through `node`, holds `count` messages; returns them (newest first). */
export function untilInboxHolds(node: ServeProcess, address: string, count: number, key?: string, timeoutMs = 10_000) {
	return waitFor(
		async () => {
			const messages = await node.inbox(address, key);
			return messages.length === count ? messages : undefined;
		},
		`${count} messages in ${address}`,
		timeoutMs,
	);
}
