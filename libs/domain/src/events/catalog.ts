import type { ZodType } from 'zod';

/**
 * The domain event catalog: every event type the system appends, with its current schema version and the
 * upcasters that lift older stored versions to it. Payloads are validated on append (EventStore adapters call
 * `validate`) and upcast on read, so projections only ever see the current shape.
 */
export interface EventDefinition<T = unknown> {
  readonly type: string;
  /** Current schema version (starts at 1). */
  readonly version: number;
  readonly schema: ZodType<T>;
  /** upcasters[v] lifts a version-v payload to version v+1. */
  readonly upcasters?: Readonly<Record<number, (data: unknown) => unknown>>;
}

export class UnknownEventTypeError extends Error {
  override readonly name = 'UnknownEventTypeError';
  constructor(readonly eventType: string) {
    super(`event type ${eventType} is not in the catalog`);
  }
}

export class EventCatalog {
  private readonly definitions = new Map<string, EventDefinition>();

  constructor(definitions: readonly EventDefinition[] = []) {
    for (const d of definitions) this.register(d);
  }

  register(definition: EventDefinition): this {
    if (this.definitions.has(definition.type)) throw new Error(`event type ${definition.type} registered twice`);
    this.definitions.set(definition.type, definition);
    return this;
  }

  has(type: string): boolean {
    return this.definitions.has(type);
  }

  get(type: string): EventDefinition {
    const d = this.definitions.get(type);
    if (!d) throw new UnknownEventTypeError(type);
    return d;
  }

  types(): string[] {
    return [...this.definitions.keys()];
  }

  /**
   * Returns an error description, or null when data is a valid payload of (type, version). A payload that
   * validatePayload passed against the same schema is not checked again: it was frozen then, so it is what passed.
   */
  validate(type: string, version: number, data: unknown): string | null {
    const d = this.definitions.get(type);
    if (!d) return `unknown event type ${type}`;
    if (version !== d.version) return `${type} must be appended at version ${d.version}, got ${version}`;
    if (typeof data === 'object' && data !== null && frozenValid.get(data) === d.schema) return null;
    return issuesOf(d.schema, data);
  }

  /** Lifts a stored payload of an older version to the current one. */
  upcast(type: string, version: number, data: unknown): { version: number; data: unknown } {
    const d = this.definitions.get(type);
    if (!d || version >= d.version) return { version, data };
    let v = version;
    let out = data;
    while (v < d.version) {
      const up = d.upcasters?.[v];
      if (!up) throw new Error(`no upcaster for ${type} v${v} → v${v + 1}`);
      out = up(out);
      v += 1;
    }
    return { version: v, data: out };
  }
}

/**
 * Payloads validatePayload passed, by the schema they passed: each was frozen with everything in it, so none can
 * have changed since. The indexer's decoder validates every payload it builds (a rejected one becomes
 * ChainEventUndecoded) and the event store validates what it appends: without this, each payload of a backfill was
 * checked twice, and the second check was 9 % of the backfill's time (docs/benchmarks-journal.md, "Indexer backfill").
 */
const frozenValid = new WeakMap<object, ZodType>();

function issuesOf(schema: ZodType, data: unknown): string | null {
  const r = schema.safeParse(data);
  return r.success ? null : r.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`).join('; ');
}

/**
 * Validates a payload against its schema and, when it passes, freezes it with every object and array in it, so a
 * catalog appending it later need not check it again (EventCatalog.validate). For payloads built to be appended as
 * they are; one that must change after this is copied, and the copy is checked in full.
 */
export function validatePayload(schema: ZodType, data: unknown): string | null {
  const issues = issuesOf(schema, data);
  if (issues === null && typeof data === 'object' && data !== null) frozenValid.set(deepFreeze(data), schema);
  return issues;
}

function deepFreeze<T extends object>(value: T): T {
  for (const inner of Object.values(value)) if (typeof inner === 'object' && inner !== null && !Object.isFrozen(inner)) deepFreeze(inner as object);
  return Object.freeze(value);
}
