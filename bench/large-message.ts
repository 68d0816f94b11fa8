// Memory cost of one large message: RSS of the server before, at peak and after a 25 MB message.
import http from 'node:http';
import nodemailer, { type Transporter } from 'nodemailer';
import { memoryOf, startMailroomProcess, type ServerProcess } from './support/processes';
import { envNumber, printTable } from './support/report';

const MEGABYTES = envNumber('BENCH_MB', 24);
/**
 * `attachment` (default): a short text with one large attachment; `text`: the whole message is one large plain-text body;
 * `html`: one large HTML body (its text is derived from it).
 */
const KINDS = { attachment: 'an attachment', text: 'a plain-text body', html: 'an HTML body' } as const;
const KIND = (process.env.BENCH_LARGE_KIND ?? 'attachment') as keyof typeof KINDS;
if (!(KIND in KINDS)) throw new Error(`BENCH_LARGE_KIND must be one of ${Object.keys(KINDS).join(', ')}`);
/** BENCH_LARGE_WEBHOOK=1: the inbox has a webhook, and the peak covers its delivery (the payload holds the text and raw source). */
const WITH_WEBHOOK = process.env.BENCH_LARGE_WEBHOOK === '1';
const INBOX = 'big@bench.test';

/** About MEGABYTES on the wire either way (base64 makes an attachment a third larger). */
function largeMail() {
	const line = 'The quick brown fox jumps over the lazy dog, again and again and again.\n';
	const body = (unit: string) => unit.repeat(Math.floor((MEGABYTES * 1024 * 1024) / (unit.length + 1)));
	if (KIND === 'text') return { text: body(line) };
	// Quoted-printable makes "=" three bytes on the wire: 85% of the size keeps the message under the 25 MB limit.
	if (KIND === 'html') return { html: body(`<p>${line}<a href="https://example.test/">a link</a></p>\n`).slice(0, MEGABYTES * 0.85 * 1024 * 1024) };
	const attachment = Buffer.alloc(Math.floor((MEGABYTES * 1024 * 1024 * 3) / 4), 'attachment data ');
	return { text: 'see attachment', attachments: [{ filename: 'big.bin', content: attachment }] };
}

/** A webhook receiver that counts the bytes of each request, without keeping them; `received` resolves at each request's end. */
class CountingReceiver {
	private readonly server: http.Server;
	private arrived: ((bytes: number) => void)[] = [];

	constructor() {
		this.server = http.createServer((req, res) => {
			let bytes = 0;
			req.on('data', (chunk: Buffer) => (bytes += chunk.length));
			req.on('end', () => {
				res.end();
				this.arrived.shift()?.(bytes);
			});
		});
	}

	async listen(): Promise<string> {
		await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
		return `http://127.0.0.1:${(this.server.address() as { port: number }).port}/hook`;
	}

	/** Resolves with the size of the next request's body. */
	received(): Promise<number> {
		return new Promise((resolve) => this.arrived.push(resolve));
	}

	close(): Promise<void> {
		this.server.closeAllConnections();
		return new Promise((resolve) => this.server.close(() => resolve()));
	}
}

async function withWebhook(server: ServerProcess, url: string): Promise<void> {
	const headers = { 'Service-Key': server.key, 'Content-Type': 'application/json' };
	const reserved = await fetch(`${server.httpUrl}/api/addresses/${INBOX}`, { method: 'POST', headers: { 'Service-Key': server.key } });
	const put = await fetch(`${server.httpUrl}/api/private-address-forwarding/${INBOX}`, { method: 'PUT', headers, body: JSON.stringify({ webhook: url }) });
	if (!reserved.ok || !put.ok) throw new Error(`setting the webhook failed: ${reserved.status} ${put.status} ${await put.text()}`);
}

async function main(): Promise<void> {
	const server = await startMailroomProcess();
	const pid = server.child.pid!;
	const transport = nodemailer.createTransport({ host: '127.0.0.1', port: server.smtpPort, ignoreTLS: true });
	const receiver = WITH_WEBHOOK ? new CountingReceiver() : undefined;
	try {
		if (receiver) await withWebhook(server, await receiver.listen());
		await measure(pid, transport, receiver);
	} finally {
		transport.close();
		await receiver?.close();
		await server.stop();
	}
}

async function measure(pid: number, transport: Transporter, receiver?: CountingReceiver): Promise<void> {
	const warmedUp = receiver?.received();
	await transport.sendMail({ from: 'warm@sender.test', to: INBOX, subject: 'warm-up', text: 'warm-up' });
	await warmedUp;
	await new Promise((resolve) => setTimeout(resolve, 500));
	const before = memoryOf(pid);
	const mail = largeMail();
	let peak = before.rssMb;
	const watch = setInterval(() => (peak = Math.max(peak, memoryOf(pid).rssMb)), 20);
	const delivered = receiver?.received();
	const info = await transport.sendMail({ from: 'big@sender.test', to: INBOX, subject: 'large', ...mail });
	const webhookBytes = await delivered;
	await new Promise((resolve) => setTimeout(resolve, 1000));
	clearInterval(watch);
	const after = memoryOf(pid);
	const size = info.messageSize ?? 0;
	printTable(
		`One large message (${(size / 1024 / 1024).toFixed(1)} MB on the wire, ${KINDS[KIND]}${webhookBytes === undefined ? '' : `; its webhook payload, ${(webhookBytes / 1024 / 1024).toFixed(1)} MB, delivered`})`,
		['RSS before MB', 'peak RSS MB', 'RSS after MB', 'peak rise MB', 'rise / message size'],
		[[before.rssMb, peak, after.rssMb, peak - before.rssMb, `${((peak - before.rssMb) / (size / 1024 / 1024)).toFixed(2)}x`]],
	);
}

main().catch((err) => {
	console.error(err);
	process.exit(1);
});
