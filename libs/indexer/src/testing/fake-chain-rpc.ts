import type { RawChainEvent } from '../decoding/chain-event';
import {
  MAX_LEDGER_ENTRY_KEYS,
  type ChainRpc,
  type ContractExecutableInfo,
  type ContractInvocation,
  type GetEventsPage,
  type GetEventsRequest,
  type RpcEventFilter,
  type RpcHealth,
} from '../rpc/chain-rpc.port';

/**
 * In-memory stand-in for stellar-rpc in unit tests: getEvents with the real filter semantics (contractIds,
 * topic segments with '*', endLedger exclusive, cursor = last returned id), retention window, injectable faults.
 */
export class FakeChainRpc implements ChainRpc {
  readonly events: RawChainEvent[] = [];
  readonly executables = new Map<string, ContractExecutableInfo>();
  readonly requests: GetEventsRequest[] = [];
  /** Top-level invocations by transaction hash (getTransaction); absent = NOT_FOUND. */
  readonly invocations = new Map<string, ContractInvocation>();
  latestLedger = 100;
  oldestLedger = 1;
  /** Errors thrown by the next calls (FIFO), e.g. to exercise retry. */
  readonly failures: Error[] = [];

  add(...events: RawChainEvent[]): this {
    this.events.push(...events);
    this.events.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    return this;
  }

  private silent: Promise<void> | null = null;

  /** Calls from now on wait unanswered, as an RPC that accepts connections and says nothing, until `release()`. */
  silence(): { release(): void } {
    let release!: () => void;
    this.silent = new Promise((resolve) => (release = resolve));
    return {
      release: () => {
        this.silent = null;
        release();
      },
    };
  }

  private async fault(): Promise<void> {
    if (this.silent) await this.silent;
    const f = this.failures.shift();
    if (f) throw f;
  }

  async getHealth(): Promise<RpcHealth> {
    await this.fault();
    return { latestLedger: this.latestLedger, oldestLedger: this.oldestLedger };
  }

  /** How many getContractExecutables calls were made, and with how many ids each. */
  readonly executableLookups: number[] = [];

  async getContractExecutables(contractIds: readonly string[]): Promise<ReadonlyMap<string, ContractExecutableInfo>> {
    this.executableLookups.push(contractIds.length);
    await this.fault();
    if (contractIds.length > MAX_LEDGER_ENTRY_KEYS) throw new Error(`at most ${MAX_LEDGER_ENTRY_KEYS} keys`);
    return new Map(contractIds.map((id) => [id, this.executables.get(id) ?? null]));
  }

  private invocationsInFlight = 0;
  /** The most getInvocation calls that were ever answered at once (each yields once before it answers). */
  maxInvocationsInFlight = 0;

  async getInvocation(txHash: string): Promise<ContractInvocation | null> {
    this.maxInvocationsInFlight = Math.max(this.maxInvocationsInFlight, ++this.invocationsInFlight);
    try {
      await this.fault();
      await new Promise((resolve) => setImmediate(resolve));
      return this.invocations.get(txHash) ?? null;
    } finally {
      this.invocationsInFlight--;
    }
  }

  async getEvents(request: GetEventsRequest): Promise<GetEventsPage> {
    this.requests.push(request);
    await this.fault();
    let candidates: RawChainEvent[];
    if ('cursor' in request) {
      candidates = this.events.filter((e) => e.id > request.cursor && e.ledger <= this.latestLedger);
    } else {
      if (request.startLedger < this.oldestLedger || request.startLedger > this.latestLedger) {
        throw new Error(`startLedger must be within the ledger range: ${this.oldestLedger} - ${this.latestLedger}`);
      }
      const end = request.endLedger ?? this.latestLedger + 1;
      candidates = this.events.filter((e) => e.ledger >= request.startLedger && e.ledger < end && e.ledger <= this.latestLedger);
    }
    const matched = candidates.filter((e) => request.filters.length === 0 || request.filters.some((f) => matches(f, e)));
    const page = matched.slice(0, request.limit);
    return {
      events: page,
      cursor: page.length ? page[page.length - 1].id : 'cursor' in request ? request.cursor : '',
      latestLedger: this.latestLedger,
      oldestLedger: this.oldestLedger,
      latestLedgerCloseTime: null,
    };
  }
}

function matches(f: RpcEventFilter, e: RawChainEvent): boolean {
  if (f.contractIds && !f.contractIds.includes(e.contractId)) return false;
  if (!f.topics) return true;
  const segments = e.topic.map((t) => t.toXdr('base64'));
  return f.topics.some((pattern) => pattern.length === segments.length && pattern.every((p, i) => p === '*' || p === segments[i]));
}
