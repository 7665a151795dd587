import { HostError } from '../../host/host-errors';

const I128_MAX = (1n << 127n) - 1n;
const I128_MIN = -(1n << 127n);

/** i128 checked arithmetic: `checked_mul(...).ok_or(Error::Overflow)` maps to the contract's own code. */
export function checked(value: bigint, overflowCode: number): bigint {
  if (value > I128_MAX || value < I128_MIN) throw HostError.contract(overflowCode);
  return value;
}

/** Plain i128 `+`/`*` in release wasm with overflow-checks: a trap. */
export function trapOnOverflow(value: bigint): bigint {
  if (value > I128_MAX || value < I128_MIN) throw HostError.panic('attempt to overflow i128');
  return value;
}
