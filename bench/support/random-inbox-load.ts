import { TimedSmtpConnection, benchMessage } from './smtp-client';

/**
 * A closed-loop load that smtp-source cannot make: each message to one of `inboxes` picked at random, over `connections`
 * reused connections to each of `ports`, each sending its next message as soon as the last one is answered, for
 * `seconds`. Resolves with how many messages were stored and the time from each end of DATA to its 250.
 */
export async function sendToRandomInboxes(options: {
	ports: number[];
	connections: number;
	inboxes: string[];
	seconds: number;
	size: number;
}): Promise<{ messages: number; seconds: number; replyMs: number[] }> {
	const { ports, inboxes, size } = options;
	const connections = await Promise.all(
		ports.flatMap((port) => Array.from({ length: options.connections }, () => TimedSmtpConnection.open(port))),
	);
	const replyMs: number[] = [];
	const started = performance.now();
	const until = started + options.seconds * 1000;
	await Promise.all(
		connections.map(async (connection) => {
			while (performance.now() < until) {
				const inbox = inboxes[Math.floor(Math.random() * inboxes.length)];
				const { reply, ms } = await connection.send('load@sender.test', inbox, benchMessage(inbox, `random ${replyMs.length}`, size));
				if (!reply.startsWith('250')) throw new Error(`${inbox}: ${reply}`);
				replyMs.push(ms);
			}
		}),
	);
	const seconds = (performance.now() - started) / 1000;
	connections.forEach((connection) => connection.close());
	return { messages: replyMs.length, seconds, replyMs };
}
