import { LanegateError } from '../errors.js';

const UNITS: Record<string, number> = { s: 1, m: 60, h: 3600, d: 86_400, w: 604_800 };

/** "30d" → seconds. Pure. */
export const parseDuration = (text: string): number => {
  const m = /^(\d+)([smhdw])$/.exec(text.trim());
  if (!m) throw new LanegateError('bad_request', `duration "${text}" must look like 90s, 15m, 12h, 30d or 2w`);
  const seconds = Number(m[1]) * (UNITS[m[2] ?? 's'] ?? 1);
  if (seconds <= 0) throw new LanegateError('bad_request', 'duration must be positive');
  return seconds;
};
