/**
 * Replies as mail clients write them, each in its client's own layout (attribution lines, header blocks, separators,
 * quoting, mobile footers), with the new text and the signature strippedReply should find in it. A case gives either
 * the text part as sent (`text`) or, for mail with only an HTML part, the HTML (`html`), which the test turns into
 * text as Mailroom does (parseMessage), so that case covers what html-to-text makes of the client's markup.
 */

export const LANGUAGES = ['en', 'de', 'fr', 'es', 'pt', 'it', 'nl', 'other'] as const;

export type Language = (typeof LANGUAGES)[number];

export type Client =
	| 'Gmail web'
	| 'Gmail mobile'
	| 'Outlook desktop'
	| 'Outlook web'
	| 'Outlook mobile'
	| 'Outlook for Mac'
	| 'Apple Mail'
	| 'iPhone'
	| 'Android'
	| 'Thunderbird'
	| 'Yahoo'
	| 'Spark'
	| 'plain text'
	| 'no quote';

export type ReplyCase = {
	language: Language;
	client: Client;
	name: string;
	/** The reply's strippedText and strippedSignature. */
	strippedText: string;
	strippedSignature: string | null;
} & ({ text: string; html?: never } | { html: string; text?: never });

export const REPLY_CORPUS: readonly ReplyCase[] = [
	// English
	{
		language: 'en',
		client: 'Gmail web',
		name: 'top-posted, the attribution wrapped before "wrote:"',
		text: `Thanks John, Thursday at 2pm works for me.

Anna

On Mon, Jun 3, 2024 at 10:15 AM John Smith <john.smith@example.com>
wrote:

> Hi Anna,
>
> Are you free on Thursday afternoon to go through the quarterly report?
>
> Best,
> John
>
`,
		strippedText: 'Thanks John, Thursday at 2pm works for me.\n\nAnna',
		strippedSignature: null,
	},
	{
		language: 'en',
		client: 'Gmail web',
		name: 'top-posted, the attribution wrapped inside the address (UK date)',
		text: `Yes, please send it over.

On Mon, 3 Jun 2024 at 10:15, Johnathan Smith-Whitfield <
johnathan.smith-whitfield@example.co.uk> wrote:

> Shall I send you the draft contract today?
>
`,
		strippedText: 'Yes, please send it over.',
		strippedSignature: null,
	},
	{
		language: 'en',
		client: 'Gmail web',
		name: 'a "-- " signature above the quote',
		text: `Here is the updated link: https://example.com/report

-- 
Anna Lee
Product Manager, Example Ltd.

On Mon, Jun 3, 2024 at 10:15 AM John Smith <john.smith@example.com> wrote:

> Could you send me the link again?
>
`,
		strippedText: 'Here is the updated link: https://example.com/report',
		strippedSignature: 'Anna Lee\nProduct Manager, Example Ltd.',
	},
	{
		language: 'en',
		client: 'Gmail mobile',
		name: 'iOS Gmail app, a reply that starts with "On"',
		text: `On my way, 5 minutes!

On Mon, Jun 3, 2024 at 10:15 AM, John Smith <john.smith@example.com> wrote:

> Where are you? The meeting has started.
`,
		strippedText: 'On my way, 5 minutes!',
		strippedSignature: null,
	},
	{
		language: 'en',
		client: 'Gmail mobile',
		name: 'Android Gmail app, nested quotes',
		text: `Agreed with both of you.

On Tue, Jun 4, 2024, 09:02 Mark Brown <mark.brown@example.com> wrote:

> I think we should wait a week.
>
> On Mon, Jun 3, 2024 at 10:15 AM John Smith <john.smith@example.com>
> wrote:
>
>> Should we release on Friday?
>>
`,
		strippedText: 'Agreed with both of you.',
		strippedSignature: null,
	},
	{
		language: 'en',
		client: 'Gmail web',
		name: 'HTML only: gmail_quote and a blockquote',
		html: `<div dir="ltr"><div>Thanks, that works for me.</div><div><br></div><div>Anna</div></div><br><div class="gmail_quote"><div dir="ltr" class="gmail_attr">On Mon, Jun 3, 2024 at 10:15 AM John Smith &lt;<a href="mailto:john.smith@example.com">john.smith@example.com</a>&gt; wrote:<br></div><blockquote class="gmail_quote" style="margin:0px 0px 0px 0.8ex;border-left:1px solid rgb(204,204,204);padding-left:1ex"><div dir="ltr">Hi Anna,<div><br></div><div>Can we meet tomorrow at 10?</div><div><br></div><div>John</div></div></blockquote></div>`,
		strippedText: 'Thanks, that works for me.\n\n\nAnna',
		strippedSignature: null,
	},
	{
		language: 'en',
		client: 'Gmail web',
		name: 'HTML only: a gmail_signature with its "-- " prefix',
		html: `<div dir="ltr">Sure, I'll be there.<br clear="all"><div><br></div><span class="gmail_signature_prefix">-- </span><br><div dir="ltr" class="gmail_signature" data-smartmail="gmail_signature"><div dir="ltr">Anna Lee<div>Product Manager</div></div></div></div><br><div class="gmail_quote"><div dir="ltr" class="gmail_attr">On Mon, Jun 3, 2024 at 10:15 AM John Smith &lt;<a href="mailto:john.smith@example.com">john.smith@example.com</a>&gt; wrote:<br></div><blockquote class="gmail_quote" style="margin:0px 0px 0px 0.8ex;border-left:1px solid rgb(204,204,204);padding-left:1ex"><div dir="ltr">Are you coming to the launch?</div></blockquote></div>`,
		strippedText: "Sure, I'll be there.",
		strippedSignature: 'Anna Lee\nProduct Manager',
	},
	{
		language: 'en',
		client: 'Outlook desktop',
		name: 'plain text: "-----Original Message-----" and its header block',
		text: `Hi John,

I've attached the signed copy.

Regards,
Anna

-----Original Message-----
From: John Smith <john.smith@example.com> 
Sent: Monday, June 3, 2024 10:15 AM
To: Anna Lee <anna.lee@example.com>
Subject: Contract

Hi Anna,

Please sign and return the contract.

John
`,
		strippedText: "Hi John,\n\nI've attached the signed copy.",
		strippedSignature: 'Regards,\nAnna',
	},
	{
		language: 'en',
		client: 'Outlook desktop',
		name: 'Exchange names without addresses, and a Cc line',
		text: `Approved.

From: Smith, John 
Sent: Monday, June 3, 2024 10:15 AM
To: Lee, Anna; Brown, Mark
Cc: Finance Team
Subject: Budget request for Q3

Anna, can you approve the attached budget?
`,
		strippedText: 'Approved.',
		strippedSignature: null,
	},
	{
		language: 'en',
		client: 'Outlook desktop',
		name: 'a From line with [mailto:]',
		text: `Hello

From: notifications@example.com [mailto:notifications@example.com]
Sent: March-09-12 4:22 PM
To: Dan Le
Subject: The manager has commented on your Loop

Hi Dan,

The manager's comment: "Did you ask for some MIME?"
`,
		strippedText: 'Hello',
		strippedSignature: null,
	},
	{
		language: 'en',
		client: 'Outlook desktop',
		name: 'HTML only: Word markup, the header block under a CSS border',
		html: `<html xmlns:o="urn:schemas-microsoft-com:office:office"><head><meta name="Generator" content="Microsoft Word 15 (filtered medium)"></head><body lang="EN-GB" link="#0563C1"><div class="WordSection1"><p class="MsoNormal">Hi John,<o:p></o:p></p><p class="MsoNormal"><o:p>&nbsp;</o:p></p><p class="MsoNormal">The figures look right to me.<o:p></o:p></p><p class="MsoNormal"><o:p>&nbsp;</o:p></p><p class="MsoNormal">Kind regards,<o:p></o:p></p><p class="MsoNormal">Anna<o:p></o:p></p><p class="MsoNormal"><o:p>&nbsp;</o:p></p><div><div style="border:none;border-top:solid #E1E1E1 1.0pt;padding:3.0pt 0cm 0cm 0cm"><p class="MsoNormal"><b><span lang="EN-US">From:</span></b><span lang="EN-US"> John Smith &lt;<a href="mailto:john.smith@example.com">john.smith@example.com</a>&gt; <br><b>Sent:</b> Monday, June 3, 2024 10:15 AM<br><b>To:</b> Anna Lee &lt;<a href="mailto:anna.lee@example.com">anna.lee@example.com</a>&gt;<br><b>Subject:</b> Q2 figures<o:p></o:p></span></p></div></div><p class="MsoNormal"><o:p>&nbsp;</o:p></p><p class="MsoNormal">Hi Anna, could you check the Q2 figures?<o:p></o:p></p></div></body></html>`,
		strippedText: 'Hi John,\n\n\u00a0\n\nThe figures look right to me.',
		strippedSignature: 'Kind regards,\n\nAnna',
	},
	{
		language: 'en',
		client: 'Outlook web',
		name: 'plain text: the underscore rule above the header block',
		text: `Sure, Thursday works.

Kind regards,
Anna
________________________________
From: John Smith <john.smith@example.com>
Sent: Monday, June 3, 2024 10:15
To: Anna Lee <anna.lee@example.com>
Subject: Meeting

Hi Anna, can we meet on Thursday?
`,
		strippedText: 'Sure, Thursday works.',
		strippedSignature: 'Kind regards,\nAnna',
	},
	{
		language: 'en',
		client: 'Outlook web',
		name: 'HTML only: divRplyFwdMsg after an <hr>',
		html: `<html><head><style type="text/css" style="display:none;"> P {margin-top:0;margin-bottom:0;} </style></head><body dir="ltr"><div class="elementToProof" style="font-family: Aptos, Aptos_EmbeddedFont, Calibri, Helvetica, sans-serif; font-size: 12pt;">Yes, the room is booked.</div><div id="appendonsend"></div><hr style="display:inline-block;width:98%" tabindex="-1"><div id="divRplyFwdMsg" dir="ltr"><font face="Calibri, sans-serif" style="font-size:11pt" color="#000000"><b>From:</b> John Smith &lt;john.smith@example.com&gt;<br><b>Sent:</b> Monday, June 3, 2024 10:15<br><b>To:</b> Anna Lee &lt;anna.lee@example.com&gt;<br><b>Subject:</b> Room for Thursday</font><div>&nbsp;</div></div><div><p>Hi Anna,</p><p>did you book the room for Thursday?</p></div></body></html>`,
		strippedText: 'Yes, the room is booked.',
		strippedSignature: null,
	},
	{
		language: 'en',
		client: 'Outlook mobile',
		name: 'iOS: "Get Outlook for iOS" above the rule',
		text: `Will do.

Get Outlook for iOS<https://aka.ms/o0ukef>
________________________________
From: John Smith <john.smith@example.com>
Sent: Monday, June 3, 2024 10:15:12 AM
To: Anna Lee <anna.lee@example.com>
Subject: Slides

Can you bring the slides tomorrow?
`,
		strippedText: 'Will do.',
		strippedSignature: 'Get Outlook for iOS<https://aka.ms/o0ukef>',
	},
	{
		language: 'en',
		client: 'Outlook mobile',
		name: 'Android: "Get Outlook for Android", a blank line before the rule',
		text: `No problem, I'll cover for you.

Get Outlook for Android<https://aka.ms/ghei36>

________________________________
From: Any One <any.one@example.net>
Sent: Wednesday, February 5, 2020 8:54:40 PM
To: some.one@example.org <some.one@example.org>
Subject: Shift on Friday

Could you take my shift on Friday?
`,
		strippedText: "No problem, I'll cover for you.",
		strippedSignature: 'Get Outlook for Android<https://aka.ms/ghei36>',
	},
	{
		language: 'en',
		client: 'Outlook for Mac',
		name: 'a header block with Date: instead of Sent:',
		text: `Great, see you there.

From: John Smith <john.smith@example.com>
Date: Monday, 3 June 2024 at 10:15
To: Anna Lee <anna.lee@example.com>
Subject: Offsite

The offsite is at the lake house this year.
`,
		strippedText: 'Great, see you there.',
		strippedSignature: null,
	},
	{
		language: 'en',
		client: 'Apple Mail',
		name: 'the attribution inside the quote, no blank line above it',
		text: `Sounds good to me.
> On 3 Jun 2024, at 10:15, John Smith <john.smith@example.com> wrote:
> 
> Shall we book the 9:40 train?
> 
> John
`,
		strippedText: 'Sounds good to me.',
		strippedSignature: null,
	},
	{
		language: 'en',
		client: 'Apple Mail',
		name: 'HTML only: blockquote type="cite" holding the attribution',
		html: `<html><head><meta http-equiv="content-type" content="text/html; charset=utf-8"></head><body style="overflow-wrap: break-word; -webkit-nbsp-mode: space; line-break: after-white-space;"><div>Sounds good, let's do that.</div><div><br><blockquote type="cite"><div>On 3 Jun 2024, at 10:15, John Smith &lt;john.smith@example.com&gt; wrote:</div><br class="Apple-interchange-newline"><div><div>Hi Anna,</div><div><br></div><div>Shall we move the call to 4pm?</div></div></blockquote></div><br></body></html>`,
		strippedText: "Sounds good, let's do that.",
		strippedSignature: null,
	},
	{
		language: 'en',
		client: 'iPhone',
		name: 'older iOS: the attribution above the quote, wrapped by quoted-printable no more',
		text: `Hello

Sent from my iPhone

On Apr 3, 2012, at 4:19 PM, bob <bob@example.com> wrote:

> Hi
`,
		strippedText: 'Hello',
		strippedSignature: 'Sent from my iPhone',
	},
	{
		language: 'en',
		client: 'iPhone',
		name: 'iOS 17: the attribution in the quote, a byte order mark on the first quoted line',
		text: `Great, thanks!

Sent from my iPhone

> On 3 Jun 2024, at 10:15, John Smith <john.smith@example.com> wrote:
> 
> \uFEFFHi Anna, the tickets are booked.
`,
		strippedText: 'Great, thanks!',
		strippedSignature: 'Sent from my iPhone',
	},
	{
		language: 'en',
		client: 'iPhone',
		name: 'HTML only: "Sent from my iPhone" and two blockquotes',
		html: `<html><head><meta http-equiv="content-type" content="text/html; charset=utf-8"></head><body dir="auto">Perfect, see you at 7.<br><br><div dir="ltr">Sent from my iPhone</div><div dir="ltr"><br><blockquote type="cite">On 3 Jun 2024, at 10:15, John Smith &lt;john.smith@example.com&gt; wrote:<br><br></blockquote></div><blockquote type="cite"><div dir="ltr">\uFEFF<div>Dinner at 7 tonight?</div></div></blockquote></body></html>`,
		strippedText: 'Perfect, see you at 7.',
		strippedSignature: 'Sent from my iPhone',
	},
	{
		language: 'en',
		client: 'Thunderbird',
		name: 'bottom-posted, no blank lines, a "-- " signature',
		text: `On 6/3/24 10:15 AM, John Smith wrote:
> Is the server back up?
Yes, since 9 o'clock.

-- 
Anna Lee
Operations
`,
		strippedText: "Yes, since 9 o'clock.",
		strippedSignature: 'Anna Lee\nOperations',
	},
	{
		language: 'en',
		client: 'Thunderbird',
		name: 'HTML only: moz-cite-prefix, the signature below the quote',
		html: `<html><head><meta http-equiv="Content-Type" content="text/html; charset=UTF-8"></head><body><p>Yes, see you then.</p><div class="moz-cite-prefix">On 03/06/2024 10:15, John Smith wrote:<br></div><blockquote type="cite" cite="mid:abc123@example.com">Hi Anna,<br><br>Lunch on Friday?<br></blockquote><br><pre class="moz-signature" cols="72">-- 
Anna Lee
Example Ltd.</pre></body></html>`,
		strippedText: 'Yes, see you then.',
		strippedSignature: 'Anna Lee\nExample Ltd.',
	},
	{
		language: 'en',
		client: 'Android',
		name: 'Samsung Email: "-------- Original message --------" and "Sent from my Galaxy"',
		text: `OK, I'll call you later.

Sent from my Galaxy

-------- Original message --------
From: John Smith <john.smith@example.com> 
Date: 6/3/24 10:15 (GMT+00:00) 
To: anna.lee@example.com 
Subject: Call 

Can you call me when you land?
`,
		strippedText: "OK, I'll call you later.",
		strippedSignature: 'Sent from my Galaxy',
	},
	{
		language: 'en',
		client: 'Yahoo',
		name: 'plain text: "----- Original Message -----" with spaces',
		text: `Hello


----- Original Message -----
From: "bob@example.com" <bob@example.com>
To: anna@example.com; mark@example.com
Cc:
Sent: Monday, April 2, 2012 5:44 PM
Subject: Test

Hi
`,
		strippedText: 'Hello',
		strippedSignature: null,
	},
	{
		language: 'en',
		client: 'Yahoo',
		name: 'HTML only: yahoo_quoted, the earlier message not in a blockquote',
		html: `<html><head></head><body><div class="ydp4f2a9e8cyahoo-style-wrap" style="font-family:Helvetica Neue, Helvetica, Arial, sans-serif;font-size:13px;"><div dir="ltr" data-setdir="false">Got it, thanks!</div><div><br></div></div><div id="yahoo_quoted_8327451176" class="yahoo_quoted"><div style="font-family:'Helvetica Neue', Helvetica, Arial, sans-serif;font-size:13px;color:#26282a;"><div>On Monday, June 3, 2024 at 10:15:00 AM GMT+1, John Smith &lt;john.smith@example.com&gt; wrote:</div><div><br></div><div><br></div><div><div dir="ltr">Your order has shipped.</div></div></div></div></body></html>`,
		strippedText: 'Got it, thanks!',
		strippedSignature: null,
	},
	{
		language: 'en',
		client: 'plain text',
		name: 'interleaved answers below "Name <address> wrote:"',
		text: `John Smith <john.smith@example.com> wrote:
> 1. Can you review the pull request?

Done, I left two comments.

> 2. Are you coming to the standup tomorrow?

No, I'm off tomorrow.

> Thanks,
> John
`,
		strippedText: "Done, I left two comments.\n\nNo, I'm off tomorrow.",
		strippedSignature: null,
	},
	{
		language: 'en',
		client: 'Gmail web',
		name: 'interleaved answers, then a closing',
		text: `On Mon, Jun 3, 2024 at 10:15 AM John Smith <john.smith@example.com> wrote:

> What time should we start?
>

At ten.

> And who brings the projector?
>

I will.

Cheers,
Anna
`,
		strippedText: 'At ten.\n\nI will.',
		strippedSignature: 'Cheers,\nAnna',
	},
	{
		language: 'en',
		client: 'plain text',
		name: 'bottom-posted on a mailing list',
		text: `On Mon, 3 Jun 2024 at 10:15, John Smith <john.smith@example.com> wrote:
> Has anyone seen this error with version 2.3?
>
> TypeError: cannot read properties of undefined (reading 'id')

Yes, it's fixed in 2.3.1. Upgrading should make it go away.
`,
		strippedText: "Yes, it's fixed in 2.3.1. Upgrading should make it go away.",
		strippedSignature: null,
	},
	{
		language: 'en',
		client: 'Gmail web',
		name: 'a forward above Gmail\'s "Forwarded message" block',
		text: `FYI, see below.

---------- Forwarded message ---------
From: John Smith <john.smith@example.com>
Date: Mon, Jun 3, 2024 at 10:15 AM
Subject: Server maintenance
To: <ops@example.com>

Maintenance starts at 22:00.
`,
		strippedText: 'FYI, see below.',
		strippedSignature: null,
	},
	{
		language: 'en',
		client: 'no quote',
		name: 'a message without a quote, closing with "Thanks,"',
		text: `Hi team,

The release is scheduled for Friday at 17:00.
Please merge everything before Thursday noon.

Thanks,
Anna
`,
		strippedText:
			'Hi team,\n\nThe release is scheduled for Friday at 17:00.\nPlease merge everything before Thursday noon.\n\nThanks,\nAnna',
		strippedSignature: null,
	},
	{
		language: 'en',
		client: 'no quote',
		name: 'a "-- " signature, no quote',
		text: `Hi,

Please find the invoice attached.

-- 
Anna Lee | Example Ltd.
+44 20 7946 0000
`,
		strippedText: 'Hi,\n\nPlease find the invoice attached.',
		strippedSignature: 'Anna Lee | Example Ltd.\n+44 20 7946 0000',
	},
	{
		language: 'en',
		client: 'no quote',
		name: 'a "Best regards" signature without "-- "',
		text: `Dear Mr Smith,

Thank you for your order. It will ship tomorrow.

Best regards,
Anna Lee
Customer Service, Example Ltd.
`,
		strippedText: 'Dear Mr Smith,\n\nThank you for your order. It will ship tomorrow.',
		strippedSignature: 'Best regards,\nAnna Lee\nCustomer Service, Example Ltd.',
	},
	{
		language: 'en',
		client: 'no quote',
		name: 'a reply that is only a closing word keeps it',
		text: 'Cheers!\n',
		strippedText: 'Cheers!',
		strippedSignature: null,
	},
	{
		language: 'en',
		client: 'no quote',
		name: 'contains "wrote:", "On … wrote:" without a date, and "Sent from" inside a line',
		text: `My colleague wrote: "the build is green", but it failed again this morning.
On Friday Mark wrote:
the deploy script needs the new key. The one you sent from your phone did not work.
Do you have it?
`,
		strippedText:
			'My colleague wrote: "the build is green", but it failed again this morning.\nOn Friday Mark wrote:\nthe deploy script needs the new key. The one you sent from your phone did not work.\nDo you have it?',
		strippedSignature: null,
	},
	{
		language: 'en',
		client: 'no quote',
		name: 'contains "From:" and "Subject:" lines of a bounce, no date field',
		text: `Can you check the bounce? The headers say:

From: Mail Delivery System <mailer-daemon@example.net>
Subject: Undelivered Mail Returned to Sender

I think the address is wrong.
`,
		strippedText:
			'Can you check the bounce? The headers say:\n\nFrom: Mail Delivery System <mailer-daemon@example.net>\nSubject: Undelivered Mail Returned to Sender\n\nI think the address is wrong.',
		strippedSignature: null,
	},
	{
		language: 'en',
		client: 'no quote',
		name: 'an HTML newsletter without a quote comes back whole',
		html: `<html><body><h1>June news</h1><p>Our shop opens on Saturday.</p><p>From: 10:00 to 18:00, every day.</p><p><a href="https://example.com/shop">Visit the shop</a></p></body></html>`,
		strippedText: 'JUNE NEWS\n\nOur shop opens on Saturday.\n\nFrom: 10:00 to 18:00, every day.\n\nVisit the shop https://example.com/shop',
		strippedSignature: null,
	},

	// German
	{
		language: 'de',
		client: 'Gmail web',
		name: 'the attribution wrapped inside the address, "Viele Grüße"',
		text: `Hallo Max,

passt, dann sehen wir uns am Donnerstag.

Viele Grüße
Erika

Am Mo., 3. Juni 2024 um 10:15 Uhr schrieb Max Mustermann <
max.mustermann@example.de>:

> Hallo Erika,
>
> hast du am Donnerstag Zeit?
>
> Gruß
> Max
>
`,
		strippedText: 'Hallo Max,\n\npasst, dann sehen wir uns am Donnerstag.',
		strippedSignature: 'Viele Grüße\nErika',
	},
	{
		language: 'de',
		client: 'Gmail web',
		name: 'HTML only',
		html: `<div dir="ltr">Danke, ist angekommen!</div><br><div class="gmail_quote"><div dir="ltr" class="gmail_attr">Am Mo., 3. Juni 2024 um 10:15 Uhr schrieb Max Mustermann &lt;<a href="mailto:max.mustermann@example.de">max.mustermann@example.de</a>&gt;:<br></div><blockquote class="gmail_quote" style="margin:0px 0px 0px 0.8ex;border-left:1px solid rgb(204,204,204);padding-left:1ex"><div dir="ltr">Anbei die Rechnung.</div></blockquote></div>`,
		strippedText: 'Danke, ist angekommen!',
		strippedSignature: null,
	},
	{
		language: 'de',
		client: 'Gmail mobile',
		name: 'Android Gmail app: "Name <address> schrieb am …:"',
		text: `Mache ich!

Max Mustermann <max.mustermann@example.de> schrieb am Mo., 3. Juni 2024, 10:15:

> Kannst du Brötchen mitbringen?
>
`,
		strippedText: 'Mache ich!',
		strippedSignature: null,
	},
	{
		language: 'de',
		client: 'Outlook desktop',
		name: 'plain text: "-----Ursprüngliche Nachricht-----"',
		text: `Sehr geehrter Herr Mustermann,

vielen Dank für das Angebot. Wir melden uns bis Freitag.

Mit freundlichen Grüßen
Erika Musterfrau

-----Ursprüngliche Nachricht-----
Von: Max Mustermann <max.mustermann@example.de> 
Gesendet: Montag, 3. Juni 2024 10:15
An: Erika Musterfrau <erika.musterfrau@example.de>
Cc: Vertrieb <vertrieb@example.de>
Betreff: Angebot 2024-117

Sehr geehrte Frau Musterfrau,

anbei unser Angebot.
`,
		strippedText: 'Sehr geehrter Herr Mustermann,\n\nvielen Dank für das Angebot. Wir melden uns bis Freitag.',
		strippedSignature: 'Mit freundlichen Grüßen\nErika Musterfrau',
	},
	{
		language: 'de',
		client: 'Outlook desktop',
		name: 'HTML only: Von:/Gesendet:/An:/Betreff: under a CSS border',
		html: `<html><body lang="DE"><div class="WordSection1"><p class="MsoNormal">Hallo Max,<o:p></o:p></p><p class="MsoNormal">die Zahlen passen.<o:p></o:p></p><p class="MsoNormal"><o:p>&nbsp;</o:p></p><div><div style="border:none;border-top:solid #E1E1E1 1.0pt;padding:3.0pt 0cm 0cm 0cm"><p class="MsoNormal"><b>Von:</b> Max Mustermann &lt;max.mustermann@example.de&gt; <br><b>Gesendet:</b> Montag, 3. Juni 2024 10:15<br><b>An:</b> Erika Musterfrau &lt;erika.musterfrau@example.de&gt;<br><b>Betreff:</b> Zahlen Q2<o:p></o:p></p></div></div><p class="MsoNormal"><o:p>&nbsp;</o:p></p><p class="MsoNormal">Hallo Erika, passen die Zahlen?<o:p></o:p></p></div></body></html>`,
		strippedText: 'Hallo Max,\n\ndie Zahlen passen.',
		strippedSignature: null,
	},
	{
		language: 'de',
		client: 'Outlook web',
		name: 'plain text: the underscore rule, Von:/Gesendet:/An:/Betreff:',
		text: `Ja, ich bin dabei.

________________________________
Von: Max Mustermann <max.mustermann@example.de>
Gesendet: Montag, 3. Juni 2024 10:15
An: Team <team@example.de>
Betreff: Sommerfest

Wer kommt zum Sommerfest?
`,
		strippedText: 'Ja, ich bin dabei.',
		strippedSignature: null,
	},
	{
		language: 'de',
		client: 'Outlook mobile',
		name: '"Outlook für iOS herunterladen"',
		text: `Bin in 10 Minuten da.

Outlook für iOS<https://aka.ms/o0ukef> herunterladen
________________________________
Von: Max Mustermann <max.mustermann@example.de>
Gesendet: Montag, 3. Juni 2024 10:15:12
An: Erika Musterfrau <erika.musterfrau@example.de>
Betreff: Wo bist du?

Wir warten schon.
`,
		strippedText: 'Bin in 10 Minuten da.',
		strippedSignature: 'Outlook für iOS<https://aka.ms/o0ukef> herunterladen',
	},
	{
		language: 'de',
		client: 'Apple Mail',
		name: 'the attribution inside the quote',
		text: `Klingt gut!

> Am 03.06.2024 um 10:15 schrieb Max Mustermann <max.mustermann@example.de>:
> 
> Sollen wir den Zug um 9:40 nehmen?
`,
		strippedText: 'Klingt gut!',
		strippedSignature: null,
	},
	{
		language: 'de',
		client: 'iPhone',
		name: '"Von meinem iPhone gesendet"',
		text: `Super, danke!

Von meinem iPhone gesendet

> Am 03.06.2024 um 10:15 schrieb Max Mustermann <max.mustermann@example.de>:
> 
> \uFEFFDie Tickets sind gebucht.
`,
		strippedText: 'Super, danke!',
		strippedSignature: 'Von meinem iPhone gesendet',
	},
	{
		language: 'de',
		client: 'Thunderbird',
		name: 'top-posted, a "-- " signature',
		text: `Hallo Max,

die Datei ist im Anhang.

-- 
Erika Musterfrau
Beispiel GmbH

Am 03.06.24 um 10:15 schrieb Max Mustermann:
> Kannst du mir die Datei schicken?
`,
		strippedText: 'Hallo Max,\n\ndie Datei ist im Anhang.',
		strippedSignature: 'Erika Musterfrau\nBeispiel GmbH',
	},
	{
		language: 'de',
		client: 'Thunderbird',
		name: 'interleaved, an answer that starts with "Am"',
		text: `Am 03.06.24 um 10:15 schrieb Max Mustermann:
> Wann kommt die Lieferung?

Am Mittwoch.

> Und wer nimmt sie an?

Frau Schulz am Empfang.

-- 
Erika Musterfrau
`,
		strippedText: 'Am Mittwoch.\n\nFrau Schulz am Empfang.',
		strippedSignature: 'Erika Musterfrau',
	},
	{
		language: 'de',
		client: 'Android',
		name: 'Samsung Email: "-------- Ursprüngliche Nachricht --------"',
		text: `Ok, bis gleich.

Von meinem Samsung Galaxy Smartphone gesendet.

-------- Ursprüngliche Nachricht --------
Von: Max Mustermann <max.mustermann@example.de> 
Datum: 03.06.24 10:15 (GMT+01:00) 
An: erika.musterfrau@example.de 
Betreff: Treffpunkt 

Wir treffen uns am Bahnhof.
`,
		strippedText: 'Ok, bis gleich.',
		strippedSignature: 'Von meinem Samsung Galaxy Smartphone gesendet.',
	},
	{
		language: 'de',
		client: 'no quote',
		name: 'contains "schrieb … :" without a date and a line starting "Von:"',
		text: `Hallo Max,

wie du am Freitag geschrieben hast, stimmen die Zahlen nicht.
Am besten schauen wir sie zusammen an, schrieb Anna gestern:
die Tabelle hat zwei Fehler.

Von: Montag an bin ich im Urlaub.

Viele Grüße
Erika
`,
		strippedText:
			'Hallo Max,\n\nwie du am Freitag geschrieben hast, stimmen die Zahlen nicht.\nAm besten schauen wir sie zusammen an, schrieb Anna gestern:\ndie Tabelle hat zwei Fehler.\n\nVon: Montag an bin ich im Urlaub.',
		strippedSignature: 'Viele Grüße\nErika',
	},
	{
		language: 'de',
		client: 'no quote',
		name: '"Liebe Grüße" and a name',
		text: `Hallo zusammen,

das Protokoll liegt im Wiki.

Liebe Grüße
Erika
`,
		strippedText: 'Hallo zusammen,\n\ndas Protokoll liegt im Wiki.',
		strippedSignature: 'Liebe Grüße\nErika',
	},

	// French
	{
		language: 'fr',
		client: 'Gmail web',
		name: '"a écrit :" with a narrow no-break space, "Cordialement"',
		text: `Bonjour Jean,

C'est noté, merci.

Cordialement,
Marie

Le lun. 3 juin 2024 à 10:15, Jean Dupont <jean.dupont@example.fr> a écrit\u202F:

> Bonjour Marie,
>
> La réunion est déplacée à jeudi.
>
`,
		strippedText: "Bonjour Jean,\n\nC'est noté, merci.",
		strippedSignature: 'Cordialement,\nMarie',
	},
	{
		language: 'fr',
		client: 'Gmail web',
		name: 'the attribution wrapped before "écrit :"',
		text: `Parfait, à demain.

Le lun. 3 juin 2024 à 10:15, Jean-Baptiste Dupont <jean-baptiste.dupont@example.fr> a
écrit :

> On se retrouve devant la gare ?
>
`,
		strippedText: 'Parfait, à demain.',
		strippedSignature: null,
	},
	{
		language: 'fr',
		client: 'Gmail web',
		name: 'HTML only',
		html: `<div dir="ltr">Merci, bien reçu.</div><br><div class="gmail_quote"><div dir="ltr" class="gmail_attr">Le lun. 3 juin 2024 à 10:15, Jean Dupont &lt;<a href="mailto:jean.dupont@example.fr">jean.dupont@example.fr</a>&gt; a écrit&nbsp;:<br></div><blockquote class="gmail_quote" style="margin:0px 0px 0px 0.8ex;border-left:1px solid rgb(204,204,204);padding-left:1ex"><div dir="ltr">Voici le devis.</div></blockquote></div>`,
		strippedText: 'Merci, bien reçu.',
		strippedSignature: null,
	},
	{
		language: 'fr',
		client: 'Outlook desktop',
		name: 'plain text: "-----Message d\'origine-----", "De :" with [mailto:]',
		text: `Bonjour,

Je valide le devis.

Bien à vous,
Marie Martin

-----Message d'origine-----
De : Jean Dupont [mailto:jean.dupont@example.fr] 
Envoyé : lundi 3 juin 2024 10:15
À : Marie Martin <marie.martin@example.fr>
Objet : Devis n° 2024-117

Bonjour Madame Martin,

Veuillez trouver le devis ci-joint.
`,
		strippedText: 'Bonjour,\n\nJe valide le devis.',
		strippedSignature: 'Bien à vous,\nMarie Martin',
	},
	{
		language: 'fr',
		client: 'Outlook web',
		name: 'HTML only: De :/Envoyé :/À :/Objet : after an <hr>',
		html: `<html><body dir="ltr"><div style="font-family: Aptos, Calibri, sans-serif; font-size: 12pt;">Oui, jeudi me convient.</div><div id="appendonsend"></div><hr style="display:inline-block;width:98%" tabindex="-1"><div id="divRplyFwdMsg" dir="ltr"><font face="Calibri, sans-serif" style="font-size:11pt" color="#000000"><b>De :</b> Jean Dupont &lt;jean.dupont@example.fr&gt;<br><b>Envoyé :</b> lundi 3 juin 2024 10:15<br><b>À :</b> Marie Martin &lt;marie.martin@example.fr&gt;<br><b>Objet :</b> Réunion</font><div>&nbsp;</div></div><div><p>Jeudi vous convient-il ?</p></div></body></html>`,
		strippedText: 'Oui, jeudi me convient.',
		strippedSignature: null,
	},
	{
		language: 'fr',
		client: 'Outlook mobile',
		name: '"Télécharger Outlook pour Android"',
		text: `Je m'en occupe.

Télécharger Outlook pour Android<https://aka.ms/ghei36>

________________________________
De : Jean Dupont <jean.dupont@example.fr>
Envoyé : mercredi 5 février 2020 20:54
À : Marie Martin <marie.martin@example.fr>
Objet : Facture

Pouvez-vous envoyer la facture ?
`,
		strippedText: "Je m'en occupe.",
		strippedSignature: 'Télécharger Outlook pour Android<https://aka.ms/ghei36>',
	},
	{
		language: 'fr',
		client: 'Apple Mail',
		name: 'the attribution inside the quote',
		text: `Ça marche !

> Le 3 juin 2024 à 10:15, Jean Dupont <jean.dupont@example.fr> a écrit :
> 
> On prend le train de 9 h 40 ?
`,
		strippedText: 'Ça marche !',
		strippedSignature: null,
	},
	{
		language: 'fr',
		client: 'iPhone',
		name: '"Envoyé de mon iPhone"',
		text: `Merci !

Envoyé de mon iPhone

> Le 3 juin 2024 à 10:15, Jean Dupont <jean.dupont@example.fr> a écrit :
> 
> \uFEFFLes billets sont réservés.
`,
		strippedText: 'Merci !',
		strippedSignature: 'Envoyé de mon iPhone',
	},
	{
		language: 'fr',
		client: 'Thunderbird',
		name: 'top-posted, a "-- " signature',
		text: `Bonjour Jean,

Le fichier est en pièce jointe.

-- 
Marie Martin
Exemple SARL

Le 03/06/2024 à 10:15, Jean Dupont a écrit :
> Pouvez-vous m'envoyer le fichier ?
`,
		strippedText: 'Bonjour Jean,\n\nLe fichier est en pièce jointe.',
		strippedSignature: 'Marie Martin\nExemple SARL',
	},
	{
		language: 'fr',
		client: 'Android',
		name: 'Samsung Email: "-------- Message d\'origine --------"',
		text: `D'accord, à tout à l'heure.

Envoyé depuis mon appareil Galaxy

-------- Message d'origine --------
De : Jean Dupont <jean.dupont@example.fr> 
Date : 03/06/2024 10:15 (GMT+01:00) 
À : marie.martin@example.fr 
Objet : Rendez-vous 

On se retrouve à la gare.
`,
		strippedText: "D'accord, à tout à l'heure.",
		strippedSignature: 'Envoyé depuis mon appareil Galaxy',
	},
	{
		language: 'fr',
		client: 'Thunderbird',
		name: 'interleaved answers',
		text: `Le 03/06/2024 à 10:15, Jean Dupont a écrit :
> Le devis est-il validé ?

Oui, depuis ce matin.

> Et la livraison ?

Prévue jeudi.

Bonne journée !
`,
		strippedText: 'Oui, depuis ce matin.\n\nPrévue jeudi.',
		strippedSignature: 'Bonne journée !',
	},
	{
		language: 'fr',
		client: 'Gmail mobile',
		name: 'Android Gmail app',
		text: `Je regarde ça ce soir.

Le lun. 3 juin 2024, 10:15, Jean Dupont <jean.dupont@example.fr> a écrit :

> Tu peux relire le contrat ?
>
`,
		strippedText: 'Je regarde ça ce soir.',
		strippedSignature: null,
	},
	{
		language: 'fr',
		client: 'no quote',
		name: 'contains "a écrit :" inside a line and a line starting "De :"',
		text: `Bonjour,

Comme Jean l'a écrit : le devis est prêt.
De : 10 h à 12 h, je suis en réunion.

Amicalement,
Marie
`,
		strippedText: "Bonjour,\n\nComme Jean l'a écrit : le devis est prêt.\nDe : 10 h à 12 h, je suis en réunion.",
		strippedSignature: 'Amicalement,\nMarie',
	},

	// Spanish
	{
		language: 'es',
		client: 'Gmail web',
		name: 'the address in parentheses, "Saludos"',
		text: `Hola Juan,

Perfecto, nos vemos el jueves.

Saludos,
Ana

El lun, 3 jun 2024 a las 10:15, Juan Pérez (<juan.perez@example.es>) escribió:

> Hola Ana,
>
> ¿Te viene bien el jueves?
>
`,
		strippedText: 'Hola Juan,\n\nPerfecto, nos vemos el jueves.',
		strippedSignature: 'Saludos,\nAna',
	},
	{
		language: 'es',
		client: 'Gmail web',
		name: 'the attribution wrapped inside the parentheses',
		text: `Gracias, ya lo tengo.

El lun, 3 jun 2024 a las 10:15, Juan Pérez Rodríguez (<
juan.perez.rodriguez@example.es>) escribió:

> Te envío el contrato.
>
`,
		strippedText: 'Gracias, ya lo tengo.',
		strippedSignature: null,
	},
	{
		language: 'es',
		client: 'Outlook desktop',
		name: 'plain text: "-----Mensaje original-----", "Enviado el:"',
		text: `Buenos días Juan:

Confirmo la reserva.

Un saludo,
Ana García

-----Mensaje original-----
De: Juan Pérez <juan.perez@example.es> 
Enviado el: lunes, 3 de junio de 2024 10:15
Para: Ana García <ana.garcia@example.es>
CC: Reservas <reservas@example.es>
Asunto: Reserva sala

Hola Ana, ¿confirmas la reserva?
`,
		strippedText: 'Buenos días Juan:\n\nConfirmo la reserva.',
		strippedSignature: 'Un saludo,\nAna García',
	},
	{
		language: 'es',
		client: 'Outlook web',
		name: 'HTML only: De:/Enviado:/Para:/Asunto:',
		html: `<html><body dir="ltr"><div style="font-family: Calibri, sans-serif; font-size: 12pt;">Sí, allí estaré.</div><div id="appendonsend"></div><hr style="display:inline-block;width:98%" tabindex="-1"><div id="divRplyFwdMsg" dir="ltr"><font face="Calibri, sans-serif" style="font-size:11pt" color="#000000"><b>De:</b> Juan Pérez &lt;juan.perez@example.es&gt;<br><b>Enviado:</b> lunes, 3 de junio de 2024 10:15<br><b>Para:</b> Ana García &lt;ana.garcia@example.es&gt;<br><b>Asunto:</b> Cena de equipo</font><div>&nbsp;</div></div><div><p>¿Vienes a la cena del viernes?</p></div></body></html>`,
		strippedText: 'Sí, allí estaré.',
		strippedSignature: null,
	},
	{
		language: 'es',
		client: 'Outlook mobile',
		name: '"Obtener Outlook para iOS"',
		text: `Lo reviso esta tarde.

Obtener Outlook para iOS<https://aka.ms/o0ukef>
________________________________
De: Juan Pérez <juan.perez@example.es>
Enviado: lunes, 3 de junio de 2024 10:15:12
Para: Ana García <ana.garcia@example.es>
Asunto: Informe

¿Puedes revisar el informe?
`,
		strippedText: 'Lo reviso esta tarde.',
		strippedSignature: 'Obtener Outlook para iOS<https://aka.ms/o0ukef>',
	},
	{
		language: 'es',
		client: 'Apple Mail',
		name: 'the attribution inside the quote',
		text: `¡Genial!

> El 3 jun 2024, a las 10:15, Juan Pérez <juan.perez@example.es> escribió:
> 
> ¿Cogemos el tren de las 9:40?
`,
		strippedText: '¡Genial!',
		strippedSignature: null,
	},
	{
		language: 'es',
		client: 'iPhone',
		name: 'HTML only: "Enviado desde mi iPhone"',
		html: `<html><head><meta http-equiv="content-type" content="text/html; charset=utf-8"></head><body dir="auto">¡Gracias!<br><br><div dir="ltr">Enviado desde mi iPhone</div><div dir="ltr"><br><blockquote type="cite">El 3 jun 2024, a las 10:15, Juan Pérez &lt;juan.perez@example.es&gt; escribió:<br><br></blockquote></div><blockquote type="cite"><div dir="ltr">\uFEFF<div>Las entradas están compradas.</div></div></blockquote></body></html>`,
		strippedText: '¡Gracias!',
		strippedSignature: 'Enviado desde mi iPhone',
	},
	{
		language: 'es',
		client: 'Thunderbird',
		name: 'the attribution above the quote',
		text: `Hecho, ya está en el servidor.

El 3/6/24 a las 10:15, Juan Pérez escribió:
> ¿Puedes subir la versión nueva?
`,
		strippedText: 'Hecho, ya está en el servidor.',
		strippedSignature: null,
	},
	{
		language: 'es',
		client: 'Android',
		name: 'Samsung Email: "-------- Mensaje original --------"',
		text: `Vale, te llamo luego.

Enviado desde mi Samsung Galaxy

-------- Mensaje original --------
De: Juan Pérez <juan.perez@example.es> 
Fecha: 3/6/24 10:15 (GMT+01:00) 
Para: ana.garcia@example.es 
Asunto: Llamada 

¿Me llamas cuando llegues?
`,
		strippedText: 'Vale, te llamo luego.',
		strippedSignature: 'Enviado desde mi Samsung Galaxy',
	},
	{
		language: 'es',
		client: 'Gmail web',
		name: 'bottom-posted',
		text: `El lun, 3 jun 2024 a las 10:15, Juan Pérez (<juan.perez@example.es>) escribió:

> ¿Alguien sabe la contraseña del wifi de invitados?
>

Está en la pizarra de la cocina.
`,
		strippedText: 'Está en la pizarra de la cocina.',
		strippedSignature: null,
	},
	{
		language: 'es',
		client: 'no quote',
		name: 'contains "escribió:" inside a line',
		text: `Hola equipo,

Juan escribió: «el viernes no puedo». ¿Movemos la reunión al lunes?

Un saludo,
Ana
`,
		strippedText: 'Hola equipo,\n\nJuan escribió: «el viernes no puedo». ¿Movemos la reunión al lunes?',
		strippedSignature: 'Un saludo,\nAna',
	},

	// Portuguese
	{
		language: 'pt',
		client: 'Gmail web',
		name: 'Brazilian Gmail, "Abraços"',
		text: `Oi João,

Combinado, até quinta.

Abraços,
Maria

Em seg., 3 de jun. de 2024 às 10:15, João Silva <joao.silva@example.com.br> escreveu:

> Oi Maria,
>
> Podemos nos encontrar na quinta?
>
`,
		strippedText: 'Oi João,\n\nCombinado, até quinta.',
		strippedSignature: 'Abraços,\nMaria',
	},
	{
		language: 'pt',
		client: 'Gmail web',
		name: 'HTML only',
		html: `<div dir="ltr">Recebido, obrigada!</div><br><div class="gmail_quote"><div dir="ltr" class="gmail_attr">Em seg., 3 de jun. de 2024 às 10:15, João Silva &lt;<a href="mailto:joao.silva@example.com.br">joao.silva@example.com.br</a>&gt; escreveu:<br></div><blockquote class="gmail_quote" style="margin:0px 0px 0px 0.8ex;border-left:1px solid rgb(204,204,204);padding-left:1ex"><div dir="ltr">Segue o orçamento.</div></blockquote></div>`,
		strippedText: 'Recebido, obrigada!',
		strippedSignature: null,
	},
	{
		language: 'pt',
		client: 'Outlook desktop',
		name: 'plain text: "-----Mensagem original-----", "Enviada em:"',
		text: `Bom dia João,

Aprovado.

Atenciosamente,
Maria Souza

-----Mensagem original-----
De: João Silva <joao.silva@example.com.br> 
Enviada em: segunda-feira, 3 de junho de 2024 10:15
Para: Maria Souza <maria.souza@example.com.br>
Assunto: Orçamento

Bom dia Maria, segue o orçamento para aprovação.
`,
		strippedText: 'Bom dia João,\n\nAprovado.',
		strippedSignature: 'Atenciosamente,\nMaria Souza',
	},
	{
		language: 'pt',
		client: 'Outlook web',
		name: 'plain text: European Portuguese "Enviado:"',
		text: `Sim, pode contar comigo.

________________________________
De: João Silva <joao.silva@example.pt>
Enviado: segunda-feira, 3 de junho de 2024 10:15
Para: Maria Souza <maria.souza@example.pt>
Assunto: Jantar de equipa

Vens ao jantar de sexta?
`,
		strippedText: 'Sim, pode contar comigo.',
		strippedSignature: null,
	},
	{
		language: 'pt',
		client: 'Outlook mobile',
		name: '"Obter o Outlook para Android"',
		text: `Vou ver isso hoje.

Obter o Outlook para Android<https://aka.ms/ghei36>

________________________________
De: João Silva <joao.silva@example.com.br>
Enviado: segunda-feira, 3 de junho de 2024 10:15:12
Para: Maria Souza <maria.souza@example.com.br>
Assunto: Relatório

Pode revisar o relatório?
`,
		strippedText: 'Vou ver isso hoje.',
		strippedSignature: 'Obter o Outlook para Android<https://aka.ms/ghei36>',
	},
	{
		language: 'pt',
		client: 'Apple Mail',
		name: 'the attribution inside the quote',
		text: `Ótimo!

> Em 3 de jun. de 2024, à(s) 10:15, João Silva <joao.silva@example.com.br> escreveu:
> 
> Pegamos o trem das 9:40?
`,
		strippedText: 'Ótimo!',
		strippedSignature: null,
	},
	{
		language: 'pt',
		client: 'iPhone',
		name: '"Enviado do meu iPhone"',
		text: `Obrigada!

Enviado do meu iPhone

> Em 3 de jun. de 2024, à(s) 10:15, João Silva <joao.silva@example.com.br> escreveu:
> 
> \uFEFFOs ingressos estão comprados.
`,
		strippedText: 'Obrigada!',
		strippedSignature: 'Enviado do meu iPhone',
	},
	{
		language: 'pt',
		client: 'Thunderbird',
		name: 'the attribution above the quote, a "-- " signature',
		text: `Feito, já está no servidor.

-- 
Maria Souza

Em 03/06/2024 10:15, João Silva escreveu:
> Pode subir a versão nova?
`,
		strippedText: 'Feito, já está no servidor.',
		strippedSignature: 'Maria Souza',
	},
	{
		language: 'pt',
		client: 'Spark',
		name: 'the address in wrapped parentheses, the earlier message not quoted',
		text: `Obrigado pelo retorno.

Em 10 de julho de 2017 às 16:32:35, Suporte Exemplo (
suporte@example.com.br) escreveu:

Olá! Seu chamado foi encerrado.
`,
		strippedText: 'Obrigado pelo retorno.',
		strippedSignature: null,
	},
	{
		language: 'pt',
		client: 'Gmail mobile',
		name: 'Android Gmail app, interleaved answers',
		text: `Em seg., 3 de jun. de 2024 10:15, João Silva <joao.silva@example.com.br> escreveu:

> Você recebeu a nota fiscal?

Recebi, obrigada.

> E o boleto?

Pago hoje.
`,
		strippedText: 'Recebi, obrigada.\n\nPago hoje.',
		strippedSignature: null,
	},
	{
		language: 'pt',
		client: 'no quote',
		name: '"Atenciosamente" and a name',
		text: `Prezados,

Segue em anexo a nota fiscal de junho.

Atenciosamente,
Maria Souza
`,
		strippedText: 'Prezados,\n\nSegue em anexo a nota fiscal de junho.',
		strippedSignature: 'Atenciosamente,\nMaria Souza',
	},

	// Italian
	{
		language: 'it',
		client: 'Gmail web',
		name: '"Il giorno … ha scritto:", "Cordiali saluti"',
		text: `Ciao Marco,

va bene, ci vediamo giovedì.

Cordiali saluti,
Giulia

Il giorno lun 3 giu 2024 alle ore 10:15 Marco Rossi <marco.rossi@example.it> ha scritto:

> Ciao Giulia,
>
> giovedì ti va bene?
>
`,
		strippedText: 'Ciao Marco,\n\nva bene, ci vediamo giovedì.',
		strippedSignature: 'Cordiali saluti,\nGiulia',
	},
	{
		language: 'it',
		client: 'Gmail web',
		name: 'the attribution wrapped before "ha scritto:"',
		text: `Grazie, ricevuto.

Il giorno lun 3 giu 2024 alle ore 10:15 Marco Rossi <marco.rossi@example.it>
ha scritto:

> Ti mando il contratto.
>
`,
		strippedText: 'Grazie, ricevuto.',
		strippedSignature: null,
	},
	{
		language: 'it',
		client: 'Outlook desktop',
		name: 'plain text: "-----Messaggio originale-----"',
		text: `Buongiorno Marco,

confermo la prenotazione.

Distinti saluti
Giulia Bianchi

-----Messaggio originale-----
Da: Marco Rossi <marco.rossi@example.it> 
Inviato: lunedì 3 giugno 2024 10:15
A: Giulia Bianchi <giulia.bianchi@example.it>
Oggetto: Prenotazione sala

Buongiorno Giulia, confermi la prenotazione?
`,
		strippedText: 'Buongiorno Marco,\n\nconfermo la prenotazione.',
		strippedSignature: 'Distinti saluti\nGiulia Bianchi',
	},
	{
		language: 'it',
		client: 'Outlook desktop',
		name: 'HTML only: Da:/Inviato:/A:/Oggetto:',
		html: `<html><body lang="IT"><div class="WordSection1"><p class="MsoNormal">Ciao Marco,<o:p></o:p></p><p class="MsoNormal">ecco i dati che mi hai chiesto.<o:p></o:p></p><p class="MsoNormal"><o:p>&nbsp;</o:p></p><div><div style="border:none;border-top:solid #E1E1E1 1.0pt;padding:3.0pt 0cm 0cm 0cm"><p class="MsoNormal"><b>Da:</b> Marco Rossi &lt;marco.rossi@example.it&gt; <br><b>Inviato:</b> lunedì 3 giugno 2024 10:15<br><b>A:</b> Giulia Bianchi &lt;giulia.bianchi@example.it&gt;<br><b>Oggetto:</b> Dati Q2<o:p></o:p></p></div></div><p class="MsoNormal"><o:p>&nbsp;</o:p></p><p class="MsoNormal">Ciao Giulia, mi mandi i dati?<o:p></o:p></p></div></body></html>`,
		strippedText: 'Ciao Marco,\n\necco i dati che mi hai chiesto.',
		strippedSignature: null,
	},
	{
		language: 'it',
		client: 'Outlook web',
		name: 'plain text: the underscore rule',
		text: `Sì, ci sarò.

________________________________
Da: Marco Rossi <marco.rossi@example.it>
Inviato: lunedì 3 giugno 2024 10:15
A: Team <team@example.it>
Oggetto: Cena di squadra

Chi viene alla cena di venerdì?
`,
		strippedText: 'Sì, ci sarò.',
		strippedSignature: null,
	},
	{
		language: 'it',
		client: 'Outlook mobile',
		name: '"Scarica Outlook per iOS"',
		text: `Lo guardo stasera.

Scarica Outlook per iOS<https://aka.ms/o0ukef>
________________________________
Da: Marco Rossi <marco.rossi@example.it>
Inviato: lunedì 3 giugno 2024 10:15:12
A: Giulia Bianchi <giulia.bianchi@example.it>
Oggetto: Relazione

Puoi rivedere la relazione?
`,
		strippedText: 'Lo guardo stasera.',
		strippedSignature: 'Scarica Outlook per iOS<https://aka.ms/o0ukef>',
	},
	{
		language: 'it',
		client: 'Apple Mail',
		name: 'the attribution inside the quote',
		text: `Perfetto!

> Il giorno 3 giu 2024, alle ore 10:15, Marco Rossi <marco.rossi@example.it> ha scritto:
> 
> Prendiamo il treno delle 9:40?
`,
		strippedText: 'Perfetto!',
		strippedSignature: null,
	},
	{
		language: 'it',
		client: 'iPhone',
		name: '"Inviato da iPhone"',
		text: `Grazie!

Inviato da iPhone

> Il giorno 3 giu 2024, alle ore 10:15, Marco Rossi <marco.rossi@example.it> ha scritto:
> 
> \uFEFFI biglietti sono prenotati.
`,
		strippedText: 'Grazie!',
		strippedSignature: 'Inviato da iPhone',
	},
	{
		language: 'it',
		client: 'Thunderbird',
		name: 'bottom-posted',
		text: `Il 03/06/24 10:15, Marco Rossi ha scritto:
> Hai caricato la nuova versione?

Sì, è online da stamattina.
`,
		strippedText: 'Sì, è online da stamattina.',
		strippedSignature: null,
	},
	{
		language: 'it',
		client: 'Android',
		name: '"In data … ha scritto:", the earlier message not quoted',
		text: `Buongiorno, ci penso io.

In data 11 ottobre 2017 21:11:31 "Marco Rossi" <marco.rossi@example.it> ha scritto:

Buongiorno! Chi si occupa dell'ordine?
`,
		strippedText: 'Buongiorno, ci penso io.',
		strippedSignature: null,
	},

	{
		language: 'it',
		client: 'Gmail mobile',
		name: 'Android Gmail app',
		text: `Arrivo tra dieci minuti.

Il lun 3 giu 2024, 10:15 Marco Rossi <marco.rossi@example.it> ha scritto:

> Dove sei?
`,
		strippedText: 'Arrivo tra dieci minuti.',
		strippedSignature: null,
	},
	{
		language: 'it',
		client: 'no quote',
		name: 'contains "ha scritto:" inside a line, "Un saluto"',
		text: `Ciao a tutti,

come ha scritto Marco: la consegna slitta a lunedì.
Da: lunedì a mercoledì sarò in ferie.

Un saluto,
Giulia
`,
		strippedText: 'Ciao a tutti,\n\ncome ha scritto Marco: la consegna slitta a lunedì.\nDa: lunedì a mercoledì sarò in ferie.',
		strippedSignature: 'Un saluto,\nGiulia',
	},
	// Dutch
	{
		language: 'nl',
		client: 'Gmail web',
		name: '"Op … schreef … :", "Met vriendelijke groet"',
		text: `Hoi Jan,

Prima, tot donderdag.

Met vriendelijke groet,
Sanne

Op ma 3 jun 2024 om 10:15 schreef Jan de Vries <jan.devries@example.nl>:

> Hoi Sanne,
>
> Past donderdag je?
>
`,
		strippedText: 'Hoi Jan,\n\nPrima, tot donderdag.',
		strippedSignature: 'Met vriendelijke groet,\nSanne',
	},
	{
		language: 'nl',
		client: 'Gmail web',
		name: 'HTML only',
		html: `<div dir="ltr">Dank je, ontvangen.</div><br><div class="gmail_quote"><div dir="ltr" class="gmail_attr">Op ma 3 jun 2024 om 10:15 schreef Jan de Vries &lt;<a href="mailto:jan.devries@example.nl">jan.devries@example.nl</a>&gt;:<br></div><blockquote class="gmail_quote" style="margin:0px 0px 0px 0.8ex;border-left:1px solid rgb(204,204,204);padding-left:1ex"><div dir="ltr">Hierbij de offerte.</div></blockquote></div>`,
		strippedText: 'Dank je, ontvangen.',
		strippedSignature: null,
	},
	{
		language: 'nl',
		client: 'Outlook desktop',
		name: 'plain text: "-----Oorspronkelijk bericht-----"',
		text: `Goedemorgen Jan,

Akkoord met de offerte.

Met vriendelijke groeten,
Sanne Jansen

-----Oorspronkelijk bericht-----
Van: Jan de Vries <jan.devries@example.nl> 
Verzonden: maandag 3 juni 2024 10:15
Aan: Sanne Jansen <sanne.jansen@example.nl>
Onderwerp: Offerte 2024-117

Goedemorgen Sanne, hierbij de offerte.
`,
		strippedText: 'Goedemorgen Jan,\n\nAkkoord met de offerte.',
		strippedSignature: 'Met vriendelijke groeten,\nSanne Jansen',
	},
	{
		language: 'nl',
		client: 'Outlook web',
		name: 'plain text: the underscore rule',
		text: `Ja, ik ben erbij.

________________________________
Van: Jan de Vries <jan.devries@example.nl>
Verzonden: maandag 3 juni 2024 10:15
Aan: Team <team@example.nl>
Onderwerp: Teamuitje

Wie gaat er mee op vrijdag?
`,
		strippedText: 'Ja, ik ben erbij.',
		strippedSignature: null,
	},
	{
		language: 'nl',
		client: 'Outlook mobile',
		name: '"Outlook voor iOS downloaden"',
		text: `Ik kijk er vanavond naar.

Outlook voor iOS<https://aka.ms/o0ukef> downloaden
________________________________
Van: Jan de Vries <jan.devries@example.nl>
Verzonden: maandag 3 juni 2024 10:15:12
Aan: Sanne Jansen <sanne.jansen@example.nl>
Onderwerp: Rapport

Kun je het rapport nakijken?
`,
		strippedText: 'Ik kijk er vanavond naar.',
		strippedSignature: 'Outlook voor iOS<https://aka.ms/o0ukef> downloaden',
	},
	{
		language: 'nl',
		client: 'Apple Mail',
		name: '"… het volgende geschreven:" inside the quote',
		text: `Klinkt goed!

> Op 3 jun 2024 om 10:15 heeft Jan de Vries <jan.devries@example.nl> het volgende geschreven:
> 
> Nemen we de trein van 9:40?
`,
		strippedText: 'Klinkt goed!',
		strippedSignature: null,
	},
	{
		language: 'nl',
		client: 'Apple Mail',
		name: 'HTML only',
		html: `<html><head><meta http-equiv="content-type" content="text/html; charset=utf-8"></head><body style="overflow-wrap: break-word;"><div>Prima, zo doen we het.</div><div><br><blockquote type="cite"><div>Op 3 jun 2024 om 10:15 heeft Jan de Vries &lt;jan.devries@example.nl&gt; het volgende geschreven:</div><br class="Apple-interchange-newline"><div><div>Zullen we het overleg naar 16:00 verplaatsen?</div></div></blockquote></div><br></body></html>`,
		strippedText: 'Prima, zo doen we het.',
		strippedSignature: null,
	},
	{
		language: 'nl',
		client: 'iPhone',
		name: '"Verzonden vanaf mijn iPhone"',
		text: `Bedankt!

Verzonden vanaf mijn iPhone

> Op 3 jun. 2024 om 10:15 heeft Jan de Vries <jan.devries@example.nl> het volgende geschreven:
> 
> \uFEFFDe kaartjes zijn geboekt.
`,
		strippedText: 'Bedankt!',
		strippedSignature: 'Verzonden vanaf mijn iPhone',
	},
	{
		language: 'nl',
		client: 'Thunderbird',
		name: 'bottom-posted, a "-- " signature',
		text: `Op 03-06-2024 om 10:15 schreef Jan de Vries:
> Staat de nieuwe versie al online?

Ja, sinds vanochtend.

-- 
Sanne Jansen
Voorbeeld B.V.
`,
		strippedText: 'Ja, sinds vanochtend.',
		strippedSignature: 'Sanne Jansen\nVoorbeeld B.V.',
	},
	{
		language: 'nl',
		client: 'no quote',
		name: 'contains "schreef" inside a line, "Groeten"',
		text: `Hoi allemaal,

Jan schreef gisteren dat de release naar vrijdag gaat. Klopt dat?

Groeten,
Sanne
`,
		strippedText: 'Hoi allemaal,\n\nJan schreef gisteren dat de release naar vrijdag gaat. Klopt dat?',
		strippedSignature: 'Groeten,\nSanne',
	},

	{
		language: 'nl',
		client: 'Gmail mobile',
		name: 'Android Gmail app',
		text: `Ik ben er over tien minuten.

Op ma 3 jun. 2024 10:15 schreef Jan de Vries <jan.devries@example.nl>:

> Waar ben je?
`,
		strippedText: 'Ik ben er over tien minuten.',
		strippedSignature: null,
	},
	{
		language: 'en',
		client: 'no quote',
		name: 'a pasted public key with its dashed lines comes back whole',
		text: `Here is my key, please add it to the server:

-----BEGIN PUBLIC KEY-----
MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAEq4Y3zCZbS1TzLrQ8kXJmW1cVdW8q
7bXq5m9wq3p2lGx8oV1QY2p8vX8dWb4kXbWqQ6pXUuY2r8gR3mK0xYbN5A==
-----END PUBLIC KEY-----
`,
		strippedText:
			'Here is my key, please add it to the server:\n\n-----BEGIN PUBLIC KEY-----\nMFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAEq4Y3zCZbS1TzLrQ8kXJmW1cVdW8q\n7bXq5m9wq3p2lGx8oV1QY2p8vX8dWb4kXbWqQ6pXUuY2r8gR3mK0xYbN5A==\n-----END PUBLIC KEY-----',
		strippedSignature: null,
	},
	// Languages only the library knows
	{
		language: 'other',
		client: 'Gmail web',
		name: 'Polish: "W dniu … napisał(a):"',
		text: `Dzięki, wszystko jasne.

W dniu pon., 3 cze 2024 o 10:15 Jan Kowalski <jan.kowalski@example.pl> napisał(a):

> Cześć, spotkanie jest w czwartek.
>
`,
		strippedText: 'Dzięki, wszystko jasne.',
		strippedSignature: null,
	},
	{
		language: 'other',
		client: 'Apple Mail',
		name: 'Danish: "Den … skrev …:", the earlier message not quoted',
		text: `Tak, det passer fint.

Den 3. jun. 2024 kl. 10.15 skrev Jens Hansen <jens.hansen@example.dk>:

Kan vi mødes torsdag?
`,
		strippedText: 'Tak, det passer fint.',
		strippedSignature: null,
	},
	{
		language: 'other',
		client: 'Thunderbird',
		name: 'Swedish: "Den … skrev …:" above the quote',
		text: `Ja, jag kommer.

Den mån 3 juni 2024 kl 10:15 skrev Sven Svensson <sven.svensson@example.se>:
> Kommer du på mötet?
`,
		strippedText: 'Ja, jag kommer.',
		strippedSignature: null,
	},
];
