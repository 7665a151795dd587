import { Address, Asset, hash, StrKey, xdr } from '@stellar/stellar-sdk';

/** sha256(passphrase): the network id every Soroban preimage commits to. */
export const networkId = (passphrase: string): Uint8Array => hash(Buffer.from(passphrase));

/**
 * C… address of a contract created by `deployer` with `salt`, exactly as the real network derives it:
 * sha256(HashIdPreimage::ContractId { networkId, ContractIdPreimage::FromAddress { deployer, salt } }).
 */
export function contractIdFromDeployer(passphrase: string, deployer: string, salt: Uint8Array): string {
  if (salt.length !== 32) throw new Error('salt must be 32 bytes');
  const preimage = xdr.HashIdPreimage.envelopeTypeContractId(
    new xdr.HashIdPreimageContractId({
      networkId: networkId(passphrase),
      contractIdPreimage: xdr.ContractIdPreimage.contractIdPreimageFromAddress(
        new xdr.ContractIdPreimageFromAddress({ address: Address.fromString(deployer).toScAddress(), salt }),
      ),
    }),
  );
  return StrKey.encodeContract(Buffer.from(hash(Buffer.from(preimage.toXdr()))));
}

/** The Stellar Asset Contract address of a classic asset (same derivation as `Asset#contractId`). */
export function stellarAssetContractId(passphrase: string, code: string, issuer?: string): string {
  const asset = code === 'native' && !issuer ? Asset.native() : new Asset(code, issuer);
  return asset.contractId(passphrase);
}
