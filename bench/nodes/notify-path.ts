// bench:nodes, part 2: the NOTIFY path. Mail stored through node A answers a waiting wait-for-message request on node B,
// whose server hears of it through PostgreSQL's LISTEN/NOTIFY; one waiting on node A itself is answered beside it.
import type { BenchStores, EngineServer } from '../support/engines';
import { envNumber, latencySummary, overRuns, printTable } from '../support/report';
import { TimedSmtpConnection, benchMessage } from '../support/smtp-client';
import { atSteadyRate } from '../support/steady-rate';
import { waitForNextMessage, type WaitAnswer } from '../support/wait-for-client';

const WAITERS = envNumber('BENCH_WAITERS', 100);
const ROUNDS = envNumber('BENCH_ROUNDS', 10);
const RATE = envNumber('BENCH_RATE', 200);
const CONNECTIONS = envNumber('BENCH_CONNECTIONS', 8);
const SIZE = envNumber('BENCH_SIZE', 4096);
/**
 * Between asking the waiters to wait and sending the mail: for the requests to reach the servers and register. A waiter
 * still not registered then is not lost (it waits since the round began) but is answered late, in the tail.
 */
const SETTLE_MS = 200;

export interface PathSamples {
	/** End of DATA (on node A) to its 250. */
	replied: number[];
	/** End of DATA to the waiter on node A answered. */
	answeredOnA: number[];
	/** End of DATA to the waiter on node B answered: through NOTIFY. */
	answeredOnB: number[];
	/** The 250 on node A to the waiter on node B answered. */
	bAfterReply: number[];
}

/** One round: a waiter on each node for each of WAITERS inboxes, then one message to each inbox through node A. */
async function pathRound(
	a: EngineServer,
	b: EngineServer,
	connections: TimedSmtpConnection[],
	round: number,
	samples: PathSamples,
): Promise<void> {
	const inboxes = Array.from({ length: WAITERS }, (_, i) => `path${i}@bench.test`);
	const began = new Date();
	const onA = inboxes.map((inbox) => waitForNextMessage(a.httpUrl, inbox, began));
	const onB = inboxes.map((inbox) => waitForNextMessage(b.httpUrl, inbox, began));
	await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
	const sent: { dataEnd: number; ms: number }[] = [];
	await atSteadyRate(connections, RATE, WAITERS, async (connection, i) => {
		sent[i] = await connection.send('bench@sender.test', inboxes[i], benchMessage(inboxes[i], `r${round}-${i}`, SIZE));
	});
	const [answersA, answersB] = [await Promise.all(onA), await Promise.all(onB)];
	const check = (answer: WaitAnswer, i: number) => {
		if (answer.subject !== `r${round}-${i}`) throw new Error(`${inboxes[i]} was answered with ${answer.subject}`);
	};
	sent.forEach(({ dataEnd, ms }, i) => {
		check(answersA[i], i);
		check(answersB[i], i);
		samples.replied.push(ms);
		samples.answeredOnA.push(answersA[i].at - dataEnd);
		samples.answeredOnB.push(answersB[i].at - dataEnd);
		samples.bAfterReply.push(answersB[i].at - dataEnd - ms);
	});
}

/** One run of the NOTIFY path: two new nodes on a new database, ROUNDS rounds after one not counted (cold JIT). */
export async function measureNotifyPath(stores: BenchStores): Promise<PathSamples> {
	const a = await stores.startServer('postgres');
	const b = await stores.startNode(a);
	const connections = await Promise.all(Array.from({ length: CONNECTIONS }, () => TimedSmtpConnection.open(a.smtpPort)));
	const samples: PathSamples = { replied: [], answeredOnA: [], answeredOnB: [], bAfterReply: [] };
	const ignored: PathSamples = { replied: [], answeredOnA: [], answeredOnB: [], bAfterReply: [] };
	for (let round = 0; round <= ROUNDS; round++) await pathRound(a, b, connections, round, round === 0 ? ignored : samples);
	connections.forEach((connection) => connection.close());
	await b.stop();
	await a.stop();
	return samples;
}

export function printNotifyPath(runs: PathSamples[]): void {
	const rows = (
		[
			['250 on node A', 'replied'],
			['waiter on node A answered', 'answeredOnA'],
			['waiter on node B answered (NOTIFY)', 'answeredOnB'],
			['node B answered, after the 250 on A', 'bAfterReply'],
		] as const
	).map(([label, key]) => {
		const summaries = runs.map((run) => latencySummary(run[key]));
		const figure = (name: 'p50' | 'p95' | 'p99' | 'max') => overRuns(summaries.map((summary) => summary[name]));
		return [label, figure('p50'), figure('p95'), figure('p99'), figure('max')];
	});
	printTable(
		`The NOTIFY path: ${WAITERS} inboxes, each with a waiting wait-for-message on node A and one on node B; one message to each ` +
			`through node A at ${RATE} msg/s over ${CONNECTIONS} connections; ${ROUNDS} rounds a run (after one not counted): ` +
			`median of ${runs.length} runs (lowest–highest), from the end of DATA unless said`,
		['to', 'p50 ms', 'p95 ms', 'p99 ms', 'max ms'],
		rows,
	);
}
