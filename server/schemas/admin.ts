/** What the admin routes (/api/admin/…) answer: accounts as GET /api/me shows one, and a new account with its first key. */
import Type, { type Static } from 'typebox';
import { MeSchema, NewApiKeySchema } from './account';

export const AdminAccountSchema = MeSchema;
export type AdminAccount = Static<typeof AdminAccountSchema>;

export const NewAccountSchema = Type.Object({
	account: AdminAccountSchema,
	key: NewApiKeySchema,
});
export type NewAccount = Static<typeof NewAccountSchema>;
