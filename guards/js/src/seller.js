// @agentrep/x402-guard/seller: asks agentrep about the payer (`POST {base}/trust/evaluate`, the x402
// trust-provider protocol, direction `buyer`) before the official x402 resource server
// (`@x402/core/server`'s `x402ResourceServer`) verifies a payment, and refuses payers agentrep
// answers `FAIL` for: the facilitator is never asked to verify or settle their payments.
//
// It registers one `onBeforeVerify` hook on the server it is given and imports nothing from @x402/*.

/** Abort reason when agentrep answers FAIL (the trust-provider drafts' name). */
export const TRUST_FAILED = 'trust_evaluation_failed';
/** Abort reason when agentrep answers UNCERTAIN and `onUncertain` is "refuse". */
export const TRUST_UNCERTAIN = 'trust_evaluation_uncertain';
/** Abort reason when agentrep could not be asked and `failMode` is "closed". */
export const TRUST_UNAVAILABLE = 'trust_evaluation_unavailable';

const DECISIONS = new Set(['PASS', 'FAIL', 'UNCERTAIN']);
/** USDC contracts whose atomic amounts have 6 decimals: Base, Base Sepolia. */
const USDC = new Set(['0x833589fcd6edb6e08f4c7c32d4f71b54bda02913', '0x036cbd53842c5426634e7929541ec2318f3dcf7e']);

/**
 * @typedef {object} SellerGuardOptions
 * @property {string} agentrep  The agentrep API base, e.g. `https://agentrep.example/api/agent`.
 * @property {'closed' | 'open'} [failMode]  When agentrep cannot be asked in time: refuse the payment
 *   ("closed", default, the drafts' recommendation) or accept it unchecked ("open").
 * @property {'allow' | 'refuse'} [onUncertain]  On UNCERTAIN (an unseen payer, a payer with no record):
 *   accept (default: a new customer is not a bad one) or refuse.
 * @property {number} [timeoutMs]  Time budget for agentrep's answer, default 1000.
 * @property {number} [cacheSize]  Answers kept per payer until their `expires_at`, default 10000.
 * @property {typeof fetch} [fetch]  The fetch agentrep is asked with (default `globalThis.fetch`).
 * @property {() => number} [now]  The clock, milliseconds (default `Date.now`).
 */

/**
 * The paying wallet of a payment payload: the EIP-3009 authorization's `from`, a Permit2
 * authorization's `from`, or the payload's `payer`.
 * @param {any} payload
 * @returns {string | null}
 */
export function payerOf(payload) {
  const p = payload?.payload ?? {};
  const from = p.authorization?.from ?? p.permit2Authorization?.from ?? p.permit?.owner ?? payload?.payer ?? null;
  return typeof from === 'string' && /^0x[0-9a-fA-F]{40}$/.test(from) ? from.toLowerCase() : null;
}

/**
 * The amount of a payment's requirements in whole USDC (the drafts' `value`), or null for another asset.
 * @param {any} requirements
 * @returns {string | null}
 */
export function usdcAmount(requirements) {
  const atomic = requirements?.amount ?? requirements?.maxAmountRequired;
  const asset = typeof requirements?.asset === 'string' ? requirements.asset.toLowerCase() : '';
  if (!USDC.has(asset) || !/^\d+$/.test(String(atomic ?? ''))) return null;
  const digits = String(atomic).padStart(7, '0');
  const whole = digits.slice(0, -6).replace(/^0+(?=\d)/, '');
  const frac = digits.slice(-6).replace(/0+$/, '');
  return frac ? `${whole}.${frac}` : whole;
}

/**
 * Guards an official x402 resource server: before it verifies a payment, agentrep is asked about
 * the payer, and a `FAIL` aborts verification (`trust_evaluation_failed`), so nothing is settled.
 *
 * @template {object} S
 * @param {S} server  An `x402ResourceServer` from `@x402/core/server` 2.x; returned guarded.
 * @param {SellerGuardOptions} options
 * @returns {S}
 */
export function guardX402ResourceServer(server, options) {
  const anyServer = /** @type {any} */ (server);
  if (!anyServer || typeof anyServer.onBeforeVerify !== 'function') {
    throw new TypeError('guardX402ResourceServer: expected an x402ResourceServer from @x402/core/server 2.x');
  }
  const ask = trustAsker(options);
  anyServer.onBeforeVerify(async (/** @type {any} */ context) => {
    const verdict = await ask(context.paymentPayload, context.requirements);
    if (verdict.accept) return undefined;
    return { abort: true, reason: verdict.reason, message: verdict.message };
  });
  return server;
}

/**
 * The check the hook runs, usable on its own (another server's hook, a test): asks about the payer
 * of `payload` and says whether to accept it.
 * @param {SellerGuardOptions} options
 * @returns {(payload: any, requirements: any) => Promise<{ accept: boolean, reason?: string, message?: string, evaluation?: any }>}
 */
export function trustAsker(options) {
  if (!options || typeof options.agentrep !== 'string' || !/^https?:\/\//.test(options.agentrep)) {
    throw new TypeError('the seller guard needs `agentrep`: the API base URL, e.g. https://agentrep.example/api/agent');
  }
  const base = options.agentrep.replace(/\/+$/, '');
  const failMode = options.failMode ?? 'closed';
  const onUncertain = options.onUncertain ?? 'allow';
  const timeoutMs = options.timeoutMs ?? 1000;
  const cacheSize = options.cacheSize ?? 10_000;
  const doFetch = options.fetch ?? globalThis.fetch;
  const now = options.now ?? Date.now;
  /** @type {Map<string, { evaluation: any, until: number }>} */
  const cache = new Map();

  const unavailable = (/** @type {string} */ why) =>
    failMode === 'open'
      ? { accept: true }
      : { accept: false, reason: TRUST_UNAVAILABLE, message: `agentrep could not be asked about the payer: ${why}` };

  return async (payload, requirements) => {
    const payer = payerOf(payload);
    if (!payer) return unavailable('the payment names no paying wallet agentrep can read');
    const value = usdcAmount(requirements);
    const key = `${payer} ${requirements?.network ?? ''}`;
    let hit = cache.get(key);
    if (hit && hit.until <= now()) {
      cache.delete(key);
      hit = undefined;
    }
    let evaluation = hit?.evaluation;
    if (!evaluation) {
      const query = {
        schema: 'x402-trust-query-v0.1',
        direction: 'buyer',
        payer: { wallet: payer },
        resource: {
          ...(payload?.resource?.url ? { url: payload.resource.url } : {}),
          ...(value ? { amount: { value, currency: 'USDC', chain: requirements?.network ?? 'eip155:8453' } } : {}),
        },
        requested_at: new Date(now()).toISOString(),
      };
      try {
        const res = await doFetch(`${base}/trust/evaluate`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(query),
          signal: AbortSignal.timeout(timeoutMs),
        });
        if (!res.ok) return unavailable(`HTTP ${res.status}`);
        evaluation = await res.json();
      } catch (error) {
        return unavailable(error instanceof Error ? error.message : String(error));
      }
      if (!DECISIONS.has(evaluation?.decision)) return unavailable('an answer without a decision');
      const until = Date.parse(evaluation.expires_at);
      if (Number.isFinite(until) && until > now()) {
        if (cache.size >= cacheSize) cache.delete(cache.keys().next().value);
        cache.set(key, { evaluation, until });
      }
    }
    const why = `agentrep answers ${evaluation.decision} (${evaluation.reason_code ?? 'no reason given'}) for payer ${payer}`;
    if (evaluation.decision === 'FAIL') return { accept: false, reason: TRUST_FAILED, message: why, evaluation };
    if (evaluation.decision === 'UNCERTAIN' && onUncertain === 'refuse') {
      return { accept: false, reason: TRUST_UNCERTAIN, message: why, evaluation };
    }
    return { accept: true, evaluation };
  };
}
