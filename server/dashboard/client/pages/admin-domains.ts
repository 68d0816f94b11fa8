import { ApiError, enc, request, getJson, sendJson, type Domain } from '../api.js';
import { busy, formatTime, h, hidden, StatusLine, table } from '../dom.js';
import { clearFormErrors, showFormError } from '../field-errors.js';
import type { AccountList } from './admin-account-list.js';

/** Every custom domain and its owner: give a domain to an account, take one back (its mail becomes public). */
export function adminDomains(list: AccountList): Node {
	const status = new StatusLine();
	const rows = h('div', { class: 'list' });
	const domain = h('input', { id: 'admin-domain', name: 'domain', type: 'text', autocomplete: 'off', required: true, spellcheck: 'false' });
	const owner = h('select', { id: 'admin-domain-account', name: 'account' });
	const giveButton = h('button', { type: 'submit' }, 'Give domain');
	const form = h(
		'form',
		{ class: 'inline-form', novalidate: true, 'aria-label': 'Give a domain to an account' },
		h('div', { class: 'field' }, h('label', { for: domain.id }, 'Domain'), domain),
		h('div', { class: 'field' }, h('label', { for: owner.id }, 'To account'), owner),
		giveButton,
	);

	const refresh = async () => {
		try {
			const domains = await getJson<Domain[]>('/api/admin/domains');
			rows.replaceChildren(
				domains.length === 0
					? h('p', {}, 'No account owns a domain yet: mail to every domain is public.')
					: table(
							'Custom domains and their owners',
							['Domain', 'Owner', 'Catch-all address', 'Created', 'Actions'],
							domains.map((record) => [
								record._id,
								list.nameOf(record.owner),
								record.catchAll ?? '',
								formatTime(record.created),
								removeButton(record),
							]),
						),
			);
		} catch (error) {
			status.error(error);
		}
	};

	const removeButton = (record: Domain) => {
		const button = h('button', { type: 'button', class: 'danger' }, 'Remove', hidden(` ${record._id}`));
		button.addEventListener('click', () => {
			if (!confirm(`Take ${record._id} from ${list.nameOf(record.owner)}? Its mail becomes public (reserved addresses stay reserved).`))
				return;
			void busy(button, async () => {
				try {
					await request(`/api/admin/domains/${enc(record._id)}`, { method: 'DELETE' });
					status.ok(`Removed ${record._id}: its mail is public again.`);
					await refresh();
				} catch (error) {
					status.error(error);
				}
			});
		});
		return button;
	};

	form.addEventListener('submit', (event) => {
		event.preventDefault();
		void busy(giveButton, async () => {
			try {
				const given = await sendJson<Domain>('POST', `/api/admin/domains/${enc(domain.value.trim())}`, { account: owner.value });
				domain.value = '';
				clearFormErrors(form);
				status.ok(`${given._id} belongs to ${list.nameOf(given.owner)}: SMTP accepts its mail, private to that account.`);
				await refresh();
			} catch (error) {
				// The domain is part of the URL: a refusal of it names no field, but it is about that one.
				const about =
					error instanceof ApiError && error.status === 400 && !error.field ? new ApiError(400, error.message, 'domain') : error;
				showFormError(form, status, about);
			}
		});
	});
	list.onChange(() => {
		const before = owner.value;
		owner.replaceChildren(...list.accounts.map((one) => h('option', { value: one._id }, one.name)));
		if (list.accounts.some((one) => one._id === before)) owner.value = before;
		void refresh();
	});
	return h('div', {}, form, status.element, rows);
}
