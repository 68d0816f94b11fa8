import { sendJson, type AdminAccount, type NewAccount } from '../api.js';
import { busy, formatTime, h, hidden, pageHeading, StatusLine, table } from '../dom.js';
import { clearFormErrors, showFormError } from '../field-errors.js';
import { adminDomains } from './admin-domains.js';
import { adminKeys } from './admin-keys.js';
import { AccountList } from './admin-account-list.js';
import { newKeyPanel } from './new-key-panel.js';

/**
 * What the `mailroom accounts|keys|credits|domains` commands do, for admins: the server's accounts and their credits,
 * any account's API keys, and which account owns which domain. The server answers these calls (/api/admin/…) for an admin
 * account's key only; the navigation shows the page to admins only.
 */
export function adminPage(root: HTMLElement): void {
	const list = new AccountList();
	const status = new StatusLine();
	const keys = adminKeys(list);
	root.append(
		pageHeading('Admin'),
		h('p', { class: 'hint' }, 'Accounts, API keys, credits and domains of this server: what the mailroom admin commands manage.'),
		status.element,
		section(
			'Accounts',
			accountsSection(list, (account) => keys.show(account)),
		),
		section('API keys', keys.element),
		section('Domains', adminDomains(list)),
	);
	list.reload().catch((error: unknown) => status.error(error));
}

function section(title: string, content: Node): Node {
	const id = `section-${title.toLowerCase().replace(/\W+/g, '-')}`;
	return h('section', { 'aria-labelledby': id }, h('h2', { id }, title), content);
}

/** The accounts: a form that creates one (and shows its first key once), and per account its credits and a way to add some. */
function accountsSection(list: AccountList, showKeys: (account: AdminAccount) => void): Node {
	const status = new StatusLine();
	const rows = h('div', { class: 'list' });
	const created = h('div');
	const name = h('input', { id: 'admin-account-name', name: 'name', type: 'text', autocomplete: 'off', required: true, maxlength: 64 });
	const credits = h('input', { id: 'admin-account-credits', name: 'credits', type: 'number', min: 0, step: 1, value: 0 });
	const admin = h('input', { id: 'admin-account-admin', name: 'admin', type: 'checkbox' });
	const createButton = h('button', { type: 'submit' }, 'Create account');
	const form = h(
		'form',
		{ class: 'inline-form', novalidate: true, 'aria-label': 'Create an account' },
		h('div', { class: 'field' }, h('label', { for: name.id }, 'New account name'), name),
		h('div', { class: 'field' }, h('label', { for: credits.id }, 'Credits'), credits),
		h('div', { class: 'check' }, admin, h('label', { for: admin.id }, 'Admin')),
		createButton,
	);

	form.addEventListener('submit', (event) => {
		event.preventDefault();
		void busy(createButton, async () => {
			try {
				const body = { name: name.value.trim(), credits: Number(credits.value || 0), admin: admin.checked };
				const { account, key } = await sendJson<NewAccount>('POST', '/api/admin/accounts', body);
				form.reset();
				clearFormErrors(form);
				created.replaceChildren(newKeyPanel(`The first API key of ${account.name}`, key.key, 'admin-new-account-key'));
				status.ok(`Created the account ${account.name}.`);
				await list.reload();
			} catch (error) {
				showFormError(form, status, error);
			}
		});
	});

	const addCredits = (account: AdminAccount) => {
		const input = h('input', { id: `admin-credits-${account._id}`, name: 'credits', type: 'number', min: 1, step: 1, value: 10 });
		const button = h('button', { type: 'submit', class: 'secondary' }, 'Add credits', hidden(` to ${account.name}`));
		const credit = h(
			'form',
			{ class: 'row-form', novalidate: true },
			h('label', { for: input.id, class: 'visually-hidden' }, `Credits to add to ${account.name}`),
			input,
			button,
		);
		credit.addEventListener('submit', (event) => {
			event.preventDefault();
			void busy(button, async () => {
				try {
					const updated = await sendJson<AdminAccount>('POST', `/api/admin/accounts/${account._id}/credits`, {
						credits: Number(input.value),
					});
					status.ok(`${updated.name} now has ${updated.sendsRemaining} outgoing credits.`);
					await list.reload();
				} catch (error) {
					showFormError(credit, status, error);
				}
			});
		});
		return credit;
	};

	const keysButton = (account: AdminAccount) => {
		const button = h('button', { type: 'button', class: 'secondary' }, 'Keys', hidden(` of ${account.name}`));
		button.addEventListener('click', () => showKeys(account));
		return button;
	};

	list.onChange(() =>
		rows.replaceChildren(
			table(
				'Accounts of this server',
				['Name', 'Account id', 'Credits', 'Role', 'Created', 'Actions'],
				list.accounts.map((account) => [
					account.name,
					h('code', {}, account._id),
					String(account.sendsRemaining),
					account.admin ? 'Admin' : '',
					formatTime(account.created),
					h('div', { class: 'actions' }, addCredits(account), keysButton(account)),
				]),
			),
		),
	);
	return h('div', {}, form, status.element, created, rows);
}
