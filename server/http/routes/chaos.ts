import type { HttpApp, HttpDeps } from '../http-deps';
import { requireAccount } from '../auth';
import { badRequest } from '../errors';
import { errorResponses } from '../schemas';
import { ChaosSchema, ChaosUpdateSchema, type ChaosUpdateBody } from '../../schemas/chaos';
import { CHAOS_STAGES, type ChaosSettings, type ChaosStageSettings } from '../../schemas/chaos-settings';
import { refTo } from '../../schemas/shared';

/** A stage as the body sets it: left-out fields take their defaults, and a stage that does nothing is off (null). */
function stageOf(update: NonNullable<ChaosUpdateBody['rcptTo']>): ChaosStageSettings | null {
	const stage = { code: update.code ?? null, probability: update.probability ?? 1, delayMs: update.delayMs ?? 0 };
	return stage.code === null && stage.delayMs === 0 ? null : stage;
}

export function chaosRoutes(app: HttpApp, { config, chaos }: HttpDeps): void {
	/** Applies the body's changes to the settings; a delay must end before the idle timeout would close the connection. */
	const changed = (current: ChaosSettings, body: ChaosUpdateBody): ChaosSettings => {
		const next: ChaosSettings = { ...current, enabled: body.enabled ?? current.enabled };
		for (const name of CHAOS_STAGES) {
			const update = body[name];
			if (update === undefined) continue;
			next[name] = update === null ? null : stageOf(update);
			if ((next[name]?.delayMs ?? 0) >= config.smtpSocketTimeout)
				throw badRequest(
					`${name}.delayMs must be below the SMTP idle timeout of this server (--smtp-socket-timeout, ${config.smtpSocketTimeout} ms)`,
					`${name}.delayMs`,
				);
		}
		return next;
	};

	app.get(
		'/api/me/chaos',
		{
			schema: {
				summary: "The account's chaos settings: SMTP failures and delays on purpose, for its own mail",
				response: { 200: refTo(ChaosSchema), ...errorResponses(401, 429) },
			},
		},
		async (request) => chaos.read(requireAccount(request).id),
	);

	app.put(
		'/api/me/chaos',
		{
			schema: {
				summary: 'Change the chaos settings (fields left out keep their value); off by default',
				description:
					'At AUTH, MAIL FROM, RCPT TO and the end of DATA, the SMTP listener answers `code` with the chance `probability`, ' +
					"after waiting `delayMs`, for this account's mail only: RCPT TO and DATA of its addresses (reserved, or in its " +
					'domains), and every stage of sessions authenticated with one of its API keys. In force on this node at once, on the ' +
					'other nodes of a PostgreSQL database as soon as they hear of it.',
				body: refTo(ChaosUpdateSchema),
				response: { 200: refTo(ChaosSchema), ...errorResponses(400, 401, 429) },
			},
		},
		async (request) => {
			const account = requireAccount(request);
			return chaos.write(account.id, changed(await chaos.settings(account.id), request.body));
		},
	);
}
