// Waiting for mail: from the end of DATA to a waiting GET /api/addresses/<email>/wait-for-message being answered, with
// hundreds of requests waiting at once: one on each of BENCH_WAITERS addresses (sent one message each at a steady rate), and
// BENCH_WAITERS on one address (all answered by one message). The server runs in a process of its own
// (wait-for-server.ts), which tells how many requests wait, so mail is sent only once all of them do.
import { fork, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import type { WaitForServerMessage } from './wait-for-server';
import { TimedSmtpConnection, benchMessage } from './support/smtp-client';
import { waitForNextMessage, type WaitAnswer } from './support/wait-for-client';
import { envNumber, latencySummary, median, overRuns, printTable } from './support/report';
import { atSteadyRate } from './support/steady-rate';

const WAITERS = envNumber('BENCH_WAITERS', 300);
const RUNS = envNumber('BENCH_RUNS', 5);
const ROUNDS = envNumber('BENCH_ROUNDS', 10);
// Not counted: the first round of a run meets a cold JIT.
const WARMUP_ROUNDS = 1;
const RATE = envNumber('BENCH_RATE', 200);
const CONNECTIONS = envNumber('BENCH_CONNECTIONS', 8);
const SIZE = envNumber('BENCH_SIZE', 4096);

interface Samples {
	/** End of DATA to the waiter's whole answer. */
	answered: number[];
	/** End of DATA to the 250. */
	replied: number[];
	/** One address: end of DATA to the last of its waiters answered, per round. */
	allAnswered: number[];
}

/** The server process, as the benchmark reaches it. */
class WaitForServer {
	private constructor(
		private readonly child: ChildProcess,
		readonly smtpPort: number,
		readonly httpUrl: string,
	) {}

	static async start(): Promise<WaitForServer> {
		const child = fork(join(__dirname, 'wait-for-server.js'), { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
		const [{ smtpPort, httpUrl }] = (await once(child, 'message')) as [Required<WaitForServerMessage>];
		return new WaitForServer(child, smtpPort, httpUrl);
	}

	async waiters(): Promise<number> {
		const answer = once(this.child, 'message') as Promise<[Required<WaitForServerMessage>]>;
		this.child.send('waiters');
		return (await answer)[0].waiters;
	}

	async stop(): Promise<void> {
		const exited = once(this.child, 'exit');
		this.child.send('stop');
		await exited;
	}
}

/** Starts waiters and resolves once the server holds all of them, so mail sent afterwards must wake them. */
async function startWaiters(server: WaitForServer, inboxes: string[]): Promise<Promise<WaitAnswer>[]> {
	const answers = inboxes.map((inbox) => waitForNextMessage(server.httpUrl, inbox));
	while ((await server.waiters()) < inboxes.length) await new Promise((resolve) => setTimeout(resolve, 1));
	return answers;
}

/** One waiter on each of WAITERS addresses; one message to each, at RATE per second over CONNECTIONS connections. */
async function spreadRound(server: WaitForServer, connections: TimedSmtpConnection[], round: number, samples: Samples): Promise<void> {
	const inboxes = Array.from({ length: WAITERS }, (_, i) => `spread${i}@bench.test`);
	const answers = await startWaiters(server, inboxes);
	const sent: { dataEnd: number; ms: number }[] = [];
	await atSteadyRate(connections, RATE, WAITERS, async (connection, i) => {
		sent[i] = await connection.send('bench@sender.test', inboxes[i], benchMessage(inboxes[i], `r${round}-${i}`, SIZE));
	});
	const answered = await Promise.all(answers);
	answered.forEach(({ subject, at }, i) => {
		if (subject !== `r${round}-${i}`) throw new Error(`${inboxes[i]} was answered with ${subject}`);
		samples.answered.push(at - sent[i].dataEnd);
		samples.replied.push(sent[i].ms);
	});
}

/** WAITERS waiters on one address, all answered by one message. */
async function oneAddressRound(server: WaitForServer, connection: TimedSmtpConnection, round: number, samples: Samples): Promise<void> {
	const inbox = 'crowded@bench.test';
	const answers = await startWaiters(
		server,
		Array.from({ length: WAITERS }, () => inbox),
	);
	const { dataEnd, ms } = await connection.send('bench@sender.test', inbox, benchMessage(inbox, `one${round}`, SIZE));
	const answered = await Promise.all(answers);
	for (const { subject, at } of answered) {
		if (subject !== `one${round}`) throw new Error(`a waiter was answered with ${subject}`);
		samples.answered.push(at - dataEnd);
	}
	samples.replied.push(ms);
	samples.allAnswered.push(Math.max(...answered.map(({ at }) => at)) - dataEnd);
}

/** One run: a fresh server, ROUNDS rounds of each kind (after WARMUP_ROUNDS not counted). */
async function run(): Promise<{ spread: Samples; oneAddress: Samples }> {
	const server = await WaitForServer.start();
	const connections = await Promise.all(Array.from({ length: CONNECTIONS }, () => TimedSmtpConnection.open(server.smtpPort)));
	const samples = (): Samples => ({ answered: [], replied: [], allAnswered: [] });
	const [spread, oneAddress, ignored] = [samples(), samples(), samples()];
	for (let round = 0; round < WARMUP_ROUNDS + ROUNDS; round++) {
		const counted = round >= WARMUP_ROUNDS;
		await spreadRound(server, connections, round, counted ? spread : ignored);
		await oneAddressRound(server, connections[0], round, counted ? oneAddress : ignored);
	}
	connections.forEach((connection) => connection.close());
	await server.stop();
	return { spread, oneAddress };
}

async function main(): Promise<void> {
	const rows: (string | number)[][] = [];
	const figures: Record<string, { p50: number[]; p99: number[]; all: number[] }> = {};
	for (let i = 1; i <= RUNS; i++) {
		const samples = await run();
		for (const [name, { answered, replied, allAnswered }] of Object.entries({
			[`${WAITERS} addresses, a waiter on each`]: samples.spread,
			[`one address, ${WAITERS} waiters`]: samples.oneAddress,
		})) {
			const wait = latencySummary(answered);
			const reply = latencySummary(replied);
			const all = allAnswered.length ? median(allAnswered) : NaN;
			rows.push([String(i), name, String(answered.length), wait.p50, wait.p95, wait.p99, wait.max, all, reply.p50, reply.p99]);
			figures[name] ??= { p50: [], p99: [], all: [] };
			figures[name].p50.push(wait.p50);
			figures[name].p99.push(wait.p99);
			figures[name].all.push(all);
		}
	}
	printTable(
		`Waiting for mail: end of DATA to the waiter answered, ${RUNS} runs of ${ROUNDS} rounds (after ${WARMUP_ROUNDS} not counted) ` +
			`(${SIZE}-byte messages over ${CONNECTIONS} reused SMTP connections, ${RATE} msg/s to the ${WAITERS} addresses; durability full; ` +
			'all answered: to the last waiter of the one address, median of the rounds)',
		['run', 'waiters', 'answers', 'p50 ms', 'p95 ms', 'p99 ms', 'max ms', 'all answered ms', '250 p50 ms', '250 p99 ms'],
		rows,
	);
	printTable(
		`Median over the ${RUNS} runs (lowest–highest)`,
		['waiters', 'p50 ms', 'p99 ms', 'all answered ms'],
		Object.entries(figures).map(([name, { p50, p99, all }]) => [name, overRuns(p50), overRuns(p99), overRuns(all)]),
	);
}

main().catch((err) => {
	console.error(err);
	process.exit(1);
});
