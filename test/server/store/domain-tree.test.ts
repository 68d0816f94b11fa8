import { describe, expect, it } from '@jest/globals';
import { DomainError } from 'mailroom-server/dist/store/store';
import { assertOwnable, ownableParents, treeRootOf } from 'mailroom-server/dist/store/domain-tree';

describe('ownableParents: the domains above one that an account could own', () => {
	it.each([
		['mail.eu.alicecorp.test', ['eu.alicecorp.test', 'alicecorp.test']],
		['alicecorp.test', []],
		['shop.example.co.uk', ['example.co.uk']],
		['team.someone.github.io', ['someone.github.io']],
	])('%s: %j', (domain, parents) => {
		expect(ownableParents(domain)).toEqual(parents);
	});
});

describe('assertOwnable and treeRootOf', () => {
	it.each(['com', 'co.uk', 'github.io', 'test', 'localhost'])('refuses the public suffix %s', (suffix) => {
		expect(() => assertOwnable(suffix)).toThrow(DomainError);
	});

	it.each(['alicecorp.test', 'example.co.uk', 'someone.github.io', 'mail.example.com'])('takes %s', (domain) => {
		expect(() => assertOwnable(domain)).not.toThrow();
	});

	it.each([
		['deep.mail.alicecorp.test', 'alicecorp.test'],
		['alicecorp.test', 'alicecorp.test'],
		['shop.example.co.uk', 'example.co.uk'],
	])('puts %s in the tree of %s', (domain, root) => {
		expect(treeRootOf(domain)).toBe(root);
	});
});
