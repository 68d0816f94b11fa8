/**
 * Mail for the test of findCodes: code mail in the layouts of real services and of the default templates of identity
 * providers, in seven languages, each with the codes it holds; and mail full of numbers that are no codes. A mail
 * given as `html` is turned into text as the server does (parseMessage) before its codes are looked for.
 */

const codeMail = (name: string, subject: string, body: string | { html: string }, codes: string[]): CodeMail => ({
	name,
	subject,
	...(typeof body === 'string' ? { text: body } : body),
	codes,
});

export const CODE_MAILS: CodeMail[] = [
	codeMail(
		'GitHub device verification',
		'[GitHub] Please verify your device',
		`Hey octocat!

A sign in attempt requires further verification because we did not recognize your device. To complete the sign in, enter the verification code on the unrecognized device.

Device: Chrome on macOS
Verification code: 482913

If you did not attempt to sign in to your account, your password may be compromised. Visit https://github.com/settings/security to create a new, strong password for your GitHub account.

Thanks,
The GitHub Team`,
		['482913'],
	),
	codeMail(
		'GitHub launch code (8 digits)',
		'[GitHub] Your GitHub launch code',
		`Here is your GitHub launch code: 58371924

Continue signing up for GitHub by entering the code above.

Once completed, you can start using all of GitHub's features.

GitHub, Inc. ・88 Colin P Kelly Jr Street ・San Francisco, CA 94107`,
		['58371924'],
	),
	codeMail(
		'Google recovery email verification: the code in the subject and alone on a line',
		'Email verification code: 739104',
		`Google
Verify your email

Google received a request to use jane.doe@example.com as a recovery email for Google Account jdoe@gmail.com.

Use this code to finish setting up this recovery email:

739104

This code will expire in 24 hours.

If you don't recognize jdoe@gmail.com, you can safely ignore this email.

You received this email to let you know about important changes to your Google Account and services.
© 2024 Google LLC, 1600 Amphitheatre Parkway, Mountain View, CA 94043, USA`,
		['739104'],
	),
	codeMail('Google, the prefixed form ahead of its code word', 'Google verification code', 'G-482913 is your Google verification code.', [
		'G-482913',
	]),
	codeMail(
		'"Use G-7XK2P9": a prefixed code after "use", kept as shown',
		'Verify your email address',
		`Hi Jane,

Use G-7XK2P9 to finish signing in on your new device. The verification expires in 10 minutes.`,
		['G-7XK2P9'],
	),
	codeMail(
		'Microsoft account security code',
		'Microsoft account security code',
		`Microsoft account

Security code

Please use the following security code for the Microsoft account ja*****@example.com.

Security code: 6284917

If you don't recognize the Microsoft account ja*****@example.com, you can click here to remove your email address from that account.

Thanks,
The Microsoft account team`,
		['6284917'],
	),
	codeMail(
		'Microsoft account security code, German',
		'Sicherheitscode für das Microsoft-Konto',
		`Microsoft-Konto

Sicherheitscode

Verwenden Sie den folgenden Sicherheitscode für das Microsoft-Konto ja*****@example.com.

Sicherheitscode: 628491

Wenn Sie ja*****@example.com nicht erkennen, können Sie hier klicken, um Ihre E-Mail-Adresse von diesem Konto zu entfernen.

Danke!
Das Microsoft-Kontoteam`,
		['628491'],
	),
	codeMail(
		'Slack confirmation code: digit groups joined by a hyphen',
		'Slack confirmation code: 183-492',
		`Confirm your email address

Your confirmation code is below — enter it in your open browser window and we'll help you get signed in.

183-492

If you didn't request this email, there's nothing to worry about — you can safely ignore it.

Made by Slack Technologies, LLC · 500 Howard Street · San Francisco, CA 94105`,
		['183492'],
	),
	codeMail(
		'letter and digit groups joined by a hyphen, kept as shown',
		'Your sign-in code',
		`Your temporary sign-in code is below. Enter it in the window where you started signing in.

XK7-P2Q

This code expires in 15 minutes.`,
		['XK7-P2Q'],
	),
	codeMail(
		'Stripe: digits grouped with a space',
		'Your Stripe verification code',
		`Your Stripe verification code is 482 913.

Enter this code to verify it's you. It expires in 10 minutes.

Stripe, 354 Oyster Point Blvd, South San Francisco, CA 94080`,
		['482913'],
	),
	codeMail(
		'Stripe Link, the code introduced further on',
		'Your Link verification code',
		`Your Link verification code for the purchase of $19.99 at ACME STORE is 905126.

Don't share this code with anyone. We'll never ask for it.`,
		['905126'],
	),
	codeMail(
		'Apple ID email verification',
		'Verify your Apple ID email address',
		`Apple ID

Verify your email address.

You have selected this email address as your new Apple ID. To verify this email address belongs to you, enter the code below on the email verification page:

482913

This code will expire three hours after this email was sent.

Why you received this email.
Apple requires verification whenever an email address is selected as an Apple ID. Your Apple ID cannot be used until you verify it.

Apple Support
Apple Distribution International Ltd., Hollyhill Industrial Estate, Hollyhill, Cork, Ireland.`,
		['482913'],
	),
	codeMail(
		'Apple ID email verification, German',
		'Bestätige die E-Mail-Adresse deiner Apple-ID',
		`Apple-ID

Bestätige deine E-Mail-Adresse.

Du hast diese E-Mail-Adresse als neue Apple-ID ausgewählt. Gib den folgenden Code auf der Seite zur E-Mail-Bestätigung ein, um zu bestätigen, dass diese E-Mail-Adresse dir gehört:

571084

Dieser Code läuft drei Stunden nach dem Senden dieser E-Mail ab.`,
		['571084'],
	),
	codeMail(
		'bank one-time passcode of 8 digits',
		'Your one-time passcode',
		`Your one-time passcode is 48291306. It expires in 10 minutes.

Never share this passcode. We will never call you to ask for it.

Example Bank, N.A. Member FDIC. Questions? Call 1-800-555-0199.`,
		['48291306'],
	),
	codeMail(
		'German bank mTAN for a transfer, with the amount in the sentence',
		'Ihre mTAN',
		`Ihre mTAN für die Überweisung an Max Mustermann über 1.234,56 EUR lautet: 913046

Geben Sie die mTAN niemals auf Aufforderung per Telefon oder E-Mail weiter.`,
		['913046'],
	),
	codeMail(
		'French bank one-time security code',
		'Votre code de sécurité',
		`Bonjour,

Votre code de sécurité à usage unique est 482913. Il est valable 5 minutes.

Ne le communiquez jamais, même à un conseiller.`,
		['482913'],
	),
	codeMail(
		'Amazon one time password',
		'Verify your new Amazon account',
		`Verify your new Amazon account

To verify your email address, please use the following One Time Password (OTP):

610453

Do not share this OTP with anyone. Amazon takes your account security very seriously. Amazon Customer Service will never ask you to disclose or verify your Amazon password, OTP, credit card, or banking account number.

Thank you for shopping with us.`,
		['610453'],
	),
	codeMail(
		'Amazon one time password, German',
		'Bestätigen Sie Ihr neues Amazon-Konto',
		`Bestätigen Sie Ihr neues Amazon-Konto

Um Ihre E-Mail-Adresse zu bestätigen, verwenden Sie bitte das folgende Einmal-Passwort (OTP):

610453

Teilen Sie dieses OTP niemandem mit.`,
		['610453'],
	),
	codeMail(
		'Auth0 passwordless email (default template)',
		'Welcome to Acme',
		`Welcome to Acme!

Your verification code is: 271846

This code will expire in 5 minutes. If you did not request it, you can ignore this email.`,
		['271846'],
	),
	codeMail(
		'Okta email verification (default template)',
		'One-time verification code',
		`Hi Jane,

You have requested an email verification code to sign in to Acme.

Enter the code below:
384120

This code expires in 5 minutes. If you didn't request this, contact your administrator.`,
		['384120'],
	),
	codeMail('Amazon Cognito verification (default template)', 'Your verification code', 'Your verification code is 530917. ', ['530917']),
	codeMail('Amazon Cognito sign-up confirmation (default template)', 'Your confirmation code', 'Your confirmation code is 530917', [
		'530917',
	]),
	codeMail('Firebase, the code ahead of its code word', 'Verify your email for MyApp', '482913 is your verification code for MyApp.', [
		'482913',
	]),
	codeMail(
		'Supabase magic link with its code (default template)',
		'Your Magic Link',
		`Magic Link

Follow this link to login:

Log In https://abcdefghijklmnop.supabase.co/auth/v1/verify?token=pkce_3f9a12&type=magiclink&redirect_to=https://app.example.com

Alternatively, enter the code: 893315`,
		['893315'],
	),
	codeMail(
		'Clerk verification code with the request details below it',
		'482913 is your verification code',
		`Verification code

Enter the following verification code when prompted:

482913

To protect your account, do not share this code.

Didn't request this?
This code was requested from Chrome, Mac OS X, 203.0.113.42 (Berlin, DE), on 03 June 2024, 10:15 UTC. If you didn't make this request, you can safely ignore this email.`,
		['482913'],
	),
	codeMail(
		'WhatsApp code with its link',
		'WhatsApp code',
		`Your WhatsApp code: 123-456

You can also tap on this link to verify your phone: v.whatsapp.com/123456

Don't share this code with others`,
		['123456'],
	),
	codeMail(
		'Instagram login code',
		'123456 is your Instagram code',
		`Hi jane.doe,

Someone tried to log in to your Instagram account. If this was you, please use the following code to confirm your identity:

123456

If this wasn't you, please reset your password to secure your account.

from Meta
© Instagram. Meta Platforms, Inc., 1601 Willow Road, Menlo Park, CA 94025`,
		['123456'],
	),
	codeMail('Facebook, prefixed 5 digits', 'FB-48291 is your Facebook confirmation code', 'FB-48291 is your Facebook confirmation code.', [
		'FB-48291',
	]),
	codeMail(
		'Steam Guard: 5 letters and digits alone on a line',
		'Your Steam account: Access from new web or mobile device',
		`Dear jane_doe,

Here is the Steam Guard code you need to login to account jane_doe:

F7K2P

This email was generated because of a login attempt from a web or mobile device located at 203.0.113.42 (DE).`,
		['F7K2P'],
	),
	codeMail(
		'PayPal security code',
		'Your PayPal security code',
		"PayPal: 482913 is your security code. Your code expires in 10 minutes. Please don't reply.",
		['482913'],
	),
	codeMail(
		'lower-case letters and digits alone on a line below its code word',
		'Confirm your email address',
		`Please enter this verification code to get started:

k9pl7xqa

Verification codes expire after two hours.`,
		['k9pl7xqa'],
	),
	codeMail(
		'digits spaced one by one',
		'Your verification code',
		`Your verification code is: 4 8 2 9 1 3

It expires in 30 minutes.`,
		['482913'],
	),
	codeMail('"verification code: A1B2C3": letters and digits', 'Confirm your email', 'Your verification code: A1B2C3', ['A1B2C3']),
	codeMail('"OTP: 5521": four digits after OTP', 'OTP', 'OTP: 5521\nValid for 5 minutes.', ['5521']),
	codeMail('"code: ABCDEF": capitals right after a code word', 'Sign in to Acme', 'Your login code: QWRTZP\n\nIt is valid for one hour.', [
		'QWRTZP',
	]),
	codeMail(
		'the code only in the subject',
		'Your login code: 839201',
		`Hi,

Enter the code from the subject of this email to sign in. It expires in 10 minutes.`,
		['839201'],
	),
	codeMail(
		'the code on its own line after a "Your code:" line',
		'Sign-in request',
		`Hello,

Your code:

   750136

Regards,
Acme`,
		['750136'],
	),
	codeMail(
		'password reset code',
		'Reset your password',
		`We received a request to reset the password for your account.

Enter this code to continue:

660941

If you didn't request a password reset, you can ignore this email.`,
		['660941'],
	),
	codeMail('sign-in token', 'Your sign-in token', 'Your sign-in token: 318842\nIt can be used once.', ['318842']),
	codeMail(
		'the same code in the subject and, grouped, in the text: listed once',
		'482913 is your code',
		'Your code is 482 913. Do not share it.',
		['482913'],
	),
	codeMail(
		'Spanish verification code alone on a line',
		'Tu código de verificación',
		`Hola Jane:

Usa este código para continuar:

482913

No lo compartas con nadie. El código vence en 10 minutos.`,
		['482913'],
	),
	codeMail('Spanish bank one-time key', 'Clave de un solo uso', 'Tu clave de un solo uso es 4829. Válida por 5 minutos.', ['4829']),
	codeMail(
		'Portuguese verification code, grouped',
		'Seu código de verificação',
		`Olá, Jane!

Use o código abaixo para confirmar seu e-mail:

482 913

Se você não fez esta solicitação, ignore este e-mail.`,
		['482913'],
	),
	codeMail('Portuguese bank single-use access code', 'Código de acesso', 'O seu código de acesso único é 48291306.', ['48291306']),
	codeMail('Italian verification code', 'Il tuo codice di verifica', 'Il tuo codice di verifica è 482913. Scade tra 10 minuti.', [
		'482913',
	]),
	codeMail(
		'Italian OTP code, letters and digits alone on a line',
		'Codice OTP',
		`Ciao Jane,

ecco il tuo codice OTP:

A1B2C3

Il codice scade tra 10 minuti.`,
		['A1B2C3'],
	),
	codeMail(
		'Dutch verification code',
		'Je verificatiecode',
		`Hallo Jane,

Je verificatiecode is 482913.

Deze code is 15 minuten geldig.`,
		['482913'],
	),
	codeMail('Dutch bank one-time code in two groups of four', 'Uw eenmalige code', 'Uw eenmalige code: 4829-1306', ['48291306']),
	codeMail(
		'French login code, letters and digits alone on a line',
		'Code de connexion',
		`Code de connexion

Saisissez ce code pour vous connecter :

X7K2P9

Ce code expire dans 15 minutes.`,
		['X7K2P9'],
	),
	codeMail('French verification code (space before the colon)', 'Votre code', 'Votre code de vérification : 482913', ['482913']),
	codeMail('German confirmation code', 'Dein Bestätigungscode', 'Dein Bestätigungscode lautet: 482913\n\nViele Grüße', ['482913']),
	codeMail(
		'German login code with an address in the footer',
		'Ihr Anmeldecode',
		`Guten Tag,

Ihr Anmeldecode: 209374

Der Code ist 10 Minuten gültig.

Beispiel GmbH · Musterstraße 12 · 10115 Berlin · Tel. +49 30 1234567`,
		['209374'],
	),
	codeMail(
		'a code among every kind of number that is no code',
		'Your verification code',
		`Hi Jane,

Your verification code is 482913.

On 2024-06-03 (03.06.2024, 6/3/24, June 3, 2024) at 10:15 (10:15:30) we received your order #123456 (Invoice No. 2024-00017, Rechnung Nr. 48213, Bestellnummer 100234) for €1,234.56, $19.99, 1.299,00 EUR or 4999 USD.
Call +49 30 1234567, (555) 123-4567 or 555-123-4567. Since 1999, 15% off. Version 2.3.1, IP 192.168.1.1, colour #FF5733, 2 x 500g.
Visit https://example.com/orders/123456?ref=482077&utm=2024 or write to support-7731@example.com (Message-ID <20240603101530.482913@mail.example.com>).
Acme Inc., 1600 Main Street, Springfield, IL 62701`,
		['482913'],
	),
	codeMail(
		'a number alone on a line far from the code word, in a mail about a code',
		'Your verification code',
		`Hi Jane,

Thanks for signing up. We're glad you're here.

Your account is almost ready. Copy the number below into the sign-up form.

304915

Have fun!`,
		['304915'],
	),
	codeMail('Uber, four digits', 'Uber', 'Your Uber code is 4829. Never share this code.', ['4829']),
	codeMail('Revolut, German, digit groups', 'Revolut', 'Dein Revolut-Code lautet 482-913. Teile diesen Code mit niemandem.', ['482913']),
	codeMail('N26, French confirmation code with the brand between', 'N26', 'Votre code de confirmation N26 : 482913', ['482913']),
	codeMail(
		'Santander, Spanish key with the amount in the sentence',
		'Santander',
		'Santander: La clave para la operación de 120,00 EUR es 482913. No la comparta.',
		['482913'],
	),
	codeMail(
		'Booking.com sign-in: a verification code in mail of a booking site',
		'Your Booking.com verification code',
		`Enter this verification code to sign in:

482913

This code expires in 10 minutes.
Booking.com B.V., Herengracht 597, 1017 CE Amsterdam, Netherlands`,
		['482913'],
	),
	codeMail('Nubank, Portuguese: "Use ... para"', 'Nubank', 'Use 482913 para confirmar seu acesso. Seu código expira em 5 minutos.', [
		'482913',
	]),
	codeMail('cells glued together in the text', 'Sign in', 'Your one-time code482913Valid for 10 minutes', ['482913']),
	codeMail('Markdown bold', 'Login', 'Your code: **482913**', ['482913']),
	codeMail(
		'HTML only: a layout table whose cells html-to-text joins to their neighbours',
		'Verify your email',
		{
			html: `<!doctype html><html><head><style>td { font-family: Arial; color: #333333; }</style></head><body>
<table width="100%" cellpadding="0" cellspacing="0"><tr><td align="center">
<table width="600"><tr><td><img src="https://cdn.example.com/logo.png" alt="Acme"></td></tr>
<tr><td style="font-size:16px">Your verification code</td></tr>
<tr><td style="font-size:32px;letter-spacing:8px"><strong>918273</strong></td></tr>
<tr><td>This code expires in 10 minutes. If you didn't request it, ignore this email.</td></tr>
<tr><td style="color:#999999">Acme Inc. · 1600 Main Street · Springfield, IL 62701</td></tr>
</table></td></tr></table></body></html>`,
		},
		['918273'],
	),
	codeMail(
		'HTML only: the code in a paragraph of its own',
		'Código de verificación',
		{
			html: `<html><body><h1>Verifica tu correo</h1><p>Introduce este código en la aplicación:</p>
<p style="font-size:28px"><b>615 204</b></p><p>El código caduca en 10 minutos.</p>
<p><a href="https://example.com/unsubscribe?id=482913">Darse de baja</a></p></body></html>`,
		},
		['615204'],
	),
];

export const NON_CODE_MAILS: NonCodeMail[] = [
	{
		name: 'every kind of number that is no code, in one mail',
		subject: 'Your order #123456 has shipped',
		text: `Hi Jane,

On 2024-06-03 (03.06.2024, 6/3/24, June 3, 2024) at 10:15 (10:15:30) we shipped your order #123456.
Order 123456 · Invoice No. 2024-00017 · Rechnung Nr. 48213 · Bestellnummer 100234 · Ticket #48291 · Tracking: 1Z999AA10123456784 · Reference: 4829130 · Account number 48291306 · Customer ID 100234
Total: €1,234.56 ($19.99, 1.299,00 EUR, 4999 USD, 1 299,00 €)
Questions? +49 30 1234567, (555) 123-4567, 555-123-4567, 555 123 4567, +33 1 23 45 67 89
Shipping to Jane Doe, 1600 Amphitheatre Parkway, Mountain View, CA 94043; Musterstraße 12, 10115 Berlin; 75008 Paris; 1012 AB Amsterdam; SW1A 1AA London
Since 1999 · 2024 · 15% · 99.9% · version 2.3.1 · v10.4 · Node 24 · IP 192.168.1.1 · 2001:db8::1 · 2 x 500g · 12 pcs · 1000 ml · #FF5733 · #1a2b3c
https://example.com/track/123456?order=482913&ref=100234 · support-4829@example.com · <20240603101530.482913@mail.example.com>
© 2024 Example Inc.`,
	},
	{
		name: 'invoice (English)',
		subject: 'Your invoice INV-00017 from Acme',
		text: `Invoice

Invoice number INV-00017
Date of issue June 3, 2024
Date due July 3, 2024

Acme Inc.
354 Oyster Point Blvd
South San Francisco, California 94080
United States
+1 555-123-4567

Bill to
Jane Doe
jane@example.com

€1,234.56 due July 3, 2024

Description        Qty    Unit price    Amount
Pro plan           1      €1,000.00     €1,000.00
Extra seats        3      €78.19        €234.56

Subtotal €1,234.56
Total €1,234.56
Amount due €1,234.56

Pay online https://invoice.stripe.com/i/acct_1N2b3C4d5E6f7G8h/live_YWNjdF8xTjJiM0M0ZDVFNmY3RzhofF9QMlJzVDN1VjR3WDV5WjZhN2I4YzlkMGVmZzEy0100abcdef`,
	},
	{
		name: 'invoice (German)',
		subject: 'Ihre Rechnung Nr. 48213',
		text: `Sehr geehrte Frau Mustermann,

anbei erhalten Sie Ihre Rechnung.

Rechnung Nr. 48213
Rechnungsdatum: 03.06.2024
Kundennummer: 100234
Leistungszeitraum: 01.05.2024 – 31.05.2024

Gesamtbetrag: 1.299,00 EUR (inkl. 19 % USt. 207,41 EUR)

Bitte überweisen Sie den Betrag bis zum 17.06.2024 auf folgendes Konto:
IBAN: DE89 3704 0044 0532 0130 00
BIC: COBADEFFXXX
Verwendungszweck: 48213

Beispiel GmbH · Musterstraße 12 · 10115 Berlin · USt-IdNr.: DE123456789 · Tel. 030 1234567`,
	},
	{
		name: 'invoice (French)',
		subject: 'Votre facture n° 2024-00017',
		text: `Bonjour,

Veuillez trouver ci-joint votre facture n° 2024-00017 du 03/06/2024.

Client : 100234
Montant total TTC : 1 299,00 €
Échéance : 03/07/2024

Exemple SAS · 12 rue de la Paix · 75002 Paris · Tél. : 01 23 45 67 89 · SIRET 123 456 789 00012`,
	},
	{
		name: 'order confirmation (English)',
		subject: 'Your Amazon.com order #112-4829130-6071234',
		text: `Hello Jane,

Thank you for shopping with us. We'll send a confirmation when your item ships.

Order #112-4829130-6071234
Placed on Monday, June 3, 2024

Arriving: Thursday, June 6
Ship to: Jane Doe, 1600 Amphitheatre Pkwy, Mountain View, CA 94043

Anker USB-C Charger 65W
Qty: 2
$39.98

Order Total: $42.97

View or manage order https://www.amazon.com/gp/css/order-details?orderID=112-4829130-6071234`,
	},
	{
		name: 'order confirmation (German)',
		subject: 'Bestellbestätigung 100234',
		text: `Vielen Dank für Ihre Bestellung!

Bestellnummer 100234
Bestelldatum 03.06.2024, 10:15 Uhr

Artikel: Kaffeebohnen Espresso 1000 g
Menge: 2
Einzelpreis: 14,99 €
Summe: 29,98 €

Lieferadresse:
Erika Mustermann
Heidestraße 17
51147 Köln

Ihr Shop-Team`,
	},
	{
		name: 'order confirmation (Spanish)',
		subject: 'Confirmación de tu pedido nº 482913',
		text: `¡Gracias por tu compra!

Pedido nº 482913
Fecha: 03/06/2024
Total: 1.299,00 €

Dirección de envío: Calle Mayor 5, 28013 Madrid
Código postal 28013
Teléfono: 912 345 678`,
	},
	{
		name: 'order confirmation (Italian)',
		subject: 'Conferma ordine n. 482913',
		text: `Grazie per il tuo ordine!

Ordine n. 482913 del 03/06/2024
Codice cliente: 100234
Totale: 49,90 €

Spedizione a: Via Roma 1, 20121 Milano (CAP 20121)`,
	},
	{
		name: 'order confirmation (Dutch)',
		subject: 'Je bestelling 482913',
		text: `Bedankt voor je bestelling!

Bestelnummer: 482913
Besteldatum: 03-06-2024
Totaal: € 49,95

Bezorgadres: Damrak 1, 1012 LG Amsterdam`,
	},
	{
		name: 'order confirmation (Portuguese)',
		subject: 'Pedido #482913 confirmado',
		text: `Olá, Jane!

Seu pedido #482913 foi confirmado.

Data: 03/06/2024
Total: R$ 1.299,00

Endereço de entrega: Av. Paulista, 1000, São Paulo - SP, CEP 01310-100`,
	},
	{
		name: 'shipping notice (UPS)',
		subject: 'UPS Update: Package Scheduled for Delivery Friday, 06/07/2024',
		text: `Your package is on the way.

Scheduled Delivery: Friday, 06/07/2024 by 12:00 PM
Tracking Number: 1Z999AA10123456784
Ship To: MOUNTAIN VIEW, CA, US 94043
Number of Packages: 1
Weight: 2.0 LBS

Track your package https://www.ups.com/track?tracknum=1Z999AA10123456784`,
	},
	{
		name: 'shipping notice (DHL, German)',
		subject: 'Ihre DHL Sendung kommt heute',
		text: `Hallo Erika Mustermann,

Ihre Sendung 00340434161094042557 kommt heute.

Voraussichtliche Zustellung: 04.06.2024, 10:15 – 12:45 Uhr
Packstation 123
Postnummer 12345678

Sendungsverfolgung: https://www.dhl.de/de/privatkunden/pakete-empfangen/verfolgen.html?piececode=00340434161094042557`,
	},
	{
		name: 'calendar invitation with a Zoom meeting and its passcode',
		subject: 'Invitation: Quarterly review @ Mon Jun 3, 2024 10:15 - 11:00 (CEST)',
		text: `Jane Doe is inviting you to a scheduled Zoom meeting.

Join Zoom Meeting
https://us02web.zoom.us/j/87512345678?pwd=Ym9ndXNwYXNzd29yZA

Meeting ID: 875 1234 5678
Passcode: 482913

One tap mobile
+16465588656,,87512345678#,,,,*482913# US (New York)

Dial by your location
+1 646 558 8656 US (New York)
Meeting ID: 875 1234 5678
Passcode: 482913`,
	},
	{
		name: 'calendar invitation with a Microsoft Teams meeting',
		subject: 'Project sync',
		text: `Microsoft Teams meeting

Join on your computer, mobile app or room device
Click here to join the meeting
Meeting ID: 123 456 789 012
Passcode: Ab3xYz

Download Teams | Join on the web

Or call in (audio only)
+1 555-123-4567,,123456789# United States, New York
Phone Conference ID: 123 456 789#`,
	},
	{
		name: 'calendar invitation with Google Meet',
		subject: 'Invitation: Design review @ Tue Jun 4, 2024 3pm - 4pm (CEST) (jane@example.com)',
		text: `Join with Google Meet
meet.google.com/abc-defg-hij

Join by phone
(US) +1 555-123-4567 PIN: 123 456 789#

View all guest info https://calendar.google.com/calendar/event?action=VIEW&eid=NGF0M2Q0

When: Tuesday Jun 4, 2024 3pm – 4pm (Central European Time - Berlin)`,
	},
	{
		name: 'calendar invitation in a room',
		subject: 'Einladung: Quartalsgespräch am 03.06.2024 um 10:15',
		text: `Wann: Montag, 3. Juni 2024 10:15–11:00
Wo: Raum 4012, Gebäude 1600, Hauptstraße 5, 80331 München
Organisator: Max Mustermann (Tel. 089 1234567)`,
	},
	{
		name: 'newsletter with a bare 6-digit number and no code word',
		subject: 'This week in Acme: 482913 reasons to smile',
		text: `Hi Jane,

This week's number:

482913

That's how many cups of coffee our community logged in May. Thank you!

Read more https://acme.example/blog/2024/06/03/482913-cups
Unsubscribe https://acme.example/unsubscribe?u=100234&id=482913`,
	},
	{
		name: 'newsletter with promotion codes',
		subject: 'Summer sale: 20% off everything',
		text: `Summer is here!

Use code SUMMER24 for 20% off your next order.
Enter promo code WELCOME10 at checkout.
Your gift code: GIFT2024XY
Free shipping with code FREESHIP on orders over $49.

Shop now https://shop.example/sale?utm_campaign=summer2024`,
	},
	{
		name: 'newsletter of a developer tool, full of "code" that is no one-time code',
		subject: 'Xcode 15.4 and Unicode 15.1 are here',
		text: `What's new

Xcode 15.4 adds support for Unicode 15.1.
Decode 4096 bytes at a time; the source code is on GitHub.
Scan the QR code to download the app.
Error code: 0x80070005
Postal code: 10115
Release 2024.06 ships with Node 22.3 and 1200 fixes.`,
	},
	{
		name: 'flight booking (Lufthansa-like)',
		subject: 'Your booking confirmation K7QX2M',
		text: `Thank you for your booking.

Booking code: K7QX2M
Flight LH 401 Frankfurt (FRA) – New York (JFK)
03 June 2024, 10:15 – 12:45
Seat 32A
Ticket number 220-1234567890
E-ticket 2201234567890

Baggage: 1 x 23 kg`,
	},
	{
		name: 'flight booking whose reference is a "confirmation code"',
		subject: 'Your flight confirmation',
		text: `Your trip to Seattle

Confirmation code: K7QX2M

Flight AS 1234, Mon, Jun 3
Departs SFO 10:15 AM, arrives SEA 12:25 PM
Seat 12A

Manage your reservation at https://www.alaskaair.com/booking/reservation-lookup`,
	},
	{
		name: 'Airbnb reservation, its confirmation code on a line of its own',
		subject: 'Reservation confirmed for Lisbon',
		text: `Your reservation is confirmed

You're going to Lisbon!

Check-in
Mon, Jun 3
3:00 PM

Confirmation code
HMABC12345

Address
Rua Augusta 100, 1100-053 Lisboa, Portugal`,
	},
	{
		name: 'hotel booking (German)',
		subject: 'Buchungsbestätigung Hotel Adler',
		text: `Vielen Dank für Ihre Reservierung.

Reservierungsnummer: 482913
Buchungscode: X7K2P9
Anreise: 03.06.2024, Abreise: 05.06.2024
Zimmer 204, 2 Erwachsene
Preis: 259,00 EUR`,
	},
	{
		name: 'bank statement (English)',
		subject: 'Your May 2024 statement is ready',
		text: `Statement period: 01/05/2024 - 31/05/2024
Account ending 4821
Sort code 12-34-56

Opening balance £1,234.56
Money in £2,000.00
Money out £765.44
Closing balance £2,469.12

Never share your PIN or passcode with anyone, including us.`,
	},
	{
		name: 'bank statement (German)',
		subject: 'Ihr Kontoauszug 5/2024',
		text: `Kontoauszug Nr. 5/2024 vom 31.05.2024

IBAN DE89 3704 0044 0532 0130 00
Alter Kontostand: 1.234,56 EUR
03.06. Gutschrift Gehalt 2.000,00
04.06. Lastschrift Stadtwerke 120,00
Neuer Kontostand: 3.114,56 EUR`,
	},
	{
		name: 'utility bill',
		subject: 'Your electricity bill',
		text: `Customer number 100234
Meter number 12345678
Consumption: 4999 kWh
Amount: €1,234.56, due 2024-06-17`,
	},
	{
		name: 'Apple receipt',
		subject: 'Your receipt from Apple.',
		text: `Receipt

APPLE ID jane@example.com
DATE Jun 3, 2024
ORDER ID MT8KX2LP9Q
DOCUMENT NO. 123456789012

iCloud+ with 200 GB (Monthly)
€2.99

Billed to Visa .... 4821
TOTAL €2.99`,
	},
	{
		name: 'password-changed notice without a code',
		subject: 'Your password was changed',
		text: `Hi Jane,

Your password was changed on June 3, 2024 at 10:15 from IP 203.0.113.42 (Berlin, Germany).
If this was you, no action is needed. If not, visit https://example.com/security/reset?uid=100234 right away.`,
	},
	{
		name: 'welcome mail without a code',
		subject: 'Welcome to Acme',
		text: `Thanks for verifying your email, Jane!

Your account ID is 48291306.

Get started: https://acme.example/start`,
	},
	{
		name: 'GitHub pull request notification',
		subject: 'Re: [acme/app] Fix login (PR #4821)',
		text: `Merged #4821 into main.

commit 3fa85f6 · v2.3.1
1 file changed, 42 insertions(+), 7 deletions(-)

Reply to this email directly, view it on GitHub: https://github.com/acme/app/pull/4821#issuecomment-2147483647`,
	},
	{
		name: 'event ticket',
		subject: 'Your tickets for June 3',
		text: `Ticket 1 of 2
Section 104, Row 12, Seat 7
Barcode: 4829130617
Order #482913
Doors 19:30, Show 20:15`,
	},
	{
		name: 'gift card',
		subject: 'Your gift card',
		text: 'Gift card code: X7K2-P9QM-4821\nBalance: $50.00',
	},
	{
		name: 'PayPal receipt',
		subject: 'Receipt for your payment',
		text: 'You sent €45.00 EUR to Jane Doe\nTransaction ID: 4X829130RT617\nReceipt number: 4829-1306-7710-2231\nDate: 3 June 2024',
	},
	{
		name: 'new card with its PIN to come by post',
		subject: 'Your new card',
		text: 'Your new card will arrive in 5-7 days. Your PIN will be sent separately by post. Card ending 4821.',
	},
	{
		name: 'a verification that is done',
		subject: 'Verified',
		text: 'Your verification is complete! Application 48291306 approved.',
	},
	{
		name: 'hotel Wi-Fi password',
		subject: 'Welcome to the hotel',
		text: 'WiFi password: 48291306\nRoom 412, checkout 11:00',
	},
	{
		name: 'lottery numbers',
		subject: 'Your numbers',
		text: "This week's numbers:\n\n4 8 12 29 31 44\n\nJackpot: 12.000.000 €",
	},
	{
		name: 'HTML only: newsletter in a layout table',
		subject: 'June news',
		html: `<html><body><table><tr><td><h1>June news</h1></td></tr>
<tr><td>Our community grew to</td></tr><tr><td style="font-size:40px">482913</td></tr><tr><td>members. Thank you!</td></tr>
<tr><td>Acme Inc. · 1600 Main Street · Springfield, IL 62701 · <a href="https://acme.example/u?id=482913">Unsubscribe</a></td></tr></table></body></html>`,
	},
];

export interface CodeMail {
	name: string;
	subject: string;
	/** The text of the mail; or its HTML, for a mail without text. */
	text?: string;
	html?: string;
	codes: string[];
}

export type NonCodeMail = Omit<CodeMail, 'codes'>;
