import { TradingService } from '@dob/trading';
import { commandHandler } from '../cqrs/message-handler';
import type { Caller, PrepareService, TradeKind } from '@dob/trading';

type PrepareAction = 'prepareBuy' | 'prepareList' | 'prepareCancel' | 'prepareContribute' | 'prepareReclaim';
type PrepareRequest<M extends PrepareAction> = PrepareService[M] extends (caller: Caller, req: infer R) => unknown ? R : never;

/** The shape of the prepare commands: the caller and the request of one PrepareService action. */
const prepareCommand = <M extends PrepareAction>(_action: M) =>
  class {
    constructor(
      readonly caller: Caller,
      readonly request: PrepareRequest<M>,
    ) {}
  };

/**
 * The five prepare actions as commands (the controllers send them on the command bus), each its own class since the
 * bus routes by class; their handlers, below, call libs/trading's PrepareService, where the rules are.
 */
export class PrepareBuyCommand extends prepareCommand('prepareBuy') {}
export class PrepareListCommand extends prepareCommand('prepareList') {}
export class PrepareCancelCommand extends prepareCommand('prepareCancel') {}
export class PrepareContributeCommand extends prepareCommand('prepareContribute') {}
export class PrepareReclaimCommand extends prepareCommand('prepareReclaim') {}

/** A signed envelope of one of the five trade kinds, handed back for submission (one command for every flow). */
export class SubmitSignedTradeCommand {
  constructor(
    readonly kind: TradeKind,
    readonly caller: Caller,
    readonly request: { signed_xdr: string; network_id: number },
  ) {}
}

/** Each trading command and the use case that answers it, over the TradingService the host composed (createTradingService). */
export const tradingHandlers = [
  commandHandler(PrepareBuyCommand, TradingService, (t: TradingService, c) => t.prepare.prepareBuy(c.caller, c.request)),
  commandHandler(PrepareListCommand, TradingService, (t: TradingService, c) => t.prepare.prepareList(c.caller, c.request)),
  commandHandler(PrepareCancelCommand, TradingService, (t: TradingService, c) => t.prepare.prepareCancel(c.caller, c.request)),
  commandHandler(PrepareContributeCommand, TradingService, (t: TradingService, c) => t.prepare.prepareContribute(c.caller, c.request)),
  commandHandler(PrepareReclaimCommand, TradingService, (t: TradingService, c) => t.prepare.prepareReclaim(c.caller, c.request)),
  commandHandler(SubmitSignedTradeCommand, TradingService, (t: TradingService, c) => t.submitter.submit(c.kind, c.caller, c.request)),
];
