// Reads at scale: fill a store on each engine through SMTP (one record per recipient inbox), watching RSS, then time inbox
// listings, text reads and account-wide searches of random inboxes through the API, the engines' requests interleaved.
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { haveSmtpSource, smtpSource } from './support/load';
import { BenchStores, ENGINE_NAME, enginesFromEnv, inRunOrder, type Engine, type EngineServer } from './support/engines';
import { cpuMsOf, memoryOf } from './support/proc-stats';
import { createAdminKey } from './support/processes';
import { envNumber, latencySummary, overRuns, printTable } from './support/report';
import { httpGet, httpPost } from './support/http-client';

const RECORDS = envNumber('BENCH_RECORDS', 1_000_000);
const INBOXES = envNumber('BENCH_INBOXES', 10_000);
const READS = envNumber('BENCH_READS', 2000);
const RUNS = envNumber('BENCH_RUNS', 3);
const ENGINES = enginesFromEnv();
// smtp-source -r N sends each message to N inboxes: <base>, 2<base>, ... N<base>.
const RECIPIENTS_PER_MESSAGE = 100;
/** The database of the PostgreSQL store kept in BENCH_PG_DIR. */
const KEPT_DATABASE = 'mailroom_scale';

const REQUESTS = {
	list: 'list an inbox (100 newest)',
	text: 'read a message text',
	search: 'search the account for a word (addresses, names, subject, body)',
	query: 'search the account with operators (to:, is:unread, after:, -)',
} as const;
type Request = keyof typeof REQUESTS;

/** Queries of the search language about an inbox's name, one taken at random each time; `-name` alone is a scan. */
const OPERATOR_QUERIES = [
	(word: string) => `to:${word} is:unread`,
	(word: string) => `${word} after:2000-01-01`,
	(word: string) => `-${word}`,
];

/**
 * BENCH_REQUESTS: the requests to time, comma-separated (list, text, search, query); default all. An inbox is listed either way,
 * to pick the message whose text is read.
 */
function requestsFromEnv(): Request[] {
	const names = (process.env.BENCH_REQUESTS ?? Object.keys(REQUESTS).join(',')).split(',').map((name) => name.trim());
	const unknown = names.filter((name) => !(name in REQUESTS));
	if (unknown.length) throw new Error(`BENCH_REQUESTS takes ${Object.keys(REQUESTS).join(', ')}, not "${unknown.join(',')}"`);
	return names as Request[];
}
const TIMED = requestsFromEnv();

function inboxName(index: number): string {
	const group = Math.floor(index / RECIPIENTS_PER_MESSAGE);
	const n = (index % RECIPIENTS_PER_MESSAGE) + 1;
	return `${n === 1 ? '' : n}g${group}@scale.test`;
}

/** A filled store's server, with the admin key its reads use. */
interface Filled {
	server: EngineServer;
	key: string;
	records: number;
	/** How the fill went; undefined when an earlier run filled the store. */
	fill?: { seconds: number; peakRssMb: number; cpuUsPerRecord: number; databaseCpuUsPerRecord: number };
	claimSeconds: number;
}

/** The store of `engine`: BENCH_DATA_DIR keeps SQLite's data folder, BENCH_PG_DIR PostgreSQL's (database mailroom_scale). */
function startStore(stores: BenchStores, engine: Engine): Promise<EngineServer> {
	if (engine === 'sqlite') return stores.startServer(engine, { dataDir: process.env.BENCH_DATA_DIR });
	return stores.startServer(engine, { database: process.env.BENCH_PG_DIR ? KEPT_DATABASE : undefined });
}

/** Fills the store through SMTP unless it is filled already, then claims the domain for the admin account when searches are timed. */
async function fill(stores: BenchStores, engine: Engine): Promise<Filled> {
	const server = await startStore(stores, engine);
	const pid = server.child.pid!;
	const groups = Math.ceil(INBOXES / RECIPIENTS_PER_MESSAGE);
	const messagesPerGroup = Math.ceil(RECORDS / INBOXES);
	const records = groups * messagesPerGroup * RECIPIENTS_PER_MESSAGE;
	const key = createAdminKey(server);
	const lastInbox = `${server.httpUrl}/api/addresses/${encodeURIComponent(inboxName(INBOXES - 1))}/messages`;
	const alreadyFilled = (JSON.parse((await httpGet(lastInbox, { 'Service-Key': key })).body) as unknown[]).length > 0;
	let figures: Filled['fill'];
	if (!alreadyFilled) {
		let peakRssMb = 0;
		const watch = setInterval(() => (peakRssMb = Math.max(peakRssMb, memoryOf(pid).rssMb)), 200);
		const [cpu, databaseCpu] = [cpuMsOf(pid), stores.databaseCpuMs()];
		const started = performance.now();
		for (let group = 0; group < groups; group++) {
			await smtpSource({
				port: server.smtpPort,
				sessions: 4,
				messages: messagesPerGroup,
				size: 2048,
				reuse: true,
				to: `g${group}@scale.test`,
				recipients: RECIPIENTS_PER_MESSAGE,
			});
			const stored = (group + 1) * messagesPerGroup * RECIPIENTS_PER_MESSAGE;
			const seconds = (performance.now() - started) / 1000;
			if (group % 10 === 9)
				console.log(
					`  ${ENGINE_NAME[engine]}: ${stored.toLocaleString('en-US')} records in ${Math.round(seconds)} s ` +
						`(${Math.round(stored / seconds)}/s), RSS ${Math.round(memoryOf(pid).rssMb)} MB`,
				);
		}
		clearInterval(watch);
		figures = {
			seconds: (performance.now() - started) / 1000,
			peakRssMb,
			cpuUsPerRecord: ((cpuMsOf(pid) - cpu) * 1000) / records,
			databaseCpuUsPerRecord: ((stores.databaseCpuMs() - databaseCpu) * 1000) / records,
		};
	}
	// For searches, the domain becomes the admin's: its mail is private, so reads need the key and account-wide search covers
	// it. Claiming indexes the mail the domain has already (the first time: on a million records, most of an hour on this
	// machine); listings and text reads are timed on public mail without it.
	if (!TIMED.includes('search') && !TIMED.includes('query')) return { server, key, records, fill: figures, claimSeconds: 0 };
	const claiming = performance.now();
	const claimed = await httpPost(`${server.httpUrl}/api/domains/scale.test`, { 'Service-Key': key });
	if (claimed.status >= 300) throw new Error(`claiming scale.test failed: ${claimed.status} ${claimed.body}`);
	return { server, key, records, fill: figures, claimSeconds: (performance.now() - claiming) / 1000 };
}

/** Bytes the store takes on disk: SQLite's data folder, or the PostgreSQL database. */
async function diskBytes(stores: BenchStores, filled: Filled): Promise<number> {
	if (filled.server.engine === 'postgres') return (await stores.postgres()).sizeOf(new URL(filled.server.databaseUrl!).pathname.slice(1));
	const dir = filled.server.dataDir;
	return readdirSync(dir).reduce((sum, name) => sum + (statSync(join(dir, name)).isFile() ? statSync(join(dir, name)).size : 0), 0);
}

type Samples = Record<Request, number[]>;

/** Times one API request into `samples`; returns its body. */
async function timed(url: string, samples: number[], key: string): Promise<string> {
	const start = performance.now();
	const { status, body } = await httpGet(url, { 'Service-Key': key });
	samples.push(performance.now() - start);
	if (status !== 200) throw new Error(`${url} -> ${status} ${body}`);
	return body;
}

/** A random inbox's listing, one of its messages' text, a search for its name and one of the query language about it. */
async function readOnce({ server, key }: Filled, samples: Samples): Promise<void> {
	const name = inboxName(Math.floor(Math.random() * INBOXES));
	const inbox = encodeURIComponent(name);
	const records = JSON.parse(await timed(`${server.httpUrl}/api/addresses/${inbox}/messages`, samples.list, key)) as { _id: string }[];
	const pick = records[Math.floor(Math.random() * records.length)];
	if (TIMED.includes('text')) await timed(`${server.httpUrl}/api/text/${inbox}/${pick._id}`, samples.text, key);
	if (TIMED.includes('search'))
		await timed(`${server.httpUrl}/api/inbox-search?query=${encodeURIComponent(name.split('@')[0])}`, samples.search, key);
	if (TIMED.includes('query')) {
		const query = OPERATOR_QUERIES[Math.floor(Math.random() * OPERATOR_QUERIES.length)](name.split('@')[0]);
		await timed(`${server.httpUrl}/api/inbox-search?query=${encodeURIComponent(query)}`, samples.query, key);
	}
}

/** RUNS runs of READS reads on each store, the engines taking turns read by read (so both meet the same machine). */
async function timeReads(filled: Filled[]): Promise<Map<Engine, Samples[]>> {
	const runs = new Map<Engine, Samples[]>(filled.map(({ server }) => [server.engine, []]));
	for (let run = 0; run < RUNS; run++) {
		const samples = new Map<Engine, Samples>(filled.map(({ server }) => [server.engine, { list: [], text: [], search: [], query: [] }]));
		for (let i = 0; i < READS; i++) {
			for (const one of inRunOrder(filled, i)) await readOnce(one, samples.get(one.server.engine)!);
		}
		for (const [engine, taken] of samples) runs.get(engine)!.push(taken);
	}
	return runs;
}

async function printFigures(stores: BenchStores, filled: Filled[], reads: Map<Engine, Samples[]>): Promise<void> {
	const postgres = await stores.describe();
	const fillRows: (string | number)[][] = [];
	for (const one of filled) {
		const { fill: figures } = one;
		fillRows.push([
			ENGINE_NAME[one.server.engine],
			one.records.toLocaleString('en-US'),
			figures ? figures.seconds : 'earlier run',
			figures ? one.records / figures.seconds : '',
			figures ? figures.cpuUsPerRecord : '',
			figures && one.server.engine === 'postgres' ? figures.databaseCpuUsPerRecord : '',
			figures ? figures.peakRssMb : '',
			one.claimSeconds,
			(await diskBytes(stores, one)) / 1e6,
			memoryOf(one.server.child.pid!).rssMb,
		]);
	}
	printTable(
		`Filling through SMTP: ${INBOXES.toLocaleString('en-US')} inboxes, ${RECIPIENTS_PER_MESSAGE} recipients per 2 KB message, 4 sessions` +
			(postgres ? `; ${postgres}` : ''),
		[
			'engine',
			'records',
			'fill s',
			'records/s',
			'server CPU µs/record',
			'PostgreSQL CPU µs/record',
			'peak RSS MB',
			'claim s',
			'disk MB',
			'RSS now MB',
		],
		fillRows,
	);
	const rows: (string | number)[][] = [];
	for (const request of TIMED) {
		const summariesOf = (engine: Engine) => reads.get(engine)!.map((samples) => latencySummary(samples[request]));
		// PostgreSQL's figure over SQLite's, run by run (their requests took turns in each run), as the median and the spread.
		const toSqlite = (figure: 'p50' | 'p99') => {
			const [postgres, sqlite] = [summariesOf('postgres'), summariesOf('sqlite')];
			return overRuns(postgres.map((summary, run) => summary[figure] / sqlite[run][figure]));
		};
		for (const { server } of filled) {
			const summaries = summariesOf(server.engine);
			const of = (figure: 'p50' | 'p95' | 'p99' | 'max') => overRuns(summaries.map((summary) => summary[figure]));
			const compared = server.engine === 'postgres' && reads.has('sqlite');
			rows.push([
				REQUESTS[request],
				ENGINE_NAME[server.engine],
				of('p50'),
				of('p95'),
				of('p99'),
				of('max'),
				compared ? toSqlite('p50') : '',
				compared ? toSqlite('p99') : '',
			]);
		}
	}
	printTable(
		`Reads, ${READS} of each per run on each engine, requests of the engines interleaved: median of ${RUNS} runs (lowest–highest); ` +
			'PostgreSQL over SQLite taken run by run',
		['request', 'engine', 'p50 ms', 'p95 ms', 'p99 ms', 'max ms', 'p50 PostgreSQL/SQLite', 'p99 PostgreSQL/SQLite'],
		rows,
	);
}

async function main(): Promise<void> {
	if (!haveSmtpSource()) throw new Error('smtp-source not found: apt-get install postfix (see bench/README.md)');
	const stores = new BenchStores();
	const filled: Filled[] = [];
	try {
		for (const engine of ENGINES) filled.push(await fill(stores, engine));
		await printFigures(stores, filled, await timeReads(filled));
	} finally {
		for (const { server } of filled) await server.stop();
		await stores.stop();
	}
}

main().catch((err) => {
	console.error(err);
	process.exit(1);
});
