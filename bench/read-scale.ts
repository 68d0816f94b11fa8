// Reads at scale: fill the store through SMTP (one record per recipient inbox), watching RSS,
// then time inbox listings and text reads of random inboxes through the API.
import { haveSmtpSource, smtpSource } from './support/load';
import { createAdminKey, memoryOf, startMailroomProcess } from './support/processes';
import { envNumber, latencySummary, printTable } from './support/report';
import { httpGet } from './support/http-client';

const RECORDS = envNumber('BENCH_RECORDS', 1_000_000);
const INBOXES = envNumber('BENCH_INBOXES', 10_000);
const READS = envNumber('BENCH_READS', 2000);
// smtp-source -r N sends each message to N inboxes: <base>, 2<base>, ... N<base>.
const RECIPIENTS_PER_MESSAGE = 100;

/** Times one API request; returns its body. */
async function timed(url: string, samples: number[], key: string): Promise<string> {
	const start = performance.now();
	const { status, body } = await httpGet(url, { 'Service-Key': key });
	samples.push(performance.now() - start);
	if (status !== 200) throw new Error(`${url} -> ${status} ${body}`);
	return body;
}

function inboxName(index: number): string {
	const group = Math.floor(index / RECIPIENTS_PER_MESSAGE);
	const n = (index % RECIPIENTS_PER_MESSAGE) + 1;
	return `${n === 1 ? '' : n}g${group}@scale.test`;
}

async function main(): Promise<void> {
	if (!haveSmtpSource()) throw new Error('smtp-source not found: apt-get install postfix (see bench/README.md)');
	// BENCH_DATA_DIR keeps the filled store for later runs, which then only time the reads.
	const server = await startMailroomProcess([], process.env.BENCH_DATA_DIR);
	const pid = server.child.pid!;
	const groups = Math.ceil(INBOXES / RECIPIENTS_PER_MESSAGE);
	const messagesPerGroup = Math.ceil(RECORDS / INBOXES);
	const key = createAdminKey(server.dataDir);
	const lastInbox = `${server.httpUrl}/api/addresses/${encodeURIComponent(inboxName(INBOXES - 1))}/messages`;
	const alreadyFilled = ((await fetch(lastInbox, { headers: { 'Service-Key': key } }).then((r) => r.json())) as unknown[]).length > 0;
	let peakRss = 0;
	const watch = setInterval(() => (peakRss = Math.max(peakRss, memoryOf(pid).rssMb)), 200);
	const started = performance.now();
	for (let group = 0; group < groups && !alreadyFilled; group++) {
		await smtpSource({
			port: server.smtpPort,
			sessions: 4,
			messages: messagesPerGroup,
			size: 2048,
			reuse: true,
			to: `g${group}@scale.test`,
			recipients: RECIPIENTS_PER_MESSAGE,
		});
		if (group % 10 === 9)
			console.log(
				`  stored ${((group + 1) * messagesPerGroup * RECIPIENTS_PER_MESSAGE).toLocaleString('en-US')} records, RSS ${Math.round(memoryOf(pid).rssMb)} MB`,
			);
	}
	const fillSeconds = (performance.now() - started) / 1000;
	clearInterval(watch);
	// The domain becomes the admin's: its mail is private, so reads need the key and account-wide search covers it.
	const claimed = await fetch(`${server.httpUrl}/api/domains/scale.test`, { method: 'POST', headers: { 'Service-Key': key } });
	if (!claimed.ok) throw new Error(`claiming scale.test failed: ${claimed.status} ${await claimed.text()}`);
	const stored = groups * messagesPerGroup * RECIPIENTS_PER_MESSAGE;

	const list: number[] = [];
	const text: number[] = [];
	const search: number[] = [];
	for (let i = 0; i < READS; i++) {
		const name = inboxName(Math.floor(Math.random() * INBOXES));
		const inbox = encodeURIComponent(name);
		const records = JSON.parse(await timed(`${server.httpUrl}/api/addresses/${inbox}/messages`, list, key)) as { _id: string }[];
		const pick = records[Math.floor(Math.random() * records.length)];
		await timed(`${server.httpUrl}/api/text/${inbox}/${pick._id}`, text, key);
		await timed(`${server.httpUrl}/api/inbox-search?query=${encodeURIComponent(name.split('@')[0])}`, search, key);
	}
	const memory = memoryOf(pid);
	await server.stop();

	const l = latencySummary(list);
	const t = latencySummary(text);
	const q = latencySummary(search);
	printTable(
		`Reads with ${stored.toLocaleString('en-US')} messages in ${INBOXES.toLocaleString('en-US')} inboxes (` +
			(alreadyFilled
				? 'store filled by an earlier run'
				: `filled in ${Math.round(fillSeconds)} s, ${Math.round(stored / fillSeconds)} records/s; peak RSS while filling ${Math.round(peakRss)} MB`) +
			`; RSS now ${Math.round(memory.rssMb)} MB)`,
		['request', 'p50 ms', 'p95 ms', 'p99 ms', 'max ms'],
		[
			['list an inbox (100 newest)', l.p50, l.p95, l.p99, l.max],
			['read a message text', t.p50, t.p95, t.p99, t.max],
			['search the account (to, from, subject)', q.p50, q.p95, q.p99, q.max],
		],
	);
}

main().catch((err) => {
	console.error(err);
	process.exit(1);
});
