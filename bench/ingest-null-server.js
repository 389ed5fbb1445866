// The ceiling of bench/ingest-ladder.js: a plain node:http server that reads each body and answers
// 200 without storing it. `node bench/ingest-null-server.js`; prints `listening on http://127.0.0.1:PORT`.
import { createServer } from 'node:http';

const server = createServer((request, response) => {
  request.resume();
  request.on('end', () => response.writeHead(200).end());
});
server.listen(0, '127.0.0.1', () =>
  console.log(`listening on http://127.0.0.1:${server.address().port}`),
);
process.on('SIGTERM', () => server.close(() => process.exit(0)));
