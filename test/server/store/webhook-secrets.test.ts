import { describe, expect, it } from '@jest/globals';
import { ROTATION_OVERLAP_MS } from 'mailroom-server/dist/store/store';
import { ENGINES, storePerTest } from '../../helpers/stores';

describe.each(ENGINES)('WebhookSecretStore: the signing secrets of an account (%s)', (engine) => {
	const current = storePerTest(engine);

	it('makes a webhook secret on first use, and keeps the previous one signing for a day after a rotation', async () => {
		const { accounts, webhookSecrets } = current();
		const { id } = await accounts.create('signer');
		const secret = await webhookSecrets.get(id);
		expect(secret).toMatch(/^whsec_/);
		expect(await webhookSecrets.get(id)).toBe(secret);
		expect(await webhookSecrets.signing(id, Date.now())).toEqual({ secret, previous: null });
		const rotated = await webhookSecrets.rotate(id);
		expect(rotated).not.toBe(secret);
		expect(await webhookSecrets.signing(id, Date.now())).toEqual({ secret: rotated, previous: secret });
		expect(await webhookSecrets.signing(id, Date.now() + ROTATION_OVERLAP_MS + 1000)).toEqual({ secret: rotated, previous: null });
	});
});
