import type { Keypair } from '@stellar/stellar-sdk';
import { isAgentApiError, signPreparedTrade, submitTrade, type AgentClient, type PreparedTrade } from '@dobprotocol/agent-client';
import { describePolicy, evaluatePolicy, type PolicyDecision, type SpendingPolicy, type TradeFacts } from '../policy/spending-policy';
import { formatDecimal } from '../policy/decimal';
import type { SpendLedger } from '../policy/spend-ledger';
import { tradeFacts } from './transaction-facts';

const DAY_MS = 86_400_000;
/** Prepared transactions kept for sign_and_submit; they expire after 10 minutes anyway. */
const MAX_REMEMBERED = 200;
/** Refusals that prove the transaction was not applied: nothing was spent. */
const NOT_APPLIED = new Set([
  'VALIDATION_ERROR',
  'TRANSACTION_EXPIRED',
  'TRANSACTION_FAILED',
  'CONFLICT',
  'INSUFFICIENT_SCOPE',
  'INVALID_API_KEY',
  'MISSING_API_KEY',
  'RATE_LIMIT_EXCEEDED',
]);

/** The signer said no; the message says which limit and by how much. */
export class SignerRefusal extends Error {
  override readonly name = 'SignerRefusal';
}

/**
 * The optional local signer of the MCP server: a secret key that never leaves this process, signing only
 * transactions this process prepared itself (by hash, so a tool caller cannot slip in another envelope), and only
 * within the spending policy a person set. Sign-and-submit runs one at a time, so two concurrent buys cannot both
 * fit under the same remaining daily allowance; every spend is written to the ledger before the answer.
 */
export class LocalSigner {
  private readonly prepared = new Map<string, { trade: PreparedTrade; facts: TradeFacts }>();
  private queue: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly keypair: Keypair,
    private readonly policy: SpendingPolicy,
    private readonly ledger: SpendLedger,
    private readonly now: () => Date = () => new Date(),
  ) {}

  get wallet(): string {
    return this.keypair.publicKey();
  }

  get signingKey(): Keypair {
    return this.keypair;
  }

  /** Keeps a prepared trade for sign_and_submit and says whether the policy would sign it now. */
  remember(trade: PreparedTrade): { facts: TradeFacts; decision: PolicyDecision } {
    const facts = tradeFacts(trade);
    this.prepared.set(trade.hash, { trade, facts });
    while (this.prepared.size > MAX_REMEMBERED) this.prepared.delete(this.prepared.keys().next().value!);
    return { facts, decision: this.decide(facts) };
  }

  status(): Record<string, unknown> {
    const spent = this.ledger.spentSince(new Date(this.now().getTime() - DAY_MS));
    return { wallet: this.wallet, policy: describePolicy(this.policy), spent_last_24h: Object.fromEntries([...spent].map(([t, v]) => [t, formatDecimal(v)])) };
  }

  signAndSubmit(client: AgentClient, preparedId: string): Promise<{ trade: PreparedTrade; result: unknown }> {
    const run = this.queue.then(() => this.signAndSubmitNow(client, preparedId));
    this.queue = run.catch(() => undefined);
    return run;
  }

  private decide(facts: TradeFacts): PolicyDecision {
    return evaluatePolicy(this.policy, facts, this.ledger.spentSince(new Date(this.now().getTime() - DAY_MS)));
  }

  private async signAndSubmitNow(client: AgentClient, preparedId: string): Promise<{ trade: PreparedTrade; result: unknown }> {
    const entry = this.prepared.get(preparedId);
    if (!entry)
      throw new SignerRefusal(
        `No transaction ${preparedId} was prepared by this server: call a prepare_* tool first and pass its prepared_id. The local signer signs nothing else.`,
      );
    const { trade, facts } = entry;
    if (Date.parse(trade.expiresAt) <= this.now().getTime()) {
      this.prepared.delete(preparedId);
      throw new SignerRefusal(`Prepared transaction ${preparedId} expired at ${trade.expiresAt}; prepare it again.`);
    }
    const decision = this.decide(facts);
    if (!decision.allowed) throw new SignerRefusal(decision.reason);

    const signed = signPreparedTrade(trade, this.keypair);
    this.prepared.delete(preparedId);
    try {
      const result = await submitTrade(client, trade.kind, signed, trade.networkId);
      this.recordSpend(facts, trade.hash, 'submitted');
      return { trade, result };
    } catch (e) {
      // Unknown outcome (network down, 5xx): the transaction may be on chain, so it counts against the limit.
      if (!(isAgentApiError(e) && NOT_APPLIED.has(e.code))) this.recordSpend(facts, trade.hash, 'uncertain');
      throw e;
    }
  }

  private recordSpend(facts: TradeFacts, hash: string, status: 'submitted' | 'uncertain'): void {
    if (facts.spend) this.ledger.record({ at: this.now(), token: facts.spend.token, amount: facts.spend.amount, hash, status });
  }
}
