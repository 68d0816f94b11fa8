/**
 * An account's chaos settings (GET and PUT /api/me/chaos): failures and delays on purpose at the SMTP stages of its own
 * mail, so a team can test how its app copes with a refusing or slow server without breaking anyone else's tests.
 */
import Type, { type Static } from 'typebox';
import { DateTime, Nullable, expects, refTo } from './shared';
import type { ChaosStage, ChaosStageSettings } from './chaos-settings';

/** The longest delay (ms) a stage may add: well below the SMTP idle timeout by default (--smtp-socket-timeout, 60 s). */
export const MAX_CHAOS_DELAY_MS = 30_000;

const code = Type.Integer({
	minimum: 400,
	maximum: 599,
	description: 'the SMTP reply code to answer instead of the usual one (421 also closes the connection)',
	...expects('an SMTP reply code from 400 to 599, or null for none'),
});
const probability = Type.Number({
	minimum: 0,
	maximum: 1,
	description: 'the chance (0 to 1) that a command at this stage is answered with `code`',
});
const delayMs = Type.Integer({
	minimum: 0,
	maximum: MAX_CHAOS_DELAY_MS,
	description: `milliseconds every answer at this stage waits (the failure's too), up to ${MAX_CHAOS_DELAY_MS}`,
});

export const ChaosStageSchema = Type.Object(
	{ code: Nullable(code), probability, delayMs },
	{
		$id: 'ChaosStage',
		additionalProperties: false,
		description: 'What one SMTP stage does: a failure with a chance, a delay, or both.',
		examples: [{ code: 451, probability: 0.25, delayMs: 0 }],
	},
);
/** True when the stored type (chaos-settings.ts) and the schema have one shape: if either drifts, the line below fails to build. */
type SameShape<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
export const STORED_STAGE_MATCHES_SCHEMA: SameShape<ChaosStageSettings, Static<typeof ChaosStageSchema>> = true;

const STAGE_WORDS: Record<ChaosStage, string> = {
	auth: "AUTH with one of the account's API keys (the account is known once the key is checked)",
	mailFrom: "MAIL FROM in a session authenticated with one of the account's API keys",
	rcptTo: "RCPT TO of one of the account's addresses (reserved, or in its domains), or any RCPT TO of its authenticated sessions",
	data: 'the end of DATA of a message for the account (as at RCPT TO), once the message is received',
};

export const ChaosSchema = Type.Object(
	{
		enabled: Type.Boolean({ description: 'whether the stages below act; off by default' }),
		auth: Nullable(refTo(ChaosStageSchema), { description: STAGE_WORDS.auth }),
		mailFrom: Nullable(refTo(ChaosStageSchema), { description: STAGE_WORDS.mailFrom }),
		rcptTo: Nullable(refTo(ChaosStageSchema), { description: STAGE_WORDS.rcptTo }),
		data: Nullable(refTo(ChaosStageSchema), { description: STAGE_WORDS.data }),
		updated: Nullable(DateTime(), { description: 'when they were last changed; null while never set' }),
	},
	{
		$id: 'Chaos',
		description: "An account's chaos settings: SMTP failures and delays on purpose, for its own mail only.",
		examples: [
			{
				enabled: true,
				auth: null,
				mailFrom: null,
				rcptTo: { code: 550, probability: 0.5, delayMs: 0 },
				data: { code: null, probability: 1, delayMs: 2000 },
				updated: '2026-11-29T13:40:00.000Z',
			},
		],
	},
);
export type ChaosView = Static<typeof ChaosSchema>;

const stageUpdate = (name: ChaosStage) =>
	Type.Optional(
		Nullable(
			Type.Object(
				{
					code: Type.Optional(Nullable(code)),
					probability: Type.Optional(probability),
					delayMs: Type.Optional(delayMs),
				},
				{ additionalProperties: false },
			),
			{ description: `${STAGE_WORDS[name]}. Left out fields: code null, probability 1, delayMs 0; null turns the stage off` },
		),
	);

export const ChaosUpdateSchema = Type.Object(
	{
		enabled: Type.Optional(Type.Boolean({ description: 'turn chaos on or off (the stages are kept)' })),
		auth: stageUpdate('auth'),
		mailFrom: stageUpdate('mailFrom'),
		rcptTo: stageUpdate('rcptTo'),
		data: stageUpdate('data'),
	},
	{
		$id: 'ChaosUpdate',
		additionalProperties: false,
		description: 'Changes to the chaos settings. Every field is optional; fields left out keep their value.',
		examples: [{ enabled: true, rcptTo: { code: 550, probability: 0.5 }, data: { delayMs: 2000 } }],
	},
);
export type ChaosUpdateBody = Static<typeof ChaosUpdateSchema>;
