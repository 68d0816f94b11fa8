export const CRLF = '\r\n';

/** A message from hostile@sender.test to `to` with `headers` (lines without CRLF), then `body` as it is (latin1 when text). */
export function mimeMessage(to: string, headers: string[], body: string | Buffer): Buffer {
	return Buffer.concat([
		Buffer.from([`From: hostile@sender.test`, `To: ${to}`, ...headers, '', ''].join(CRLF), 'latin1'),
		Buffer.isBuffer(body) ? body : Buffer.from(body, 'latin1'),
	]);
}
