import { createHash, randomBytes } from 'node:crypto';
import { AccountError, type Account } from './store';

/** Keys are random and long, so a plain SHA-256 is enough to store them safely. */
export function hashKey(key: string): string {
	return createHash('sha256').update(key).digest('hex');
}

/** A new API key in clear text: "mr_" and 24 random bytes. */
export function newApiKey(): string {
	return `mr_${randomBytes(24).toString('base64url')}`;
}

const ACCOUNT_NAME = /^[A-Za-z0-9][A-Za-z0-9._@-]{0,63}$/;

/** Refuses (AccountError) a name that is not 1-64 letters, digits, ".", "_", "@" or "-". */
export function checkAccountName(name: string): void {
	if (!ACCOUNT_NAME.test(name)) throw new AccountError(`account name "${name}" must be 1-64 letters, digits, ".", "_", "@" or "-"`);
}

/** Refuses (AccountError) credits that are not a positive whole number. */
export function checkCredits(credits: number): void {
	if (!Number.isInteger(credits) || credits <= 0) throw new AccountError(`credits must be a positive whole number, got ${credits}`);
}

export const noAccount = (idOrName: string) => new AccountError(`no account "${idOrName}" (see: mailroom accounts list)`, 404);
export const accountExists = (name: string) => new AccountError(`an account named "${name}" already exists`, 409);
export const noKey = (keyId: string) => new AccountError(`no API key with id "${keyId}" (see: mailroom keys list <account>)`, 404);
export const keyAlreadyRevoked = (keyId: string) => new AccountError(`API key "${keyId}" was already revoked`, 409);

/** A row of accounts, as either engine reads it. */
export interface AccountRow {
	id: string;
	name: string;
	credits: number;
	is_admin: number;
	created: string;
}

export const toAccount = (row: AccountRow): Account => ({
	id: row.id,
	name: row.name,
	credits: row.credits,
	isAdmin: row.is_admin === 1,
	created: row.created,
});

/** The columns of api_keys as an ApiKeyInfo. */
export const KEY_INFO_COLUMNS = 'id, account_id AS "accountId", label, created, revoked';
