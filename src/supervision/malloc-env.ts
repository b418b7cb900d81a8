/**
 * glibc's malloc settings lanegate's processes run with (read by glibc when a process starts, so
 * they are set where a process is started: `npm start`, the deploy files, and the front for its
 * hosts). Each one is a default the operator's own environment overrides.
 *
 * - Two arenas: under bursts of requests glibc's default arenas kept freed memory as RSS
 *   (+71 MB after 30,000 fuzz requests with the default, +17 MB with two).
 * - Memory blocks up to 32 MiB come from the arenas and, freed, are used again, and up to 64 MiB
 *   free at an arena's top stays mapped. By default glibc maps each block past its (moving)
 *   threshold afresh and returns it when freed: a large answer's bytes and its text (Node makes a
 *   decoded all-ASCII text past ~1 MB in malloc'd memory) then cost a page fault a 4 KiB page every
 *   time. On a machine whose fresh pages are slow (~13 µs each) that was ~12 ms of the event loop
 *   for each 3.9 MB answer decoded, against ~0.3 ms with these when the answers came one after
 *   another. Under issue 19's byte flood a quarter of the front's 3.9 MB body decodes still found
 *   no freed block to reuse (its heap kept growing in small steps) and took 14-21 ms each.
 */
export const MALLOC_DEFAULTS: Readonly<Record<string, string>> = {
  MALLOC_ARENA_MAX: '2',
  MALLOC_MMAP_THRESHOLD_: String(32 * 1024 * 1024),
  MALLOC_TRIM_THRESHOLD_: String(64 * 1024 * 1024),
};

/** The malloc settings for a process started from this one: this one's own where set, else the defaults. */
export const mallocEnv = (env: NodeJS.ProcessEnv = process.env): Record<string, string> => {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(MALLOC_DEFAULTS)) out[k] = env[k] ?? v;
  return out;
};
