import type { MailroomConfig } from '../config/settings';

/**
 * Which recipient domains get their copy straight into a local inbox; the rest go to the relay.
 * Local: the accepted domains (--domains), the extra --local-domains, and every domain an account owns.
 * A server that accepts every domain and has no relay is a sandbox: all its outgoing mail stays inside.
 */
export function localDomainRule(
	config: Pick<MailroomConfig, 'domains' | 'localDomains' | 'relayUrl'>,
	isOwnedDomain: (domain: string) => Promise<boolean>,
): (domain: string) => Promise<boolean> {
	const listed = new Set([...config.domains, ...config.localDomains]);
	const everyDomain = config.domains.length === 0 && !config.relayUrl;
	return async (domain) => everyDomain || listed.has(domain) || isOwnedDomain(domain);
}
