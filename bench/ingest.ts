// Ingest throughput: Mailroom on each engine (250 only once durable) against a no-op smtp-server and a naive storing one,
// same load, same run, several runs.
import { haveSmtpSource, smtpSource } from './support/load';
import { BenchStores, enginesFromEnv, inRunOrder, type Engine, type EngineServer } from './support/engines';
import { cpuMsOf, memoryOf, treePssMbOf } from './support/proc-stats';
import { startScriptProcess } from './support/processes';
import { envNumber, median, overRuns, printTable } from './support/report';
import { startDnsServer, type TestDnsServer } from '../test/helpers/dns-server';

const MESSAGES = envNumber('BENCH_MESSAGES', 30000);
const NEW_CONNECTION_MESSAGES = envNumber('BENCH_NEW_CONNECTION_MESSAGES', 2000);
const SESSIONS = envNumber('BENCH_SESSIONS', 16);
const SIZE = envNumber('BENCH_SIZE', 4096);
const RUNS = envNumber('BENCH_RUNS', 3);
const WARMUP_MESSAGES = envNumber('BENCH_WARMUP_MESSAGES', 2000);
const ENGINES = enginesFromEnv();
/** BENCH_VERIFY=0 leaves out the run of SQLite with sender verification (SPF, DKIM, DMARC, ARC) on. */
const VERIFY = process.env.BENCH_VERIFY !== '0';
/** Sender verification is off on the other servers: their figures compare with earlier ones and with each other. */
const UNVERIFIED = ['--verify-senders', 'false'];

/** `--durability normal` (through BENCH_SERVER_ARGS) acknowledges on SQLite once committed, without the fsync. */
const SQLITE_COMMITTED_ONLY = /--durability[ =]normal/.test(process.env.BENCH_SERVER_ARGS ?? '');
const SERVER_LABEL: Record<Engine, string> = {
	sqlite: `mailroom, SQLite (${SQLITE_COMMITTED_ONLY ? 'committed' : 'durable'})`,
	// PostgreSQL acknowledges a commit once its WAL is flushed: durable whatever --durability says.
	postgres: 'mailroom, PostgreSQL (durable)',
};
const VERIFIED_LABEL = `${SERVER_LABEL.sqlite}, senders verified`;

/** A server under load: where it listens, and the CPU time of what works for it. */
interface Target {
	port: number;
	pid: number;
	/** CPU time of its database server (PostgreSQL), ms; 0 for the others. */
	databaseCpuMs: () => number;
}

interface Measurement {
	perSecond: number;
	/** The server process's CPU time (all threads) per message. */
	cpuUs: number;
	/** PostgreSQL's (every backend and helper process) per message. */
	databaseCpuUs: number;
	/** No-op's rate in the same run, same connections. */
	ratioToNoop?: number;
	rssMb?: number;
	peakMb?: number;
	databasePssMb?: number;
}

/** Runs a load and reports CPU time per message: a figure that holds even on a busy machine. */
async function measure(target: Target, reuse: boolean, messages: number): Promise<Measurement> {
	const [cpu, databaseCpu] = [cpuMsOf(target.pid), target.databaseCpuMs()];
	const { perSecond } = await smtpSource({ port: target.port, sessions: SESSIONS, messages, size: SIZE, reuse });
	return {
		perSecond,
		cpuUs: ((cpuMsOf(target.pid) - cpu) * 1000) / messages,
		databaseCpuUs: ((target.databaseCpuMs() - databaseCpu) * 1000) / messages,
	};
}

const warmUp = (target: Target) =>
	smtpSource({ port: target.port, sessions: SESSIONS, messages: WARMUP_MESSAGES, size: SIZE, reuse: true });

/** The measurements of each row of the tables, one per run, in the order rows are first recorded. */
class Rows {
	readonly all: { server: string; connections: string; runs: Measurement[] }[] = [];

	add(server: string, connections: string, measurement: Measurement): void {
		let row = this.all.find((candidate) => candidate.server === server && candidate.connections === connections);
		if (!row) this.all.push((row = { server, connections, runs: [] }));
		row.runs.push(measurement);
	}

	runsOf(server: string, connections: string): Measurement[] {
		return this.all.find((row) => row.server === server && row.connections === connections)?.runs ?? [];
	}
}

/**
 * The sender's domain as a local DNS server publishes it: smtp-source's mail (from load@sender.test, over loopback) passes
 * SPF and DMARC, as most mail a real server receives has records to look up.
 */
const SENDER_ZONE = {
	txt: { 'sender.test': ['v=spf1 ip4:127.0.0.1 -all'], '_dmarc.sender.test': ['v=DMARC1; p=reject'] },
};

/** A server under load for its rows: its throughput with reused and with new connections, its memory. */
async function measureServer(server: EngineServer, engine: Engine, stores: BenchStores, noop: { reused: number; fresh: number }) {
	const pid = server.child.pid!;
	const target = { port: server.smtpPort, pid, databaseCpuMs: () => (engine === 'postgres' ? stores.databaseCpuMs() : 0) };
	await warmUp(target);
	const reused = await measure(target, true, MESSAGES);
	const { rssMb, peakMb } = memoryOf(pid);
	const databasePssMb = engine === 'postgres' ? treePssMbOf((await stores.postgres()).pid) : undefined;
	const fresh = await measure(target, false, NEW_CONNECTION_MESSAGES);
	const stored = (await (await fetch(`${server.httpUrl}/api/addresses/load%40bench.test/messages?limit=1`)).json()) as unknown[];
	await server.stop();
	if (stored.length !== 1) throw new Error(`messages were not stored on ${engine}`);
	return {
		reused: { ...reused, ratioToNoop: reused.perSecond / noop.reused, rssMb, peakMb, databasePssMb },
		fresh: { ...fresh, ratioToNoop: fresh.perSecond / noop.fresh },
	};
}

/** One run: both baselines, then Mailroom on each engine (and SQLite verifying senders), each server new. */
async function run(index: number, stores: BenchStores, rows: Rows, dns: TestDnsServer | undefined): Promise<void> {
	const baseline = async (script: string) => {
		const server = await startScriptProcess(script);
		return { server, target: { port: server.port, pid: server.child.pid!, databaseCpuMs: () => 0 } };
	};
	const noop = await baseline('noop-smtp-server.js');
	await warmUp(noop.target);
	const noopReused = await measure(noop.target, true, MESSAGES);
	const noopNew = await measure(noop.target, false, NEW_CONNECTION_MESSAGES);
	await noop.server.stop();
	rows.add('no-op smtp-server', 'reused', { ...noopReused, ratioToNoop: 1 });
	rows.add('no-op smtp-server', 'new each', { ...noopNew, ratioToNoop: 1 });

	// Calibrates this machine against the issue's figures (no-op about 5,400/s, naive about 1,200/s on its machine type).
	const naive = await baseline('naive-smtp-server.js');
	await warmUp(naive.target);
	const naiveReused = await measure(naive.target, true, MESSAGES);
	await naive.server.stop();
	rows.add('naive (simpleParser, 1 row, fsync each)', 'reused', {
		...naiveReused,
		ratioToNoop: naiveReused.perSecond / noopReused.perSecond,
	});

	const noopRates = { reused: noopReused.perSecond, fresh: noopNew.perSecond };
	const variants = [
		...ENGINES.map((engine) => ({ engine, verified: false })),
		...(dns ? [{ engine: 'sqlite' as const, verified: true }] : []),
	];
	for (const { engine, verified } of inRunOrder(variants, index)) {
		const args = verified ? ['--verify-senders', 'true', '--dns-servers', dns!.address] : UNVERIFIED;
		const { reused, fresh } = await measureServer(await stores.startServer(engine, { args }), engine, stores, noopRates);
		const label = verified ? VERIFIED_LABEL : SERVER_LABEL[engine];
		rows.add(label, 'reused', reused);
		rows.add(label, 'new each', fresh);
	}
}

/** A column over the runs: the median and the spread of one figure, blank where no run has it. */
const column = (runs: Measurement[], figure: (m: Measurement) => number | undefined) => {
	const values = runs.map(figure).filter((value): value is number => value !== undefined);
	return values.length ? overRuns(values) : '';
};

function printFigures(rows: Rows, title: string): void {
	printTable(
		`${title}: median of ${RUNS} runs (lowest–highest)`,
		[
			'server',
			'connections',
			'msg/s',
			'vs no-op %',
			'server CPU µs/msg',
			'PostgreSQL CPU µs/msg',
			'RSS MB',
			'peak RSS MB',
			'PostgreSQL PSS MB',
		],
		rows.all.map(({ server, connections, runs }) => [
			server,
			connections,
			column(runs, (m) => m.perSecond),
			column(runs, (m) => m.ratioToNoop && 100 * m.ratioToNoop),
			column(runs, (m) => m.cpuUs),
			column(runs, (m) => (m.databaseCpuUs > 0 ? m.databaseCpuUs : undefined)),
			column(runs, (m) => m.rssMb),
			column(runs, (m) => m.peakMb),
			column(runs, (m) => m.databasePssMb),
		]),
	);
}

const microseconds = (value: number) => Math.round(value).toLocaleString('en-US');

/** SQLite verifying senders against SQLite not verifying, run by run: rates and CPU per message. */
function printVerificationRatios(rows: Rows): void {
	const pairs = ['reused', 'new each'].map((connections) => {
		const [off, on] = [rows.runsOf(SERVER_LABEL.sqlite, connections), rows.runsOf(VERIFIED_LABEL, connections)];
		const perRun = (figure: (m: Measurement) => number) => off.map((o, i) => (100 * figure(on[i])) / figure(o));
		return [connections, overRuns(perRun((m) => m.perSecond)), overRuns(perRun((m) => m.cpuUs))];
	});
	printTable(
		'Senders verified (DNS answered by a local server) against not verified, SQLite, run by run: median (lowest–highest)',
		['connections', 'msg/s, % of not verified', 'CPU µs/msg, % of not verified'],
		pairs,
	);
}

/** PostgreSQL against SQLite, run by run: rates, and CPU per message with PostgreSQL's own counted. */
function printEngineRatios(rows: Rows): void {
	const pairs = ['reused', 'new each'].map((connections) => {
		const [sqlite, postgres] = [rows.runsOf(SERVER_LABEL.sqlite, connections), rows.runsOf(SERVER_LABEL.postgres, connections)];
		const perRun = (figure: (m: Measurement) => number) => sqlite.map((s, i) => (100 * figure(postgres[i])) / figure(s));
		return [
			connections,
			overRuns(perRun((m) => m.perSecond)),
			overRuns(perRun((m) => m.cpuUs + m.databaseCpuUs)),
			`${microseconds(median(postgres.map((m) => m.cpuUs + m.databaseCpuUs)))} / ${microseconds(median(sqlite.map((m) => m.cpuUs)))}`,
		];
	});
	printTable(
		'PostgreSQL against SQLite, run by run: median (lowest–highest)',
		['connections', 'msg/s, % of SQLite', 'CPU µs/msg (server + PostgreSQL), % of SQLite', 'medians µs/msg (PostgreSQL / SQLite)'],
		pairs,
	);
}

async function main(): Promise<void> {
	if (!haveSmtpSource()) throw new Error('smtp-source not found: apt-get install postfix (see bench/README.md)');
	const stores = new BenchStores();
	const rows = new Rows();
	const dns = VERIFY && ENGINES.includes('sqlite') ? await startDnsServer(SENDER_ZONE) : undefined;
	try {
		for (let i = 0; i < RUNS; i++) await run(i, stores, rows, dns);
		const postgres = await stores.describe();
		printFigures(rows, `Ingest: ${SIZE}-byte messages, ${SESSIONS} sessions (smtp-source)${postgres ? `; ${postgres}` : ''}`);
		if (ENGINES.length === 2) printEngineRatios(rows);
		if (dns) printVerificationRatios(rows);
	} finally {
		await stores.stop();
		await dns?.close();
	}
}

main().catch((err) => {
	console.error(err);
	process.exit(1);
});
