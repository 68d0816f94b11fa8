// The server of the wait-for benchmark, in a process of its own (forked with an IPC channel): startMailroom with default
// settings on a temporary data folder. It says where it listens, and answers "waiters" with how many requests are waiting,
// so the benchmark sends mail only once all of its requests wait. "stop" closes it.
import { startInProcess } from './support/in-process';

export interface WaitForServerMessage {
	smtpPort?: number;
	httpUrl?: string;
	waiters?: number;
}

async function main(): Promise<void> {
	const { mailroom, stop } = await startInProcess('wait-for');
	const send = (message: WaitForServerMessage) => process.send!(message);
	process.on('message', (message) => {
		if (message === 'waiters') send({ waiters: mailroom.waiters.size });
		if (message === 'stop') void stop().then(() => process.exit(0));
	});
	send({ smtpPort: mailroom.smtpPort, httpUrl: mailroom.httpUrl });
}

main().catch((err) => {
	console.error(err);
	process.exit(1);
});
