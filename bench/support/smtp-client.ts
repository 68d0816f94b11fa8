import { connect, type Socket } from 'node:net';

/**
 * A minimal SMTP client over one reused connection that timestamps the end of DATA, so
 * benchmarks can measure from the last byte of a message to the server's reply.
 */
export class TimedSmtpConnection {
	private buffered = '';
	private waiting?: (line: string) => void;

	private constructor(private readonly socket: Socket) {
		socket.setNoDelay(true);
		socket.on('data', (chunk) => {
			this.buffered += chunk.toString('latin1');
			let end: number;
			while ((end = this.buffered.indexOf('\r\n')) >= 0) {
				const line = this.buffered.slice(0, end);
				this.buffered = this.buffered.slice(end + 2);
				if (/^\d{3} /.test(line)) this.waiting?.(line);
			}
		});
	}

	static async open(port: number): Promise<TimedSmtpConnection> {
		const socket = connect(port, '127.0.0.1');
		const connection = new TimedSmtpConnection(socket);
		await connection.reply();
		await connection.command('EHLO bench.test');
		return connection;
	}

	/** Sends one message; resolves with the final reply, the ms from end of DATA to it, and when DATA ended (performance.now()). */
	async send(from: string, to: string, message: string): Promise<{ reply: string; ms: number; dataEnd: number }> {
		await this.command(`MAIL FROM:<${from}>`);
		await this.command(`RCPT TO:<${to}>`);
		await this.command('DATA');
		const reply = this.reply();
		this.socket.write(`${message}\r\n.\r\n`);
		const sent = process.hrtime.bigint();
		const dataEnd = performance.now();
		const line = await reply;
		return { reply: line, ms: Number(process.hrtime.bigint() - sent) / 1e6, dataEnd };
	}

	close(): void {
		this.socket.end('QUIT\r\n');
	}

	private reply(): Promise<string> {
		return new Promise((resolve) => (this.waiting = resolve));
	}

	private async command(line: string): Promise<string> {
		const reply = this.reply();
		this.socket.write(`${line}\r\n`);
		const answer = await reply;
		if (!/^[23]/.test(answer)) throw new Error(`${line} -> ${answer}`);
		return answer;
	}
}

/** A plain message of about `size` bytes with a unique subject. */
export function benchMessage(to: string, subject: string, size: number): string {
	const head = `From: bench@sender.test\r\nTo: ${to}\r\nSubject: ${subject}\r\nMessage-ID: <${subject}@bench.test>\r\nDate: ${new Date().toUTCString()}\r\n\r\n`;
	const line = 'The quick brown fox jumps over the lazy dog, again and again and again.\r\n';
	return head + line.repeat(Math.max(1, Math.ceil((size - head.length) / line.length))).trimEnd();
}
