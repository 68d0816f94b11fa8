/**
 * An account's chaos settings as stored and as the SMTP listener reads them, apart from their API schemas (chaos.ts): the
 * store and the admin CLI need these without loading the schema library.
 */
/** The SMTP stages chaos acts at, as the API names them. */
export const CHAOS_STAGES = ['auth', 'mailFrom', 'rcptTo', 'data'] as const;
export type ChaosStage = (typeof CHAOS_STAGES)[number];

/** What one stage does, as stored (the API's ChaosStage schema in chaos.ts has these fields). */
export interface ChaosStageSettings {
	code: number | null;
	probability: number;
	delayMs: number;
}

/** The settings as stored and as the SMTP listener reads them. */
export type ChaosSettings = { enabled: boolean } & Record<ChaosStage, ChaosStageSettings | null>;

/** An account that never set any: everything off. */
export const NO_CHAOS: ChaosSettings = { enabled: false, auth: null, mailFrom: null, rcptTo: null, data: null };

/** Whether the settings do anything: on, with at least one stage set. */
export const chaosActs = (settings: ChaosSettings) => settings.enabled && CHAOS_STAGES.some((stage) => settings[stage] !== null);
