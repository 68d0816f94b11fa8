// The server of the wait-for benchmark, in a process of its own (forked with an IPC channel): startMailroom with default
// settings on a temporary data folder. It says where it listens, and answers "waiters" with how many requests are waiting,
// so the benchmark sends mail only once all of its requests wait. "stop" closes it.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { resolveConfig, startMailroom } from 'mailroom-server';

export interface WaitForServerMessage {
	smtpPort?: number;
	httpUrl?: string;
	waiters?: number;
}

async function main(): Promise<void> {
	const dataDir = mkdtempSync(join(tmpdir(), 'mailroom-wait-for-bench-'));
	const config = {
		...resolveConfig({}, {}),
		dataDir,
		smtpPort: 0,
		httpPort: 0,
		logLevel: 'warn',
		rateLimitIp: 1e8,
		rateLimitKey: 1e8,
	} as const;
	const mailroom = await startMailroom(config);
	const send = (message: WaitForServerMessage) => process.send!(message);
	process.on('message', (message) => {
		if (message === 'waiters') send({ waiters: mailroom.waiters.size });
		if (message === 'stop')
			void mailroom.close().then(() => {
				rmSync(dataDir, { recursive: true, force: true });
				process.exit(0);
			});
	});
	send({ smtpPort: mailroom.smtpPort, httpUrl: mailroom.httpUrl });
}

main().catch((err) => {
	console.error(err);
	process.exit(1);
});
