import type { Caller, PrepareResponse, PrepareService } from './prepare-service';

type PrepareRequest<M extends keyof PrepareService> = PrepareService[M] extends (caller: Caller, req: infer R) => unknown ? R : never;

/**
 * The five prepare actions as commands (the API dispatches them on its command bus) and their handlers: plain classes
 * over the prepare use cases, so the rules stay in PrepareService and the framework stays in the API.
 */
export class PrepareBuyCommand {
  constructor(
    readonly caller: Caller,
    readonly request: PrepareRequest<'prepareBuy'>,
  ) {}
}

export class PrepareListCommand {
  constructor(
    readonly caller: Caller,
    readonly request: PrepareRequest<'prepareList'>,
  ) {}
}

export class PrepareCancelCommand {
  constructor(
    readonly caller: Caller,
    readonly request: PrepareRequest<'prepareCancel'>,
  ) {}
}

export class PrepareContributeCommand {
  constructor(
    readonly caller: Caller,
    readonly request: PrepareRequest<'prepareContribute'>,
  ) {}
}

export class PrepareReclaimCommand {
  constructor(
    readonly caller: Caller,
    readonly request: PrepareRequest<'prepareReclaim'>,
  ) {}
}

type Preparer = Pick<PrepareService, 'prepareBuy' | 'prepareList' | 'prepareCancel' | 'prepareContribute' | 'prepareReclaim'>;

export class PrepareBuyHandler {
  constructor(private readonly prepare: Preparer) {}
  execute(c: PrepareBuyCommand): Promise<PrepareResponse> {
    return this.prepare.prepareBuy(c.caller, c.request);
  }
}

export class PrepareListHandler {
  constructor(private readonly prepare: Preparer) {}
  execute(c: PrepareListCommand): Promise<PrepareResponse> {
    return this.prepare.prepareList(c.caller, c.request);
  }
}

export class PrepareCancelHandler {
  constructor(private readonly prepare: Preparer) {}
  execute(c: PrepareCancelCommand): Promise<PrepareResponse> {
    return this.prepare.prepareCancel(c.caller, c.request);
  }
}

export class PrepareContributeHandler {
  constructor(private readonly prepare: Preparer) {}
  execute(c: PrepareContributeCommand): Promise<PrepareResponse> {
    return this.prepare.prepareContribute(c.caller, c.request);
  }
}

export class PrepareReclaimHandler {
  constructor(private readonly prepare: Preparer) {}
  execute(c: PrepareReclaimCommand): Promise<PrepareResponse> {
    return this.prepare.prepareReclaim(c.caller, c.request);
  }
}
