import type { IAuthenticateGeneric, Icon, ICredentialTestRequest, ICredentialType, INodeProperties } from 'n8n-workflow';

/** HTTP error statuses (400-599) other than 401. */
const ERROR_STATUSES_BUT_401 = Array.from({ length: 200 }, (_, i) => 400 + i).filter((status) => status !== 401);

export class MailroomApi implements ICredentialType {
	name = 'mailroomApi';

	displayName = 'Mailroom API';

	icon: Icon = { light: 'file:mailroom.svg', dark: 'file:mailroom.dark.svg' };

	documentationUrl = 'https://www.npmjs.com/package/n8n-nodes-mailroom#use-with-n8n';

	properties: INodeProperties[] = [
		{
			displayName: 'API Key',
			name: 'apiKey',
			type: 'string',
			typeOptions: { password: true },
			required: true,
			default: '',
			description: 'The Mailroom API key of your account, sent in the Service-Key header',
		},
		{
			displayName: 'Base URL',
			name: 'baseUrl',
			type: 'string',
			required: true,
			default: 'http://localhost:3000',
			placeholder: 'https://mail.example.com',
			description: 'Address of your Mailroom server, e.g. https://mail.example.com; a trailing /api or / is left out',
		},
	];

	authenticate: IAuthenticateGeneric = {
		type: 'generic',
		properties: {
			headers: {
				'Service-Key': '={{$credentials.apiKey}}',
			},
		},
	};

	// n8n 2.x does not see the status of a failed test request (its `responseCode` rules never
	// match), so a 401 is let through as an answer and recognised by its body instead; every other
	// error status still fails the test with n8n's own message. The rules apply in order.
	test: ICredentialTestRequest = {
		request: {
			// As the nodes' requests do (apiBaseUrl in nodes/shared/transport.ts): without a trailing /api or slashes.
			baseURL: '={{$credentials.baseUrl.trim().replace(/(\\/api)?\\/*$/i, "")}}',
			url: '/api/me',
			method: 'GET',
			ignoreHttpStatusErrors: { ignore: true, except: ERROR_STATUSES_BUT_401 },
		},
		rules: [
			{
				type: 'responseSuccessBody',
				properties: {
					key: 'error',
					value: 'Unauthorized',
					message: 'The Mailroom server rejected this API key (401 Unauthorized). Check the API key.',
				},
			},
			{
				// Some other server answering 200 (a web page, say) has no account in its answer.
				type: 'responseSuccessBody',
				properties: {
					key: '_id',
					value: undefined,
					message: 'No Mailroom server answered at this Base URL (GET /api/me gave no account). Check the Base URL.',
				},
			},
		],
	};
}
