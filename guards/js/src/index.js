// @agentrep/x402-guard: asks agentrep's URL preflight (`POST {base}/preflight`, answer
// `agentrep-url-preflight-v1`) before the official x402 client signs a payment, and refuses what the
// answer says not to pay.
//
// It only registers on the client object it is given, through the client's own extension points
// (@x402/core 2.27), and imports nothing from @x402/*:
// - `x402HTTPClient.onPaymentRequired`: sees the URL being paid and the 402 as decoded; the guard
//   asks the preflight there and throws its refusal, which @x402/fetch propagates unchanged;
// - `x402Client.registerPolicy`: keeps the client's choice to the offers the preflight allows;
// - `x402Client.onBeforePaymentCreation`: last check of the chosen offer before the scheme signs (and,
//   when only an `x402Client` is guarded, the place where the preflight is asked).

import { usdcAmount } from './seller.js';

/** The answer version this guard reads. */
export { guardX402ResourceServer } from './seller.js';
export const PREFLIGHT_VERSION = 'agentrep-url-preflight-v1';

const DECISIONS = new Set(['PROCEED', 'PROCEED_LOW_VALUE', 'CAUTION', 'BLOCK']);
const MARK = 'agentrep x402 guard refused payment';

/**
 * Why a payment was refused.
 * - `block`: agentrep's decision for the offer (its payee's, or the URL's) is BLOCK.
 * - `decoy`: the 402 pays a wallet that is not the listed seller's (an impersonation).
 * - `price_trap`: the 402 asks far more than the listing's price.
 * - `caution`: the decision is CAUTION and `onCaution` refuses it (or the offer is above its cap).
 * - `low_value`: the decision is PROCEED_LOW_VALUE and `onLowValue` refuses it (or the offer is above its cap).
 * - `over_listing`: the offer asks more than the listing's `maxAmount`.
 * - `not_acceptable`: agentrep did not judge that very offer (or cannot: a scheme or network it does
 *   not read), the URL is listed and the offer is not one agentrep marks acceptable (another
 *   network, asset or wallet than listed), or the client chose an offer not in the 402.
 * - `trust_fail`: agentrep's trust-provider answer (`POST /trust/evaluate`) for the chosen offer's payee is FAIL.
 * - `unavailable`: the preflight could not be asked or answered something unreadable, and
 *   `onUnavailable` is "refuse".
 * @typedef {'block' | 'decoy' | 'price_trap' | 'caution' | 'low_value' | 'over_listing' | 'not_acceptable' | 'trust_fail' | 'unavailable'} RefusalCode
 */

/**
 * @typedef {'refuse' | { maxAmount: string | number | bigint }} CautionPolicy
 * @typedef {'cap' | 'allow' | 'refuse' | { maxAmount: string | number | bigint }} LowValuePolicy
 *
 * @typedef {object} GuardOptions
 * @property {string} agentrep  The agentrep API base, e.g. `https://agentrep.example/api/agent`.
 * @property {CautionPolicy} [onCaution]  On CAUTION: refuse (default), or pay offers up to `maxAmount` (atomic units).
 * @property {LowValuePolicy} [onLowValue]  On PROCEED_LOW_VALUE ("pay, but only small amounts"): cap (default: pay
 *   up to the offer's listed amount, or {@link LOW_VALUE_DEFAULT_CAP} when none is stated), allow (uncapped), refuse,
 *   or pay up to `maxAmount`.
 * @property {'refuse' | 'allow'} [onUnavailable]  When the preflight cannot be asked: refuse (default) or pay unchecked.
 * @property {number} [timeoutMs]  Preflight timeout, default 3000.
 * @property {typeof fetch} [fetch]  The fetch the preflight call uses (default `globalThis.fetch`); never a paying one.
 * @property {boolean} [trust]  Also ask agentrep's trust-provider answer about the chosen offer's payee before signing,
 *   and refuse a FAIL (`trust_fail`); default true.
 */

/**
 * @typedef {object} Preflight  The `agentrep-url-preflight-v1` answer (only the fields the guard reads).
 * @property {string} version
 * @property {string} url
 * @property {boolean} listed
 * @property {'PROCEED' | 'PROCEED_LOW_VALUE' | 'CAUTION' | 'BLOCK'} decision
 * @property {string | null} [payTo]
 * @property {{ address?: string, decision?: string, score?: number | null, verdict?: string, flags?: string[] } | null} [seller]
 * @property {Array<{ index: number, scheme?: string, network?: string, asset?: string, payTo?: string, amount?: string, listedPrice?: string | null, acceptable?: boolean, payable?: boolean, decision?: string | null }>} [offers]
 * @property {Array<{ code: string, severity: string, offer: number | null, message: string }>} [warnings]
 * @property {string | null} [maxAmount]
 */

/** A refused payment: thrown before anything is signed. */
export class X402GuardRefusal extends Error {
  /**
   * @param {RefusalCode} code
   * @param {string} reason
   * @param {{ url?: string | null, offer?: number | null, preflight?: Preflight | null }} [context]
   */
  constructor(code, reason, { url = null, offer = null, preflight = null } = {}) {
    super(`${MARK}${url ? ` for ${url}` : ''} [${code}]: ${reason}`);
    this.name = 'X402GuardRefusal';
    /** @type {RefusalCode} */
    this.code = code;
    /** @type {string} */
    this.reason = reason;
    /** @type {string | null} the URL the preflight was asked about */
    this.url = url;
    /** @type {number | null} the index in `accepts[]` of the refused offer, when one */
    this.offer = offer;
    /** @type {Preflight | null} agentrep's answer (null when it was unavailable) */
    this.preflight = preflight;
  }
}

/**
 * The guard's refusal behind an error a transport raised: the error itself, or, when a transport
 * rewrapped it in a plain Error (`@x402/fetch` does for errors raised while creating the payment:
 * "Failed to create payment payload: …"), a refusal rebuilt from its message (without `preflight`).
 * @param {unknown} error
 * @returns {X402GuardRefusal | null}
 */
export function refusalFrom(error) {
  if (error instanceof X402GuardRefusal) return error;
  const message = error instanceof Error ? error.message : typeof error === 'string' ? error : '';
  const at = message.indexOf(MARK);
  if (at < 0) return null;
  const m = /^ (?:for (\S+) )?\[([a-z_]+)\]: ([\s\S]*)$/.exec(message.slice(at + MARK.length));
  if (!m) return null;
  return new X402GuardRefusal(/** @type {RefusalCode} */ (m[2]), m[3], { url: m[1] ?? null });
}

/**
 * Guards an official x402 client: before it signs, agentrep's URL preflight is asked about the URL
 * and the 402, and the payment is refused (an {@link X402GuardRefusal}) when the answer says so.
 *
 * Pass an `x402HTTPClient` (from `@x402/fetch` or `@x402/core/client`) wrapping your `x402Client`
 * to have the preflight asked about the URL actually requested and refusals thrown as
 * `X402GuardRefusal` by `wrapFetchWithPayment`; pass the `x402Client` itself and the preflight is
 * asked about the URL the 402 names (`resource.url`, v1 `accepts[].resource`), from the hook that
 * runs before signing, and @x402/fetch reports a refusal as a plain Error (see {@link refusalFrom}).
 *
 * @template {object} C
 * @param {C} client  An `x402Client` or an `x402HTTPClient`; returned guarded.
 * @param {GuardOptions} options
 * @returns {C}
 */
export function guardX402Client(client, options) {
  const opts = normalizeOptions(options);
  const anyClient = /** @type {any} */ (client);
  const http = typeof anyClient?.onPaymentRequired === 'function' ? anyClient : null;
  // x402HTTPClient keeps the x402Client it wraps in `client` (a TypeScript-private field).
  const core = http ? anyClient.client : anyClient;
  if (!core || typeof core.registerPolicy !== 'function' || typeof core.onBeforePaymentCreation !== 'function') {
    throw new TypeError('guardX402Client: expected an x402Client or an x402HTTPClient from @x402/core 2.x');
  }

  /** @type {WeakMap<object, Verdict>} the 402 (as decoded, one per response) → its verdict */
  const verdicts = new WeakMap();
  /** @type {WeakMap<object, { verdict: Verdict, index: number }>} an offer of that 402 → its verdict */
  const offers = new WeakMap();
  /** @param {any} paymentRequired @param {Verdict} verdict */
  const remember = (paymentRequired, verdict) => {
    verdicts.set(paymentRequired, verdict);
    (Array.isArray(paymentRequired?.accepts) ? paymentRequired.accepts : []).forEach((offer, index) => {
      if (offer && typeof offer === 'object') offers.set(offer, { verdict, index });
    });
  };

  if (http) {
    http.onPaymentRequired(async (/** @type {{ paymentRequired: any, requestUrl: string }} */ { paymentRequired, requestUrl }) => {
      remember(paymentRequired, await judge(opts, paymentRequired, requestUrl || urlNamedBy(paymentRequired, null)));
      // Nothing to return: the client goes on to pay (within the policy below).
    });
  }

  core.registerPolicy((/** @type {number} */ _version, /** @type {any[]} */ requirements) => {
    /** @type {Verdict | null} */
    let verdict = null;
    const kept = requirements.filter((offer) => {
      const known = offers.get(offer);
      if (!known) return true; // not judged yet: the hook before signing judges it
      verdict = known.verdict;
      return known.verdict.allowAll || !known.verdict.reasons[known.index];
    });
    if (kept.length === 0 && verdict) {
      const v = /** @type {Verdict} */ (verdict);
      throw refuseOffers(v, requirements.map((offer) => /** @type {number} */ (offers.get(offer)?.index)));
    }
    return kept;
  });

  core.onBeforePaymentCreation(async (/** @type {{ paymentRequired: any, selectedRequirements: any }} */ { paymentRequired, selectedRequirements }) => {
    let verdict = verdicts.get(paymentRequired);
    if (!verdict) {
      verdict = await judge(opts, paymentRequired, urlNamedBy(paymentRequired, selectedRequirements));
      remember(paymentRequired, verdict);
    }
    if (verdict.allowAll) return;
    const index = indexOfOffer(paymentRequired.accepts, selectedRequirements);
    if (index < 0) {
      throw new X402GuardRefusal('not_acceptable', 'the offer the client chose is not one of the 402 as received', {
        url: verdict.url,
        preflight: verdict.preflight,
      });
    }
    const refusal = verdict.reasons[index];
    if (refusal) throw new X402GuardRefusal(refusal.code, refusal.reason, { url: verdict.url, offer: index, preflight: verdict.preflight });
    if (opts.trust) {
      const evaluation = await askTrust(opts, selectedRequirements, verdict.url);
      if (evaluation?.decision === 'FAIL') {
        throw new X402GuardRefusal('trust_fail', `agentrep's trust-provider answer for payee ${selectedRequirements?.payTo} is FAIL (${evaluation.reason_code ?? 'no reason given'})`, {
          url: verdict.url,
          offer: index,
          preflight: verdict.preflight,
        });
      }
    }
  });

  return client;
}

/**
 * Asks agentrep's trust-provider answer (`POST {base}/trust/evaluate`, direction `seller`) about the
 * payee of the chosen offer, for its amount and URL; null when it cannot be asked (the preflight,
 * asked first, has judged the offer already, so an older deployment without the route pays as before).
 * @param {Options} opts @param {any} offer @param {string | null} url
 * @returns {Promise<any | null>}
 */
async function askTrust(opts, offer, url) {
  const value = usdcAmount(offer);
  const query = {
    schema: 'x402-trust-query-v0.1',
    direction: 'seller',
    subject: { wallet: offer?.payTo, chain: offer?.network },
    resource: { ...(url ? { url } : {}), ...(value ? { amount: { value, currency: 'USDC', chain: offer?.network } } : {}) },
  };
  try {
    const res = await opts.fetch(`${opts.base}/trust/evaluate`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify(query),
      signal: AbortSignal.timeout(opts.timeoutMs),
    });
    return res.ok ? await res.json() : null;
  } catch {
    return null;
  }
}

/**
 * Asks agentrep's URL preflight once (no cache).
 * @param {string} base  The API base, e.g. `http://127.0.0.1:8080/api/agent`.
 * @param {string} url  The URL about to be paid.
 * @param {object | null} [paymentRequired]  The 402 as received (v2 PaymentRequired or v1 body).
 * @param {{ fetch?: typeof fetch, timeoutMs?: number }} [options]
 * @returns {Promise<{ preflight: Preflight } | { unavailable: string }>}
 */
export async function askPreflight(base, url, paymentRequired = null, { fetch: fetchImpl = globalThis.fetch, timeoutMs = 3000 } = {}) {
  const endpoint = `${String(base).replace(/\/+$/, '')}/preflight`;
  const body = paymentRequired ? { url, paymentRequired } : { url };
  let text;
  let status;
  try {
    const res = await fetchImpl(endpoint, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(timeoutMs),
    });
    status = res.status;
    text = await res.text();
  } catch (e) {
    const why = e instanceof Error && (e.name === 'TimeoutError' || e.name === 'AbortError') ? `no answer within ${timeoutMs} ms` : errorText(e);
    return { unavailable: `agentrep preflight ${endpoint} unavailable: ${why}` };
  }
  /** @type {any} */
  let json = null;
  try {
    json = JSON.parse(text);
  } catch {
    // reported below
  }
  if (status !== 200) {
    const err = json?.error;
    const detail = err && typeof err === 'object' ? `${err.code ?? 'error'}: ${err.message ?? ''}`.trim() : text.slice(0, 200);
    return { unavailable: `agentrep preflight ${endpoint} answered HTTP ${status}${detail ? ` (${detail})` : ''}` };
  }
  if (!json || typeof json !== 'object' || json.version !== PREFLIGHT_VERSION || !DECISIONS.has(json.decision)) {
    return { unavailable: `agentrep preflight ${endpoint} answered something other than ${PREFLIGHT_VERSION}` };
  }
  return { preflight: /** @type {Preflight} */ (json) };
}

/**
 * The guard's reading of one preflight answer for one 402.
 * @typedef {object} Verdict
 * @property {string} url
 * @property {Preflight | null} preflight
 * @property {boolean} allowAll  the preflight was unavailable and `onUnavailable` is "allow"
 * @property {Array<{ code: RefusalCode, reason: string } | null>} reasons  why each offer (by index) may not be paid; null: it may
 */

/**
 * Asks the preflight and reads it; throws the refusal of the whole 402.
 * @param {Options} opts
 * @param {any} paymentRequired
 * @param {string | null} url
 * @returns {Promise<Verdict>}
 */
async function judge(opts, paymentRequired, url) {
  if (!url) {
    return unavailable(opts, 'cannot tell which URL is being paid (the 402 names none)', '');
  }
  const asked = await askPreflight(opts.base, url, paymentRequired, opts);
  if ('unavailable' in asked) return unavailable(opts, asked.unavailable, url);
  const verdict = evaluate(opts, asked.preflight, paymentRequired, url);
  if (verdict.reasons.length > 0 && verdict.reasons.every(Boolean)) {
    throw refuseOffers(verdict, verdict.reasons.map((_, i) => i));
  }
  return verdict;
}

/** @param {Options} opts @param {string} why @param {string} url @returns {Verdict} */
function unavailable(opts, why, url) {
  if (opts.onUnavailable === 'allow') return { url, preflight: null, allowAll: true, reasons: [] };
  throw new X402GuardRefusal('unavailable', `${why}; onUnavailable is "refuse"`, { url: url || null });
}

const RANK = { block: 0, decoy: 0, price_trap: 0, over_listing: 1, caution: 2, low_value: 2, not_acceptable: 3 };

/**
 * What `onLowValue: "cap"` (the default) pays at most on PROCEED_LOW_VALUE when agentrep states no
 * listed amount for the offer: 100000 atomic units (0.10 USDC).
 */
export const LOW_VALUE_DEFAULT_CAP = 100000n;

/** Decisions, worst first. */
const ORDER = ['BLOCK', 'CAUTION', 'PROCEED_LOW_VALUE', 'PROCEED'];

/** @param {string} a @param {string} b */
const lowerOf = (a, b) => (ORDER.indexOf(a) <= ORDER.indexOf(b) ? a : b);

/**
 * The refusal of a 402 none of whose `indexes` may be paid: the gravest reason (first offer on ties).
 * @param {Verdict} verdict @param {number[]} indexes
 */
function refuseOffers(verdict, indexes) {
  const refused = indexes
    .filter((i) => Number.isInteger(i) && verdict.reasons[i])
    .map((i) => ({ index: i, ...(/** @type {{ code: RefusalCode, reason: string }} */ (verdict.reasons[i])) }));
  if (refused.length === 0) {
    return new X402GuardRefusal('not_acceptable', 'no offer of the 402 may be paid', { url: verdict.url, preflight: verdict.preflight });
  }
  const worst = refused.reduce((a, b) => (rank(b.code) < rank(a.code) ? b : a));
  const reason = refused.length === 1 ? worst.reason : refused.map((r) => `offer ${r.index}: ${r.reason}`).join('; ');
  return new X402GuardRefusal(worst.code, reason, { url: verdict.url, offer: worst.index, preflight: verdict.preflight });
}

/** @param {string} code */
const rank = (code) => /** @type {Record<string, number>} */ (RANK)[code] ?? 9;

/**
 * Whether agentrep's judged offer is the very offer of the 402 (scheme, network, asset, payTo and
 * amount): the guard pays only what was judged.
 * @param {any} judged @param {any} offer @param {string} amountText
 */
function sameOffer(judged, offer, amountText) {
  const low = (/** @type {unknown} */ v) => String(v ?? '').toLowerCase();
  return (
    low(judged.scheme) === low(offer?.scheme) &&
    String(judged.network ?? '') === String(offer?.network ?? '') &&
    low(judged.asset) === low(offer?.asset) &&
    low(judged.payTo) === low(offer?.payTo) &&
    String(judged.amount ?? '') === amountText
  );
}

/**
 * Reads a preflight answer against the 402's offers, one by one: each offer may be paid only when
 * agentrep judged that very offer (same scheme, network, asset, payTo and amount), could judge it
 * (a scheme or network it cannot read lends nobody's standing), warns of no trap in it, asks no
 * more than its listing, and its own decision (its payee's, lowered by the warnings about it and
 * about the URL) passes the policy. Throws the refusal of the whole 402 for a decoy or price trap
 * not tied to one offer; returns the per-offer reasons otherwise.
 * @param {Options} opts @param {Preflight} preflight @param {any} paymentRequired @param {string} url
 * @returns {Verdict}
 */
function evaluate(opts, preflight, paymentRequired, url) {
  const version = paymentRequired?.x402Version;
  /** @type {any[]} */
  const accepts = Array.isArray(paymentRequired?.accepts) ? paymentRequired.accepts : [];
  /** @type {any[]} */
  const warnings = Array.isArray(preflight.warnings) ? preflight.warnings.filter((w) => w && typeof w === 'object') : [];
  const refuse = (/** @type {RefusalCode} */ code, /** @type {string} */ reason) => new X402GuardRefusal(code, reason, { url, preflight });

  // 1. Decoys and price traps not tied to one offer refuse the whole 402.
  for (const w of warnings) {
    if ((w.code === 'decoy' || w.code === 'price_trap') && !Number.isInteger(w.offer)) {
      throw refuse(w.code, `agentrep warns (${w.code}): ${w.message}`);
    }
  }
  // 2. What the warnings about the URL (not one offer) leave of every offer's decision.
  let urlDecision = 'PROCEED';
  for (const w of warnings.filter((w) => !Number.isInteger(w.offer))) {
    if (w.severity === 'block') urlDecision = 'BLOCK';
    else if (w.severity === 'caution') urlDecision = lowerOf(urlDecision, 'CAUTION');
  }
  /** @type {any[]} */
  const assessed = Array.isArray(preflight.offers) ? preflight.offers.filter((o) => o && typeof o === 'object') : [];
  // An agentrep older than per-offer decisions: every offer gets the answer's decision.
  const perOffer = assessed.some((o) => DECISIONS.has(o.decision));
  let statedCap = null;
  if (preflight.maxAmount != null) {
    statedCap = atomic(preflight.maxAmount);
    if (statedCap === null) return unavailable(opts, `agentrep's maxAmount ${JSON.stringify(preflight.maxAmount)} is not an atomic amount`, url);
  }

  // 3. Per offer.
  const reasons = accepts.map((offer, index) => {
    const amountText = String((version === 1 ? offer?.maxAmountRequired : offer?.amount) ?? offer?.amount ?? offer?.maxAmountRequired ?? '');
    const amount = atomic(amountText);
    const described = `payTo ${offer?.payTo}, ${offer?.scheme} on ${offer?.network}, asset ${offer?.asset}, amount ${amountText}`;
    const no = (/** @type {RefusalCode} */ code, /** @type {string} */ reason) => ({ code, reason });
    const judged = assessed.find((o) => o.index === index);
    if (!judged) return no('not_acceptable', `agentrep did not judge the offer (${described})`);
    if (!sameOffer(judged, offer, amountText)) {
      return no('not_acceptable', `agentrep judged another offer at index ${index} than the 402's (${described})`);
    }
    if (judged.payable === false) {
      return no('not_acceptable', `agentrep cannot judge ${offer?.scheme} on ${offer?.network}: no wallet's standing covers it (${described})`);
    }
    const mine = warnings.filter((w) => w.offer === index);
    const trap = mine.find((w) => w.code === 'decoy' || w.code === 'price_trap');
    if (trap) return no(trap.code, `agentrep warns (${trap.code}): ${trap.message}`);
    const decision = lowerOf(perOffer && DECISIONS.has(judged.decision) ? judged.decision : preflight.decision, urlDecision);
    const payee = `${sellerText(preflight, judged.payTo)}`;
    if (decision === 'BLOCK') {
      const said = warnings.filter((w) => w.severity === 'block' && (w.offer === index || !Number.isInteger(w.offer))).map((w) => w.message);
      return no('block', `agentrep's decision for the offer is BLOCK${payee}${said.length ? `: ${said.join('; ')}` : ''}`);
    }
    // The listed amount: the offer's own listing, else what the answer states for its payee.
    const payeeCap = String(judged.payTo ?? '').toLowerCase() === String(preflight.payTo ?? '').toLowerCase() ? statedCap : null;
    const listingCap = judged.listedPrice != null ? atomic(judged.listedPrice) : payeeCap;
    if (listingCap !== null && (amount === null || amount > listingCap)) {
      return no('over_listing', `the offer asks ${amountText || 'an unreadable amount'}, more than the listing allows (maxAmount ${listingCap})`);
    }
    if (preflight.listed === true && judged.acceptable !== true) {
      const said = mine.filter((w) => w.severity !== 'info').map((w) => w.message);
      return no('not_acceptable', `the offer (${described}) does not match the listing: ${said.length ? said.join('; ') : 'agentrep marks it not acceptable'}`);
    }
    if (decision === 'CAUTION' || decision === 'PROCEED_LOW_VALUE') {
      const caution = decision === 'CAUTION';
      const [code, name, policy] = caution ? ['caution', 'onCaution', opts.onCaution] : ['low_value', 'onLowValue', opts.onLowValue];
      const said = warnings.filter((w) => w.severity !== 'info' && (w.offer === index || !Number.isInteger(w.offer))).map((w) => w.message);
      if (policy === 'refuse') {
        return no(/** @type {RefusalCode} */ (code), `agentrep's decision for the offer is ${decision}${payee}${said.length ? `: ${said.join('; ')}` : ''}; ${name} is "refuse"`);
      }
      const cap = typeof policy === 'object' ? policy.maxAmount : policy === 'cap' ? (listingCap ?? LOW_VALUE_DEFAULT_CAP) : null;
      if (cap !== null && (amount === null || amount > cap)) {
        return no(
          /** @type {RefusalCode} */ (code),
          `agentrep's decision for the offer is ${decision}${payee} and it asks ${amountText || 'an unreadable amount'}, above the ${name} cap ${cap}`,
        );
      }
    }
    return null;
  });
  return { url, preflight, allowAll: false, reasons };
}

/** The judged payee in words, when it is the answer's seller. @param {Preflight} p @param {unknown} payTo */
function sellerText(p, payTo) {
  const s = p.seller;
  if (!s || typeof s !== 'object') return payTo ? ` for payee ${payTo}` : '';
  if (payTo && String(s.address ?? '').toLowerCase() !== String(payTo).toLowerCase()) return ` for payee ${payTo}`;
  const bits = [];
  if (s.verdict) bits.push(`verdict ${s.verdict}`);
  if (s.score != null) bits.push(`score ${s.score}`);
  bits.push(Array.isArray(s.flags) && s.flags.length ? `flags: ${s.flags.join(', ')}` : 'no flags');
  return ` for seller ${s.address ?? p.payTo ?? '?'} (${bits.join(', ')})`;
}

/**
 * The URL the 402 says is paid: v2 `resource.url`, v1 the chosen (else first) offer's `resource`.
 * @param {any} paymentRequired @param {any} selected
 * @returns {string | null}
 */
function urlNamedBy(paymentRequired, selected) {
  const candidates = [paymentRequired?.resource?.url, selected?.resource, paymentRequired?.accepts?.[0]?.resource];
  return candidates.find((u) => typeof u === 'string' && u.length > 0) ?? null;
}

/** @param {any[]} accepts @param {any} chosen */
function indexOfOffer(accepts, chosen) {
  if (!Array.isArray(accepts)) return -1;
  const same = accepts.indexOf(chosen);
  if (same >= 0) return same;
  const key = (/** @type {any} */ o) =>
    JSON.stringify([o?.scheme, o?.network, String(o?.asset ?? '').toLowerCase(), String(o?.payTo ?? '').toLowerCase(), o?.amount ?? o?.maxAmountRequired]);
  return accepts.findIndex((o) => key(o) === key(chosen));
}

/** @param {unknown} value @returns {bigint | null} */
function atomic(value) {
  if (typeof value === 'bigint') return value >= 0n ? value : null;
  if (typeof value === 'number') return Number.isSafeInteger(value) && value >= 0 ? BigInt(value) : null;
  if (typeof value === 'string' && /^\d+$/.test(value)) return BigInt(value);
  return null;
}

/** @param {unknown} e */
function errorText(e) {
  if (!(e instanceof Error)) return String(e);
  const cause = /** @type {any} */ (e).cause;
  return cause instanceof Error ? `${e.message} (${cause.message})` : e.message;
}

/**
 * @typedef {object} Options
 * @property {string} base
 * @property {'refuse' | { maxAmount: bigint }} onCaution
 * @property {'cap' | 'allow' | 'refuse' | { maxAmount: bigint }} onLowValue
 * @property {'refuse' | 'allow'} onUnavailable
 * @property {number} timeoutMs
 * @property {typeof fetch} fetch
 * @property {boolean} trust
 */

/** @param {GuardOptions} options @returns {Options} */
function normalizeOptions(options) {
  const o = options ?? /** @type {GuardOptions} */ ({});
  if (typeof o.agentrep !== 'string' || !/^https?:\/\//.test(o.agentrep)) {
    throw new TypeError('guardX402Client: options.agentrep must be the agentrep API base URL (http(s)://…)');
  }
  /** @param {string} name @param {unknown} value @param {string[]} words */
  const policy = (name, value, words) => {
    if (typeof value === 'string' && words.includes(value)) return value;
    if (value && typeof value === 'object' && 'maxAmount' in value) {
      const cap = atomic(/** @type {any} */ (value).maxAmount);
      if (cap !== null) return { maxAmount: cap };
    }
    throw new TypeError(`guardX402Client: options.${name} must be ${words.map((w) => `"${w}"`).join(' or ')} or { maxAmount: <atomic units> }`);
  };
  const onUnavailable = o.onUnavailable ?? 'refuse';
  if (onUnavailable !== 'refuse' && onUnavailable !== 'allow') {
    throw new TypeError('guardX402Client: options.onUnavailable must be "refuse" or "allow"');
  }
  const timeoutMs = o.timeoutMs ?? 3000;
  if (!Number.isFinite(timeoutMs) || timeoutMs <= 0) throw new TypeError('guardX402Client: options.timeoutMs must be a positive number');
  const fetchImpl = o.fetch ?? globalThis.fetch;
  if (typeof fetchImpl !== 'function') throw new TypeError('guardX402Client: no fetch available for the preflight (pass options.fetch)');
  return {
    base: o.agentrep.replace(/\/+$/, ''),
    onCaution: /** @type {any} */ (policy('onCaution', o.onCaution ?? 'refuse', ['refuse'])),
    onLowValue: /** @type {any} */ (policy('onLowValue', o.onLowValue ?? 'cap', ['cap', 'allow', 'refuse'])),
    onUnavailable,
    timeoutMs,
    fetch: fetchImpl,
    trust: o.trust ?? true,
  };
}
