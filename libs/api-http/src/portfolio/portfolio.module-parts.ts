import { PortfolioController } from './portfolio.controller';
import { portfolioHandlers } from './portfolio.handlers';

/** A wallet's portfolio: its controller and query handlers (read-api.module-parts.ts mounts them when the host gives read models). */
export const portfolioModuleParts = { controllers: [PortfolioController], providers: portfolioHandlers };
