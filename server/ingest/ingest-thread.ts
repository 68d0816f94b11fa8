// Worker-thread entry: the ingest thread parses and stores incoming mail on its own database connection,
// so the event loop that speaks SMTP and HTTP spends its time on the protocols.
import { parentPort, workerData } from 'node:worker_threads';
import { createLogger } from '../log';
import type { IncomingMail } from '../mail/incoming-mail';
import { StoreUnavailableError, type CommitFigures } from '../store/store';
import { MessageWriter, type MessageWriterConfig, type StoredMail } from './message-writer';

export interface IngestThreadData {
	config: MessageWriterConfig & { logLevel: string };
}

export type IngestRequest = { id: number; mail: IncomingMail } | 'close';

/**
 * `unavailable`: the store could not be reached (a StoreUnavailableError, whose class a thread's message does not carry);
 * `code`: the error's code, if it has one (SQLITE_FULL, ENOSPC: readiness looks for a full disk in it).
 */
export type IngestReply = { id: number; stored: StoredMail } | { id: number; error: string; unavailable: boolean; code?: string };

/** What the thread sends the main thread: replies that became ready together, and the figures of the commits behind them. */
export interface IngestThreadMessage {
	replies: IngestReply[];
	commits: CommitFigures[];
}

const { config } = workerData as IngestThreadData;
// Requests that come while the store opens wait for it.
const writer = MessageWriter.open(config, createLogger(config.logLevel));
const port = parentPort!;

// Replies that become ready together (one group commit) travel in one message, with the commit's figures: each message
// costs the event loop a wake-up. A tick callback runs once the promises settled by the commit have all run, before
// anything else (a commit's figures come just before its promises settle).
let outgoing: IngestThreadMessage = { replies: [], commits: [] };
const send = () => {
	if (outgoing.replies.length + outgoing.commits.length > 1) return;
	process.nextTick(() => {
		port.postMessage(outgoing);
		outgoing = { replies: [], commits: [] };
	});
};
const reply = (answer: IngestReply) => {
	outgoing.replies.push(answer);
	send();
};
// A store that cannot open still ends the thread, as an unhandled rejection (the Ingest replaces it).
void writer.then((opened) =>
	opened.onCommit((commit) => {
		outgoing.commits.push(commit);
		send();
	}),
);

port.on('message', (request: IngestRequest) => {
	if (request === 'close') {
		void writer
			.then((opened) => opened.close())
			.catch(() => undefined)
			.finally(() => port.close());
		return;
	}
	const { id, mail } = request;
	writer
		.then((opened) => opened.store(mail))
		.then(
			(stored) => reply({ id, stored }),
			(err: Error & { code?: unknown }) =>
				reply({
					id,
					error: err.message,
					unavailable: err instanceof StoreUnavailableError,
					code: typeof err.code === 'string' ? err.code : undefined,
				}),
		);
});
