/** Webhook deliveries as the API shows them: a message's delivery, and each attempt (Recent Activity). */
import Type, { type Static } from 'typebox';
import { DateTime, Nullable } from './shared';

const deliveryStatus = Type.Enum(['pending', 'delivered', 'failed', 'refused']);
export type DeliveryStatus = Static<typeof deliveryStatus>;

export const AttemptStatusSchema = Type.Enum(['delivered', 'retrying', 'failed', 'refused']);
export type AttemptStatus = Static<typeof AttemptStatusSchema>;

export const WebhookDeliverySchema = Type.Object(
	{
		_id: Type.String({ description: 'delivery id; also the webhook-id header of every attempt' }),
		messageId: Type.String(),
		address: Type.String(),
		url: Type.String(),
		status: deliveryStatus,
		attempts: Type.Integer(),
		lastStatusCode: Nullable(Type.Integer()),
		lastError: Nullable(Type.String()),
		nextRetry: Nullable(DateTime()),
		created: DateTime(),
		updated: DateTime(),
	},
	{ description: 'The webhook delivery of one message' },
);
export type WebhookDelivery = Static<typeof WebhookDeliverySchema>;

export const WebhookAttemptSchema = Type.Object(
	{
		_id: Type.String(),
		deliveryId: Type.String(),
		messageId: Type.String(),
		address: Type.String(),
		url: Type.String(),
		attempt: Type.Integer({ description: '1 for the first attempt of the delivery' }),
		status: AttemptStatusSchema,
		statusCode: Nullable(Type.Integer(), { description: "the receiver's HTTP status; null when no response came" }),
		error: Nullable(Type.String()),
		durationMs: Type.Integer(),
		time: DateTime(),
		nextRetry: Nullable(DateTime()),
	},
	{ description: 'One webhook attempt' },
);
export type WebhookAttempt = Static<typeof WebhookAttemptSchema>;

export const WebhookSecretSchema = Type.Object({
	secret: Type.String({ description: 'Standard Webhooks signing secret (whsec_ and base64)' }),
});
