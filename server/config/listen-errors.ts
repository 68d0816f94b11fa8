import { SETTINGS, type MailroomConfig } from './settings';

/** A listener of the server, by the settings that place it. */
export interface ListenerSettings {
	/** What an operator calls it: HTTP, SMTP, metrics. */
	name: string;
	port: keyof MailroomConfig;
	host: keyof MailroomConfig;
}

export const HTTP_LISTENER: ListenerSettings = { name: 'HTTP', port: 'httpPort', host: 'httpHost' };
export const SMTP_LISTENER: ListenerSettings = { name: 'SMTP', port: 'smtpPort', host: 'smtpHost' };
export const METRICS_LISTENER: ListenerSettings = { name: 'metrics', port: 'metricsPort', host: 'metricsHost' };

/** "--http-port / MAILROOM_HTTP_PORT": where a setting is given. */
function whereSet(key: keyof MailroomConfig): string {
	const setting = SETTINGS.find((spec) => spec.key === key)!;
	return `${setting.flag.split(' ')[0]} / ${setting.env}`;
}

/**
 * A listener that could not bind, said as a person would: which port of which listener, the setting that chose it, and
 * what to do. The system error's code stays on it (`code`), so callers may still tell a port in use from other failures.
 */
export function listenError(err: NodeJS.ErrnoException, listener: ListenerSettings, config: MailroomConfig): Error {
	const port = String(config[listener.port]);
	const host = String(config[listener.host]);
	const what = `The ${listener.name} port ${port} on ${host}`;
	let message: string;
	switch (err.code) {
		case 'EADDRINUSE':
			message = `${what} is already in use (${whereSet(listener.port)}): stop what holds it or choose another port`;
			break;
		case 'EACCES':
			message =
				`${what} may not be bound by this process (${whereSet(listener.port)}): ports below 1024 need root or the ` +
				'CAP_NET_BIND_SERVICE capability; choose a port from 1024 up, or grant it';
			break;
		case 'EADDRNOTAVAIL':
			message = `The ${listener.name} listener cannot bind to ${host}: it is not an address of this machine (${whereSet(listener.host)})`;
			break;
		case 'ENOTFOUND':
			message = `The ${listener.name} listener cannot bind to ${host}: the host name does not resolve (${whereSet(listener.host)})`;
			break;
		default:
			return err;
	}
	return Object.assign(new Error(message, { cause: err }), { code: err.code });
}
