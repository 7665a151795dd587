/**
 * Deepest array/object nesting in a JSON text, counted without parsing (brackets inside strings, escapes included,
 * do not count). Stops as soon as `limit` is exceeded, so a hostile body costs one partial scan: JSON.parse itself
 * copes with deep nesting, but everything after it that walks the value recursively (Nest's ValidationPipe strips
 * prototype keys, class-transformer copies) overflows the stack around 10,000 levels.
 */
export function exceedsJsonDepth(text: string, limit: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c /* \ */) i++;
      else if (c === 0x22 /* " */) inString = false;
    } else if (c === 0x22) {
      inString = true;
    } else if (c === 0x5b /* [ */ || c === 0x7b /* { */) {
      if (++depth > limit) return true;
    } else if (c === 0x5d /* ] */ || c === 0x7d /* } */) {
      depth--;
    }
  }
  return false;
}
