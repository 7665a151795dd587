import { z } from 'zod';
import { EventCatalog, validatePayload } from './catalog';

describe('payloads checked once', () => {
  let checks = 0;
  const counted = z
    .object({ pool: z.string().regex(/^C/), chain: z.object({ ledger: z.number().int() }), holders: z.array(z.object({ share: z.string() })) })
    .strict()
    .refine(() => ++checks > 0);
  const catalog = new EventCatalog([
    { type: 'Counted', version: 1, schema: counted },
    { type: 'Other', version: 1, schema: counted.and(z.object({ pool: z.string().min(3) })) },
  ]);
  const payload = () => ({ pool: 'CA1', chain: { ledger: 7 }, holders: [{ share: '1' }] });
  beforeEach(() => (checks = 0));

  it('validatePayload freezes what passed, all the way down, and the catalog does not check it again', () => {
    const data = payload();
    expect(validatePayload(counted, data)).toBeNull();
    expect([Object.isFrozen(data), Object.isFrozen(data.chain), Object.isFrozen(data.holders), Object.isFrozen(data.holders[0])]).toEqual([
      true,
      true,
      true,
      true,
    ]);
    expect(checks).toBe(1);
    expect(catalog.validate('Counted', 1, data)).toBeNull();
    expect(checks).toBe(1);
    // Still the catalog's own rules: an unknown type or a wrong version is refused whatever was checked before.
    expect(catalog.validate('Nope', 1, data)).toMatch(/unknown event type/);
    expect(catalog.validate('Counted', 2, data)).toMatch(/must be appended at version 1/);
  });

  it('checks in full a copy, a payload that failed, one checked against another schema, and leaves what it checks unfrozen', () => {
    const data = payload();
    validatePayload(counted, data);
    expect(catalog.validate('Counted', 1, { ...data, pool: 'GA1' })).toMatch(/pool/);
    const before = checks;
    expect(catalog.validate('Other', 1, data)).toBeNull(); // another schema: checked (and passes) in full
    expect(checks).toBe(before + 1);

    const bad = { ...payload(), extra: true };
    expect(validatePayload(counted, bad)).toMatch(/extra|Unrecognized/);
    expect(Object.isFrozen(bad)).toBe(false);
    expect(catalog.validate('Counted', 1, bad)).not.toBeNull();

    const plain = payload();
    const first = checks;
    expect(catalog.validate('Counted', 1, plain)).toBeNull();
    expect(Object.isFrozen(plain)).toBe(false);
    expect(catalog.validate('Counted', 1, plain)).toBeNull();
    expect(checks).toBe(first + 2); // checked each time: only validatePayload's payloads are taken as checked
  });
});
