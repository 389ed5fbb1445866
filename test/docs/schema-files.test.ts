import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { buildEvent } from '../../src/core/builders/plain-builders.js';
import { decodeEvent } from '../../src/core/events/decode-event.js';
import { encodeEvent } from '../../src/core/events/encode-event.js';
import {
  EVENT_MEMBERS,
  EVENT_TYPES,
  WIRE_PARTICIPANT_NAME,
} from '../../src/core/events/event-members.js';
import { schemaFiles } from '../../src/core/schema-files.js';

const folder = join(import.meta.dirname, '..', '..', 'docs', 'schema');

describe('published JSON Schemas', () => {
  test('docs/schema holds exactly the generated files, up to date (run `npm run schema`)', () => {
    const generated = schemaFiles();
    expect(readdirSync(folder).sort()).toEqual([...generated.keys()].sort());
    for (const [name, schema] of generated) {
      const onDisk: unknown = JSON.parse(readFileSync(join(folder, name), 'utf8'));
      expect(onDisk, name).toEqual(schema);
    }
  });

  test.each(EVENT_TYPES)('%s schema requires and forbids what the decoder does', (type) => {
    const schema = schemaFiles().get(`${type}.schema.json`) as {
      required: string[];
      properties: Record<string, unknown>;
    };
    const members: readonly string[] = EVENT_MEMBERS[type];
    const required = members.filter((m) => m !== 'participantName');
    expect(schema.required.sort()).toEqual(['type', ...required].sort());
    for (const [name, rule] of Object.entries(schema.properties)) {
      const allowed =
        name === 'type' ||
        members.includes(name) ||
        (name === 'partcipantName' && members.includes('participantName'));
      expect(rule === false, `${type}.${name}`).toBe(!allowed);
      if (rule === false) {
        const decoded = decodeEvent({ ...encodeEvent(buildEvent(type)), [name]: 1 });
        expect(decoded.isErr() && decoded.error).toMatchObject({
          kind: 'member-not-allowed',
          path: name,
        });
      } else {
        // An allowed member, present with a valid value, decodes even in strict mode.
        const withName: Record<string, unknown> = { ...encodeEvent(buildEvent(type)) };
        if (name === 'participantName') {
          // The canonical spelling instead of the wire one.
          withName.participantName = withName[WIRE_PARTICIPANT_NAME];
          withName[WIRE_PARTICIPANT_NAME] = undefined;
        }
        expect(withName, `${type}.${name}`).toHaveProperty(name);
        const decoded = decodeEvent(withName, { strict: true });
        expect(decoded.isOk() && decoded.value, `${type}.${name}`).toEqual(buildEvent(type));
      }
    }
  });
});
