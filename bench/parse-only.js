// The whole-process baseline: a process that streams an NDJSON file, splits lines
// and JSON.parses each (bench/baseline.js), then prints the count. What any replay
// of the file must pay at least, start-up included. Usage: node bench/parse-only.js FILE
import { readSplitParse } from './baseline.js';

const file = process.argv[2];
if (file === undefined) {
  console.error('usage: node bench/parse-only.js FILE');
  process.exit(2);
}
console.log(await readSplitParse(file));
