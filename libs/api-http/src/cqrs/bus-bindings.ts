import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import type { InstanceWrapper } from '@nestjs/core/injector/instance-wrapper';
import { CommandBus, CommandHandler, QueryBus, QueryHandler } from '@nestjs/cqrs';
import type { MessageBinding } from './message-bindings';

export const MESSAGE_BINDINGS = Symbol('MESSAGE_BINDINGS');

/**
 * Binds the libs' plain handler instances to @nestjs/cqrs's buses at module init.
 *
 * Why this way: CqrsModule normally finds handlers by scanning Nest providers for the @CommandHandler/@QueryHandler
 * metadata and reading the id of the message from the message class's metadata (set by that same decorator, a random
 * UUID per class). Our handlers are plain lib classes whose constructors take services, built once by the composition
 * root, so they are not Nest providers (a value provider's wrapper has no class for the bus to read the id from).
 * Here, in the app only, the public decorators are applied to the handler classes (which stamps the message id) and
 * the bus's own `register` is given what it reads from a provider: the class and the singleton instance, marked
 * static so the bus calls `instance.execute` directly instead of resolving a per-request instance. No lib imports
 * Nest, and dispatch is the bus's normal path: `execute(new ListPoolsQuery(...))` → id from the class → handler.
 */
@Injectable()
export class BusBindings implements OnModuleInit {
  constructor(
    private readonly commands: CommandBus,
    private readonly queries: QueryBus,
    @Inject(MESSAGE_BINDINGS) private readonly bindings: readonly MessageBinding[],
  ) {}

  onModuleInit(): void {
    for (const b of this.bindings) {
      const handlerClass = b.handler.constructor as new (...args: never[]) => object;
      const wrapper = { metatype: handlerClass, instance: b.handler, isDependencyTreeStatic: () => true } as unknown as InstanceWrapper<never>;
      if (b.bus === 'command') {
        CommandHandler(b.message as never)(handlerClass);
        this.commands.register([wrapper]);
      } else {
        QueryHandler(b.message as never)(handlerClass);
        this.queries.register([wrapper]);
      }
    }
  }
}
