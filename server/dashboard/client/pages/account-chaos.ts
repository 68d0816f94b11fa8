import { getJson, sendJson, type ChaosView } from '../api.js';
import { busy, formatTime, h, StatusLine } from '../dom.js';
import { clearFormErrors, showFormError } from '../field-errors.js';

/** The stages as the API names them, and as the form shows them. */
const STAGES = [
	['auth', 'AUTH', 'with one of your API keys'],
	['mailFrom', 'MAIL FROM', 'in sessions authenticated with one of your API keys'],
	['rcptTo', 'RCPT TO', 'of your addresses and domains, or in your authenticated sessions'],
	['data', 'DATA', 'the reply once a message for you is received'],
] as const;
type Stage = (typeof STAGES)[number][0];

/** A number input named as the API names its field (`rcptTo.code`), so a refusal of the server shows under it. */
function numberInput(stage: Stage, field: string, value: number | null, attrs: Record<string, string | number>) {
	return h('input', { id: `chaos-${stage}-${field}`, name: `${stage}.${field}`, type: 'number', value: value ?? '', ...attrs });
}

/**
 * The account's chaos settings (GET and PUT /api/me/chaos): per SMTP stage, a reply code answered with a chance, and a
 * delay, for this account's mail only; off by default.
 */
export function chaosSettings(): Node {
	const status = new StatusLine();
	const updated = h('p', { class: 'hint' });
	const enabled = h('input', { id: 'chaos-enabled', name: 'enabled', type: 'checkbox' });
	const inputs = {} as Record<Stage, { code: HTMLInputElement; probability: HTMLInputElement; delayMs: HTMLInputElement }>;
	const rows = STAGES.map(([stage, command, words]) => {
		inputs[stage] = {
			code: numberInput(stage, 'code', null, { min: 400, max: 599, step: 1, placeholder: 'none' }),
			probability: numberInput(stage, 'probability', 1, { min: 0, max: 1, step: 0.01 }),
			delayMs: numberInput(stage, 'delayMs', 0, { min: 0, step: 100 }),
		};
		const field = (name: 'code' | 'probability' | 'delayMs', label: string) =>
			h('div', { class: 'field' }, h('label', { for: inputs[stage][name].id }, label), inputs[stage][name]);
		return h(
			'fieldset',
			{ class: 'inline-form chaos-stage' },
			h('legend', {}, h('strong', {}, command), ` ${words}`),
			field('code', 'Reply code'),
			field('probability', 'Chance (0 to 1)'),
			field('delayMs', 'Delay (ms)'),
		);
	});
	const show = (chaos: ChaosView) => {
		enabled.checked = chaos.enabled;
		for (const [stage] of STAGES) {
			const settings = chaos[stage];
			inputs[stage].code.value = settings?.code?.toString() ?? '';
			inputs[stage].probability.value = String(settings?.probability ?? 1);
			inputs[stage].delayMs.value = String(settings?.delayMs ?? 0);
		}
		updated.textContent = chaos.updated ? `Last changed ${formatTime(chaos.updated)}.` : 'Never set: off.';
	};
	/** A stage as the form says it: null when it neither fails nor waits. */
	const stageOf = (stage: Stage) => {
		const { code, probability, delayMs } = inputs[stage];
		const delay = delayMs.value.trim() === '' ? 0 : Number(delayMs.value);
		if (code.value.trim() === '' && delay === 0) return null;
		return {
			code: code.value.trim() === '' ? null : Number(code.value),
			probability: probability.value.trim() === '' ? 1 : Number(probability.value),
			delayMs: delay,
		};
	};

	const save = h('button', { type: 'submit' }, 'Save chaos settings');
	// novalidate: the server checks the values, and its message is the one shown under the field.
	const form = h(
		'form',
		{ novalidate: true, 'aria-describedby': 'chaos-hint' },
		h('div', { class: 'check' }, enabled, h('label', { for: 'chaos-enabled' }, 'Chaos on')),
		...rows,
		h('div', { class: 'actions' }, save),
		status.element,
		updated,
	);
	form.addEventListener('submit', (event) => {
		event.preventDefault();
		void busy(save, async () => {
			try {
				const body: Record<string, unknown> = { enabled: enabled.checked };
				for (const [stage] of STAGES) body[stage] = stageOf(stage);
				show(await sendJson<ChaosView>('PUT', '/api/me/chaos', body));
				clearFormErrors(form);
				status.ok(enabled.checked ? 'Chaos settings saved: in force now.' : 'Chaos settings saved: off.');
			} catch (error) {
				showFormError(form, status, error);
			}
		});
	});
	getJson<ChaosView>('/api/me/chaos').then(show, (error) => status.error(error));
	return h(
		'div',
		{},
		h(
			'p',
			{ class: 'hint', id: 'chaos-hint' },
			"For testing how your app copes with a failing or slow mail server: at each SMTP stage, answer the reply code with the chance given (1: always), after waiting the delay. Only your account's mail is affected: mail to your addresses and domains, and sessions that log in with one of your API keys. Other accounts' mail is answered as usual.",
		),
		form,
	);
}
