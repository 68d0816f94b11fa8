import type { HttpApp, HttpDeps } from '../http-deps';
import { LivenessSchema, ReadinessSchema } from '../../schemas/health';
import { refTo } from '../../schemas/shared';

/**
 * Health checks for load balancers and orchestrators: no key, no rate limit (a balancer asks often, from one address), never
 * cached. They sit beside the API's paths, apart from the dashboard's files.
 */
export function healthRoutes(app: HttpApp, { readiness }: HttpDeps): void {
	const unlimited = { rateLimit: false } as const;

	app.get(
		'/livez',
		{
			config: unlimited,
			schema: {
				summary: 'Liveness: 200 while the process answers HTTP (restart it when this fails)',
				description: 'Needs no key. Says nothing of the store or SMTP: for whether to send the node traffic, use /readyz.',
				security: [],
				response: { 200: LivenessSchema },
			},
		},
		(_request, reply) => {
			reply.header('cache-control', 'no-store');
			return { live: true as const };
		},
	);

	app.get(
		'/readyz',
		{
			config: unlimited,
			schema: {
				summary:
					'Readiness: 200 when this node should get traffic, 503 (saying why) while starting, stopping, without its store or its disk full',
				description:
					'Needs no key. Ready: the server has started and is not shutting down, the store answered a query (within 2 s; asked at ' +
					'most about once a second), the disk it writes mail to has room for a message of the largest size (and no message ' +
					'failed for lack of space in the last seconds), and both the SMTP and HTTP listeners are up. Point load balancers here.',
				security: [],
				response: { 200: refTo(ReadinessSchema), 503: refTo(ReadinessSchema) },
			},
		},
		async (_request, reply) => {
			const report = await readiness.report();
			return reply
				.code(report.ready ? 200 : 503)
				.header('cache-control', 'no-store')
				.send(report);
		},
	);
}
