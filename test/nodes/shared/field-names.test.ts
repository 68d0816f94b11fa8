import { describe, expect, it } from '@jest/globals';
import { inNodeWords } from '../../../nodes/shared/field-names';

/** The API's error messages about one body field, in the words of the node whose parameter filled it. */
describe('inNodeWords', () => {
	const names = { to: 'To', headers: 'Headers', attachments: 'Attachments', 'filter.from': 'From Contains' };

	it('a quoted value follows the parameter name and a colon; a sentence goes on after it', () => {
		expect(inNodeWords('to "x" is not an email address', 'to', names)).toBe('To: "x" is not an email address');
		expect(inNodeWords('to must name at least one recipient', 'to', names)).toBe('To must name at least one recipient');
		expect(inNodeWords('filter.from must be at most 200 characters', 'filter.from', names)).toBe(
			'From Contains must be at most 200 characters',
		);
	});

	it('a field inside a parameter follows its name in brackets', () => {
		expect(inNodeWords('attachments[0].content is not base64', 'attachments[0].content', names)).toBe(
			'Attachments ([0].content) is not base64',
		);
		expect(inNodeWords('headers.X-A contains a line break', 'headers.X-A', names)).toBe('Headers (X-A) contains a line break');
		expect(inNodeWords('headers may not set Subject: Mailroom sets it itself', 'headers.Subject', names)).toBe(
			'Headers may not set Subject: Mailroom sets it itself',
		);
	});

	it("a message that does not start with the field gets the parameter's name before it; others stay as they are", () => {
		expect(inNodeWords('The Reply-To of message 1 is too long to read', 'to', names)).toBe(
			'To: The Reply-To of message 1 is too long to read',
		);
		expect(inNodeWords('text or html is required', 'text', names)).toBe('text or html is required');
		expect(inNodeWords('to "x" is not an email address', undefined, names)).toBe('to "x" is not an email address');
		expect(inNodeWords('to "x" is not an email address', 'to', undefined)).toBe('to "x" is not an email address');
	});
});
