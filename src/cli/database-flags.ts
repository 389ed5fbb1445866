/**
 * The flags that name a database, `--database URL [--schema NAME]
 * [--connect-timeout SECONDS]`, shared by every command that may read or
 * write PostgreSQL. Each command words their help its own way (see
 * {@link describedAs}); what they accept is the same everywhere.
 */
import { integerFlag } from './args.js';
import { usageError } from './cli-error.js';
import { valueOption, withDefault } from './flags.js';

/**
 * How long opening a connection may take, in seconds, unless
 * `--connect-timeout` says otherwise: a server (or anything else) that
 * accepts the connection and never answers must not hang a command.
 */
export const DEFAULT_CONNECT_TIMEOUT_SECONDS = 10;

/** A day: longer than any sensible wait, and well inside what a Node timer can hold. */
const MAX_CONNECT_TIMEOUT_SECONDS = 86_400;

/** `--connect-timeout SECONDS` (1 to 86400), in milliseconds; a usage error otherwise. */
export const connectTimeoutMs = (raw: string): number => {
  const seconds = integerFlag('--connect-timeout', raw);
  if (seconds < 1 || seconds > MAX_CONNECT_TIMEOUT_SECONDS) {
    throw usageError(
      `--connect-timeout must be 1 to ${MAX_CONNECT_TIMEOUT_SECONDS} (seconds; got '${raw}')`,
    );
  }
  return seconds * 1000;
};

/** `--database URL [--schema NAME] [--connect-timeout SECONDS]` (the last in ms, default 10 s). */
export const DATABASE_FLAGS = {
  database: valueOption({ value: 'URL' }),
  schema: valueOption({ value: 'NAME' }),
  'connect-timeout': withDefault(
    valueOption({ value: 'SECONDS' }, connectTimeoutMs),
    DEFAULT_CONNECT_TIMEOUT_SECONDS * 1000,
  ),
};
