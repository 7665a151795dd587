import type { Provider, Type } from '@nestjs/common';
import type { TradingService } from '@dob/trading';
import { CrowdfundingTradeController, MarketplaceTradeController, TRADING } from './trading.controllers';

export { TRADING, MarketplaceTradeController, CrowdfundingTradeController };

/** Controllers and providers ApiModule adds for trading; without a TradingService the routes are not mounted. */
export function tradingModuleParts(trading: TradingService | undefined): { controllers: Type[]; providers: Provider[] } {
  if (!trading) return { controllers: [], providers: [] };
  return { controllers: [MarketplaceTradeController, CrowdfundingTradeController], providers: [{ provide: TRADING, useValue: trading }] };
}
