/**
 * Mailroom as a library: start the whole server (SMTP, HTTP API, dashboard, webhooks) in your own process, for tests
 * or tools, and stop it with `close()`.
 *
 *   import { mailroomConfig, startMailroom } from 'mailroom-server';
 *   const mailroom = await startMailroom(mailroomConfig({ dataDir: './data', smtpPort: 0, httpPort: 0 }));
 *   console.log(mailroom.smtpPort, mailroom.httpUrl, mailroom.bootstrap?.key);
 *   await mailroom.close();
 */
export { startMailroom, type Mailroom } from './app';
export { ConfigError, SETTINGS, mailroomConfig, resolveConfig, type MailroomConfig, type SettingSpec } from './config/settings';
export type { Logger } from './log';
