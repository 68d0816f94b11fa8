/** The body of every error answer. */
import Type, { type Static } from 'typebox';

export const ErrorSchema = Type.Object(
	{
		error: Type.String({ description: 'the HTTP status text' }),
		message: Type.String({ description: 'what went wrong, for a person' }),
		field: Type.Optional(
			Type.String({
				description:
					'on a 400 about one body field or query parameter: its name as the request writes it, e.g. webhook or attachments[0].content',
			}),
		),
	},
	{ $id: 'Error' },
);
export type ErrorBody = Static<typeof ErrorSchema>;
