/**
 * The bare baseline: one Fastify route doing one PostgreSQL insert transaction
 * (`begin; insert; commit`) per request over a `pg` pool of the same size as the service's.
 * No auth, no validation beyond JSON parsing, no outbox. Run as its own process by bench/run.ts.
 *
 *   BENCH_DATABASE_URL=postgres://... BENCH_POOL_SIZE=10 node bench/baseline-server.ts
 */
import Fastify from 'fastify';
import pg from 'pg';

const url = process.env.BENCH_DATABASE_URL;
if (!url) throw new Error('BENCH_DATABASE_URL is required');
const pool = new pg.Pool({ connectionString: url, max: Number(process.env.BENCH_POOL_SIZE ?? 10) });
pool.on('error', () => undefined);
await pool.query(`
  create table if not exists bench_bare_inserts (
    id bigserial primary key,
    rfq_id text not null,
    body jsonb not null,
    created_at bigint not null
  )
`);

const app = Fastify({ logger: false });
app.post('/insert', async (request, reply) => {
  const body = request.body as { rfqId?: string };
  const client = await pool.connect();
  try {
    await client.query('begin');
    const { rows } = await client.query<{ id: string }>(
      'insert into bench_bare_inserts (rfq_id, body, created_at) values ($1, $2, $3) returning id',
      [body.rfqId ?? '', JSON.stringify(body), Date.now()],
    );
    await client.query('commit');
    return reply.status(202).send({ id: rows[0]!.id });
  } catch (error) {
    await client.query('rollback').catch(() => undefined);
    throw error;
  } finally {
    client.release();
  }
});

const address = await app.listen({ host: '127.0.0.1', port: Number(process.env.PORT ?? 0) });
process.stdout.write(`listening ${address}\n`);
const stop = async () => {
  await app.close();
  await pool.end();
  process.exit(0);
};
process.on('SIGTERM', () => void stop());
process.on('SIGINT', () => void stop());
