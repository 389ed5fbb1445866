// Writes docs/schema/*.json from the decoders' own tables (run: npm run schema).
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { schemaFiles } from '../dist/core/schema-files.js';

const folder = join(import.meta.dirname, '..', 'docs', 'schema');
mkdirSync(folder, { recursive: true });
for (const [name, schema] of schemaFiles()) {
  writeFileSync(join(folder, name), `${JSON.stringify(schema, null, 2)}\n`);
}
console.log(`wrote ${schemaFiles().size} schemas to docs/schema/`);
