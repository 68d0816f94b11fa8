import pino from 'pino';
import type { FastifyBaseLogger } from 'fastify';

export type Logger = FastifyBaseLogger;

export function createLogger(level: string): Logger {
	return pino({ level, base: undefined });
}
