import { DeliveryEventSchema, EventSubscriptionSchema, SuppressionSchema } from '../schemas/delivery-event';
/** Schemas the routes share: the data shapes they register once by name, their path parameters, their error answers. */
import type { Readable } from 'node:stream';
import Type from 'typebox';
import { AddressObjectSchema, AttachmentFileSchema, AttachmentMetaSchema, MessageSchema } from '../schemas/message';
import { ForwardingSchema, ForwardingUpdateSchema } from '../schemas/address';
import { DomainSchema } from '../schemas/domain';
import { OutgoingSchema } from '../schemas/outgoing';
import { ThreadSchema } from '../schemas/thread';
import { WebhookSubscriptionSchema } from '../schemas/webhook';
import { WebhookPayloadSchema } from '../schemas/payload';
import { ErrorSchema } from '../schemas/error';
import { ReadinessSchema } from '../schemas/health';
import { LinkCheckSchema } from '../schemas/link-check';
import { ChaosSchema, ChaosStageSchema, ChaosUpdateSchema } from '../schemas/chaos';
import { MessageAuthSchema } from '../schemas/sender-auth';
import { expects, refTo } from '../schemas/shared';
import { ID_PATTERN } from '../store/ids';

/** Registered with the server by their `$id`: routes refer to them with refTo, and the OpenAPI document lists them. */
export const SHARED_SCHEMAS = [
	ErrorSchema,
	AddressObjectSchema,
	MessageAuthSchema,
	AttachmentFileSchema,
	MessageSchema,
	AttachmentMetaSchema,
	ForwardingSchema,
	ForwardingUpdateSchema,
	DomainSchema,
	OutgoingSchema,
	ThreadSchema,
	WebhookSubscriptionSchema,
	WebhookPayloadSchema,
	DeliveryEventSchema,
	EventSubscriptionSchema,
	SuppressionSchema,
	ReadinessSchema,
	LinkCheckSchema,
	ChaosStageSchema,
	ChaosSchema,
	ChaosUpdateSchema,
];

const email = Type.String({ maxLength: 254 });
/** A path parameter naming a record by its id (`what`: message, key, delivery...). */
export const IdParam = (what: string) => Type.String({ pattern: ID_PATTERN, ...expects(`a ${what} id: 1 to 64 letters, digits, _ or -`) });
const messageId = IdParam('message');

export const EmailParams = Type.Object({ email });
export const DomainParams = Type.Object({ domain: Type.String({ maxLength: 253 }) });
export const MessageParams = Type.Object({ email, messageId });

/** The error answers a route can give, so every status it may answer is documented. */
export function errorResponses<const Codes extends number[]>(...codes: Codes) {
	return Object.fromEntries(codes.map((code) => [code, refTo(ErrorSchema)])) as Record<
		Codes[number],
		ReturnType<typeof refTo<typeof ErrorSchema>>
	>;
}

/** A 204 answer: no body. */
export const NoContent = (description: string) => Type.Unsafe<undefined>(Type.Null({ description }));

/** A body sent as it is, text or bytes, whole or streamed; documented as a string (binary with `format: 'binary'`). */
export const RawBody = (options: { format?: 'binary' } = {}) => Type.Unsafe<string | Buffer | Readable>(Type.String(options));
