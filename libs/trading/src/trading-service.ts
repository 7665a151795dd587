import type { TradeKind } from './domain/trade-kind';
import type { IdempotentRequests } from './idempotency/idempotent-requests';
import { PrepareService, type Caller, type PrepareDeps, type PrepareResponse } from './prepare/prepare-service';
import { SubmitService, type SubmitDeps, type SubmitResult } from './submit/submit-service';

export type TradingDeps = PrepareDeps & SubmitDeps & { readonly idempotency?: IdempotentRequests };

/** The trading use cases the API calls: five prepares and one submit per flow. */
export class TradingService {
  readonly prepare: PrepareService;
  private readonly submitter: SubmitService;
  /** The Idempotency-Key memory of prepare-* and submit-* (absent: the header is not honoured). */
  readonly idempotency: IdempotentRequests | undefined;

  constructor(deps: TradingDeps) {
    this.idempotency = deps.idempotency;
    this.prepare = new PrepareService(deps);
    this.submitter = new SubmitService(deps);
  }

  prepareBuy(caller: Caller, req: Parameters<PrepareService['prepareBuy']>[1]): Promise<PrepareResponse> {
    return this.prepare.prepareBuy(caller, req);
  }

  prepareList(caller: Caller, req: Parameters<PrepareService['prepareList']>[1]): Promise<PrepareResponse> {
    return this.prepare.prepareList(caller, req);
  }

  prepareCancel(caller: Caller, req: Parameters<PrepareService['prepareCancel']>[1]): Promise<PrepareResponse> {
    return this.prepare.prepareCancel(caller, req);
  }

  prepareContribute(caller: Caller, req: Parameters<PrepareService['prepareContribute']>[1]): Promise<PrepareResponse> {
    return this.prepare.prepareContribute(caller, req);
  }

  prepareReclaim(caller: Caller, req: Parameters<PrepareService['prepareReclaim']>[1]): Promise<PrepareResponse> {
    return this.prepare.prepareReclaim(caller, req);
  }

  submit(kind: TradeKind, caller: Caller, req: { signed_xdr: string; network_id: number }): Promise<SubmitResult> {
    return this.submitter.submit(kind, caller, req);
  }
}
