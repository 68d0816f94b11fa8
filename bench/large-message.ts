// Memory cost of one large message: RSS of the server before, at peak and after a 25 MB message.
import http from 'node:http';
import nodemailer, { type Transporter } from 'nodemailer';
import WebSocket from 'ws';
import { memoryOf } from './support/proc-stats';
import { addAdminCredits, startMailroomProcess, type ServerProcess } from './support/processes';
import { envNumber, printTable } from './support/report';

const MEGABYTES = envNumber('BENCH_MB', 24);
/**
 * `attachment` (default): a short text with one large attachment; `text`: the whole message is one large plain-text body;
 * `html`: one large HTML body (its text is derived from it).
 */
const KINDS = { attachment: 'an attachment', text: 'a plain-text body', html: 'an HTML body' } as const;
const KIND = (process.env.BENCH_LARGE_KIND ?? 'attachment') as keyof typeof KINDS;
if (!(KIND in KINDS)) throw new Error(`BENCH_LARGE_KIND must be one of ${Object.keys(KINDS).join(', ')}`);
/**
 * BENCH_LARGE_DELIVERY=webhook or websocket: the inbox also has a webhook to a local receiver, or a websocket listener, and
 * the peak covers the message's delivery to it (as JSON holding its text and raw source).
 */
const DELIVERY = process.env.BENCH_LARGE_DELIVERY ?? '';
if (!['', 'webhook', 'websocket'].includes(DELIVERY)) throw new Error('BENCH_LARGE_DELIVERY must be webhook or websocket');
/**
 * BENCH_LARGE_VIA=api: the message is sent through POST /api/outgoing-messages (from and to a reserved address, so it is
 * delivered here), first by an account without credits (answered 402), then with a credit (delivered); otherwise over SMTP.
 */
const VIA = process.env.BENCH_LARGE_VIA ?? 'smtp';
if (!['smtp', 'api'].includes(VIA)) throw new Error('BENCH_LARGE_VIA must be smtp or api');
const INBOX = 'big@bench.test';

/** About MEGABYTES on the wire either way (base64 makes an attachment a third larger). */
function largeMail() {
	const line = 'The quick brown fox jumps over the lazy dog, again and again and again.\n';
	const body = (unit: string) => unit.repeat(Math.floor((MEGABYTES * 1024 * 1024) / (unit.length + 1)));
	if (KIND === 'text') return { text: body(line) };
	// Quoted-printable makes "=" three bytes on the wire: 85% of the size keeps the message under the 25 MB limit.
	if (KIND === 'html')
		return { html: body(`<p>${line}<a href="https://example.test/">a link</a></p>\n`).slice(0, MEGABYTES * 0.85 * 1024 * 1024) };
	const attachment = Buffer.alloc(Math.floor((MEGABYTES * 1024 * 1024 * 3) / 4), 'attachment data ');
	return { text: 'see attachment', attachments: [{ filename: 'big.bin', content: attachment }] };
}

/** Where messages of the inbox are delivered besides it; `received` resolves with the size of the next delivery. */
interface Listener {
	received(): Promise<number>;
	close(): Promise<void>;
}

/** Resolvers of the deliveries waited for, in order. */
class Arrivals {
	private readonly waiting: ((bytes: number) => void)[] = [];

	next(): Promise<number> {
		return new Promise((resolve) => this.waiting.push(resolve));
	}

	arrived(bytes: number): void {
		this.waiting.shift()?.(bytes);
	}
}

/** Reserves the inbox for the admin account and sets `settings` on it. */
async function configureInbox(server: ServerProcess, settings: Record<string, unknown>): Promise<void> {
	const headers = { 'Service-Key': server.key, 'Content-Type': 'application/json' };
	const reserved = await fetch(`${server.httpUrl}/api/addresses/${INBOX}`, { method: 'POST', headers: { 'Service-Key': server.key } });
	const put = await fetch(`${server.httpUrl}/api/private-address-forwarding/${INBOX}`, {
		method: 'PUT',
		headers,
		body: JSON.stringify(settings),
	});
	if (!reserved.ok || !put.ok) throw new Error(`setting up ${INBOX} failed: ${reserved.status} ${put.status} ${await put.text()}`);
}

/** A webhook receiver that counts the bytes of each request without keeping them. */
async function webhookReceiver(server: ServerProcess): Promise<Listener> {
	const arrivals = new Arrivals();
	const receiver = http.createServer((req, res) => {
		let bytes = 0;
		req.on('data', (chunk: Buffer) => (bytes += chunk.length));
		req.on('end', () => (res.end(), arrivals.arrived(bytes)));
	});
	await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
	await configureInbox(server, { webhook: `http://127.0.0.1:${(receiver.address() as { port: number }).port}/hook` });
	return {
		received: () => arrivals.next(),
		close: () => new Promise((resolve) => (receiver.closeAllConnections(), receiver.close(() => resolve()))),
	};
}

/** A websocket listener on the inbox that counts the bytes of each message frame. */
async function websocketListener(server: ServerProcess): Promise<Listener> {
	await configureInbox(server, { enablews: true });
	const arrivals = new Arrivals();
	const socket = new WebSocket(`ws://127.0.0.1:${server.httpPort}/incoming-messages?key=${server.key}&addresses=${INBOX}`);
	await new Promise((resolve) => socket.once('message', resolve)); // "Listening"
	socket.on('message', (data: Buffer) => arrivals.arrived(data.length));
	return {
		received: () => arrivals.next(),
		close: () => {
			socket.close();
			return Promise.resolve();
		},
	};
}

/** The large message as a send request's fields (an attachment's content in base64). */
function sendRequestFields(): Record<string, unknown> {
	const { attachments, ...rest } = largeMail();
	if (!attachments) return rest;
	return { ...rest, attachments: attachments.map(({ filename, content }) => ({ filename, content: content.toString('base64') })) };
}

/** Peak RSS of the server while `work` runs (sampled every 20 ms), and its RSS before and a second after. */
async function rssAround<T>(pid: number, work: () => Promise<T>) {
	await new Promise((resolve) => setTimeout(resolve, 500));
	const before = memoryOf(pid).rssMb;
	let peak = before;
	const watch = setInterval(() => (peak = Math.max(peak, memoryOf(pid).rssMb)), 20);
	const result = await work();
	await new Promise((resolve) => setTimeout(resolve, 1000));
	clearInterval(watch);
	return {
		result,
		row: (size: number): (string | number)[] => [
			before,
			peak,
			memoryOf(pid).rssMb,
			peak - before,
			`${((peak - before) / size).toFixed(2)}x`,
		],
	};
}

/** POST /api/outgoing-messages of the large message: without credits (402), then with one (delivered to the reserved inbox). */
async function measureSend(server: ServerProcess): Promise<void> {
	await configureInbox(server, {});
	const body = JSON.stringify({ from: INBOX, to: INBOX, subject: 'large', ...sendRequestFields() });
	const send = async () => {
		const started = performance.now();
		const response = await fetch(`${server.httpUrl}/api/outgoing-messages`, {
			method: 'POST',
			headers: { 'Service-Key': server.key, 'Content-Type': 'application/json' },
			body,
		});
		const answer = (await response.json()) as { status?: string; message?: string };
		return `${response.status} ${answer.status ?? answer.message ?? ''}, ${Math.round(performance.now() - started)} ms`;
	};
	const pid = server.child.pid!;
	const sizeMb = Buffer.byteLength(body) / 1024 / 1024;
	const rows: (string | number)[][] = [];
	const broke = await rssAround(pid, send);
	rows.push(['no credits', broke.result, ...broke.row(sizeMb)]);
	addAdminCredits(server, 1);
	const paid = await rssAround(pid, send);
	rows.push(['one credit', paid.result, ...paid.row(sizeMb)]);
	printTable(
		`One large message sent through the API (a ${sizeMb.toFixed(1)} MB JSON body, ${KINDS[KIND]})`,
		['account', 'answer', 'RSS before MB', 'peak RSS MB', 'RSS after MB', 'peak rise MB', 'rise / body size'],
		rows,
	);
}

async function main(): Promise<void> {
	const server = await startMailroomProcess();
	if (VIA === 'api') {
		try {
			return await measureSend(server);
		} finally {
			await server.stop();
		}
	}
	const pid = server.child.pid!;
	const transport = nodemailer.createTransport({ host: '127.0.0.1', port: server.smtpPort, ignoreTLS: true });
	let listener: Listener | undefined;
	try {
		if (DELIVERY) listener = await (DELIVERY === 'webhook' ? webhookReceiver : websocketListener)(server);
		await measure(pid, transport, listener);
	} finally {
		transport.close();
		await listener?.close();
		await server.stop();
	}
}

async function measure(pid: number, transport: Transporter, receiver?: Listener): Promise<void> {
	const warmedUp = receiver?.received();
	await transport.sendMail({ from: 'warm@sender.test', to: INBOX, subject: 'warm-up', text: 'warm-up' });
	await warmedUp;
	await new Promise((resolve) => setTimeout(resolve, 500));
	const before = memoryOf(pid);
	const mail = largeMail();
	let peak = before.rssMb;
	const watch = setInterval(() => (peak = Math.max(peak, memoryOf(pid).rssMb)), 20);
	const delivered = receiver?.received();
	const info = (await transport.sendMail({ from: 'big@sender.test', to: INBOX, subject: 'large', ...mail })) as { messageSize?: number };
	const deliveredBytes = await delivered;
	await new Promise((resolve) => setTimeout(resolve, 1000));
	clearInterval(watch);
	const after = memoryOf(pid);
	const size = info.messageSize ?? 0;
	printTable(
		`One large message (${(size / 1024 / 1024).toFixed(1)} MB on the wire, ${KINDS[KIND]}${deliveredBytes === undefined ? '' : `; its ${DELIVERY} JSON, ${(deliveredBytes / 1024 / 1024).toFixed(1)} MB, delivered`})`,
		['RSS before MB', 'peak RSS MB', 'RSS after MB', 'peak rise MB', 'rise / message size'],
		[[before.rssMb, peak, after.rssMb, peak - before.rssMb, `${((peak - before.rssMb) / (size / 1024 / 1024)).toFixed(2)}x`]],
	);
}

main().catch((err) => {
	console.error(err);
	process.exit(1);
});
