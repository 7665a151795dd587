import { TransactionBuilder, type Keypair, type Transaction } from '@stellar/stellar-sdk';

/** One trading request of the load: what it was, how it was answered, how long it took. */
export interface TradeSample {
  readonly at: number;
  readonly step: string;
  readonly status: number | 'refused' | 'timeout';
  readonly ms: number;
  readonly retryAfter: string | null;
  readonly code?: string;
}

export interface TradeAgent {
  readonly keypair: Keypair;
  readonly apiKey: string;
}

export interface TradeLoadOptions {
  /** The APIs' bases (`http://127.0.0.1:<port>/api/agent`); steps go to each in turn. */
  readonly apis: () => readonly string[];
  readonly passphrase: string;
  /** Holds participation tokens of `pool` (a V2 splitter): lists them, then cancels what is left. */
  readonly seller: TradeAgent;
  /** Funded with test USDC: buys from the seller's listing and contributes to `campaign`. */
  readonly buyer: TradeAgent;
  readonly pool: string;
  readonly campaign: string;
  /** Ms between steps. */
  readonly everyMs: number;
  /** The load's bound: requests over the whole run. */
  readonly maxRequests: number;
  /** While true, no step starts (a fault that needs the event store still). */
  readonly paused: () => boolean;
}

interface Answer {
  readonly status: number;
  readonly data?: Record<string, unknown>;
}

/**
 * The agents' trading through the API as an agent trades (issue 31's load): prepare → sign locally → submit, for a
 * listing (create), a buy of one share of it, its cancellation, and a crowdfunding contribution, in turn, one step
 * every `everyMs`. Every request is recorded (the suite judges the ones of each fault's window); a failed step is
 * tried again at its next turn (a listing that may exist is cancelled before the next is made).
 */
export class TradeLoad {
  readonly samples: TradeSample[] = [];
  /** Steps that went through (submit answered 200), by step. */
  readonly done: Record<string, number> = {};
  private running = false;
  private loop?: Promise<void>;
  private sale: string | undefined;
  private turn = 0;

  constructor(private readonly o: TradeLoadOptions) {}

  start(): void {
    this.running = true;
    this.loop = this.run();
  }

  async stop(): Promise<void> {
    this.running = false;
    await this.loop;
  }

  private async run(): Promise<void> {
    while (this.running && this.samples.length < this.o.maxRequests) {
      await new Promise((r) => setTimeout(r, this.o.everyMs));
      if (this.o.paused()) continue;
      await this.step().catch(() => undefined); // recorded in samples; the next turn tries again
    }
  }

  private async step(): Promise<void> {
    const { seller, buyer, pool, campaign } = this.o;
    const NET = 9;
    if (this.sale === undefined) {
      const listed = await this.trade('list', seller, {
        pool_address: pool,
        shares_amount: 10,
        price_per_share: '0.05',
        payment_token: 'USDC',
        network_id: NET,
      });
      // A listing may be left by a turn whose submit landed but whose answer was lost: found in the read API.
      this.sale = (listed.data?.sale_address as string | undefined) ?? (await this.listingOf(seller));
      return;
    }
    const kind = this.turn++ % 3;
    const outcome =
      kind === 0
        ? await this.trade('buy', buyer, { listing_id: this.sale, amount: 1, network_id: NET })
        : kind === 1
          ? await this.trade('contribute', buyer, { pool_address: campaign, amount: '1', network_id: NET }, 'crowdfunding')
          : await this.trade('cancel', seller, { listing_id: this.sale, network_id: NET });
    if (kind === 2 && outcome.data) this.sale = undefined;
    // Refused by the chain's state (e.g. a cancel whose answer was lost but which landed): the listing re-read.
    else if (kind !== 1 && outcome.status >= 400 && outcome.status < 500) this.sale = await this.listingOf(seller);
  }

  /** The seller's listing on the pool as the read API serves it, if any. */
  private async listingOf(seller: TradeAgent): Promise<string | undefined> {
    const r = await fetch(`${this.o.apis()[0]}/marketplace/listings/${this.o.pool}?network_id=9`, {
      headers: { 'x-api-key': seller.apiKey },
      signal: AbortSignal.timeout(5000),
    }).catch(() => undefined);
    const listings = ((await r?.json().catch(() => ({}))) as { data?: { sale_address: string; seller_address?: string }[] })?.data ?? [];
    return listings.find((l) => l.seller_address === seller.keypair.publicKey())?.sale_address;
  }

  /** prepare-<step> → sign → submit-<step>: the submit's data when both answered 200, else the failed answer's status. */
  private async trade(step: string, agent: TradeAgent, body: Record<string, unknown>, area = 'marketplace'): Promise<Answer> {
    const prepared = await this.request(`prepare-${step}`, `${area}/prepare-${step}`, agent, body);
    if (prepared.status !== 200) return { status: prepared.status };
    const tx = TransactionBuilder.fromXDR(prepared.data!.xdr as string, this.o.passphrase) as Transaction;
    tx.sign(agent.keypair);
    const submitted = await this.request(`submit-${step}`, `${area}/submit-${step}`, agent, { signed_xdr: tx.toXDR(), network_id: 9 });
    if (submitted.status !== 200) return { status: submitted.status };
    this.done[step] = (this.done[step] ?? 0) + 1;
    return submitted;
  }

  private async request(step: string, path: string, agent: TradeAgent, body: Record<string, unknown>): Promise<Answer> {
    const apis = this.o.apis();
    const base = apis[this.samples.length % apis.length]!;
    const started = Date.now();
    try {
      const r = await fetch(`${base}/${path}`, {
        method: 'POST',
        headers: { 'x-api-key': agent.apiKey, 'content-type': 'application/json' },
        body: JSON.stringify(body),
        signal: AbortSignal.timeout(15_000), // a submit waits for its ledger: a few seconds, never this long
      });
      const json = (await r.json().catch(() => ({}))) as { data?: Record<string, unknown>; error?: { code?: string } };
      this.samples.push({ at: started, step, status: r.status, ms: Date.now() - started, retryAfter: r.headers.get('retry-after'), code: json.error?.code });
      return { status: r.status, data: json.data };
    } catch (e) {
      const status = (e as Error).name === 'TimeoutError' ? 'timeout' : 'refused';
      this.samples.push({ at: started, step, status, ms: Date.now() - started, retryAfter: null });
      return { status: 0 };
    }
  }
}
