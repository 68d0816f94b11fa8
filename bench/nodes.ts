// Two `mailroom serve` nodes on one PostgreSQL database, on this one machine: a proof of the path between them and of its
// cost, not a measure of scaling (both nodes, PostgreSQL and the load share the same CPUs).
// 1. Ingest, the same total load in each layout: smtp-source on one node; on one node while a second listens; split
//    across two nodes (to an inbox each, and to one inbox, whose lock makes the nodes take turns); and messages to 10
//    inboxes at random, on one node and split across two. CPU per message of each node and of PostgreSQL, transactions,
//    WAL fsyncs and deadlocks, and every message counted back.
// 2. The NOTIFY path: a waiting wait-for-message request on node B answered for mail stored through node A, beside one
//    waiting on node A itself.
import { haveSmtpSource } from './support/load';
import { BenchStores } from './support/engines';
import { envNumber } from './support/report';
import { measureLayouts, printLayouts } from './nodes/ingest-layouts';
import { measureNotifyPath, printNotifyPath, type PathSamples } from './nodes/notify-path';

const RUNS = envNumber('BENCH_RUNS', 3);

async function main(): Promise<void> {
	if (!haveSmtpSource()) throw new Error('smtp-source not found: apt-get install postfix (see bench/README.md)');
	const stores = new BenchStores();
	try {
		const layouts = await measureLayouts(stores, RUNS);
		const path: PathSamples[] = [];
		for (let run = 0; run < RUNS; run++) path.push(await measureNotifyPath(stores));
		printLayouts(layouts, await stores.describe());
		printNotifyPath(path);
	} finally {
		await stores.stop();
	}
}

main().catch((err) => {
	console.error(err);
	process.exit(1);
});
