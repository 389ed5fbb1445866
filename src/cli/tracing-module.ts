/**
 * `--tracing MODULE` of `serve`, `react` and `pg work`: an ES module whose
 * default export is an OpenTelemetry TracerProvider it configured (or a
 * function returning one, possibly async; or nothing, having registered a
 * global provider itself). Only then are `signfold/otel` and
 * `@opentelemetry/api` loaded: without the flag a command imports neither.
 * At the end the provider is shut down (its spans flushed), within a bound.
 */
import { NO_TRACING, type Tracing } from '../engine/tracing.js';
import type { TracerSource } from '../otel/otel-tracing.js';
import { CliError, describeThrown } from './cli-error.js';
import { importDefault } from './module-default.js';

/** The tracing of a command, and how to flush it when the command ends. */
export interface CliTracing {
  readonly tracing: Tracing;
  /** Shuts the provider down (flushing its spans); never rejects, at most {@link FLUSH_BOUND_MS}. */
  close(): Promise<void>;
}

/** How long a command's end waits for its provider to flush spans. */
export const FLUSH_BOUND_MS = 5000;

const UNTRACED: CliTracing = { tracing: NO_TRACING, close: async () => undefined };

/** A provider signfold can flush at the end, if it has a `shutdown`. */
type Provider = TracerSource & { shutdown?: () => Promise<unknown> };

const isProvider = (value: unknown): value is Provider =>
  typeof value === 'object' &&
  value !== null &&
  typeof (value as Provider).getTracer === 'function';

/** At most `ms` of `promise`, its failure ignored. */
const bounded = async (promise: Promise<unknown>, ms: number): Promise<void> => {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, ms);
  });
  await Promise.race([promise.catch(() => undefined), late]);
  clearTimeout(timer);
};

/** The provider the module's default export gives, `undefined` for the global one. */
const providerOf = async (exported: unknown, shown: string, command: string) => {
  const given = typeof exported === 'function' ? await (exported as () => unknown)() : exported;
  if (given === undefined || given === null || isProvider(given)) return given ?? undefined;
  throw new CliError(
    `${command}: ${shown} must export a TracerProvider (or a function returning one) as its default export`,
  );
};

/** The tracing of module `path`; {@link NO_TRACING} when `undefined` (nothing loaded). */
export const loadTracing = async (
  path: string | undefined,
  command: string,
): Promise<CliTracing> => {
  if (path === undefined) return UNTRACED;
  const shown = JSON.stringify(path);
  const exported = await importDefault(
    path,
    (cause) =>
      `${command}: --tracing: cannot load ${shown}: ${describeThrown(cause).split('\n')[0]}`,
  );
  let provider: Provider | undefined;
  try {
    provider = await providerOf(exported, shown, command);
  } catch (cause) {
    if (cause instanceof CliError) throw cause;
    throw new CliError(`${command}: --tracing: ${shown} failed: ${describeThrown(cause)}`);
  }
  let otel: typeof import('../otel/otel-tracing.js');
  try {
    otel = await import('../otel/otel-tracing.js');
  } catch (cause) {
    throw new CliError(
      `${command}: --tracing needs the optional peer @opentelemetry/api (npm install @opentelemetry/api): ${describeThrown(cause).split('\n')[0]}`,
    );
  }
  const tracing = otel.createOtelTracing(
    provider === undefined ? {} : { tracerProvider: provider },
  );
  return {
    tracing,
    close: async () => {
      const shutdown = provider?.shutdown;
      if (typeof shutdown === 'function') {
        await bounded(
          Promise.resolve().then(() => shutdown.call(provider)),
          FLUSH_BOUND_MS,
        );
      }
    },
  };
};
