/*
 * The words around one-time codes, in English, German, French, Spanish, Portuguese, Italian and Dutch: the words that
 * name a one-time code ("code", "OTP", "Bestätigungscode", "código de verificación"), and the words that make a number
 * something else (a reference, a price, a quantity). Words are compared whole and in lower case unless said otherwise.
 */

/** The words of a list written as text, one or more to a line. */
const words = (list: string) => list.trim().split(/\s+/);
const wordSet = (list: string) => new Set(words(list));

/** Words ending in one of these name a code ("passcode", "Bestätigungscode", "código"). */
const CODE_ENDINGS = words('code codes codice codici código códigos codigo codigos');
/** Other words that name a one-time code, whole. */
const CODE_WORDS = wordSet(`
	otp otps pin tan mtan smstan pushtan token 2fa mfa one-time onetime einmalpasswort einmalkennwort clave senha monouso
	eenmalig eenmalige
`);
const VERIFICATION_WORDS = wordSet('verification vérification verificación verificação verifica verificatie verifizierung verifikation');
/** Word -> the word before it: together they name a one-time code ("one time", "à usage unique", "un solo uso", "uso único"). */
const CODE_PHRASES = new Map([
	['time', 'one'],
	['unique', 'usage'],
	['uso', 'solo'],
	['único', 'uso'],
	['use', 'single'],
]);

/** Before "code": a code that is no one-time code ("promo code", "postal code", "gift card code"). */
const NOT_ONE_TIME_BEFORE = wordSet(`
	promo promotional discount coupon voucher gift e-gift card referral invite invitation postal post zip area country
	country/region qr bar source error status response exit tracking booking reservation product item article style colour
	color dress tax hs swift sort bank bic routing fiscal cheat short machine time customer client order sale shipping shop
	morse
`);
/** Joined to "code", whole: no one-time code ("Unicode", "encode", "Xcode", "barcode", "Postcode"). */
const NOT_ONE_TIME_JOINED = wordSet(
	'uni en de op x vs geo trans short hash leet pseudo byte machine time quell qr source zip bar post promo area',
);
/** Joined to "code" at their end: German and Dutch compounds that name no one-time code ("Rabattcode", "kortingscode"). */
const NOT_ONE_TIME_STEMS = words(`
	gutschein rabatt aktions promo fehler status buchungs reservierungs sendungs tracking artikel produkt steuer einladungs
	empfehlungs geschenk kunden länder landes korting actie cadeau boekings fout coupon voucher discount referral invite gift
	post zip bar
`);
/** After "code", "código", "codice" (past "de", "di", ...): no one-time code ("code promo", "codice fiscale"). */
const NOT_ONE_TIME_AFTER = wordSet(`
	promo postal postale promotionnel promocional promozionale sconto fiscale réduction reduction descuento desconto
	rastreamento rastreio suivi seguimiento tracciamento cadeau regalo parrainage réservation reserva prenotazione
	articolo article artículo produit producto produto prodotto cliente client ordine commande pedido qr conduct conduite
	conducta país pays paese erreur error errore erro barras barre
`);
const CONNECTIVES = wordSet(`de di do da del of du des d van`);

/** Code words of one-time codes that also name a booking's reference (in mail about a booking, they do). */
const CONFIRMATION_STEMS = words('bestätigungs bevestigings confirmation');
const CONFIRMATION_AFTER = wordSet('confirmation confirmación confirmação conferma');
/** Code words of one-time codes that also name a meeting's PIN or passcode (in an invitation to one, they do). */
const MEETING_WORDS = wordSet('pin passcode clave senha kenncode zugangscode toegangscode accesscode');
const MEETING_BEFORE = wordSet('access meeting conference dial-in participant host');
const MEETING_AFTER = wordSet('accès acceso accesso acesso réunion reunión riunione');
// Mail about a booking, and mail with a meeting to join (case-insensitive, anywhere in the subject or text).
const BOOKING_MAIL =
	/\b(?:flights?|booking|reservation|itinerary|boarding|check-in|hotel|airbnb|flug|buchung|reservierung|réservation|vols?|vuelos?|reserva|voos?|volo|prenotazione|vlucht|boeking|reservering)\b/i;
const MEETING_MAIL =
	/\b(?:meeting id|meeting number|conference id|konferenz-id|besprechungs-id|id de réunion|id de reunión|id riunione|join zoom meeting|zoom\.us\/j|teams\.microsoft\.com|meet\.google\.com|webex|dial-in|einwahl)/i;

/** A line that offers a discount (case-insensitive): its "code" is a promotion's. */
export const PROMOTION_LINE =
	/%|\b(?:discount|sale|coupon|voucher|promo\w*|checkout|free|rabatt|gutschein|gratis|réduction|remise|soldes|descuento|cupón|rebajas|desconto|cupom|sconto|saldi|korting|uitverkoop)\b/i;
/** Words that ask to enter what follows ("Use G-7XK2P9", "Enter 482913"): in a mail with code words, a code follows. */
export const ENTER_WORDS = wordSet(`
	enter use type input paste eingeben verwenden nutzen saisissez saisir entrez utilisez introduce introduzca ingresa
	ingrese usa utiliza digite insira informe inserisci immetti inserire voer gebruik typ
`);
/** Words between a code word and its code that say nothing of what the code is ("code: is 482913"). */
export const FILLERS = wordSet(': - – — = → is ist est es é è lautet your ihr');
/** Words that introduce what a code is ("... is 482913", "... lautet: 482913"). */
export const INTRODUCERS = wordSet('is ist est es é è lautet are sind sont son são sono zijn');
/** Punctuation between a label and its number ("Order no.: 123", "Tel. – 5551234"). */
export const LABEL_PUNCTUATION = wordSet(': - – — = →');

/** Before a number, a label that makes it a reference, not a code ("Order 123456", "Rechnung Nr. 48213", "Tel 5551234"). */
const REFERENCE_LABELS = wordSet(`
	order orders invoice ticket tracking reference ref account customer client member membership policy contract case claim
	item sku article art model serial version ver v build release no nr num number # id phone tel telephone mobile fax call
	booking reservation confirmation flight room gate seat page p ext box suite ste apt unit floor route platform vat tax
	iban bic swift routing card ending transaction txn payment receipt shipment parcel package delivery employee student
	patient year since from until qty quantity total subtotal amount price sms hotline whatsapp cell isbn ean upc imei ip
	port pnr postcode zip
	bestellung rechnung auftrag kunde konto vertrag sendung lieferung vorgang aktenzeichen az fall bis seit jahr menge anzahl
	betrag summe preis telefon handy mob plz flug sitz platz
	commande facture compte colis suivi référence réf dossier contrat n° nº tél téléphone vol
	pedido factura cliente cuenta referencia envío seguimiento número reserva localizador teléfono vuelo
	fatura nota conta referência rastreamento encomenda telefone cep voo
	ordine fattura conto riferimento spedizione numero n prenotazione pratica telefono cap volo
	bestelling factuur klant rekening referentie zending boeking tlf vlucht
`);
/** Endings of labels that make a number a reference ("Kundennummer", "Bestellnr", "Kunden-ID"). */
const REFERENCE_LABEL_ENDINGS = /(?:nummer|nummern|nr|number|numbers|numéro|número|numero|-id|#)$/;
/** Next to a number: what it counts or costs ("4999 USD", "EUR 4999", "1440 minutes"), so no code. */
export const UNITS = wordSet(`
	usd eur euro euros € $ £ ¥ gbp chf sek nok dkk pln czk huf jpy cad aud inr brl mxn kr zł dollars dollar cents pounds
	% percent prozent
	minutes minute min mins hours hour hrs seconds sec days day weeks months years minuten stunden sekunden tage minuti ore
	secondi giorni minutos horas segundos días dias uur seconden dagen jours heures secondes
	items pcs pieces units stück stk x km miles mi kg g m meter ml l liter liters litres kwh m³ mb gb kb kcal calories
	points pts punkte steps views followers likes members people users subscribers customers downloads words pages votes
`);
/** Words in capitals that often follow a code word and are no code ("YOUR CODE IS BELOW"); compared as written. */
export const CAPITAL_WORDS = wordSet('BELOW ABOVE HERE THIS THAT SENT VALID EXPIRES ONLY CODE YOUR NOTE IMPORTANT TEXT EMAIL');

export function mailContext(subject: string, body: string): MailContext {
	return {
		booking: BOOKING_MAIL.test(subject) || BOOKING_MAIL.test(body),
		meeting: MEETING_MAIL.test(subject) || MEETING_MAIL.test(body),
	};
}

/** Whether a word may name a one-time code, as namesOneTimeCode tells with the words around it: a quick first look. */
export function mayNameCode(word: string): boolean {
	return CODE_WORDS.has(word) || VERIFICATION_WORDS.has(word) || CODE_PHRASES.has(word) || codeEnding(word) !== undefined;
}

/** The ending of CODE_ENDINGS that a word has ("code" of "bestätigungscode"). */
function codeEnding(word: string): string | undefined {
	// Each ending ends in one of these letters: most words are told apart by their last letter.
	const last = word[word.length - 1];
	if (last !== 'e' && last !== 's' && last !== 'i' && last !== 'o') return undefined;
	for (const ending of CODE_ENDINGS) if (word.endsWith(ending)) return ending;
	return undefined;
}

/**
 * Whether `word` names a one-time code, `before` and `after` the words around it (past "de", "di", ... after it), all
 * in lower case: "code" does, "promo code", "postal code", "Gutscheincode", "codice fiscale" and "Unicode" do not; a
 * "confirmation code" in mail about a booking and a "PIN" or "passcode" in an invitation to a meeting do not either.
 */
export function namesOneTimeCode(word: string, before: string, after: string, context: MailContext): boolean {
	const ending = codeEnding(word);
	const named = ending !== undefined || CODE_WORDS.has(word) || VERIFICATION_WORDS.has(word) || CODE_PHRASES.get(word) === before;
	if (!named) return false;
	if (context.meeting && (MEETING_WORDS.has(word) || MEETING_BEFORE.has(before) || MEETING_AFTER.has(after))) return false;
	if (ending === undefined) return true;
	const joined = word.slice(0, word.length - ending.length);
	const stem = joined.endsWith('-') ? joined.slice(0, -1) : joined;
	if (stem && (NOT_ONE_TIME_JOINED.has(stem) || NOT_ONE_TIME_STEMS.some((notOneTime) => stem.endsWith(notOneTime)))) return false;
	if (NOT_ONE_TIME_BEFORE.has(before) || NOT_ONE_TIME_AFTER.has(after)) return false;
	if (!context.booking) return true;
	return !(CONFIRMATION_STEMS.some((confirm) => stem.endsWith(confirm) || before === confirm) || CONFIRMATION_AFTER.has(after));
}

/** Whether a word after a code word only joins it to what follows ("code de vérification", "codice di verifica"). */
export function isConnective(word: string): boolean {
	return CONNECTIVES.has(word);
}

/** Whether a word before a number makes it a reference ("Order", "Nr", "Kundennummer", "Tel"). */
export function isReferenceLabel(word: string): boolean {
	return REFERENCE_LABELS.has(word) || REFERENCE_LABEL_ENDINGS.test(word);
}

/** What a whole mail says of its code words. */
export interface MailContext {
	/** The mail is about a flight, hotel or other booking, whose reference its "confirmation code" is. */
	booking: boolean;
	/** The mail invites to a meeting, whose PIN or passcode it gives. */
	meeting: boolean;
}
