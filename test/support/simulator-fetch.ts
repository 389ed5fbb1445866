/**
 * A fetch module for `signfold reconcile --fetch MODULE` (issue 30): one sign request's JSON from
 * the simulator's read API, whose base URL is in `SIGNFOLD_SIMULATOR_URL`. It returns the parsed
 * JSON unchecked (deciding whether it is a sign request is the caller's job) and throws, with the
 * id and the reason, on anything else: no URL, no answer, a non-2xx, a body that is not JSON.
 *
 * Written with erasable TypeScript only, so Node's type stripping can load it as is.
 */

const bodyStart = (text: string): string =>
  JSON.stringify(text.length > 200 ? `${text.slice(0, 200)}…` : text);

/** GETs `/sign-requests/:id`; aborting `signal` aborts the request and the reading of its body. */
export default async function fetchSignRequest(
  signRequestId: number,
  { signal }: { readonly signal?: AbortSignal } = {},
): Promise<unknown> {
  const base = process.env.SIGNFOLD_SIMULATOR_URL;
  if (base === undefined || base === '') {
    throw new Error('simulator-fetch: SIGNFOLD_SIMULATOR_URL is not set');
  }
  const url = `${base.replace(/\/+$/, '')}/sign-requests/${encodeURIComponent(String(signRequestId))}`;
  // fetch rejects with the signal's reason (an AbortError or TimeoutError) when it aborts.
  const response = await fetch(url, { signal: signal ?? null });
  const text = await response.text();
  if (!response.ok) {
    throw new Error(
      `simulator-fetch: GET ${url} answered ${response.status} ${response.statusText}: ${bodyStart(text)}`,
    );
  }
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new Error(
      `simulator-fetch: GET ${url} answered ${response.status} with a body that is not JSON: ${bodyStart(text)}`,
    );
  }
}
