import type {
	IAuthenticateGeneric,
	Icon,
	ICredentialTestRequest,
	ICredentialType,
	INodeProperties,
} from 'n8n-workflow';

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
			description: 'Address of your Mailroom server, without a trailing /api',
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

	test: ICredentialTestRequest = {
		request: {
			baseURL: '={{$credentials.baseUrl.replace(/\\/+$/, "")}}',
			url: '/api/me',
			method: 'GET',
		},
		rules: [
			{
				type: 'responseCode',
				properties: {
					value: 401,
					message: 'The API key was rejected by the Mailroom server (401 Unauthorized). Check the key.',
				},
			},
			{
				type: 'responseCode',
				properties: {
					value: 404,
					message: 'No Mailroom API at this Base URL (404 for /api/me). Check the Base URL.',
				},
			},
		],
	};
}
