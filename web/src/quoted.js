// A bad value as an error message quotes it, for the records' reader and the engine worker
// alike: at most QUOTED_LENGTH characters, objects and lists as JSON, a BigInt with its n,
// a missing value as "nothing"; never "undefined" or "[object Object]".

export const QUOTED_LENGTH = 40;

export function quoted(value) {
  if (value === undefined) return 'nothing';
  if (typeof value === 'bigint') return `${String(value).slice(0, QUOTED_LENGTH)}n`;
  if (value === null || typeof value !== 'object') return String(value).slice(0, QUOTED_LENGTH);
  try {
    return JSON.stringify(value).slice(0, QUOTED_LENGTH);
  } catch {
    return Array.isArray(value) ? 'a list' : 'an object'; // a cycle, or a BigInt inside
  }
}
