// Latency at a steady rate on each engine: end of DATA to the 250 (once durable), and to the message being readable through
// the API; several runs, the engines taking turns.
import { BenchStores, ENGINE_NAME, enginesFromEnv, inRunOrder, type Engine, type EngineServer } from './support/engines';
import { TimedSmtpConnection, benchMessage } from './support/smtp-client';
import { envNumber, latencySummary, overRuns, printTable } from './support/report';
import { atSteadyRate } from './support/steady-rate';
import { httpGet } from './support/http-client';

const RATE = envNumber('BENCH_RATE', 500);
const SECONDS = envNumber('BENCH_SECONDS', 10);
const CONNECTIONS = envNumber('BENCH_CONNECTIONS', 8);
const SIZE = envNumber('BENCH_SIZE', 4096);
// Not counted: the first second meets a cold JIT and a WAL file still growing (each fsync then also writes its new size).
const WARMUP_SECONDS = envNumber('BENCH_WARMUP_SECONDS', 1);

const RUNS = envNumber('BENCH_RUNS', 3);
const ENGINES = enginesFromEnv();

interface RunSamples {
	toReply: number[];
	toVisible: number[];
	late: number;
	achieved: number;
}

/** One run on a new server: RATE messages a second, each asked for through the API once its 250 is in. */
async function measureRun(server: EngineServer): Promise<RunSamples> {
	const connections = await Promise.all(Array.from({ length: CONNECTIONS }, () => TimedSmtpConnection.open(server.smtpPort)));
	const toReply: number[] = [];
	const toVisible: number[] = [];
	const warmup = RATE * WARMUP_SECONDS;
	const total = warmup + RATE * SECONDS;
	const { start, late } = await atSteadyRate(connections, RATE, total, async (connection, i) => {
		// An inbox's next message follows 1,000 sends later (2 s at 500/s): it cannot be the newest yet when this one is asked for.
		const inbox = `latency${i % 1000}@bench.test`;
		const { reply, ms, dataEnd } = await connection.send('bench@sender.test', inbox, benchMessage(inbox, `m${i}`, SIZE));
		const id = /stored as (\S+)/.exec(reply)?.[1];
		const [newest] = JSON.parse((await httpGet(`${server.httpUrl}/api/addresses/${encodeURIComponent(inbox)}/messages?limit=1`)).body) as {
			_id: string;
		}[];
		const visibleMs = performance.now() - dataEnd;
		if (newest?._id !== id) throw new Error(`message ${id} not the newest of ${inbox} after its 250 (${reply}), ${newest?._id} is`);
		if (i < warmup) return;
		toReply.push(ms);
		toVisible.push(visibleMs);
	});
	const achieved = total / ((performance.now() - start) / 1000);
	connections.forEach((connection) => connection.close());
	return { toReply, toVisible, late, achieved };
}

const REPLY_LABEL: Record<Engine, string> = { sqlite: '250 (committed + fsynced)', postgres: '250 (committed, WAL flushed)' };

function printLatencies(runs: Map<Engine, RunSamples[]>, postgres: string | undefined): void {
	const rows: (string | number)[][] = [];
	for (const [engine, samples] of runs) {
		for (const [label, of] of [
			[REPLY_LABEL[engine], (run: RunSamples) => run.toReply],
			['visible through the API', (run: RunSamples) => run.toVisible],
		] as const) {
			const summaries = samples.map((run) => latencySummary(of(run)));
			const figure = (name: 'p50' | 'p95' | 'p99' | 'max') => overRuns(summaries.map((summary) => summary[name]));
			rows.push([ENGINE_NAME[engine], label, figure('p50'), figure('p95'), figure('p99'), figure('max')]);
		}
	}
	printTable(
		`Latency at ${RATE} msg/s for ${SECONDS} s (after ${WARMUP_SECONDS} s not counted) over ${CONNECTIONS} reused connections ` +
			`(${SIZE}-byte messages), a new server each run: median of ${RUNS} runs (lowest–highest)${postgres ? `; ${postgres}` : ''}`,
		['engine', 'from end of DATA to', 'p50 ms', 'p95 ms', 'p99 ms', 'max ms'],
		rows,
	);
	printTable(
		'The load as sent: median of the runs (lowest–highest)',
		['engine', 'achieved msg/s', 'sends behind schedule'],
		[...runs].map(([engine, samples]) => [
			ENGINE_NAME[engine],
			overRuns(samples.map((run) => run.achieved)),
			overRuns(samples.map((run) => run.late)),
		]),
	);
}

async function main(): Promise<void> {
	const stores = new BenchStores();
	const runs = new Map<Engine, RunSamples[]>(ENGINES.map((engine) => [engine, []]));
	try {
		for (let run = 0; run < RUNS; run++) {
			for (const engine of inRunOrder(ENGINES, run)) {
				const server = await stores.startServer(engine);
				try {
					runs.get(engine)!.push(await measureRun(server));
				} finally {
					await server.stop();
				}
			}
		}
		printLatencies(runs, await stores.describe());
	} finally {
		await stores.stop();
	}
}

main().catch((err) => {
	console.error(err);
	process.exit(1);
});
