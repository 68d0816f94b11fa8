import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startMailroom } from 'mailroom-server/dist/app';
import { resolveConfig } from 'mailroom-server/dist/config/settings';
import { tempDataDir, testConfig } from '../../helpers/mailroom';

describe('sending settings', () => {
	it('reads the relay, local domains, retry schedule and DKIM from flags and MAILROOM_* variables', () => {
		const config = resolveConfig(
			{ relayRetryDelays: '500ms,2s,1m' },
			{
				MAILROOM_RELAY_URL: 'smtp://u:p@smtp.example.com:587',
				MAILROOM_LOCAL_DOMAINS: 'A.test, b.test',
				MAILROOM_DKIM_DOMAIN: 'Example.com',
				MAILROOM_DKIM_SELECTOR: 's1',
				MAILROOM_DKIM_KEY: '/k.pem',
			},
		);
		expect(config).toMatchObject({
			relayUrl: 'smtp://u:p@smtp.example.com:587',
			localDomains: ['a.test', 'b.test'],
			relayRetryDelays: [500, 2000, 60000],
			dkimDomain: 'example.com',
			dkimSelector: 's1',
			dkimKeyFile: '/k.pem',
		});
		const defaults = resolveConfig({}, {});
		expect(defaults.relayUrl).toBeUndefined();
		expect(defaults).toMatchObject({ localDomains: [], relayRetryDelays: [60000, 300000, 900000, 3600000, 10800000, 21600000, 43200000] });
	});

	it('refuses bad values with a message naming them, never echoing the relay password', () => {
		expect(() => resolveConfig({ relayUrl: 'http://smtp.example.com' }, {})).toThrow(/smtp:\/\/ or smtps:\/\//);
		expect(() => resolveConfig({ relayUrl: 'smtp://user:hunter2@' }, {})).toThrow(/relay URL/);
		expect(() => resolveConfig({ relayUrl: 'smtp://user:hunter2@' }, {})).not.toThrow(/hunter2/);
		expect(() => resolveConfig({ relayRetryDelays: '5x' }, {})).toThrow(/durations/);
		expect(() => resolveConfig({ dkimDomain: 'example.com' }, {})).toThrow(
			/--dkim-domain, --dkim-selector and --dkim-key must be given together/,
		);
	});

	it('refuses to start with a DKIM key file that holds no private key', async () => {
		const keyFile = join(tempDataDir(), 'bad.pem');
		writeFileSync(keyFile, 'not a key');
		const config = testConfig({ relayUrl: 'smtp://127.0.0.1:25', dkimDomain: 'example.com', dkimSelector: 's1', dkimKeyFile: keyFile });
		await expect(startMailroom(config)).rejects.toThrow(/--dkim-key .*bad\.pem is not a PEM private key/);
	});
});
