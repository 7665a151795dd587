import type { Keypair } from '@stellar/stellar-sdk';
import { isAgentApiError, signPreparedTrade, submitTrade, type AgentClient, type PreparedTrade } from '@dobprotocol/agent-client';
import { describePolicy, evaluatePolicy, type PolicyDecision, type SpendingPolicy } from '../policy/spending-policy';
import { formatDecimal } from '../policy/decimal';
import type { SpendLedger, SpendRecord } from '../policy/spend-ledger';
import { SignerRefusal } from './signer-refusal';
import type { SignerSettings } from './signer-settings';
import { tradeFacts } from './transaction-facts';

export { SignerRefusal } from './signer-refusal';

const DAY_MS = 86_400_000;
/** Prepared transactions kept for sign_and_submit; they expire after 10 minutes anyway. */
const MAX_REMEMBERED = 200;
/**
 * Refusals that prove the transaction was not applied: nothing was spent. Only the submit handler's own verdicts on
 * the envelope count, because the handler answers for every copy of it (an earlier attempt's outcome is replayed,
 * TRANSACTION_EXPIRED only for a row never claimed): docs/trading.md, "Submit state machine". Not CONFLICT: a 409
 * "already submitted" or "being submitted" means a copy may be on its way to the chain. Not the request gate's
 * 429/401/403 (RATE_LIMIT_EXCEEDED, INVALID_API_KEY, MISSING_API_KEY, INSUFFICIENT_SCOPE): they prove only that the
 * last request did nothing, and submitTrade and the client resend after a lost answer, a timeout or a 503, so an
 * earlier attempt may have been sent to the chain; releasing then would let a retry pass the daily limit.
 */
const NOT_APPLIED = new Set(['VALIDATION_ERROR', 'TRANSACTION_EXPIRED', 'TRANSACTION_FAILED']);

/**
 * The optional local signer of the MCP server: a secret key that never leaves this process, signing only
 * transactions this process prepared itself (by hash, so a tool caller cannot slip in another envelope), and only
 * within the spending policy a person set, judged on what the envelope itself moves (envelope-audit.ts), never on
 * the API's words. The spend is reserved in the ledger — under a lock shared by every process on the state folder —
 * before the transaction is sent, and released only when the API or the chain proves it was not applied.
 */
export class LocalSigner {
  private readonly prepared = new Map<string, PreparedTrade>();
  private queue: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly keypair: Keypair,
    private readonly policy: SpendingPolicy,
    private readonly ledger: SpendLedger,
    private readonly settings: SignerSettings,
    private readonly now: () => Date = () => new Date(),
  ) {}

  get wallet(): string {
    return this.keypair.publicKey();
  }

  get signingKey(): Keypair {
    return this.keypair;
  }

  /** Keeps a prepared trade for sign_and_submit and says whether the signer would sign it now. */
  remember(trade: PreparedTrade): { decision: PolicyDecision } {
    this.prepared.set(trade.hash, trade);
    while (this.prepared.size > MAX_REMEMBERED) this.prepared.delete(this.prepared.keys().next().value!);
    try {
      return { decision: evaluatePolicy(this.policy, this.factsOf(trade), this.ledger.spentSince(this.dayAgo())) };
    } catch (e) {
      if (e instanceof SignerRefusal) return { decision: { allowed: false, reason: e.message } };
      throw e;
    }
  }

  status(): Record<string, unknown> {
    const spent = this.ledger.spentSince(this.dayAgo());
    return {
      wallet: this.wallet,
      network_passphrase: this.settings.networkPassphrase,
      tokens: Object.fromEntries([...this.settings.tokens].map(([address, t]) => [t.symbol, { contract: address, decimals: t.decimals }])),
      policy: describePolicy(this.policy),
      spent_last_24h: Object.fromEntries([...spent].map(([t, v]) => [t, formatDecimal(v)])),
    };
  }

  signAndSubmit(client: AgentClient, preparedId: string): Promise<{ trade: PreparedTrade; result: unknown }> {
    const run = this.queue.then(() => this.signAndSubmitNow(client, preparedId));
    this.queue = run.catch(() => undefined);
    return run;
  }

  private dayAgo(): Date {
    return new Date(this.now().getTime() - DAY_MS);
  }

  private factsOf(trade: PreparedTrade) {
    return tradeFacts(trade, this.wallet, this.settings, this.now().getTime());
  }

  private async signAndSubmitNow(client: AgentClient, preparedId: string): Promise<{ trade: PreparedTrade; result: unknown }> {
    const trade = this.prepared.get(preparedId);
    if (!trade)
      throw new SignerRefusal(
        `No transaction ${preparedId} was prepared by this server: call a prepare_* tool first and pass its prepared_id. The local signer signs nothing else.`,
      );
    const facts = this.factsOf(trade);
    if (facts.maxTime * 1000 <= this.now().getTime()) {
      this.prepared.delete(preparedId);
      throw new SignerRefusal(`Prepared transaction ${preparedId} expired at ${new Date(facts.maxTime * 1000).toISOString()}; prepare it again.`);
    }
    const at = this.now();
    const spends: SpendRecord[] = [...facts.spends].map(([token, amount]) => ({ at, token, amount, hash: trade.hash, status: 'sending' }));
    // Decided and reserved in one step under the ledger's lock: another process cannot spend the same allowance.
    this.ledger.reserve(this.dayAgo(), (spent) => {
      const decision = evaluatePolicy(this.policy, facts, spent);
      if (!decision.allowed) throw new SignerRefusal(decision.reason);
      return spends;
    });
    this.prepared.delete(preparedId);
    try {
      const result = await submitTrade(client, trade.kind, signPreparedTrade(trade, this.keypair), trade.networkId);
      return { trade, result };
    } catch (e) {
      // Only a refusal that proves nothing was applied gives the allowance back; an unknown outcome (network
      // down, timeout, 5xx, 409 already being submitted, a gate's 429/401/403 after a resend) may be on chain and
      // stays spent.
      if (isAgentApiError(e) && NOT_APPLIED.has(e.code)) for (const r of spends) this.ledger.record({ ...r, at: this.now(), status: 'released' });
      throw e;
    }
  }
}
