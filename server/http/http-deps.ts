import type { MailroomConfig } from '../config/settings';
import type { AccountStore } from '../store/accounts';
import type { AddressStore } from '../store/addresses';
import type { MessageStore } from '../store/messages';
import type { Logger } from '../log';

/** What route plugins are given. */
export interface HttpDeps {
	config: MailroomConfig;
	accounts: AccountStore;
	addresses: AddressStore;
	messages: MessageStore;
	log: Logger;
}
