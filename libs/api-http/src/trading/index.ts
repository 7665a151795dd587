import type { Provider, Type } from '@nestjs/common';
import { IdempotentRequests, TradingService } from '@dob/trading';
import { CrowdfundingTradeController, MarketplaceTradeController } from './trading.controllers';
import { tradingHandlers } from './trading.handlers';

export { MarketplaceTradeController, CrowdfundingTradeController };

/** Controllers and providers (the command handlers among them) ApiModule adds for trading; without a TradingService the routes are not mounted. */
export function tradingModuleParts(trading: TradingService | undefined): { controllers: Type[]; providers: Provider[] } {
  if (!trading) return { controllers: [], providers: [] };
  return {
    controllers: [MarketplaceTradeController, CrowdfundingTradeController],
    providers: [
      { provide: TradingService, useValue: trading },
      ...(trading.idempotency ? [{ provide: IdempotentRequests, useValue: trading.idempotency }] : []),
      ...tradingHandlers,
    ],
  };
}
