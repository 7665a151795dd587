/** Schema, table and channel names are interpolated into SQL, so only plain identifiers are accepted. */
export function assertIdentifier(name: string): string {
  if (!/^[a-z_][a-z0-9_]{0,62}$/.test(name)) throw new Error(`not a safe SQL identifier: ${JSON.stringify(name)}`);
  return name;
}
