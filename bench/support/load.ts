import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';

export const SMTP_SOURCE = '/usr/sbin/smtp-source';

export function haveSmtpSource(): boolean {
	return existsSync(SMTP_SOURCE);
}

export interface LoadResult {
	messages: number;
	seconds: number;
	perSecond: number;
}

/**
 * Postfix's smtp-source: `sessions` parallel connections, `messages` in all of `size` bytes.
 * `reuse` (-d) keeps each connection open for its next message.
 */
export function smtpSource(options: {
	port: number;
	sessions: number;
	messages: number;
	size: number;
	reuse: boolean;
	to?: string;
	/** Recipients per message (-r): <to>, 2<to>, 3<to>, ... */
	recipients?: number;
}): Promise<LoadResult> {
	const args = [
		...(options.reuse ? ['-d'] : []),
		'-s',
		String(options.sessions),
		'-m',
		String(options.messages),
		'-l',
		String(options.size),
		'-f',
		'load@sender.test',
		'-t',
		options.to ?? 'load@bench.test',
		...(options.recipients ? ['-r', String(options.recipients)] : []),
		`127.0.0.1:${options.port}`,
	];
	const started = process.hrtime.bigint();
	return new Promise((resolve, reject) => {
		execFile(SMTP_SOURCE, args, { timeout: 600_000 }, (err, _stdout, stderr) => {
			if (err) return reject(new Error(`smtp-source failed: ${stderr || err.message}`));
			const seconds = Number(process.hrtime.bigint() - started) / 1e9;
			resolve({ messages: options.messages, seconds, perSecond: options.messages / seconds });
		});
	});
}
