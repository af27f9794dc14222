'use strict'

const knex = require('knex')
const { statementKinds } = require('../../src/bench/sql-forms')

// The SQL-forms microbenchmark measures the switch's own statements: each kind
// must come out as statements the server can run both ways, with one binding
// per placeholder (a prepared statement takes exactly that many parameters).
test('every statement kind the SQL-forms microbenchmark sends has one binding per placeholder and fresh rows each time', () => {
  const db = knex({ client: 'mysql2' })
  const ids = Array.from({ length: 100 }, (_, i) => `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`)
  const kinds = statementKinds(db, 7, ids)
  expect(Object.keys(kinds)).toEqual(expect.arrayContaining(['callback INSERT', 'callback_attempt INSERT', 'transfer UPDATE (CASE per column)', 'consumer_progress upsert (per record)']))
  for (const [kind, make] of Object.entries(kinds)) {
    const first = make()
    const second = make()
    expect(first.length).toBe(1)
    for (const { sql, bindings } of [...first, ...second]) {
      expect({ kind, placeholders: (sql.match(/\?/g) || []).length }).toEqual({ kind, placeholders: bindings.length })
    }
    expect({ kind, same: JSON.stringify(first[0].bindings) === JSON.stringify(second[0].bindings) }).toEqual({ kind, same: false })
  }
  const [callbacks] = kinds['callback INSERT']()
  expect(callbacks.sql).toMatch(/^INSERT INTO callback \(/)
  expect((callbacks.sql.match(/\(\?, \?/g) || []).length).toBe(7)
})
