/** The body of every error answer. */
import Type, { type Static } from 'typebox';

export const ErrorSchema = Type.Object(
	{ error: Type.String({ description: 'the HTTP status text' }), message: Type.String({ description: 'what went wrong, for a person' }) },
	{ $id: 'Error' },
);
export type ErrorBody = Static<typeof ErrorSchema>;
