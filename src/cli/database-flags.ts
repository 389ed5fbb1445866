/**
 * The flags that name a database, `--database URL [--schema NAME]
 * [--connect-timeout SECONDS]`, shared by every command that may read or
 * write PostgreSQL. Each command words their help its own way (see
 * {@link describedAs}); what they accept is the same everywhere.
 */
import { type FlagValues, valueOption, withDefault } from './flags.js';
import { fromTo, integerIn } from './integer-option.js';

/**
 * How long opening a connection may take, in seconds, unless
 * `--connect-timeout` says otherwise: a server (or anything else) that
 * accepts the connection and never answers must not hang a command.
 */
export const DEFAULT_CONNECT_TIMEOUT_SECONDS = 10;

/** A day: longer than any sensible wait, and well inside what a Node timer can hold. */
const MAX_CONNECT_TIMEOUT_SECONDS = 86_400;

const connectTimeoutSeconds = integerIn(fromTo(1, MAX_CONNECT_TIMEOUT_SECONDS, 'seconds'));

/** `--database URL [--schema NAME] [--connect-timeout SECONDS]` (the last in ms, default 10 s). */
export const DATABASE_FLAGS = {
  database: valueOption({ value: 'URL' }),
  schema: valueOption({ value: 'NAME' }),
  'connect-timeout': withDefault(
    valueOption({ value: 'SECONDS' }, (value, flag) => connectTimeoutSeconds(value, flag) * 1000),
    DEFAULT_CONNECT_TIMEOUT_SECONDS * 1000,
  ),
};

/** What the database flags give a command. */
export type DatabaseValues = FlagValues<typeof DATABASE_FLAGS>;
