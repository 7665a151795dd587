/** A JSON object (not an array, not null): what event payloads and API bodies are, checked instead of assumed. */
export function isJsonObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
