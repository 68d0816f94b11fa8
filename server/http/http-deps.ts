import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FastifyBaseLogger, FastifyInstance, RawServerDefault } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { MailroomConfig } from '../config/settings';
import type {
	AccountInbox,
	AccountStatsReader,
	AccountStore,
	AddressStore,
	AttachmentStore,
	DeliveryEventStore,
	DomainStore,
	EncryptedInboxStore,
	MessageDeletion,
	MessageStateStore,
	MessageStore,
	OutgoingStore,
	SuppressionStore,
	ThreadStore,
	WebhookSubscriptionStore,
} from '../store/store';
import type { Logger } from '../log';
import type { Sender } from '../outbound/sender';
import type { Webhooks } from '../webhooks/webhooks';
import type { IncomingMessagesHub } from '../websocket/incoming-messages-hub';
import type { MailWaiters } from '../waiting/mail-waiters';
import type { HttpMetrics } from '../metrics/http-metrics';
import type { SearchMetrics } from '../metrics/search-metrics';
import type { ChaosBook } from '../smtp/chaos-book';
import type { Readiness } from './readiness';

/** What route plugins are given. */
export interface HttpDeps {
	config: MailroomConfig;
	accounts: AccountStore;
	addresses: AddressStore;
	domains: DomainStore;
	stats: AccountStatsReader;
	messages: MessageStore;
	deletion: MessageDeletion;
	messageState: MessageStateStore;
	accountInbox: AccountInbox;
	attachments: AttachmentStore;
	subscriptions: WebhookSubscriptionStore;
	/** The accounts' chaos settings (GET and PUT /api/me/chaos), as the SMTP listener holds them. */
	chaos: ChaosBook;
	deliveryEvents: DeliveryEventStore;
	suppressions: SuppressionStore;
	log: Logger;
	sender: Sender;
	outgoing: OutgoingStore;
	threads: ThreadStore;
	webhooks: Webhooks;
	incomingMessages: IncomingMessagesHub;
	waiters: MailWaiters;
	encryptedInboxes: EncryptedInboxStore;
	/** Where clients reach this server's API, for the attachment links of payloads (known once the server listens). */
	publicUrl: () => string;
	/** Resolves once everything committed so far is durable (awaited before answering a change). */
	durable: () => Promise<void>;
	/** What GET /readyz answers. */
	readiness: Readiness;
	/** Where every answered request is counted. */
	metrics: HttpMetrics;
	/** Where account-wide searches are counted, running and by how they ended. */
	searches: SearchMetrics;
}

/** The server routes are added to: their schemas type each request and reply (TypeBox). */
export type HttpApp = FastifyInstance<RawServerDefault, IncomingMessage, ServerResponse, FastifyBaseLogger, TypeBoxTypeProvider>;
