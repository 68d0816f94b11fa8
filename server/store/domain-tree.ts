import { getPublicSuffix } from 'tldts';
import { DomainError } from './store';

/**
 * Domains an account owns form trees: owning alicecorp.test means its subdomains are Alice's to claim, and nobody else's.
 * The rule needs to know where a tree can start, which the Public Suffix List says (through tldts, which ships it and
 * follows its updates): nobody may own `com`, `co.uk` or `github.io`, whose subdomains belong to many different people,
 * or one account could keep every other from claiming any domain under it.
 */

/** The public suffix of a domain: ICANN's (com, co.uk) and the private section's (github.io); an unknown TLD is its own. */
const publicSuffixOf = (domain: string) => getPublicSuffix(domain, { allowPrivateDomains: true }) ?? domain.split('.').pop()!;

/** Refuses a domain nobody can own: a public suffix, under which anyone registers names (DomainError). */
export function assertOwnable(domain: string): void {
	if (publicSuffixOf(domain) === domain)
		throw new DomainError(`${domain} is a public suffix (names under it belong to many owners), so no account can own it`);
}

/** The domains above `domain` that an account could own, nearest first: mail.eu.alicecorp.test → eu.alicecorp.test, alicecorp.test. */
export function ownableParents(domain: string): string[] {
	const suffix = publicSuffixOf(domain);
	const labels = domain.split('.');
	const parents: string[] = [];
	for (let i = 1; i < labels.length; i++) {
		const parent = labels.slice(i).join('.');
		if (parent.length <= suffix.length) break;
		parents.push(parent);
	}
	return parents;
}

/** The top of the tree a domain belongs to (its registrable domain, alicecorp.test): claims in one tree take turns on it. */
export const treeRootOf = (domain: string) => ownableParents(domain).at(-1) ?? domain;

/** The refusal when another account owns a domain above the one claimed. */
export const parentOwnedByAnother = (domain: string, parent: string) =>
	new DomainError(`${domain} is a subdomain of ${parent}, which another account owns; only its owner may claim its subdomains`);

/** The refusal when another account owns a domain below the one claimed. */
export const subdomainOwnedByAnother = (domain: string, subdomain: string) =>
	new DomainError(`${subdomain} is owned by another account, so ${domain}, a domain above it, cannot be claimed`);
