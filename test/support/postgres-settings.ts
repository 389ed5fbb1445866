/**
 * Server settings of the test servers. A test server never outlives an OS crash, so writes
 * need not reach the disk: a server killed or restarted with `immediate` still finds its WAL in
 * the OS's cache. That spares the 2-core machine most of its disk waits. Benchmarks keep
 * PostgreSQL's defaults.
 */
export const OWN_SERVER_SETTINGS: readonly string[] = [
  '-c fsync=off',
  '-c full_page_writes=off',
  // A test's tables live for seconds: a vacuum in the background only takes CPU from the tests
  // (the tests that need one run VACUUM themselves).
  '-c autovacuum=off',
];

/**
 * The shared servers: the same. Commits stay synchronous (PostgreSQL's default, which tests
 * check); with fsync off a commit's flush is only a write to the OS.
 */
export const TEST_SERVER_SETTINGS: readonly string[] = OWN_SERVER_SETTINGS;
