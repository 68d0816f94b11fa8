import Type, { type Static, type TSchema, type TUnsafe } from 'typebox';

/**
 * A $ref to a shape declared with an `$id` (routes register every such shape once, and the OpenAPI document lists it
 * under that name), typed as the shape itself.
 */
export function refTo<T extends TSchema>(schema: T): TUnsafe<Static<T>> {
	return Type.Unsafe<Static<T>>(Type.Ref((schema as { $id?: string }).$id!));
}

/**
 * A schema's own words for what it takes, used in the 400 answer when a value fails it ("webhook must be <words>"):
 * for unions, which Ajv would report branch by branch, and patterns, which mean nothing to a reader. An OpenAPI
 * extension field, so the document stays valid; the validator knows it as a keyword that checks nothing.
 */
export const EXPECTED = 'x-expected';
export const expects = (words: string) => ({ [EXPECTED]: words });

/** `T`, or null. */
export const Nullable = <T extends TSchema>(schema: T, options: { description?: string } = {}) =>
	Type.Union([schema, Type.Null()], options);

/** An http(s) URL mail is posted to: a webhook. */
export const WebhookUrl = (options: { description?: string } = {}) =>
	Type.String({ maxLength: 2048, format: 'uri', pattern: '^https?://', ...expects('an http(s) URL'), ...options });

/** A time as ISO 8601 text. */
export const DateTime = (options: { description?: string } = {}) => Type.String({ format: 'date-time', ...options });
