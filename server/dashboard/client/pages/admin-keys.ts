import { enc, getJson, request, sendJson, type AdminAccount, type ApiKeyView } from '../api.js';
import { busy, h, hidden, StatusLine } from '../dom.js';
import { clearFormErrors, showFormError } from '../field-errors.js';
import type { AccountList } from './admin-account-list.js';
import { keyTable } from './key-table.js';
import { newKeyPanel } from './new-key-panel.js';

/**
 * The API keys of the account chosen in the list: create one (shown once), revoke one. The key of this session is never
 * offered for revoking (the server refuses it), so an admin cannot lock themselves out from here.
 */
export function adminKeys(list: AccountList): { element: Node; show: (account: AdminAccount) => void } {
	const status = new StatusLine();
	const rows = h('div', { class: 'list' });
	const created = h('div');
	const account = h('select', { id: 'admin-keys-account', name: 'account' });
	const label = h('input', { id: 'admin-key-label', name: 'label', type: 'text', autocomplete: 'off', maxlength: 200 });
	const createButton = h('button', { type: 'submit' }, 'Create key');
	const form = h(
		'form',
		{ class: 'inline-form', 'aria-label': 'API keys of an account' },
		h('div', { class: 'field' }, h('label', { for: account.id }, 'Account'), account),
		h('div', { class: 'field' }, h('label', { for: label.id }, 'Label for a new key'), label),
		createButton,
	);
	const chosen = () => account.value;

	const refresh = async () => {
		if (!chosen()) return;
		try {
			const keys = await getJson<ApiKeyView[]>(`/api/admin/accounts/${enc(chosen())}/keys`);
			const name = list.nameOf(chosen());
			rows.replaceChildren(
				keys.length === 0 ? h('p', {}, `${name} has no API keys.`) : keyTable(`API keys of ${name}`, keys, revokeButton),
			);
		} catch (error) {
			status.error(error);
		}
	};

	const revokeButton = (key: ApiKeyView) => {
		const owner = chosen();
		const what = `${key.label || key.id} of ${list.nameOf(owner)}`;
		const button = h('button', { type: 'button', class: 'danger' }, 'Revoke', hidden(` key ${what}`));
		button.addEventListener('click', () => {
			if (!confirm(`Revoke the key ${what}? Programs using it stop working at once.`)) return;
			void busy(button, async () => {
				try {
					await request(`/api/admin/accounts/${enc(owner)}/keys/${enc(key.id)}`, { method: 'DELETE' });
					created.replaceChildren();
					status.ok(`Revoked the key ${what}.`);
					await refresh();
				} catch (error) {
					status.error(error);
				}
			});
		});
		return button;
	};

	account.addEventListener('change', () => {
		created.replaceChildren();
		status.clear();
		void refresh();
	});
	form.addEventListener('submit', (event) => {
		event.preventDefault();
		void busy(createButton, async () => {
			try {
				const key = await sendJson<{ id: string; key: string; label: string }>('POST', `/api/admin/accounts/${enc(chosen())}/keys`, {
					label: label.value.trim(),
				});
				label.value = '';
				clearFormErrors(form);
				created.replaceChildren(newKeyPanel(`The new key of ${list.nameOf(chosen())}`, key.key, 'admin-new-key'));
				status.ok(`Created the key ${key.label || key.id}.`);
				await refresh();
			} catch (error) {
				showFormError(form, status, error);
			}
		});
	});
	list.onChange(() => {
		const before = chosen();
		account.replaceChildren(...list.accounts.map((one) => h('option', { value: one._id }, one.name)));
		if (list.accounts.some((one) => one._id === before)) account.value = before;
		void refresh();
	});

	const element = h('div', {}, form, status.element, created, rows);
	return {
		element,
		show: (chosenAccount) => {
			account.value = chosenAccount._id;
			account.dispatchEvent(new Event('change'));
			account.focus();
		},
	};
}
