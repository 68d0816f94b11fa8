// Memory cost of one large message: RSS of the server before, at peak and after a 25 MB message.
import nodemailer, { type Transporter } from 'nodemailer';
import { memoryOf, startMailroomProcess } from './support/processes';
import { envNumber, printTable } from './support/report';

const MEGABYTES = envNumber('BENCH_MB', 24);
/**
 * `attachment` (default): a short text with one large attachment; `text`: the whole message is one large plain-text body;
 * `html`: one large HTML body (its text is derived from it).
 */
const KINDS = { attachment: 'an attachment', text: 'a plain-text body', html: 'an HTML body' } as const;
const KIND = (process.env.BENCH_LARGE_KIND ?? 'attachment') as keyof typeof KINDS;
if (!(KIND in KINDS)) throw new Error(`BENCH_LARGE_KIND must be one of ${Object.keys(KINDS).join(', ')}`);

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

async function main(): Promise<void> {
	const server = await startMailroomProcess();
	const pid = server.child.pid!;
	const transport = nodemailer.createTransport({ host: '127.0.0.1', port: server.smtpPort, ignoreTLS: true });
	try {
		await measure(pid, transport);
	} finally {
		transport.close();
		await server.stop();
	}
}

async function measure(pid: number, transport: Transporter): Promise<void> {
	await transport.sendMail({ from: 'warm@sender.test', to: 'warm@bench.test', subject: 'warm-up', text: 'warm-up' });
	await new Promise((resolve) => setTimeout(resolve, 500));
	const before = memoryOf(pid);
	const mail = largeMail();
	let peak = before.rssMb;
	const watch = setInterval(() => (peak = Math.max(peak, memoryOf(pid).rssMb)), 20);
	const info = await transport.sendMail({ from: 'big@sender.test', to: 'big@bench.test', subject: 'large', ...mail });
	await new Promise((resolve) => setTimeout(resolve, 1000));
	clearInterval(watch);
	const after = memoryOf(pid);
	const size = info.messageSize ?? 0;
	printTable(
		`One large message (${(size / 1024 / 1024).toFixed(1)} MB on the wire, ${KINDS[KIND]})`,
		['RSS before MB', 'peak RSS MB', 'RSS after MB', 'peak rise MB', 'rise / message size'],
		[[before.rssMb, peak, after.rssMb, peak - before.rssMb, `${((peak - before.rssMb) / (size / 1024 / 1024)).toFixed(2)}x`]],
	);
}

main().catch((err) => {
	console.error(err);
	process.exit(1);
});
