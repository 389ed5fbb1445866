/** The throwaway PostgreSQL server of the tests (shared with the benchmarks). */
export { type PostgresServer, startPostgres } from '../../scripts/throwaway-postgres.js';
