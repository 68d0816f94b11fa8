import type { IDisplayOptions, IExecuteFunctions } from 'n8n-workflow';

/**
 * Version 1.1 lays out Send with an Email Format, simplifies Get's output by default, makes "only mail received after
 * this node started" a switch of Wait For that is on by default. Version 1.2 simplifies the messages of Get Many, Search,
 * Wait For and Domain → Get Messages by default, and picks the Email Address of message operations and Send's From from
 * a list of the account's addresses. A node of an earlier version keeps its own parameters, so a saved workflow runs as it did.
 */
export const NODE_VERSIONS = [1, 1.1, 1.2];

/** Display options of a parameter only version 1 has. */
export const inVersion1 = (show: IDisplayOptions['show']): IDisplayOptions => ({ show: { ...show, '@version': [1] } });

/** Display options of a parameter from version 1.1 on. */
export const fromVersion1_1 = (show: IDisplayOptions['show']): IDisplayOptions => ({ show, hide: { '@version': [1] } });

/** Display options of a parameter of the versions before 1.2. */
export const beforeVersion1_2 = (show: IDisplayOptions['show']): IDisplayOptions => ({ show: { ...show, '@version': [1, 1.1] } });

/** Display options of a parameter from version 1.2 on. */
export const fromVersion1_2 = (show: IDisplayOptions['show']): IDisplayOptions => ({ show, hide: { '@version': [1, 1.1] } });

export const isVersion1 = (context: IExecuteFunctions) => context.getNode().typeVersion === 1;
