// Issue 32's attack: an account stores messages whose bodies are one character repeated, then searches for a long run of
// it. On each engine: BENCH_MESSAGES messages of 66 lines of 998 "a" to an address reserved for the admin, sent through one
// pooled SMTP connection; then, while a process of its own asks GET /livez without pause (search-stall-probe.ts), searches
// for "a" × L for each L of BENCH_TERMS and two queries of the most conditions a query may have, each BENCH_RUNS times: the answer's status and time, and the time /livez took
// meanwhile. /livez shares the event loop with everything the server does, so its worst time is how long a search held the
// server. A window of the same length with no search gives its time when nothing holds it.
import { fork, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import nodemailer from 'nodemailer';
import type { ProbeCommand, ProbeMessage } from './search-stall-probe';
import { BenchStores, ENGINE_NAME, enginesFromEnv, type EngineServer } from './support/engines';
import { httpGet, httpPost } from './support/http-client';
import { envNumber, latencySummary, median, printTable } from './support/report';

const MESSAGES = envNumber('BENCH_MESSAGES', 50);
const TERMS = (process.env.BENCH_TERMS ?? '50,256,1000').split(',').map(Number);
if (TERMS.some((length) => !Number.isInteger(length) || length < 1))
	throw new Error('BENCH_TERMS takes lengths of terms, e.g. 50,256,1000');
const RUNS = envNumber('BENCH_RUNS', 3);
const INBOX = 'stall@bench.test';
/** 19 pairs of letters the bodies lack (bc to bu), each excluded: too short for the index, each is looked for in the whole body of every message looked at. */
const EXCLUDED = Array.from({ length: 19 }, (_, i) => `-b${String.fromCharCode(99 + i)}`).join(' ');
/** The searches: "a" × L for each L of BENCH_TERMS, then the most conditions a query may have, on the index's path and on the scan's. */
const SEARCHES = [
	...TERMS.map((length) => ({ what: `a × ${length}`, query: 'a'.repeat(length) })),
	{ what: 'aaa and 19 excluded pairs (index)', query: `aaa ${EXCLUDED}` },
	{ what: '19 excluded pairs and zz (scan)', query: `${EXCLUDED} zz` },
];
/** 66 lines of 998 "a": 64 KiB of one character, the body of each message. */
const BODY = `${'a'.repeat(998)}\n`.repeat(66);

/** The /livez prober, in a process of its own. */
class LivezProbe {
	private constructor(private readonly child: ChildProcess) {}

	/** Starts probing `httpUrl`; resolves once its first request (not counted) is answered. */
	static async start(httpUrl: string): Promise<LivezProbe> {
		const child = fork(join(__dirname, 'search-stall-probe.js'), [httpUrl], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
		await once(child, 'message');
		return new LivezProbe(child);
	}

	/** The ms of each /livez request begun while `work` ran (the last one waited for). */
	async during<T>(work: () => Promise<T>): Promise<{ result: T; latencies: number[] }> {
		this.child.send('begin' satisfies ProbeCommand);
		const result = await work();
		const answer = once(this.child, 'message') as Promise<[ProbeMessage]>;
		this.child.send('end' satisfies ProbeCommand);
		const [message] = await answer;
		if (!('latencies' in message)) throw new Error('the prober did not send its times');
		return { result, latencies: message.latencies };
	}

	async stop(): Promise<void> {
		const exited = once(this.child, 'exit');
		this.child.send('stop' satisfies ProbeCommand);
		await exited;
	}
}

/** Reserves INBOX for the admin and sends it MESSAGES messages of BODY over one pooled connection; the seconds it took. */
async function fill(server: EngineServer): Promise<number> {
	const reserved = await httpPost(`${server.httpUrl}/api/addresses/${encodeURIComponent(INBOX)}`, { 'Service-Key': server.key });
	if (reserved.status !== 200) throw new Error(`reserving ${INBOX} answered ${reserved.status}: ${reserved.body}`);
	const started = performance.now();
	const transport = nodemailer.createTransport({ host: '127.0.0.1', port: server.smtpPort, ignoreTLS: true, pool: true });
	try {
		for (let i = 0; i < MESSAGES; i++) await transport.sendMail({ from: 'a@sender.test', to: INBOX, subject: `repeated ${i}`, text: BODY });
	} finally {
		transport.close();
	}
	return (performance.now() - started) / 1000;
}

/** One search: its status, its time in ms, and how many messages it found. */
async function search(server: EngineServer, query: string): Promise<{ status: number; ms: number; found: number | string }> {
	const started = performance.now();
	const { status, body } = await httpGet(`${server.httpUrl}/api/inbox-search?query=${encodeURIComponent(query)}`, {
		'Service-Key': server.key,
	});
	const ms = performance.now() - started;
	return { status, ms, found: status === 200 ? (JSON.parse(body) as { messages: unknown[] }).messages.length : '' };
}

async function measure(stores: BenchStores, engine: EngineServer['engine']): Promise<(string | number)[][]> {
	const server = await stores.startServer(engine, { args: ['--log-level', 'error'] });
	const rows: (string | number)[][] = [];
	let probe: LivezProbe | undefined;
	try {
		const seconds = await fill(server);
		console.log(
			`${ENGINE_NAME[engine]}: ${MESSAGES} messages of ${BODY.length.toLocaleString('en-US')} characters stored in ${seconds.toFixed(1)} s`,
		);
		probe = await LivezProbe.start(server.httpUrl);
		const searched: number[] = [];
		for (const { what, query } of SEARCHES) {
			const runs: { status: number; ms: number; found: number | string }[] = [];
			const latencies: number[] = [];
			for (let run = 0; run < RUNS; run++) {
				const during = await probe.during(() => search(server, query));
				runs.push(during.result);
				latencies.push(...during.latencies);
			}
			searched.push(...runs.map(({ ms }) => ms));
			rows.push(row(engine, what, runs, latencies));
		}
		// As long as the longest search, with none.
		const idle = await probe.during(() => new Promise((resolve) => setTimeout(resolve, Math.max(200, ...searched))));
		rows.push(row(engine, 'no search', [], idle.latencies));
	} finally {
		await probe?.stop();
		await server.stop();
	}
	return rows;
}

function row(
	engine: EngineServer['engine'],
	what: string,
	runs: { status: number; ms: number; found: number | string }[],
	latencies: number[],
) {
	const statuses = [...new Set(runs.map(({ status }) => status))].join(', ');
	const times = runs.map(({ ms }) => ms);
	// A search quicker than one /livez request may see none begin while it runs.
	const livez = latencies.length ? latencySummary(latencies) : { p50: '', p99: '', max: '' };
	return [
		ENGINE_NAME[engine],
		what,
		statuses || '',
		runs.length ? String(runs[0].found) : '',
		runs.length ? median(times) : '',
		runs.length ? Math.max(...times) : '',
		latencies.length,
		livez.p50,
		livez.p99,
		livez.max,
	];
}

async function main(): Promise<void> {
	const stores = new BenchStores();
	const rows: (string | number)[][] = [];
	let postgres: string | undefined;
	try {
		for (const engine of enginesFromEnv()) rows.push(...(await measure(stores, engine)));
		postgres = await stores.describe();
	} finally {
		await stores.stop();
	}
	printTable(
		`Searches over ${MESSAGES} bodies of 66 lines of 998 "a", ${RUNS} of each; GET /livez asked without pause meanwhile (ms)`,
		['engine', 'search', 'status', 'found', 'search p50', 'search max', '/livez asked', '/livez p50', '/livez p99', '/livez max'],
		rows,
	);
	if (postgres) console.log(`\n${postgres}`);
}

main().catch((err) => {
	console.error(err);
	process.exit(1);
});
