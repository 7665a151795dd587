import type { Provider, Type } from '@nestjs/common';
import {
  PrepareBuyCommand,
  PrepareBuyHandler,
  PrepareCancelCommand,
  PrepareCancelHandler,
  PrepareContributeCommand,
  PrepareContributeHandler,
  PrepareListCommand,
  PrepareListHandler,
  PrepareReclaimCommand,
  PrepareReclaimHandler,
  SubmitSignedTradeCommand,
  SubmitSignedTradeHandler,
  IdempotentRequests,
  type TradingService,
} from '@dob/trading';
import { command, type MessageBinding } from '../cqrs/message-bindings';
import { CrowdfundingTradeController, MarketplaceTradeController } from './trading.controllers';

export { MarketplaceTradeController, CrowdfundingTradeController };

/** Controllers and command bindings ApiModule adds for trading; without a TradingService the routes are not mounted. */
export function tradingModuleParts(trading: TradingService | undefined): { controllers: Type[]; providers: Provider[]; bindings: MessageBinding[] } {
  if (!trading) return { controllers: [], providers: [], bindings: [] };
  return {
    controllers: [MarketplaceTradeController, CrowdfundingTradeController],
    providers: trading.idempotency ? [{ provide: IdempotentRequests, useValue: trading.idempotency }] : [],
    bindings: [
      command(PrepareBuyCommand, new PrepareBuyHandler(trading)),
      command(PrepareListCommand, new PrepareListHandler(trading)),
      command(PrepareCancelCommand, new PrepareCancelHandler(trading)),
      command(PrepareContributeCommand, new PrepareContributeHandler(trading)),
      command(PrepareReclaimCommand, new PrepareReclaimHandler(trading)),
      command(SubmitSignedTradeCommand, new SubmitSignedTradeHandler(trading)),
    ],
  };
}
