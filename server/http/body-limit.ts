/** How large a request body the API reads. */

/** Largest JSON body the API reads, but where a route sets its own. */
export const BODY_LIMIT = 1024 * 1024;

/** Fastify's error for a body over its route's limit (by Content-Length, or once that many bytes have arrived). */
export const BODY_TOO_LARGE = 'FST_ERR_CTP_BODY_TOO_LARGE';

/** The 413 message: names the limit, so a client knows how far over it is. */
export const bodyTooLarge = (limit: number) => `The request body is larger than ${limit} bytes, the most this endpoint reads`;
