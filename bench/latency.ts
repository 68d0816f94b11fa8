// Latency at a steady rate: end of DATA to the 250 (commit + fsync), and to the message being readable through the API.
import { startMailroomProcess } from './support/processes';
import { TimedSmtpConnection, benchMessage } from './support/smtp-client';
import { envNumber, latencySummary, printTable } from './support/report';
import { atSteadyRate } from './support/steady-rate';
import { httpGet } from './support/http-client';

const RATE = envNumber('BENCH_RATE', 500);
const SECONDS = envNumber('BENCH_SECONDS', 10);
const CONNECTIONS = envNumber('BENCH_CONNECTIONS', 8);
const SIZE = envNumber('BENCH_SIZE', 4096);
// Not counted: the first second meets a cold JIT and a WAL file still growing (each fsync then also writes its new size).
const WARMUP_SECONDS = envNumber('BENCH_WARMUP_SECONDS', 1);

async function main(): Promise<void> {
	const server = await startMailroomProcess();
	const connections = await Promise.all(Array.from({ length: CONNECTIONS }, () => TimedSmtpConnection.open(server.smtpPort)));
	const toReply: number[] = [];
	const toVisible: number[] = [];
	const warmup = RATE * WARMUP_SECONDS;
	const total = warmup + RATE * SECONDS;
	const { start, late } = await atSteadyRate(connections, RATE, total, async (connection, i) => {
		const inbox = `latency${i % 100}@bench.test`;
		const { reply, ms, dataEnd } = await connection.send('bench@sender.test', inbox, benchMessage(inbox, `m${i}`, SIZE));
		const id = /stored as (\S+)/.exec(reply)?.[1];
		const [newest] = JSON.parse((await httpGet(`${server.httpUrl}/api/addresses/${encodeURIComponent(inbox)}/messages?limit=1`)).body) as {
			_id: string;
		}[];
		const visibleMs = performance.now() - dataEnd;
		if (newest?._id !== id) throw new Error(`message ${id} not visible after its 250 (${reply})`);
		if (i < warmup) return;
		toReply.push(ms);
		toVisible.push(visibleMs);
	});
	const seconds = (performance.now() - start) / 1000;
	connections.forEach((connection) => connection.close());
	await server.stop();

	const reply = latencySummary(toReply);
	const visible = latencySummary(toVisible);
	printTable(
		`Latency at ${RATE} msg/s for ${SECONDS} s (after ${WARMUP_SECONDS} s not counted) over ${CONNECTIONS} reused connections (${SIZE}-byte messages; ${late} sends behind schedule; achieved ${Math.round(total / seconds)} msg/s)`,
		['from end of DATA to', 'p50 ms', 'p95 ms', 'p99 ms', 'max ms'],
		[
			['250 (committed + fsynced)', reply.p50, reply.p95, reply.p99, reply.max],
			['visible through the API', visible.p50, visible.p95, visible.p99, visible.max],
		],
	);
}

main().catch((err) => {
	console.error(err);
	process.exit(1);
});
