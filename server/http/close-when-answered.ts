import type { FastifyInstance } from 'fastify';

/**
 * Once the server is closing, a connection is closed as soon as its answer has gone. Node's close ends the keep-alive
 * connections idle when it begins, and no others: one answering then (a download, a request still being handled) was
 * left open when its answer ended, so the stop waited for its client to hang up, up to Fastify's keepAliveTimeout (72 s;
 * Node's fetch keeps a connection that long).
 */
export function closeConnectionsWhenAnswered(app: FastifyInstance): void {
	let closing = false;
	app.addHook('preClose', (done) => {
		closing = true;
		done();
	});
	app.addHook('onResponse', (_request, _reply, done) => {
		// The answer that just ended left its connection idle: this closes it, with any other idle one.
		if (closing) app.server.closeIdleConnections();
		done();
	});
}
