import { v5 as uuidv5 } from 'uuid';
import { CHAIN_EVENT_ID_NAMESPACE, chainDomainEventId, derivedEventId } from './stream-ids';

describe('chain-derived event ids', () => {
  it('are the UUID v5 of the name in the project namespace, as uuid computes it from strings', () => {
    // Stored events carry these ids and appends skip known ones: a change of id would duplicate a replayed history.
    const names = ['1/0000000004294967296-0000000001/0', '7/0000000012345678901-0000000042/3', 'round/CAB…/ünïcode/€'];
    expect(chainDomainEventId(1, '0000000004294967296-0000000001', 0)).toBe(uuidv5(names[0]!, CHAIN_EVENT_ID_NAMESPACE));
    expect(chainDomainEventId(7, '0000000012345678901-0000000042', 3)).toBe(uuidv5(names[1]!, CHAIN_EVENT_ID_NAMESPACE));
    expect(derivedEventId('round', 'CAB…', 'ünïcode', '€')).toBe(uuidv5(names[2]!, CHAIN_EVENT_ID_NAMESPACE));
  });

  it("equal uuid's v5 for every version and variant bit pattern a digest can give", () => {
    // A thousand names reach each of the four variant nibbles (8, 9, a, b) many times.
    const variants = new Set<string>();
    for (let i = 0; i < 1000; i++) {
      const id = derivedEventId('cursor', 9, i, 1000 + i * 7);
      expect(id).toBe(uuidv5(`cursor/9/${i}/${1000 + i * 7}`, CHAIN_EVENT_ID_NAMESPACE));
      variants.add(id[19]!);
    }
    expect([...variants].sort()).toEqual(['8', '9', 'a', 'b']);
  });

  it('keep the ids of histories already stored', () => {
    expect(chainDomainEventId(1, '0000000004294967296-0000000001', 0)).toBe('22352070-db03-59ae-bb22-5c8450d224e9');
  });
});
