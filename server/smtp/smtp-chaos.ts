import { setTimeout as sleep } from 'node:timers/promises';
import type { ChaosStage } from '../schemas/chaos-settings';
import type { ChaosBook } from './chaos-book';

/** The commands as a reply names them. */
const COMMANDS: Record<ChaosStage, string> = { auth: 'AUTH', mailFrom: 'MAIL FROM', rcptTo: 'RCPT TO', data: 'DATA' };

/** A failure chaos drew: the SMTP listener counts it apart from real refusals. */
export class ChaosFailure extends Error {
	constructor(
		readonly responseCode: number,
		message: string,
	) {
		super(message);
	}
}

export interface SmtpChaosOptions {
	book: ChaosBook;
	/** The account a recipient address's mail belongs to (reserved address, else owned domain); null when public. */
	ownerOf: (address: string) => Promise<string | null>;
	/** The longest wait (ms) chaos may add: below the idle timeout, which would close the connection first. */
	maxDelayMs: number;
	/** A number in [0, 1): Math.random, or a fixed one in tests. */
	random?: () => number;
}

/**
 * Failures and delays on purpose at the SMTP stages, per account (its chaos settings, GET/PUT /api/me/chaos). Each stage
 * acts for the accounts whose mail the command is: the account of the API key a session authenticated with (AUTH, and
 * every stage of its sessions), else the owners of the recipients (RCPT TO, DATA). Before that is known (MAIL FROM and
 * AUTH of a session without an API key) no account's chaos acts.
 */
export class SmtpChaos {
	private readonly random: () => number;

	constructor(private readonly options: SmtpChaosOptions) {
		this.random = options.random ?? Math.random;
	}

	/** No account has chaos on: the listener asks nothing more (no owner lookups). */
	get idle(): boolean {
		return !this.options.book.any;
	}

	/** The account a recipient's mail belongs to, looked up only while some account has chaos on. */
	async ownerOf(address: string): Promise<string | null> {
		return this.idle ? null : this.options.ownerOf(address);
	}

	/**
	 * Acts `stage` of the accounts' chaos: waits the longest of their delays, then answers the first failure drawn
	 * (ChaosFailure, with the chosen code). Resolves when the command is to be answered as usual.
	 */
	async at(stage: ChaosStage, accounts: Iterable<string | null>): Promise<void> {
		const rules = [...new Set(accounts)].flatMap((id) => (id === null ? [] : [this.options.book.of(id)?.[stage] ?? null]));
		const acting = rules.filter((rule) => rule !== null);
		if (acting.length === 0) return;
		const delay = Math.min(Math.max(...acting.map((rule) => rule.delayMs)), this.options.maxDelayMs);
		if (delay > 0) await sleep(delay);
		for (const { code, probability } of acting) {
			if (code !== null && this.random() < probability) throw chaosFailure(stage, code);
		}
	}
}

/** "451 4.0.0 Mailroom chaos: ...": the enhanced status says only its class, as nothing really went wrong. */
const chaosFailure = (stage: ChaosStage, code: number) =>
	new ChaosFailure(
		code,
		`${Math.floor(code / 100)}.0.0 Mailroom chaos: ${COMMANDS[stage]} answered ${code} on purpose, as this account's chaos settings say (PUT /api/me/chaos)`,
	);
