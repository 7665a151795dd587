import type { TradeKind } from '../domain/trade-kind';
import type { Caller } from '../prepare/prepare-service';
import type { SubmitResult, SubmitService } from './submit-service';

/** A signed envelope of one of the five trade kinds, handed back for submission (one command for every flow). */
export class SubmitSignedTradeCommand {
  constructor(
    readonly kind: TradeKind,
    readonly caller: Caller,
    readonly request: { signed_xdr: string; network_id: number },
  ) {}
}

export class SubmitSignedTradeHandler {
  constructor(private readonly submitter: Pick<SubmitService, 'submit'>) {}
  execute(c: SubmitSignedTradeCommand): Promise<SubmitResult> {
    return this.submitter.submit(c.kind, c.caller, c.request);
  }
}
