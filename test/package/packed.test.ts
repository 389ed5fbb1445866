/**
 * The package as a user installs it, packed and installed once (fixtures/packed-app.ts), checked
 * three ways: what the tarball holds and how it runs (clean-pack), a strict TypeScript consumer
 * without `@types/node` (strict-consumer), and the core in a browser (browser-bundle).
 */
import { afterAll } from 'vitest';
import { describeBrowserBundle } from './browser-bundle.js';
import { describeCleanPack } from './clean-pack.js';
import { usePackedApp } from './fixtures/packed-app.js';
import { describeStrictConsumer } from './strict-consumer.js';

// esbuild's service is a child process: it must end with the file (test/support/process-fixture.ts).
afterAll(async () => (await import('esbuild')).stop());

const packedApp = usePackedApp();
describeCleanPack(packedApp);
describeStrictConsumer(packedApp);
describeBrowserBundle(packedApp);
