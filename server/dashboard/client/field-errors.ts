import { ApiError } from './api.js';
import { h, type StatusLine } from './dom.js';

/**
 * The form controls a refusal can point at: each is named in its form as the API names the field. A fieldset stands for
 * a field given by a group of controls (the checkboxes of a list).
 */
type Control = HTMLInputElement | HTMLTextAreaElement | HTMLSelectElement | HTMLFieldSetElement;

const PROBLEM_CLASS = 'field-problem';

/**
 * Shows the outcome of a failed submit where it belongs: a 400 about one field (the server names it in `field`) under the
 * control of that name, marked aria-invalid and focused, as the watch list does; any other error in the form's status line.
 */
export function showFormError(form: HTMLFormElement, status: StatusLine, error: unknown): void {
	clearFormErrors(form);
	const named = error instanceof ApiError && error.field ? form.elements.namedItem(error.field) : null;
	if (!(
		named instanceof HTMLInputElement ||
		named instanceof HTMLTextAreaElement ||
		named instanceof HTMLSelectElement ||
		named instanceof HTMLFieldSetElement
	)) {
		status.error(error);
		return;
	}
	status.clear();
	markControl(named, (error as ApiError).message);
}

/** Takes the marks of an earlier refusal off the form's controls. */
export function clearFormErrors(form: HTMLFormElement): void {
	for (const problem of form.querySelectorAll(`.${PROBLEM_CLASS}`)) {
		const control = form.querySelector<Control>(`[aria-describedby~="${problem.id}"]`);
		if (control) {
			control.removeAttribute('aria-invalid');
			const rest = control
				.getAttribute('aria-describedby')!
				.split(' ')
				.filter((id) => id !== problem.id);
			if (rest.length) control.setAttribute('aria-describedby', rest.join(' '));
			else control.removeAttribute('aria-describedby');
		}
		problem.remove();
	}
}

/** The message under the control (after a checkbox's label), read with it by screen readers. */
function markControl(control: Control, message: string): void {
	const problem = h('p', { id: `${control.id}-problem`, class: `status error ${PROBLEM_CLASS}`, role: 'alert' }, message);
	(control.closest('.check') ?? control).after(problem);
	control.setAttribute('aria-invalid', 'true');
	const described = control.getAttribute('aria-describedby');
	control.setAttribute('aria-describedby', described ? `${problem.id} ${described}` : problem.id);
	// A group takes no focus itself: its first control does.
	(control instanceof HTMLFieldSetElement ? control.querySelector<HTMLElement>('input, select, textarea') : control)?.focus();
}
