import { MarketplaceReadController } from './marketplace-read.controller';
import { marketplaceHandlers } from './marketplace.handlers';

/** The marketplace reads' controller and query handlers (read-api.module-parts.ts mounts them when the host gives read models). */
export const marketplaceModuleParts = { controllers: [MarketplaceReadController], providers: marketplaceHandlers };
