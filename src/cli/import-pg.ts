/**
 * How the CLI loads `pg`: once per process, without the runtime check that
 * costs a short command a sixth of its CPU on Node 20.
 */

type Pg = typeof import('pg');

let loading: Promise<Pg> | undefined;

/**
 * Loads `pg` (rejects when it is not installed). At load, `pg` asks
 * whether it runs in a Cloudflare Worker: it reads `navigator.userAgent`
 * where there is a `navigator`, and otherwise builds a fetch `Response`,
 * whose first use makes Node 20 load its whole HTTP client (undici): about
 * 50 ms of CPU on a quiet machine, twice that on a busy one, in every
 * `pg work --drain` that needs a third of a second in all. Node 21 and
 * later define `navigator` (with `userAgent` `Node.js/21` and so on), so
 * for the length of the import, where Node has none, one like theirs
 * stands in; it is gone when the import settles.
 */
export const importPg = (): Promise<Pg> => {
  loading ??= load().catch((cause: unknown) => {
    loading = undefined;
    throw cause;
  });
  return loading;
};

/** The import itself, with the stand-in `navigator` around it. */
const load = async (): Promise<Pg> => {
  const standIn = !('navigator' in globalThis);
  if (standIn) {
    Object.defineProperty(globalThis, 'navigator', {
      value: { userAgent: `Node.js/${process.versions.node.split('.')[0]}` },
      configurable: true,
      enumerable: false,
      writable: false,
    });
  }
  try {
    return (await import('pg')).default as unknown as Pg;
  } finally {
    if (standIn) Reflect.deleteProperty(globalThis, 'navigator');
  }
};
