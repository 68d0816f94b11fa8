import type { FastifyInstance } from 'fastify';
import { requireAccount } from '../auth';
import { errorResponses } from '../schemas';

export async function accountRoutes(app: FastifyInstance): Promise<void> {
	app.get(
		'/api/me',
		{
			schema: {
				summary: 'The account of the API key',
				response: {
					200: {
						type: 'object',
						properties: {
							_id: { type: 'string' },
							name: { type: 'string' },
							sendsRemaining: { type: 'integer', description: 'outgoing-message credits left (one per recipient)' },
							admin: { type: 'boolean' },
							created: { type: 'string', format: 'date-time' },
						},
						required: ['_id', 'name', 'sendsRemaining', 'admin', 'created'],
					},
					...errorResponses(401, 429),
				},
			},
		},
		async (request) => {
			const account = requireAccount(request);
			return { _id: account.id, name: account.name, sendsRemaining: account.credits, admin: account.isAdmin, created: account.created };
		},
	);
}

