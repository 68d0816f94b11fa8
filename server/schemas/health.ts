/** The answers of the health checks (GET /livez, GET /readyz), for load balancers and orchestrators. */
import Type, { type Static } from 'typebox';

/** How long GET /readyz waits for the store to answer its query before it says the store is unavailable. */
export const STORE_CHECK_TIMEOUT_MS = 2000;

/** How long GET /readyz counts a message that could not be stored for lack of space, unless mail is stored meanwhile. */
export const DISK_FAILURE_MEMORY_MS = 10_000;

export const LivenessSchema = Type.Object({ live: Type.Literal(true, { description: 'always true: the process answers HTTP' }) });
export type Liveness = Static<typeof LivenessSchema>;

/** Where the server is in its life: starting until it serves everything, running, stopping from a shutdown's first moment. */
export const PHASES = ['starting', 'running', 'stopping'] as const;
export type Phase = (typeof PHASES)[number];

export const ReadinessSchema = Type.Object(
	{
		ready: Type.Boolean({
			description: 'whether this node should be sent traffic: running, the store answering, room on its disk for mail, both listeners up',
		}),
		phase: Type.Enum(PHASES, {
			description: 'starting, running, or stopping (a shutdown has begun: the listeners close once work in progress is done)',
		}),
		checks: Type.Object({
			store: Type.Enum(['ok', 'unavailable', 'unchecked'], {
				description: `whether the database answered a query within ${STORE_CHECK_TIMEOUT_MS / 1000} s (unchecked while starting or stopping)`,
			}),
			disk: Type.Enum(['ok', 'full', 'unchecked'], {
				description:
					'full: a folder this node writes mail into (the data folder, the spool) has less free space than one message of ' +
					`--max-message-size, or a message could not be stored for lack of space in the last ${DISK_FAILURE_MEMORY_MS / 1000} s and none has been since ` +
					'(unchecked while starting or stopping)',
			}),
			smtp: Type.Enum(['listening', 'closed'], { description: 'the SMTP listener' }),
			http: Type.Enum(['listening', 'closed'], { description: 'the HTTP listener (the API)' }),
		}),
		problems: Type.Array(Type.String(), { description: 'what keeps the node from being ready, for a person; empty when ready' }),
	},
	{ $id: 'Readiness' },
);
export type Readiness = Static<typeof ReadinessSchema>;
