import { execFile } from 'node:child_process';

/** SMTP clients as users run them, each its own process: swaks, and an app's Python smtplib. */

export interface ClientRun {
	/** The exit code: 0 when the message was accepted. */
	code: number;
	/** What it printed (for swaks, the whole SMTP conversation). */
	output: string;
}

function run(command: string, args: string[]): Promise<ClientRun> {
	return new Promise((resolve) => {
		execFile(command, args, { timeout: 30_000 }, (err, stdout, stderr) => {
			const code = err ? (typeof err.code === 'number' ? err.code : 1) : 0;
			resolve({ code, output: `${stdout}${stderr}` });
		});
	});
}

/** swaks (/usr/bin/swaks) against 127.0.0.1:`port` with `args` (e.g. --to, --auth PLAIN, --auth-user, --tls). */
export function swaks(port: number, args: string[]): Promise<ClientRun> {
	return run('swaks', ['--server', `127.0.0.1:${port}`, '--timeout', '20', ...args]);
}

export interface PythonSend {
	user: string;
	password: string;
	from: string;
	to: string[];
	cc?: string[];
	/** Named in a Bcc header, which send_message leaves out of the message and puts in the envelope. */
	bcc?: string[];
	subject: string;
	body: string;
	/** STARTTLS before logging in (the server's certificate is not checked). */
	starttls?: boolean;
}

/** What smtplib reported: success, or the exception with the server's reply. */
export interface PythonResult {
	ok: boolean;
	error?: string;
	code?: number;
	message?: string;
}

/** A message built with EmailMessage and sent with smtplib's login and send_message, as a Python app sends mail. */
const PYTHON = `
import json, smtplib, ssl, sys
from email.message import EmailMessage
o = json.loads(sys.argv[1])
m = EmailMessage()
m['From'] = o['from']
m['To'] = ', '.join(o['to'])
if o.get('cc'): m['Cc'] = ', '.join(o['cc'])
if o.get('bcc'): m['Bcc'] = ', '.join(o['bcc'])
m['Subject'] = o['subject']
m.set_content(o['body'])
try:
    with smtplib.SMTP('127.0.0.1', o['port'], timeout=20) as s:
        if o.get('starttls'):
            s.starttls(context=ssl._create_unverified_context())
        s.login(o['user'], o['password'])
        s.send_message(m)
    print(json.dumps({'ok': True}))
except smtplib.SMTPRecipientsRefused as e:
    code, message = list(e.recipients.values())[0]
    print(json.dumps({'ok': False, 'error': type(e).__name__, 'code': code, 'message': message.decode()}))
except smtplib.SMTPResponseException as e:
    print(json.dumps({'ok': False, 'error': type(e).__name__, 'code': e.smtp_code, 'message': e.smtp_error.decode()}))
except smtplib.SMTPException as e:
    print(json.dumps({'ok': False, 'error': type(e).__name__, 'message': str(e)}))
`;

export async function pythonSmtplib(port: number, send: PythonSend): Promise<PythonResult> {
	const { output } = await run('python3', ['-c', PYTHON, JSON.stringify({ port, ...send })]);
	return JSON.parse(output) as PythonResult;
}
