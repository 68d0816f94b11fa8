import type { FastifyReply } from 'fastify';

/**
 * Sends JSON text the store rendered itself, as it is: byte for byte what the route's response schema
 * would have made of the records (see recordJsonHead), without turning each into JavaScript values first.
 */
export function sendJson(reply: FastifyReply, json: string): FastifyReply {
	return reply.type('application/json; charset=utf-8').send(json);
}
