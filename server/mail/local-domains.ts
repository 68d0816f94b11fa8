import type { MailroomConfig } from '../config/settings';

/**
 * Where mail to a domain goes: `local` into an inbox here (the accepted domains, --domains; the extra --local-domains;
 * every domain an account owns), `relay` out through the SMTP relay, or `kept`: a server that accepts every domain and
 * has no relay is a sandbox, and keeps mail to any other domain in an inbox here too. `test`: the --test-domain, whose
 * addresses are answered here as a remote server would.
 */
export type DomainRoute = 'local' | 'kept' | 'relay' | 'test';

export function domainRoutes(
	config: Pick<MailroomConfig, 'domains' | 'localDomains' | 'relayUrl'> & Partial<Pick<MailroomConfig, 'testDomain'>>,
	isOwnedDomain: (domain: string) => Promise<boolean>,
): (domain: string) => Promise<DomainRoute> {
	const listed = new Set([...config.domains, ...config.localDomains]);
	const sandbox = config.domains.length === 0 && !config.relayUrl;
	return async (domain) => {
		if (domain === config.testDomain) return 'test';
		if (listed.has(domain) || (await isOwnedDomain(domain))) return 'local';
		return sandbox ? 'kept' : 'relay';
	};
}

/** Which recipient domains get their copy straight into a local inbox (`local` or `kept`); the rest go to the relay. */
export function localDomainRule(
	config: Pick<MailroomConfig, 'domains' | 'localDomains' | 'relayUrl'>,
	isOwnedDomain: (domain: string) => Promise<boolean>,
): (domain: string) => Promise<boolean> {
	const routeOf = domainRoutes(config, isOwnedDomain);
	return async (domain) => ['local', 'kept'].includes(await routeOf(domain));
}
