// Ingest throughput: Mailroom (250 only after commit) against a no-op smtp-server and a naive storing one, same load, same run.
import { haveSmtpSource, smtpSource } from './support/load';
import { cpuMsOf, memoryOf, startMailroomProcess, startScriptProcess } from './support/processes';
import { envNumber, printTable } from './support/report';

const MESSAGES = envNumber('BENCH_MESSAGES', 30000);
const NEW_CONNECTION_MESSAGES = envNumber('BENCH_NEW_CONNECTION_MESSAGES', 2000);
const SESSIONS = envNumber('BENCH_SESSIONS', 16);
const SIZE = envNumber('BENCH_SIZE', 4096);

const ratio = (a: { perSecond: number }, b: { perSecond: number }) => `${Math.round((100 * a.perSecond) / b.perSecond)}%`;

/** `--durability normal` (through BENCH_SERVER_ARGS) acknowledges once committed, without the fsync. */
const MAILROOM_LABEL = /--durability[ =]normal/.test(process.env.BENCH_SERVER_ARGS ?? '') ? 'mailroom (committed)' : 'mailroom (durable)';

async function main(): Promise<void> {
	if (!haveSmtpSource()) throw new Error('smtp-source not found: apt-get install postfix (see bench/README.md)');
	const load = (port: number, reuse: boolean, messages: number) => smtpSource({ port, sessions: SESSIONS, messages, size: SIZE, reuse });
	/** Runs a load and reports the server's CPU time per message: a figure that holds even on a busy machine. */
	const measure = async (pid: number, reuse: boolean, messages: number) => {
		const cpuBefore = cpuMsOf(pid);
		const result = await load(pid === 0 ? 0 : ports.get(pid)!, reuse, messages);
		return { ...result, cpuUsPerMessage: ((cpuMsOf(pid) - cpuBefore) * 1000) / messages };
	};
	const ports = new Map<number, number>();

	const noop = await startScriptProcess('noop-smtp-server.js');
	ports.set(noop.child.pid!, noop.port);
	await load(noop.port, true, 2000); // warm-up
	const noopReused = await measure(noop.child.pid!, true, MESSAGES);
	const noopNew = await measure(noop.child.pid!, false, NEW_CONNECTION_MESSAGES);
	await noop.stop();

	// Calibrates this machine against the figures (no-op about 5,400/s, naive about 1,200/s on its machine type).
	const naive = await startScriptProcess('naive-smtp-server.js');
	ports.set(naive.child.pid!, naive.port);
	await load(naive.port, true, 2000);
	const naiveReused = await measure(naive.child.pid!, true, MESSAGES);
	await naive.stop();

	const mailroom = await startMailroomProcess();
	ports.set(mailroom.child.pid!, mailroom.smtpPort);
	await load(mailroom.smtpPort, true, 2000);
	const reused = await measure(mailroom.child.pid!, true, MESSAGES);
	const memory = memoryOf(mailroom.child.pid!);
	const fresh = await measure(mailroom.child.pid!, false, NEW_CONNECTION_MESSAGES);
	const stored = (await (await fetch(`${mailroom.httpUrl}/api/addresses/load%40bench.test/messages?limit=1`)).json()) as unknown[];
	await mailroom.stop();
	if (stored.length !== 1) throw new Error('messages were not stored');

	printTable(
		`Ingest: ${SIZE}-byte messages, ${SESSIONS} sessions (smtp-source)`,
		['server', 'connections', 'messages', 'msg/s', 'vs no-op', 'server CPU µs/msg', 'RSS MB', 'peak RSS MB'],
		[
			['no-op smtp-server', 'reused', MESSAGES, noopReused.perSecond, '100%', noopReused.cpuUsPerMessage, '', ''],
			[
				'naive (simpleParser, 1 row, fsync each)',
				'reused',
				MESSAGES,
				naiveReused.perSecond,
				ratio(naiveReused, noopReused),
				naiveReused.cpuUsPerMessage,
				'',
				'',
			],
			[
				MAILROOM_LABEL,
				'reused',
				MESSAGES,
				reused.perSecond,
				ratio(reused, noopReused),
				reused.cpuUsPerMessage,
				memory.rssMb,
				memory.peakMb,
			],
			['no-op smtp-server', 'new each', NEW_CONNECTION_MESSAGES, noopNew.perSecond, '100%', noopNew.cpuUsPerMessage, '', ''],
			[MAILROOM_LABEL, 'new each', NEW_CONNECTION_MESSAGES, fresh.perSecond, ratio(fresh, noopNew), fresh.cpuUsPerMessage, '', ''],
		],
	);
}

main().catch((err) => {
	console.error(err);
	process.exit(1);
});
