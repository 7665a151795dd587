import { invalidParams } from './json-rpc';

export function optionalUint32(params: Record<string, unknown>, name: string): number | undefined {
  const value = params[name];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0 || value > 0xffffffff) {
    throw invalidParams(`${name} must be an unsigned 32-bit integer`);
  }
  return value;
}

export function requiredString(params: Record<string, unknown>, name: string): string {
  const value = params[name];
  if (typeof value !== 'string' || value.length === 0) throw invalidParams(`${name} must be a non-empty string`);
  return value;
}

export function optionalObject(params: Record<string, unknown>, name: string): Record<string, unknown> | undefined {
  const value = params[name];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'object' || Array.isArray(value)) throw invalidParams(`${name} must be an object`);
  return value as Record<string, unknown>;
}

/** Only base64 XDR is served; "json" (xdrFormat) is not implemented by the devnet. */
export function requireBase64Format(params: Record<string, unknown>): void {
  const format = params.xdrFormat;
  if (format !== undefined && format !== '' && format !== 'base64') {
    throw invalidParams(
      format === 'json' ? 'xdrFormat "json" is not supported by the devnet' : `expected 'base64' or 'json' for xdrFormat, got '${String(format)}'`,
    );
  }
}
