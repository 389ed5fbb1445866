/**
 * How the CLI loads `pg`: without the runtime check that costs a short
 * command part of its CPU on Node 20.
 */

/**
 * Loads `pg` (rejects when it is not installed). At load, `pg` asks
 * whether it runs in a Cloudflare Worker: it reads `navigator.userAgent`
 * where there is a `navigator`, and otherwise builds a fetch `Response`,
 * whose first use makes Node 20 load its whole HTTP client (undici): on a
 * quiet machine `pg status` took 0.39 CPU-s with it and 0.35 without, and a
 * profile under load put it at 74 ms a process. Node 21 and later define
 * `navigator` (with `userAgent` `Node.js/21` and so on), so for the length
 * of the import, where Node has none, one like theirs stands in; it is gone
 * when the import settles. Node evaluates `pg` once: an import that starts
 * while another is under way finds the stand-in and leaves it alone.
 */
export const importPg = async (): Promise<typeof import('pg')> => {
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
    return (await import('pg')).default as unknown as typeof import('pg');
  } finally {
    if (standIn) Reflect.deleteProperty(globalThis, 'navigator');
  }
};
