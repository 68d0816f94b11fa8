// Memory cost of one large message: RSS of the server before, at peak and after a 25 MB message.
import nodemailer from 'nodemailer';
import { memoryOf, startMailroomProcess } from './support/processes';
import { envNumber, printTable } from './support/report';

const MEGABYTES = envNumber('BENCH_MB', 24);
/** `attachment` (default): a short text with one large attachment; `text`: the whole message is one large plain-text body. */
const KIND = process.env.BENCH_LARGE_KIND === 'text' ? 'text' : 'attachment';

/** About MEGABYTES on the wire either way (base64 makes an attachment a third larger). */
function largeMail() {
	if (KIND === 'text') {
		const line = 'The quick brown fox jumps over the lazy dog, again and again and again.\n';
		return { text: line.repeat(Math.floor((MEGABYTES * 1024 * 1024) / (line.length + 1))) };
	}
	const attachment = Buffer.alloc(Math.floor((MEGABYTES * 1024 * 1024 * 3) / 4), 'attachment data ');
	return { text: 'see attachment', attachments: [{ filename: 'big.bin', content: attachment }] };
}

async function main(): Promise<void> {
	const server = await startMailroomProcess();
	const pid = server.child.pid!;
	const transport = nodemailer.createTransport({ host: '127.0.0.1', port: server.smtpPort, ignoreTLS: true });
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
	transport.close();
	await server.stop();
	const size = info.messageSize ?? 0;
	printTable(
		`One large message (${(size / 1024 / 1024).toFixed(1)} MB on the wire, ${KIND === 'text' ? 'a plain-text body' : 'an attachment'})`,
		['RSS before MB', 'peak RSS MB', 'RSS after MB', 'peak rise MB', 'rise / message size'],
		[[before.rssMb, peak, after.rssMb, peak - before.rssMb, `${((peak - before.rssMb) / (size / 1024 / 1024)).toFixed(2)}x`]],
	);
}

main().catch((err) => {
	console.error(err);
	process.exit(1);
});
