import { Module, type DynamicModule } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { CommandBus, CqrsModule, QueryBus } from '@nestjs/cqrs';
import { AppError } from '@dob/domain';
import { BusBindings, MESSAGE_BINDINGS } from './bus-bindings';
import { command, query, type MessageBinding } from './message-bindings';

// Plain classes, as the libs write them: no decorator, no framework import.
class RenameThing {
  constructor(readonly name: string) {}
}
class FindThing {
  constructor(readonly id: string) {}
}
class RenameThingHandler {
  readonly seen: RenameThing[] = [];
  constructor(private readonly refusal?: Error) {}
  async execute(c: RenameThing): Promise<string> {
    this.seen.push(c);
    if (this.refusal) throw this.refusal;
    return `renamed to ${c.name}`;
  }
}
class FindThingHandler {
  constructor(private readonly owner: string) {}
  async execute(q: FindThing): Promise<string> {
    return `${this.owner} found ${q.id}`;
  }
}

@Module({})
class BusTestModule {
  static with(bindings: MessageBinding[]): DynamicModule {
    return { module: BusTestModule, imports: [CqrsModule.forRoot()], providers: [{ provide: MESSAGE_BINDINGS, useValue: bindings }, BusBindings] };
  }
}

const open = (bindings: MessageBinding[]) => NestFactory.createApplicationContext(BusTestModule.with(bindings), { logger: false });

describe('BusBindings: plain lib handlers on @nestjs/cqrs buses', () => {
  it('a command and a query dispatched on the buses reach the bound instances and their answers come back', async () => {
    const rename = new RenameThingHandler();
    const app = await open([command(RenameThing, rename), query(FindThing, new FindThingHandler('A'))]);
    try {
      const sent = new RenameThing('solar');
      await expect(app.get(CommandBus).execute(sent)).resolves.toBe('renamed to solar');
      expect(rename.seen).toEqual([sent]);
      await expect(app.get(QueryBus).execute(new FindThing('p1'))).resolves.toBe('A found p1');
    } finally {
      await app.close();
    }
  });

  it("a handler's error reaches the caller as the same instance (so the error filter gives the same envelope)", async () => {
    const refusal = AppError.validation('name is too long');
    const app = await open([command(RenameThing, new RenameThingHandler(refusal))]);
    try {
      await expect(app.get(CommandBus).execute(new RenameThing('x'.repeat(300)))).rejects.toBe(refusal);
    } finally {
      await app.close();
    }
  });

  it('two applications in one process each dispatch to their own handler instances', async () => {
    const a = await open([query(FindThing, new FindThingHandler('A'))]);
    const b = await open([query(FindThing, new FindThingHandler('B'))]);
    try {
      await expect(a.get(QueryBus).execute(new FindThing('p1'))).resolves.toBe('A found p1');
      await expect(b.get(QueryBus).execute(new FindThing('p1'))).resolves.toBe('B found p1');
    } finally {
      await a.close();
      await b.close();
    }
  });

  it('a message nobody bound is refused by the bus rather than silently dropped', async () => {
    const app = await open([query(FindThing, new FindThingHandler('A'))]);
    try {
      expect(() => app.get(CommandBus).execute(new RenameThing('x'))).toThrow(/RenameThing/);
    } finally {
      await app.close();
    }
  });
});
