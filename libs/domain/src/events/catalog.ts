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

  /** Returns an error description, or null when data is a valid payload of (type, version). */
  validate(type: string, version: number, data: unknown): string | null {
    const d = this.definitions.get(type);
    if (!d) return `unknown event type ${type}`;
    if (version !== d.version) return `${type} must be appended at version ${d.version}, got ${version}`;
    const r = d.schema.safeParse(data);
    return r.success ? null : r.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`).join('; ');
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
