import { enc, getJson, request, sendJson, type Domain, type ForwardingRecord, type WebhookSubscription } from '../api.js';
import { busy, h, hidden, pageHeading, StatusLine, table } from '../dom.js';
import { clearFormErrors, showFormError } from '../field-errors.js';
import { catchAllOf, subscriptionsSection } from './address-subscriptions.js';

/** The account's private addresses: reserve, release, and per address the forwarding Settings. */
export function addressesPage(root: HTMLElement): void {
	const status = new StatusLine();
	const list = h('div', { class: 'list' });
	const settings = h('div');

	const input = h('input', { id: 'reserve-address', name: 'address', type: 'email', required: true, autocomplete: 'off' });
	const reserveButton = h('button', { type: 'submit' }, 'Reserve');
	const reserveForm = h(
		'form',
		{ class: 'inline-form' },
		h('label', { for: 'reserve-address' }, 'Address to reserve'),
		input,
		reserveButton,
	);
	reserveForm.addEventListener('submit', (event) => {
		event.preventDefault();
		const address = input.value.trim().toLowerCase();
		void busy(reserveButton, async () => {
			try {
				await request(`/api/addresses/${enc(address)}`, { method: 'POST' });
				input.value = '';
				status.ok(`Reserved ${address}: its mail is now private to your account.`);
				await refresh();
			} catch (error) {
				status.error(error);
			}
		});
	});

	const refresh = async () => {
		try {
			const [addresses, domains] = await Promise.all([getJson<ForwardingRecord[]>('/api/addresses'), getJson<Domain[]>('/api/domains')]);
			// One small request per address; an address whose count cannot be read shows none rather than hiding the list.
			const counts = await Promise.all(
				addresses.map((record) =>
					getJson<WebhookSubscription[]>(`/api/addresses/${enc(record._id)}/webhooks`).then(
						(subscriptions) => subscriptions.length,
						() => undefined,
					),
				),
			);
			// An address without subscriptions of its own gets its domain's catch-all's: counted as such.
			const emails = addresses.map((record) => record._id);
			const viaCatchAll = emails.map((email, i) => {
				const catchAll = counts[i] === 0 ? catchAllOf(email, domains, emails) : undefined;
				return catchAll === undefined ? undefined : counts[emails.indexOf(catchAll)];
			});
			list.replaceChildren(addressTable(addresses, counts, viaCatchAll));
		} catch (error) {
			status.error(error);
		}
	};

	const addressTable = (addresses: ForwardingRecord[], counts: (number | undefined)[], viaCatchAll: (number | undefined)[]): Node => {
		if (addresses.length === 0) return h('p', {}, 'You have no private addresses yet.');
		return table(
			'Your private addresses',
			['Address', 'Forward to Custom Webhook', 'Webhook subscriptions', 'Forward to email', 'Web socket', 'Actions'],
			addresses.map((record, i) => [
				h('a', { href: `#/inbox/${enc(record._id)}` }, record._id),
				record.webhook ?? '—',
				subscriptionCount(counts[i], viaCatchAll[i]),
				record.forward ?? '—',
				record.enablews ? 'On' : 'Off',
				h('div', { class: 'actions' }, settingsButton(record), releaseButton(record)),
			]),
		);
	};

	// The list is redrawn after each change, so buttons are found by address rather than kept.
	let open: string | undefined;
	const settingsButtonOf = (address: string) =>
		[...list.querySelectorAll<HTMLButtonElement>('button[data-address]')].find((button) => button.dataset.address === address);
	const closeSettings = () => {
		const address = open;
		open = undefined;
		settings.replaceChildren();
		settingsButtonOf(address ?? '')?.setAttribute('aria-expanded', 'false');
		settingsButtonOf(address ?? '')?.focus();
	};

	const settingsButton = (record: ForwardingRecord) => {
		const button = h(
			'button',
			{
				type: 'button',
				class: 'secondary',
				'data-address': record._id,
				'aria-expanded': String(open === record._id),
				'aria-controls': 'settings-panel',
			},
			'Settings',
			hidden(` for ${record._id}`),
		);
		button.addEventListener('click', () => {
			settingsButtonOf(open ?? '')?.setAttribute('aria-expanded', 'false');
			open = record._id;
			button.setAttribute('aria-expanded', 'true');
			status.clear();
			settings.replaceChildren(
				settingsForm(record, () => void refresh(), closeSettings),
				subscriptionsSection(record._id),
			);
			settings.querySelector('input')?.focus();
		});
		return button;
	};

	const releaseButton = (record: ForwardingRecord) => {
		const button = h('button', { type: 'button', class: 'danger' }, 'Release', hidden(` ${record._id}`));
		button.addEventListener('click', () => {
			if (!confirm(`Release ${record._id}? Its mail becomes public.`)) return;
			void busy(button, async () => {
				try {
					await request(`/api/addresses/${enc(record._id)}`, { method: 'DELETE' });
					if (open === record._id) closeSettings();
					status.ok(`Released ${record._id}: its mail is public again.`);
					await refresh();
				} catch (error) {
					status.error(error);
				}
			});
		});
		return button;
	};

	root.append(
		pageHeading('Manage Email Addresses'),
		h(
			'p',
			{ class: 'hint' },
			'A reserved address is private: only your API keys can read its mail, and you choose where its mail is forwarded.',
		),
		reserveForm,
		status.element,
		list,
		settings,
	);
	void refresh();
}

/** An address's subscriptions, or (when it has none) the number of its catch-all's that receive its mail. */
function subscriptionCount(count: number | undefined, viaCatchAll?: number): string {
	const counted = (n: number) => (n === 1 ? '1 subscription' : `${n} subscriptions`);
	if (count === undefined) return '—';
	if (count === 0) return viaCatchAll ? `${counted(viaCatchAll)} of the catch-all` : 'No subscriptions';
	return counted(count);
}

/** The forwarding Settings of one address; Save Settings sends them all and shows the outcome. */
function settingsForm(record: ForwardingRecord, saved: () => void, close: () => void): HTMLElement {
	const status = new StatusLine();
	const webhook = h('input', {
		id: 'settings-webhook',
		name: 'webhook',
		type: 'url',
		inputmode: 'url',
		autocomplete: 'off',
		value: record.webhook ?? '',
		'aria-describedby': 'settings-webhook-hint',
	});
	const forward = h('input', {
		id: 'settings-forward',
		name: 'forward',
		type: 'email',
		autocomplete: 'off',
		value: record.forward ?? '',
		'aria-describedby': 'settings-forward-hint',
	});
	const enablews = h('input', {
		id: 'settings-enablews',
		name: 'enablews',
		type: 'checkbox',
		checked: record.enablews,
		'aria-describedby': 'settings-enablews-hint',
	});
	const info = h('input', { id: 'settings-info', name: 'info', type: 'text', autocomplete: 'off', value: record.info });
	const save = h('button', { type: 'submit' }, 'Save Settings');
	const cancel = h('button', { type: 'button', class: 'secondary' }, 'Close');
	cancel.addEventListener('click', close);

	// novalidate: the server checks the values, and its message is the one shown.
	const form = h(
		'form',
		{ class: 'panel', id: 'settings-panel', novalidate: true, 'aria-labelledby': 'settings-heading' },
		h('h2', { id: 'settings-heading' }, `Settings for ${record._id}`),
		h('label', { for: 'settings-webhook' }, 'Forward to Custom Webhook'),
		webhook,
		h('p', { class: 'hint', id: 'settings-webhook-hint' }, 'Each message is POSTed as JSON to this http(s) URL. Leave empty to stop.'),
		h('label', { for: 'settings-forward' }, 'Forward to email'),
		forward,
		h(
			'p',
			{ class: 'hint', id: 'settings-forward-hint' },
			'Each message is re-sent to this email address (one outgoing credit each). Leave empty for none.',
		),
		h('div', { class: 'check' }, enablews, h('label', { for: 'settings-enablews' }, 'Web socket forwarding')),
		h('p', { class: 'hint', id: 'settings-enablews-hint' }, 'Push each message to websocket clients of your account as it arrives.'),
		h('label', { for: 'settings-info' }, 'Info'),
		info,
		h('div', { class: 'actions' }, save, cancel),
		status.element,
	);
	form.addEventListener('submit', (event) => {
		event.preventDefault();
		void busy(save, async () => {
			try {
				await sendJson<ForwardingRecord>('PUT', `/api/addresses/${enc(record._id)}`, {
					webhook: webhook.value.trim() || null,
					forward: forward.value.trim() || null,
					enablews: enablews.checked,
					info: info.value,
				});
				clearFormErrors(form);
				status.ok(`Settings saved for ${record._id}.`);
				saved();
			} catch (error) {
				showFormError(form, status, error);
			}
		});
	});
	return form;
}
