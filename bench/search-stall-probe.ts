// The /livez prober of search-stall.ts, a process of its own so that its timing is not the benchmark's: it asks GET /livez
// one request after another over a kept-alive connection for as long as it runs. Its first answer (a new connection, a cold
// path) is not counted; it then says `ready`. Between a `begin` and an `end` from the parent it keeps each request's time,
// and after `end` it waits for the request under way (the one a stall holds up) and sends the times of those begun
// in between.
import { httpGet } from './support/http-client';

/** What the parent tells the prober. */
export type ProbeCommand = 'begin' | 'end' | 'stop';
/** What the prober tells the parent: it is ready, or the ms of each request begun between a begin and an end. */
export type ProbeMessage = { ready: true } | { latencies: number[] };

const url = `${process.argv[2]}/livez`;
let measuring: { begun: number; ended?: number; latencies: number[] } | undefined;
let stopping = false;
let underWay: Promise<void> = Promise.resolve();

/** One probe: its time is kept when it began inside the window being measured. */
async function probe(): Promise<void> {
	const begun = performance.now();
	const { status } = await httpGet(url);
	if (status !== 200) throw new Error(`GET /livez answered ${status}`);
	if (measuring && begun >= measuring.begun && (measuring.ended === undefined || begun < measuring.ended)) {
		measuring.latencies.push(performance.now() - begun);
	}
}

async function main(): Promise<void> {
	await probe();
	process.send!({ ready: true } satisfies ProbeMessage);
	while (!stopping) {
		underWay = probe();
		await underWay;
	}
}

process.on('message', (command: ProbeCommand) => {
	if (command === 'begin') measuring = { begun: performance.now(), latencies: [] };
	if (command === 'end' && measuring) {
		const ended = measuring;
		ended.ended = performance.now();
		void underWay.then(() => process.send!({ latencies: ended.latencies } satisfies ProbeMessage));
	}
	if (command === 'stop') {
		stopping = true;
		void underWay.then(() => process.exit(0));
	}
});

main().catch((err) => {
	console.error(err);
	process.exit(1);
});
