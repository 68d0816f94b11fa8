import { describe, expect, it } from '@jest/globals';
import { isAutomaticReply } from 'mailroom-server/dist/mail/automatic-reply';

describe('isAutomaticReply', () => {
	it('takes RFC 3834 Auto-Submitted (but "no") and the headers common auto-responders set', () => {
		for (const header of [
			['auto-submitted', 'auto-replied'],
			['auto-submitted', ' Auto-Generated '],
			['auto-submitted', 'auto-notified; owner-email="a@example.com"'],
			['x-autoreply', 'yes'],
			['x-autorespond', 'Out of office'],
			['precedence', 'auto_reply'],
		] as const)
			expect([header, isAutomaticReply([['subject', 'Re: hi'], header])]).toEqual([header, true]);
	});

	it('leaves mail a person wrote: no such header, Auto-Submitted: no, Precedence: bulk or list', () => {
		for (const headers of [[], [['auto-submitted', 'no']], [['precedence', 'bulk']], [['precedence', 'list']]] as [string, string][][])
			expect([headers, isAutomaticReply(headers)]).toEqual([headers, false]);
	});
});
