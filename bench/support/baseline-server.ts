import { SMTPServer, type SMTPServerOptions } from 'smtp-server';

/**
 * A baseline SMTP server for the ingest benchmark (see noop-smtp-server and naive-smtp-server): smtp-server configured like
 * Mailroom's listener, on 127.0.0.1:`port`, doing `onData` with each message. SIGTERM closes it, then runs `onClose`.
 */
export function listenBaselineServer(
	port: number,
	onData: NonNullable<SMTPServerOptions['onData']>,
	onClose: () => void = () => undefined,
): void {
	const server = new SMTPServer({
		authOptional: true,
		disabledCommands: ['AUTH', 'STARTTLS'],
		logger: false,
		size: 25 * 1024 * 1024,
		onData,
	});
	server.listen(port, '127.0.0.1');
	process.on('SIGTERM', () =>
		server.close(() => {
			onClose();
			process.exit(0);
		}),
	);
}
