/**
 * Server settings of the test servers. A test server never outlives an OS crash, so writes
 * need not reach the disk: a server killed or restarted with `immediate` still finds its WAL in
 * the OS's cache. That spares the 2-core machine most of its disk waits. Benchmarks keep
 * PostgreSQL's defaults.
 */
export const OWN_SERVER_SETTINGS: readonly string[] = ['-c fsync=off', '-c full_page_writes=off'];

/**
 * The shared servers are never stopped, restarted or paused by a test, so a commit need not
 * even wait for the WAL writer (a crash would lose the last commits: none happens).
 */
export const TEST_SERVER_SETTINGS: readonly string[] = [
  ...OWN_SERVER_SETTINGS,
  '-c synchronous_commit=off',
];
