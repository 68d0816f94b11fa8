import { execFileSync } from 'node:child_process';
import { join } from 'node:path';

/** A throw-away self-signed certificate for 127.0.0.1, made with the system's openssl. */
export function selfSignedCertificate(dir: string): { cert: string; key: string } {
	const cert = join(dir, 'cert.pem');
	const key = join(dir, 'key.pem');
	execFileSync(
		'openssl',
		['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', key, '-out', cert, '-days', '1', '-subj', '/CN=127.0.0.1'],
		{
			stdio: 'ignore',
		},
	);
	return { cert, key };
}
