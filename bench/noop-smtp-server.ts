// The baseline: smtp-server configured like Mailroom's listener, discarding every message.
import { SMTPServer } from 'smtp-server';

const port = Number(process.argv[2]);
const server = new SMTPServer({
	authOptional: true,
	disabledCommands: ['AUTH', 'STARTTLS'],
	logger: false,
	size: 25 * 1024 * 1024,
	onData(stream, _session, callback) {
		stream.on('data', () => undefined);
		stream.on('end', () => callback());
	},
});
server.listen(port, '127.0.0.1');
process.on('SIGTERM', () => server.close(() => process.exit(0)));
