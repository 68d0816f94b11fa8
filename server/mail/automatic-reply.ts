/**
 * Whether a message says it was sent by a machine, not written by a person (RFC 3834's Auto-Submitted, and the headers
 * common auto-responders set instead): an out-of-office or a bounce is no answer to a question.
 */
export function isAutomaticReply(headers: readonly (readonly [string, string])[]): boolean {
	const value = (name: string) =>
		headers
			.find(([key]) => key === name)?.[1]
			.trim()
			.toLowerCase();
	const autoSubmitted = value('auto-submitted');
	if (autoSubmitted !== undefined && autoSubmitted !== 'no') return true;
	if (value('x-autoreply') !== undefined || value('x-autorespond') !== undefined) return true;
	return value('precedence') === 'auto_reply';
}
