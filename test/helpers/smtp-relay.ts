import { readFileSync } from 'node:fs';
import { SMTPServer, type SMTPServerOptions } from 'smtp-server';
import { simpleParser, type ParsedMail } from 'mailparser';

export interface RelayedMail {
	from: string;
	to: string[];
	raw: string;
	parsed: ParsedMail;
	/** Whether the session had switched to TLS (STARTTLS), and who logged in. */
	secure: boolean;
	user: string | undefined;
}

export interface TestRelay {
	port: number;
	url: string;
	received: RelayedMail[];
	/** How many connections clients opened to it so far. */
	readonly connections: number;
	/** Resolves once `count` messages have arrived in total. */
	waitFor(count: number): Promise<RelayedMail[]>;
	close(): Promise<void>;
}

export interface TestRelayOptions {
	/** Fixed port, e.g. to bring a relay back where one was down. 0 picks a free one. */
	port?: number;
	/** An SMTP reply code and text to refuse a recipient with, or undefined to accept it. */
	refuse?: (recipient: string) => { code: number; message: string } | undefined;
	/** Holds the answer to a recipient's RCPT TO (an attempt kept open) until the promise it returns settles, if it returns one. */
	hold?: (recipient: string) => Promise<void> | undefined;
	/** PEM files for STARTTLS. */
	tls?: { cert: string; key: string };
	/** user:pass required to log in (only with tls). */
	auth?: { user: string; pass: string };
}

/** A real SMTP server standing in for the upstream relay; it keeps every message it accepts. */
export async function startTestRelay(options: TestRelayOptions = {}): Promise<TestRelay> {
	const received: RelayedMail[] = [];
	const waiters: (() => void)[] = [];
	let connections = 0;
	const serverOptions: SMTPServerOptions = {
		logger: false,
		authOptional: !options.auth,
		disabledCommands: options.tls ? (options.auth ? [] : ['AUTH']) : ['AUTH', 'STARTTLS'],
		onConnect: (_session, callback) => {
			connections++;
			callback();
		},
		...(options.tls && { cert: readFileSync(options.tls.cert), key: readFileSync(options.tls.key) }),
		onAuth: (auth, _session, callback) => {
			if (auth.username === options.auth?.user && auth.password === options.auth?.pass) return callback(null, { user: auth.username });
			callback(Object.assign(new Error('Invalid username or password'), { responseCode: 535 }));
		},
		onRcptTo: (address, _session, callback) => {
			const answer = () => {
				const refusal = options.refuse?.(address.address);
				if (!refusal) return callback();
				callback(Object.assign(new Error(refusal.message), { responseCode: refusal.code }));
			};
			const held = options.hold?.(address.address);
			if (held) void held.finally(answer);
			else answer();
		},
		onData: (stream, session, callback) => {
			const chunks: Buffer[] = [];
			stream.on('data', (chunk: Buffer) => chunks.push(chunk));
			stream.on('end', () => {
				const raw = Buffer.concat(chunks).toString('utf8');
				void simpleParser(raw).then((parsed) => {
					received.push({
						from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
						to: session.envelope.rcptTo.map((r) => r.address),
						raw,
						parsed,
						secure: session.secure,
						user: session.user as string | undefined,
					});
					waiters.splice(0).forEach((wake) => wake());
					callback();
				}, callback);
			});
		},
	};
	const server = new SMTPServer(serverOptions);
	const port = await new Promise<number>((resolve, reject) => {
		server.server.once('error', reject);
		server.listen(options.port ?? 0, '127.0.0.1', () => resolve((server.server.address() as { port: number }).port));
	});
	const waitFor = async (count: number) => {
		while (received.length < count) await new Promise<void>((resolve) => waiters.push(resolve));
		return received;
	};
	return {
		port,
		url: `smtp://127.0.0.1:${port}`,
		received,
		get connections() {
			return connections;
		},
		waitFor,
		close: () => new Promise((resolve) => server.close(() => resolve())),
	};
}
