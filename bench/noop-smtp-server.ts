// The baseline: smtp-server configured like Mailroom's listener, discarding every message.
import { listenBaselineServer } from './support/baseline-server';

listenBaselineServer(Number(process.argv[2]), (stream, _session, callback) => {
	stream.on('data', () => undefined);
	stream.on('end', () => callback());
});
