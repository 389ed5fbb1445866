/** How the `pg` subcommands report a failure of the database. */
import type { PostgresError } from '../../postgres/index.js';
import { CliError } from '../cli-error.js';

/**
 * A failure of the database, as one line (exit 2): the adapter's message
 * already names what failed (unreachable, schema missing, a query refused).
 */
export const postgresFailure = (error: PostgresError): CliError => new CliError(error.message);
