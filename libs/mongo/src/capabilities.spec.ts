import { detectCapabilities } from './capabilities';

describe('detectCapabilities', () => {
  it('FerretDB never has transactions, whatever it says about replication, nor safe multi-update commands', () => {
    expect(detectCapabilities({ setName: 'rs0', logicalSessionTimeoutMinutes: 30 }, { version: '7.0.42', ferretdbVersion: 'v1.24.2' })).toEqual({
      server: 'ferretdb',
      version: '7.0.42',
      transactions: false,
      multiUpdateCommands: false,
    });
  });
  it('a MongoDB replica set member or mongos with sessions has them; a standalone server does not', () => {
    expect(detectCapabilities({ setName: 'rs0', logicalSessionTimeoutMinutes: 30 }, { version: '7.0.14' }).transactions).toBe(true);
    expect(detectCapabilities({ msg: 'isdbgrid', logicalSessionTimeoutMinutes: 30 }, { version: '7.0.14' }).transactions).toBe(true);
    expect(detectCapabilities({ logicalSessionTimeoutMinutes: 30 }, { version: '7.0.14' })).toEqual({
      server: 'mongodb',
      version: '7.0.14',
      transactions: false,
      multiUpdateCommands: true,
    });
    expect(detectCapabilities({ setName: 'rs0' }, { version: '7.0.14' }).transactions).toBe(false);
  });
});
