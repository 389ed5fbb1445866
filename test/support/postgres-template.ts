/**
 * Vitest global setup: one `initdb` for the whole run. About thirty test files each start a
 * throwaway PostgreSQL server of their own (their own port, data and lifetime, which the outage
 * tests pause and restart); each now starts on a copy of this cluster instead of running
 * `initdb`, which took seconds of CPU per file on a 2-core machine.
 */
import { makeTemplate, TEMPLATE_VARIABLE } from '../../scripts/throwaway-postgres.js';

export default function postgresTemplate(): (() => void) | undefined {
  let template: ReturnType<typeof makeTemplate>;
  try {
    template = makeTemplate();
  } catch {
    // No PostgreSQL here: every server runs initdb itself, and reports what is missing.
    return undefined;
  }
  // Set before the test workers start, which inherit it.
  process.env[TEMPLATE_VARIABLE] = template.data;
  return () => {
    delete process.env[TEMPLATE_VARIABLE];
    template.remove();
  };
}
