import { PoolsController } from './pools.controller';
import { poolsHandlers } from './pools.handlers';

/** The pool reads' controller and query handlers (read-api.module-parts.ts mounts them when the host gives read models). */
export const poolsModuleParts = { controllers: [PoolsController], providers: poolsHandlers };
