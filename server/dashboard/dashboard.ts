import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import fastifyStatic from '@fastify/static';

/** Built by `npm run build`: index.html and dashboard.css copied from ./public, the browser code compiled into ./public/js. */
export const DASHBOARD_ROOT = join(__dirname, 'public');

/**
 * The dashboard runs only its own bundled scripts and talks only to this server. Two sources are widened for the mail
 * HTML, which is shown in a sandboxed srcdoc frame and so inherits this policy: inline styles (mail is styled inline; the
 * server has already filtered them) and http(s) images (only there once the reader clicks "Show remote images": the
 * server leaves them out of the HTML before that). The dashboard itself puts no HTML from a message in its own page.
 */
export const DASHBOARD_CSP = [
	"default-src 'none'",
	"script-src 'self'",
	"style-src 'self' 'unsafe-inline'",
	"img-src 'self' data: http: https:",
	"connect-src 'self'",
	"frame-src 'self'",
	"base-uri 'none'",
	"form-action 'self'",
	"frame-ancestors 'none'",
].join('; ');

/** Serves the single-page dashboard at `/`; each file is its own route, so unknown paths still get the API's JSON 404. */
export async function dashboardRoutes(app: FastifyInstance): Promise<void> {
	await app.register(fastifyStatic, {
		root: DASHBOARD_ROOT,
		prefix: '/',
		wildcard: false,
		decorateReply: false,
		index: 'index.html',
		// The files change with every build and are tiny; revalidating keeps a browser from mixing old and new code.
		cacheControl: false,
		setHeaders: (reply) => {
			reply.header('Content-Security-Policy', DASHBOARD_CSP);
			reply.header('Cache-Control', 'no-cache');
			reply.header('X-Content-Type-Options', 'nosniff');
			reply.header('Referrer-Policy', 'no-referrer');
		},
	});
}
