// A throwaway Postgres for dossier's tests: PGlite (Postgres 18 in WASM)
// with pgvector and pg_trgm, served on a Unix socket by pglite-socket, data
// in memory. Started by store/pg/pgtest.StartPGlite:
//
//   node server.mjs SOCKET_PATH [--no-vector]
//
// PGLITE_DEBUG=1 logs the server's work. It prints "ready" once the socket accepts connections and exits when its
// stdin closes, so a test process that dies takes it along.
import { PGlite } from '@electric-sql/pglite'
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm'
import { vector } from '@electric-sql/pglite-pgvector'
import { PGLiteSocketServer } from '@electric-sql/pglite-socket'

const [path, ...flags] = process.argv.slice(2)
if (!path) {
  console.error('usage: node server.mjs SOCKET_PATH [--no-vector]')
  process.exit(2)
}
// --no-vector serves a Postgres whose pgvector is not installed.
const extensions = { pg_trgm }
if (!flags.includes('--no-vector')) extensions.vector = vector

const db = await PGlite.create({ dataDir: 'memory://', extensions })
// PGlite is one backend: pglite-socket multiplexes its connections query
// by query, so a test uses one connection at a time. It still accepts a
// few, because a client that reconnects at once may arrive before the
// server has seen its last connection close; refused (maxConnections 1),
// such a connection leaves the server refusing every later one.
const server = new PGLiteSocketServer({ db, path, maxConnections: 8, debug: !!process.env.PGLITE_DEBUG })
await server.start()
process.stdout.write('ready\n')

const stop = async () => {
  await server.stop()
  await db.close()
  process.exit(0)
}
process.stdin.on('end', stop)
process.stdin.resume()
process.on('SIGTERM', stop)
