import { enc, getJson, request, sendJson, type ApiKeyView, type Me } from '../api.js';
import { busy, formatTime, h, hidden, pageHeading, StatusLine } from '../dom.js';
import { clearFormErrors, showFormError } from '../field-errors.js';
import { chaosSettings } from './account-chaos.js';
import { keyTable } from './key-table.js';
import { eventSubscriptions } from './event-subscriptions.js';
import { suppressionList } from './suppressions.js';

/**
 * Outgoing credits, API keys, the webhook signing secret, the delivery event subscriptions, the suppression list and the
 * chaos settings of the signed-in account. `#/account/<section>` (`suppression-list`, …) opens at that section.
 */
export function accountPage(root: HTMLElement, [opened]: string[]): void {
	const details = h('div', {}, h('p', { class: 'hint' }, 'Loading…'));
	root.append(
		pageHeading('Account'),
		details,
		section('API keys', apiKeys()),
		section('Webhook signing secret', signingSecret()),
		section('Delivery event subscriptions', eventSubscriptions()),
		section('Suppression list', suppressionList()),
		section('Chaos: SMTP failures on purpose', chaosSettings()),
	);
	// After the router has focused the page's h1: the section asked for takes focus, and with it the view.
	if (opened) requestAnimationFrame(() => document.getElementById(`section-${opened}`)?.focus());
	getJson<Me>('/api/me').then(
		(me) =>
			details.replaceChildren(
				h(
					'dl',
					{ class: 'summary' },
					h('dt', {}, 'Account'),
					h('dd', {}, me.name),
					h('dt', {}, 'Outgoing credits'),
					h('dd', { id: 'credits' }, String(me.sendsRemaining)),
					h('dt', {}, 'Administrator'),
					h('dd', {}, me.admin ? 'Yes' : 'No'),
					h('dt', {}, 'Created'),
					h('dd', {}, formatTime(me.created)),
				),
				h('p', { class: 'hint' }, 'Each recipient of a sent message uses one outgoing credit.'),
			),
		(error) => details.replaceChildren(h('p', { class: 'status error' }, (error as Error).message)),
	);
}

function section(title: string, ...content: Node[]): Node {
	const id = `section-${title.toLowerCase().replace(/\W+/g, '-')}`;
	return h('section', { 'aria-labelledby': id }, h('h2', { id, tabindex: -1 }, title), ...content);
}

function apiKeys(): Node {
	const status = new StatusLine();
	const list = h('div', { class: 'list' });
	const created = h('div');
	const label = h('input', { id: 'key-label', name: 'label', type: 'text', autocomplete: 'off', maxlength: 200 });
	const createButton = h('button', { type: 'submit' }, 'Create key');
	const form = h('form', { class: 'inline-form' }, h('label', { for: 'key-label' }, 'Label for a new key'), label, createButton);

	const refresh = async () => {
		try {
			const keys = await getJson<ApiKeyView[]>('/api/me/keys');
			list.replaceChildren(keys.length === 0 ? h('p', {}, 'No API keys.') : keyTable('API keys of your account', keys, revokeButton));
		} catch (error) {
			status.error(error);
		}
	};

	const revokeButton = (key: ApiKeyView) => {
		const button = h('button', { type: 'button', class: 'danger' }, 'Revoke', hidden(` key ${key.label || key.id}`));
		button.addEventListener('click', () => {
			if (!confirm(`Revoke the key ${key.label || key.id}? Programs using it stop working at once.`)) return;
			void busy(button, async () => {
				try {
					await request(`/api/me/keys/${enc(key.id)}`, { method: 'DELETE' });
					created.replaceChildren();
					status.ok(`Revoked the key ${key.label || key.id}.`);
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
		void busy(createButton, async () => {
			try {
				const key = await sendJson<{ id: string; key: string; label: string }>('POST', '/api/me/keys', { label: label.value.trim() });
				label.value = '';
				created.replaceChildren(
					h(
						'div',
						{ class: 'panel secret' },
						h('p', {}, h('strong', {}, 'Copy the new key now: it is shown only this once.')),
						h('code', { id: 'new-key' }, key.key),
					),
				);
				clearFormErrors(form);
				status.ok(`Created the key ${key.label || key.id}.`);
				await refresh();
			} catch (error) {
				showFormError(form, status, error);
			}
		});
	});
	void refresh();
	return h('div', {}, form, status.element, created, list);
}

function signingSecret(): Node {
	const status = new StatusLine();
	const value = h('div');
	const show = h('button', { type: 'button', class: 'secondary' }, 'Show secret');
	const rotate = h('button', { type: 'button', class: 'danger' }, 'Rotate secret');
	const display = (secret: string) => value.replaceChildren(h('code', { id: 'signing-secret' }, secret));

	show.addEventListener(
		'click',
		() =>
			void busy(show, async () => {
				try {
					display((await getJson<{ secret: string }>('/api/webhook-secret')).secret);
					status.clear();
				} catch (error) {
					status.error(error);
				}
			}),
	);
	rotate.addEventListener('click', () => {
		if (!confirm('Rotate the signing secret? Receivers must use the new secret to verify webhooks from now on.')) return;
		void busy(rotate, async () => {
			try {
				display((await sendJson<{ secret: string }>('POST', '/api/webhook-secret/rotate')).secret);
				status.ok('The signing secret was rotated; webhooks are signed with the new one from now on.');
			} catch (error) {
				status.error(error);
			}
		});
	});
	return h(
		'div',
		{},
		h(
			'p',
			{ class: 'hint' },
			'Every webhook request carries webhook-id, webhook-timestamp and webhook-signature headers (Standard Webhooks), signed with this secret; verify them in your receiver.',
		),
		h('div', { class: 'actions' }, show, rotate),
		value,
		status.element,
	);
}
