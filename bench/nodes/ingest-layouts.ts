// bench:nodes, part 1: ingest on PostgreSQL in several layouts of one or two nodes, the same total load in each.
import { smtpSource } from '../support/load';
import { inRunOrder, type BenchStores, type EngineServer } from '../support/engines';
import { cpuMsOf } from '../support/proc-stats';
import { envNumber, latencySummary, overRuns, printTable } from '../support/report';
import { httpGet } from '../support/http-client';
import { sendToRandomInboxes } from '../support/random-inbox-load';

const MESSAGES = envNumber('BENCH_MESSAGES', 20000);
const SESSIONS = envNumber('BENCH_SESSIONS', 16);
const SIZE = envNumber('BENCH_SIZE', 4096);
const RANDOM_SECONDS = envNumber('BENCH_RANDOM_SECONDS', 10);
const WARMUP_MESSAGES = envNumber('BENCH_WARMUP_MESSAGES', 2000);
const WARMUP_INBOX = 'warmup@bench.test';
/** Every message stays, so that all of them can be counted back. */
const SERVER_ARGS = ['--retention-max-per-inbox', '0'];

/** What a layout's load did: how many messages in how long, to which inboxes, and each 250's time when it was timed. */
interface LoadOutcome {
	messages: number;
	seconds: number;
	inboxes: string[];
	replyMs?: number[];
}

/** smtp-source on each of `nodes`, with its share of the sessions and messages, to the inbox `inboxOf` its index. */
async function smtpSourceOn(nodes: EngineServer[], inboxOf: (node: number) => string): Promise<LoadOutcome> {
	const results = await Promise.all(
		nodes.map((node, i) =>
			smtpSource({
				port: node.smtpPort,
				sessions: SESSIONS / nodes.length,
				messages: MESSAGES / nodes.length,
				size: SIZE,
				reuse: true,
				to: inboxOf(i),
			}),
		),
	);
	return {
		messages: MESSAGES,
		seconds: Math.max(...results.map((result) => result.seconds)),
		inboxes: [...new Set(nodes.map((_, i) => inboxOf(i)))],
	};
}

const RANDOM_INBOXES = Array.from({ length: 10 }, (_, i) => `random${i}@bench.test`);

/** The sessions shared among `nodes`, each message to one of 10 inboxes at random, for RANDOM_SECONDS. */
async function randomInboxesOn(nodes: EngineServer[]): Promise<LoadOutcome> {
	const ports = nodes.map((node) => node.smtpPort);
	const outcome = await sendToRandomInboxes({
		ports,
		connections: SESSIONS / nodes.length,
		inboxes: RANDOM_INBOXES,
		seconds: RANDOM_SECONDS,
		size: SIZE,
	});
	return { ...outcome, inboxes: RANDOM_INBOXES };
}

/** How many nodes run, and the load on them (the same in total in every layout of a kind). */
const LAYOUTS = {
	one: { label: 'one node', nodes: 1, load: ([a]: EngineServer[]) => smtpSourceOn([a], () => 'load@bench.test') },
	listening: { label: 'one node, a second listening', nodes: 2, load: ([a]: EngineServer[]) => smtpSourceOn([a], () => 'load@bench.test') },
	split: { label: 'two nodes, an inbox each', nodes: 2, load: (both: EngineServer[]) => smtpSourceOn(both, (i) => `load${i}@bench.test`) },
	shared: { label: 'two nodes, one inbox', nodes: 2, load: (both: EngineServer[]) => smtpSourceOn(both, () => 'load@bench.test') },
	randomOne: { label: 'one node, 10 inboxes at random', nodes: 1, load: ([a]: EngineServer[]) => randomInboxesOn([a]) },
	randomTwo: { label: 'two nodes, 10 inboxes at random', nodes: 2, load: (both: EngineServer[]) => randomInboxesOn(both) },
} as const;
export type Layout = keyof typeof LAYOUTS;
/** The one-node layout each is compared with. */
const ONE_NODE_OF: Record<Layout, Layout> = {
	one: 'one',
	listening: 'one',
	split: 'one',
	shared: 'one',
	randomOne: 'randomOne',
	randomTwo: 'randomOne',
};

export interface IngestFigures {
	perSecond: number;
	/** CPU time per message of node A and (when there is one) node B. */
	nodeCpuUs: number[];
	databaseCpuUs: number;
	/**
	 * Over the servers' whole life (their start, the warm-up and the load): messages per write transaction (the group
	 * commit's batch), WAL fsyncs per write transaction, and WAL bytes per message.
	 */
	messagesPerTransaction: number;
	walFsyncsPerTransaction: number;
	/** The mean time of one WAL fsync. */
	walFsyncMs: number;
	walBytesPerMessage: number;
	deadlocks: number;
	/** End of DATA to the 250, p99 (random-inbox loads only). */
	replyP99?: number;
}

/** One layout on a new database: a warm-up, the load, then every message counted back. */
async function ingestRun(stores: BenchStores, layout: Layout): Promise<IngestFigures> {
	const postgres = await stores.postgres();
	const before = await postgres.activity();
	const a = await stores.startServer('postgres', { args: SERVER_ARGS });
	const nodes = LAYOUTS[layout].nodes === 2 ? [a, await stores.startNode(a, SERVER_ARGS)] : [a];
	await smtpSource({ port: a.smtpPort, sessions: SESSIONS, messages: WARMUP_MESSAGES, size: SIZE, reuse: true, to: WARMUP_INBOX });
	const [cpu, databaseCpu] = [nodes.map((node) => cpuMsOf(node.child.pid!)), stores.databaseCpuMs()];
	const outcome = await LAYOUTS[layout].load(nodes);
	const nodeCpuUs = nodes.map((node, i) => ((cpuMsOf(node.child.pid!) - cpu[i]) * 1000) / outcome.messages);
	const databaseCpuUs = ((stores.databaseCpuMs() - databaseCpu) * 1000) / outcome.messages;
	await expectStored(a, [WARMUP_INBOX, ...outcome.inboxes], WARMUP_MESSAGES + outcome.messages);
	for (const node of nodes) await node.stop();
	const after = await postgres.activity();
	const all = WARMUP_MESSAGES + outcome.messages;
	// Reading the counters took a transaction id.
	const transactions = after.transactionIds - before.transactionIds - 1;
	return {
		perSecond: outcome.messages / outcome.seconds,
		nodeCpuUs,
		databaseCpuUs,
		messagesPerTransaction: all / transactions,
		walFsyncsPerTransaction: (after.walFsyncs - before.walFsyncs) / transactions,
		walFsyncMs: (after.walFsyncMs - before.walFsyncMs) / (after.walFsyncs - before.walFsyncs),
		walBytesPerMessage: (after.walBytes - before.walBytes) / all,
		deadlocks: after.deadlocks - before.deadlocks,
		replyP99: outcome.replyMs && latencySummary(outcome.replyMs).p99,
	};
}

/** Counts the inboxes' mail on one node: every message either node accepted is there. */
async function expectStored(node: EngineServer, inboxes: string[], expected: number): Promise<void> {
	let count = 0;
	for (const inbox of inboxes) {
		const { body } = await httpGet(`${node.httpUrl}/api/addresses/${encodeURIComponent(inbox)}/message-count`);
		count += (JSON.parse(body) as { count: number }).count;
	}
	if (count !== expected) throw new Error(`${expected} messages were sent, ${count} are stored`);
}

/** `runs` runs of every layout, in turn (reversed every other run); the figures of each layout, run by run. */
export async function measureLayouts(stores: BenchStores, runs: number): Promise<Map<Layout, IngestFigures[]>> {
	const layouts = Object.keys(LAYOUTS) as Layout[];
	const figures = new Map<Layout, IngestFigures[]>(layouts.map((layout) => [layout, []]));
	for (let run = 0; run < runs; run++) {
		for (const layout of inRunOrder(layouts, run)) figures.get(layout)!.push(await ingestRun(stores, layout));
	}
	return figures;
}

export function printLayouts(figures: Map<Layout, IngestFigures[]>, postgres: string | undefined): void {
	const runCount = [...figures.values()][0].length;
	printTable(
		`Ingest on PostgreSQL, one machine: ${SIZE}-byte messages over ${SESSIONS} reused connections in all; smtp-source ` +
			`${MESSAGES.toLocaleString('en-US')} messages, or ${RANDOM_SECONDS} s of messages to 10 inboxes at random (the benchmark's ` +
			`own client, slower than smtp-source): median of ${runCount} runs (lowest–highest)${postgres ? `; ${postgres}` : ''}`,
		[
			'layout',
			'msg/s',
			'vs one node %',
			'node A CPU µs/msg',
			'node B CPU µs/msg',
			'PostgreSQL CPU µs/msg',
			'msgs/transaction',
			'WAL fsyncs/transaction',
			'WAL fsync ms',
			'WAL bytes/msg',
			'deadlocks',
			'250 p99 ms',
		],
		[...figures].map(([layout, runs]) => {
			const one = figures.get(ONE_NODE_OF[layout])!;
			const of = (figure: (run: IngestFigures, i: number) => number | undefined) => {
				const values = runs.map(figure);
				return values.every((value) => value === undefined) ? '' : overRuns(values.map((value) => value ?? NaN));
			};
			return [
				LAYOUTS[layout].label,
				of((run) => run.perSecond),
				of((run, i) => (100 * run.perSecond) / one[i].perSecond),
				of((run) => run.nodeCpuUs[0]),
				of((run) => run.nodeCpuUs[1]),
				of((run) => run.databaseCpuUs),
				of((run) => run.messagesPerTransaction),
				of((run) => run.walFsyncsPerTransaction),
				of((run) => run.walFsyncMs),
				of((run) => run.walBytesPerMessage),
				of((run) => run.deadlocks),
				of((run) => run.replyP99),
			];
		}),
	);
}
