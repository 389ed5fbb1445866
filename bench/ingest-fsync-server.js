// The naive reference of bench/ingest-ladder.js: a plain node:http server that appends each body to
// a file and fdatasyncs before answering 200, one request at a time as it arrives (no grouping).
// `node bench/ingest-fsync-server.js FILE`; prints `listening on http://127.0.0.1:PORT`.
import { fdatasync, openSync, write } from 'node:fs';
import { createServer } from 'node:http';

const fd = openSync(process.argv[2], 'a');
const server = createServer((request, response) => {
  const chunks = [];
  request.on('data', (chunk) => chunks.push(chunk));
  request.on('end', () => {
    write(fd, Buffer.concat([...chunks, Buffer.from('\n')]), (error) => {
      if (error) return response.writeHead(503).end();
      fdatasync(fd, (synced) => response.writeHead(synced ? 503 : 200).end());
    });
  });
});
server.listen(0, '127.0.0.1', () =>
  console.log(`listening on http://127.0.0.1:${server.address().port}`),
);
process.on('SIGTERM', () => server.close(() => process.exit(0)));
