import { Socket } from 'node:net';
import { expect } from '@jest/globals';

/**
 * A raw SMTP client over a plain socket, for what nodemailer would never send (bare LF,
 * smuggling probes, endless commands, silence) and for the exact replies.
 */
export class RawSmtp {
	private readonly replies: string[] = [];
	private readonly waiters: { resolve: (reply: string) => void; reject: (err: Error) => void }[] = [];
	private buffered = '';
	/** Lines of a multi-line reply whose last line has not come yet. */
	private partial: string[] = [];
	private ended = false;
	readonly closed: Promise<void>;

	private constructor(private readonly socket: Socket) {
		socket.on('data', (chunk: Buffer) => this.receive(chunk.toString('latin1')));
		this.closed = new Promise((resolve) => socket.once('close', () => resolve()));
		void this.closed.then(() => {
			this.ended = true;
			for (const waiter of this.waiters.splice(0)) waiter.reject(new Error('connection closed'));
		});
		socket.on('error', () => undefined);
	}

	/** Connects (from `localAddress`, another loopback address, if given) and waits for the greeting (or the first reply, e.g. a 421). */
	static async connect(port: number, localAddress?: string): Promise<{ client: RawSmtp; greeting: string }> {
		const socket = new Socket();
		const client = new RawSmtp(socket);
		socket.connect({ port, host: '127.0.0.1', localAddress });
		return { client, greeting: await client.reply() };
	}

	/** The next whole reply (lines joined with \n), in order of arrival. */
	reply(): Promise<string> {
		const ready = this.replies.shift();
		if (ready !== undefined) return Promise.resolve(ready);
		if (this.ended) return Promise.reject(new Error('connection closed'));
		return new Promise((resolve, reject) => this.waiters.push({ resolve, reject }));
	}

	write(data: string | Buffer): void {
		this.socket.write(typeof data === 'string' ? Buffer.from(data, 'latin1') : data);
	}

	/** Sends one command line (CRLF added) and returns its reply. */
	command(line: string): Promise<string> {
		this.write(`${line}\r\n`);
		return this.reply();
	}

	/** EHLO, MAIL FROM (with `parameters`, e.g. ' SIZE=2048'), each RCPT TO and DATA, expecting success at every step. */
	async envelope(from: string, to: string[], parameters = ''): Promise<void> {
		for (const line of ['EHLO client.test', `MAIL FROM:<${from}>${parameters}`, ...to.map((rcpt) => `RCPT TO:<${rcpt}>`)]) {
			expect(await this.command(line)).toMatch(/^250/);
		}
		expect(await this.command('DATA')).toMatch(/^354/);
	}

	/** Waits for the server to close the connection; the replies that came and were not read, in order. */
	async untilClosed(): Promise<string[]> {
		await this.closed;
		return this.replies.splice(0);
	}

	close(): void {
		this.socket.destroy();
	}

	private receive(text: string): void {
		this.buffered += text;
		let end: number;
		while ((end = this.buffered.indexOf('\r\n')) !== -1) {
			const line = this.buffered.slice(0, end);
			this.buffered = this.buffered.slice(end + 2);
			this.partial.push(line);
			if (/^\d{3}(?: |$)/.test(line)) {
				const reply = this.partial.join('\n');
				this.partial = [];
				const waiter = this.waiters.shift();
				if (waiter) waiter.resolve(reply);
				else this.replies.push(reply);
			}
		}
	}
}
