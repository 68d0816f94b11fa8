import type { ParsedMail } from '../mail/parsed-mail';
import type { MessageAuth } from '../schemas/sender-auth';

/** What a scorer reads of a message; of a large body only its first megabyte (see bodySample). */
export type SpamInput = Omit<ParsedMail, 'spam' | 'links' | 'attachments' | 'text' | 'html'> & {
	text: string;
	html: string | null;
	links: string[];
	attachmentTypes: string[];
};

/** A spam engine gives each message a score in [0, 1]; a real engine (e.g. rspamd) can implement this later. */
export interface SpamScorer {
	score(mail: SpamInput): number;
}

interface Rule {
	weight: number;
	matches(mail: SpamInput): boolean;
}

const SPAMMY_WORDS =
	/\b(viagra|casino|lottery|winner|bitcoin|crypto ?currency|free money|act now|urgent|wire transfer|click here|100% free|risk[- ]free)\b/i;
const RISKY_ATTACHMENT = /(x-msdownload|x-msdos-program|x-ms-installer|javascript|x-sh|vnd\.microsoft\.portable-executable)/i;

const RULES: Rule[] = [
	{ weight: 0.15, matches: (m) => m.subject.trim() === '' },
	{ weight: 0.1, matches: (m) => !m.headers.some(([name]) => name === 'message-id') },
	{ weight: 0.1, matches: (m) => m.date === null },
	{ weight: 0.1, matches: (m) => m.from.length === 0 },
	{ weight: 0.1, matches: (m) => m.html !== null && m.text.trim().length < 20 },
	{ weight: 0.15, matches: (m) => /[A-Z]{4,}/.test(m.subject) && m.subject === m.subject.toUpperCase() },
	{ weight: 0.1, matches: (m) => /!{2,}|\${2,}/.test(m.subject) },
	{ weight: 0.25, matches: (m) => SPAMMY_WORDS.test(m.subject) || SPAMMY_WORDS.test(m.text) },
	{ weight: 0.1, matches: (m) => m.links.length > 15 },
	{ weight: 0.1, matches: (m) => m.links.some((link) => /^https?:\/\/\d+\.\d+\.\d+\.\d+/.test(link)) },
	{ weight: 0.3, matches: (m) => m.attachmentTypes.some((type) => RISKY_ATTACHMENT.test(type)) },
];

/** A small rule-based scorer: each matching rule adds its weight, capped at 1. */
export const builtInSpamScorer: SpamScorer = {
	score(mail) {
		const total = RULES.reduce((sum, rule) => (rule.matches(mail) ? sum + rule.weight : sum), 0);
		return Math.min(1, Math.round(total * 1000) / 1000);
	},
};

/**
 * What sender authentication adds to a score: a forged sender is the surest sign there is. A DMARC fail is a domain
 * saying this mail is not its own; an SPF fail, a sending host the domain does not allow; DKIM signatures that all fail,
 * a message altered or forged. Verification that could not finish (temperror) adds nothing.
 */
export function withSenderAuth(score: number, auth: MessageAuth | undefined): number {
	if (!auth) return score;
	let added = 0;
	if (auth.dmarc.result === 'fail') added += 0.6;
	if (auth.spf.result === 'fail') added += 0.3;
	else if (auth.spf.result === 'softfail') added += 0.1;
	if (auth.dkim.length > 0 && auth.dkim.every((signature) => signature.result === 'fail')) added += 0.2;
	return Math.min(1, Math.round((score + added) * 1000) / 1000);
}
