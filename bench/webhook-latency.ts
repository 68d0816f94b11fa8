// Webhook latency at a steady rate: from the end of DATA to the webhook request reaching a local receiver.
// The server runs in this process (startMailroom) with default settings (signed deliveries; BENCH_DURABILITY=full by default).
import http from 'node:http';
import { startInProcess } from './support/in-process';
import { TimedSmtpConnection, benchMessage } from './support/smtp-client';
import { envNumber, latencySummary, printTable } from './support/report';
import { atSteadyRate } from './support/steady-rate';

const RATE = envNumber('BENCH_RATE', 500);
const SECONDS = envNumber('BENCH_SECONDS', 10);
const CONNECTIONS = envNumber('BENCH_CONNECTIONS', 8);
const SIZE = envNumber('BENCH_SIZE', 4096);
const INBOXES = envNumber('BENCH_INBOXES', 50);
const DURABILITY = process.env.BENCH_DURABILITY === 'normal' ? 'normal' : 'full';

/** A keep-alive receiver that notes when each message's webhook arrived (by its unique subject). */
async function startReceiver(arrivals: Map<string, number>): Promise<{ url: string; close(): Promise<void> }> {
	const server = http.createServer((req, res) => {
		const chunks: Buffer[] = [];
		req.on('data', (chunk: Buffer) => chunks.push(chunk));
		req.on('end', () => {
			const arrived = performance.now();
			res.end();
			arrivals.set((JSON.parse(Buffer.concat(chunks).toString('utf8')) as { subject: string }).subject, arrived);
		});
	});
	server.keepAliveTimeout = 60_000;
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	return {
		url: `http://127.0.0.1:${(server.address() as { port: number }).port}/hook`,
		close: () => new Promise((resolve) => (server.closeAllConnections(), server.close(() => resolve()))),
	};
}

async function main(): Promise<void> {
	const { mailroom, stop } = await startInProcess('webhook', { durability: DURABILITY });
	const arrivals = new Map<string, number>();
	const receiver = await startReceiver(arrivals);
	const key = mailroom.bootstrap!.key;
	const inboxes = Array.from({ length: INBOXES }, (_, i) => `hook${i}@bench.test`);
	for (const inbox of inboxes) {
		const headers = { 'Service-Key': key, 'Content-Type': 'application/json' };
		await fetch(`${mailroom.httpUrl}/api/addresses/${encodeURIComponent(inbox)}`, { method: 'POST', headers: { 'Service-Key': key } });
		const put = await fetch(`${mailroom.httpUrl}/api/private-address-forwarding/${encodeURIComponent(inbox)}`, {
			method: 'PUT',
			headers,
			body: JSON.stringify({ webhook: receiver.url }),
		});
		if (!put.ok) throw new Error(`setting the webhook of ${inbox} failed: ${put.status} ${await put.text()}`);
	}

	const connections = await Promise.all(Array.from({ length: CONNECTIONS }, () => TimedSmtpConnection.open(mailroom.smtpPort)));
	const dataEnds = new Map<string, number>();
	const replies = new Map<string, number>();
	const toReply: number[] = [];
	const total = RATE * SECONDS;
	const { start, late } = await atSteadyRate(connections, RATE, total, async (connection, i) => {
		const inbox = inboxes[i % inboxes.length];
		const subject = `w${i}`;
		const { ms, dataEnd } = await connection.send('bench@sender.test', inbox, benchMessage(inbox, subject, SIZE));
		dataEnds.set(subject, dataEnd);
		replies.set(subject, dataEnd + ms);
		toReply.push(ms);
	});
	const deadline = performance.now() + 30_000;
	while (arrivals.size < total && performance.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
	const seconds = (Math.max(...arrivals.values()) - start) / 1000;
	connections.forEach((connection) => connection.close());
	await stop();
	await receiver.close();

	const toWebhook = [...dataEnds]
		.filter(([subject]) => arrivals.has(subject))
		.map(([subject, dataEnd]) => arrivals.get(subject)! - dataEnd);
	const afterReply = [...replies]
		.filter(([subject]) => arrivals.has(subject))
		.map(([subject, replied]) => arrivals.get(subject)! - replied);
	const reply = latencySummary(toReply);
	const sinceReply = latencySummary(afterReply);
	const webhook = latencySummary(toWebhook);
	printTable(
		`Webhook latency at ${RATE} msg/s for ${SECONDS} s over ${CONNECTIONS} reused SMTP connections to ${INBOXES} inboxes (${SIZE}-byte messages; durability ${DURABILITY}; ` +
			`${late} sends behind schedule; ${arrivals.size}/${total} webhooks received; ${Math.round(arrivals.size / seconds)} webhooks/s)`,
		['from end of DATA to', 'p50 ms', 'p95 ms', 'p99 ms', 'max ms'],
		[
			['250 (committed + fsynced)', reply.p50, reply.p95, reply.p99, reply.max],
			['webhook received', webhook.p50, webhook.p95, webhook.p99, webhook.max],
			['(webhook received after the 250)', sinceReply.p50, sinceReply.p95, sinceReply.p99, sinceReply.max],
		],
	);
	if (arrivals.size < total) process.exitCode = 1;
}

main().catch((err) => {
	console.error(err);
	process.exit(1);
});
