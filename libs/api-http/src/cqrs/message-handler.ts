import { Inject, Injectable, type InjectionToken, type Type } from '@nestjs/common';
import { CommandHandler, QueryHandler } from '@nestjs/cqrs';

/** A command or query class an area sends on a bus. */
export type MessageClass<M> = new (...args: never[]) => M;

/** The use case call that answers one message, given what the host composed for the area. */
export type UseCase<D, M> = (dependency: D, message: M) => Promise<unknown>;

/**
 * One @CommandHandler or @QueryHandler provider: Nest injects `dependency` (what the host composed: the read models'
 * query services, the auth, the webhook service…) and `execute` calls the use case with it. The class is made with
 * the library's public decorators, so CqrsModule's explorer finds it among the module's providers like a handler
 * class written out — one entry per message instead of six lines of the same class.
 */
function messageHandler<D, M>(bus: 'command' | 'query', message: MessageClass<M>, dependency: InjectionToken, useCase: UseCase<D, M>): Type {
  @Injectable()
  class Handler {
    constructor(@Inject(dependency) private readonly dependency: D) {}
    execute(m: M): Promise<unknown> {
      return useCase(this.dependency, m);
    }
  }
  Object.defineProperty(Handler, 'name', { value: `${message.name}Handler` });
  (bus === 'command' ? CommandHandler : QueryHandler)(message)(Handler);
  return Handler;
}

/** The handler of a command on the CommandBus (see messageHandler). */
export const commandHandler = <D, M>(message: MessageClass<M>, dependency: InjectionToken, useCase: UseCase<D, M>): Type =>
  messageHandler('command', message, dependency, useCase);

/** The handler of a query on the QueryBus (see messageHandler). */
export const queryHandler = <D, M>(message: MessageClass<M>, dependency: InjectionToken, useCase: UseCase<D, M>): Type =>
  messageHandler('query', message, dependency, useCase);
