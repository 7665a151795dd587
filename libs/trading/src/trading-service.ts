import type { IdempotentRequests } from './idempotency/idempotent-requests';
import { PrepareService, type PrepareDeps } from './prepare/prepare-service';
import { SubmitService, type SubmitDeps } from './submit/submit-service';

export type TradingDeps = PrepareDeps & SubmitDeps & { readonly idempotency?: IdempotentRequests };

/**
 * The trading use cases the API's command handlers call (libs/api-http/src/trading/trading.handlers.ts): five
 * prepares and one submit per flow, over one set of dependencies.
 */
export class TradingService {
  readonly prepare: PrepareService;
  readonly submitter: SubmitService;
  /** The Idempotency-Key memory of prepare-* and submit-* (absent: the header is not honoured). */
  readonly idempotency: IdempotentRequests | undefined;

  constructor(deps: TradingDeps) {
    this.idempotency = deps.idempotency;
    this.prepare = new PrepareService(deps);
    this.submitter = new SubmitService(deps);
  }
}
