// node-postgres against Tributary: connect, create, parameterised inserts of every common type,
// array parameters, transactions with savepoints, RETURNING. Usage: node node_pg_client.js PORT
// (with the pg package on NODE_PATH). Exits non-zero at the first check that fails.
const { Client } = require('pg');
const assert = require('assert');

async function main() {
  const c = new Client({ host: '127.0.0.1', port: Number(process.argv[2]), user: 'tributary', database: 'tributary' });
  await c.connect();
  const check = (what, got, want) => {
    assert.deepStrictEqual(got, want, what);
    console.log('ok ' + what);
  };
  check('SELECT 1', (await c.query('SELECT 1 AS one')).rows, [{ one: 1 }]);
  await c.query('CREATE TABLE n (id serial PRIMARY KEY, name text UNIQUE, qty int, price numeric, ok boolean, at timestamptz, tags text[], data bytea)');
  const at = new Date('2026-01-02T03:04:05.678Z');
  const r = await c.query('INSERT INTO n (name, qty, price, ok, at, tags, data) VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING id',
    ['a', 3, '1.50', true, at, ['x', 'y'], Buffer.from([0, 1, 255])]);
  check('serial id via RETURNING', r.rows, [{ id: 1 }]);
  const back = (await c.query('SELECT name, qty, price, ok, at, tags, data FROM n WHERE id = $1', [1])).rows[0];
  check('round trip', [back.name, back.qty, back.price, back.ok, back.at.toISOString(), back.tags, [...back.data]],
    ['a', 3, '1.50', true, at.toISOString(), ['x', 'y'], [0, 1, 255]]);
  check('= ANY($1) with an array', (await c.query('SELECT count(*)::int AS n FROM n WHERE id = ANY($1)', [[1, 2]])).rows, [{ n: 1 }]);
  await c.query('BEGIN');
  await c.query("INSERT INTO n (name) VALUES ('b')");
  await c.query('SAVEPOINT s');
  try {
    await c.query("INSERT INTO n (name) VALUES ('b')");
    throw new Error('a duplicate name was accepted');
  } catch (e) {
    check('duplicate name in a block: 23505', e.code, '23505');
  }
  await c.query('ROLLBACK TO SAVEPOINT s');
  await c.query('COMMIT');
  check('block committed around the failed savepoint', (await c.query('SELECT count(*)::int AS n FROM n')).rows, [{ n: 2 }]);
  const up = await c.query('INSERT INTO n (id, name, qty) VALUES ($1, $2, $3) ON CONFLICT (id) DO UPDATE SET qty = n.qty + excluded.qty RETURNING qty', [1, 'a', 4]);
  check('upsert', up.rows, [{ qty: 7 }]);
  await c.end();
  console.log('node-pg done');
}

main().catch((e) => {
  console.error('FAIL', e);
  process.exit(1);
});
